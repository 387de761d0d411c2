package runner

import (
	"context"
	"strconv"
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
// given, nor is an MCP server its mcpServers defines, which never starts,
// named. An agent named without one runs its hooks in the real sandbox.
func TestColonAgentHooksNotRun(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/agents/ok.md": "---\nname: reviewer\ndescription: d\nhooks:\n" +
			"  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: echo ok}]}]\n---\nbody\n",
		".claude/agents/team.md": "---\nname: team:reviewer\ndescription: d\nmcpServers:\n  - db: {command: node, args: [db.js]}\nhooks:\n" +
			"  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: \"echo no >&2; exit 2\"}]}]\n" +
			"  Stop: [{hooks: [{type: command, command: ./gone.sh}]}]\n---\nbody\n",
	})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ran, listed := ranAndListed(t, rep, ".claude/agents/ok.md#", "ok", ".claude/agents/team.md#", "does not load an agent whose name holds a colon")
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

// TestSettingsAgentIsAgentType: a session whose settings name an agent
// ("agent", settings.local.json over settings.json) runs its main thread
// as that agent, and Claude Code sends its name as agent_type in every
// hook's input, with no agent_id (hooks.md, "Common input fields"; the
// settings reference's "agent"): a hook that tells the main thread by it
// sees it in the audit too, in the real sandbox. A subagent's own type
// takes precedence (SubagentStop's), and a session whose settings name
// none (an empty name over another) sends no agent_type.
func TestSettingsAgentIsAgentType(t *testing.T) {
	const show = `sh -c 'tr , "\n" | grep -E "^\"agent_(type|id)\"" | tr "\n" " "'`
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ` + strconv.Quote(show) + `}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": ` + strconv.Quote(show) + `}]}]}`
	sub := `"agent_id":"` + defaultAgentID + `" "agent_type":"general-purpose"`
	for _, tc := range []struct {
		name, project, local, pre string
	}{
		{"local over project", `, "agent": "other"`, `{"agent": "reviewer"}`, `"agent_type":"reviewer"`},
		{"project", `, "agent": "reviewer"`, `{}`, `"agent_type":"reviewer"`},
		{"empty over project", `, "agent": "other"`, `{"agent": ""}`, ``},
		{"none", ``, `{}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude/settings.json":       hooks + tc.project + "}",
				".claude/settings.local.json": tc.local,
			})
			sandboxtest.RequireConfinement(t)
			rep, err := Audit(context.Background(), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, r := range rep.Runs {
				got[r.Event] = strings.TrimSpace(r.Stdout)
			}
			if got[PreToolUse] != tc.pre || got[SubagentStop] != sub {
				t.Errorf("PreToolUse's agent fields %q, SubagentStop's %q; want %q and %q", got[PreToolUse], got[SubagentStop], tc.pre, sub)
			}
		})
	}
}
