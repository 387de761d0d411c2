# Each denied system call must fail with EPERM (errno 1); ENOSYS for clone3; EAFNOSUPPORT for a socket family outside the allowed four; EPROTONOSUPPORT for a protocol the kernel would load a module for.
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
calls = {  # x86_64 numbers
    "io_uring_setup": (425, 8, 0), "bpf": (321, 0, 0, 0), "perf_event_open": (298, 0, 0, -1, -1, 0),
    "userfaultfd": (323, 1),  # UFFD_USER_MODE_ONLY: the kernel lets any process have one (vm.unprivileged_userfaultfd or not) "keyctl": (250, 0, 0), "add_key": (248, 0, 0, 0, 0, 0), "kexec_load": (246, 0, 0, 0, 0),
    "open_by_handle_at": (304, 0, 0, 0), "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
    "process_vm_writev": (311, 1, 0, 0, 0, 0, 0), "pidfd_getfd": (438, 0, 0, 0), "ptrace": (101, 16, 1, 0, 0),
    "unshare(CLONE_NEWUSER)": (272, 0x10000000), "setns": (308, 0, 0),
    "x32 getpid": (0x40000000 | 39,),
}
bad = 0
for name, args in calls.items():
    ctypes.set_errno(0)
    r = libc.syscall(*[ctypes.c_long(a) for a in args])
    e = ctypes.get_errno()
    if r == -1 and e == errno.EPERM:
        print(f"ok: {name} denied with EPERM")
    else:
        print(f"ESCAPE: {name} returned {r} errno {e}")
        bad += 1
ctypes.set_errno(0)
r = libc.syscall(ctypes.c_long(435), ctypes.c_long(0), ctypes.c_long(0))
print("ok: clone3 answers ENOSYS" if r == -1 and ctypes.get_errno() == errno.ENOSYS else f"ESCAPE: clone3 returned {r} errno {ctypes.get_errno()}")
# ptrace of pid 1 above is refused by the kernel too (the reaper is not
# dumpable); a child of the command's own, of its uid, is one the kernel
# lets it trace: only the filter refuses that.
child = os.fork()
if child == 0:
    import time
    time.sleep(60)
    os._exit(0)
ctypes.set_errno(0)
r = libc.syscall(ctypes.c_long(101), ctypes.c_long(16), ctypes.c_long(child), ctypes.c_long(0), ctypes.c_long(0))
e = ctypes.get_errno()
os.kill(child, 9)
os.waitpid(child, 0)
print("ok: ptrace of its own child denied with EPERM" if r == -1 and e == errno.EPERM else f"ESCAPE: ptrace of its own child returned {r} errno {e}")
import socket
for fam, name in ((40, "AF_VSOCK: the hypervisor or host, around the network namespace"), (38, "AF_ALG")):
    try:
        socket.socket(fam, socket.SOCK_STREAM if fam == 40 else socket.SOCK_SEQPACKET).close()
        print(f"ESCAPE: a {name} socket opened")
        bad += 1
    except OSError as e:
        print(f"ok: {name} socket refused" if e.errno == errno.EAFNOSUPPORT else f"ESCAPE: {name} socket failed with errno {e.errno}, not EAFNOSUPPORT")
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print("ok: ordinary fork still works")
# A socket of a protocol the kernel lacks makes it ask modprobe, on the
# host, as root, to load the module (SCTP, DCCP, L2TP, SMC, NETLINK_XFRM,
# NETLINK_CRYPTO, NETLINK_RDMA, NETLINK_SMC): the module would stay in the host's kernel after the run.
for fam, typ, proto, name in ((socket.AF_INET, socket.SOCK_STREAM, 132, "SCTP"), (socket.AF_INET6, socket.SOCK_SEQPACKET, 132, "SCTP over IPv6"),
                              (socket.AF_INET, 6, 33, "DCCP"), (socket.AF_INET, socket.SOCK_DGRAM, 115, "L2TP"),
                              (socket.AF_INET, socket.SOCK_STREAM, 256, "SMC (IPPROTO_SMC)"),
                              (socket.AF_NETLINK, socket.SOCK_RAW, 6, "NETLINK_XFRM"), (socket.AF_NETLINK, socket.SOCK_RAW, 21, "NETLINK_CRYPTO"),
                              (socket.AF_NETLINK, socket.SOCK_RAW, 20, "NETLINK_RDMA"), (socket.AF_NETLINK, socket.SOCK_RAW, 22, "NETLINK_SMC")):
    try:
        socket.socket(fam, typ, proto).close()
        print(f"ESCAPE: a {name} socket opened")
    except OSError as e:
        print(f"ok: {name} socket refused" if e.errno == errno.EPROTONOSUPPORT else f"ESCAPE: {name} socket failed with errno {e.errno}, not EPROTONOSUPPORT")
