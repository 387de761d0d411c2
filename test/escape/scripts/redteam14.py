# The fourteenth round: scheduling, I/O priority, memory placement and
# what the page cache tells. HOSTPID is a host process of the command's
# host uid (HOSTUID) that the test started outside the sandbox, where the
# test knows that uid; OWNFILE is a host file of 16 pages the host never
# read, the command's uid's where OWNED is 1, and ROOTFILE another, root's,
# which it only reads (but under --root-sandbox, where ROOTOWNED is 1).
# Each attempt prints "ok: WHAT: ANSWER" when it answered as the round
# pinned it and "ESCAPE: WHAT" otherwise; the last line says how many ran.
import ctypes, errno, os, struct, sys
sys.dont_write_bytecode = True
from attempts import libc, name, sc, attempt, finish
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
owned = os.environ.get("OWNED") == "1"
hostpid = int(os.environ.get("HOSTPID", "0"))
hostuid = int(os.environ.get("HOSTUID", "-1"))
x86 = os.uname().machine == "x86_64"
NR = dict(ioprio_set=251, sched_setattr=314, sched_getattr=315, membarrier=324, mbind=237, set_mempolicy=238,
          migrate_pages=256, move_pages=279, cachestat=451, setpriority=141) if x86 else \
     dict(ioprio_set=30, sched_setattr=274, sched_getattr=275, membarrier=283, mbind=235, set_mempolicy=237,
          migrate_pages=238, move_pages=239, cachestat=451, setpriority=140)

# I/O priority. A best-effort level of 0 is any user's for its own
# processes (the block layer's schedulers weigh it, BFQ alone by level);
# the realtime class needs CAP_SYS_ADMIN or CAP_SYS_NICE. A process group
# or a user reaches only the processes of the sandbox's pid namespace
# (the kernel skips those without a pid there), and a host uid other than
# root is no uid of the sandbox's user namespace (ESRCH): the host's
# process of the same uid is not among them. EPERM where a process they
# reach holds capabilities the hook lacks.
def prio(cls, level):
    return (cls << 13) | level

BE, RT, IDLE = 2, 1, 3
attempt("ioprio_set(IOPRIO_WHO_PROCESS, self, BE 0)", sc(NR["ioprio_set"], 1, 0, prio(BE, 0)), ["0"])
attempt("ioprio_set(IOPRIO_WHO_PROCESS, self, RT 0)", sc(NR["ioprio_set"], 1, 0, prio(RT, 0)), ["EPERM"])
attempt("ioprio_set(IOPRIO_WHO_PGRP, own, IDLE)", sc(NR["ioprio_set"], 2, 0, prio(IDLE, 0)), ["0", "EPERM"])
attempt("ioprio_set(IOPRIO_WHO_USER, own uid, IDLE)", sc(NR["ioprio_set"], 3, 0, prio(IDLE, 0)), ["0", "EPERM"])
attempt("ioprio_set(IOPRIO_WHO_USER, own uid, BE 7)", sc(NR["ioprio_set"], 3, 0, prio(BE, 7)), ["0", "EPERM"])
if hostpid:
    attempt("ioprio_set(IOPRIO_WHO_PROCESS, the host's process, IDLE)", sc(NR["ioprio_set"], 1, hostpid, prio(IDLE, 0)), ["ESRCH"])
if hostuid > 0:
    attempt("ioprio_set(IOPRIO_WHO_USER, the host's uid, IDLE)", sc(NR["ioprio_set"], 3, hostuid, prio(IDLE, 0)), ["ESRCH"])

# Nice values, by process group and by user, as ioprio_set's.
attempt("setpriority(PRIO_PGRP, own, 19)", sc(NR["setpriority"], 1, 0, 19), ["0", "EPERM"])
attempt("setpriority(PRIO_USER, own uid, 19)", sc(NR["setpriority"], 2, 0, 19), ["0", "EPERM"])
if hostpid:
    attempt("setpriority(PRIO_PROCESS, the host's process, 19)", sc(NR["setpriority"], 0, hostpid, 19), ["ESRCH"])
if hostuid > 0:
    attempt("setpriority(PRIO_USER, the host's uid, 19)", sc(NR["setpriority"], 2, hostuid, 19), ["ESRCH"])

# sched_setattr: a fair task's own slice (Linux 6.12's sched_runtime for
# SCHED_OTHER, 0.1 to 100 ms) is any task's to choose; its share of the
# CPU is still its nice value's. Utilisation clamps are EOPNOTSUPP on a
# kernel without CONFIG_UCLAMP_TASK, and elsewhere the task's own request,
# bounded by the host's sched_util_clamp_max and its cgroup's. Deadline
# and realtime policies need CAP_SYS_NICE.
def attr(policy, flags=0, nice=0, prio=0, runtime=0, deadline=0, period=0, umin=0, umax=0):
    return ctypes.create_string_buffer(struct.pack("IIQiIQQQII", 56, policy, flags, nice, prio, runtime, deadline, period, umin, umax), 56)

