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
// none. A sharded test's merge says it as the whole test does.
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
	checkFailedHookWarned(t, "the test", rep)
	// The shards of a sharded test, each with some of the checks, and
	// their merge say it as the whole test does.
	var parts []NamedReport
	for _, shard := range []string{"1/2", "2/2"} {
		part, err := Test(context.Background(), Options{Dir: dir, Shard: shard})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, NamedReport{Name: shard, Report: part})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	checkFailedHookWarned(t, "the shards' merge", merged)
}

// checkFailedHookWarned checks rep's run/hook-error findings of
// TestCheckOfAFailedHookWarns's tree (what names the report).
func checkFailedHookWarned(t *testing.T, what string, rep *report.Report) {
	t.Helper()
	check := map[string]string{}
	for _, r := range rep.Runs {
		check[r.ID] = r.Check
	}
	var warned []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			warned = append(warned, check[f.Hook])
			// Of one hook: two checks of it are not two hooks.
			if f.Severity != report.SeverityWarning || !strings.HasPrefix(f.Message, "project PreToolUse Bash failed (exit status 127") {
				t.Errorf("%s: %s %q, want a warning of the one hook that names exit status 127", f.Rule, f.Severity, f.Message)
			}
		}
	}
	// Once, of either check that states no exit status (which one
	// depends on the order of the runs, a shard's in a merge).
	if len(warned) != 1 || warned[0] == "fails" {
		t.Errorf("%s: run/hook-error for checks %q, want the one that states no exit status:\n%s", what, warned, strings.Join(findingLines(rep.Findings), "\n"))
	}
	if rep.Verdict != report.VerdictPass {
		t.Errorf("%s: verdict %s, want pass (a warning):\n%s", what, rep.Verdict, strings.Join(findingLines(rep.Findings), "\n"))
	}
}
