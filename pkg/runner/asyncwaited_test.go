package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestAsyncFirstLineOfSessionStartIsWaitedFor: Claude Code backgrounds a
// hook whose first line of output is an async response ({"async": true})
// and goes on without it, but not a SessionStart or Setup hook, which it
// may wait for: such a hook that then runs into its timeout is cancelled
// there (an error), not backgrounded (allowed), and its run is no async
// response. A PreToolUse hook that prints the same is backgrounded.
func TestAsyncFirstLineOfSessionStartIsWaitedFor(t *testing.T) {
	const first = "{\"async\": true}\n"
	for _, c := range []struct {
		event string
		async bool
		want  string
	}{
		{PreToolUse, true, report.OutcomeAllowed},
		{SessionStart, false, report.OutcomeError},
		{Setup, false, report.OutcomeError},
	} {
		t.Run(c.event, func(t *testing.T) {
			res := &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: 137, TimedOut: true, Stdout: first, DurationMs: 5000}
			d := Decide(c.event, res, nil)
			if d.Outcome != c.want || d.AsyncResponse != c.async {
				t.Fatalf("%s hook that printed %q and timed out: outcome %s, async response %v (%s); want %s, %v",
					c.event, first, d.Outcome, d.AsyncResponse, d.Reason, c.want, c.async)
			}
			if !c.async && !strings.Contains(d.Reason, "timed out") {
				t.Errorf("reason %q, want it to say the hook timed out", d.Reason)
			}
		})
	}
}
