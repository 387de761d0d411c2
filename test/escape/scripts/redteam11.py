# The eleventh round: overlayfs's internals and the kernel's newer file
# calls, seen from the merged tree (or the copy method's copy), each a
# change the write record must name exactly. The work tree holds the
# files the test made (a, b, c, e1, e2, wo, x, mid, big, dd/q). Each
# attempt prints what the call answered ("did: WHAT ANSWER"); then, for
# every entry of the tree's top, a line "entry NAME WAS NOW SAME": its
# kind before and after ("-" for none) and whether its bytes, mode and
# target are as they were, which the test holds the record to.
import ctypes, errno, fcntl, hashlib, os, stat, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
AT_FDCWD = -100

def did(what, r):
    print("did:", what, r, flush=True)

def answer(r):
    return "0" if r == 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))

def state(name):
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        return None
    kind = stat.S_IFMT(st.st_mode)
    body = b""
    if stat.S_ISREG(st.st_mode):
        with open(name, "rb") as f:
            body = hashlib.sha256(f.read()).digest()
    elif stat.S_ISLNK(st.st_mode):
        body = os.readlink(name).encode()
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        body = str(st.st_rdev).encode()
    return kind, stat.S_IMODE(st.st_mode), body

def kindname(s):
    if s is None:
        return "-"
    return {stat.S_IFREG: "file", stat.S_IFDIR: "dir", stat.S_IFLNK: "symlink", stat.S_IFCHR: "char"}.get(s[0], "other")

before = {n: state(n) for n in os.listdir(".")}

# renameat2(RENAME_EXCHANGE): e1 and e2, of one size, swap their bytes.
did("exchange", answer(libc.syscall(316, AT_FDCWD, b"e1", AT_FDCWD, b"e2", 2)))
# renameat2(RENAME_WHITEOUT): overlayfs's own way to leave a whiteout
# behind a rename; on plain tmpfs it leaves a character device 0,0.
did("rename-whiteout", answer(libc.syscall(316, AT_FDCWD, b"wo", AT_FDCWD, b"wo2", 4)))
# O_TMPFILE, written, then given a name with linkat(AT_EMPTY_PATH).
try:
    fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644)
    os.write(fd, b"made unnamed\n")
    did("tmpfile-linkat", answer(libc.linkat(fd, b"", AT_FDCWD, b"tmplinked", 0x1000)))
    os.close(fd)
except OSError as e:
    did("tmpfile-linkat", errno.errorcode.get(e.errno, e.errno))

def keeping_times(name, fn):
    st = os.stat(name)
    try:
        r = fn()
    finally:
        os.utime(name, ns=(st.st_atime_ns, st.st_mtime_ns))
    return r

def cfr():
    fi, fo = os.open("b", os.O_RDONLY), os.open("a", os.O_WRONLY)
    try:
        return str(os.copy_file_range(fi, fo, 5))
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fi); os.close(fo)
# copy_file_range of b's five bytes over a's, the time put back.
did("copy_file_range", keeping_times("a", cfr))

def clone():
    fi, fo = os.open("b", os.O_RDONLY), os.open("c", os.O_WRONLY)
    try:
        fcntl.ioctl(fo, 0x40049409, fi)  # FICLONE
        return "0"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
    finally:
        os.close(fi); os.close(fo)
# FICLONE of b over c, the time put back.
did("ficlone", keeping_times("c", clone))

def punch(name):
    def fn():
        fd = os.open(name, os.O_WRONLY)
        try:
            # FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE over the first 64 KiB.
            return answer(libc.fallocate(fd, 3, ctypes.c_long(0), ctypes.c_long(65536)))
        finally:
            os.close(fd)
    return fn
# A hole punched in a file of at most 1 MiB and in one larger, size and
# time kept: only the bytes differ.
did("punch-mid", keeping_times("mid", punch("mid")))
did("punch-big", keeping_times("big", punch("big")))

# A whiteout made by hand (a character device 0,0) where x was, and
# under a new name.
os.unlink("x")
for n in ["x", "newx"]:
    try:
        os.mknod(n, 0o600 | stat.S_IFCHR, 0)
        did("mknod-" + n, "0")
    except OSError as e:
        did("mknod-" + n, errno.errorcode.get(e.errno, str(e.errno)))

# A directory moved away, a symlink out of the tree in its place, then
# the directory moved back: the tree is as it was.
subprocess.run(["mv", "dd", "dd.away"], check=True)
os.symlink("/etc", "dd")
os.unlink("dd")
subprocess.run(["mv", "dd.away", "dd"], check=True)
did("dir-to-symlink-and-back", "0")

after = {n: state(n) for n in os.listdir(".")}
for n in sorted(set(before) | set(after)):
    b, a = before.get(n), after.get(n)
    print("entry", n, kindname(b), kindname(a), "same" if b == a else "changed", flush=True)
print("done", flush=True)
