package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/vigiles/action/pkg/sandbox/reaper"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPreparedRunWaitsForItsTurn: a prepared run's command starts only
// once Wait is called, and its deadline begins then, not when its sandbox
// was built; stdin, output and the write record are those of a plain run.
func TestPreparedRunWaitsForItsTurn(t *testing.T) {
	requireConfinement(t)
	for _, mode := range []Mode{ModeStrict, ModeOff} {
		t.Run(string(mode), func(t *testing.T) {
			dir := makeTree(t, nil)
			p := Prepare(context.Background(), Spec{Dir: dir, Mode: mode, Timeout: 4 * time.Second,
				Stdin: strings.NewReader("payload"), Command: sh("date +%s%N; cat; echo x > made.txt")})
			// Longer than the run's whole timeout (which leaves a loaded
			// machine seconds for the command): were the deadline running,
			// the command would be killed at once.
			time.Sleep(4500 * time.Millisecond)
			turn := time.Now()
			res, err := p.Wait()
			if err != nil {
				t.Fatalf("Wait: %v (%+v)", err, res)
			}
			if res.TimedOut || res.ExitCode != 0 {
				t.Fatalf("the deadline ran while the run waited: timedOut %v exit %d stderr %q", res.TimedOut, res.ExitCode, res.Stderr)
			}
			line, rest, _ := strings.Cut(res.Stdout, "\n")
			ns, err := strconv.ParseInt(line, 10, 64)
			if err != nil {
				t.Fatalf("stdout %q", res.Stdout)
			}
			if started := time.Unix(0, ns); started.Before(turn) {
				t.Errorf("the command started %v before its turn", turn.Sub(started))
			}
			if rest != "payload" {
				t.Errorf("stdin reached the command as %q", rest)
			}
			if mode == ModeStrict && (len(res.Writes) != 1 || res.Writes[0].Path != "made.txt") {
				t.Errorf("writes %+v", res.Writes)
			}
		})
	}
}

// TestAbortedRunLeavesNothing: a prepared run that is aborted runs nothing
// of its command and leaves no process of its sandbox behind.
func TestAbortedRunLeavesNothing(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	p := Prepare(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh("echo ran")})
	// Abort once the sandbox waits for its turn (its reaper has started);
	// the bound only ends a hang, however loaded the machine.
	deadline := time.Now().Add(2 * time.Minute)
	var pids []int
	for time.Now().Before(deadline) {
		if in, rp := findRole(t, initArg), findRole(t, reaper.Argv0); in != 0 && rp != 0 {
			pids = []int{in, rp}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if pids == nil {
		t.Fatal("the prepared sandbox never started its init and reaper")
	}
	p.Abort()
	if !errors.Is(p.err, context.Canceled) || p.res.Stdout != "" || p.res.Writes != nil {
		t.Errorf("an aborted run: err %v stdout %q writes %v", p.err, p.res.Stdout, p.res.Writes)
	}
	// They were reparented when bwrap was killed: watch them by pid.
	for _, pid := range pids {
		for gone := time.Now().Add(time.Minute); alive(pid); time.Sleep(10 * time.Millisecond) { // a bound on a hang
			if time.Now().After(gone) {
				t.Errorf("the aborted run left pid %d behind", pid)
				break
			}
		}
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	st := string(b)
	f := strings.Fields(st[strings.LastIndexByte(st, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// TestPreparedRunThatFailsBeforeItsTurn: a sandbox whose init fails while
// it is built reports that failure at Wait, whenever Wait comes; never a
// broken pipe from the "go" it was not there to read.
func TestPreparedRunThatFailsBeforeItsTurn(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	for i := 0; i < 30; i++ {
		p := Prepare(context.Background(), Spec{Dir: dir, Mode: ModeStrict, WritesMethod: "bogus", Command: sh("true")})
		time.Sleep(time.Duration(i%6) * 30 * time.Millisecond)
		res, err := p.Wait()
		if err == nil || !strings.Contains(err.Error(), `unknown writes method "bogus"`) {
			t.Fatalf("try %d: err %v (%+v)", i, err, res)
		}
	}
}

// TestPreparedRunTimedOutReportsItsOwnTime: a prepared run killed at its
// deadline reports the time from its turn, not from its preparation.
func TestPreparedRunTimedOutReportsItsOwnTime(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	p := Prepare(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: time.Second, Command: sh("sleep 30")})
	time.Sleep(6 * time.Second)
	turn := time.Now()
	res, err := p.Wait()
	waited := time.Since(turn)
	if err != nil || !res.TimedOut {
		t.Fatalf("err %v timedOut %v", err, res.TimedOut)
	}
	// At least the deadline, and no more than Wait took, however long a
	// loaded machine makes the kill, the record and the teardown; never
	// the 6 s before its turn as well.
	if res.DurationMs < 1000 || res.DurationMs > float64(waited)/float64(time.Millisecond) {
		t.Errorf("durationMs %.0f, Wait took %v; want the 1 s deadline or more, within Wait's time (the 6 s before its turn are not its own)", res.DurationMs, waited)
	}
}

// TestPreparedRunTellsWhenItsCommandEnded: a prepared run says its command
// is over at the init's "d", which the init sends before it makes the
// record: runGated itself never closes the gate's ended, so only the "d"
// can have closed it by the time the result comes. A prepared run that
// ends without a command (refused before anything starts) closes
// CommandEnded when it ends.
func TestPreparedRunTellsWhenItsCommandEnded(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	g := &turnGate{open: make(chan struct{}), ended: make(chan struct{})}
	g.letStart()
	res, err := runGated(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh("echo x > made.txt")}, g)
	if err != nil || len(res.Writes) != 1 {
		t.Fatalf("run: %v, writes %+v", err, res.Writes)
	}
	select {
	case <-g.ended:
	default:
		t.Error("the command's end was not told by the time the result came")
	}
	p := Prepare(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Limits: Limits{Pids: MinPids - 1}, Command: sh("true")})
	if _, err := p.Wait(); err == nil {
		t.Fatal("a run under MinPids was not refused")
	}
	select {
	case <-p.CommandEnded():
	default:
		t.Error("a refused run's CommandEnded is still open after Wait")
	}
}
