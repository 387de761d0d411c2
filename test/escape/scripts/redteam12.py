# The twelfth round: what a hook could still take from the host's shared
# kernel state through a descriptor of a host file it reads. HOSTFILE names
# a file of the host outside the masks, which the command's uid owns where
# OWNED is 1. Each attempt prints "ok: WHAT: ERRNO" when it was refused and
# "ESCAPE: WHAT" when it did what it asked; the last line says how many ran.
import ctypes, errno, fcntl, os, struct
libc = ctypes.CDLL(None, use_errno=True)
path = os.environ["HOSTFILE"]
owned = os.environ.get("OWNED") == "1"
ran = 0

def name(e):
    return errno.errorcode.get(e, str(e))

def report(what, err, want):
    global ran
    ran += 1
    if err is None:
        print(f"ESCAPE: {what}", flush=True)
    elif name(err) in want:
        print(f"ok: {what}: {name(err)}", flush=True)
    else:
        print(f"ESCAPE: {what}: {name(err)}, want {' or '.join(want)}", flush=True)

def attempt(what, f, want):
    try:
        f()
        report(what, None, want)
    except OSError as e:
        report(what, e.errno, want)

fd = os.open(path, os.O_RDONLY)

# The inode's write-life hint, which the kernel lets the file's owner set
# through any descriptor, on a read-only mount too: the filter's EINVAL
# where the hook owns the file, the kernel's EPERM where it does not.
hint = ctypes.c_uint64(5)  # RWH_WRITE_LIFE_EXTREME
if libc.fcntl(fd, 1036, ctypes.byref(hint)) == 0:  # F_SET_RW_HINT
    report("fcntl(F_SET_RW_HINT)", None, [])
else:
    report("fcntl(F_SET_RW_HINT)", ctypes.get_errno(), ["EINVAL"] if owned else ["EINVAL", "EPERM"])

# The file's mode, times, owner and extended attributes through that
# descriptor: the read-only root refuses each (the kernel's EPERM first
# where the hook does not own the file).
ro = ["EROFS"] if owned else ["EROFS", "EPERM"]
attempt("fchmod", lambda: os.fchmod(fd, 0o600), ro)
attempt("futimens", lambda: os.utime(fd, (0, 0)), ro)
attempt("fchown", lambda: os.fchown(fd, os.getuid(), -1), ro)
attempt("fsetxattr(user.)", lambda: os.setxattr(fd, "user.vigiles", b"1"), ro)
# The inode's generation (ext4's FS_IOC_SETVERSION; ENOTTY elsewhere).
attempt("ioctl(FS_IOC_SETVERSION)", lambda: fcntl.ioctl(fd, 0x40087602, struct.pack("l", 7)), ro + ["ENOTTY"])
os.close(fd)

# Discarding the host file system's free blocks (FITRIM) needs
# CAP_SYS_ADMIN of the host's user namespace.
d = os.open(os.path.dirname(path), os.O_RDONLY)
attempt("ioctl(FITRIM)", lambda: fcntl.ioctl(d, 0xC0185879, struct.pack("QQQ", 0, 1 << 62, 0)), ["EPERM"])
os.close(d)

# The host's entropy pool: crediting entropy, zeroing the count, clearing
# the pool and reseeding need CAP_SYS_ADMIN, whatever the descriptor's mode.
r = os.open("/dev/urandom", os.O_RDONLY)
for what, req, arg in (("RNDADDENTROPY", 0x40085203, struct.pack("ii", 64, 8) + b"vigiles!"),
                       ("RNDADDTOENTCNT", 0x40045201, struct.pack("i", 64)),
                       ("RNDZAPENTCNT", 0x5204, None), ("RNDCLEARPOOL", 0x5206, None),
                       ("RNDRESEEDCRNG", 0x5207, None)):
    attempt(f"ioctl({what})", (lambda req=req, arg=arg: fcntl.ioctl(r, req, arg) if arg else fcntl.ioctl(r, req)), ["EPERM"])
os.close(r)
print("ran", ran)
