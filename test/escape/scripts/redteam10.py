# The tenth round: what of the host's per-user and machine-wide counts a
# hook could take while it runs. Native AIO contexts (fs.aio-max-nr, one
# count for the whole host), POSIX message queues (RLIMIT_MSGQUEUE,
# counted against the host uid), ptys (kernel.pty.max, one count for the
# whole host) and the ports of the host's loopback. Each attempt prints
# "ok: WHAT" when it was stopped and "ESCAPE: WHAT" when it worked; the
# last line says how many ran. PORT is a port the host listens on at
# 127.0.0.1.
import ctypes, errno, os, platform, socket, sys
libc = ctypes.CDLL(None, use_errno=True)
ran = 0

def report(stopped, what):
    global ran
    ran += 1
    print(("ok: " if stopped else "ESCAPE: ") + what)

def aio():
    # A context of 4,096 events would take that many of the host's
    # fs.aio-max-nr; the context made, if any, is destroyed at once.
    nr = {"x86_64": (206, 207), "aarch64": (0, 1)}[platform.machine()]  # io_setup, io_destroy
    ctx = ctypes.c_ulong(0)
    ctypes.set_errno(0)
    r = libc.syscall(nr[0], 4096, ctypes.byref(ctx))
    e = ctypes.get_errno()
    if r == 0:
        libc.syscall(nr[1], ctx)
    report(r == -1 and e == errno.ENOSYS, f"io_setup(4096): {r} {errno.errorcode.get(e)}")

class mq_attr(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                ("curmsgs", ctypes.c_long), ("pad", ctypes.c_long * 4)]

def mqueue():
    # A queue's bytes count against the host uid's RLIMIT_MSGQUEUE, which
    # a process of that uid on the host is checked against as well.
    attr = mq_attr(0, 10, 8192, 0)
    ctypes.set_errno(0)
    r = libc.mq_open(b"/vigiles-redteam10", os.O_CREAT | os.O_RDWR, 0o600, ctypes.byref(attr))
    e = ctypes.get_errno()
    if r >= 0:
        libc.mq_unlink(b"/vigiles-redteam10")
    report(r == -1 and e == errno.EACCES, f"mq_open(O_CREAT) of an 80 KiB queue: {r} {errno.errorcode.get(e)} (want EACCES)")

def ptys():
    # Every pty counts against kernel.pty.max, one count for the host's
    # every devpts instance.
    for p in ("/dev/ptmx", "/dev/pts/ptmx"):
        try:
            fd = os.open(p, os.O_RDWR | os.O_NOCTTY)
            os.close(fd)
            report(False, f"{p} opened: a pty made")
        except OSError as e:
            report(e.errno == errno.EACCES, f"{p} refused ({errno.errorcode.get(e.errno)}, want EACCES)")

def loopback():
    # The sandbox's 127.0.0.1 is its own network namespace's: the host's
    # listener is not there, and its port is free to bind.
    port = int(os.environ["PORT"])
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", port))
        report(True, f"127.0.0.1:{port}, the host's listener's port, is free in the sandbox")
    except OSError as e:
        report(False, f"bind 127.0.0.1:{port}: {errno.errorcode.get(e.errno)}")
    s.close()
    c = socket.socket()
    c.settimeout(30)
    try:
        c.connect(("127.0.0.1", port))
        report(False, f"connected to the host's listener at 127.0.0.1:{port}")
    except OSError as e:
        report(True, f"the host's listener at 127.0.0.1:{port} is out of reach ({errno.errorcode.get(e.errno, e)})")
    c.close()

aio()
mqueue()
ptys()
loopback()
print(f"ran {ran}")
