package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// carryWrapper sets on its own process what its first argument lists
// (comma-separated key=value pairs), as whoever starts vigiles may have
// it set, then drops to the uid and gid its second argument names (or
// stays root, "-"), and execs the rest: vigiles. Everything it sets is a
// process attribute the kernel keeps across execve and hands to each
// child, and nothing of it reaches any process but this one and what it
// starts. It exits 3 where the kernel lacks what it was asked to set.
//
//   - nice=N: the nice value N (setpriority), as nice or a service
//     manager's Nice= gives it;
//   - fifo=P, rr=P, fiforeset=P: SCHED_FIFO or SCHED_RR at priority P
//     (chrt -f, chrt -r, CPUSchedulingPolicy=), fiforeset with
//     SCHED_RESET_ON_FORK (chrt -R);
//   - batch, idle: SCHED_BATCH, SCHED_IDLE;
//   - io=C.L: the I/O class C at level L (ionice -c C -n L,
//     IOSchedulingClass=);
//   - slice=NS: a fair task's slice of NS nanoseconds (sched_setattr's
//     sched_runtime, Linux 6.12);
//   - ignore=SIG:…, block=SIG:…: the signals ignored (nohup, a shell's
//     trap of an empty action) and blocked;
//   - fd=N: /dev/null open at descriptor N without close-on-exec;
//     highfd=N the same above the soft RLIMIT_NOFILE, lowered to 1024
//     once it is open;
//   - autogroup=N: a session of its own whose autogroup has the nice
//     value N (/proc/self/autogroup);
//   - cpus=C:…: the CPUs it may run on (taskset);
//   - thpoff: no transparent huge pages (PR_SET_THP_DISABLE);
//   - slack=NS: a timer slack of NS nanoseconds (PR_SET_TIMERSLACK);
//   - umask=OCTAL, personality=HEX (setarch -R: ADDR_NO_RANDOMIZE);
//   - deny=NAME: a seccomp filter of its own, after no_new_privs, that
//     answers EPERM to the system call NAME (seccomp, mount,
//     landlock_create_ruleset), as a container runtime's profile does;
//   - landlock: a Landlock domain of its own in which no file may be
//     written (LANDLOCK_ACCESS_FS_WRITE_FILE handled, no rule).
//
// The last two come after the drop, as an unprivileged caller's own.
const carryWrapper = `import ctypes, os, platform, resource, signal, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def lacks(what):
    print(what + ":", os.strerror(ctypes.get_errno()), file=sys.stderr)
    sys.exit(3)
machine = platform.machine()
ioprio_set = {"x86_64": 251, "aarch64": 30}[machine]
sched_setattr = {"x86_64": 314, "aarch64": 274}[machine]
numbers = {"x86_64": {"seccomp": 317, "mount": 165, "landlock_create_ruleset": 444},
           "aarch64": {"seccomp": 277, "mount": 40, "landlock_create_ruleset": 444}}[machine]
audit_arch = {"x86_64": 0xc000003e, "aarch64": 0xc00000b7}[machine]
def deny(name):
    # Load the architecture; kill another's. Load the number; EPERM for
    # name's, allow the rest.
    prog = [(0x20, 0, 0, 4), (0x15, 1, 0, audit_arch), (0x06, 0, 0, 0x80000000),
            (0x20, 0, 0, 0), (0x15, 0, 1, numbers[name]), (0x06, 0, 0, 0x00050001), (0x06, 0, 0, 0x7fff0000)]
    code = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in prog))
    fprog = ctypes.create_string_buffer(struct.pack("HxxxxxxQ", len(prog), ctypes.addressof(code)))
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(numbers["seccomp"], 1, 0, fprog) != 0:
        lacks("a seccomp filter of its own")
def landlock():
    fd = libc.syscall(444, ctypes.create_string_buffer(struct.pack("Q", 1 << 1)), 8, 0)
    if fd < 0 or libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(446, fd, 0) != 0:
        lacks("a Landlock domain of its own")
late = []
for kv in filter(None, sys.argv[1].split(",")):
    k, _, v = kv.partition("=")
    if k == "nice":
        os.setpriority(os.PRIO_PROCESS, 0, int(v))
    elif k in ("fifo", "rr", "fiforeset"):
        policy = {"fifo": os.SCHED_FIFO, "rr": os.SCHED_RR, "fiforeset": os.SCHED_FIFO | os.SCHED_RESET_ON_FORK}[k]
        os.sched_setscheduler(0, policy, os.sched_param(int(v)))
    elif k in ("batch", "idle"):
        os.sched_setscheduler(0, {"batch": os.SCHED_BATCH, "idle": os.SCHED_IDLE}[k], os.sched_param(0))
    elif k == "io":
        c, l = map(int, v.split("."))
        if libc.syscall(ioprio_set, 1, 0, c << 13 | l) != 0:
            lacks("ioprio_set")
    elif k == "slice":
        attr = ctypes.create_string_buffer(struct.pack("IIQiIQQQ", 48, 0, 0, os.getpriority(os.PRIO_PROCESS, 0), 0, int(v), 0, 0))
        if libc.syscall(sched_setattr, 0, attr, 0) != 0:
            lacks("sched_setattr with a slice")
        if "se.slice" not in open("/proc/self/sched").read() or (" %s\n" % v) not in open("/proc/self/sched").read():
            print("a fair task's own slice (Linux 6.12): /proc/self/sched shows none", file=sys.stderr)
            sys.exit(3)
    elif k in ("ignore", "block"):
        sigs = [getattr(signal, "SIG" + s) for s in v.split(":")]
        if k == "ignore":
            for s in sigs:
                signal.signal(s, signal.SIG_IGN)
        else:
            signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    elif k in ("fd", "highfd"):
        n = int(v)
        if k == "highfd":
            resource.setrlimit(resource.RLIMIT_NOFILE, (n + 1, max(n + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
        fd = os.open("/dev/null", os.O_RDONLY)
        os.dup2(fd, n, inheritable=True)
        os.close(fd)
        if k == "highfd":
            resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
    elif k == "autogroup":
        # A session of its own first, and so an autogroup of its own:
        # the test's session keeps its own.
        os.setsid()
        try:
            with open("/proc/self/autogroup", "w") as f:
                f.write(v)
        except OSError as e:
            print("an autogroup of its own (CONFIG_SCHED_AUTOGROUP):", e, file=sys.stderr)
            sys.exit(3)
    elif k == "cpus":
        os.sched_setaffinity(0, {int(c) for c in v.split(":")})
    elif k == "thpoff":
        if libc.prctl(41, 1, 0, 0, 0) != 0:
            lacks("PR_SET_THP_DISABLE")
    elif k == "slack":
        if libc.prctl(29, int(v), 0, 0, 0) != 0:
            lacks("PR_SET_TIMERSLACK")
    elif k == "umask":
        os.umask(int(v, 8))
    elif k == "personality":
        if libc.personality(int(v, 16)) == -1:
            lacks("personality")
    elif k == "deny":
        late.append(lambda v=v: deny(v))
    elif k == "landlock":
        late.append(landlock)
    else:
        sys.exit("unknown setting " + k)
if sys.argv[2] != "-":
    uid, gid = map(int, sys.argv[2].split(":"))
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
for f in late:
    f()
os.execv(sys.argv[3], sys.argv[3:])
`

