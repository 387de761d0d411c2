package runner

import (
	"context"
	"strings"
	"testing"
)

// TestRelativeScriptPath: a project's hook that runs a script of the
// project by a relative path (shell or exec form, as the program or an
// interpreter's script) is a discovery/relative-path warning with the
// fix; one named by "$CLAUDE_PROJECT_DIR", one that cds first, a system
// program and a plugin's hook are none.
func TestRelativeScriptPath(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": ".claude/hooks/pre-bash.sh"},
  {"type": "command", "command": "python3 ./.claude/hooks/gate.py --strict"},
  {"type": "command", "command": "node", "args": [".claude/hooks/post.js"]},
  {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/pre-bash.sh"},
  {"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\" && .claude/hooks/pre-bash.sh"},
  {"type": "command", "command": "jq -r .tool_name"}
]}]}}`,
		".claude/hooks/pre-bash.sh":            "#!/bin/sh\n",
		".claude/hooks/gate.py":                "print()\n",
		".claude/hooks/post.js":                "\n",
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/hooks/x.sh"}]}]}}`,
		"plugins/p/hooks/x.sh":                 "#!/bin/sh\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, f := range rep.Findings {
		if f.Rule == RuleRelativePath && f.Location.File == ".claude/settings.json" {
			got[f.Location.Line] = f.Message
		}
	}
	want := map[int]string{2: ".claude/hooks/pre-bash.sh", 3: "./.claude/hooks/gate.py", 4: ".claude/hooks/post.js"}
	if len(got) != len(want) {
		t.Errorf("relative-path findings %q, want %d", got, len(want))
	}
	// Python's exit status 2 is named only where a Python runs it.
	if !strings.Contains(got[3], "python's exit status 2") || strings.Contains(got[2], "python") || !strings.Contains(got[2], "exit status 127") {
		t.Errorf("the failure named: %q, %q", got[2], got[3])
	}
	for line, script := range want {
		msg := got[line]
		fix := `Name it "$CLAUDE_PROJECT_DIR"/` + strings.TrimPrefix(script, "./")
		if line == 4 {
			// Exec form: no shell, Claude Code substitutes ${…} itself.
			fix = "Name it ${CLAUDE_PROJECT_DIR}/" + script + " (exec form"
		}
		if !strings.HasPrefix(msg, "the hook runs "+script+" by a path relative to the directory it runs in") || !strings.Contains(msg, fix) {
			t.Errorf("line %d: %q, want one of %s", line, msg, script)
		}
	}
}

// TestRelativeScriptPathKeptInProject: where the project's settings set
// CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR, Claude Code returns the Bash
// tool to the project's directory after each command, and a relative
// path is found: no warning.
func TestRelativeScriptPathKeptInProject(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json":     `{"env": {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"}, "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ".claude/hooks/pre-bash.sh"}]}]}}`,
		".claude/hooks/pre-bash.sh": "#!/bin/sh\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if got := messagesOf(rep.Findings, RuleRelativePath); len(got) != 0 {
		t.Errorf("relative-path findings %q, want none", got)
	}
}

// TestPluginRelativeScriptPath: a plugin's hook that names a file of its
// own plugin by a relative path (node hooks/x.mjs) reads it from the
// project's directory, the user's project once the plugin is installed,
// not the plugin's. Where the plugin is the work tree, the audit finds
// the file there: a discovery/relative-path warning, whatever the
// project's settings say of the Bash tool's directory, that names
// ${CLAUDE_PLUGIN_ROOT}/hooks/x.mjs as the fix. Where the plugin sits
// below, the path names nothing: the discovery/missing-script error says
// it was read from the project's directory (not the plugin's, which
// ${CLAUDE_PLUGIN_ROOT} names), with the same fix.
func TestPluginRelativeScriptPath(t *testing.T) {
	hooks := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "node hooks/x.mjs"}, {"type": "command", "command": "node", "args": ["hooks/x.mjs"]}]}]}}`
	t.Run("at the root", func(t *testing.T) {
		dir := makeTree(t, map[string]string{
			".claude-plugin/plugin.json": `{"name": "rootp"}`,
			"hooks/hooks.json":           hooks,
			"hooks/x.mjs":                "\n",
			".claude/settings.json":      `{"env": {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"}}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := messagesOf(rep.Findings, RuleRelativePath)
		if len(got) != 2 {
			t.Fatalf("relative-path findings %q, want 2: %v", got, findingLines(rep.Findings))
		}
		for i, fix := range []string{`Name it "${CLAUDE_PLUGIN_ROOT}/hooks/x.mjs"`, "Name it ${CLAUDE_PLUGIN_ROOT}/hooks/x.mjs (exec form"} {
			if !strings.HasPrefix(got[i], "the hook of plugin rootp runs hooks/x.mjs by a path relative to the directory it runs in") || !strings.Contains(got[i], "the project's directory, not the plugin's") || !strings.Contains(got[i], fix) {
				t.Errorf("finding %d: %q, want the plugin's wording and %s", i, got[i], fix)
			}
		}
		if got := messagesOf(rep.Findings, RuleMissingScript); len(got) != 0 {
			t.Errorf("missing-script findings %q, want none", got)
		}
	})
	t.Run("below", func(t *testing.T) {
		dir := makeTree(t, map[string]string{
			"plugins/relp/.claude-plugin/plugin.json": `{"name": "relp"}`,
			"plugins/relp/hooks/hooks.json":           hooks,
			"plugins/relp/hooks/x.mjs":                "\n",
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := messagesOf(rep.Findings, RuleMissingScript)
		if len(got) != 2 {
			t.Fatalf("missing-script findings %q, want 2: %v", got, findingLines(rep.Findings))
		}
		for _, msg := range got {
			want := "hook script hooks/x.mjs does not exist: the hook fails every time it runs; the tree has plugins/relp/hooks/x.mjs: the path is read from the project's directory, not the plugin's: name it ${CLAUDE_PLUGIN_ROOT}/hooks/x.mjs"
			if !strings.HasPrefix(msg, want) || strings.Contains(msg, "names here") {
				t.Errorf("%q,\nwant %q", msg, want)
			}
		}
		if got := messagesOf(rep.Findings, RuleRelativePath); len(got) != 0 {
			t.Errorf("relative-path findings %q, want none", got)
		}
	})
}
