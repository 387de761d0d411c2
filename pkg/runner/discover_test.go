package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// hookLine summarises a discovered hook for comparison.
func hookLine(h *Hook) string {
	return fmt.Sprintf("%s plugin=%s root=%s type=%s matcher=%q cmd=%q at=%s:%d:%d",
		h.ID, h.Plugin, h.PluginRoot, h.Type, h.Matcher, h.Command, h.Location.File, h.Location.Line, h.Location.Column)
}

func findingLine(f report.Finding) string {
	return fmt.Sprintf("%s %s %s:%d:%d", f.Severity, f.Rule, f.Location.File, f.Location.Line, f.Location.Column)
}

// findingLines is findingLine of each finding, sorted.
func findingLines(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, findingLine(f))
	}
	sort.Strings(out)
	return out
}

func TestDiscoverEverySource(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{
  "permissions": {"allow": []},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo project"}]}
    ]
  }
}`,
		".claude/settings.local.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "echo local", "timeout": 5}
]}]}}`,
		".claude-plugin/marketplace.json": `{
  "name": "example-market",
  "owner": {"name": "someone"},
  "plugins": [
    {"name": "inline", "source": "./plugins/inline"},
    {"name": "pathy", "source": "./plugins/pathy"},
    {"name": "default-file", "source": "./plugins/default-file"},
    {"name": "remote", "source": {"source": "github", "repo": "owner/repo"}},
    {"name": "from-entry", "source": "./plugins/from-entry",
     "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo entry"}]}]}}
  ]
}`,
		"plugins/inline/.claude-plugin/plugin.json": `{"name": "inline-plugin",
  "hooks": {"PostToolUse": [{"matcher": "Edit|Write", "hooks": [
    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/fmt.sh"},
    {"type": "http", "url": "https://hooks.example.test/x"},
    {"type": "prompt", "prompt": "is this ok?"}
  ]}]}}`,
		"plugins/inline/fmt.sh":                    "#!/bin/sh\nexit 0\n",
		"plugins/pathy/.claude-plugin/plugin.json": `{"name": "pathy", "hooks": "./config/my-hooks.json"}`,
		"plugins/pathy/config/my-hooks.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "agent", "prompt": "check"},
  {"type": "mcp_tool", "server": "s", "tool": "t"},
  {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/check.py"}
]}]}}`,
		"plugins/pathy/check.py":                "print('ok')\n",
		"plugins/default-file/hooks/hooks.json": `{"description": "d", "hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/n.sh\""}]}]}}`,
		"plugins/default-file/n.sh":             "#!/bin/sh\n",
		"plugins/from-entry/README.md":          "no manifest here\n",
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, hookLine(h))
	}
	want := []string{
		`.claude-plugin/marketplace.json#plugins[from-entry].hooks.SessionStart[0].hooks[0] plugin=from-entry root=plugins/from-entry type=command matcher="" cmd="echo entry" at=.claude-plugin/marketplace.json:10:75`,
		`.claude/settings.json#hooks.PreToolUse[0].hooks[0] plugin=project root=. type=command matcher="Bash" cmd="echo project" at=.claude/settings.json:5:68`,
		`.claude/settings.local.json#hooks.Stop[0].hooks[0] plugin=project-local root=. type=command matcher="" cmd="echo local" at=.claude/settings.local.json:2:34`,
		`plugins/default-file/hooks/hooks.json#hooks.Notification[0].hooks[0] plugin=default-file root=plugins/default-file type=command matcher="" cmd="bash \"${CLAUDE_PLUGIN_ROOT}/n.sh\"" at=plugins/default-file/hooks/hooks.json:1:106`,
		`plugins/inline/.claude-plugin/plugin.json#hooks.PostToolUse[0].hooks[0] plugin=inline-plugin root=plugins/inline type=command matcher="Edit|Write" cmd="${CLAUDE_PLUGIN_ROOT}/fmt.sh" at=plugins/inline/.claude-plugin/plugin.json:3:36`,
		`plugins/inline/.claude-plugin/plugin.json#hooks.PostToolUse[0].hooks[1] plugin=inline-plugin root=plugins/inline type=http matcher="Edit|Write" cmd="" at=plugins/inline/.claude-plugin/plugin.json:4:5`,
		`plugins/inline/.claude-plugin/plugin.json#hooks.PostToolUse[0].hooks[2] plugin=inline-plugin root=plugins/inline type=prompt matcher="Edit|Write" cmd="" at=plugins/inline/.claude-plugin/plugin.json:5:5`,
		`plugins/pathy/config/my-hooks.json#hooks.UserPromptSubmit[0].hooks[0] plugin=pathy root=plugins/pathy type=agent matcher="" cmd="" at=plugins/pathy/config/my-hooks.json:2:3`,
		`plugins/pathy/config/my-hooks.json#hooks.UserPromptSubmit[0].hooks[1] plugin=pathy root=plugins/pathy type=mcp_tool matcher="" cmd="" at=plugins/pathy/config/my-hooks.json:3:3`,
		`plugins/pathy/config/my-hooks.json#hooks.UserPromptSubmit[0].hooks[2] plugin=pathy root=plugins/pathy type=command matcher="" cmd="python3 ${CLAUDE_PLUGIN_ROOT}/check.py" at=plugins/pathy/config/my-hooks.json:4:34`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	finds := findingLines(s.findings)
	wantF := []string{
		"notice discovery/not-executable plugins/inline/.claude-plugin/plugin.json:5:5",
		"notice discovery/not-executable plugins/pathy/config/my-hooks.json:2:3",
		"notice discovery/not-executable plugins/pathy/config/my-hooks.json:3:3",
		"notice discovery/remote-source .claude-plugin/marketplace.json:8:34",
		"warning discovery/not-executable plugins/inline/.claude-plugin/plugin.json:4:5", // an http hook's
	}
	if diff := cmp.Diff(wantF, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}

	// Expansion and timeouts.
	byID := map[string]*Hook{}
	for _, h := range s.hooks {
		byID[h.ID] = h
	}
	fmtHook := byID["plugins/inline/.claude-plugin/plugin.json#hooks.PostToolUse[0].hooks[0]"]
	if want := dir + "/plugins/inline/fmt.sh"; fmtHook.Expanded != want {
		t.Errorf("expanded = %q, want %q", fmtHook.Expanded, want)
	}
	local := byID[".claude/settings.local.json#hooks.Stop[0].hooks[0]"]
	if local.Timeout != 5*time.Second {
		t.Errorf("timeout = %v, want 5s", local.Timeout)
	}
}