// underCarried runs `vigiles run --json --workdir DIR -- HOOK…` as r,
// started by carryWrapper with settings, in a fresh work tree, and
// returns its result, which must be a confined run's that exited 0.
func underCarried(t *testing.T, r runner, settings string, hook ...string) result {
	t.Helper()
	res := underCarriedAny(t, r, settings, hook...)
	if res.Tier != "confined" || res.ExitCode != 0 {
		t.Fatalf("vigiles started with %s: tier %s exit %d (refusal %q, error %q, stderr %q)", settings, res.Tier, res.ExitCode, res.Refusal, res.Error, res.Stderr)
	}
	return res
}

// underCarriedAny is underCarried for a run that may end otherwise; ARGS
// may start with vigiles' own flags, before a "--".
func underCarriedAny(t *testing.T, r runner, settings string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := carriedCommand(ctx, t, r, settings, args...).Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
		lacking(t, fmt.Sprintf("what the wrapper was to set (%s): %s", settings, ee.Stderr))
	}
	var res result
	if jerr := json.Unmarshal(out, &res); jerr != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("vigiles started with %s: %v; no JSON result (%v): %s\nstderr: %s", settings, err, jerr, out, stderr)
	}
	return res
}

// carriedCommand is `vigiles run --json ARGS` in a fresh work tree (r's
// where r names an owner), started as r by carryWrapper with settings.
func carriedCommand(ctx context.Context, t *testing.T, r runner, settings string, args ...string) *exec.Cmd {
	t.Helper()
	dir := workTree(t)
	who := "-"
	if r.cred != nil {
		who = fmt.Sprintf("%d:%d", r.cred.Uid, r.cred.Gid)
	}
	if r.owner != nil {
		filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
		})
	}
	if !slices.Contains(args, "--") {
		args = append([]string{"--"}, args...)
	}
	cmd := exec.CommandContext(ctx, "python3", append([]string{"-c", carryWrapper, settings, who, vigilesBin, "run", "--json", "--workdir", dir}, args...)...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = dir
	return cmd
}

