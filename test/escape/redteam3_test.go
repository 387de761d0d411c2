package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/ptytest"
)

// The third red-team round: attempts on the host's resources (its memory
// through the scratch's files, its disk through what vigiles passes on),
// on the caller's terminal and on the processes outside the sandbox,
// each run for real through the vigiles binary, as root and as an
// unprivileged user.

// TestManyEmptyFilesFillTheScratch: a command that makes empty files
// until it can make no more. Their data is nothing, so the scratch's
// size never bounds them; each takes about 1 KiB of the host's kernel
// memory, and the kernel's own count for a tmpfs is half the host's
// pages (three million files, 3 GiB, on 24 GiB), past every limit the
// run was given. The scratch's file count bounds them, with a memory
// cgroup (a root caller's run under --limit-run-memory) and without one
// (a non-root caller's): the command meets ENOSPC well before 200,000
// files, the run names the limit (scratch), and the record holds every
// file it made, each once, and nothing reaches the host's tree.
func TestManyEmptyFilesFillTheScratch(t *testing.T) {
	requireBwrap(t)
	const most = 200000
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			before, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--limit-scratch", "64MiB", "--timeout", "100s"}
			if r.cred == nil && os.Geteuid() == 0 {
				// A root caller's run is held by a memory cgroup: its
				// default of 4 GiB leaves a million files.
				args = append(args, "--limit-run-memory", "256MiB")
			}
			res := vigiles(t, r, dir, nil, append(args, "--", "python3", "-c", `import errno, os
os.mkdir("many")
n = 0
why = "none"
try:
    while n < `+strconv.Itoa(most)+`:
        open("many/%d" % n, "w").close()
        n += 1
except OSError as e:
    why = errno.errorcode.get(e.errno, str(e.errno))
print(n, why)`)...)
			if res.Error != "" {
				t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
			}
			var made int
			var why string
			if _, err := fmt.Sscan(res.Stdout, &made, &why); err != nil {
				t.Fatalf("stdout %q: %v; stderr %q", res.Stdout, err, res.Stderr)
			}
			if made >= most || why != "ENOSPC" {
				t.Fatalf("made %d empty files (%s), want ENOSPC before %d: the scratch's file count does not bound them", made, why, most)
			}
			if res.LimitHit != "scratch" {
				t.Errorf("limitHit %q, want scratch (made %d)", res.LimitHit, made)
			}
			seen := map[string]bool{}
			for _, w := range res.Writes {
				if name, ok := strings.CutPrefix(w.Path, "many/"); ok {
					if w.Op != "create" || seen[name] {
						t.Errorf("write %+v: want one create of each file", w)
					}
					seen[name] = true
				}
			}
			if len(seen) != made {
				t.Errorf("the record holds %d of the %d files made", len(seen), made)
			}
			after, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Errorf("the host's tree has %d entries after the run, %d before", len(after), len(before))
			}
			if _, err := os.Stat(filepath.Join(dir, "many")); !os.IsNotExist(err) {
				t.Errorf("the files reached the host's tree: %v", err)
			}
		})
	}
}

// tailWriter counts what is written to it and keeps the last 4 KiB.
type tailWriter struct {
	n    int64
	tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 4096 {
		w.tail = append([]byte(nil), w.tail[len(w.tail)-4096:]...)
	}
	return len(p), nil
}

// shown is the end of what was written, without its NULs.
func (w *tailWriter) shown() string {
	return strings.ReplaceAll(string(w.tail), "\x00", "")
}

// TestOutputPassedOnIsBounded: `vigiles run` passes the command's
// stdout and stderr on, and a caller may have sent them to a file
// (vigiles run > log, a CI step's log, which the runner keeps on its
// disk); a command that writes without end (half a gigabyte a second
// here, for the whole --timeout) filled the host's disk through it,
// past the largest file it may write itself. Each stream passes at most
// the run's file-size limit, then one line saying so; the run goes on
// and reports as ever.
func TestOutputPassedOnIsBounded(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := vigilesAs(ctx, r, dir, nil, "run", "--workdir", dir, "--limit-file-size", "1MiB", "--",
				"sh", "-c", `head -c 50000000 /dev/zero; head -c 50000000 /dev/zero >&2; echo written > after`)
			var stdout, stderr tailWriter
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("vigiles: %v\nstdout ends %q\nstderr ends %q", err, stdout.shown(), stderr.shown())
			}
			for _, s := range []struct {
				name string
				w    *tailWriter
			}{{"stdout", &stdout}, {"stderr", &stderr}} {
				if s.w.n > 1<<20+4096 {
					t.Errorf("%d bytes of the command's %s passed on, over its 1 MiB file-size limit", s.w.n, s.name)
				}
				note := "vigiles: the command's " + s.name + " passed 1048576 bytes"
				if !bytes.Contains(s.w.tail, []byte(note)) {
					t.Errorf("%s does not say it was cut (%q): %d bytes, ending %q", s.name, note, s.w.n, s.w.shown())
				}
			}
			// The report follows on stderr, with the write made after.
			if !bytes.Contains(stderr.tail, []byte("vigiles: confined, exit 0")) || !bytes.Contains(stderr.tail, []byte("after")) {
				t.Errorf("no report of the run, or its write, after the output: %q", stderr.shown())
			}
		})
	}
}

