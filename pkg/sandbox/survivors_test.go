package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestTimedOutRunListsWhatRanBesideTheMainProcess: at a hook's timeout
// Claude Code ends the hook's process, and what it started lives on; a
// run vigiles ends at its deadline records none of what those do after.
// So the processes that ran beside the main one at the deadline are its
// lingered list, and the record is not whole (the review passed a
// no-write check on a hook that hung past its own short timeout while a
// child wrote .git/hooks after it). A main process alone leaves none.
func TestTimedOutRunListsWhatRanBesideTheMainProcess(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	// The main process becomes sleep 60 once the subshell's sleep has
	// exec'd (its command line read with builtins alone, so that nothing
	// else runs beside it at the deadline): listed while it execs, the
	// sleep shows as ["bash"]. The deadline is 5 s, not 1: a starved
	// machine (3% of a core) had not forked the subshell in 1 s, and
	// listed nothing; and the sleep outlasts any delay of the deadline.
	res := run(t, Spec{Dir: dir, Timeout: 5 * time.Second, Command: sh(`(sleep 29.77; echo x > late.txt) & p=$!
		until read -r c </proc/$p/task/$p/children && mapfile -td '' a </proc/$c/cmdline && [ "${a[*]}" = "sleep 29.77" ]; do :; done
		exec sleep 60`)})
	if !res.TimedOut || res.ExitCode != 137 {
		t.Fatalf("timedOut %v exit %d, want a timed-out run", res.TimedOut, res.ExitCode)
	}
	var cmds []string
	for _, e := range res.Lingered {
		_, cmd, _ := strings.Cut(e, " ")
		cmds = append(cmds, cmd)
	}
	// The subshell's script, one argument with spaces, is quoted.
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], `/usr/bin/bash -c "(sleep 29.77`) && !strings.HasPrefix(cmds[0], `bash -c "(sleep 29.77`) || cmds[1] != "sleep 29.77" {
		t.Errorf("lingered %q, want the background subshell and its sleep (the main process, sleep 60, not listed)", res.Lingered)
	}
	alone := run(t, Spec{Dir: dir, Timeout: time.Second, Command: sh(`exec sleep 60`)})
	if !alone.TimedOut || alone.Lingered != nil {
		t.Errorf("a main process alone at its deadline: timedOut %v lingered %q, want none lingered", alone.TimedOut, alone.Lingered)
	}
}

// hopperArg makes the test binary, copied into a work tree, the review's
// attack on the timeout's scan: leave n exited children unreaped (each
// one more entry for the scan to read), then start a process that forks
// and exits without pause (its pid new at every read of /proc), and wait.
// With n "alone" it leaves no children unreaped and exits once the
// hopping has started: what it leaves is the hopping process alone.
const hopperArg = "__test-hopper"

// hopperTree is a new work tree holding the test binary as ./hopper,
// which hopperArg makes the hopper.
func hopperTree(t *testing.T) string {
	t.Helper()
	dir := makeTree(t, nil)
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hopper"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func hopper(n string) {
	zombies, _ := strconv.Atoi(n)
	for range zombies {
		if pid, _, _ := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); pid == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
	}
	if pid, _, _ := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); pid == 0 {
		// Only raw system calls from here: the child of a raw fork has
		// one thread and no runtime to speak of. A fork that fails is
		// tried again, as an attacker's would be: the pids cgroup counts
		// every hop the reaper has not yet reaped, and a reaper that a
		// loaded machine kept off the CPU for a second let them fill it
		// (EAGAIN). A hopper that exited there left nothing, and its
		// run, listing nothing, was right.
		for {
			if pid, _, errno := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); errno == 0 && pid != 0 {
				syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
			}
		}
	}
	if n == "alone" {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	for {
		time.Sleep(time.Hour)
	}
}

