package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/internal/procwait"
)

// runTrusted runs command directly: trusted code in auto mode.
func runTrusted(t *testing.T, spec Spec) *Result {
	t.Helper()
	spec.Trusted, spec.Mode = true, ModeAuto
	if spec.Dir == "" {
		spec.Dir = makeTree(t, nil)
	}
	if spec.Timeout == 0 {
		spec.Timeout = 30 * time.Second
	}
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != TierDirect {
		t.Fatalf("tier %s, want direct", res.Tier)
	}
	return res
}

// lingeredWith returns the entry of res.Lingered that holds s, and its
// pid.
func lingeredWith(res *Result, s string) (string, int) {
	for _, l := range res.Lingered {
		if strings.Contains(l, s) {
			pid, _ := strconv.Atoi(strings.SplitN(l, " ", 2)[0])
			return l, pid
		}
	}
	return "", 0
}

// execd is a bash function for a test's command: execd PID N returns once
// process PID's command line is "sleep N", its exec done.
const execd = `execd() { local a; until mapfile -td '' a </proc/$1/cmdline && [ "${a[*]}" = "sleep $2" ]; do sleep 0.01; done; }; `

// running says whether pid is a process that has not ended (a zombie has).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i >= 0 && !strings.HasPrefix(string(b[i+1:]), " Z") && !strings.HasPrefix(string(b[i+1:]), " X")
}

// TestDirectRunListsWhatItLeft: a direct run's command that exits and
// leaves processes running has them in its lingered list, as a confined
// run's, and they are ended with the run: one in its process group, one
// a job of its own group (set -m), one that moved to a session of its
// own below a process of the run's. A direct run's lingered list is not
// "none" for want of looking. The command exits once each background
// shell has exec'd its sleep (execd): one listed while it execs shows as
// ["sh"] with an empty command line, which names no sleep, and a linger
// long enough for the exec is none on a loaded machine.
func TestDirectRunListsWhatItLeft(t *testing.T) {
	res := runTrusted(t, Spec{Command: sh(execd + `sleep 29.71 & execd $! 29.71; (set -m; sleep 29.72 & execd $! 29.72; exit 0); ` +
		`(setsid sleep 29.73 & execd $! 29.73; : >setsid.ready; wait) & ` +
		`until [ -e setsid.ready ]; do sleep 0.01; done; echo started`)})
	if res.ExitCode != 0 || res.Stdout != "started\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	for _, s := range []string{"sleep 29.71", "sleep 29.72", "sleep 29.73"} {
		l, pid := lingeredWith(res, s)
		if l == "" {
			t.Errorf("lingered %q: no %s", res.Lingered, s)
			continue
		}
		if running(pid) {
			t.Errorf("%s (%s) still runs after the run", s, l)
		}
	}
}

// TestDirectRunLeavingNothingListsNothing: a direct run whose command
// leaves nothing running has no lingered list, in its JSON too; one whose
// leftover finishes within the linger neither, and what it printed
// meanwhile is in the run's output, as Claude Code would read it.
func TestDirectRunLeavingNothingListsNothing(t *testing.T) {
	res := runTrusted(t, Spec{Command: sh(`echo hi; sleep 0.01 & wait`)})
	if res.Lingered != nil || res.Stdout != "hi\n" {
		t.Errorf("lingered %q stdout %q; want none, hi", res.Lingered, res.Stdout)
	}
	b, err := json.Marshal(res)
	if err != nil || strings.Contains(string(b), `"lingered"`) {
		t.Errorf("JSON %s (%v): want no lingered", b, err)
	}
	res = runTrusted(t, Spec{Linger: 20 * time.Second, Command: sh(`(sleep 0.2; echo '{"decision":"block"}') & exit 0`)})
	if res.Lingered != nil || res.Stdout != "{\"decision\":\"block\"}\n" {
		t.Errorf("with a linger the leftover finishes within: lingered %q stdout %q", res.Lingered, res.Stdout)
	}
}