func TestDiscoverMalformed(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string // severity rule file:line:col
		msg   string   // a fragment of the first finding's message
	}{
		{
			name:  "bad JSON",
			files: map[string]string{"hooks/hooks.json": "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n"},
			want:  []string{"error discovery/malformed hooks/hooks.json:3:14"},
			msg:   "not valid JSON",
		},
		{
			name:  "trailing garbage",
			files: map[string]string{".claude/settings.json": "{}\n}"},
			want:  []string{"error discovery/malformed .claude/settings.json:2:1"},
		},
		{
			name:  "hooks not an object",
			files: map[string]string{".claude/settings.json": `{"hooks": []}`},
			want:  []string{"error discovery/wrong-type .claude/settings.json:1:11"},
			msg:   "want an object keyed by event name",
		},
		{
			name:  "event not an array",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": {"hooks": []}}}`},
			want:  []string{"error discovery/wrong-type .claude/settings.json:1:20"},
		},
		{
			name:  "command not a string",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ["ls"]}]}]}}`},
			want:  []string{"error discovery/wrong-type .claude/settings.json:1:63"},
			msg:   "command: want a string",
		},
		{
			name:  "timeout not a number",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "ls", "timeout": "5"}]}]}}`},
			want:  []string{"error discovery/wrong-type .claude/settings.json:1:80"},
		},
		{
			name:  "matcher not a string",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": 3, "hooks": []}]}}`},
			want:  []string{"error discovery/wrong-type .claude/settings.json:1:39"},
		},
		{
			name:  "invalid matcher regex",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"error discovery/invalid-matcher .claude/settings.json:1:39"},
			msg:   "never matches",
		},
		{
			name:  "missing script",
			files: map[string]string{"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/gone.sh --flag"}]}]}}`},
			want:  []string{"error discovery/missing-script hooks/hooks.json:1:63"},
			msg:   "gone.sh does not exist",
		},
		{
			// The shell reads ~ as the user's home: no path of the tree.
			name:  "a script in the home directory",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 ~/.claude/hooks/stop.py && ~/.claude/hooks/a.sh"}]}]}}`},
		},
		{
			name:  "missing interpreter script",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/scripts/x.py"}]}]}}`},
			want:  []string{"error discovery/missing-script .claude/settings.json:1:63"},
		},
		{
			name:  "deno run's missing script, not run",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "deno run -A scripts/x.ts"}]}]}}`},
			want:  []string{"error discovery/missing-script .claude/settings.json:1:63"},
			msg:   "hook script scripts/x.ts does not exist",
		},
		{
			name:  "bun run of a package.json script",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bun run lint"}]}]}}`},
		},
		{
			name:  "missing script of uv run",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "FOO=a/b uv run --quiet check.py"}]}]}}`},
			want:  []string{"error discovery/missing-script .claude/settings.json:1:63"},
			msg:   "hook script check.py does not exist",
		},
		{
			name:  "missing hooks file",
			files: map[string]string{".claude-plugin/plugin.json": `{"name": "p", "hooks": "./nope.json"}`},
			want:  []string{"error discovery/missing-file .claude-plugin/plugin.json:1:24"},
		},
		{
			name: "a hooks path that names a directory",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "hooks": ["./more/"]}`,
				"more/x.json":                `{"hooks": {}}`,
			},
			want: []string{"error discovery/wrong-type .claude-plugin/plugin.json:1:25"},
			msg:  `hooks file "./more/" names a directory`,
		},
		{
			name: "a Gemini CLI extension's hooks",
			files: map[string]string{
				".claude/settings.json":                   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				"extensions/gemini/gemini-extension.json": `{"name": "x"}`,
				"extensions/gemini/hooks/hooks.json":      `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "node ${extensionPath}/x.mjs"}]}]}}`,
			},
			want: []string{"notice discovery/not-executable extensions/gemini/hooks/hooks.json:0:0"},
			msg:  "extensions/gemini is a Gemini CLI extension's",
		},
		{
			name: "an OpenAI Codex plugin's hooks, beside the Claude Code plugin of its name",
			files: map[string]string{
				".claude-plugin/marketplace.json":                  `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "and-then", "source": "./claude/plugins/and-then"}]}`,
				"claude/plugins/and-then/hooks/hooks.json":         `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				"codex/plugins/and-then/.codex-plugin/plugin.json": `{"name": "and-then"}`,
				"codex/plugins/and-then/hooks/hooks.json":          `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash ${PLUGIN_ROOT}/hooks/stop.sh"}]}]}}`,
			},
			want: []string{"notice discovery/not-executable codex/plugins/and-then/hooks/hooks.json:0:0"},
			msg:  "codex/plugins/and-then is an OpenAI Codex plugin's (.codex-plugin/plugin.json, no .claude-plugin/plugin.json)",
		},
		{
			name: "an OpenAI Codex plugin's directory a Claude Code marketplace lists",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "cx", "source": "./cx"}]}`,
				"cx/.codex-plugin/plugin.json":    `{"name": "cx"}`,
				"cx/hooks/hooks.json":             `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: nil,
		},
		{
			name: "a marketplace entry's hooks path",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p", "hooks": "./extra.json"}]}`,
				"p/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				"p/extra.json":                    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo extra"}]}]}}`,
			},
			want: []string{"error discovery/wrong-type .claude-plugin/marketplace.json:1:91"},
			msg:  "plugins[p].hooks: a marketplace entry's hooks may be an inline hooks object only",
		},
		{
			name: "a required option with no default",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "userConfig": {"API_TOKEN": {"type": "string", "required": true, "sensitive": true}, "REGION": {"type": "string", "required": true, "default": "eu"}, "DEBUG": {"type": "boolean"}}}`,
				"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"notice discovery/unset-option .claude-plugin/plugin.json:1:30"},
			msg:  "plugin p's option API_TOKEN is required and has no default: Claude Code asks the user for it and gives its hooks the value (CLAUDE_PLUGIN_OPTION_API_TOKEN), and vigiles runs them without it",
		},
		{
			name: "a plugin's hooks.json where Claude Code does not read it",
			files: map[string]string{
				"plugins/b/.claude-plugin/plugin.json": `{"name": "b"}`,
				"plugins/b/hooks.json":                 `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "npm install -g agent-browser"}]}]}}`,
				"plugins/c/.claude-plugin/plugin.json": `{"name": "c", "hooks": "./hooks.json"}`,
				"plugins/c/hooks.json":                 `{"hooks": {}}`,
			},
			want: []string{"warning discovery/missing-file plugins/b/hooks.json:0:0"},
			msg:  "plugins/b/hooks.json is not where Claude Code reads a plugin's hooks",
		},
		{
			name: "a hooks path written from .claude-plugin/",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "hooks": "hooks.json"}`,
				".claude-plugin/hooks.json":  `{"hooks": {}}`,
			},
			want: []string{"error discovery/missing-file .claude-plugin/plugin.json:1:24"},
			msg:  `hooks file "hooks.json" not found (resolved against the plugin root); written from .claude-plugin/, it names .claude-plugin/hooks.json, which is there: Claude Code reads a manifest's paths from the plugin's directory, so write "./.claude-plugin/hooks.json"`,
		},
		{
			name: "a hooks path written from .claude-plugin/, to a file that declares hooks",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "hooks": "./hooks.json"}`,
				".claude-plugin/hooks.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			// One mistake, one finding: the error names the file and how to
			// write its path; no warning beside it that nothing names it.
			want: []string{"error discovery/missing-file .claude-plugin/plugin.json:1:24"},
			msg:  `written from .claude-plugin/, it names .claude-plugin/hooks.json, which is there`,
		},
		{
			name: "a hooks path written from .claude-plugin/ that leaves the plugin, to a file that declares hooks",
			files: map[string]string{
				"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": "../hooks.json"}`,
				"p/hooks.json":                 `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"error discovery/escapes-plugin p/.claude-plugin/plugin.json:1:24"},
			msg:  `written from .claude-plugin/, it names the plugin's own hooks.json`,
		},
		{
			name: "a plugin's hooks file in GitHub Copilot CLI's form",
			files: map[string]string{
				"copilot/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"copilot/p/hooks/hooks.json":           "{\n  \"version\": 1,\n  \"hooks\": {\"preToolUse\": [{\"type\": \"command\", \"bash\": \"bash ${COPILOT_PLUGIN_ROOT}/a.sh\"}], \"postToolUse\": [{\"type\": \"command\", \"bash\": \"true\"}]}\n}\n",
			},
			// One notice for the file, not an unknown-event warning and a
			// malformed error for each of its events.
			want: []string{"notice discovery/not-executable copilot/p/hooks/hooks.json:1:1"},
			msg:  `copilot/p/hooks/hooks.json is a hooks file in another agent's form, not Claude Code's: a top-level "version" and events in lower camel case (preToolUse, postToolUse), as GitHub Copilot CLI and Cursor write theirs; Claude Code knows none of these events and runs none of its hooks`,
		},
		{
			name: "a plugin's hooks file in Cursor's form, with more events than it names",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p"}`,
				"hooks/hooks.json":           `{"version": 1, "hooks": {"beforeSubmitPrompt": [{"command": "./a.sh"}], "preToolUse": [{"command": "./b.sh", "matcher": "Bash"}], "postToolUse": [{"command": "./c.sh"}], "stop": [{"command": "./d.sh"}], "afterFileEdit": [{"command": "./e.sh"}]}}`,
			},
			want: []string{"notice discovery/not-executable hooks/hooks.json:1:1"},
			msg:  "(beforeSubmitPrompt, preToolUse, postToolUse and 2 more)",
		},
		{
			name: "a hooks file with a version and an event Claude Code knows",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p"}`,
				"hooks/hooks.json":           `{"version": 1, "hooks": {"preToolUse": [{"command": "./b.sh"}], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			// Claude Code's form, with a mistake in it: read as it is.
			want: []string{"warning discovery/unknown-event hooks/hooks.json:1:26", "error discovery/malformed hooks/hooks.json:1:41"},
			msg:  `hook event "preToolUse" is an event vigiles does not know`,
		},
		{
			name: "an installer's profiles in hooks/hooks.json",
			files: map[string]string{
				".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				"hooks/hooks.json":      `{"essential": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo e"}]}]}, "statusLine": {}}, "full": {"hooks": {"PreToolUse": []}}}`,
			},
			want: []string{"notice discovery/not-executable hooks/hooks.json:0:0"},
			msg:  `hooks/hooks.json has no "hooks" at its top but hooks one level down (essential.hooks, full.hooks): an installer's profiles`,
		},
		{
			// A skill of plugin core that plugin all, whose directory is
			// the repository's, carries too: there ${CLAUDE_PLUGIN_ROOT}
			// is all's directory.
			name: "a skill's script named from another plugin's root",
			files: map[string]string{
				".claude-plugin/plugin.json":              `{"name": "all", "skills": ["./plugins/core/skills/sec"]}`,
				"plugins/core/.claude-plugin/plugin.json": `{"name": "core"}`,
				"plugins/core/skills/sec/SKILL.md":        "---\nname: sec\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: \"${CLAUDE_PLUGIN_ROOT}/skills/sec/hooks/scan.sh\"}]\n---\nA skill.\n",
				"plugins/core/skills/sec/hooks/scan.sh":   "#!/bin/sh\n",
			},
			want: []string{"error discovery/missing-script plugins/core/skills/sec/SKILL.md:6:40"},
			msg:  "hook script skills/sec/hooks/scan.sh does not exist: the hook fails every time it runs; the tree has plugins/core/skills/sec/hooks/scan.sh: the path is read from plugin all's directory ., which ${CLAUDE_PLUGIN_ROOT} names here, not from where the file is",
		},
		{
			name: "a marketplace's plugin in a submodule not checked out",
			files: map[string]string{
				".gitmodules":                     "[submodule \"sdk\"]\n\tpath = sdk-bridge\n\turl = https://git.example.test/sdk.git\n",
				"sdk-bridge/":                     "",
				".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "sdk", "source": "./sdk-bridge"}]}`,
			},
			want: []string{"error discovery/missing-file .claude-plugin/marketplace.json:1:77"},
			msg:  `plugins[0] (sdk): local source "./sdk-bridge" is in the git submodule sdk-bridge, which this checkout has not checked out`,
		},
		{
			name:  "settings env that sends model traffic elsewhere",
			files: map[string]string{".claude/settings.json": `{"env": {"ANTHROPIC_BASE_URL": "https://api.relay.example.test/anthropic", "DEBUG": "1"}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/settings-env .claude/settings.json:1:10"},
			msg:   `.claude/settings.json sets ANTHROPIC_BASE_URL to "https://api.relay.example.test/anthropic" in its env, which Claude Code sets in every session in the project: it sends every model request of the session, prompts, code and the credential it carries, to that host`,
		},
		{
			name: "a marketplace's plugin below a submodule not checked out",
			files: map[string]string{
				".gitmodules":                     "[submodule \"v\"]\n\tpath = vendor/sub\n",
				"vendor/sub/":                     "",
				".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "x", "source": "./vendor/sub/plugins/x"}]}`,
			},
			want: []string{"error discovery/missing-file .claude-plugin/marketplace.json:1:75"},
			msg:  `plugins[0] (x): local source "./vendor/sub/plugins/x" is in the git submodule vendor/sub, which this checkout has not checked out`,
		},
		{
			name: "a tree that is a Gemini CLI extension",
			files: map[string]string{
				"gemini-extension.json": `{"name": "x"}`,
				"hooks/hooks.json":      `{"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"notice discovery/not-executable hooks/hooks.json:0:0"},
			msg:  ". is a Gemini CLI extension's",
		},
		{
			name:  "a matcher that means a negation",
			files: map[string]string{".claude/settings.json": `{"hooks": {"SubagentStop": [{"matcher": "!quoth-memory", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/invalid-matcher .claude/settings.json:1:41"},
			msg:   `SubagentStop[0].matcher "!quoth-memory": Claude Code has no negation in a matcher`,
		},
		{
			// A valid regular expression that no tool's name can match:
			// Claude Code never runs the hook.
			name:  "a matcher written as a permission rule",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash(git status:*)", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Bash(Output)", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "mcp__gh__(.*)", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/invalid-matcher .claude/settings.json:1:39"},
			msg:   `PreToolUse[0].matcher "Bash(git status:*)" matches no tool Claude Code has: it reads the matcher as a regular expression of the tool's name, which this matches only where the name holds "Bashgit status"`,
		},
		{
			// Nothing of an entry that is no array runs: the
			// unknown-event warning says so, not that its hooks run.
			name:  "an unknown event whose value is an object",
			files: map[string]string{".claude/settings.json": `{"hooks": {"preEditHook": {"command": "npx", "args": ["x"]}}}`},
			want:  []string{"warning discovery/unknown-event .claude/settings.json:1:12", "error discovery/wrong-type .claude/settings.json:1:27"},
			msg:   `hook event "preEditHook" is an event vigiles does not know (no event of Claude Code's is named in lower camel case: another agent's name, GitHub Copilot CLI's or Cursor's, or a typo): vigiles has no payload for it, and its value is an object, not an array of matcher groups, so no hook of it runs (known: `,
		},
		{
			// Tool-name characters only, yet no tool is so named: the
			// hook never runs all the same.
			name:  "a matcher written as a permission rule of name characters",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Skill(prp-execute)", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Task(Create|Get)", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Mine(x)", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/invalid-matcher .claude/settings.json:1:39"},
			msg:   `PreToolUse[0].matcher "Skill(prp-execute)" matches no tool Claude Code has: it reads the matcher as a regular expression of the tool's name, which this matches only where the name holds "Skillprp-execute", and no tool Claude Code has holds it, so the hook never runs (vigiles lists it, not run); it reads as a permission rule`,
		},
		{
			// Claude Code sets ${CLAUDE_PLUGIN_ROOT} for plugins' and
			// skills' hooks only: a project settings file's is empty.
			name: "a project's settings hook that names the plugin root",
			files: map[string]string{
				".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/skills/s/v.sh"}]}]}}`,
				".claude/skills/s/v.sh": "#!/bin/sh\n",
			},
			want: []string{"error discovery/missing-script .claude/settings.json:1:63"},
			msg:  `the hook's command names ${CLAUDE_PLUGIN_ROOT}/skills/s/v.sh, and Claude Code sets ${CLAUDE_PLUGIN_ROOT} for a plugin's and a skill's hooks only: this hook is the project's, where it is empty, so the command runs /skills/s/v.sh, which no repository holds, and fails every time it runs; the project has .claude/skills/s/v.sh: name it "$CLAUDE_PROJECT_DIR"/.claude/skills/s/v.sh`,
		},
		{
			// A project skill's hooks get the skill's directory as
			// CLAUDE_PLUGIN_ROOT, which the shell expands: the path is
			// read from there.
			name: "a project skill's hook that names the plugin root",
			files: map[string]string{
				".claude/skills/s/SKILL.md": "---\nname: s\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: \"${CLAUDE_PLUGIN_ROOT}/skills/s/v.sh\"\n        - type: command\n          command: \"${CLAUDE_PLUGIN_ROOT}/v.sh\"\n---\nbody\n",
				".claude/skills/s/v.sh":     "#!/bin/sh\n",
			},
			want: []string{"error discovery/missing-script .claude/skills/s/SKILL.md:8:20"},
			msg:  `hook script .claude/skills/s/skills/s/v.sh does not exist`,
		},
		{
			name:  "a matcher that misspells a tool",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bahs", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "bash|Write", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Bash|mcp__x__y|MyTool", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/invalid-matcher .claude/settings.json:1:39", "warning discovery/invalid-matcher .claude/settings.json:1:111"},
			msg:   `PreToolUse[0].matcher names "Bahs", which is no tool of Claude Code's: did you mean "Bash"?`,
		},
		{
			name:  "a negation of a group",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PostToolUse": [{"matcher": "!(Grep|Glob|Read)", "hooks": [{"type": "command", "command": "true"}]}, {"matcher": "Bash|bash", "hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/invalid-matcher .claude/settings.json:1:40"},
			msg:   `PostToolUse[0].matcher "!(Grep|Glob|Read)": Claude Code has no negation in a matcher`,
		},
		{
			name:  "a prompt hook where only command hooks run",
			files: map[string]string{".claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "prompt", "prompt": "BLOCKED unless approved"}]}]}}`},
			want:  []string{"warning discovery/not-executable .claude/settings.json:1:40"},
			msg:   `prompt hook on SessionStart, where Claude Code runs command and mcp_tool hooks only, no prompt or agent hook (the hooks reference, "Prompt-based hooks"), so it never runs and guards nothing`,
		},
		{
			name:  "a prompt hook where it runs",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "done?"}]}]}}`},
			want:  []string{"notice discovery/not-executable .claude/settings.json:1:32"},
		},
		{
			// Claude Code's schema refuses the file: none of it runs.
			name:  "events at a hooks file's top level",
			files: map[string]string{"hooks/hooks.json": `{"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}`},
			want:  []string{"error discovery/malformed hooks/hooks.json:1:1"},
			msg:   `hooks/hooks.json has events at the top level (Stop): Claude Code wants them under "hooks" and refuses the file`,
		},
		{
			name: "the standard hooks file named again",
			files: map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "hooks": "./hooks/hooks.json"}`,
				"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"error discovery/malformed .claude-plugin/plugin.json:1:24"},
			msg:  `hooks file "./hooks/hooks.json" is the plugin's standard hooks/hooks.json, which Claude Code loads by itself: naming it again is a plugin error ("Hook load failed: Duplicate hooks file detected"), and recent versions fail the whole plugin to load`,
		},
		{
			// Claude Code loads no manifest path that leaves the plugin's
			// directory, though the file is in the repository: vigiles
			// does not run it either.
			name: "hooks file outside the plugin",
			files: map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": "../hooks/hooks.json"}`,
				"plugins/hooks/hooks.json":             `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"error discovery/escapes-plugin plugins/p/.claude-plugin/plugin.json:1:24"},
			msg:  `hooks file "../hooks/hooks.json" leaves the plugin's directory plugins/p`,
		},
		{
			// Written from .claude-plugin/: the plugin's own standard
			// file, which Claude Code loads by itself.
			name: "hooks file written from the manifest's directory",
			files: map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": "../hooks/hooks.json"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			},
			want: []string{"error discovery/escapes-plugin plugins/p/.claude-plugin/plugin.json:1:24"},
			msg:  `none of it loads and vigiles does not run it; written from .claude-plugin/, it names the plugin's own hooks/hooks.json, which Claude Code loads by itself: remove it from the manifest`,
		},
		{
			name:  "no type",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"command": "ls"}]}]}}`},
			want:  []string{"error discovery/malformed .claude/settings.json:1:32"},
		},
		{
			name:  "unknown type",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "shell", "command": "ls"}]}]}}`},
			want:  []string{"error discovery/malformed .claude/settings.json:1:61"},
		},
		{
			name:  "unknown event",
			files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUze": [{"hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"warning discovery/unknown-event .claude/settings.json:1:12"},
		},
		{
			name:  "marketplace source missing",
			files: map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "x", "source": "./plugins/x"}]}`},
			want:  []string{"error discovery/missing-file .claude-plugin/marketplace.json:1:51"},
		},
		{
			name:  "marketplace source escapes the tree",
			files: map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "x", "source": "../.."}]}`},
			want:  []string{"error discovery/outside-work-tree .claude-plugin/marketplace.json:1:51"},
		},
		{
			name:  "group without hooks",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"matcher": ""}]}}`},
			want:  []string{"error discovery/malformed .claude/settings.json:1:21"},
		},
		{
			name:  "not UTF-8",
			files: map[string]string{".claude/settings.json": "{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo \xff\"}]}]}}"},
			want:  []string{"error discovery/malformed .claude/settings.json:1:63"},
		},
		{
			name:  "NUL in command",
			files: map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo \u0000 hi"}]}]}}`},
			want:  []string{"error discovery/malformed .claude/settings.json:1:63"},
		},
		{
			name:  "empty event name",
			files: map[string]string{".claude/settings.json": `{"hooks": {"": [{"hooks": [{"type": "command", "command": "true"}]}]}}`},
			want:  []string{"error discovery/malformed .claude/settings.json:1:12"},
		},
		{
			name:  "empty file",
			files: map[string]string{"hooks/hooks.json": ""},
			want:  []string{"error discovery/malformed hooks/hooks.json:1:1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			s := discoverAll(t, dir)
			var got []string
			for _, f := range s.findings {
				got = append(got, findingLine(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
			if tc.msg != "" && !strings.Contains(s.findings[0].Message, tc.msg) {
				t.Errorf("message %q does not say %q", s.findings[0].Message, tc.msg)
			}
		})
	}
}

func TestShellWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`bash "${X}/a b.sh" --x`, []string{"bash", "${X}/a b.sh", "--x"}},
		{`python3 'x.py'; rm -rf /`, []string{"python3", "x.py"}},
		{`a\ b c|d`, []string{"a b", "c"}},
		{`FOO=1 node x.js`, []string{"FOO=1", "node", "x.js"}},
		// A file descriptor's number is no operand, nor is a comment.
		{`python3 x.py 2>&1`, []string{"python3", "x.py"}},
		{"# check\npython3 x.py", []string{"python3", "x.py"}},
		{``, nil},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, shellWords(tc.in)); diff != "" {
			t.Errorf("shellWords(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

func TestDeclaringFile(t *testing.T) {
	for id, want := range map[string]string{
		"plugins/a/hooks/hooks.json#hooks.Stop[0].hooks[0]":      "plugins/a/hooks/hooks.json",
		"odd#dir/.claude/settings.json#hooks.Stop[0].hooks[0]@x": "odd#dir/.claude/settings.json",
		"plugins/a/hooks.cfg#hooks.Stop[0].hooks[0]":             "plugins/a/hooks.cfg",
		"odd#dir/skills/f/SKILL.md#hooks.Stop[0].hooks[0]#2":     "odd#dir/skills/f/SKILL.md",
	} {
		if got := declaringFile(id); got != want {
			t.Errorf("declaringFile(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestDiscoveryStaysInTheRepository: a manifest that names files outside
// the repository (by "..", by an absolute path, or through a directory
// symlink) gets a finding; vigiles neither reads nor probes them.
func TestDiscoveryStaysInTheRepository(t *testing.T) {
	outside := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "outside", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo leaked"}]}]}}`,
		"hooks.json":                 `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo leaked too"}]}]}}`,
	})
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "climb", "hooks": ["../../../../../../../../` + strings.TrimPrefix(outside, "/") + `/hooks.json", "` + outside + `/hooks.json", "/no/such/host/file.json"]}`,
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
			{"name": "linked", "source": "./plugins/linked"}, {"name": "up", "source": "../"}]}`,
	})
	if err := os.MkdirAll(filepath.Join(dir, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "plugins", "linked")); err != nil {
		t.Fatal(err)
	}
	s := discoverAll(t, dir)
	for _, h := range s.hooks {
		if strings.Contains(h.Command, "leaked") {
			t.Errorf("a hook from outside the repository was read: %s", hookLine(h))
		}
	}
	outsideFindings := 0
	for _, f := range s.findings {
		if f.Rule == RuleMissingFile {
			t.Errorf("a host path was probed: %s %s", findingLine(f), f.Message)
		}
		if f.Rule == RuleOutsideTree || f.Rule == RuleEscapesPlugin {
			outsideFindings++
			if strings.HasPrefix(f.Location.File, "/") {
				t.Errorf("an outside finding anchored at a host path: %s", findingLine(f))
			}
		}
	}
	if outsideFindings < 5 {
		t.Errorf("%d outside-the-repository findings, want one per path and the symlinked plugin: %+v", outsideFindings, s.findings)
	}
}

// TestDiscoveryDoesNotRevealHostFiles: through a directory symlink that
// leads out of the repository, a hooks file, a hook script and a plugin
// source get the same findings whether their target on the host exists
// or not: the report says nothing about the host's files.
func TestDiscoveryDoesNotRevealHostFiles(t *testing.T) {
	outside := makeTree(t, map[string]string{
		"there.json": `{"hooks": {}}`,
		"there.sh":   "exit 0\n",
		"there/":     "",
	})
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": ["./link/there.json", "./link/nowhere.json", "./hooks/hooks.json"]}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [
			{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/link/there.sh"},
			{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/link/nowhere.sh"}]}]}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
			{"name": "p", "source": "./plugins/p"},
			{"name": "a", "source": "./plugins/p/link/there"}, {"name": "b", "source": "./plugins/p/link/nowhere"}]}`,
	})
	if err := os.Symlink(outside, filepath.Join(dir, "plugins", "p", "link")); err != nil {
		t.Fatal(err)
	}
	s := discoverAll(t, dir)
	count := map[string]int{}
	for _, f := range s.findings {
		if !strings.Contains(f.Message, "link/") && !strings.Contains(f.Location.File, "link/") {
			continue
		}
		if f.Rule != RuleOutsideTree {
			t.Errorf("a host path was probed through the link: %s %s", findingLine(f), f.Message)
		}
		norm := strings.NewReplacer("nowhere", "X", "there", "X", `"a"`, "N", `"b"`, "N", "(a)", "(N)", "(b)", "(N)", "plugins[1]", "plugins[N]", "plugins[2]", "plugins[N]").Replace(f.Rule + " " + f.Location.File + " " + f.Message)
		count[norm]++
	}
	if len(count) == 0 {
		t.Fatal("no finding about the paths through the link")
	}
	for line, n := range count {
		if n != 2 {
			t.Errorf("%d findings (want one for the path that exists outside and one for the path that does not): %s", n, line)
		}
	}
}

// TestPolicyLinkOutIsNotRead: a .vigiles.yml that is a symlink out of the
// repository is refused, not read as policy (its keys would be quoted
// back in findings); so is a baseline, read or written.
func TestPolicyLinkOutIsNotRead(t *testing.T) {
	host := makeTree(t, map[string]string{"host.yml": "version: 1\nsecret-token: hunter2\n"})
	dir := makeTree(t, nil)
	if err := os.Symlink(filepath.Join(host, "host.yml"), filepath.Join(dir, DefaultConfig)); err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Dir: dir}, {Dir: dir, Config: DefaultConfig}} {
		_, err := newSession(o, "audit")
		if !errors.Is(err, ErrOutsideTree) || strings.Contains(fmt.Sprint(err), "secret-token") {
			t.Errorf("config %q: err %v, want the link refused unread", o.Config, err)
		}
	}
	os.Remove(filepath.Join(dir, DefaultConfig))
	if err := os.Symlink(host, filepath.Join(dir, ".vigiles")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(host, "baseline.json"), []byte(`{"secret-token": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: ".vigiles/baseline.json", Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "secret-token") || f.Rule == RuleBaselineInvalid && !strings.Contains(f.Message, "outside the repository") {
			t.Errorf("the baseline behind the link was read: %s %s", findingLine(f), f.Message)
		}
	}
	before, _ := os.ReadFile(filepath.Join(host, "baseline.json"))
	if _, err := Audit(context.Background(), Options{Dir: dir, Baseline: ".vigiles/baseline.json", UpdateBaseline: true, Executor: fakeHooks()}); !errors.Is(err, ErrOutsideTree) {
		t.Errorf("--update-baseline through the link: err %v, want refused", err)
	}
	if after, _ := os.ReadFile(filepath.Join(host, "baseline.json")); string(after) != string(before) {
		t.Error("--update-baseline wrote through the link onto the host")
	}
}

