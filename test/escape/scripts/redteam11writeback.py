# The eleventh round: the host's write-back around the rule that leaves
# fsync undone. HOSTFILE names a file of the host a host process left
# dirty, which the command reads through a descriptor opened for reading
# alone. Each way that would write its dirty pages back first prints
# "ok: WHAT" when the filter refused it and "ESCAPE: WHAT" otherwise; the
# last line says how many ran.
import ctypes, errno, fcntl, mmap, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
path = os.environ["HOSTFILE"]
ran = 0

def report(stopped, what):
    global ran
    ran += 1
    print(("ok: " if stopped else "ESCAPE: ") + what, flush=True)

def name(e):
    return errno.errorcode.get(e, str(e))

buf = mmap.mmap(-1, 1 << 20)  # page-aligned, as O_DIRECT asks

# A read with O_DIRECT, from open (openat, in libc).
try:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    n = os.preadv(fd, [buf], 0)
    os.close(fd)
    report(False, f"open(O_DIRECT): read {n} bytes")
except OSError as e:
    report(e.errno == errno.EINVAL, f"open(O_DIRECT): {name(e.errno)}")

# O_DIRECT set on a descriptor already open.
fd = os.open(path, os.O_RDONLY)
try:
    fcntl.fcntl(fd, fcntl.F_SETFL, os.O_DIRECT)
    n = os.preadv(fd, [buf], 0)
    report(False, f"fcntl(F_SETFL, O_DIRECT): read {n} bytes")
except OSError as e:
    report(e.errno == errno.EINVAL, f"fcntl(F_SETFL, O_DIRECT): {name(e.errno)}")

# openat2 with O_DIRECT in its struct open_how (flags, mode, resolve).
how = ctypes.create_string_buffer(struct.pack("QQQ", os.O_RDONLY | os.O_DIRECT, 0, 0))
ctypes.set_errno(0)
r = libc.syscall(437, -100, path.encode(), how, ctypes.c_size_t(24))
if r >= 0:
    n = os.preadv(r, [buf], 0)
    report(False, f"openat2(O_DIRECT): read {n} bytes")
else:
    report(ctypes.get_errno() == errno.ENOSYS, f"openat2(O_DIRECT): {name(ctypes.get_errno())}")

# An extent map with FIEMAP_FLAG_SYNC, asking for no extents.
req = bytearray(struct.pack("QQIIII", 0, 0xffffffffffffffff, 1, 0, 0, 0))
try:
    fcntl.ioctl(fd, 0xC020660B, req)  # FS_IOC_FIEMAP
    report(False, "ioctl(FS_IOC_FIEMAP, FIEMAP_FLAG_SYNC): 0")
except OSError as e:
    report(e.errno == errno.EOPNOTSUPP, f"ioctl(FS_IOC_FIEMAP, FIEMAP_FLAG_SYNC): {name(e.errno)}")
os.close(fd)
print("ran", ran)
