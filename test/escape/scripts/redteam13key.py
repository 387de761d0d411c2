# Run by TestRedteam13FileSystemStateIsLeft on the host, never in the
# sandbox: a host process adds the fscrypt key whose 64 raw bytes its
# second argument gives in hex to the file system of the directory its
# first names, as its own uid, and prints the key's identifier.
import ctypes, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
raw = bytes.fromhex(sys.argv[2])
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
arg = ctypes.create_string_buffer(struct.pack("II32sII32x", 2, 0, bytes(32), len(raw), 0) + raw, 80 + len(raw))
if libc.ioctl(fd, 0xc0506617, arg) < 0:  # FS_IOC_ADD_ENCRYPTION_KEY
    sys.exit(f"FS_IOC_ADD_ENCRYPTION_KEY: {os.strerror(ctypes.get_errno())}")
print(arg.raw[8:24].hex())
