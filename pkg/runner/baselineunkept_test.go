package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestUpdateBaselineKeepsNoRunVigilesMadeOfIt: --update-baseline writes
// nothing where a run was refused, failed, hit a limit of the sandbox or
// was ended sooner than Claude Code would end it: its outcome and record
// are vigiles', not the hook's. A baseline of a failed guard ("outcome":
// "error", nothing recorded) let a later audit pass the guard turned
// into a hook that times out at its own timeout (outcome error, as
// accepted) and so lets every call through; one of a guard a memory
// limit killed accepted "allowed". The report is still made, the error
// names the run, and a baseline that was there is left as it was.
func TestUpdateBaselineKeepsNoRunVigilesMadeOfIt(t *testing.T) {
	const guard = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}]}]}}`
	const id = "plugins/g/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash"
	confined := func(res sandbox.Result) *runnertest.Canned {
		return &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
			r := res
			if r.Tier == "" {
				r.Tier = sandbox.TierConfined
			}
			if r.Tier == sandbox.TierConfined && r.Error == "" {
				r.Writes, r.Egress = []evidence.Write{}, []evidence.Egress{}
			}
			return &r, nil
		}}
	}
	for _, tc := range []struct {
		name, defaults string
		exec           *runnertest.Canned
		says           string
	}{
		{"refused", "", confined(sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}), RuleRunRefused},
		{"failed", "", confined(sandbox.Result{ExitCode: 125, Error: "reading the write record: cut"}), RuleRunFailed},
		{"a limit", "", confined(sandbox.Result{ExitCode: 137, Signal: "SIGKILL", LimitHit: "memory"}), RuleRunLimit + " memory"},
		{"cut short", "defaults: {timeout: 2s}\n", confined(sandbox.Result{TimedOut: true, ExitCode: 137}), "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".vigiles.yml":               "plugins:\n  untrusted: [\"plugins/*\"]\n" + tc.defaults,
				"plugins/g/hooks/hooks.json": guard,
			})
			const base = ".vigiles/baseline.json"
			ctx := context.Background()
			rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: tc.exec})
			if err == nil || !strings.Contains(err.Error(), "the baseline was not written") || !strings.Contains(err.Error(), id+" "+tc.says) || rep == nil {
				t.Fatalf("update from a run vigiles made: err %v, report %v", err, rep != nil)
			}
			if _, err := os.Stat(filepath.Join(dir, base)); !os.IsNotExist(err) {
				t.Fatalf("a baseline was written: %v", err)
			}

			// A baseline of the guard as it is: a failed update leaves it.
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: confined(sandbox.Result{ExitCode: 2, Stderr: "no"})}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(filepath.Join(dir, base))
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: tc.exec}); err == nil {
				t.Fatal("the second update from a run vigiles made: no error")
			}
			if after, _ := os.ReadFile(filepath.Join(dir, base)); string(after) != string(before) {
				t.Fatalf("a failed update changed the baseline:\n%s", after)
			}
			// The guard now times out at its own timeout: the call goes
			// on, which the baseline did not accept.
			rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: confined(sandbox.Result{TimedOut: true, ExitCode: 137})})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict == report.VerdictPass || !hasFinding(rep.Findings, RuleDriftPrefix+DriftOutcome, "") {
				t.Errorf("a guard that now times out: verdict %s:\n%s", rep.Verdict, findingLines(rep.Findings))
			}
		})
	}
}
