package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestJSONOnAnEventThatDiscardsItIsRefused: Claude Code reads none of the
// JSON output of a Notification or SessionEnd hook (outcomeRules'
// ignoresOutput), yet json: {decision: block} passed on a Notification
// hook that printed it, as json of what a SessionEnd hook printed did:
// a pass on output nothing reads. Such a json expectation is now a
// config/invalid error at its line, and its check does not run; the same
// json of a Stop hook, whose decision Claude Code reads, still runs,
// confined, and passes.
func TestJSONOnAnEventThatDiscardsItIsRefused(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	block := `echo '{\"decision\":\"block\",\"reason\":\"r\"}'`
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {
  "Notification": [{"hooks": [{"type": "command", "command": "` + block + `"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "` + block + `"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "` + block + `"}]}]
}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: notification, hook: p, event: Notification, expect: {json: {decision: block}}}\n" +
			"  - {name: end, hook: p, event: SessionEnd, expect: {exit-code: 0, json: {reason: r}}}\n" +
			"  - {name: stop, hook: p, event: Stop, expect: {json: {decision: block}}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range rep.Findings {
		if f.Rule == RuleConfig && strings.Contains(f.Message, "json: Claude Code reads none of the JSON output of") {
			lines = append(lines, f.Location.Line)
		}
	}
	if len(lines) != 2 || lines[0] != 3 || lines[1] != 4 {
		t.Errorf("json errors at lines %v, want 3 and 4:\n%s", lines, strings.Join(findingLines(rep.Findings), "\n"))
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Check != "stop" || rep.Runs[0].Tier != "confined" {
		t.Fatalf("runs %+v, want the stop check's alone, confined", rep.Runs)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, RuleExpectPrefix) {
			t.Errorf("the stop check failed: %s", findingLine(f))
		}
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", rep.Verdict)
	}
}