// TestDiscoverySearchesBelowEachPath: an audit finds plugins below the
// paths it is given (a directory with .claude-plugin/plugin.json or
// hooks/hooks.json, or a marketplace), in name order, each once, without
// looking into dot-directories, node_modules or symbolic links; a path
// with no hook at all is an error finding, not a silent pass.
func TestDiscoverySearchesBelowEachPath(t *testing.T) {
	hook := func(event, cmd string) string {
		return fmt.Sprintf(`{"hooks": {%q: [{"hooks": [{"type": "command", "command": %q}]}]}}`, event, cmd)
	}
	outside := makeTree(t, map[string]string{"p/hooks/hooks.json": hook("Stop", "true outside")})
	dir := makeTree(t, map[string]string{
		"hooks/hooks.json":                                   hook("SessionStart", "true root"),
		"plugins/x/hooks/hooks.json":                         hook("Stop", "true x"),
		"plugins/x/node_modules/z/hooks/hooks.json":          hook("Stop", "true node_modules"),
		"plugins/nested/deeper/y/.claude-plugin/plugin.json": `{"name": "why", "hooks": ` + hook("Stop", "true y") + `}`,
		"vendor/m/.claude-plugin/marketplace.json":           `{"name": "m", "plugins": [{"name": "inline", "source": "./inline", "hooks": ` + hook("Stop", "true inline") + `}]}`,
		"vendor/m/inline/README.md":                          "no manifest\n",
		".hidden/q/hooks/hooks.json":                         hook("Stop", "true hidden"),
		".git/p/hooks/hooks.json":                            hook("Stop", "true git"),
		"docs/README.md":                                     "nothing here\n",
	})
	symlinks(t, dir, map[string]string{"linked": filepath.Join(outside, "p"), "inlink": filepath.Join(dir, "plugins/x"), "plugins/up": ".."})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{".", "plugins/nested/deeper/y", "plugins/x", "vendor/m/inline"}, d.Plugins); diff != "" {
		t.Errorf("plugin roots, in walk order (-want +got):\n%s", diff)
	}
	again, _ := ClaudeAdapter{}.Discover(dir, dir)
	if diff := cmp.Diff(d, again, cmp.AllowUnexported(Hook{})); diff != "" {
		t.Errorf("a second discovery differs:\n%s", diff)
	}
	for _, f := range d.Findings {
		t.Errorf("finding %s: %s", findingLine(f), f.Message)
	}

	commands := func(rep *report.Report) []string {
		var out []string
		for _, r := range rep.Runs {
			out = append(out, r.Plugin+": "+r.Command)
		}
		sort.Strings(out)
		return out
	}
	for _, tc := range []struct {
		paths []string
		want  []string
		empty []string
	}{
		{nil, []string{"inline: true inline", "why: true y", filepath.Base(dir) + ": true root", "x: true x"}, nil},
		{[]string{"plugins"}, []string{"why: true y", "x: true x"}, nil},
		{[]string{"plugins/x"}, []string{"x: true x"}, nil},
		// plugins/x/hooks is no plugin, but it holds the file that
		// declares x's hook: an audit of it runs that hook, as the
		// whole audit does.
		{[]string{"plugins/x", "plugins/x/hooks", "docs"}, []string{"x: true x"}, []string{"docs"}},
		{[]string{"plugins/x/hooks"}, []string{"x: true x"}, nil},
	} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Paths: tc.paths, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		sort.Strings(tc.want)
		if diff := cmp.Diff(tc.want, commands(rep)); diff != "" {
			t.Errorf("audit %v (-want +got):\n%s", tc.paths, diff)
		}
		var empty []string
		for _, f := range rep.Findings {
			if f.Rule == RuleNoHooks {
				empty = append(empty, f.Location.File)
				if f.Severity != report.SeverityError || !strings.Contains(f.Message, "no hooks were found under "+f.Location.File) {
					t.Errorf("%s: %s", findingLine(f), f.Message)
				}
			}
		}
		if diff := cmp.Diff(tc.empty, empty); diff != "" {
			t.Errorf("audit %v: paths without hooks (-want +got):\n%s", tc.paths, diff)
		}
		if (len(tc.empty) > 0) != (rep.Verdict == report.VerdictFail) {
			t.Errorf("audit %v: verdict %s", tc.paths, rep.Verdict)
		}
	}

	// A tree with no hook at all.
	bare := makeTree(t, map[string]string{"README.md": "hi\n"})
	rep, err := Audit(context.Background(), Options{Dir: bare, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictFail || len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleNoHooks ||
		rep.Findings[0].Location.File != "." || !strings.Contains(rep.Findings[0].Message, "no hooks were found in the work tree") {
		t.Errorf("audit of a tree without hooks: %s %+v", rep.Verdict, rep.Findings)
	}
}

// TestNoDeclarationIsShadowed: every hook Claude Code would run is run or
// reported. An event named twice in one object is read as JSON.parse reads
// it (the last array; the earlier one is a warning, since it never runs),
// and the inline hooks of every marketplace entry are read, whether the
// entry's directory was met before (the repository itself, another entry,
// the walk below the root) or not: before, the first declaration to take a
// hook ID or a plugin directory silently hid the others.
func TestNoDeclarationIsShadowed(t *testing.T) {
	stop := func(cmd string) string {
		return fmt.Sprintf(`{"Stop": [{"hooks": [{"type": "command", "command": %q}]}]}`, cmd)
	}
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "me"}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [
  {"name": "me", "source": "./", "hooks": ` + stop("echo self") + `},
  {"name": "good", "source": "./p", "hooks": ` + stop("echo good") + `},
  {"name": "evil", "source": "./p", "hooks": ` + stop("echo evil") + `},
  {"name": "twin", "source": "./p", "hooks": ` + stop("echo twin 1") + `},
  {"name": "twin", "source": "./p", "hooks": ` + stop("echo twin 2") + `}]}`,
		"p/README.md": "no manifest\n",
		"a/hooks/hooks.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo first"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo last"}]}]}}`,
		"z/.claude-plugin/marketplace.json": `{"name": "z", "plugins": [{"name": "a", "source": "../a", "hooks": ` + stop("echo from z") + `}]}`,
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, fmt.Sprintf("%s plugin=%s root=%s cmd=%q", h.ID, h.Plugin, h.PluginRoot, h.Command))
	}
	want := []string{
		`.claude-plugin/marketplace.json#plugins[evil].hooks.Stop[0].hooks[0] plugin=evil root=p cmd="echo evil"`,
		`.claude-plugin/marketplace.json#plugins[good].hooks.Stop[0].hooks[0] plugin=good root=p cmd="echo good"`,
		`.claude-plugin/marketplace.json#plugins[me].hooks.Stop[0].hooks[0] plugin=me root=. cmd="echo self"`,
		`.claude-plugin/marketplace.json#plugins[twin].hooks.Stop[0].hooks[0] plugin=twin root=p cmd="echo twin 1"`,
		`.claude-plugin/marketplace.json#plugins[twin].hooks.Stop[0].hooks[0]#2 plugin=twin root=p cmd="echo twin 2"`,
		`a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0] plugin=a root=a cmd="echo last"`,
		`z/.claude-plugin/marketplace.json#plugins[a].hooks.Stop[0].hooks[0] plugin=a root=a cmd="echo from z"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	var finds []string
	for _, f := range s.findings {
		finds = append(finds, findingLine(f)+" "+f.Message)
	}
	wantFinds := []string{`warning discovery/malformed a/hooks/hooks.json:2:3 event "PreToolUse" is declared again on line 3; Claude Code reads only the last one, so the hooks declared here never run: merge them into one "PreToolUse" array`}
	if diff := cmp.Diff(wantFinds, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestAbsoluteSourceIsNotUnderTheMarketplace: a marketplace source or
// pluginRoot written as an absolute path names that path (outside the
// repository), not a directory of the same name in the repository, which
// Claude Code would not load.
func TestAbsoluteSourceIsNotUnderTheMarketplace(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":     `{"name": "m", "plugins": [{"name": "abs", "source": "/p"}]}`,
		"p/hooks/hooks.json":                  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo decoy"}]}]}}`,
		"sub/.claude-plugin/marketplace.json": `{"name": "n", "metadata": {"pluginRoot": "/q"}, "plugins": [{"name": "rel", "source": "r"}]}`,
		"sub/q/r/README.md":                   "decoy\n",
	})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.Findings {
		got = append(got, findingLine(f))
	}
	want := []string{"error discovery/outside-work-tree .claude-plugin/marketplace.json:1:53", "error discovery/outside-work-tree sub/.claude-plugin/marketplace.json:1:87"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"p"}, d.Plugins); diff != "" {
		t.Errorf("plugins (-want +got): %s", diff)
	}
}

