# Takes one per-uid resource of the kernel's until it refuses more, holds
# it (epoll watches and processes in children that stay until the run's
# end kills them, pipes in itself), and then does what
# the record must show: a file written, a host tried through the proxy and
# a connection to an address, and a large, known stdout. Its first
# argument names the resource: epoll (watches, until epoll_ctl answers
# ENOSPC), pipe (pipe buffer pages, past fs.pipe-user-pages-soft, until a
# new pipe gets the smallest buffer), nproc (processes, until fork
# answers EAGAIN), nproc-busy (nproc, and then 300 connections to the
# recording proxy at once), nproc-loud (nproc, and then 2,000 files and
# 30 MB on stderr). It prints what it held and the last error before the
# rest.
import errno, fcntl, hashlib, os, select, signal, socket, sys, time

def hold_forever():
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        time.sleep(1000)

def epoll_fill():
    # Each child: up to 1,000 instances watching the same 3,000 eventfds
    # (RLIMIT_NOFILE 4,096), held until the run's end; two at a time
    # (a host of two CPUs fills them in about 20 s), until one is
    # refused (ENOSPC) or 8 have filled (at most 24,000,000 watches,
    # above any 32 GiB host's default).
    def child(w):
        fds = [os.eventfd(0) for _ in range(3000)]
        n, why = 0, "none"
        eps = []
        try:
            for _ in range(1000):
                ep = select.epoll()
                eps.append(ep)
                for fd in fds:
                    ep.register(fd, select.EPOLLIN)
                    n += 1
        except OSError as e:
            why = errno.errorcode.get(e.errno, str(e.errno))
        os.write(w, ("%d %s\n" % (n, why)).encode())
        os.close(w)
        hold_forever()

    total = 0
    for _ in range(4):
        reads = []
        for _ in range(2):
            r, w = os.pipe()
            if os.fork() == 0:
                os.close(r)
                child(w)
            os.close(w)
            reads.append(r)
        why = "none"
        for r in reads:
            line = os.read(r, 100).decode().split()
            os.close(r)
            total += int(line[0])
            if line[1] != "none":
                why = line[1]
        if why != "none":
            return total, why
    return total, "none"

def pipe_fill():
    # Pipes of 1 MiB (256 pages) until F_SETPIPE_SZ is refused (EPERM
    # past the soft limit), then plain pipes until a new one gets the
    # smallest buffer; at most 4,000 pipes of the 4,096 descriptors. The
    # pages are counted, not filled: nothing is written to them.
    held, pipes, why = 0, [], "none"
    for _ in range(1000):
        r, w = os.pipe()
        pipes += [r, w]
        try:
            fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 1 << 20)
            held += 256
        except OSError as e:
            why = errno.errorcode.get(e.errno, str(e.errno))
            held += fcntl.fcntl(w, fcntl.F_GETPIPE_SZ) // 4096
            break
    small = 0
    for _ in range(1500):
        r, w = os.pipe()
        pipes += [r, w]
        size = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
        held += size // 4096
        if size < 65536:
            small = size
            break
    return held, "%s new-pipe=%d" % (why, small)

def nproc_fill():
    # Children that sleep until the kernel refuses a fork (EAGAIN), at
    # most 100,000 (the hook's process limit stops it well before).
    n = 0
    try:
        for _ in range(100000):
            if os.fork() == 0:
                hold_forever()
            n += 1
    except OSError as e:
        return n, errno.errorcode.get(e.errno, str(e.errno))
    return n, "none"

def nproc_busy():
    # nproc_fill, and then, while the children hold the uid's count, 300
    # connections to the recording proxy at once, each asking for a host
    # of its own: the proxy serves them all while the uid may have no
    # room for a new thread (without a proxy, 300 tries to addresses of
    # TEST-NET-1, recorded as the sandbox's own).
    n, why = nproc_fill()
    proxy = os.environ.get("HTTP_PROXY", "")
    hp = proxy.split("//")[-1].strip("/").rsplit(":", 1)
    addr = (hp[0], int(hp[1])) if proxy else ("192.0.2.30", 80)
    socks = []
    for i in range(300):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(addr)
        except BlockingIOError:
            pass
        except OSError:
            pass
        socks.append(s)
    time.sleep(2)
    for i, s in enumerate(socks):
        try:
            s.send(b"GET http://busy-%d.example.test/ HTTP/1.1\r\nHost: busy-%d.example.test\r\n\r\n" % (i, i))
        except OSError:
            pass
    time.sleep(2)
    for s in socks:
        s.close()
    return n, why

def nproc_loud():
    # nproc_fill, and then, while the children hold the uid's count,
    # 2,000 small files and 30 MB on stderr: the broker reads and drops
    # what is past the capture's bound, and its Go runtime's collector
    # wants threads while it does.
    n, why = nproc_fill()
    for i in range(2000):
        with open("loud-%04d.txt" % i, "w") as f:
            f.write("x" * 1000)
    blk = (("z" * 100) + "\n").encode() * 1000
    for _ in range(300):
        os.write(2, blk)
    return n, why

what = sys.argv[1]
held, why = {"epoll": epoll_fill, "pipe": pipe_fill, "nproc": nproc_fill, "nproc-busy": nproc_busy, "nproc-loud": nproc_loud}[what]()
print("held", what, held, why, flush=True)
with open("after-%s.txt" % what, "w") as f:
    f.write("written while the uid's %s was spent\n" % what)
def connect(addr, req, name):
    try:
        s = socket.create_connection(addr, timeout=10)
        s.sendall(req)
        s.settimeout(10)
        try:
            s.recv(100)
        except OSError:
            pass
        s.close()
        print(name, "done", flush=True)
    except OSError as e:
        print(name, e, flush=True)

proxy = os.environ.get("HTTP_PROXY", "")
if proxy:
    hp = proxy.split("//")[-1].strip("/").rsplit(":", 1)
    connect((hp[0], int(hp[1])), b"GET http://spent-%s.example.test/ HTTP/1.1\r\nHost: spent-%s.example.test\r\n\r\n" % (what.encode(), what.encode()), "proxy")
connect(("192.0.2.10", 4444), b"spent\n", "connect")
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"spent", ("198.51.100.20", 5353))
    print("udp sent", flush=True)
except OSError as e:
    print("udp", e, flush=True)
# 600 KB of known lines (below the 1 MiB captured by default): the
# record must hold them whole.
block = b"".join(b"line %07d of the spent uid's stdout\n" % i for i in range(15000))
h = hashlib.sha256(block).hexdigest()
sys.stdout.flush()
sys.stdout.buffer.write(block)
sys.stdout.buffer.flush()
print("stdout-sha256", h, flush=True)
