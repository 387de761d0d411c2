package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestCheckOfAFailedHookWarns: a check whose expectations hold of a hook
// that failed (its program not found, exit 127, which Claude Code shows
// as a hook error and goes on) passes, as Claude Code would let the call
// through, and a run/hook-error warning says that the hook never did its
// work, once for the checks of the hook that failed alike; a check that
// states the exit status it expects tests the failure itself, and gets
// none.
func TestCheckOfAFailedHookWarns(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "vigiles-no-such-program --check"}]}
]}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: lets it through, hook: project, tool: Bash, expect: {allowed: true, no-write: true}}\n" +
			"  - {name: writes nothing, hook: project, tool: Bash, expect: {no-write: true}}\n" +
			"  - {name: fails, hook: project, tool: Bash, expect: {exit-code: 127}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	check := map[string]string{}
	for _, r := range rep.Runs {
		check[r.ID] = r.Check
	}
	var warned []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			warned = append(warned, check[f.Hook])
			if f.Severity != report.SeverityWarning || !strings.Contains(f.Message, "127") {
				t.Errorf("%s: %s %q, want a warning that names exit status 127", f.Rule, f.Severity, f.Message)
			}
		}
	}
	if strings.Join(warned, ",") != "lets it through" {
		t.Errorf("run/hook-error for checks %q, want the one that states no exit status:\n%s", warned, strings.Join(findingLines(rep.Findings), "\n"))
	}
	if rep.Verdict != report.VerdictPass {
		t.Errorf("verdict %s, want pass (a warning):\n%s", rep.Verdict, strings.Join(findingLines(rep.Findings), "\n"))
	}
}