// TestDirectRunTimedOutListsWhatRanBeside: a direct run ended at its
// timeout lists what ran beside its main process then, not the main
// process itself, as a confined run does (survivors), and ends them.
//
// The deadline is 3 s: the shell must have started and forked its
// background sleep by then, and at 500 ms a loaded machine running the
// -race test binary's fork could reach it first, with nothing beside
// the main process to list.
func TestDirectRunTimedOutListsWhatRanBeside(t *testing.T) {
	res := runTrusted(t, Spec{Timeout: 3 * time.Second, Command: []string{"sh", "-c", `sleep 29.74 & exec sleep 29.75`}})
	if !res.TimedOut {
		t.Fatalf("not timed out: exit %d stderr %q", res.ExitCode, res.Stderr)
	}
	l, pid := lingeredWith(res, "sleep 29.74")
	if l == "" || len(res.Lingered) != 1 {
		t.Fatalf("lingered %q; want the background sleep alone", res.Lingered)
	}
	if running(pid) {
		t.Errorf("%s still runs after the run", l)
	}
}

// TestDirectRunLingerSeesWhatLeftoversStart: a leftover that, within the
// linger, starts another process and ends is not the end of what the
// command left: the other process, still running when the linger is
// over, is listed and ended. The leftover starts it once the main
// process has gone (the leftover's parent is no longer the main process:
// the linger has begun) and ends once it has exec'd, where a fixed 0.2 s
// in a 1 s linger could leave a loaded machine's leftover, or its fork
// before the exec, as what the linger found; the linger is 4 s, as
// TestLingerRecordsLeftoverProcesses's, for a loaded machine's fork.
func TestDirectRunLingerSeesWhatLeftoversStart(t *testing.T) {
	res := runTrusted(t, Spec{Linger: 4 * time.Second, Command: sh(execd + `(until read -r _ _ _ pp _ </proc/$BASHPID/stat && [ "$pp" != $$ ]; do sleep 0.01; done; sleep 29.76 & execd $! 29.76) & exit 0`)})
	l, pid := lingeredWith(res, "sleep 29.76")
	if l == "" || len(res.Lingered) != 1 {
		t.Fatalf("lingered %q; want the process the leftover started alone", res.Lingered)
	}
	if running(pid) {
		t.Errorf("%s still runs after the run", l)
	}
}

// TestCancelledDirectRunEndsItsSession: a direct run cancelled while its
// command runs ends what the command started in another process group
// of its session, not its own group alone.
func TestCancelledDirectRunEndsItsSession(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := makeTree(t, nil)
	done := make(chan *Result, 1)
	go func() {
		res, _ := Run(ctx, Spec{Dir: dir, Trusted: true, Mode: ModeAuto, Timeout: 30 * time.Second,
			Command: sh(`set -m; sleep 29.77 & echo $! > pid; wait`)})
		done <- res
	}()
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(dir + "/pid")
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	res := <-done
	if res == nil || res.Tier != TierDirect {
		t.Fatalf("result %+v, want a direct run's", res)
	}
	if running(pid) {
		t.Errorf("the job of its own group (pid %d) still runs after the cancelled run", pid)
	}
}

// TestDirectMembersSkipAReusedParent: a process whose parent's pid was
// taken, while /proc was read, by a process of the run's session that
// started after it is no process of the run's: its chain of parents ends
// at a parent younger than itself. A child of a member is one.
func TestDirectMembersSkipAReusedParent(t *testing.T) {
	procs := map[int]procwait.Entry{
		100: {PPid: 1, Pgrp: 100, Session: 100, Start: 10},
		150: {PPid: 100, Pgrp: 100, Session: 100, Start: 50}, // the run's, started at 50
		200: {PPid: 150, Pgrp: 200, Session: 200, Start: 20}, // another's, whose parent 150 ended before
		300: {PPid: 150, Pgrp: 300, Session: 300, Start: 60}, // started by the run's 150
	}
	if got := membersIn(100, procs); !slices.Equal(got, []int{150, 300}) {
		t.Errorf("members %v, want [150 300]: 200 started before the 150 it names as its parent", got)
	}
}
