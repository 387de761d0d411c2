package runner

import (
	"context"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestOutputOfAHookEndedAtItsTimeoutPassesNothing: a hook ended at its
// own timeout, where Claude Code ends it too, printed what Claude Code
// never reads: a stdout-* or stderr-* expectation over it fails, as json
// and exit-code do, whether the text is there or not (an empty stderr
// that '^$' matches included). The same hook that finished passes them.
func TestOutputOfAHookEndedAtItsTimeoutPassesNothing(t *testing.T) {
	expect := `{stdout-contains: SAFE, stdout-matches: '^SAFE$', stderr-matches: '^$'}`
	for _, timedOut := range []bool{true, false} {
		dir := makeTree(t, map[string]string{
			"plugins/p/hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo SAFE; exec sleep 5", "timeout": 2}]}]}}`,
			".vigiles.yml":               "version: 1\nchecks:\n  - {name: slow, hook: p, event: SessionStart, expect: " + expect + "}\n",
		})
		exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
			res := &sandbox.Result{Tier: sandbox.TierConfined, Stdout: "SAFE\n", Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
			if timedOut {
				res.TimedOut, res.ExitCode = true, 137
			}
			return res, nil
		}}
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, f := range rep.Findings {
			failed[f.Rule] = true
		}
		for _, kind := range []string{ExpStdoutContains, ExpStdoutMatches, ExpStderrMatches} {
			if got := failed[RuleExpectPrefix+kind]; got != timedOut {
				t.Errorf("timed out %v: %s failed %v, want %v: %v", timedOut, kind, got, timedOut, findingLines(rep.Findings))
			}
		}
		if timedOut && rep.Verdict == report.VerdictPass {
			t.Errorf("timed out: verdict %s", rep.Verdict)
		}
	}
}
