# The sixteenth round: the command against the scheduling of its pid 1,
# the reaper, which shares its uid. The first argument says which way:
#
#   tools    util-linux's renice, ionice, taskset and chrt on pid 1;
#   threads  the system calls on each thread of pid 1 by its id (a Go
#            program: /proc/1/task lists them);
#   pgrp     setpriority and ioprio_set by process group, the caller's
#            own (0), which is pid 1's, and pid 1's by its number;
#   user     the same by uid, the caller's own (0) and by its number;
#   own      what a hook does to itself and its own processes: nice,
#            ionice, taskset and chrt starting a command, renice of its
#            child by pid, and a thread's own calls by its id.
#
# Each attempt prints "ok: WHAT: ANSWER" when it answered as the round
# pinned it and "ESCAPE: WHAT" otherwise; pid 1's threads' nice value,
# policy, I/O priority and CPUs are read back at the end; the last line
# says how many ran.
import ctypes, errno, os, struct, subprocess, sys
sys.dont_write_bytecode = True
from attempts import libc, name, sc, attempt, finish

x86 = os.uname().machine == "x86_64"
NR = dict(setpriority=141, sched_setparam=142, sched_setscheduler=144, sched_setaffinity=203,
          sched_getaffinity=204, ioprio_set=251, ioprio_get=252, sched_setattr=314, gettid=186) if x86 else \
     dict(setpriority=140, sched_setparam=118, sched_setscheduler=119, sched_setaffinity=122,
          sched_getaffinity=123, ioprio_set=30, ioprio_get=31, sched_setattr=274, gettid=178)

