# The fourteenth round: MADV_COLD over the hook's mapping of a host file
# it reads through the read-only root (HOSTFILE, which the host has read
# often enough to keep its pages on the active list). The kernel moves
# to the inactive list, the first it reclaims, the pages of the mapping
# that no other process maps, whoever owns the file; the filter answers
# 0 and does nothing. The test reads the pages' flags on the host: the
# call's answer is 0 either way.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
fd = os.open(os.environ["HOSTFILE"], os.O_RDONLY)
n = os.fstat(fd).st_size
a = libc.mmap(None, n, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
for off in range(0, n, 4096):
    ctypes.c_char.from_address(a + off).value
r = libc.madvise(a, n, 20)  # MADV_COLD
got = "0" if r == 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
print(("ok" if got == "0" else "ESCAPE") + ": madvise(MADV_COLD): " + got, flush=True)
print("ran", 1)
