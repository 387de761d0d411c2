package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadScriptMeta: the dependencies and exclude-newer of a script's
// "# /// script" block, read as TOML over lines, comments, both quotes
// and a trailing comma; a script without the block has none, and a list
// vigiles cannot read says so.
func TestReadScriptMeta(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      scriptMeta
		block     bool
	}{
		{"none", "#!/usr/bin/env python3\nimport sys\n", scriptMeta{}, false},
		{"no dependencies", "# /// script\n# requires-python = \">=3.8\"\n# ///\nimport json\n", scriptMeta{ok: true}, true},
		{"one line", "#!/usr/bin/env -S uv run --script\n# /// script\n# dependencies = [\"python-dotenv\", 'rich==13.7.1']\n# ///\n",
			scriptMeta{deps: []string{"python-dotenv", "rich==13.7.1"}, ok: true}, true},
		{"over lines", "# /// script\n# requires-python = \">=3.11\"\n# dependencies = [\n#     \"anthropic>=0.40\",  # the client\n#\n#     \"python-dotenv\",\n# ]\n# ///\n",
			scriptMeta{deps: []string{"anthropic>=0.40", "python-dotenv"}, ok: true}, true},
		{"empty list", "# /// script\n# dependencies = []\n# ///\n", scriptMeta{deps: []string{}, ok: true}, true},
		{"exclude-newer", "# /// script\n# dependencies = [\"httpx\"]\n# [tool.uv]\n# exclude-newer = \"2025-01-01T00:00:00Z\"\n# ///\n",
			scriptMeta{deps: []string{"httpx"}, ok: true, excludeNewer: "2025-01-01T00:00:00Z"}, true},
		{"dependencies of another table", "# /// script\n# [tool.other]\n# dependencies = [\"x\"]\n# ///\n", scriptMeta{ok: true}, true},
		{"unreadable", "# /// script\n# dependencies = some_value\n# ///\n", scriptMeta{ok: false}, true},
		{"escaped quote", "# /// script\n# dependencies = [\"a \\\"b\\\"\"]\n# ///\n", scriptMeta{deps: []string{`a "b"`}, ok: true}, true},
		{"crlf", "# /// script\r\n# dependencies = [\"requests\"]\r\n# ///\r\n", scriptMeta{deps: []string{"requests"}, ok: true}, true},
		{"unclosed block", "# /// script\n# dependencies = [\"requests\"]\nimport os\n", scriptMeta{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, block := readScriptMeta(tc.src)
			if block != tc.block {
				t.Fatalf("block found = %v, want %v", block, tc.block)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(scriptMeta{})); diff != "" {
				t.Errorf("meta (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUVRunScript: the script uv run runs, past its options, and none
// where it runs a module, its input or a command, or where an option
// vigiles does not know comes first.
func TestUVRunScript(t *testing.T) {
	for _, tc := range []struct {
		args string
		want string
	}{
		{"hook.py", "hook.py"},
		{"--quiet --python 3.12 hook.py --flag", "hook.py"},
		{"-p3.12 hook.pyw", "hook.pyw"},
		{"--with rich --script tool", "tool"},
		{"--script -- tool", "tool"},
		{"-- hook.py", "hook.py"},
		{"tool", ""},
		{"pytest -x", ""},
		{"-m http.server", ""},
		{"-", ""},
		{"--frobnicate hook.py", ""},
		// uv changes to --directory's before it runs anything: a
		// relative script is taken from there. --project's moves only
		// where uv looks for the project.
		{"--directory sub hook.py", "sub/hook.py"},
		{"--directory=sub --script ./tool", "sub/tool"},
		{"--directory /srv server.py", "/srv/server.py"},
		{"--directory sub ${CLAUDE_PLUGIN_ROOT}/h.py", "${CLAUDE_PLUGIN_ROOT}/h.py"},
		{"--directory sub /abs/h.py", "/abs/h.py"},
		{"--project sub sub/hook.py", "sub/hook.py"},
		{"", ""},
	} {
		if got := uvRunScript(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("uv run %s: script %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestScriptDependenciesFetched: a hook, a settings command, a plugin's
// MCP server and a skill's shell line that run a script of the tree
// through uv (uv run, past uv's global options too, uv run --script in
// exec form, the script itself
// where its shebang is uv run's) name what its inline metadata fetches:
// a warning where a dependency has no exact version, a notice where
// each has one, or a lock or an exclude-newer date holds them. A script
// that is not uv's (its shebang python3's), not in the tree, or with no
// dependencies fetches nothing. A monorepo package's hook names its
// script from its own directory, which $CLAUDE_PROJECT_DIR names; uv's
// --directory has a relative script read from its directory (not the
// dep.py at the top of the tree), its --project not.
func TestScriptDependenciesFetched(t *testing.T) {
	files := map[string]string{
		".claude/settings.json": `{
  "statusLine": {"type": "command", "command": "uv run $CLAUDE_PROJECT_DIR/.claude/status.py"},
  "hooks": {
    "Stop": [{"hooks": [
      {"type": "command", "command": "uv run --quiet \"${CLAUDE_PROJECT_DIR}\"/.claude/hooks/stop.py || true"},
      {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/direct.py"},
      {"type": "command", "command": ".claude/hooks/plain.py"},
      {"type": "command", "command": "uv run .claude/hooks/locked.py"},
      {"type": "command", "command": "uv run .claude/hooks/dated.py"},
      {"type": "command", "command": "uv run .claude/hooks/bare.py"},
      {"type": "command", "command": "uv --quiet run --no-project .claude/hooks/glob.py"},
      {"type": "command", "command": "uv run /elsewhere/hook.py"},
      {"type": "command", "command": "uv run --directory .claude/tools dep.py"},
      {"type": "command", "command": "uv --directory=$CLAUDE_PROJECT_DIR/.claude/tools run --script ./dep.py"},
      {"type": "command", "command": "uv run --project .claude/tools .claude/tools/proj.py"}
    ]}]
  }
}`,
		".claude/status.py":               "# /// script\n# dependencies = [\"rich==13.7.1\"]\n# ///\n",
		".claude/hooks/stop.py":           "# /// script\n# dependencies = [\n#   \"python-dotenv\",\n#   \"anthropic==0.40.0\",\n# ]\n# ///\n",
		".claude/hooks/direct.py":         "#!/usr/bin/env -S uv run --script\n# /// script\n# dependencies = [\"httpx>=0.27\"]\n# ///\n",
		".claude/hooks/plain.py":          "#!/usr/bin/env python3\n# /// script\n# dependencies = [\"httpx\"]\n# ///\n",
		".claude/hooks/locked.py":         "# /// script\n# dependencies = [\"httpx\"]\n# ///\n",
		".claude/hooks/locked.py.lock":    "version = 1\n",
		".claude/hooks/dated.py":          "# /// script\n# dependencies = [\"httpx\"]\n# [tool.uv]\n# exclude-newer = \"2025-01-01T00:00:00Z\"\n# ///\n",
		"pkg/.claude/settings.json":       `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "uv run \"$CLAUDE_PROJECT_DIR\"/tools/h.py"}]}]}}`,
		"pkg/tools/h.py":                  "# /// script\n# dependencies = [\"click\"]\n# ///\n",
		".claude/hooks/glob.py":           "# /// script\n# dependencies = [\"typer\"]\n# ///\n",
		".claude/hooks/bare.py":           "# /// script\n# requires-python = \">=3.11\"\n# ///\n",
		".claude/tools/dep.py":            "# /// script\n# dependencies = [\"tools-dep\"]\n# ///\n",
		".claude/tools/proj.py":           "# /// script\n# dependencies = [\"proj-dep==1.0\"]\n# ///\n",
		"dep.py":                          "# /// script\n# dependencies = [\"not-this-one\"]\n# ///\n",
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}]}`,
		"a/.mcp.json":                     `{"srv": {"command": "uv", "args": ["run", "--script", "${CLAUDE_PLUGIN_ROOT}/server"]}}`,
		"a/server":                        "# /// script\n# dependencies = [\"mcp\"]\n# ///\n",
		"a/skills/s/SKILL.md":             "---\nname: s\n---\nNow: !`uv run ${CLAUDE_PLUGIN_ROOT}/tools/now.py`\n",
		"a/tools/now.py":                  "# /// script\n# dependencies = [\"arrow==1.3.0\"]\n# ///\n",
	}
	rep := auditTree(t, files)
	const unpinned = "what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: "
	const pinned = "vigiles audits what the tree holds, not what is fetched: review that version apart"
	const deny = "; where vigiles runs it under egress deny, a fetch it tries is blocked (the run's egress names the host), so what the run records is not the code Claude Code runs"
	want := []string{
		`notice discovery/fetched-code .claude/settings.json:15:38 hook .claude/settings.json#hooks.Stop[0].hooks[10] runs code that is not in the tree, fetched at run time: uv run .claude/tools/proj.py fetches proj-dep==1.0, pinned by the exact version 1.0; ` + pinned,
		`notice discovery/fetched-code .claude/settings.json:2:3 the project's settings command statusLine runs code that is not in the tree, fetched at run time: uv run .claude/status.py fetches rich==13.7.1, pinned by the exact version 13.7.1; ` + pinned,
		`notice discovery/fetched-code .claude/settings.json:8:38 hook .claude/settings.json#hooks.Stop[0].hooks[3] runs code that is not in the tree, fetched at run time: uv run .claude/hooks/locked.py fetches httpx, pinned by the lock locked.py.lock beside the script (uv lock --script), which uv run keeps to while the metadata matches it; ` + pinned,
		`notice discovery/fetched-code .claude/settings.json:9:38 hook .claude/settings.json#hooks.Stop[0].hooks[4] runs code that is not in the tree, fetched at run time: uv run .claude/hooks/dated.py fetches httpx, pinned by the exclude-newer date 2025-01-01T00:00:00Z of its [tool.uv] table, which keeps uv to what the registry held then; ` + pinned,
		`notice discovery/fetched-code a/skills/s/SKILL.md:4:8 plugin a's skill a/skills/s/SKILL.md, in a shell line, runs code that is not in the tree, fetched at run time: uv run a/tools/now.py fetches arrow==1.3.0, pinned by the exact version 1.3.0; ` + pinned,
		`warning discovery/fetched-code .claude/settings.json:11:38 hook .claude/settings.json#hooks.Stop[0].hooks[6] runs code that is not in the tree, fetched at run time: uv run .claude/hooks/glob.py fetches typer (no version: whatever the registry serves as latest); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script .claude/hooks/glob.py` + deny,
		`warning discovery/fetched-code .claude/settings.json:13:38 hook .claude/settings.json#hooks.Stop[0].hooks[8] runs code that is not in the tree, fetched at run time: uv run .claude/tools/dep.py fetches tools-dep (no version: whatever the registry serves as latest); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script .claude/tools/dep.py` + deny,
		`warning discovery/fetched-code .claude/settings.json:14:38 hook .claude/settings.json#hooks.Stop[0].hooks[9] runs code that is not in the tree, fetched at run time: uv run .claude/tools/dep.py fetches tools-dep (no version: whatever the registry serves as latest); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script .claude/tools/dep.py` + deny,
		`warning discovery/fetched-code .claude/settings.json:5:38 hook .claude/settings.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: uv run .claude/hooks/stop.py fetches python-dotenv (no version: whatever the registry serves as latest); uv run .claude/hooks/stop.py fetches anthropic==0.40.0, pinned by the exact version 0.40.0; ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script .claude/hooks/stop.py` + deny,
		`warning discovery/fetched-code .claude/settings.json:6:38 hook .claude/settings.json#hooks.Stop[0].hooks[1] runs code that is not in the tree, fetched at run time: uv run .claude/hooks/direct.py fetches httpx>=0.27 (the requirement >=0.27, which a new release moves); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script .claude/hooks/direct.py` + deny,
		`warning discovery/fetched-code a/.mcp.json:1:2 plugin a's MCP server srv runs code that is not in the tree, fetched at run time: uv run a/server fetches mcp (no version: whatever the registry serves as latest); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script a/server`,
		`warning discovery/fetched-code pkg/.claude/settings.json:1:63 hook pkg/.claude/settings.json#hooks.Stop[0].hooks[0] runs code that is not in the tree, fetched at run time: uv run pkg/tools/h.py fetches click (no version: whatever the registry serves as latest); ` + unpinned + `pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script pkg/tools/h.py` + deny,
	}
	if diff := cmp.Diff(want, fetchedLines(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestHandedScriptFetched: a script of the tree whose first line runs uv
// run, handed as an argument to the program a command runs (a wrapper
// that runs "$@"), names what its inline metadata fetches, and says the
// command hands it on; not where an interpreter is given it as its
// script (python3 x.py runs it with python3, to which its first line is
// a comment), where the program only changes or reads it (chmod +x),
// where its first line is not uv's, nor twice where the line runs it
// too.
func TestHandedScriptFetched(t *testing.T) {
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}]}`,
		"a/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "$CLAUDE_PLUGIN_ROOT/hooks/scripts/audit-wrap validate-bash $CLAUDE_PLUGIN_ROOT/hooks/scripts/validate-bash-command.py"},
  {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/scripts/validate-bash-command.py"},
  {"type": "command", "command": "chmod +x ${CLAUDE_PLUGIN_ROOT}/hooks/scripts/validate-bash-command.py"},
  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/audit-wrap x ${CLAUDE_PLUGIN_ROOT}/hooks/scripts/plain.py"},
  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/audit-wrap x ./a/hooks/scripts/validate-bash-command.py && ./a/hooks/scripts/validate-bash-command.py"}
]}]}}`,
		"a/hooks/scripts/audit-wrap":               "#!/bin/sh\nexec \"$@\"\n",
		"a/hooks/scripts/validate-bash-command.py": "#!/usr/bin/env -S uv run --script\n# /// script\n# dependencies = [\"bashlex\"]\n# ///\n",
		"a/hooks/scripts/plain.py":                 "#!/usr/bin/env python3\n# /// script\n# dependencies = [\"httpx\"]\n# ///\n",
	}
	rep := auditTree(t, files)
	const rest = " fetches bashlex (no version: whatever the registry serves as latest); what runs is what is served (or was, where cached), which no audit or baseline of the tree vouches for: pin each of its inline metadata's dependencies to an exact version (NAME==<version>), or lock them beside it: uv lock --script a/hooks/scripts/validate-bash-command.py; where vigiles runs it under egress deny, a fetch it tries is blocked (the run's egress names the host), so what the run records is not the code Claude Code runs"
	want := []string{
		`warning discovery/fetched-code a/hooks/hooks.json:2:34 hook a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0] runs code that is not in the tree, fetched at run time: uv run a/hooks/scripts/validate-bash-command.py (the command hands the script to a/hooks/scripts/audit-wrap, and its first line runs it with uv run)` + rest,
		`warning discovery/fetched-code a/hooks/hooks.json:6:34 hook a/hooks/hooks.json#hooks.PreToolUse[0].hooks[4] runs code that is not in the tree, fetched at run time: uv run a/hooks/scripts/validate-bash-command.py (the command hands the script to a/hooks/scripts/audit-wrap, and its first line runs it with uv run)` + rest,
	}
	if diff := cmp.Diff(want, fetchedLines(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// FuzzScriptMeta feeds arbitrary text to the reading of a script's
// inline metadata: it must never panic, and what it reads of a list is
// never more strings than the text holds quotes.
func FuzzScriptMeta(f *testing.F) {
	for _, s := range []string{
		"# /// script\n# dependencies = [\"a\", 'b==1']\n# ///\n",
		"# /// script\n# dependencies = [\n#  \"a\", # c\n# ]\n# [tool.uv]\n# exclude-newer = \"2025-01-01\"\n# ///\n",
		"# /// script\n# dependencies = [\"unclosed\n# ///\n",
		"# /// script\n# dependencies = [[\"nested\"]]\n# ///\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		meta, _ := readScriptMeta(s)
		if n := strings.Count(s, `"`) + strings.Count(s, "'"); len(meta.deps) > n {
			t.Errorf("%d dependencies read from text with %d quotes", len(meta.deps), n)
		}
	})
}
