# The eleventh round: the kernel's newer calls, made from the command
# itself. Each attempt prints "ok: WHAT" when it was stopped (or, for
# Landlock, did no more than the command may) and "ESCAPE: WHAT" when it
# worked; the last line says how many ran. HOSTFILE names a file of the
# host the sandbox's uid owns, which it maps.
import ctypes, errno, fcntl, os, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
ran = 0

def report(stopped, what):
    global ran
    ran += 1
    print(("ok: " if stopped else "ESCAPE: ") + what, flush=True)

def call(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(nr, *args)
    return r, (errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno())) if r < 0 else "")

# process_madvise(MADV_PAGEOUT) over the command's own mapping of a host
# file its uid owns, through a pidfd of itself and through PIDFD_SELF:
# the kernel lets a process advise itself without CAP_SYS_NICE, and the
# pages would leave the host's page cache.
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
fd = os.open(os.environ["HOSTFILE"], os.O_RDONLY)
size = os.fstat(fd).st_size
addr = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
for off in range(0, size, 4096):
    ctypes.c_ubyte.from_address(addr + off).value  # every page mapped
iov = iovec(addr, size)
for name, pidfd in [("a pidfd of itself", os.pidfd_open(os.getpid())), ("PIDFD_SELF", -10000)]:
    r, e = call(440, pidfd, ctypes.byref(iov), 1, 21, 0)  # MADV_PAGEOUT
    report(r == -1 and e == "EPERM", f"process_madvise({name}, MADV_PAGEOUT): {r} {e}")

# clone3 into a cgroup of its choosing (CLONE_INTO_CGROUP), around the
# pids cgroup a root caller's run is counted in.
cg = os.open("/sys/fs/cgroup", os.O_RDONLY)
args = ctypes.create_string_buffer(struct.pack("11Q", 0x200000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, cg))
r, e = call(435, args, ctypes.c_size_t(88))
if r == 0:
    os._exit(0)
report(r == -1 and e == "ENOSYS", f"clone3(CLONE_INTO_CGROUP): {r} {e}")

# listmount over every mount namespace id up to its own and past it: the
# host's (and any other run's) mounts, named by id, not by a path.
nsfd = os.open("/proc/self/ns/mnt", os.O_RDONLY)
buf = bytearray(8)
try:
    fcntl.ioctl(nsfd, (2 << 30) | (8 << 16) | (0xb7 << 8) | 5, buf)  # NS_GET_MNTNS_ID
    own = struct.unpack("Q", buf)[0]
except OSError:
    own = 0
ids = (ctypes.c_uint64 * 64)()
reached, answers = [], set()
# The ids count every namespace the host made since it booted: past a
# million, the first 4,096 (the host's own among them) and those around
# its own; without the ioctl (an older kernel), the first 65,536.
if not own:
    scan = range(1, 65536)
elif own < 1 << 20:
    scan = range(1, own + 1024)
else:
    scan = list(range(1, 4096)) + list(range(own - 4096, own + 1024))
for nsid in scan:
    if nsid == own:
        continue
    req = ctypes.create_string_buffer(struct.pack("IIQQQ", 32, 0, 0xffffffffffffffff, 0, nsid))
    r, e = call(458, req, ids, 64, 0)
    if r >= 0:
        reached.append(nsid)
    else:
        answers.add(e)
report(not reached, f"listmount of another mount namespace (own {own}): reached {reached[:5]}, answers {sorted(answers)}")

# setxattrat (Linux 6.13) of overlayfs's trusted opaque mark on a
# directory of the tree, as setxattr is refused it.
val = ctypes.create_string_buffer(b"y")
xa = ctypes.create_string_buffer(struct.pack("QII", ctypes.addressof(val), 1, 0))
r, e = call(463, -100, b"dd", 0, b"trusted.overlay.opaque", xa, ctypes.c_size_t(16))
report(r == -1 and e in ("EPERM", "ENOSYS"), f"setxattrat(trusted.overlay.opaque): {r} {e}")

# Landlock from the command: it confines the command alone. It writes
# "before", restricts its own writes, and tries "after"; the run's
# record must still hold what it wrote.
with open("before", "w") as f:
    f.write("written before Landlock\n")
attr = ctypes.create_string_buffer(struct.pack("Q", (1 << 1) | (1 << 8)))  # WRITE_FILE, MAKE_REG
rs, e = call(444, attr, ctypes.c_size_t(8), 0)
if rs < 0:
    report(e in ("ENOSYS", "EOPNOTSUPP"), f"landlock_create_ruleset: {rs} {e}")
else:
    r, e = call(446, rs, 0)
    try:
        open("after", "w").close()
        wrote = "wrote"
    except OSError as ex:
        wrote = errno.errorcode.get(ex.errno, str(ex.errno))
    report(r == 0 and wrote == "EACCES", f"landlock_restrict_self: {r} {e}, then a new file: {wrote}")
print("ran", ran)