// carryRunners are root and, where the test runs as root, nobody: the
// wrapper drops to nobody itself, after it set what only root may set.
func carryRunners(t *testing.T) []runner {
	var rs []runner
	for _, r := range runners(t) {
		if r.cred != nil || r.owner == nil {
			rs = append(rs, r)
		}
	}
	return rs
}

// schedHook prints, a line each, what the kernel schedules its own
// process by: "stat NICE POLICY" (/proc/self/stat's 19th and 41st
// fields), "io" and its I/O class and level (ionice), "slice" and its
// slice in nanoseconds where the kernel has one, "autogroup" and its
// autogroup's nice value, "cpus" and the CPUs it may run on, and
// "reaper" and each "NICE POLICY" the reaper's threads have (pid 1 of
// its pid namespace: /proc/1/task).
var schedHook = []string{"sh", "-c", `echo "stat $(sed 's/.*) //' /proc/self/stat | cut -d' ' -f17,39)"
echo "io $(ionice)"
echo "slice $(grep -h '^se.slice' /proc/self/sched | tr -s ' ' | cut -d' ' -f3)"
echo "autogroup $(cut -d' ' -f2- /proc/self/autogroup 2>&1)"
echo "cpus $(grep Cpus_allowed_list /proc/self/status | cut -f2)"
echo "reaper $(for t in /proc/1/task/*/stat; do sed 's/.*) //' $t | cut -d' ' -f17,39; done | sort -u | paste -sd,)"`}

