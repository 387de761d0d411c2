package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentServersTree is a project whose agent defines two MCP servers
// inline (one of the name the project's .mcp.json gives one too) and
// names a server of the session's, and a plugin whose agent defines one,
// which Claude Code ignores (sub-agents.md: a plugin's agent's
// mcpServers and hooks are not loaded).
func agentServersTree() map[string]string {
	return map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude/agents/db.md":  "---\nname: db\nmcpServers:\n  - github\n  - db:\n      command: node\n      args: [agent-db.js]\n    web:\n      type: http\n      url: https://mcp.example.test/\n---\nYou query.\n",
		".mcp.json":             `{"mcpServers": {"db": {"command": "node", "args": ["db.js"]}}}`,
		"p/hooks/hooks.json":    serverStopHook,
		"p/agents/a.md":         "---\nname: a\nmcpServers:\n  - ignored: {command: plugin-agent}\n---\n",
	}
}

// TestAgentServersNamed: an MCP server a project's agent defines inline
// in its frontmatter, which Claude Code starts unsandboxed when the agent
// starts, is a discovery/mcp-server warning at its name that says whose
// it is, and the baseline keeps it under projectServers apart from the
// .mcp.json server of the same name; a plugin agent's is not named, as
// Claude Code ignores it. Before, vigiles said nothing of them.
func TestAgentServersNamed(t *testing.T) {
	dir := makeTree(t, agentServersTree())
	rep := serverAudit(t, dir, false)
	var agent []string
	for _, l := range projectServerLines(rep) {
		if strings.Contains(l, "plugin-agent") || strings.Contains(l, "ignored") {
			t.Errorf("a plugin agent's mcpServers, which Claude Code ignores, is named: %s", l)
		}
		if strings.Contains(l, ".claude/agents/db.md") {
			agent = append(agent, l)
		}
	}
	if len(agent) != 2 {
		t.Fatalf("want 2 findings for the agent's inline servers, got %d: %q", len(agent), projectServerLines(rep))
	}
	for _, want := range []string{
		"warning discovery/mcp-server .claude/agents/db.md:5:5 an agent's own",
		"warning discovery/mcp-server .claude/agents/db.md:8:5 an agent's own",
	} {
		found := false
		for _, l := range agent {
			found = found || strings.HasPrefix(l, want)
		}
		if !found {
			t.Errorf("no finding beginning %q in %q", want, agent)
		}
	}
	if !strings.Contains(strings.Join(agent, "\n"), "node agent-db.js") {
		t.Errorf("the finding does not name the command the agent's server starts: %q", agent)
	}
	serverAudit(t, dir, true)
	raw, err := os.ReadFile(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	var base struct {
		ProjectServers []BaselineServer `json:"projectServers"`
	}
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	var ctxs []string
	for _, s := range base.ProjectServers {
		ctxs = append(ctxs, s.Context+" "+s.Kind+" "+s.Name+" "+s.Starts)
	}
	for _, want := range []string{
		"project:. mcp db node db.js",
		"project:.#agent:.claude/agents/db.md mcp db node agent-db.js",
		"project:.#agent:.claude/agents/db.md mcp web ",
	} {
		found := false
		for _, c := range ctxs {
			found = found || strings.HasPrefix(c, want)
		}
		if !found {
			t.Errorf("the baseline's projectServers lack %q: %q", want, ctxs)
		}
	}
	// Against the baseline it wrote, each is kept as it is: no drift.
	for _, l := range projectServerLines(serverAudit(t, dir, false)) {
		if strings.HasPrefix(l, "error") {
			t.Errorf("drift against the baseline just written: %s", l)
		}
	}
}
