package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestCheckOfAPluginWhoseSiblingSkipsTheTool: a check that selects
// hooks by plugin name runs those that Claude Code would run for its
// call; a sibling whose matcher passes the call by is no part of the
// check (Claude Code does not run it either), not a check/no-hook error.
// Where none of those selected would run, the check checks nothing: one
// error, naming each and why. A check of one hook by id whose matcher
// skips the tool stays the error it was.
func TestCheckOfAPluginWhoseSiblingSkipsTheTool(t *testing.T) {
	cmd := `{"type": "command", "command": "true"}`
	dir := makeTree(t, map[string]string{
		"plugins/guard/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + cmd + `]}, {"matcher": "Edit|Write|MultiEdit", "hooks": [` + cmd + `]}]}}`,
		"plugins/edits/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [` + cmd + `]}, {"matcher": "Write|MultiEdit", "hooks": [` + cmd + `]}]}}`,
		".vigiles.yml": "checks:\n" +
			"  - {name: g, hook: guard, event: PreToolUse, tool: Bash, input: {command: 'git push --force origin main'}, expect: {no-egress: true}}\n" +
			"  - {name: e, hook: edits, event: PreToolUse, tool: Bash, expect: {no-egress: true}}\n" +
			"  - {name: one, hook: 'plugins/guard/hooks/hooks.json#hooks.PreToolUse[1].hooks[0]', event: PreToolUse, tool: Bash, expect: {no-egress: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Rule == RuleCheckHook {
			name := strings.SplitN(strings.SplitN(f.Message, `"`, 3)[1], `"`, 2)[0]
			got[name] = append(got[name], f.Message)
		}
	}
	if len(got["g"]) != 0 {
		t.Errorf("check g: %q; want no check/no-hook finding (its Bash hook runs)", got["g"])
	}
	if e := got["e"]; len(e) != 1 || !strings.Contains(e[0], "none of the 2 hooks") ||
		!strings.Contains(e[0], `PreToolUse[0].hooks[0] would not run for Bash: its matcher "Edit" does not select it`) ||
		!strings.Contains(e[0], `PreToolUse[1].hooks[0] would not run for Bash: its matcher "Write|MultiEdit" does not select it`) {
		t.Errorf("check e: %q; want one error naming both hooks the check selects and why neither runs", e)
	}
	if o := got["one"]; len(o) != 1 || !strings.Contains(o[0], `PreToolUse[1].hooks[0] would not run for Bash: its matcher "Edit|Write|MultiEdit" does not select it`) {
		t.Errorf("check one: %q; want the error that its one hook would not run", o)
	}
	ran := 0
	for _, r := range rep.Runs {
		if strings.HasPrefix(r.ID, "check:g>") {
			ran++
		}
	}
	if ran != 1 || rep.Verdict == report.VerdictPass {
		t.Errorf("check g ran %d hook(s), verdict %s; want its one Bash hook run, and a failed test (checks e and one)", ran, rep.Verdict)
	}
}