// TestRedteam15SchedulingCarriedInIsNormal: the fifteenth round started
// vigiles as a caller may (a user's chrt, nice or ionice, a service
// manager's CPUSchedulingPolicy=, Nice= or IOSchedulingClass=) and read,
// in the hook, the scheduling it got. The kernel keeps a process's policy,
// nice value and I/O class across execve and hands them to each child,
// and the sandbox's RLIMIT_RTPRIO and RLIMIT_NICE of 0 stop only a
// raise: the hook ran at SCHED_FIFO (policy 1) and SCHED_RR (2), at nice
// -10, and in the realtime I/O class ("realtime: prio 4"), for root and
// nobody alike; a hook spinning on each CPU at SCHED_FIFO would hold
// them against every host process but the 5 % realtime throttling leaves
// (the test reads the policy, and spins nothing), and so did the
// reaper's threads, whose work the hook's processes drive. The reaper now
// gives itself and so the command SCHED_OTHER at a nice value of at
// least 0, and the I/O class none. What is below normal is the caller's choice and stays, and
// what the hook could set itself is pinned as it comes: a positive nice
// value, SCHED_BATCH, SCHED_IDLE, the idle and best-effort I/O classes,
// a fair task's slice of its own choosing (0.1 to 100 ms), and the CPUs
// the caller narrowed it to (taskset; the hook may widen them again
// within its cpuset, as any process may). A caller's autogroup at nice
// -10 (its session's share of the CPUs, where the kernel groups by
// session) does not reach the hook, which starts in a session and so an
// autogroup of its own, at nice 0.
func TestRedteam15SchedulingCarriedInIsNormal(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test's wrapper gives itself a realtime policy, a negative nice value and the realtime I/O class before it starts vigiles")
	requireTools(t, "python3", "ionice")
	for _, c := range []struct {
		name, settings string
		// want is what the hook prints for each of schedHook's lines
		// that the case checks.
		want map[string]string
	}{
		{"SCHED_FIFO", "nice=0,fifo=10", map[string]string{"stat": "0 0"}},
		{"SCHED_RR at nice -5", "nice=-5,rr=10", map[string]string{"stat": "0 0"}},
		{"nice -10", "nice=-10", map[string]string{"stat": "0 0"}},
		{"realtime I/O class", "nice=0,io=1.4", map[string]string{"stat": "0 0", "io": "none: prio 0"}},
		{"SCHED_FIFO at nice 5", "nice=5,fifo=10", map[string]string{"stat": "5 0"}},
		{"SCHED_FIFO with SCHED_RESET_ON_FORK", "nice=0,fiforeset=10", map[string]string{"stat": "0 0"}},
		{"SCHED_BATCH at nice 5", "nice=5,batch", map[string]string{"stat": "5 3"}},
		{"SCHED_IDLE", "nice=0,idle", map[string]string{"stat": "0 5"}},
		{"idle I/O class", "nice=0,io=3.0", map[string]string{"stat": "0 0", "io": "idle"}},
		{"best-effort I/O class at level 0", "nice=0,io=2.0", map[string]string{"stat": "0 0", "io": "best-effort: prio 0"}},
		{"a slice of 100 ms", "nice=0,slice=100000000", map[string]string{"stat": "0 0", "slice": "100000000"}},
		{"an autogroup at nice -10", "nice=0,autogroup=-10", map[string]string{"stat": "0 0", "autogroup": "nice 0"}},
		{"CPU 0 alone", "nice=0,cpus=0", map[string]string{"stat": "0 0", "cpus": "0"}},
	} {
		for _, r := range carryRunners(t) {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				res := underCarried(t, r, c.settings, schedHook...)
				got := map[string]string{}
				for _, l := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
					k, v, _ := strings.Cut(l, " ")
					got[k] = v
				}
				for k, want := range c.want {
					if got[k] != want {
						t.Errorf("vigiles started with %s: the hook's %s is %q, want %q (it printed %q)", c.settings, k, got[k], want, res.Stdout)
					}
				}
				if got["reaper"] != c.want["stat"] {
					t.Errorf("vigiles started with %s: the reaper's threads' nice values and policies are %q, want %q", c.settings, got["reaper"], c.want["stat"])
				}
				if strings.HasPrefix(got["io"], "realtime") {
					t.Errorf("vigiles started with %s: the hook's I/O priority is %q", c.settings, got["io"])
				}
			})
		}
	}
}

// carriedSignalsAndFiles is what TestRedteam15SignalsAndFilesCarriedIn
// starts vigiles with: SIGTERM, SIGINT, SIGHUP and SIGQUIT ignored,
// SIGTERM, SIGUSR1 and SIGINT blocked, /dev/null open at descriptors 1000
// and 5000 (above the soft RLIMIT_NOFILE of 1024) without close-on-exec,
// a umask of 077, the personality ADDR_NO_RANDOMIZE (setarch -R), no
// transparent huge pages and a timer slack of 1 ns.
const carriedSignalsAndFiles = "ignore=TERM:INT:HUP:QUIT,block=TERM:USR1:INT,fd=1000,highfd=5000,umask=077,personality=0040000,thpoff,slack=1"

