# Two hooks of one audit, run at the same time, each by this script with
# its own role ("a" or "b"): each leaves its mark in every place two
# processes of one host uid might share (a file in /dev/shm, /tmp and the
# work tree, an abstract unix socket, a key in the uid's user keyring, a
# System V message queue, a POSIX message queue) and, once the other has
# had time to leave its own, looks for the other's: a mark it finds, a process of the other's it sees, a
# signal it reaches, is an ESCAPE line. A lock on a host file both read is
# redteam17lock.py's.
import ctypes, errno, os, socket, sys, time

role = sys.argv[1]
other = "b" if role == "a" else "a"
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SYS_add_key, SYS_keyctl = 248, 250
KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -4, -5
KEYCTL_SEARCH = 10
attempts = 0

def ok(msg):
    global attempts
    attempts += 1
    print("ok: " + msg, flush=True)

def escape(msg):
    global attempts
    attempts += 1
    print("ESCAPE: " + msg, flush=True)

def name(r): return "vigiles-rt17-" + r
def msgkey(r): return 0x17170000 + ord(r)

print(f"start {time.time():.3f}", flush=True)

# Leave this hook's marks.
for d in ("/dev/shm", "/tmp", "."):
    try:
        with open(os.path.join(d, name(role)), "w") as f:
            f.write(role)
    except OSError as e:
        print(f"note: no mark in {d}: {e}", flush=True)
srv = socket.socket(socket.AF_UNIX)
try:
    srv.bind("\0" + name(role))
    srv.listen(1)
except OSError as e:
    print(f"note: no abstract socket: {e}", flush=True)
for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
    r = libc.syscall(SYS_add_key, b"user", name(role).encode(), role.encode(), 1, ring)
    if r < 0:
        print(f"note: add_key to {ring}: {errno.errorcode.get(ctypes.get_errno())}", flush=True)
q = libc.msgget(msgkey(role), 0o1000 | 0o666)
if q < 0:
    print(f"note: msgget: {errno.errorcode.get(ctypes.get_errno())}", flush=True)
libc.mq_open.restype = ctypes.c_int
mq = libc.mq_open(("/" + name(role)).encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
if mq < 0:
    print(f"note: mq_open: {errno.errorcode.get(ctypes.get_errno())}", flush=True)

time.sleep(float(sys.argv[2]) if len(sys.argv) > 2 else 4)

# Look for the other's.
for d in ("/dev/shm", "/tmp", "."):
    p = os.path.join(d, name(other))
    (escape if os.path.exists(p) else ok)(f"{p}, the other hook's mark, is {'here' if os.path.exists(p) else 'not here'}")
c = socket.socket(socket.AF_UNIX)
try:
    c.connect("\0" + name(other))
    escape("connected to the other hook's abstract socket")
except OSError as e:
    ok(f"the other hook's abstract socket answers nothing ({errno.errorcode.get(e.errno)})")
for ring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
    r = libc.syscall(SYS_keyctl, KEYCTL_SEARCH, ring, b"user", name(other).encode(), 0)
    if r >= 0:
        escape(f"found the other hook's key in keyring {ring}")
    else:
        ok(f"no key of the other hook's in keyring {ring} ({errno.errorcode.get(ctypes.get_errno())})")
r = libc.msgget(msgkey(other), 0)
if r >= 0:
    escape("opened the other hook's System V message queue")
else:
    ok(f"no System V message queue of the other hook's ({errno.errorcode.get(ctypes.get_errno())})")
r = libc.mq_open(("/" + name(other)).encode(), os.O_RDWR)
if r >= 0:
    escape("opened the other hook's POSIX message queue")
else:
    ok(f"no POSIX message queue of the other hook's ({errno.errorcode.get(ctypes.get_errno())})")
seen = []
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"redteam17.py\0" + other.encode() in f.read():
                seen.append(int(pid))
    except OSError:
        pass
if seen:
    escape(f"sees the other hook's processes {seen}")
    for pid in seen:
        try:
            os.kill(pid, 0)
            escape(f"may signal the other hook's process {pid}")
        except OSError:
            pass
else:
    ok(f"no process of the other hook's among the {len(os.listdir('/proc'))} entries of /proc")
# Every pid up to the kernel's highest: a signal 0 that reaches a process
# outside the sandbox's pid namespace would answer 0 or EPERM.
with open("/proc/sys/kernel/pid_max") as f:
    pidmax = int(f.read())
# The sandbox's own are every thread of every process in its /proc (a
# thread's id takes a signal too): the reaper's, and this hook's.
mine = set()
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            mine |= {int(t) for t in os.listdir(f"/proc/{p}/task")}
        except OSError:
            pass
reached = [p for p in range(1, min(pidmax, 1 << 16)) if p not in mine and libc.kill(p, 0) == 0]
(escape if reached else ok)(f"signal 0 reached {len(reached)} pids outside this sandbox's own {reached[:8]}")
# The cgroup tree as the sandbox shows it: the other's cgroup may be
# listed, but its processes in it are not this sandbox's to see (a pid
# outside its pid namespace reads as 0), and no file there opens for
# writing (its limits, its freezer, its membership).
others, writable = set(), []
for top, dirs, files in os.walk("/sys/fs/cgroup"):
    if top.count("/") > 7:
        dirs[:] = []
    for fn in ("cgroup.procs", "tasks", "pids.max", "freezer.state", "cgroup.freeze", "cgroup.kill", "memory.limit_in_bytes", "memory.max"):
        if fn not in files:
            continue
        p = os.path.join(top, fn)
        if fn in ("cgroup.procs", "tasks"):
            try:
                with open(p) as f:
                    others |= {int(x) for x in f.read().split()} - mine - {0}
            except (OSError, ValueError):
                pass
        try:
            os.close(os.open(p, os.O_WRONLY))
            writable.append(p)
        except OSError:
            pass
(escape if others else ok)(f"the cgroup tree names {len(others)} pids outside this sandbox's own {sorted(others)[:8]}")
(escape if writable else ok)(f"{len(writable)} cgroup files open for writing {writable[:4]}")
# Stay while the other looks for this one's marks.
time.sleep(2)
print(f"end {time.time():.3f}", flush=True)
print(f"ran {attempts}", flush=True)
