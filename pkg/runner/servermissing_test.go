package runner

import (
	"context"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestServerMissingScript: a server, monitor or settings command whose
// command runs a file of the tree that is not there is a
// discovery/missing-script warning (vigiles runs no server; one that
// cannot start runs nothing), with the hint to write
// ${CLAUDE_PLUGIN_ROOT} where a plugin's server names a relative path,
// taken from the project's directory; a notice where its plugin is
// turned off; a file that is there, or a program of the system, is no
// finding. A script uv run is given is taken from uv's --directory.
func TestServerMissingScript(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "off", "source": "./off"}]}`,
		".claude/settings.json":           `{"enabledPlugins": {"off@mk": false}, "statusLine": {"type": "command", "command": "bash .claude/gone.sh"}}`,
		"a/.mcp.json": `{"rel": {"command": "node", "args": ["dist/servers/x.js"]},
  "rooted": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/dist/y.js"]},
  "here": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.js"]},
  "sys": {"command": "/usr/bin/env", "args": ["python3", "-m", "srv"]},
  "uvdir": {"command": "uv", "args": ["--directory", "${CLAUDE_PLUGIN_ROOT}", "run", "server.py"]},
  "uvgone": {"command": "uv", "args": ["run", "--directory=${CLAUDE_PLUGIN_ROOT}/srv", "gone.py"]}}`,
		"a/server.js":          "// a server\n",
		"a/server.py":          "# a server\n",
		"off/.mcp.json":        `{"o": {"command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/gone.py"]}}`,
		"off/hooks/hooks.json": `{"hooks": {}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleMissingScript {
			got = append(got, string(f.Severity)+" "+f.Location.File+" "+f.Message)
		}
	}
	want := []string{
		"notice off/.mcp.json turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not start it while that holds; plugin off's MCP server o runs off/gone.py, which is not in the tree: Claude Code's start of it fails",
		"warning .claude/settings.json the project's settings command statusLine runs .claude/gone.sh, which is not in the tree: Claude Code's start of it fails",
		"warning a/.mcp.json plugin a's MCP server rel runs dist/servers/x.js, which is not in the tree: Claude Code's start of it fails (a relative path is taken from the directory Claude Code runs it in, the project's, not the plugin's: write ${CLAUDE_PLUGIN_ROOT}/dist/servers/x.js for the plugin's file)",
		"warning a/.mcp.json plugin a's MCP server rooted runs a/dist/y.js, which is not in the tree: Claude Code's start of it fails",
		"warning a/.mcp.json plugin a's MCP server uvgone runs a/srv/gone.py, which is not in the tree: Claude Code's start of it fails",
	}
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