// signalHostPy tries every way a hook has to reach a process outside
// the sandbox by its host pid: kill, a pidfd (pidfd_open, then
// pidfd_send_signal), its process group, SIGIO through a descriptor's
// owner (F_SETOWN), and kill -9 -1, which the kernel sends to every
// process the sender may signal. It then writes a file, which the record
// must hold: the hook's own run goes on.
const signalHostPy = `import errno, fcntl, os, signal
def ok(m): print("ok: " + m, flush=True)
def escape(m): print("ESCAPE: " + m, flush=True)
def err(e): return errno.errorcode.get(e.errno, str(e.errno))
for name in ("SENTINEL_SELF", "SENTINEL_NOBODY", "BROKER"):
    pid = int(os.environ[name])
    try:
        os.kill(pid, 0)
        escape(f"{name} {pid} can be signalled")
    except OSError as e:
        (ok if e.errno == errno.ESRCH else escape)(f"kill {name} {pid}: {err(e)} (ESRCH: no such process here)")
    try:
        os.killpg(pid, signal.SIGCONT)
        escape(f"process group {pid} ({name}) can be signalled")
    except OSError as e:
        (ok if e.errno == errno.ESRCH else escape)(f"killpg {name} {pid}: {err(e)} (ESRCH: no such group here)")
    try:
        fd = os.pidfd_open(pid)
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
            escape(f"pidfd of {name} {pid} signalled")
        except OSError as e:
            ok(f"pidfd of {name} {pid} opened, signal refused: {err(e)}")
    except OSError as e:
        (ok if e.errno == errno.ESRCH else escape)(f"pidfd_open {name} {pid}: {err(e)} (ESRCH: no such process here)")
    for owner in (pid, -pid):
        try:
            fcntl.fcntl(1, fcntl.F_SETOWN, owner)
            fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_ASYNC)
            escape(f"F_SETOWN {owner} ({name}) taken")
        except OSError as e:
            ok(f"F_SETOWN {owner} ({name}): {err(e)}")
    fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) & ~os.O_ASYNC)
    print("x", flush=True)
try:
    os.kill(-1, signal.SIGKILL)
    ok("kill -9 -1 sent (to the sandbox's own processes alone)")
except OSError as e:
    ok(f"kill -9 -1: {err(e)}")
open("after", "w").write("still here\n")
print("done", flush=True)
`

