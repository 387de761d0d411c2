package runner

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAuditNamesUnshippedPluginFiles: through a real confined audit, a
// plugin's hook that runs a file of its plugin the tree does not hold
// (through bash, sh, python3 or node, or run directly) fails with a cause
// that names the file relative to the plugin and says the plugin does not
// ship it, not a program to install; a relative path the command names is
// read from the project's directory, which the cause says, with the
// plugin's file where the plugin has it; a project's hook keeps the
// tree's cause. dash's exit 2 for a script it cannot open, on PreToolUse,
// is the shell failing, not the hook's block.
func TestAuditNamesUnshippedPluginFiles(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := exec.LookPath("node"); err != nil {
		sandboxtest.Missing(t, "node")
	}
	notShip := func(in string) string {
		return "it names " + in + ", a file of plugin p (p/" + in + ") that the plugin does not ship: the tree does not hold it"
	}
	cases := []struct{ event, command, want string }{
		{"Stop", "bash ${CLAUDE_PLUGIN_ROOT}/hooks/x.sh", notShip("hooks/x.sh")},
		{"SessionStart", "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/y.sh\"", notShip("hooks/y.sh")},
		{"UserPromptSubmit", "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/z.py", notShip("hooks/z.py")},
		{"Notification", "node ${CLAUDE_PLUGIN_ROOT}/hooks/w.js", notShip("hooks/w.js")},
		{"SessionEnd", "${CLAUDE_PLUGIN_ROOT}/bin/tool --flag", notShip("bin/tool")},
		{"SubagentStop", "bash hooks/v.sh", "it names hooks/v.sh, a relative path, which a hook reads from the directory it runs in, the project's, not the plugin's, and the tree does not hold it there, and plugin p (p/hooks/v.sh) does not ship it either"},
		// dash's exit 2 for a script it cannot open, on an event exit 2
		// blocks: the shell's failure, not the hook's block.
		{"PreToolUse", "sh ${CLAUDE_PLUGIN_ROOT}/hooks/u.sh", "the shell or interpreter, not the hook, exited with 2, which Claude Code reads as the hook's block"},
		// Named relative, reported absolute by the interpreter.
		{"PostCompact", "python3 hooks/gone.py", "it names hooks/gone.py, a relative path, which a hook reads from the directory it runs in, the project's, not the plugin's, and the tree does not hold it there, and plugin p (p/hooks/gone.py) does not ship it either"},
		{"SubagentStart", "node ./hooks/there.js", "it names ./hooks/there.js, a relative path, which a hook reads from the directory it runs in, the project's, not the plugin's, and the tree does not hold it there; the plugin has p/hooks/there.js: write ${CLAUDE_PLUGIN_ROOT}/hooks/there.js"},
		{"PreCompact", "./bin/there", "it names ./bin/there, a relative path, which a hook reads from the directory it runs in, the project's, not the plugin's, and the tree does not hold it there; the plugin has p/bin/there: write ${CLAUDE_PLUGIN_ROOT}/bin/there"},
	}
	var decl []string
	for _, c := range cases {
		matcher := ""
		if c.event == "PreToolUse" {
			matcher = `"matcher": "Bash", `
		}
		decl = append(decl, `"`+c.event+`": [{`+matcher+`"hooks": [{"type": "command", "command": `+strconv.Quote(c.command)+`}]}]`)
	}
	dir := makeTree(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/hooks/hooks.json":           `{"hooks": {` + strings.Join(decl, ",\n") + `}}`,
		"p/bin/there":                  "#!/bin/sh\nexit 0\n",
		"p/hooks/there.js":             "process.exit(0)\n",
		".claude/settings.json":        `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash .claude/hooks/gone.sh"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: ""})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		if f.Rule != RuleRunHookError {
			continue
		}
		for _, c := range cases {
			if f.Location.File == "p/hooks/hooks.json" && strings.HasPrefix(f.Message, "p "+c.event+" ") {
				got[c.event] = f.Message
			}
		}
		if f.Location.File == ".claude/settings.json" {
			got["project"] = f.Message
		}
	}
	for _, c := range cases {
		msg := got[c.event]
		if c.event == "PreToolUse" && !strings.Contains(msg, notShip("hooks/u.sh")) {
			t.Errorf("%s (%s): %q\nwant it to say %q", c.event, c.command, msg, notShip("hooks/u.sh"))
		}
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "install it there") {
			t.Errorf("%s (%s): %q\nwant it to say %q", c.event, c.command, msg, c.want)
		}
	}
	if want := "it names .claude/hooks/gone.sh, which the tree does not hold"; !strings.Contains(got["project"], want) {
		t.Errorf("the project's hook: %q\nwant it to say %q", got["project"], want)
	}
}
