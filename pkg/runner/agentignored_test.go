package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestIgnoredAgentHooksAreNotErrors: what is wrong with the hooks of a
// plugin's agent, which Claude Code ignores, is a notice that says so,
// and the audit does not fail on it; the same mistake in a project's
// agent, whose hooks run, stays an error.
func TestIgnoredAgentHooksAreNotErrors(t *testing.T) {
	agent := "---\nname: rel\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      command: ./x.sh\n---\nbody\n"
	for _, tc := range []struct {
		name, file string
		sev        report.Severity
		verdict    string
	}{
		{"a plugin's agent", "plugins/p/agents/rel.md", report.SeverityNotice, report.VerdictPass},
		{"a project's agent", ".claude/agents/rel.md", report.SeverityError, report.VerdictFail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{tc.file: agent, "plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`}
			rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleMalformed {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.sev || !strings.Contains(got[0].Message, `matcher group has no "hooks" array, so none of it runs: it holds a handler's keys (command) itself; put them in a handler under it, "hooks": [{"type": "command", "command": …}]`) {
				t.Fatalf("malformed findings %v, want one %s", findingLines(got), tc.sev)
			}
			if ignored := strings.Contains(got[0].Message, "Claude Code ignores the hooks of a plugin's agent, so this changes nothing it runs"); ignored != (tc.sev == report.SeverityNotice) {
				t.Errorf("message: %s", got[0].Message)
			}
			if rep.Verdict != tc.verdict {
				t.Errorf("verdict %s, want %s: %v", rep.Verdict, tc.verdict, findingLines(rep.Findings))
			}
		})
	}
}

// TestIgnoredAgentHooksKeepTheBound: the error that a bound of the
// discovery left handlers unread holds for the whole tree: met among the
// hooks of a plugin's agent, it stays an error.
func TestIgnoredAgentHooksKeepTheBound(t *testing.T) {
	defer func(n int) { maxHandlers = n }(maxHandlers)
	maxHandlers = 1
	agent := "---\nname: rel\nhooks:\n  Stop:\n    - hooks:\n        - {type: command, command: a}\n        - {type: command, command: b}\n---\nbody\n"
	rep, err := Audit(context.Background(), Options{Dir: makeTree(t, map[string]string{
		"plugins/p/agents/rel.md": agent, "plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`}), Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	bound := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "more than 1 hook handlers are declared") {
			bound = f.Severity == report.SeverityError && !strings.Contains(f.Message, "changes nothing it runs")
		}
	}
	if !bound || rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s; the bound's finding is not an error of its own: %v", rep.Verdict, findingLines(rep.Findings))
	}
}