// TestHookCannotSignalTheHost: the hook knows the host pids of two
// processes that would be its to signal (one of the test's own uid, one
// of nobody's: the sandbox's uid is one of them or maps to one) and of the
// vigiles process that runs it, and tries kill, a pidfd, their process
// groups, SIGIO as a descriptor's owner, and kill -9 -1. Its pid
// namespace names none of them (kill, killpg and pidfd_open answer
// ESRCH, as docs/security.md says): all three live on, vigiles reports the
// run, and the record holds what the hook wrote after its kill -9 -1.
func TestHookCannotSignalTheHost(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the sentinels run as two users")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			var sentinels []*exec.Cmd
			for _, cred := range []*syscall.Credential{nil, {Uid: 65534, Gid: 65534}} {
				s := exec.Command("sleep", "600")
				s.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setpgid: true}
				if err := s.Start(); err != nil {
					t.Fatal(err)
				}
				sentinels = append(sentinels, s)
				defer func() { s.Process.Kill(); s.Wait() }()
			}
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "reach_host.py"), []byte(signalHostPy), 0o644); err != nil {
				t.Fatal(err)
			}
			if r.owner != nil {
				filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			// sh's pid is vigiles' once it execs, and its process group.
			cmd := exec.Command("sh", "-c", `exec "$0" run --json --workdir "$1" --env SENTINEL_SELF="$2" --env SENTINEL_NOBODY="$3" --env BROKER=$$ -- python3 reach_host.py`,
				vigilesBin, dir, strconv.Itoa(sentinels[0].Process.Pid), strconv.Itoa(sentinels[1].Process.Pid))
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
			cmd.Dir = dir
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred, Setpgid: true}
			out, err := cmd.Output()
			var res result
			if jerr := json.Unmarshal(out, &res); jerr != nil {
				t.Fatalf("vigiles did not report (%v, %v): %s", err, jerr, out)
			}
			if res.Tier != "confined" || res.Error != "" {
				t.Fatalf("tier %s, error %q, refusal %q", res.Tier, res.Error, res.Refusal)
			}
			checkAttempts(t, res, 15)
			if !strings.Contains(res.Stdout, "done") {
				t.Errorf("the hook did not go on past its kill -9 -1: stdout %q, stderr %q", res.Stdout, res.Stderr)
			}
			found := false
			for _, w := range res.Writes {
				found = found || w.Path == "after" && w.Op == "create"
			}
			if !found {
				t.Errorf("the file written after kill -9 -1 is not in the record: %+v", res.Writes)
			}
			for i, s := range sentinels {
				if err := s.Process.Signal(syscall.Signal(0)); err != nil {
					t.Errorf("sentinel %d (pid %d) is gone: %v", i, s.Process.Pid, err)
				}
			}
		})
	}
}

// terminalPy is a hook's attempts on the terminal vigiles runs on:
// escape sequences in its output (OSC 52 writes the clipboard, OSC 0 sets
// the window's title, DCS asks the terminal to answer into the input,
// the alternate screen hides the report, a raw C1 CSI in an 8-bit
// locale), TIOCLINUX (a console's selection and paste) on every
// descriptor it holds, and the host's consoles and terminals by name.
const terminalPy = `import errno, fcntl, os, sys, termios
TIOCLINUX = 0x541C
def ok(m): print("ok: " + m, flush=True)
def escape(m): print("ESCAPE: " + m, flush=True)
def err(e): return errno.errorcode.get(e.errno, str(e.errno))
sys.stdout.buffer.write(b"osc52:\x1b]52;c;cHduZWQ=\x07 title:\x1b]0;pwned\x1b\\ dcs:\x1bP+q544e\x1b\\ alt:\x1b[?1049h c1:\x9b2J u9b:\xc2\x9b2J bel:\x07\n")
sys.stdout.flush()
sys.stderr.buffer.write(b"osc52-on-stderr:\x1b]52;c;cHduZWQ=\x07\n")
sys.stderr.flush()
for fd in (0, 1, 2):
    for sub in (2, 3, 6, 12):  # set selection, paste, get shift state, get the console's mode
        try:
            fcntl.ioctl(fd, TIOCLINUX, bytes([sub]) + bytes(16))
            escape(f"TIOCLINUX {sub} on fd {fd}")
        except OSError as e:
            ok(f"TIOCLINUX {sub} on fd {fd}: {err(e)}")
for dev in ("/dev/tty", "/dev/console", "/dev/tty0", "/dev/tty1", "/dev/ttyS0", "/dev/vcs", "/dev/vcsa"):
    try:
        fd = os.open(dev, os.O_RDWR | os.O_NOCTTY)
    except OSError as e:
        ok(f"open {dev}: {err(e)}")
        continue
    escape(f"opened {dev}")
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"X")
        escape(f"TIOCSTI through {dev}")
    except OSError as e:
        ok(f"TIOCSTI through {dev}: {err(e)}")
print("done", flush=True)
`