// TestTimedOutHopperIsNotMissed: a process that forks and exits without
// pause, beside a main process that left hundreds of children unreaped,
// slips between the reads of a scan of /proc at the deadline; whether any
// process is left is the kernel's answer (the reaper's and the main
// process's children), so the run still lists one (the review passed
// no-egress and no-write on such a hook 5 runs of 5). The deadline is 3 s,
// not 1: the hopper is this test binary, which under -race on a loaded
// machine had not yet started hopping at 1 s, and left nothing to list.
func TestTimedOutHopperIsNotMissed(t *testing.T) {
	requireConfinement(t)
	dir := hopperTree(t)
	for i := range 5 {
		res := run(t, Spec{Dir: dir, Timeout: 3 * time.Second, Command: []string{"./hopper", hopperArg, "400"}})
		if !res.TimedOut || len(res.Lingered) == 0 {
			t.Fatalf("run %d: timedOut %v lingered %q, want the hopper (or the kernel's word that something is left)", i, res.TimedOut, res.Lingered)
		}
	}
}

// TestLingerSeesAHopperThroughAFullProcessLimit: a reaper kept off the
// CPU (a loaded machine's, here one stopped from outside) reaps none of
// the hopper's hops meanwhile; they fill the command's process limit and
// the hopper's forks are refused until the reaper is back. The hopper
// tries again, and is still there when the linger is over: listed. (A
// hopper that exited at its first refused fork left nothing: a shuffled
// CI run under load listed nothing, rightly, and
// TestLingerSeesProcessesThatHop failed.) The reaper is let go once its
// unreaped children come near the limit and stop growing.
func TestLingerSeesAHopperThroughAFullProcessLimit(t *testing.T) {
	requireConfinement(t)
	dir := hopperTree(t)
	const pids = 64
	stopped := make(chan int, 1)
	released := make(chan struct{})
	runDone := make(chan struct{})
	// finish ends the goroutines below once the run is over (or the
	// test failed), and waits for them: none may log after the test.
	var once sync.Once
	finish := func() {
		once.Do(func() { close(runDone) })
		<-released
	}
	defer finish()
	over := func() bool {
		select {
		case <-runDone:
			return true
		default:
			return false
		}
	}
	go func() {
		defer close(stopped)
		for bound := time.Now().Add(2 * time.Minute); !over() && time.Now().Before(bound); time.Sleep(time.Millisecond) { // a bound on a hang
			// The reaper is the hopper's parent, looked up from the
			// hopper: a scan for the reaper's command line could find,
			// first where pids wrapped, the reaper's child not yet
			// exec'd, the hopper to be.
			if h := findRole(t, "./hopper\x00"); h > 0 {
				rp := parentOf(h)
				if b, err := os.ReadFile("/proc/" + strconv.Itoa(rp) + "/cmdline"); err == nil && string(b) == reaper.Argv0+"\x00" {
					syscall.Kill(rp, syscall.SIGSTOP)
					stopped <- rp
					return
				}
			}
		}
	}()
	// zombies counts the stopped reaper's children that have ended.
	zombies := func(rp int) int {
		kids, _ := childrenOf(rp)
		n := 0
		for _, k := range kids {
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(k) + "/stat"); err == nil {
				st := string(b)
				if f := strings.Fields(st[strings.LastIndexByte(st, ')')+1:]); len(f) > 0 && f[0] == "Z" {
					n++
				}
			}
		}
		return n
	}
	go func() {
		defer close(released)
		rp, ok := <-stopped
		if !ok {
			return
		}
		defer syscall.Kill(rp, syscall.SIGCONT)
		// Near the limit (pidsSlack leaves room for the processes
		// outside the pid namespace that RLIMIT_NPROC counts too), and
		// no more for 20 looks in a row: the hopper's forks are refused.
		same, last := 0, -1
		for bound := time.Now().Add(2 * time.Minute); same < 20 && !over() && time.Now().Before(bound); time.Sleep(10 * time.Millisecond) { // a bound on a hang
			n := zombies(rp)
			if n >= pids-16 && n == last {
				same++
			} else {
				same = 0
			}
			last = n
		}
		t.Logf("the reaper let go with %d of its children ended", last)
	}()
	res := run(t, Spec{Dir: dir, Timeout: 5 * time.Minute, Linger: time.Second, Limits: Limits{Pids: pids},
		Command: []string{"./hopper", hopperArg, "alone"}})
	finish()
	if res.ExitCode != 0 || len(res.Lingered) == 0 {
		t.Errorf("exit %d lingered %q limitHit %q timedOut %v stderr %q: want the hopper, whose forks were refused a while, listed", res.ExitCode, res.Lingered, res.LimitHit, res.TimedOut, res.Stderr)
	}
}