nice = os.getpriority(os.PRIO_PROCESS, 0)
attempt("sched_setattr(self, SCHED_OTHER, a slice of 100 ms)", sc(NR["sched_setattr"], 0, attr(0, nice=nice, runtime=100_000_000), 0), ["0"])
# SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN | SCHED_FLAG_UTIL_CLAMP_MAX
attempt("sched_setattr(self, util clamp min 1024)", sc(NR["sched_setattr"], 0, attr(0, flags=0x18 | 0x20 | 0x40, umin=1024, umax=1024), 0), ["EOPNOTSUPP", "0"])
attempt("sched_setattr(self, SCHED_DEADLINE)", sc(NR["sched_setattr"], 0, attr(6, runtime=1_000_000, deadline=10_000_000, period=10_000_000), 0), ["EPERM"])
attempt("sched_setattr(self, SCHED_FIFO 1)", sc(NR["sched_setattr"], 0, attr(1, prio=1), 0), ["EPERM"])
if hostpid:
    attempt("sched_setattr(the host's process, a slice of 100 ms)", sc(NR["sched_setattr"], hostpid, attr(0, nice=nice, runtime=100_000_000), 0), ["ESRCH"])

# membarrier: the global commands interrupt only the CPUs that run a
# process registered for them, and wait for the kernel's grace period:
# the hook's own wait.
attempt("membarrier(MEMBARRIER_CMD_GLOBAL)", sc(NR["membarrier"], 1, 0, 0), ["0"])
attempt("membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED)", sc(NR["membarrier"], 4, 0, 0), ["0"])
attempt("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)", sc(NR["membarrier"], 2, 0, 0), ["0"])

# Memory placement: the hook's own memory only. Moving pages other
# processes share too needs CAP_SYS_NICE; another process is named by a
# pid of the sandbox's namespace, where the host's is none.
node0 = ctypes.c_ulong(1)
size = 4 << 20
anon = libc.mmap(None, size, 3, 0x22, -1, 0)
ctypes.memset(anon, 1, size)
attempt("set_mempolicy(MPOL_BIND, node 0)", sc(NR["set_mempolicy"], 2, ctypes.byref(node0), 64), ["0"])
attempt("set_mempolicy(MPOL_DEFAULT)", sc(NR["set_mempolicy"], 0, 0, 0), ["0"])
attempt("mbind(MPOL_BIND, MPOL_MF_MOVE_ALL)", sc(NR["mbind"], anon, size, 2, ctypes.byref(node0), 64, 4), ["EPERM"])
if hostpid:
    attempt("migrate_pages(the host's process)", sc(NR["migrate_pages"], hostpid, 64, ctypes.byref(node0), ctypes.byref(node0)), ["ESRCH"])
    attempt("move_pages(the host's process)", sc(NR["move_pages"], hostpid, 0, 0, 0, 0, 0), ["ESRCH"])
attempt("madvise(own memory, MADV_HUGEPAGE)", "0" if libc.madvise(anon, size, 14) == 0 else name(ctypes.get_errno()), ["0"])
attempt("madvise(own memory, MADV_COLLAPSE)", "0" if libc.madvise(anon, size, 25) == 0 else name(ctypes.get_errno()), ["0", "EAGAIN", "ENOMEM"])

# What the page cache tells of a host file: cachestat answers only for
# a file the caller owns or may write (EPERM), and mincore says every
# page of any other file is resident, cached or not. Both files are 16
# pages the host never read.
def cached(path):
    fd = os.open(path, os.O_RDONLY)
    rng = ctypes.create_string_buffer(struct.pack("QQ", 0, 0))
    cs = ctypes.create_string_buffer(40)
    r = sc(NR["cachestat"], fd, rng, cs, 0)
    if r == "0":
        r = f"{struct.unpack_from('Q', cs.raw)[0]} cached"
    m = libc.mmap(None, 16 * 4096, 1, 1, fd, 0)
    vec = ctypes.create_string_buffer(16)
    mc = f"{sum(vec.raw)} of 16 resident" if libc.mincore(m, 16 * 4096, vec) == 0 else name(ctypes.get_errno())
    return fd, m, r, mc

for label, path, mine in (("the uid's own", os.environ["OWNFILE"], owned), ("root's", os.environ["ROOTFILE"], os.environ.get("ROOTOWNED") == "1")):
    fd, m, cs, mc = cached(path)
    attempt(f"cachestat({label} host file)", cs, ["0 cached"] if mine else ["EPERM"])
    attempt(f"mincore({label} host file)", mc, ["0 of 16 resident"] if mine else ["16 of 16 resident"])
    if label == "root's":
        # Advice that reads the file into the host's page cache, as a
        # read does.
        for what, adv in (("MADV_WILLNEED", 3), ("MADV_POPULATE_READ", 22), ("MADV_HUGEPAGE", 14)):
            attempt(f"madvise({label} host file, {what})", "0" if libc.madvise(m, 16 * 4096, adv) == 0 else name(ctypes.get_errno()), ["0"])
    os.close(fd)
finish()