// TestHookOnTheCallersTerminal: vigiles run started on the caller's
// terminal (its controlling terminal, stdin, stdout and stderr), its
// text report there. The hook's escape sequences reach the terminal
// shown, not sent (no ESC, BEL or C1 control arrives), TIOCLINUX is
// refused on every descriptor it holds, no console or terminal of the
// host opens (bubblewrap binds the caller's terminal at /dev/console
// where its own stdout is one; the broker's pipes are not), nothing
// waits in the terminal's input, and the report follows whole.
func TestHookOnTheCallersTerminal(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			ptm, pts := ptytest.Open(t)
			var (
				master bytes.Buffer
				done   = make(chan struct{})
			)
			go func() { io.Copy(&master, ptm); close(done) }()
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "terminal.py"), []byte(terminalPy), 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := vigilesAs(ctx, r, dir, []string{"TERM=xterm"}, "run", "--workdir", dir, "--", "python3", "terminal.py")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, pts, pts
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: r.cred}
			if err := cmd.Run(); err != nil {
				t.Fatalf("vigiles: %v", err)
			}
			if n, err := unix.IoctlGetInt(int(pts.Fd()), unix.TIOCINQ); err != nil || n != 0 {
				t.Errorf("the caller's terminal has %d bytes of input waiting (%v)", n, err)
			}
			pts.Close()
			// The master reads until the last slave descriptor is closed;
			// vigiles has exited, and with it the sandbox.
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the terminal is still held open after vigiles exited")
			}
			got := master.String()
			if i := strings.IndexAny(got, "\x1b\x07\x9b"); i >= 0 || strings.Contains(got, "\u009b") {
				t.Errorf("a control reached the terminal: %q", got)
			}
			ok := 0
			for _, line := range strings.Split(got, "\n") {
				line = strings.TrimRight(line, "\r")
				switch {
				case strings.HasPrefix(line, "ESCAPE:"):
					t.Error(line)
				case strings.HasPrefix(line, "ok:"):
					ok++
				}
			}
			if ok < 19 {
				t.Errorf("only %d attempts reported stopped, want 19: %q", ok, got)
			}
			for _, want := range []string{"osc52:^[]52;c;cHduZWQ=^G", `c1:\x9b2J`, `u9b:\u009b2J`, "osc52-on-stderr:^[]52;", "done", "vigiles: confined, exit 0"} {
				if !strings.Contains(got, want) {
					t.Errorf("the terminal does not show %q: %q", want, got)
				}
			}
		})
	}
}

// schedulingSh tries to raise the hook's scheduling above the host's: a
// realtime policy (SCHED_FIFO, SCHED_RR) and a nice value below 0.
const schedulingSh = `. ./lib.sh
grep -E "^Max (nice|realtime) priority" /proc/self/limits
ATTEMPT="a realtime scheduling limit above 0"; blocked sh -c '! grep -qE "^Max realtime priority +0 +0 *$" /proc/self/limits'
ATTEMPT="a nice limit above 0"; blocked sh -c '! grep -qE "^Max nice priority +0 +0 *$" /proc/self/limits'
ATTEMPT="raise the realtime limit"; blocked sh -c 'ulimit -Hr 99'
ATTEMPT="run at SCHED_FIFO"; blocked chrt -f 1 true
ATTEMPT="run at SCHED_RR"; blocked chrt -r 1 true
ATTEMPT="run at nice -1"; blocked python3 -c 'import os; os.setpriority(os.PRIO_PROCESS, 0, -1)'
`

// TestHookCannotRaiseItsScheduling: a caller may hold a realtime
// scheduling limit or a nice limit (a desktop user in the audio group,
// rtprio 95), which the sandbox inherited, so that a hook's spinning
// processes at SCHED_FIFO held their CPUs against the whole host for the
// run. Every process of the sandbox has both limits at 0: the hook gets
// no realtime policy and no nice value below 0. Where this test may raise
// its own limits (CAP_SYS_RESOURCE), vigiles starts under rtprio 99 and
// nice 40 as well; elsewhere under the limits it was given.
func TestHookCannotRaiseItsScheduling(t *testing.T) {
	requireBwrap(t)
	// This process's limits, which vigiles inherits, raised where it may
	// (no test here runs in parallel) and put back after.
	var was [2]unix.Rlimit
	raised := true
	for i, res := range []int{unix.RLIMIT_RTPRIO, unix.RLIMIT_NICE} {
		if err := unix.Getrlimit(res, &was[i]); err != nil {
			t.Fatal(err)
		}
		want := uint64(99)
		if res == unix.RLIMIT_NICE {
			want = 40
		}
		if err := unix.Setrlimit(res, &unix.Rlimit{Cur: want, Max: want}); err != nil {
			raised = false
		}
		defer unix.Setrlimit(res, &was[i])
	}
	if !raised {
		t.Log("this test may not raise its realtime and nice limits (no CAP_SYS_RESOURCE): vigiles starts under the limits the test was given")
	}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "scheduling.sh"), []byte(schedulingSh), 0o755); err != nil {
				t.Fatal(err)
			}
			res := vigiles(t, r, dir, nil, "--", "sh", "scheduling.sh")
			if res.Error != "" {
				t.Fatalf("vigiles' error: %q", res.Error)
			}
			checkAttempts(t, res, 6)
		})
	}
}

