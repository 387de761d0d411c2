package runner

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// cancelOnWrite is a progress writer that cancels once a line with want
// in it is written.
type cancelOnWrite struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	want   string
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if strings.Contains(string(b), w.want) {
		w.cancel()
	}
	return len(b), nil
}

// TestInterruptedRunsOfOneSpecAreNotSwapped: two runs with the same
// sandbox.Spec (two checks of one hook with the same input) and no
// Preparer, so their workers call the executor in racing order. The run
// whose command was under way when the context was cancelled is the one
// marked interrupted; the one that had finished is reported as it ran,
// whichever of them started first.
func TestInterruptedRunsOfOneSpecAreNotSwapped(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: p, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: b, hook: p, event: Stop, expect: {allowed: true}}\n",
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	calls := 0
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		mu.Lock()
		calls++
		first := calls == 1
		mu.Unlock()
		if first {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}}
	// The cancel comes once the run that returned at once is recorded.
	progress := &cancelOnWrite{want: "[1/2]", cancel: cancel}
	rep, err := Test(ctx, Options{Dir: dir, Executor: exec, Jobs: 2, Progress: progress})
	if err == nil {
		t.Fatal("no error from an interrupted test")
	}
	if rep == nil {
		t.Fatal("no report")
	}
	// Each run sends ids of its own (runIdentity); the rest is the same.
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`)
	if len(exec.Specs) != 2 || !bytes.Equal(ids.ReplaceAll(exec.Stdin[0], nil), ids.ReplaceAll(exec.Stdin[1], nil)) ||
		strings.Join(exec.Specs[0].Command, " ") != strings.Join(exec.Specs[1].Command, " ") {
		t.Fatalf("want two runs of one spec; got %d: %q", len(exec.Specs), exec.Stdin)
	}
	if len(rep.Runs) != 2 {
		t.Fatalf("%d runs; want 2: %+v", len(rep.Runs), rep.Runs)
	}
	ran, cut := "", ""
	for _, r := range rep.Runs {
		switch {
		case r.Outcome == report.OutcomeAllowed:
			ran = progressName(r)
		case r.Outcome == report.OutcomeError && strings.HasPrefix(r.Reason, "interrupted:"):
			cut = progressName(r)
		default:
			t.Errorf("%s: %s (%s); want one allowed, as it ran, and one interrupted", r.ID, r.Outcome, r.Reason)
		}
	}
	if ran == "" || cut == "" || ran == cut {
		t.Errorf("ran %q, interrupted %q; want one of each: %+v", ran, cut, rep.Runs)
	}
	var line string
	for _, l := range strings.Split(progress.buf.String(), "\n") {
		if strings.HasPrefix(l, "interrupted") {
			line = l
		}
	}
	if cut != "" && (!strings.Contains(line, cut) || strings.Contains(line, ran) && ran != "" || !strings.Contains(line, "0 of 2 not started")) {
		t.Errorf("progress line %q; want one naming %s alone, and 0 of 2 not started", line, cut)
	}
}
