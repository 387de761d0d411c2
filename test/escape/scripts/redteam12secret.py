# The twelfth round: secret memory (memfd_secret), each page of which the
# kernel takes out of its direct map of all memory, splitting the host's
# huge pages of that map for good. 7 MiB, within the 8 MiB RLIMIT_MEMLOCK
# every process may have, each page touched. Prints "ok: WHAT: ERRNO" when
# the call was refused with ENOSYS and "ESCAPE: WHAT" otherwise; the last
# line says how many ran.
import ctypes, errno, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
size = 7 << 20
fd = libc.syscall(447, 0)  # memfd_secret, on x86_64 and aarch64 alike
if fd < 0:
    e = ctypes.get_errno()
    print(("ok: " if e == errno.ENOSYS else "ESCAPE: ") + "memfd_secret: " + errno.errorcode.get(e, str(e)), flush=True)
else:
    os.ftruncate(fd, size)
    m = mmap.mmap(fd, size)
    for off in range(0, size, mmap.PAGESIZE):
        m[off:off + 1] = b"s"
    print(f"ESCAPE: memfd_secret: {size >> 20} MiB mapped and touched", flush=True)
print("ran 1")