// cgroupWritePy opens for writing every control file under
// /sys/fs/cgroup through which a hook could lift its own limits (pids.max,
// the memory limits), leave them (cgroup.procs, tasks of a cgroup above
// its own), freeze the host's processes (freezer.state, cgroup.freeze) or
// have the host's kernel run a program as root when a cgroup empties
// (release_agent, notify_on_release: CVE-2022-0492).
const cgroupWritePy = `import errno, os
def err(e): return errno.errorcode.get(e.errno, str(e.errno))
names = {"pids.max", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max", "memory.swap.max",
         "memory.oom_control", "cgroup.procs", "tasks", "freezer.state", "cgroup.freeze", "cgroup.kill",
         "release_agent", "notify_on_release", "cgroup.subtree_control", "cpu.shares", "cpu.max"}
tried = 0
for root, dirs, files in os.walk("/sys/fs/cgroup"):
    if root.count("/") > 6:
        dirs[:] = []
    for f in files:
        if f not in names:
            continue
        p = os.path.join(root, f)
        tried += 1
        try:
            fd = os.open(p, os.O_WRONLY)
            os.close(fd)
            print("ESCAPE: opened " + p + " for writing", flush=True)
        except OSError as e:
            if tried <= 40:
                print("ok: " + p + ": " + err(e), flush=True)
print("tried", tried, flush=True)
`

// TestHookCannotRewriteCgroups: the sandbox shows the host's cgroup
// hierarchies read-only (cgroup v1 here: a root caller's run is held by
// pids and memory cgroups; bubblewrap's cgroup namespace roots the view
// at them). No control file opens for writing, for every caller and for
// a --root-sandbox run, whose uid 0 is the host's root: the hook can
// neither lift nor leave its limits, freeze host processes, nor set the
// release agent the host's kernel would run as root.
func TestHookCannotRewriteCgroups(t *testing.T) {
	requireBwrap(t)
	for _, c := range callers(t) {
		r, name := c.runner, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			if err := os.WriteFile(filepath.Join(dir, "cgwrite.py"), []byte(cgroupWritePy), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--", "python3", "cgwrite.py"}
			args = c.withArgs(args)
			res := vigiles(t, r, dir, nil, args...)
			checkAttempts(t, res, 2)
			tried := -1
			if k := strings.LastIndex(res.Stdout, "tried "); k >= 0 {
				fmt.Sscan(res.Stdout[k+len("tried "):], &tried)
			}
			// A v1 hierarchy's root shows cgroup.procs and tasks, a v2
			// root cgroup.procs and cgroup.subtree_control (this host's
			// sandbox shows some hundred).
			if tried < 2 {
				t.Errorf("the hook tried %d control files, want 2 and more: stdout %q, stderr %q", tried, res.Stdout, res.Stderr)
			}
		})
	}
}

// inotifyHoldPy opens every inotify instance it may, says how many and
// which host uid the sandbox's uid 0 is, and holds them until its stdin
// ends.
const inotifyHoldPy = `import ctypes, sys
l = ctypes.CDLL(None)
held = [fd for fd in (l.inotify_init() for _ in range(300)) if fd >= 0]
host = open("/proc/self/uid_map").read().split()[1]
print("held", len(held), "host-uid", host, flush=True)
sys.stdin.read()
print("released", flush=True)
`

// TestInotifyOfTheHostUidIsLeft: the kernel counts inotify instances per
// user, in the sandbox's user namespace and in the host's, where the
// sandbox's uid is the caller's (a non-root caller) or the work tree's
// owner: a hook that opened every instance it could (128 by default) left
// every other program of that uid unable to open one for the rest of the
// run. While the hook holds all it can, a process of its host uid on the
// host still opens one, and the hook held at most 32.
func TestInotifyOfTheHostUidIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the host's side runs as the sandbox's host uid")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			// A program of the hook's host uid opens one while the hook
			// holds all it could.
			checkHostUIDLeft(t, r, "inotify.py", inotifyHoldPy, `import ctypes, os, sys
l = ctypes.CDLL(None, use_errno=True)
fd = l.inotify_init()
sys.exit(0 if fd >= 0 else os.strerror(ctypes.get_errno()))`, 0, 32, "inotify instances", "open one")
		})
	}
}
