package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPluginAgentPromptAndHTTPHooksSaidOnce: Claude Code ignores every
// hook a plugin's agent declares, whatever its type. The agent's one
// warning says so; its prompt, agent and http hooks get no finding of
// their own saying that vigiles runs only command hooks (or that Claude
// Code sends each input to the http hook's URL), which would tell of a
// hook Claude Code runs, once per agent file. Their runs say why they are
// listed, not run: the agent's hooks are ignored, not their type. The
// plugin's own hooks run.
func TestPluginAgentPromptAndHTTPHooksSaidOnce(t *testing.T) {
	agent := func(name string) string {
		return "---\nname: " + name + "\ndescription: x\nhooks:\n" +
			"  Stop: [{hooks: [{type: prompt, prompt: \"Did it finish?\"}]}]\n" +
			"  PreToolUse: [{matcher: Bash, hooks: [{type: http, url: \"http://127.0.0.1:9/h\"}, {type: agent, prompt: \"check\"}]}]\n---\nbody\n"
	}
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo own"}]}]}}`,
		"plugins/p/agents/a.md":                agent("a"),
		"plugins/p/agents/b.md":                agent("b"),
	})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ran, listed := ranAndListed(t, rep, "plugins/p/hooks/hooks.json#", "own", "plugins/p/agents/", "ignores the hooks of a plugin's agent")
	if ran != 1 || listed != 6 {
		t.Errorf("%d runs of the plugin's hook, %d of its agents' listed; want 1 and 6", ran, listed)
	}
	warned := 0
	for _, f := range rep.Findings {
		if !strings.Contains(f.Location.File, "/agents/") {
			continue
		}
		if f.Severity == report.SeverityWarning && strings.Contains(f.Message, "ignores the hooks of a plugin's agent") {
			warned++
			continue
		}
		if strings.Contains(f.Message, "runs only command hooks") || strings.Contains(f.Message, "sends each") {
			t.Errorf("%s %s %s:%d: %s; want only the agent's warning", f.Severity, f.Rule, f.Location.File, f.Location.Line, f.Message)
		}
	}
	if warned != 2 {
		t.Errorf("%d warnings that the agents' hooks are ignored, want 2 (one an agent)", warned)
	}
}
