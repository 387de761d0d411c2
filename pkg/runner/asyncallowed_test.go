package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAsyncHookAllowedProvesNothing: Claude Code does not wait for an
// async hook, so the call goes on whatever it answers: allowed: true,
// blocked: false and outcome: allowed passed on an async guard that
// denied (exit 2 and a deny on stdout), as on one that said nothing. Each
// now fails, saying the hook is async; blocked: true still fails as
// before, and the same guard run in the foreground passes allowed: true
// only where it allows.
func TestAsyncHookAllowedProvesNothing(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	deny := `echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}'; exit 2`
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "async": true, "command": "` + deny + `"}]},
  {"matcher": "Write", "hooks": [{"type": "command", "async": true, "command": "true"}]},
  {"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]}
]}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: denies, hook: p, tool: Bash, expect: {allowed: true}}\n" +
			"  - {name: silent, hook: p, tool: Write, expect: {blocked: false, outcome: allowed}}\n" +
			"  - {name: blocks, hook: p, tool: Bash, expect: {blocked: true}}\n" +
			"  - {name: foreground, hook: p, tool: Read, expect: {allowed: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{} // check → the kinds of its failed expectations
	runCheck := map[string]string{}
	for _, r := range rep.Runs {
		runCheck[r.ID] = r.Check
		if r.Tier != "confined" {
			t.Fatalf("run %s: tier %q, want confined", r.ID, r.Tier)
		}
	}
	for _, f := range rep.Findings {
		if !strings.HasPrefix(f.Rule, RuleExpectPrefix) {
			continue
		}
		c := runCheck[f.Hook]
		got[c] = append(got[c], f.Rule)
		if c != "blocks" && !strings.Contains(f.Message, "the hook is async: Claude Code does not wait for it") {
			t.Errorf("check %s: %s: %q, want it to say the hook is async", c, f.Rule, f.Message)
		}
	}
	want := map[string]string{
		"denies":     "expect/allowed",
		"silent":     "expect/blocked expect/outcome",
		"blocks":     "expect/blocked",
		"foreground": "",
	}
	for c, w := range want {
		if g := strings.Join(got[c], " "); g != w {
			t.Errorf("check %s: failed %q, want %q:\n%s", c, g, w, strings.Join(findingLines(rep.Findings), "\n"))
		}
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", rep.Verdict)
	}
}
