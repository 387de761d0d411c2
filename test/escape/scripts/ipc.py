# The host's System V IPC objects, POSIX message queues and /dev/shm, which
# live outside the file systems the masks cover: the test made one of each
# with the keys and names below, open to every uid. None may be reached,
# and what the hook makes there stays in the sandbox (the test checks the
# host afterwards).
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)

def ok(msg): print("ok: " + msg)
def escape(msg): print("ESCAPE: " + msg)

key = int(os.environ["IPC_BASE"], 0)
for name, get in (("shared memory segment", lambda: libc.shmget(key, 0, 0)),
                  ("message queue", lambda: libc.msgget(key + 1, 0)),
                  ("semaphore set", lambda: libc.semget(key + 2, 0, 0))):
    ctypes.set_errno(0)
    r = get()
    if r >= 0:
        escape(f"reached the host's System V {name} {key:#x}")
    else:
        ok(f"the host's System V {name} is not there ({errno.errorcode.get(ctypes.get_errno())})")
try:
    listed = open("/proc/sysvipc/shm").read()
    if f"{key:10d}" in listed or str(key) in listed.split():
        escape("/proc/sysvipc/shm lists the host's segment")
    else:
        ok("/proc/sysvipc/shm lists none of the host's")
except OSError as e:
    ok(f"/proc/sysvipc/shm unreadable ({errno.errorcode.get(e.errno)})")
# Made here: must not appear on the host.
libc.shmget(key + 3, 4096, 0o1666)
libc.msgget(key + 4, 0o1666)

libc.mq_open.restype = ctypes.c_int
ctypes.set_errno(0)
fd = libc.mq_open(("/" + os.environ["MQ_NAME"]).encode(), os.O_RDWR)
if fd >= 0:
    escape("opened the host's POSIX message queue")
else:
    ok(f"the host's POSIX message queue is not there ({errno.errorcode.get(ctypes.get_errno())})")
libc.mq_open(("/" + os.environ["MQ_NAME"] + "-sandbox").encode(), os.O_CREAT | os.O_RDWR, 0o666, None)

canary = "/dev/shm/" + os.path.basename(os.environ["SHM_CANARY"])
try:
    open(canary).read()
    escape(f"read the host's {canary}")
except OSError as e:
    ok(f"the host's {canary} is not there ({errno.errorcode.get(e.errno)})")
if any(n.startswith("vigiles-escape") for n in os.listdir("/dev/shm")):
    escape("/dev/shm lists the host's files")
else:
    ok("/dev/shm lists none of the host's files")
with open("/dev/shm/" + os.environ["SHM_WRITE"], "w") as f:
    f.write("pwned\n")
print("done")
