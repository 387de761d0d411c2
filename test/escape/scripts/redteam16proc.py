# The sixteenth round, the rest of what the command may try on its pid 1,
# the reaper: its files in /proc and the system calls that name it by a
# pid or a pidfd. Each attempt prints "ok: WHAT: ANSWER" when it answered
# as the round pinned it and "ESCAPE: WHAT" otherwise; the last line says
# how many ran.
import ctypes, errno, os, signal, sys
sys.dont_write_bytecode = True
from attempts import libc, name, sc, attempt, finish

x86 = os.uname().machine == "x86_64"
NR = dict(kcmp=312, migrate_pages=256, move_pages=279, get_robust_list=274, pidfd_open=434,
          pidfd_send_signal=424, process_mrelease=448) if x86 else \
     dict(kcmp=272, migrate_pages=238, move_pages=239, get_robust_list=100, pidfd_open=434,
          pidfd_send_signal=424, process_mrelease=448)

def write(path, data):
    """Writing data to path: "written" or the errno's name."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return name(e.errno)
    try:
        os.write(fd, data)
        return "written"
    except OSError as e:
        return name(e.errno)
    finally:
        os.close(fd)

def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError as e:
        return name(e.errno)

# pid 1's files in /proc. Those the kernel asks only that the writer may
# open (oom_score_adj and oom_adj raised, so that the OOM killer of the
# run's memory cgroup ends the reaper first; the nice value of its
# autogroup; clear_refs, coredump_filter, sched's statistics) are its
# owner's, and the reaper is non-dumpable, so the owner is uid 0 of the
# sandbox's user namespace, which is the command's own uid where the
# caller is root: Landlock, which lets the command write only the
# recorded places, refuses every one (EACCES). The rest ask more:
# timerslack_ns and mem ptrace's access, comm and attr/current that the
# writer be the process itself, loginuid CAP_AUDIT_CONTROL.
tids = sorted(os.listdir("/proc/1/task"))
for f, data in (("oom_score_adj", b"1000"), ("oom_adj", b"15"), ("autogroup", b"19"), ("timerslack_ns", b"100000000"),
                ("comm", b"x"), ("clear_refs", b"1"), ("coredump_filter", b"0"), ("sched", b"0"),
                ("attr/current", b"x"), ("loginuid", b"1"), ("mem", b"x")):
    before = read(f"/proc/1/{f}")
    attempt(f"write /proc/1/{f}", write(f"/proc/1/{f}", data), ["EACCES", "EPERM", "EINVAL", "ENOENT"])
    if f != "sched":  # its clock-delta line changes at each read
        after = read(f"/proc/1/{f}")
        attempt(f"/proc/1/{f} read back", "as before" if after == before else f"{before!r} became {after!r}", ["as before"])
for t in tids:
    attempt(f"write /proc/1/task/{t}/comm", write(f"/proc/1/task/{t}/comm", b"x"), ["EACCES", "EPERM", "EINVAL"])

# The reaper's cgroups, each hierarchy's: moving pid 1 into another (a
# frozen one, one of a lower CPU weight) needs a cgroup.procs the command
# may write.
seen = set()
for line in read("/proc/1/cgroup").splitlines():
    path = line.split(":", 2)[2].lstrip("/")
    for c in [""] + sorted(os.listdir("/sys/fs/cgroup")):
        procs = os.path.normpath(os.path.join("/sys/fs/cgroup", c, path, "cgroup.procs"))
        if procs in seen or not os.path.exists(procs):
            continue
        seen.add(procs)
        attempt(f"move pid 1 by {procs}", write(procs, b"1"), ["EACCES", "EPERM", "EROFS"])

# By pid: kcmp, migrate_pages, move_pages and get_robust_list ask for
# ptrace's access to pid 1, which its being non-dumpable and the
# capability its forking thread keeps deny (EPERM). PR_SET_PTRACER
# names who may trace the caller, not pid 1 (Yama; EINVAL without it),
# and ptrace is denied anyway. process_mrelease reaps only a process
# already killed (EINVAL), and a signal sent to pid 1 from its own
# namespace is dropped before delivery, SIGKILL and SIGSTOP too: every
# disposition is SIG_DFL. The run goes on and ends as the script does.
node0 = ctypes.c_ulong(1)
attempt("kcmp(pid 1, self, KCMP_VM)", sc(NR["kcmp"], 1, os.getpid(), 1, 0, 0), ["EPERM"])
attempt("migrate_pages(pid 1)", sc(NR["migrate_pages"], 1, 64, ctypes.byref(node0), ctypes.byref(node0)), ["EPERM"])
page = ctypes.c_void_p(0)
status = ctypes.c_int(0)
attempt("move_pages(pid 1)", sc(NR["move_pages"], 1, 1, ctypes.byref(page), 0, ctypes.byref(status), 0), ["EPERM"])
head, size = ctypes.c_void_p(0), ctypes.c_size_t(0)
attempt("get_robust_list(pid 1)", sc(NR["get_robust_list"], 1, ctypes.byref(head), ctypes.byref(size)), ["EPERM"])
attempt("prctl(PR_SET_PTRACER, pid 1)", "0" if libc.prctl(0x59616d61, 1, 0, 0, 0) == 0 else name(ctypes.get_errno()), ["0", "EINVAL"])
pidfd = int(sc(NR["pidfd_open"], 1, 0))
attempt("process_mrelease(pid 1)", sc(NR["process_mrelease"], pidfd, 0), ["EINVAL"])
for sig in (signal.SIGSTOP, signal.SIGTERM, signal.SIGKILL):
    attempt(f"pidfd_send_signal(pid 1, {sig.name})", sc(NR["pidfd_send_signal"], pidfd, int(sig), 0, 0), ["0"])
finish()