// TestDeadlineBeforeTheCommandStartedListsNone: a reaper that had no child
// when the deadline came had not started the command, and nothing ran
// beside it; the main process it forks while the deadline's scan reads
// /proc is not a survivor. The scan had excluded no process then (main
// 0) and listed the main process itself, which a starved machine, whose
// 1 s deadline came before the reaper forked, showed as lingered. Here a
// shell stands in for the reaper: it is read with no child, then forks
// one, which has exec'd its sleep before the survivors are listed.
func TestDeadlineBeforeTheCommandStartedListsNone(t *testing.T) {
	cmd := exec.Command("bash", "-c", `read -r _; sleep 29.71 & wait`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Process.Kill()
		cmd.Wait()
	})
	stand := cmd.Process.Pid
	first, ok := childrenOf(stand)
	if !ok {
		missing(t, "/proc/PID/task/TID/children (CONFIG_PROC_CHILDREN)")
	}
	if len(first) != 0 {
		t.Fatalf("the stand-in has children %v before it was told to fork", first)
	}
	in.Write([]byte("go\n"))
	for deadline := time.Now().Add(30 * time.Second); ; {
		if time.Now().After(deadline) {
			t.Fatal("the stand-in's child had not exec'd its sleep in 30 s")
		}
		kids, _ := childrenOf(stand)
		if len(kids) == 1 {
			if b, _ := os.ReadFile("/proc/" + strconv.Itoa(kids[0]) + "/cmdline"); string(b) == "sleep\x0029.71\x00" {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if got := survivorsOf(stand, false, first, ok); got != nil {
		t.Errorf("survivors of a reaper read with no child at the deadline: %+v, want none (its main process forked since)", got)
	}
	// Read at the deadline with its child, the child is the main process
	// and nothing ran beside it; once it is gone, the child counts.
	if got := survivors(stand, false); got != nil {
		t.Errorf("survivors beside the main process alone: %+v, want none", got)
	}
	if got := survivors(stand, true); len(got) != 1 || !strings.Contains(string(got[0].Cmdline), "29.71") {
		t.Errorf("survivors with the main process gone: %+v, want the sleep", got)
	}
}

// TestChildrenInTellsAKernelWithoutTheFiles: on a tree shaped as /proc
// is, childrenIn lists every thread's children, and where a thread that
// is still there has no children file (a kernel built without
// CONFIG_PROC_CHILDREN, which has none for any thread) it answers false,
// so that survivors and groupChildren read the processes another way;
// it answered an empty list, read whole, and the survivors of a
// timed-out run on such a kernel were none.
func TestChildrenInTellsAKernelWithoutTheFiles(t *testing.T) {
	proc := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(proc, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("100/task/100/children", "5 6 ")
	write("100/task/101/children", "7 ")
	if err := os.MkdirAll(filepath.Join(proc, "200/task/200"), 0o755); err != nil {
		t.Fatal(err)
	}
	if kids, ok := childrenIn(proc, 100); !ok || !slices.Equal(kids, []int{5, 6, 7}) {
		t.Errorf("childrenIn(100) = %v, %v; want [5 6 7], true", kids, ok)
	}
	if kids, ok := childrenIn(proc, 200); ok {
		t.Errorf("childrenIn(200), a thread without its children file = %v, true; want false", kids)
	}
	if kids, ok := childrenIn(proc, 300); ok {
		t.Errorf("childrenIn(300), a pid gone = %v, true; want false", kids)
	}
	if _, ok := childrenOf(os.Getpid()); !ok {
		t.Error("childrenOf(self) on this kernel = false; want the children read")
	}
}
