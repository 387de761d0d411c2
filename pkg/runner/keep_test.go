package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunsKeepNoMoreThanTheirReportNeeds: a run is kept to the end of an
// audit or test, and one that no check reads keeps of its result only
// what the report and its findings use, not the whole output (bytes and
// base64) nor that output parsed as JSON; a check's run keeps both, for
// its expectations (TestOutputExpectationsReadAllTheOutput).
func TestRunsKeepNoMoreThanTheirReportNeeds(t *testing.T) {
	// A JSON object of 64 KiB: what Decide parses, as a hook's answer.
	stdout := `{"systemMessage": "` + strings.Repeat("a", 64<<10) + `"}`
	stderr := strings.Repeat("b", 64<<10)
	s := &runSettings{jobs: 2, exec: ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, Stderr: stderr, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if strings.Contains(strings.Join(spec.Command, " "), "failed") {
			res.Error = "record failed"
		}
		return res, nil
	})}
	plan := []*plannedRun{
		{ID: "audited", Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: "c", Event: "Stop"}},
		{ID: "checked", Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: "c", Event: "Stop"}, Check: &Check{Name: "c"}},
		{ID: "failed", Hook: &Hook{Type: TypeCommand, Command: "failed", Expanded: "failed", Event: "Stop"}},
	}
	out := s.execute(context.Background(), plan)
	audited, checked, failed := out[0], out[1], out[2]
	if audited.result == nil || audited.result.Stdout != "" || audited.result.Stderr != "" || audited.result.StdoutBytes() != nil {
		t.Errorf("a run no check reads kept its whole output: %d and %d bytes", len(audited.result.Stdout), len(audited.result.Stderr))
	}
	if audited.decision.Output != nil {
		t.Error("a run no check reads kept its output parsed as JSON")
	}
	if failed.failure() != "record failed" {
		t.Errorf("failure %q, want the result's error", failed.failure())
	}
	if len(audited.run.Stdout) > reportOutputCap+100 || len(audited.run.Stderr) > reportOutputCap+100 || audited.run.Stdout[:10] != stdout[:10] {
		t.Errorf("the report's output is not its 8 KiB: %d and %d bytes", len(audited.run.Stdout), len(audited.run.Stderr))
	}
	if checked.result == nil || checked.result.Stdout != stdout || checked.result.Stderr != stderr || checked.decision.Output == nil {
		t.Error("a check's run did not keep its whole output and its JSON for its expectations")
	}
}
