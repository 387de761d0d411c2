# Kernel interfaces past the seccomp deny list: netlink writes to the
# sandbox's own network namespace (its nftables rule set is the egress
# record and wall), signals and pidfds against the reaper (pid 1), kernel
# knobs, and devices that reopen a denied system call.
import ctypes, errno, os, signal, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)

def ok(msg): print("ok: " + msg)
def escape(msg): print("ESCAPE: " + msg)

NLM_F_REQUEST, NLM_F_ACK, NLMSG_ERROR = 1, 4, 2

def nlmsg(typ, flags, seq, payload):
    return struct.pack("=IHHII", 16 + len(payload), typ, flags, seq, 0) + payload

def acks(s, want):
    # Return the errno of each ack (0 for success), in order, until want acks came.
    out = []
    s.settimeout(2)
    while len(out) < want:
        try:
            b = s.recv(65536)
        except socket.timeout:
            break
        off = 0
        while off + 16 <= len(b):
            ln, typ = struct.unpack_from("=IH", b, off)
            if typ == NLMSG_ERROR:
                out.append(-struct.unpack_from("=i", b, off + 16)[0])
            off += (ln + 3) & ~3
            if ln == 0:
                break
    return out

def nft_flush():
    # A batch that deletes every table (NFT_MSG_DELTABLE without a name):
    # what `nft flush ruleset` sends. It needs CAP_NET_ADMIN.
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)  # NETLINK_NETFILTER
    nfgen = struct.pack("=BBH", socket.AF_UNSPEC, 0, socket.htons(10))  # res_id: NFNL_SUBSYS_NFTABLES
    msgs = nlmsg(0x10, NLM_F_REQUEST, 1, nfgen)  # NFNL_MSG_BATCH_BEGIN
    msgs += nlmsg((10 << 8) | 2, NLM_F_REQUEST | NLM_F_ACK, 2, struct.pack("=BBH", socket.AF_UNSPEC, 0, 0))  # NFT_MSG_DELTABLE
    msgs += nlmsg(0x11, NLM_F_REQUEST, 3, nfgen)  # NFNL_MSG_BATCH_END
    s.send(msgs)
    got = acks(s, 1)
    if got and all(e == errno.EPERM for e in got):
        ok("nftables flush of the sandbox's own rule set refused (EPERM)")
    else:
        escape(f"nftables flush answered {got}")
    # Reading the rule set (NFT_MSG_GETGEN) is refused as well.
    s.send(nlmsg((10 << 8) | 16, NLM_F_REQUEST | NLM_F_ACK, 4, struct.pack("=BBH", socket.AF_UNSPEC, 0, 0)))
    got = acks(s, 1)
    print("ok: nftables read refused" if got and got[0] == errno.EPERM else f"ESCAPE: nftables GETGEN answered {got}")
    # Joining the NFLOG group the egress record is read from.
    try:
        s2 = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 12)
        s2.bind((0, 0xffffffff))
        escape("bound every NETLINK_NETFILTER multicast group")
    except OSError as e:
        ok(f"NETLINK_NETFILTER groups refused ({errno.errorcode.get(e.errno)})")

def link_down():
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
    ifi = struct.pack("=BBHiII", socket.AF_UNSPEC, 0, 0, socket.if_nametoindex("lo"), 0, 1)  # change IFF_UP to 0
    s.send(nlmsg(19, NLM_F_REQUEST | NLM_F_ACK, 1, ifi))  # RTM_NEWLINK
    got = acks(s, 1)
    print("ok: taking lo down refused" if got and got[0] == errno.EPERM else f"ESCAPE: RTM_NEWLINK answered {got}")

def reaper():
    pidfd = libc.syscall(434, 1, 0)  # pidfd_open(1)
    if pidfd >= 0:
        ctypes.set_errno(0)
        r = libc.syscall(438, pidfd, 0, 0)  # pidfd_getfd
        print("ok: pidfd_getfd on pid 1 denied" if r == -1 and ctypes.get_errno() == errno.EPERM else f"ESCAPE: pidfd_getfd on pid 1 returned {r}")
        libc.syscall(424, pidfd, signal.SIGKILL, 0, 0)  # pidfd_send_signal
    for sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGTERM, signal.SIGSEGV, signal.SIGABRT):
        try:
            os.kill(1, sig)
        except OSError:
            pass
    try:
        os.kill(1, 0)
        st = open("/proc/1/stat").read().rsplit(")", 1)[1].split()[0]
        print("ok: pid 1 alive and running after SIGKILL, SIGSTOP, SIGSEGV" if st in ("S", "R") else f"ESCAPE: pid 1 in state {st}")
    except OSError as e:
        escape(f"pid 1 gone: {e}")
    for p in ("/proc/1/mem", "/proc/1/environ", "/proc/1/fd/0", "/proc/1/root/"):
        try:
            os.open(p, os.O_RDONLY)
            escape(f"opened {p}")
        except OSError:
            ok(f"{p} refused")

def knobs():
    for p in ("/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sysrq-trigger",
              "/sys/kernel/mm/ksm/run", "/proc/self/oom_score_adj", "/proc/1/oom_score_adj", "/proc/self/uid_map"):
        try:
            fd = os.open(p, os.O_WRONLY)
            os.close(fd)
            escape(f"{p} opened for writing")
        except OSError as e:
            ok(f"{p} not writable ({errno.errorcode.get(e.errno)})")
    try:
        os.open("/dev/userfaultfd", os.O_RDWR)
        escape("/dev/userfaultfd opened: userfaultfd around the filter")
    except OSError:
        ok("/dev/userfaultfd not there")
    if os.uname().machine == "x86_64":
        buf = ctypes.create_string_buffer(16)
        for name, args in (("modify_ldt", (154, 0, buf, 16)), ("uselib", (134, 0))):
            ctypes.set_errno(0)
            r = libc.syscall(*args)
            print(f"ok: {name} denied" if r == -1 and ctypes.get_errno() == errno.EPERM else f"ESCAPE: {name} returned {r} errno {ctypes.get_errno()}")

def forge_netlink():
    # The init reads the egress record from netlink sockets in this very
    # network namespace (NFLOG, sock_diag); /proc/net/netlink names their
    # port ids. A packet sent to one of them straight, a forged NFLOG
    # entry, needs CAP_NET_ADMIN there: EPERM, as docs/security.md says.
    ports = []
    for line in open("/proc/net/netlink").read().splitlines()[1:]:
        f = line.split()
        if int(f[1]) in (4, 12) and int(f[2]) != 0:  # NETLINK_SOCK_DIAG, NETLINK_NETFILTER
            ports.append((int(f[1]), int(f[2])))
    if not any(proto == 12 for proto, _ in ports):
        escape(f"/proc/net/netlink lists {ports}, not the init's NFLOG socket: nothing tried")
    for proto, port in ports:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        pkt = nlmsg((4 << 8) | 0, 0, 1, struct.pack("=BBH", socket.AF_INET, 0, socket.htons(0)))  # NFULNL_MSG_PACKET
        try:
            s.sendto(pkt, (port, 0))
            escape(f"sent a forged message to the init's netlink socket (protocol {proto}, port {port})")
        except OSError as e:
            if e.errno == errno.EPERM:
                ok(f"a message to the init's netlink socket (protocol {proto}, port {port}) refused (EPERM)")
            else:
                escape(f"a message to the init's netlink socket (protocol {proto}, port {port}) failed with {errno.errorcode.get(e.errno)}, not EPERM (CAP_NET_ADMIN lacking)")

nft_flush()
forge_netlink()
link_down()
reaper()
knobs()
print("done")