// TestManifestHooksListTakesObjects: a manifest's "hooks" list takes
// paths and inline hooks objects alike, as Claude Code's manifest schema
// does: the inline object's hooks are discovered and run, under an ID
// that names its place in the list; an entry of another kind is an error.
func TestManifestHooksListTakesObjects(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "hooks": ["./extra.json", {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo inline"}]}]}, 5, {"event": "SessionStart", "script": "x.sh"}]}`,
		"extra.json":                 `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo extra"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Runs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	want := []string{".claude-plugin/plugin.json#hooks[1].PreToolUse[0].hooks[0]@Bash", "extra.json#hooks.Stop[0].hooks[0]"}
	if !slices.Equal(ids, want) {
		t.Errorf("runs %q, want %q", ids, want)
	}
	var wrong []string
	for _, f := range rep.Findings {
		if f.Rule == RuleWrongType {
			wrong = append(wrong, f.Message)
		}
	}
	if len(wrong) != 2 || !strings.Contains(wrong[0], `"hooks" entries: want a path string or a hooks object, found a number`) ||
		!strings.Contains(wrong[1], `"hooks" entries: an object none of whose keys ("event", "script") is an event or "hooks"`) {
		t.Errorf("wrong-type findings %q", wrong)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleUnknownEvent {
			t.Errorf("an unknown-event finding for another tool's entry: %s", f.Message)
		}
	}
}

// TestBrokenSettingsFile: Claude Code skips a settings file entirely
// where a PreToolUse or PermissionRequest hook in it cannot be loaded (a
// wrong-typed handler, an event that is no array, such hooks declared
// outside "hooks", a "hooks" that is no object): the audit lists its
// hooks, runs none, gives no hook its env, and its disableAllHooks turns
// nothing off; the error says so. Another event's broken entry is
// ignored alone, and the rest of the file applies. The project's other
// settings file, without errors, is read as ever.
func TestBrokenSettingsFile(t *testing.T) {
	const rest = `"SessionStart": [{"hooks": [{"type": "command", "command": "true # start"}]}]`
	for _, tc := range []struct {
		name, settings string
		skipped        bool
		rule, finding  string
	}{
		{"a PostToolUse handler of the wrong type", `{"env": {"FOO": "bar"}, "hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # guard"}]}],
  "PostToolUse": [{"matcher": "Edit", "hooks": ["prettier --write"]}], ` + rest + `}}`, false, RuleWrongType, "PostToolUse[0].hooks[0]: want a hook handler object, found a string; Claude Code ignores this entry and applies the rest of the file"},
		{"a PreToolUse handler of the wrong type", `{"env": {"FOO": "bar"}, "disableAllHooks": true, "hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # guard"}, {"type": "command", "command": "x", "timeout": "5"}]}], ` + rest + `}}`, true, RuleWrongType, "timeout"},
		{"a PermissionRequest that is no array", `{"env": {"FOO": "bar"}, "hooks": {"PermissionRequest": {"matcher": "Bash"}, ` + rest + `}}`, true, RuleWrongType, "PermissionRequest: want an array of matcher groups"},
		{"PreToolUse outside hooks", `{"env": {"FOO": "bar"}, "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # guard"}]}], "hooks": {` + rest + `}}`, true, RuleMalformed, `"PreToolUse" is declared outside "hooks" (at the top level)`},
		{"hooks an array", `{"env": {"FOO": "bar"}, "hooks": [{"matcher": "Bash"}]}`, true, RuleWrongType, `"hooks": want an object keyed by event name, found an array`},
		{"a plugin's hooks file pasted whole", `{"env": {"FOO": "bar"}, "hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true # guard"}]}]}, ` + rest + `}}`, true, RuleMalformed, `"hooks" is no hook event, but it holds PreToolUse or PermissionRequest hooks`},
		{"a PreToolUse matcher null", `{"env": {"FOO": "bar"}, "hooks": {"PreToolUse": [{"matcher": null, "hooks": [{"type": "command", "command": "true # guard"}]}], ` + rest + `}}`, true, RuleWrongType, "PreToolUse[0].matcher: want a string (or no matcher key, which matches all), found null"},
		{"an unknown event that is no list", `{"env": {"FOO": "bar"}, "hooks": {"NoSuchEvent": "x", ` + rest + `}}`, false, RuleWrongType, "NoSuchEvent: want an array of matcher groups, found a string; Claude Code ignores this entry"},
		{"an unknown event holding a matcher group", `{"env": {"FOO": "bar"}, "hooks": {"Foo": {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}, ` + rest + `}}`, true, RuleMalformed, `"Foo" is no hook event, but it holds PreToolUse or PermissionRequest hooks`},
		{"a Stop that is no list but holds a guard", `{"env": {"FOO": "bar"}, "hooks": {"Stop": {"PreToolUse": [{"hooks": [{"type": "command", "command": "true"}]}]}, ` + rest + `}}`, true, RuleWrongType, "Stop: want an array of matcher groups, found an object"},
		{"a guard where a PostToolUse matcher group belongs", `{"env": {"FOO": "bar"}, "hooks": {"PostToolUse": [{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}], ` + rest + `}}`, true, RuleMalformed, "PostToolUse[0] holds PreToolUse or PermissionRequest hooks where a matcher group was expected"},
		{"PermissionRequest below another key", `{"env": {"FOO": "bar"}, "x": {"y": [{"PermissionRequest": [{"hooks": [{"type": "command", "command": "true"}]}]}]}, "hooks": {` + rest + `}}`, true, RuleMalformed, `"x" holds PreToolUse or PermissionRequest hooks outside "hooks"`},
		{"a guard under an env of another key", `{"env": {"FOO": "bar"}, "x": {"env": {"PreToolUse": [1]}}, "hooks": {` + rest + `}}`, false, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude/settings.json":                tc.settings,
				".claude/settings.local.json":          `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # stop"}]}]}}`,
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "true # plugin"}]}]}}`,
			})
			envs := map[string][]string{}
			exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
				envs[spec.Command[len(spec.Command)-1]] = spec.Env
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			}}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			reasons := map[string]string{}
			for _, r := range rep.Runs {
				reasons[r.Event] = r.Outcome + ": " + r.Reason
			}
			// The local file and the plugin run whatever the file says.
			for _, ev := range []string{Stop, Notification} {
				if reasons[ev] == "" || strings.Contains(reasons[ev], "listed, not run") {
					t.Errorf("%s: %q, want it run", ev, reasons[ev])
				}
			}
			for _, ev := range []string{PreToolUse, SessionStart} {
				skipped := strings.HasPrefix(reasons[ev], "not-executable: listed, not run: Claude Code skips .claude/settings.json entirely")
				if reasons[ev] != "" && skipped != tc.skipped {
					t.Errorf("%s: %q, want it skipped %v", ev, reasons[ev], tc.skipped)
				}
			}
			for cmd, env := range envs {
				if has := slices.Contains(env, "FOO=bar"); has == tc.skipped {
					t.Errorf("%s ran with env %q: the file's env given %v, want %v", cmd, env, has, !tc.skipped)
				}
			}
			var msgs []string
			for _, f := range rep.Findings {
				if f.Rule == tc.rule && f.Location.File == ".claude/settings.json" && f.Severity == report.SeverityError {
					msgs = append(msgs, f.Message)
				}
			}
			says := "Claude Code skips a settings file in which a PreToolUse or PermissionRequest hook cannot be loaded entirely"
			if tc.rule == "" {
				return
			}
			if len(msgs) != 1 || !strings.Contains(msgs[0], tc.finding) || strings.Contains(msgs[0], says) != tc.skipped {
				t.Errorf("%s findings %q: want one with %q, saying the file is skipped %v", tc.rule, msgs, tc.finding, tc.skipped)
			}
		})
	}
}
