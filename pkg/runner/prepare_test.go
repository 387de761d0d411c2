package runner

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// preparer is a fake Preparer that keeps count: how many runs are
// prepared and not yet waited for or aborted, at most and now, and how
// each pending ended.
type preparer struct {
	mu                  sync.Mutex
	waiting, maxWaiting int
	waitedAhead         int // Waits whose run was prepared before the previous Wait returned
	lastWaitEnd         time.Time
	ended               map[string]string // command -> "waited" or "aborted" (twice: "twice")
	cancelAfter         int               // cancel cancel after this many waits
	cancel              context.CancelFunc
	waits               int
	runFor              time.Duration // the command
	recordFor           time.Duration // after the command: the record
	commands, maxCmds   int           // commands running, now and at most
	inWait, maxInWait   int           // Waits called and not returned, now and at most
}

func (f *preparer) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	panic("a Preparer's runs are prepared")
}

func (f *preparer) Prepare(ctx context.Context, spec sandbox.Spec) Pending {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waiting++
	f.maxWaiting = max(f.maxWaiting, f.waiting)
	return &fakePending{f: f, cmd: spec.Command[len(spec.Command)-1], at: time.Now(), ended: make(chan struct{})}
}

func (f *preparer) end(cmd, how string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.waiting--
	if f.ended[cmd] != "" {
		how = "twice"
	}
	f.ended[cmd] = how
}

type fakePending struct {
	f     *preparer
	cmd   string
	at    time.Time
	ended chan struct{}
}

func (p *fakePending) Wait() (*sandbox.Result, error) {
	f := p.f
	f.mu.Lock()
	if !f.lastWaitEnd.IsZero() && p.at.Before(f.lastWaitEnd) {
		f.waitedAhead++
	}
	f.waits++
	if f.waits == f.cancelAfter {
		f.cancel()
	}
	f.commands++
	f.maxCmds = max(f.maxCmds, f.commands)
	f.inWait++
	f.maxInWait = max(f.maxInWait, f.inWait)
	f.mu.Unlock()
	time.Sleep(f.runFor)
	f.mu.Lock()
	f.commands--
	f.mu.Unlock()
	close(p.ended)
	time.Sleep(f.recordFor)
	f.mu.Lock()
	f.inWait--
	f.mu.Unlock()
	f.end(p.cmd, "waited")
	f.mu.Lock()
	f.lastWaitEnd = time.Now()
	f.mu.Unlock()
	return &sandbox.Result{Tier: sandbox.TierConfined, Stdout: p.cmd}, nil
}

func (p *fakePending) CommandEnded() <-chan struct{} { return p.ended }

func (p *fakePending) Abort() {
	close(p.ended)
	p.f.end(p.cmd, "aborted")
}

func preparedPlan(n int) []*plannedRun {
	var plan []*plannedRun
	for i := 0; i < n; i++ {
		plan = append(plan, &plannedRun{ID: fmt.Sprint(i), Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: fmt.Sprint("hook-", i)}})
	}
	// A listed, not run hook between them is never prepared.
	plan = append(plan[:3], append([]*plannedRun{{ID: "prompt", Hook: &Hook{Type: "prompt"}}}, plan[3:]...)...)
	return plan
}

// TestExecutePreparesAhead: with a Preparer, the next runs' sandboxes are
// prepared while the current ones run, no more than one per lane ahead,
// each pending is waited for exactly once, and results keep plan order.
func TestExecutePreparesAhead(t *testing.T) {
	const jobs, n = 2, 12
	f := &preparer{ended: map[string]string{}, runFor: 50 * time.Millisecond}
	s := &runSettings{jobs: jobs, exec: f}
	plan := preparedPlan(n)
	out := s.execute(context.Background(), plan)
	for i, e := range out {
		want := plan[i].Hook.Expanded
		if !plan[i].Hook.Executable() {
			if e.run.Outcome != report.OutcomeNotExecutable {
				t.Errorf("%d: a listed hook ran: %+v", i, e.run)
			}
			continue
		}
		if e.result == nil || e.run.Stdout != want {
			t.Errorf("%d: result %+v, want the run of %q", i, e.run, want)
		}
		if f.ended[want] != "waited" {
			t.Errorf("%s ended %q, want waited once", want, f.ended[want])
		}
	}
	// Running (jobs), their records (jobs), prepared ahead (one per
	// lane, the last with the sender).
	if f.maxWaiting > 3*jobs || f.maxWaiting < jobs+1 {
		t.Errorf("at most %d runs were prepared and not ended at once; want more than %d and at most %d", f.maxWaiting, jobs, 3*jobs)
	}
	if f.maxCmds > jobs {
		t.Errorf("%d commands ran at once with %d jobs", f.maxCmds, jobs)
	}
	t.Logf("max prepared and not ended %d, waited ahead %d", f.maxWaiting, f.waitedAhead)
	// A loaded machine may now and then schedule the preparing goroutine
	// late; most runs must still find their sandbox ready.
	if f.waitedAhead < n/3 {
		t.Errorf("only %d of %d runs were prepared before the previous run ended", f.waitedAhead, n)
	}
}