// TestRedteam15SignalsAndFilesCarriedIn: what else of its process a
// caller hands on through execve and fork, read by the hook, with why it
// does not reach past the sandbox:
//
//   - ignored signals (nohup, a shell's trap of an empty action, a
//     service manager's IgnoreSIGPIPE=) and blocked ones: the hook has
//     none of either (SigIgn and SigBlk 0: the reaper sets every
//     disposition to SIG_DFL before it starts the command, and the
//     command starts with an empty mask), and a hook that waits past its
//     --timeout under such a caller is ended all the same: the deadline
//     sends SIGKILL, which no disposition and no mask holds off (exit
//     137, timedOut, limit wall-time);
//   - descriptors left open without close-on-exec, at 1000 and at 5000,
//     above the soft RLIMIT_NOFILE the caller lowered after it opened
//     them: the hook has 0, 1 and 2 alone (and the one ls reads
//     /proc/self/fd through), as the close-on-exec sweeps of the broker,
//     the init and the reaper (close_range to the highest descriptor)
//     leave it;
//   - the umask (077), the personality (ADDR_NO_RANDOMIZE), transparent
//     huge pages off and the timer slack (1 ns) come to the hook as the
//     caller set them: each is the hook's own process's (its files' modes
//     in its own scratch, its own address space's layout, its own timers'
//     precision), and the hook may set each itself (umask, personality,
//     prctl's PR_SET_THP_DISABLE and PR_SET_TIMERSLACK).
func TestRedteam15SignalsAndFilesCarriedIn(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test's wrapper drops to nobody after it set what it hands on, as root")
	requireTools(t, "python3")
	for _, r := range carryRunners(t) {
		t.Run(r.name, func(t *testing.T) {
			res := underCarried(t, r, carriedSignalsAndFiles, "sh", "-c",
				`grep -E '^(Sig(Blk|Ign)|THP_enabled)' /proc/self/status; echo $(ls /proc/self/fd); umask; cat /proc/self/personality /proc/self/timerslack_ns`)
			want := "THP_enabled:\t0\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n0 1 2 3\n0077\n00040000\n1\n"
			if res.Stdout != want {
				t.Errorf("the hook, with vigiles started with %s:\n%s\nwant\n%s", carriedSignalsAndFiles, res.Stdout, want)
			}
			res = underCarriedAny(t, r, carriedSignalsAndFiles, "--timeout", "3s", "--", "sleep", "600")
			if !res.TimedOut || res.LimitHit != "wall-time" || res.Signal != "SIGKILL" {
				t.Errorf("a hook past its deadline, with vigiles started with %s: timed out %v, limit %q, signal %q, exit %d (error %q)", carriedSignalsAndFiles, res.TimedOut, res.LimitHit, res.Signal, res.ExitCode, res.Error)
			}
		})
	}
}

// TestRedteam15CallersConfinementFailsClosed: a caller may itself be
// confined (a container runtime's seccomp profile, a Landlock domain of a
// tool that started it), and the kernel keeps both across execve and
// fork. Each only takes away, so the hook runs under them as well as
// under vigiles' own; what matters is that vigiles, where they keep it
// from building the sandbox, runs no hook at all rather than one with a
// layer missing. Under a filter that answers EPERM to seccomp(2) the
// reaper refuses (its filter could not be installed), and so does it
// under one that answers EPERM to landlock_create_ruleset (a kernel
// without Landlock answers ENOSYS, on which the read-only mounts alone
// hold: see docs/security.md); under one that answers EPERM to mount(2)
// bubblewrap cannot build the sandbox; under a Landlock domain that lets
// nothing be written a root caller's broker cannot lock a sandbox uid's
// file in /run/vigiles/uids, and an unprivileged caller's bubblewrap
// cannot write its user namespace's uid map. Each run is refused (exit
// 125) and the hook never runs; each refusal names what refused: under a
// seccomp filter, that vigiles runs under one (Seccomp: 2 in its
// /proc/self/status) and how to start it without; in a Landlock domain,
// which no file names, that the host's settings allow user namespaces
// and a Landlock domain or an LSM profile vigiles was started in may not,
// where the refusals had advised turning user namespaces on, or read as
// an error of the uid's lock file.
func TestRedteam15CallersConfinementFailsClosed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test's wrapper drops to nobody before it confines itself, as root")
	requireTools(t, "python3")
	const seccompFix, landlockFix = "start vigiles without the seccomp filter it runs under (Seccomp: 2", "a Landlock domain"
	for _, c := range []struct {
		name, settings string
		refusal        []string
	}{
		{"seccomp(2) denied", "deny=seccomp", []string{"installing seccomp filter: operation not permitted; fix", seccompFix}},
		{"landlock_create_ruleset denied", "deny=landlock_create_ruleset", []string{"applying Landlock", seccompFix}},
		{"mount(2) denied", "deny=mount", []string{"bubblewrap", seccompFix}},
		{"a Landlock domain with nothing writable", "landlock", []string{landlockFix}},
	} {
		for _, r := range carryRunners(t) {
			t.Run(c.name+"/"+r.name, func(t *testing.T) {
				res := underCarriedAny(t, r, c.settings, "sh", "-c", "echo the hook ran")
				t.Logf("vigiles started with %s: tier %s, exit %d, refusal %q, error %q", c.settings, res.Tier, res.ExitCode, res.Refusal, res.Error)
				if res.ExitCode != 125 || res.Tier != "refused" || strings.Contains(res.Stdout, "the hook ran") {
					t.Errorf("vigiles started with %s: tier %s, exit %d, stdout %q; want refused, 125 and no hook run", c.settings, res.Tier, res.ExitCode, res.Stdout)
				}
				for _, want := range c.refusal {
					if !strings.Contains(res.Refusal, want) {
						t.Errorf("vigiles started with %s: refusal %q, want one that names %q", c.settings, res.Refusal, want)
					}
				}
			})
		}
	}
}