def sched(pid, tid):
    """A thread's nice value, policy, I/O priority and CPUs."""
    with open(f"/proc/{pid}/task/{tid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the name, fields[0] is field 3 (the state): nice is field 19,
    # the policy field 41.
    nice, policy = int(fields[16]), int(fields[38])
    ioprio = sc(NR["ioprio_get"], 1, tid)
    mask = ctypes.create_string_buffer(128)
    n = libc.syscall(ctypes.c_long(NR["sched_getaffinity"]), ctypes.c_long(tid), ctypes.c_long(128), mask)
    cpus = mask.raw[:n].rstrip(b"\0").hex() if n > 0 else name(ctypes.get_errno())
    return f"nice {nice} policy {policy} ioprio {ioprio} cpus {cpus}"

def threads(pid):
    return {t: sched(pid, t) for t in sorted(int(t) for t in os.listdir(f"/proc/{pid}/task"))}

def run(argv):
    """A tool's exit status and output."""
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()

IDLE_IO = 3 << 13
SCHED_IDLE = 5
param = ctypes.c_int(0)
cpu0 = ctypes.c_ulong(1)

def attr(policy, flags=0, nice=0, umin=0, umax=0):
    return ctypes.create_string_buffer(struct.pack("IIQiIQQQII", 56, policy, flags, nice, 0, 0, 0, 0, umin, umax), 56)

def each_call(t, label, want):
    """Every scheduling call on thread t, each answering one of want."""
    attempt(f"setpriority(PRIO_PROCESS, {label}, 19)", sc(NR["setpriority"], 0, t, 19), want)
    attempt(f"ioprio_set(IOPRIO_WHO_PROCESS, {label}, IDLE)", sc(NR["ioprio_set"], 1, t, IDLE_IO), want)
    attempt(f"sched_setaffinity({label}, CPU 0)", sc(NR["sched_setaffinity"], t, 8, ctypes.byref(cpu0)), want)
    attempt(f"sched_setscheduler({label}, SCHED_IDLE)", sc(NR["sched_setscheduler"], t, SCHED_IDLE, ctypes.byref(param)), want)
    attempt(f"sched_setparam({label}, 0)", sc(NR["sched_setparam"], t, ctypes.byref(param)), want)
    attempt(f"sched_setattr({label}, SCHED_IDLE)", sc(NR["sched_setattr"], t, attr(SCHED_IDLE), 0), want)
    # SCHED_FLAG_KEEP_ALL | SCHED_FLAG_UTIL_CLAMP_MIN | SCHED_FLAG_UTIL_CLAMP_MAX:
    # EOPNOTSUPP on a kernel without CONFIG_UCLAMP_TASK, once allowed.
    attempt(f"sched_setattr({label}, util clamp max 0)", sc(NR["sched_setattr"], t, attr(0, flags=0x18 | 0x20 | 0x40, umax=0), 0),
            want + ["EOPNOTSUPP"] if want == ["0"] else want)

way = sys.argv[1]
before = threads(1)
print(f"pid 1 has {len(before)} threads: {before}", flush=True)
if way == "tools":
    for argv in (["renice", "-n", "19", "-p", "1"], ["ionice", "-c3", "-p", "1"], ["taskset", "-p", "1", "1"],
                 ["chrt", "-i", "-p", "0", "1"], ["taskset", "-a", "-p", "1", "1"], ["chrt", "-a", "-i", "-p", "0", "1"]):
        rc, out = run(argv)
        attempt(" ".join(argv), "fails" if rc != 0 else f"exit 0 ({out})", ["fails"])
elif way == "threads":
    for t in before:
        each_call(t, f"thread {t} of pid 1", ["EPERM"])
elif way == "pgrp":
    # The command is in pid 1's process group; the kernel answers EPERM
    # for a member it may not change and changes the rest.
    for who in (0, os.getpgid(1)):
        attempt(f"setpriority(PRIO_PGRP, {who}, 19)", sc(NR["setpriority"], 1, who, 19), ["EPERM"])
        attempt(f"ioprio_set(IOPRIO_WHO_PGRP, {who}, IDLE)", sc(NR["ioprio_set"], 2, who, IDLE_IO), ["EPERM"])
elif way == "user":
    for who in (0, os.getuid()):
        attempt(f"setpriority(PRIO_USER, {who}, 19)", sc(NR["setpriority"], 2, who, 19), ["EPERM"])
        attempt(f"ioprio_set(IOPRIO_WHO_USER, {who}, IDLE)", sc(NR["ioprio_set"], 3, who, IDLE_IO), ["EPERM"])
elif way == "own":
    for argv, want in ((["nice", "-n", "5", "sh", "-c", "cut -d' ' -f19 /proc/self/stat"], "5"),
                       (["ionice", "-c3", "ionice"], "idle"),
                       (["taskset", "1", "sh", "-c", "grep Cpus_allowed_list /proc/self/status"], "Cpus_allowed_list:\t0"),
                       (["chrt", "-i", "0", "sh", "-c", "chrt -p $$"], "scheduling policy: SCHED_IDLE")):
        rc, out = run(argv)
        attempt(" ".join(argv[:3]) + " on itself", "works" if rc == 0 and want in out else f"exit {rc} ({out})", ["works"])
    child = subprocess.Popen(["sleep", "30"])
    rc, out = run(["renice", "-n", "19", "-p", str(child.pid)])
    attempt("renice -n 19 of its own child by pid", "works" if rc == 0 and sched(child.pid, child.pid).startswith("nice 19 ") else f"exit {rc} ({out})", ["works"])
    each_call(child.pid, "its own child by pid", ["0"])
    child.kill()
    child.wait()
    tid = libc.syscall(NR["gettid"])
    each_call(tid, "its own thread by id", ["0"])
    attempt("setpriority(PRIO_PROCESS, a pid no process has, 19)", sc(NR["setpriority"], 0, 4_000_000, 19), ["ESRCH"])
    # The command holds no capability; pid 1's forking thread holds one,
    # CAP_WAKE_ALARM (bit 35), permitted and never effective.
    def caps(path):
        with open(path) as f:
            return " ".join(l.split()[1] for l in f if l.startswith(("CapInh", "CapPrm", "CapEff", "CapAmb")))
    attempt("the command's capabilities (inheritable, permitted, effective, ambient)", caps("/proc/self/status"), ["0000000000000000 " * 3 + "0000000000000000"])
    attempt("pid 1's forking thread's capabilities", caps("/proc/1/task/1/status"), ["0000000000000000 0000000800000000 0000000000000000 0000000000000000"])

# Read back: every thread of pid 1 as it was.
after = threads(1)
changed = {t: (before[t], after[t]) for t in before if t in after and before[t] != after[t]}
attempt("pid 1's threads' scheduling read back", "as before" if not changed else f"changed {changed}", ["as before"])
finish()
