package runner

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// stopHook is a frontmatter whose Stop hook runs cmd.
func stopHook(cmd string) string {
	return "---\ndescription: a command\nhooks:\n  Stop: [{hooks: [{type: command, command: " + cmd + "}]}]\n---\nBody.\n"
}

// TestDiscoverCommandHooks: the hooks a slash command declares in its
// frontmatter are discovered as a skill's are: in a plugin's commands/
// (below too, where a directory namespaces a command), at the paths its
// manifest or a marketplace entry names under "commands" (a file, a
// directory, a list, or the object form, whose "source" is a path and
// whose "content" is the markdown itself), and in the project's
// .claude/commands. A command's Stop stays Stop (no agent-stop notice),
// once is allowed, and no command hook carries an agent type.
func TestDiscoverCommandHooks(t *testing.T) {
	inline := `---\ndescription: inline\nhooks:\n  PreToolUse:\n    - matcher: Write\n      hooks: [{type: command, command: echo inline}]\n---\nBody.\n`
	dir := makeTree(t, map[string]string{
		"plugins/fmt/.claude-plugin/plugin.json": `{"name": "fmt", "commands": ["./extra/one.md", "./more/"]}`,
		"plugins/fmt/commands/fmt.md": "---\ndescription: Formats\nallowed-tools: Bash(gofmt:*)\nhooks:\n  PostToolUse:\n    - matcher: \"Edit|Write\"\n      hooks:\n" +
			"        - type: command\n          command: \"${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh\"\n          once: true\n---\nFormat $ARGUMENTS.\n",
		"plugins/fmt/scripts/fmt.sh":            "#!/bin/sh\n",
		"plugins/fmt/commands/git/commit.md":    stopHook("echo committed"),
		"plugins/fmt/commands/plain.md":         "---\ndescription: no hooks\n---\nbody\n",
		"plugins/fmt/commands/notes.txt":        stopHook("echo not a command"),
		"plugins/fmt/extra/one.md":              stopHook("echo one"),
		"plugins/fmt/more/deep/two.md":          stopHook("echo two"),
		"plugins/fmt/mapped/three.md":           stopHook("echo three"),
		".claude-plugin/marketplace.json":       `{"name": "m", "plugins": [{"name": "fmt", "source": "./plugins/fmt", "commands": {"three": {"source": "./mapped/three.md"}, "four": {"content": "` + inline + `", "description": "x"}}}]}`,
		".claude/commands/deploy.md":            "---\nhooks:\n  SessionStart:\n    - matcher: startup\n      hooks: [{type: command, command: \"$CLAUDE_PROJECT_DIR/ready.sh\"}]\n---\n",
		"ready.sh":                              "#!/bin/sh\n",
		".claude/commands/ops/release/notes.md": stopHook(`"echo released ${CLAUDE_PLUGIN_ROOT}"`),
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, fmt.Sprintf("%s event=%s agent=%q %s", h.ID, h.Event, h.AgentType, hookLine(h)[len(h.ID)+1:]))
	}
	want := []string{
		`.claude-plugin/marketplace.json#plugins[fmt].commands[four].hooks.PreToolUse[0].hooks[0] event=PreToolUse agent="" plugin=fmt root=plugins/fmt type=command matcher="Write" cmd="echo inline" at=.claude-plugin/marketplace.json:1:145`,
		`.claude/commands/deploy.md#hooks.SessionStart[0].hooks[0] event=SessionStart agent="" plugin=project root=. type=command matcher="startup" cmd="$CLAUDE_PROJECT_DIR/ready.sh" at=.claude/commands/deploy.md:5:40`,
		`.claude/commands/ops/release/notes.md#hooks.Stop[0].hooks[0] event=Stop agent="" plugin=project root=. type=command matcher="" cmd="echo released ${CLAUDE_PLUGIN_ROOT}" at=.claude/commands/ops/release/notes.md:4:44`,
		`plugins/fmt/commands/fmt.md#hooks.PostToolUse[0].hooks[0] event=PostToolUse agent="" plugin=fmt root=plugins/fmt type=command matcher="Edit|Write" cmd="${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh" at=plugins/fmt/commands/fmt.md:9:20`,
		`plugins/fmt/commands/git/commit.md#hooks.Stop[0].hooks[0] event=Stop agent="" plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo committed" at=plugins/fmt/commands/git/commit.md:4:44`,
		`plugins/fmt/extra/one.md#hooks.Stop[0].hooks[0] event=Stop agent="" plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo one" at=plugins/fmt/extra/one.md:4:44`,
		`plugins/fmt/mapped/three.md#hooks.Stop[0].hooks[0] event=Stop agent="" plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo three" at=plugins/fmt/mapped/three.md:4:44`,
		`plugins/fmt/more/deep/two.md#hooks.Stop[0].hooks[0] event=Stop agent="" plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo two" at=plugins/fmt/more/deep/two.md:4:44`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	if len(s.findings) != 0 {
		t.Errorf("findings: %v", findingLines(s.findings))
	}
	for _, h := range s.hooks {
		if h.ID == "plugins/fmt/commands/fmt.md#hooks.PostToolUse[0].hooks[0]" && (h.Expanded != dir+"/plugins/fmt/scripts/fmt.sh" || !h.InPlugin) {
			t.Errorf("plugin command hook: %+v", h)
		}
		if strings.HasPrefix(h.ID, ".claude/commands/ops/") && (h.InPlugin || h.Expanded != "echo released ${CLAUDE_PLUGIN_ROOT}") {
			t.Errorf("project command hook: %+v", h)
		}
	}
	for id, want := range map[string]string{
		"plugins/fmt/commands/git/commit.md#hooks.Stop[0].hooks[0]":                          "plugins/fmt/commands/git/commit.md",
		".claude-plugin/marketplace.json#plugins[fmt].commands[four].hooks.Stop[0].hooks[0]": ".claude-plugin/marketplace.json",
	} {
		if got := declaringFile(id); got != want {
			t.Errorf("declaringFile(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestCommandFrontmatterFindings: what is a finding in a skill's
// frontmatter is one in a command's, at the line to look at; a manifest's
// "commands" of the wrong shape is one at the value; an inline command's
// findings are placed at its "content" string.
func TestCommandFrontmatterFindings(t *testing.T) {
	cmdFile := "plugins/p/commands/c.md"
	manifest := "plugins/p/.claude-plugin/plugin.json"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
		msg   string
	}{
		{
			name:  "not YAML",
			files: map[string]string{cmdFile: "---\ndescription: c\nhooks:\n  Stop:\n    - hooks: [{type: command, command: echo\n---\n"},
			want:  []string{"error discovery/malformed " + cmdFile + ":5:5"},
			msg:   "the frontmatter is not valid YAML",
		},
		{
			name:  "repeated key",
			files: map[string]string{cmdFile: "---\nhooks:\n  Stop: [{hooks: [{type: command, command: a}]}]\n  Stop: []\n---\n"},
			want:  []string{"error discovery/malformed " + cmdFile + ":4:3"},
			msg:   `key "Stop" appears twice in the frontmatter (first on line 3)`,
		},
		{
			name:  "never closed",
			files: map[string]string{"plugins/p/commands/deep/c.md": "---\nhooks:\n  Stop: []\n"},
			want:  []string{"warning discovery/malformed plugins/p/commands/deep/c.md:1:1"},
			msg:   "never closed",
		},
		{
			name:  "once not a boolean",
			files: map[string]string{cmdFile: "---\nhooks:\n  Stop:\n    - hooks:\n        - {type: command, command: echo, once: 1}\n---\n"},
			want:  []string{"error discovery/wrong-type " + cmdFile + ":5:48"},
		},
		{
			name:  "manifest commands a number",
			files: map[string]string{manifest: `{"name": "p", "commands": 3}`},
			want:  []string{"error discovery/wrong-type " + manifest + ":1:27"},
			msg:   "want a path, a list of paths or an object of commands",
		},
		{
			name:  "manifest command path missing",
			files: map[string]string{manifest: `{"name": "p", "commands": ["./nope.md"]}`},
			want:  []string{"error discovery/missing-file " + manifest + ":1:28"},
		},
		{
			name:  "manifest command path outside",
			files: map[string]string{manifest: `{"name": "p", "commands": "../../../x.md"}`},
			want:  []string{"error discovery/escapes-plugin " + manifest + ":1:27"},
		},
		{
			name:  "command object not an object",
			files: map[string]string{manifest: `{"name": "p", "commands": {"a": "./a.md", "b": {"source": 1, "content": []}}}`},
			want: []string{"error discovery/wrong-type " + manifest + ":1:33", "error discovery/wrong-type " + manifest + ":1:59",
				"error discovery/wrong-type " + manifest + ":1:73"},
		},
		{
			name:  "inline content not YAML",
			files: map[string]string{manifest: `{"name": "p", "commands": {"a": {"content": "---\nhooks:\n  Stop:\n    - hooks: [{type: command\n---\n"}}}`},
			want:  []string{"error discovery/malformed " + manifest + ":1:45"},
			msg:   "vigiles reads none of its hooks",
		},
		{
			name:  "inline content repeats a key",
			files: map[string]string{manifest: `{"name": "p", "commands": {"a": {"content": "---\nhooks:\n  Stop: []\n  Stop: []\n---\n"}}}`},
			want:  []string{"error discovery/malformed " + manifest + ":1:45"},
			msg:   "(first on line 3 of the inline markdown)",
		},
		{
			name:  "inline content never closed",
			files: map[string]string{manifest: `{"name": "p", "commands": {"a": {"content": "---\nhooks:\n  Stop: []\n"}}}`},
			want:  []string{"warning discovery/malformed " + manifest + ":1:45"},
			msg:   "commands[a].content: the frontmatter of this inline command is never closed",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{manifest: `{"name": "p"}`}
			for k, v := range tc.files {
				files[k] = v
			}
			s := discoverAll(t, makeTree(t, files))
			if diff := cmp.Diff(tc.want, findingLines(s.findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
			if tc.msg != "" && !strings.Contains(s.findings[0].Message, tc.msg) {
				t.Errorf("message %q does not say %q", s.findings[0].Message, tc.msg)
			}
			if len(s.hooks) != 0 {
				t.Errorf("hooks read from a frontmatter Claude Code cannot read: %v", s.hooks)
			}
		})
	}
}

// TestCommandFrontmatterSymlinks: as for an agent, a command file that is
// a symbolic link is followed while it stays inside the repository (its
// hooks read under the link's name), a link to a directory below
// commands/ is not walked, and a commands directory that leads out of the
// repository is a finding, its target unread.
func TestCommandFrontmatterSymlinks(t *testing.T) {
	outside := makeTree(t, map[string]string{"c/x.md": stopHook("echo leaked")})
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {}}`,
		"plugins/p/real/cmd.md":      stopHook("echo behind a file link"),
		"plugins/p/shared/inner.md":  stopHook("echo behind a dir link"),
		"plugins/p/commands/own.md":  stopHook("echo own"),
		"plugins/q/hooks/hooks.json": `{"hooks": {}}`,
		".claude/":                   "",
	})
	symlinks(t, dir, map[string]string{
		"plugins/p/commands/linked.md": "../real/cmd.md",
		"plugins/p/commands/shared":    "../shared",
		"plugins/q/commands":           filepath.Join(outside, "c"),
		".claude/commands":             filepath.Join(outside, "c"),
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Command)
	}
	if diff := cmp.Diff([]string{"plugins/p/commands/linked.md#hooks.Stop[0].hooks[0] echo behind a file link", "plugins/p/commands/own.md#hooks.Stop[0].hooks[0] echo own"}, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	finds := findingMessages(s.findings)
	wantF := []string{
		"error discovery/outside-work-tree .claude/commands:0:0 .claude/commands is a symbolic link to " + outside + "/c, outside the repository" + outsideFix,
		"error discovery/outside-work-tree plugins/q/commands:0:0 plugins/q/commands is a symbolic link to " + outside + "/c, outside the repository" + outsideFix,
	}
	if diff := cmp.Diff(wantF, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestHostileCommandFrontmatterIsBounded: a command's frontmatter has the
// bounds a skill's has: aliases expand up to maxFrontmatterValues, only the
// first maxDeclFile bytes are read, and a long command with a short
// frontmatter is read.
func TestHostileCommandFrontmatterIsBounded(t *testing.T) {
	cmdFile := "plugins/p/commands/c.md"
	bomb := aliasBomb()
	tests := []struct {
		name, body string
		want       []string
		hooks      int
	}{
		{name: "alias bomb", body: bomb, want: []string{"error discovery/malformed " + cmdFile + ":34:14"}},
		{name: "frontmatter past the size read", body: "---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\n" + strings.Repeat("# still frontmatter\n", maxDeclFile/10),
			want: []string{"error discovery/malformed " + cmdFile + ":1:1"}},
		{name: "long command, short frontmatter", body: stopHook("echo") + strings.Repeat("words words words\n", maxDeclFile/9), hooks: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`, cmdFile: tc.body}))
			if diff := cmp.Diff(tc.want, findingLines(s.findings)); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if len(s.hooks) != tc.hooks {
				t.Errorf("%d hooks, want %d", len(s.hooks), tc.hooks)
			}
		})
	}
}

// TestProjectCommandHooksAreFound: a tree whose only hooks are in
// .claude/commands is not a tree without hooks, and the no-hooks finding
// of one that has none names the commands among the places looked at.
func TestProjectCommandHooksAreFound(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/commands/c.md": stopHook(`"true write:c.txt"`)})
	rep, err := Audit(t.Context(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].ID != ".claude/commands/c.md#hooks.Stop[0].hooks[0]" || rep.Runs[0].Event != Stop {
		t.Errorf("runs: %+v", rep.Runs)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleNoHooks {
			t.Errorf("a project command's hook is a hook: %s", f.Message)
		}
	}
	bare := makeTree(t, map[string]string{"README.md": "hi\n"})
	rep, err = Audit(t.Context(), Options{Dir: bare, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Message, "skills, agents and commands they hold") ||
		!strings.Contains(rep.Findings[0].Message, ".claude/commands/**/*.md") {
		t.Errorf("no-hooks finding does not name the commands: %+v", rep.Findings)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s", rep.Verdict)
	}
}
