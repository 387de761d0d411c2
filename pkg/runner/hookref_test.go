package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestColonAgentHooksNotRun: Claude Code (2.1.218 and later) does not
// load a project's agent whose frontmatter name holds a colon, a mark it
// keeps for a plugin's agents (sub-agents.md, "Supported frontmatter
// fields"): none of the hooks it declares ever runs. The audit lists
// them, not runs them (a guard there that blocks would pass for one that
// works), with one warning at the name; what is wrong among them (a
// script not there) is a notice, and no Stop-as-SubagentStop notice is
// given. An agent named without one runs its hooks in the real sandbox.
func TestColonAgentHooksNotRun(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/agents/ok.md": "---\nname: reviewer\ndescription: d\nhooks:\n" +
			"  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: echo ok}]}]\n---\nbody\n",
		".claude/agents/team.md": "---\nname: team:reviewer\ndescription: d\nhooks:\n" +
			"  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: \"echo no >&2; exit 2\"}]}]\n" +
			"  Stop: [{hooks: [{type: command, command: ./gone.sh}]}]\n---\nbody\n",
	})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ran, listed := 0, 0
	for _, r := range rep.Runs {
		switch {
		case strings.HasPrefix(r.ID, ".claude/agents/ok.md#"):
			ran++
			if r.Outcome != report.OutcomeAllowed || strings.TrimSpace(r.Stdout) != "ok" {
				t.Errorf("run %s: %s (%s), stdout %q; want the hook run and allowed", r.ID, r.Outcome, r.Reason, r.Stdout)
			}
		case strings.HasPrefix(r.ID, ".claude/agents/team.md#"):
			listed++
			if r.Outcome != report.OutcomeNotExecutable || !strings.Contains(r.Reason, "does not load an agent whose name holds a colon") {
				t.Errorf("run %s: %s (%s); want listed, not run", r.ID, r.Outcome, r.Reason)
			}
		}
	}
	if ran != 1 || listed != 2 {
		t.Errorf("%d runs of ok.md's hook, %d of team.md's listed; want 1 and 2", ran, listed)
	}
	warned := 0
	for _, f := range rep.Findings {
		if f.Location.File != ".claude/agents/team.md" {
			continue
		}
		switch {
		case f.Rule == RuleNotExecutable && f.Severity == report.SeverityWarning && f.Location.Line == 2 && strings.Contains(f.Message, `name "team:reviewer" holds a colon`):
			warned++
		case f.Rule == RuleAgentStop:
			t.Errorf("%s: %s; want no notice that a Stop hook Claude Code never loads runs as SubagentStop", f.Rule, f.Message)
		case f.Severity != report.SeverityNotice:
			t.Errorf("%s %s line %d: %s; want a notice, as Claude Code never runs these hooks", f.Severity, f.Rule, f.Location.Line, f.Message)
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings at team.md's name, want 1: %v", warned, findingLines(rep.Findings))
	}
	if rep.Verdict == report.VerdictFail {
		t.Errorf("verdict %s: %v", rep.Verdict, findingLines(rep.Findings))
	}
}