// TestRedteam15VigilesOwnProcessesLeaveRealtime: the reaper puts the
// hook's scheduling back to normal (TestRedteam15SchedulingCarriedInIsNormal),
// and vigiles' own processes leave a caller's realtime policy and negative
// nice value too: the broker, bubblewrap and the init, whose egress layer
// (the DNS stub, the recording proxy, the record) and output reading the
// hook's traffic and output drive, kept SCHED_FIFO (a host-side read of
// every thread of the run's processes, while the hook slept: the broker's
// 6 threads, both bubblewrap processes and the init's 5), so a hook that
// flooded them held the host's CPUs through them. The test reads, from the
// host, every thread of every process the wrapper's vigiles started while
// the hook sleeps.
func TestRedteam15VigilesOwnProcessesLeaveRealtime(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test's wrapper gives itself a realtime policy and a negative nice value before it starts vigiles")
	requireTools(t, "python3")
	for _, r := range carryRunners(t) {
		t.Run(r.name, func(t *testing.T) {
			settings := "nice=-5,fifo=10"
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := carriedCommand(ctx, t, r, settings, "--egress", "record", "--", "sleep", "4")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Every thread of the processes under the wrapper (vigiles
			// once it execs), read once the hook's sleep runs: "comm
			// tid: nice policy".
			var seen []string
			deadline := time.Now().Add(90 * time.Second)
			for len(seen) == 0 && time.Now().Before(deadline) {
				seen = threadsUnder(cmd.Process.Pid, "sleep")
				if len(seen) == 0 {
					time.Sleep(20 * time.Millisecond)
				}
			}
			err := cmd.Wait()
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 3 {
				lacking(t, fmt.Sprintf("what the wrapper was to set (%s): %s", settings, stderr.String()))
			}
			var res result
			if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || res.Tier != "confined" || res.ExitCode != 0 {
				t.Fatalf("vigiles started with %s: %v, %v; tier %s exit %d: %s\nstderr: %s", settings, err, jerr, res.Tier, res.ExitCode, stdout.String(), stderr.String())
			}
			if len(seen) == 0 {
				t.Fatal("the hook's sleep was never seen among vigiles' processes")
			}
			for _, s := range seen {
				if !strings.HasSuffix(s, ": 0 0") {
					t.Errorf("vigiles started with %s: a thread of its run has nice value and policy %s, want 0 0", settings, s)
				}
			}
			t.Logf("%d threads of the run read", len(seen))
		})
	}
}

// threadsUnder is, once a process named hook runs among pid's
// descendants, every thread of pid and its descendants as "comm tid: nice
// policy" (/proc/TID/stat's fields 19 and 41); nil before.
func threadsUnder(pid int, hook string) []string {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	comm := map[int]string{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i, j := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if i < 0 || j < i {
			continue
		}
		f := strings.Fields(s[j+2:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		parent[p], comm[p] = pp, s[i+1:j]
	}
	under := func(p int) bool {
		for n := 0; p > 1 && n < 64; n++ {
			if p == pid {
				return true
			}
			p = parent[p]
		}
		return false
	}
	var procs []int
	found := false
	for p := range parent {
		if under(p) {
			procs = append(procs, p)
			found = found || comm[p] == hook
		}
	}
	if !found {
		return nil
	}
	var out []string
	for _, p := range procs {
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, tk := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", p, tk.Name()))
			if err != nil {
				continue
			}
			s := string(b)
			j := strings.LastIndexByte(s, ')')
			f := strings.Fields(s[j+2:])
			if len(f) < 39 {
				continue
			}
			out = append(out, fmt.Sprintf("%s %s: %s %s", comm[p], tk.Name(), f[16], f[38]))
		}
	}
	return out
}
