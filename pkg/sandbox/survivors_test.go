package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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
const hopperArg = "__test-hopper"

func hopper(n string) {
	zombies, _ := strconv.Atoi(n)
	for range zombies {
		if pid, _, _ := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); pid == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
		}
	}
	if pid, _, _ := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); pid == 0 {
		// Only raw system calls from here: the child of a raw fork has
		// one thread and no runtime to speak of.
		for {
			if pid, _, _ := syscall.RawSyscall(syscall.SYS_FORK, 0, 0, 0); pid != 0 {
				syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
			}
		}
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
	dir := makeTree(t, nil)
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hopper"), self, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		res := run(t, Spec{Dir: dir, Timeout: 3 * time.Second, Command: []string{"./hopper", hopperArg, "400"}})
		if !res.TimedOut || len(res.Lingered) == 0 {
			t.Fatalf("run %d: timedOut %v lingered %q, want the hopper (or the kernel's word that something is left)", i, res.TimedOut, res.Lingered)
		}
	}
}