// TestExecuteStartsTheNextCommandBesideARecord: a lane is a command, not a
// whole run: once a prepared run's command is over, the next command
// starts while that run's record is still being made, and still no more
// than jobs commands run at once.
func TestExecuteStartsTheNextCommandBesideARecord(t *testing.T) {
	const jobs, n = 2, 10
	f := &preparer{ended: map[string]string{}, runFor: 20 * time.Millisecond, recordFor: 80 * time.Millisecond}
	s := &runSettings{jobs: jobs, exec: f}
	plan := preparedPlan(n)
	out := s.execute(context.Background(), plan)
	for i, e := range out {
		if want := plan[i].Hook.Expanded; plan[i].Hook.Executable() && (e.result == nil || e.run.Stdout != want) {
			t.Errorf("%d: result %+v, want the run of %q", i, e.run, want)
		}
	}
	if f.maxCmds > jobs {
		t.Errorf("%d commands ran at once with %d jobs", f.maxCmds, jobs)
	}
	// A record takes four times a command here: with a lane held for a
	// whole run, no more than jobs runs would be under way at once.
	if f.maxInWait <= jobs {
		t.Errorf("at most %d runs were under way at once with %d jobs: no command started beside another run's record", f.maxInWait, jobs)
	}
	if f.maxInWait > 2*jobs {
		t.Errorf("%d runs were under way at once with %d jobs; want at most %d (a command and a record per lane)", f.maxInWait, jobs, 2*jobs)
	}
	if f.waiting != 0 {
		t.Errorf("%d prepared runs were neither waited for nor aborted", f.waiting)
	}
}

// TestExecuteAbortsPreparedRunsOnCancel: runs prepared when the context
// is cancelled are aborted, never waited for, and reported as not run.
func TestExecuteAbortsPreparedRunsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &preparer{ended: map[string]string{}, runFor: 5 * time.Millisecond, cancelAfter: 3, cancel: cancel}
	s := &runSettings{jobs: 2, exec: f}
	plan := preparedPlan(12)
	out := s.execute(ctx, plan)
	notRun := 0
	for i, e := range out {
		if !plan[i].Hook.Executable() {
			continue
		}
		cmd := plan[i].Hook.Expanded
		switch how := f.ended[cmd]; {
		case how == "waited" && e.result != nil && e.run.Stdout == cmd:
		case (how == "aborted" || how == "") && e.result == nil && e.run.Outcome == report.OutcomeError:
			notRun++
		default:
			t.Errorf("%s: ended %q, result %+v outcome %s", cmd, how, e.result, e.run.Outcome)
		}
	}
	if notRun == 0 {
		t.Error("no run was left unrun by the cancel")
	}
	if f.waiting != 0 {
		t.Errorf("%d prepared runs were neither waited for nor aborted", f.waiting)
	}
}

// TestExecuteDoesNotPrepareAroundRunsInTheOpen: a plan with a run in the
// open (it may change the host's tree) builds every sandbox at its turn.
func TestExecuteDoesNotPrepareAroundRunsInTheOpen(t *testing.T) {
	for _, tc := range []struct {
		name    string
		mode    sandbox.Mode
		trusted bool
	}{{"sandbox off", sandbox.ModeOff, false}, {"trusted in auto mode", sandbox.ModeAuto, true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := &preparer{ended: map[string]string{}}
			c := &countingRunner{preparer: f}
			s := &runSettings{jobs: 2, exec: c, mode: tc.mode}
			plan := preparedPlan(6)
			plan[1].Hook.Trusted = tc.trusted
			s.execute(context.Background(), plan)
			if f.maxWaiting != 0 || c.runs != 6 {
				t.Errorf("%d runs prepared, %d run at their turn; want 0 and 6", f.maxWaiting, c.runs)
			}
		})
	}
}

// countingRunner is a Preparer whose Run counts runs made at their turn.
type countingRunner struct {
	*preparer
	mu   sync.Mutex
	runs int
}

func (c *countingRunner) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	c.mu.Lock()
	c.runs++
	c.mu.Unlock()
	return &sandbox.Result{Tier: sandbox.TierDirect}, nil
}
