package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestDiscoverFrontmatterHooks: the hooks a skill or an agent declares in
// its frontmatter are discovered as hooks of its plugin (or of the
// project), with ids that name the declaring file: in a plugin's skills/
// and agents/ (below too), at the paths its manifest or a marketplace
// entry names, and in the
// project's .claude/skills and .claude/agents. An agent's Stop runs as
// SubagentStop, and every hook of an agent knows the agent's type: its
// name, after the plugin's name and the directories below agents/ for a
// plugin's agent. A plugin's agent's hooks, which Claude Code ignores, are
// listed, not run, with one warning per agent at its hooks key; a
// project's agent's run. A file without frontmatter, a frontmatter without
// hooks and one that is not YAML but declares no hooks are nothing.
func TestDiscoverFrontmatterHooks(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/fmt/.claude-plugin/plugin.json": `{"name": "fmt", "skills": "./extra/skills/", "agents": ["./more/auditor.md", "./agents/"]}`,
		"plugins/fmt/skills/format/SKILL.md": `---
name: format
description: Formats files after an edit
hooks:
  PostToolUse:
    - matcher: "Edit|Write"
      hooks:
        - type: command
          command: "${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh"
          once: true
          timeout: 5
  PreToolUse:
    - matcher: Bash
      hooks:
        - {type: http, url: "https://hooks.example.test/x"}
---
# Format

A rule below is not a fence:
---
`,
		"plugins/fmt/scripts/fmt.sh":             "#!/bin/sh\nexit 0\n",
		"plugins/fmt/agents/reviewer.md":         "---\r\nname: reviewer\r\ndescription: Reviews a change\r\nhooks:\r\n  Stop:\r\n    - hooks:\r\n        - type: command\r\n          command: echo reviewed\r\n  PreToolUse:\r\n    - matcher: Read\r\n      hooks: [{type: command, command: echo reading}]\r\n---\r\nYou review.\r\n",
		"plugins/fmt/agents/team/lead.md":        "---\nname: chief\nhooks: {SubagentStop: [{hooks: [{type: command, command: echo lead}]}]}\n---\n",
		"plugins/fmt/agents/notes.txt":           "---\nhooks: {Stop: [{hooks: [{type: command, command: echo not an agent}]}]}\n---\n",
		"plugins/fmt/extra/skills/lint/SKILL.md": "\xef\xbb\xbf---\nname: lint\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo lint\n---\n",
		"plugins/fmt/more/auditor.md":            "---\nname: auditor\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo audited\n---\n",
		"plugins/fmt/entry/agent.md":             "---\nhooks: {Stop: [{hooks: [{type: command, command: echo entry}]}]}\n---\n",
		".claude-plugin/marketplace.json":        `{"name": "m", "plugins": [{"name": "fmt", "source": "./plugins/fmt", "agents": "./entry/agent.md"}]}`,
		"plugins/fmt/skills/plain/SKILL.md":      "---\nname: plain\ndescription: no hooks here\n---\nbody\n",
		"plugins/fmt/skills/nofm/SKILL.md":       "# Just markdown\n\nhooks: not frontmatter\n",
		"plugins/fmt/skills/colon/SKILL.md":      "---\nname: colon\ndescription: Use when: the YAML is not valid\n---\n",
		"plugins/fmt/skills/empty/SKILL.md":      "---\nname: empty\nhooks:\n---\n",
		".claude/skills/deploy/SKILL.md":         "---\nname: deploy\nhooks:\n  SessionStart:\n    - matcher: startup\n      hooks:\n        - type: command\n          command: \"$CLAUDE_PROJECT_DIR/scripts/ready.sh\"\n---\n",
		"scripts/ready.sh":                       "#!/bin/sh\n",
		".claude/agents/helper.md":               "---\nname: helper\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo helped ${CLAUDE_PLUGIN_ROOT}\n---\n",
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, fmt.Sprintf("%s event=%s agent=%s %s", h.ID, h.Event, h.AgentType, hookLine(h)[len(h.ID)+1:]))
	}
	want := []string{
		`.claude/agents/helper.md#hooks.Stop[0].hooks[0] event=SubagentStop agent=helper plugin=project root=. type=command matcher="" cmd="echo helped ${CLAUDE_PLUGIN_ROOT}" at=.claude/agents/helper.md:7:20`,
		`.claude/skills/deploy/SKILL.md#hooks.SessionStart[0].hooks[0] event=SessionStart agent= plugin=project root=. type=command matcher="startup" cmd="$CLAUDE_PROJECT_DIR/scripts/ready.sh" at=.claude/skills/deploy/SKILL.md:8:20`,
		`plugins/fmt/agents/reviewer.md#hooks.PreToolUse[0].hooks[0] event=PreToolUse agent=fmt:reviewer plugin=fmt root=plugins/fmt type=command matcher="Read" cmd="echo reading" at=plugins/fmt/agents/reviewer.md:11:40`,
		`plugins/fmt/agents/reviewer.md#hooks.Stop[0].hooks[0] event=SubagentStop agent=fmt:reviewer plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo reviewed" at=plugins/fmt/agents/reviewer.md:8:20`,
		`plugins/fmt/agents/team/lead.md#hooks.SubagentStop[0].hooks[0] event=SubagentStop agent=fmt:team:chief plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo lead" at=plugins/fmt/agents/team/lead.md:3:58`,
		`plugins/fmt/entry/agent.md#hooks.Stop[0].hooks[0] event=SubagentStop agent=fmt:agent plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo entry" at=plugins/fmt/entry/agent.md:2:50`,
		`plugins/fmt/extra/skills/lint/SKILL.md#hooks.Stop[0].hooks[0] event=Stop agent= plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo lint" at=plugins/fmt/extra/skills/lint/SKILL.md:7:20`,
		`plugins/fmt/more/auditor.md#hooks.Stop[0].hooks[0] event=SubagentStop agent=fmt:auditor plugin=fmt root=plugins/fmt type=command matcher="" cmd="echo audited" at=plugins/fmt/more/auditor.md:7:20`,
		`plugins/fmt/skills/format/SKILL.md#hooks.PostToolUse[0].hooks[0] event=PostToolUse agent= plugin=fmt root=plugins/fmt type=command matcher="Edit|Write" cmd="${CLAUDE_PLUGIN_ROOT}/scripts/fmt.sh" at=plugins/fmt/skills/format/SKILL.md:9:20`,
		`plugins/fmt/skills/format/SKILL.md#hooks.PreToolUse[0].hooks[0] event=PreToolUse agent= plugin=fmt root=plugins/fmt type=http matcher="Bash" cmd="" at=plugins/fmt/skills/format/SKILL.md:15:11`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	finds := findingLines(s.findings)
	wantF := []string{
		"notice discovery/agent-stop .claude/agents/helper.md:4:3",
		"warning discovery/not-executable plugins/fmt/agents/reviewer.md:4:1", // a plugin's agent's hooks, ignored
		"warning discovery/not-executable plugins/fmt/agents/team/lead.md:3:1",
		"warning discovery/not-executable plugins/fmt/entry/agent.md:2:1",
		"warning discovery/not-executable plugins/fmt/more/auditor.md:3:1",
		"warning discovery/not-executable plugins/fmt/skills/format/SKILL.md:15:11", // an http hook's
	}
	if diff := cmp.Diff(wantF, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
	}
	for _, f := range s.findings {
		if f.Rule == RuleAgentStop && !strings.Contains(f.Message, `SubagentStop's payload with agent_type "helper"`) {
			t.Errorf("agent-stop notice does not name the agent_type sent: %s", f.Message)
		}
		if f.Rule == RuleNotExecutable && strings.Contains(f.Location.File, "/agents/") && !strings.Contains(f.Message, "Claude Code ignores the hooks of a plugin's agent") {
			t.Errorf("a plugin agent's finding does not say Claude Code ignores its hooks: %s", f.Message)
		}
	}
	byID := map[string]*Hook{}
	for _, h := range s.hooks {
		byID[h.ID] = h
		plugAgent := h.InPlugin && h.AgentType != ""
		if plugAgent && (!strings.Contains(h.NotRun, "ignores the hooks of a plugin's agent") || h.Executable()) || !plugAgent && h.NotRun != "" {
			t.Errorf("%s: NotRun %q, executable %v; want a plugin agent's listed, not run, every other hook run", h.ID, h.NotRun, h.Executable())
		}
	}
	f := byID["plugins/fmt/skills/format/SKILL.md#hooks.PostToolUse[0].hooks[0]"]
	if f == nil || f.Expanded != dir+"/plugins/fmt/scripts/fmt.sh" || f.Timeout != 5*time.Second || !f.InPlugin {
		t.Errorf("skill hook: %+v", f)
	}
	// A project agent's hook is the project's: no plugin root to expand.
	if h := byID[".claude/agents/helper.md#hooks.Stop[0].hooks[0]"]; h == nil || h.InPlugin || h.Expanded != "echo helped ${CLAUDE_PLUGIN_ROOT}" {
		t.Errorf("project agent hook: %+v", h)
	}
}

// TestFrontmatterFindings: a frontmatter that declares hooks vigiles
// cannot read is a finding at the line to look at, never silence.
func TestFrontmatterFindings(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	tests := []struct {
		name  string
		files map[string]string
		want  []string // severity rule file:line:col
		msg   string   // a fragment of the first finding's message
	}{
		{
			name:  "not YAML",
			files: map[string]string{skill: "---\nname: s\nhooks:\n  Stop:\n    - hooks: [{type: command, command: echo\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":5:5"},
			msg:   "the frontmatter is not valid YAML",
		},
		{
			name:  "misindented",
			files: map[string]string{skill: "---\nname: s\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n       command: echo\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":7:8"},
			msg:   "not valid YAML",
		},
		{
			name:  "never closed",
			files: map[string]string{skill: "---\nname: s\nhooks:\n  Stop: []\n"},
			want:  []string{"warning discovery/malformed " + skill + ":1:1"},
			msg:   "never closed",
		},
		{
			name:  "hooks a list",
			files: map[string]string{skill: "---\nname: s\nhooks:\n  - Stop\n---\n"},
			want:  []string{"error discovery/wrong-type " + skill + ":4:3"},
			msg:   "want an object keyed by event name",
		},
		{
			name:  "handler without type",
			files: map[string]string{skill: "---\nhooks:\n  Stop:\n    - hooks:\n        - command: echo\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":5:11"},
			msg:   "has no \"type\"",
		},
		{
			name:  "timeout a string",
			files: map[string]string{skill: "---\nhooks:\n  Stop:\n    - hooks:\n        - {type: command, command: echo, timeout: \"5\"}\n---\n"},
			want:  []string{"error discovery/wrong-type " + skill + ":5:51"},
		},
		{
			name:  "once not a boolean",
			files: map[string]string{skill: "---\nhooks:\n  Stop:\n    - hooks:\n        - {type: command, command: echo, once: yes}\n---\n"},
			want:  []string{"error discovery/wrong-type " + skill + ":5:48"},
			msg:   "once: want true or false",
		},
		{
			name:  "repeated key",
			files: map[string]string{skill: "---\nname: s\nhooks:\n  Stop:\n    - hooks: [{type: command, command: echo a}]\n  Stop:\n    - hooks: [{type: command, command: echo b}]\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":6:3"},
			msg:   `key "Stop" appears twice in the frontmatter (first on line 4)`,
		},
		{
			name:  "repeated key outside hooks",
			files: map[string]string{skill: "---\nname: s\nname: t\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":3:1"},
		},
		{
			name:  "events at the top level",
			files: map[string]string{skill: "---\nname: s\nhooks:\nPreToolUse:\n  - hooks: [{type: command, command: echo}]\n---\n"},
			want:  []string{"warning discovery/malformed " + skill + ":4:1"},
			msg:   "indent them under hooks",
		},
		{
			name:  "merge key",
			files: map[string]string{skill: "---\nbase: &b {type: command}\nhooks:\n  Stop:\n    - hooks:\n        - <<: *b\n          command: echo\n---\n"},
			want:  []string{"error discovery/malformed " + skill + ":6:11"},
			msg:   "merge keys (<<) are not supported",
		},
		{
			name:  "unknown event",
			files: map[string]string{skill: "---\nhooks:\n  PreToolUze: [{hooks: [{type: command, command: echo}]}]\n---\n"},
			want:  []string{"warning discovery/unknown-event " + skill + ":3:3"},
		},
		{
			name:  "missing script",
			files: map[string]string{skill: "---\nhooks:\n  Stop: [{hooks: [{type: command, command: \"${CLAUDE_PLUGIN_ROOT}/gone.sh\"}]}]\n---\n", "plugins/p/hooks/hooks.json": `{"hooks": {}}`},
			want:  []string{"error discovery/missing-script " + skill + ":3:44"},
			msg:   "plugins/p/gone.sh does not exist",
		},
		{
			name:  "invalid matcher",
			files: map[string]string{skill: "---\nhooks:\n  PreToolUse: [{matcher: \"Bash(\", hooks: [{type: command, command: echo}]}]\n---\n"},
			want:  []string{"error discovery/invalid-matcher " + skill + ":3:26"},
		},
		{
			name:  "manifest skills a number",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "skills": 3, "agents": [true]}`},
			want:  []string{"error discovery/wrong-type plugins/p/.claude-plugin/plugin.json:1:25", "error discovery/wrong-type plugins/p/.claude-plugin/plugin.json:1:39"},
		},
		{
			name:  "manifest path missing",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "agents": "./nope/"}`},
			want:  []string{"error discovery/missing-file plugins/p/.claude-plugin/plugin.json:1:25"},
		},
		{
			name:  "manifest path outside",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "skills": ["../../.."]}`},
			want:  []string{"error discovery/escapes-plugin plugins/p/.claude-plugin/plugin.json:1:26"},
			msg:   `skills path "../../.." leaves the plugin's directory plugins/p`,
		},
		{
			name:  "manifest path outside the plugin, inside the repository",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "agents": "../shared/agents/"}`, "plugins/shared/agents/a.md": "---\nname: a\n---\n"},
			want:  []string{"error discovery/escapes-plugin plugins/p/.claude-plugin/plugin.json:1:25"},
			msg:   "none of it loads",
		},
		{
			name:  "manifest path written from the manifest's directory",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "commands": ["../commands/a.md"]}`, "plugins/p/commands/a.md": "# a\n"},
			want:  []string{"error discovery/escapes-plugin plugins/p/.claude-plugin/plugin.json:1:28"},
			msg:   `written from .claude-plugin/, it names the plugin's own commands/a.md: Claude Code reads a manifest's paths from the plugin's directory, so write "./commands/a.md"`,
		},
		{
			name:  "manifest path through the plugin and back",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "agents": "./x/../agents2/"}`, "plugins/p/agents2/a.md": "---\nname: a\n---\n"},
		},
		{
			name:  "manifest path not markdown",
			files: map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "agents": "./a.txt"}`, "plugins/p/a.txt": "x\n"},
			want:  []string{"error discovery/malformed plugins/p/.claude-plugin/plugin.json:1:25"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`}
			for k, v := range tc.files {
				files[k] = v
			}
			s := discoverAll(t, makeTree(t, files))
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
			if strings.Contains(tc.name, "YAML") || strings.Contains(tc.name, "repeated") || tc.name == "merge key" || tc.name == "never closed" {
				if len(s.hooks) != 0 {
					t.Errorf("hooks read from a frontmatter Claude Code cannot read: %v", s.hooks)
				}
			}
		})
	}
}

// TestFrontmatterSymlinks: as for a hooks file, a SKILL.md or an agent
// file that is a symbolic link is followed while it stays inside the
// repository, as Claude Code's reading of it follows it (its hooks are
// read under the link's name), a skill directory that is a link is
// looked through while it stays inside, and one that leads out is a
// finding, its target unread; a FIFO is no file to read (a finding).
func TestFrontmatterSymlinks(t *testing.T) {
	stop := func(cmd string) string {
		return "---\nhooks:\n  Stop: [{hooks: [{type: command, command: " + cmd + "}]}]\n---\n"
	}
	outside := makeTree(t, map[string]string{"s/SKILL.md": stop("echo leaked")})
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json":    `{"hooks": {}}`,
		"plugins/p/real/SKILL.md":       stop("echo behind a file link"),
		"plugins/p/real/agent.md":       stop("echo behind an agent link"),
		"plugins/p/shared/ok/SKILL.md":  stop("echo through a dir link"),
		"plugins/p/skills/linked/":      "",
		"plugins/p/agents/":             "",
		"plugins/p/skills/plain/x.txt":  "not a skill\n",
		"plugins/p/skills/own/SKILL.md": stop("echo own"),
	})
	symlinks(t, dir, map[string]string{
		"plugins/p/skills/linked/SKILL.md": "../../real/SKILL.md",
		"plugins/p/agents/a.md":            "../real/agent.md",
		"plugins/p/skills/through":         "../shared/ok",
		"plugins/p/skills/out":             filepath.Join(outside, "s"),
		"plugins/p/agents/f.md":            "../real/fifo",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "plugins/p/real/fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Command)
	}
	want := []string{
		"plugins/p/agents/a.md#hooks.Stop[0].hooks[0] echo behind an agent link",
		"plugins/p/skills/linked/SKILL.md#hooks.Stop[0].hooks[0] echo behind a file link",
		"plugins/p/skills/own/SKILL.md#hooks.Stop[0].hooks[0] echo own",
		"plugins/p/skills/through/SKILL.md#hooks.Stop[0].hooks[0] echo through a dir link",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	finds := findingMessages(s.findings)
	wantF := []string{
		"error discovery/malformed plugins/p/agents/f.md:0:0 plugins/p/agents/f.md is a FIFO, not a regular file",
		"error discovery/outside-work-tree plugins/p/skills/out/SKILL.md:0:0 plugins/p/skills/out/SKILL.md leads outside the repository through the symbolic link plugins/p/skills/out (-> " + outside + "/s)" + outsideFix,
		"warning discovery/not-executable plugins/p/agents/a.md:2:1 plugins/p/agents/a.md: Claude Code ignores the hooks of a plugin's agent (it reads hooks, mcpServers and permissionMode only from a project's or a user's agent), so none of those declared here runs and a guard here protects nothing; vigiles lists them and does not run them: move them to the plugin's hooks/hooks.json, or the agent to .claude/agents",
	}
	if diff := cmp.Diff(wantF, finds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestHostileFrontmatterIsBounded: a frontmatter built to be costly — a
// mapping of many repeated keys, aliases that expand exponentially or
// refer to themselves, a skill file far past the size vigiles reads — is
// read in one pass or refused with one finding; a long skill whose
// frontmatter is short is read. No time is asserted.
func TestHostileFrontmatterIsBounded(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	bomb := aliasBomb()

	var many strings.Builder
	many.WriteString("---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\nmetadata:\n")
	for many.Len() < maxDeclFile-100 {
		fmt.Fprintf(&many, "  k%d: v\n", many.Len())
	}
	many.WriteString("---\n")

	tests := []struct {
		name  string
		body  string
		want  []string
		msg   string
		hooks int
	}{
		{
			name: "repeated keys",
			body: "---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\nmetadata:\n" + strings.Repeat("  k: 1\n", 50000) + "---\n",
			want: []string{"error discovery/malformed " + skill + ":6:3"},
			msg:  `key "k" appears twice in the frontmatter (first on line 5)`,
		},
		{
			name: "alias bomb",
			body: bomb,
			want: []string{"error discovery/malformed " + skill + ":34:14"},
			msg:  fmt.Sprintf("more than %d values, aliases expanded", maxFrontmatterValues),
		},
		{
			name: "self-referring alias",
			body: "---\nhooks: &h\n  Stop: [{hooks: [{type: command, command: echo}]}]\n  Again: *h\n---\n",
			want: []string{"error discovery/malformed " + skill + ":4:10"},
			msg:  "nested deeper than",
		},
		{
			name:  "aliases within bounds",
			body:  "---\nh: &h [{type: command, command: echo same}]\nhooks:\n  Stop: [{hooks: *h}]\n  SessionEnd: [{hooks: *h}]\n---\n",
			hooks: 2,
		},
		{
			name:  "large distinct frontmatter",
			body:  many.String(),
			hooks: 1,
		},
		{
			name:  "long skill, short frontmatter",
			body:  "---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\n---\n" + strings.Repeat("words words words\n", maxDeclFile/9),
			hooks: 1,
		},
		{
			name: "frontmatter past the size read",
			body: "---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\n" + strings.Repeat("# still frontmatter\n", maxDeclFile/10),
			want: []string{"error discovery/malformed " + skill + ":1:1"},
			msg:  "not closed within the first 4194304 bytes",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`, skill: tc.body})
			start := time.Now()
			s := discoverAll(t, dir)
			t.Logf("%d bytes read in %v", len(tc.body), time.Since(start))
			var got []string
			for _, f := range s.findings {
				got = append(got, findingLine(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("findings (-want +got):\n%s", diff)
			}
			if tc.msg != "" && !strings.Contains(s.findings[0].Message, tc.msg) {
				t.Errorf("message %q does not say %q", s.findings[0].Message, tc.msg)
			}
			if len(fmt.Sprint(s.findings)) > 1000 {
				t.Errorf("findings of %d bytes", len(fmt.Sprint(s.findings)))
			}
			if len(s.hooks) != tc.hooks {
				t.Errorf("%d hooks, want %d", len(s.hooks), tc.hooks)
			}
		})
	}
}

// TestFrontmatterHooksAreAudited: an audit plans and runs a skill's, a
// project agent's and a command's frontmatter hooks with their events'
// payloads (an agent's Stop with SubagentStop's, whose agent_type is the
// agent's; a command's Stop with Stop's), under ids that name the
// declaring file. A plugin's agent's, which Claude Code ignores, is
// listed, not run.
func TestFrontmatterHooksAreAudited(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/skills/s/SKILL.md":          "---\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks: [{type: command, command: \"true host:skill.example.test\", once: true}]\n---\n",
		"plugins/p/agents/a.md":                "---\nhooks:\n  Stop:\n    - hooks: [{type: command, command: \"true write:agent.txt\"}]\n---\n",
		".claude/agents/a.md":                  "---\nhooks:\n  Stop:\n    - hooks: [{type: command, command: \"true write:project-agent.txt\"}]\n---\n",
		"plugins/p/commands/git/commit.md":     "---\ndescription: commits\nhooks:\n  Stop:\n    - hooks: [{type: command, command: \"true write:command.txt\", once: true}]\n---\n",
	})
	rep, err := Audit(t.Context(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Runs {
		got = append(got, fmt.Sprintf("%s %s %s %s", r.ID, r.Event, r.Tool, r.Outcome))
	}
	want := []string{
		".claude/agents/a.md#hooks.Stop[0].hooks[0]@a SubagentStop a allowed",
		"plugins/p/agents/a.md#hooks.Stop[0].hooks[0] SubagentStop  not-executable", // Claude Code ignores a plugin's agent's hooks
		"plugins/p/commands/git/commit.md#hooks.Stop[0].hooks[0] Stop  allowed",
		"plugins/p/skills/s/SKILL.md#hooks.PreToolUse[0].hooks[0]@Bash PreToolUse Bash allowed",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("finding %s: %s", findingLine(f), f.Message)
		}
	}
}

// TestFrontmatterHooksRunConfined: a skill's frontmatter hook, a project
// agent's Stop and a command's are run through the real sandbox, each with its
// event's payload on stdin (the agent's with its own agent_type); what
// they write is recorded and stays off the host.
func TestFrontmatterHooksRunConfined(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	const event = `grep -o '"hook_event_name":"[A-Za-z]*"'`
	const agent = `grep -o -e '"agent_type":"[^"]*"' -e '"hook_event_name":"[A-Za-z]*"'`
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/skills/s/SKILL.md": "---\nname: s\ndescription: marks its runs\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n" +
			"        - type: command\n          command: sh \"${CLAUDE_PLUGIN_ROOT}/skills/s/mark.sh\"\n          once: true\n---\nBody.\n",
		"plugins/p/skills/s/mark.sh": "#!/bin/sh\n" + event + " | tee skill-ran.txt\n",
		".claude/agents/a.md":        "---\nname: a\nhooks:\n  Stop:\n    - hooks: [{type: command, command: \"" + strings.ReplaceAll(agent, `"`, `\"`) + " | tee agent-ran.txt\"}]\n---\n",
		"plugins/p/commands/fmt.md":  "---\ndescription: formats\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: '" + strings.ReplaceAll(event, "'", "''") + " | tee command-ran.txt'\n---\nFormat $ARGUMENTS.\n",
	})
	before := treeDigest(t, dir)
	rep, err := Audit(t.Context(), Options{Dir: dir, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if after := treeDigest(t, dir); after != before {
		t.Fatal("the hooks changed the work tree on the host")
	}
	want := map[string]struct{ event, file, stdout string }{
		"plugins/p/skills/s/SKILL.md#hooks.PreToolUse[0].hooks[0]@Bash": {PreToolUse, "skill-ran.txt", `"hook_event_name":"PreToolUse"`},
		".claude/agents/a.md#hooks.Stop[0].hooks[0]@a":                  {SubagentStop, "agent-ran.txt", `"agent_type":"a"` + "\n" + `"hook_event_name":"SubagentStop"`},
		"plugins/p/commands/fmt.md#hooks.Stop[0].hooks[0]":              {Stop, "command-ran.txt", `"hook_event_name":"Stop"`},
	}
	if len(rep.Runs) != len(want) {
		t.Fatalf("%d runs, want %d: %+v", len(rep.Runs), len(want), rep.Runs)
	}
	for _, r := range rep.Runs {
		w, ok := want[r.ID]
		if !ok {
			t.Errorf("unexpected run %s", r.ID)
			continue
		}
		t.Logf("%s: %s %s %q %v", r.ID, r.Tier, r.Outcome, r.Stdout, r.Writes)
		ev, file := w.event, w.file
		if r.Tier != "confined" || r.Outcome != report.OutcomeAllowed || r.Event != ev {
			t.Errorf("%s: tier %s, outcome %s (%s), event %s; want confined, allowed, %s", r.ID, r.Tier, r.Outcome, r.Reason, r.Event, ev)
		}
		if got := strings.TrimSpace(r.Stdout); got != w.stdout {
			t.Errorf("%s: stdout %q, want %q from the %s payload (stderr %q)", r.ID, got, w.stdout, ev, r.Stderr)
		}
		var wrote []string
		for _, w := range r.Writes {
			wrote = append(wrote, w.Path)
		}
		if len(wrote) != 1 || wrote[0] != file {
			t.Errorf("%s: writes %v, want %s recorded", r.ID, wrote, file)
		}
	}
}

// FuzzFrontmatter feeds arbitrary text to the frontmatter reader as a
// frontmatter's YAML: it must never panic, and every hook and finding it
// produces must name the file and a line of the frontmatter (the file's
// second line or later), or for markdown inline in a JSON string the
// string's place, with no two hooks sharing an ID, and an agent's hooks
// all knowing its type.
func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{
		"name: s\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - {type: command, command: echo, once: true, timeout: 5}\n",
		"hooks:\n  Stop: [{hooks: [{type: http, url: x}, {type: command, command: [a]}, 3, null]}]\n",
		"h: &h [{type: command, command: echo}]\nhooks: {Stop: [{hooks: *h}], SessionEnd: [{hooks: *h}]}\n",
		"hooks: &h\n  Stop: [{hooks: [{type: command, command: echo}]}]\n  Again: *h\n",
		"hooks:\n  Stop: []\n  Stop: []\n",
		"hooks:\n  Stop:\n    - hooks:\n        - <<: {type: command}\n          command: echo\n",
		"hooks: {? [a]: b}\n",
		"hooks: {Stop: [{hooks: [{type: command, command: echo, timeout: .nan}]}]}\n",
		"hooks: [\n",
		"PreToolUse: []\nhooks:\n",
		"--- x\nhooks: {}\n",
		"hooks: !!binary aGk=\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		c := newClaudeDisc(dir)
		agent := len(data)%2 == 0
		file, place := "skills/s/SKILL.md", fmPlace{off: 1, prefix: "hooks."}
		pin := jpos{Line: 9, Col: 4}
		if len(data)%3 == 1 {
			file, place = ".claude-plugin/plugin.json", fmPlace{pin: &pin, prefix: "commands[c].hooks."}
		}
		c.frontmatter(hookCtx{file: file, plugin: "fuzz", pluginRoot: dir, isPlugin: true, agent: agent}, data, place)
		at := func(l report.Location) bool {
			if place.pin != nil {
				return l.File == file && l.Line == pin.Line && l.Column == pin.Col
			}
			return l.File == file && l.Line >= 2
		}
		ids := map[string]bool{}
		for _, h := range c.out.Hooks {
			if ids[h.ID] {
				t.Fatalf("two hooks with the ID %s", h.ID)
			}
			ids[h.ID] = true
			if !at(h.Location) || !strings.HasPrefix(h.ID, file+"#"+place.prefix) || h.Event == "" {
				t.Fatalf("hook without its place: %+v", h)
			}
			if agent != strings.HasPrefix(h.AgentType, "fuzz:") {
				t.Fatalf("agent %v, agent type %q", agent, h.AgentType)
			}
		}
		for _, fd := range c.out.Findings {
			if fd.Message == "" || (!at(fd.Location) && !(place.pin == nil && fd.Location.File == file && fd.Location.Line == 0)) {
				t.Fatalf("finding without its place: %+v", fd)
			}
		}
	})
}

// TestFrontmatterAsClaudeCodeCutsIt: discovery reads a frontmatter where
// Claude Code does, so no hook it runs goes unread and unreported: an
// opening "---" followed by any JavaScript whitespace, a closing "---"
// anywhere (a "----" line, inside a line), a frontmatter that is YAML
// only once Claude Code has quoted its values, a byte that is not UTF-8,
// a "hooks" key written with escapes, a tag or an alias; a merge key at
// the top level is a finding.
func TestFrontmatterAsClaudeCodeCutsIt(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	stop := "  Stop:\n    - hooks:\n        - {type: command, command: echo hidden}\n"
	esc := "{Stop: [{\"hoo\\x6bs\": [{type: command, command: echo hidden}]}]}"
	tests := []struct {
		name  string
		body  string
		hooks int
		want  []string
	}{
		{name: "opening followed by a form feed", body: "---\f\nhooks:\n" + stop + "---\n", hooks: 1},
		{name: "opening followed by a no-break space", body: "---\u00a0\nhooks:\n" + stop + "---\n", hooks: 1},
		{name: "opening followed by blank lines", body: "--- \n\n\nhooks:\n" + stop + "---\n", hooks: 1},
		{name: "closed by a longer rule", body: "---\nhooks:\n" + stop + "----\nbody\n", hooks: 1},
		{name: "closed inside a line", body: "---\nhooks:\n" + stop + "description: see---\nnot: [yaml\n---\n", hooks: 1},
		{name: "YAML once values are quoted", body: "---\ndescription: use when: the YAML is not valid\nhooks:\n" + stop + "---\n", hooks: 1},
		{name: "escaped key, YAML once quoted", body: "---\n\"hoo\\u006bs\": " + esc + "\ndescription: use when: x\n---\n", hooks: 1},
		{name: "tagged key, YAML once quoted", body: "---\n!!str hooks: " + esc + "\ndescription: a: b\n---\n", hooks: 1},
		{name: "not UTF-8", body: "---\n\"hoo\\x6bs\": " + esc + "\ndescription: caf\xe9\n---\n", hooks: 1},
		{name: "alias as the key", body: "---\nname: &k hooks\n*k :\n" + stop + "---\n", hooks: 1},
		{name: "alias key repeats hooks", body: "---\nname: &k hooks\nhooks:\n" + stop + "*k :\n" + stop + "---\n",
			want: []string{"error discovery/malformed " + skill + ":7:1"}},
		{name: "merge key at the top level", body: "---\n<<: {hooks: {Stop: [{hooks: [{type: command, command: echo hidden}]}]}}\n---\n",
			want: []string{"error discovery/malformed " + skill + ":2:1"}},
		{name: "escaped key, not YAML even quoted", body: "---\n\"hoo\\x6bs\": " + esc + "\nx:\n  - [\n---\n",
			want: []string{"error discovery/malformed " + skill + ":4:3"}},
		{name: "not closed at all", body: "---\n\"hoo\\x6bs\": " + esc + "\n",
			want: []string{"warning discovery/malformed " + skill + ":1:1"}},
		{name: "no frontmatter", body: "----\nhooks:\n" + stop + "---\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`, skill: tc.body}))
			var got []string
			for _, f := range s.findings {
				got = append(got, findingLine(f))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
			if len(s.hooks) != tc.hooks {
				t.Errorf("%d hooks, want %d", len(s.hooks), tc.hooks)
			}
			for _, h := range s.hooks {
				if h.Command != "echo hidden" {
					t.Errorf("hook %s: command %q", h.ID, h.Command)
				}
			}
		})
	}
}

// TestAgentStopCarriesItsAgentType: an agent's own SubagentStop hooks get
// the payload Claude Code sends when that agent stops, whose agent_type is
// the agent's type; a matcher on them is still honoured (one that selects
// another value gets that value, one that selects none is not run), and
// a check of such a hook sends the agent's type too. Other hooks keep the
// default agent_type.
func TestAgentStopCarriesItsAgentType(t *testing.T) {
	agent := func(matcher string) *Hook {
		return &Hook{Event: SubagentStop, AgentType: "fmt:team:reviewer", Matcher: matcher, HasMatcher: matcher != "", Type: TypeCommand, Command: "x"}
	}
	for _, tc := range []struct {
		name string
		h    *Hook
		want string // the agent_type sent; "" for no run
	}{
		{"no matcher", agent(""), "fmt:team:reviewer"},
		{"matcher selects the agent", agent("^fmt:.*reviewer$"), "fmt:team:reviewer"},
		{"matcher selects another type", agent("Explore|Plan"), "Explore"},
		{"matcher selects none", agent("other-plugin:.*"), ""},
		{"a skill's SubagentStop", &Hook{Event: SubagentStop, Type: TypeCommand, Command: "x"}, "general-purpose"},
	} {
		ps, why := toolsFor(tc.h, nil, "/repo")
		switch {
		case tc.want == "" && (len(ps) != 0 || !strings.Contains(why, "(fmt:team:reviewer, general-purpose, Explore, Plan)")):
			t.Errorf("%s: %v, why %q", tc.name, ps, why)
		case tc.want != "" && (len(ps) != 1 || ps[0].Tool != tc.want || ps[0].Input["agent_type"] != tc.want || ps[0].Input["hook_event_name"] != SubagentStop):
			t.Errorf("%s: %+v (%s), want agent_type %s", tc.name, ps, why, tc.want)
		}
	}
	// An agent's tool hooks run for its own tool calls, which carry its
	// agent_type (TestAgentHooksRunInsideTheAgent); its tool is still
	// the matcher's.
	ps, _ := toolsFor(&Hook{Event: PreToolUse, AgentType: "fmt:reviewer", Matcher: "Bash", HasMatcher: true, Type: TypeCommand, Command: "x"}, nil, "/repo")
	if len(ps) != 1 || ps[0].Tool != "Bash" || ps[0].Input["agent_type"] != "fmt:reviewer" {
		t.Errorf("agent's PreToolUse: %+v", ps)
	}

	dir := makeTree(t, map[string]string{
		".claude/agents/review/rev.md": "---\nname: reviewer\nhooks:\n  Stop: [{hooks: [{type: command, command: \"true\"}]}]\n---\n",
		// By its file: a check of the project does not take an agent's
		// own hooks, which run only while the agent does. (A plugin's
		// agent's hooks Claude Code ignores: they are not run.)
		".vigiles.yml": "checks:\n  - {name: stops, hook: .claude/agents/review/rev.md, event: SubagentStop, expect: {blocked: false}}\n",
	})
	rep, err := Test(t.Context(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Tool != "reviewer" || rep.Runs[0].Event != SubagentStop {
		t.Errorf("check of an agent's Stop: %+v %v", rep.Runs, rep.Findings)
	}
}

// symlinks makes each link (relative to dir) point at its target.
func symlinks(t *testing.T, dir string, links map[string]string) {
	t.Helper()
	for link, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
}

// findingMessages renders findings as "severity rule file:line:col
// message", sorted.
func findingMessages(fs []report.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, findingLine(f)+" "+f.Message)
	}
	sort.Strings(out)
	return out
}

// aliasBomb is a frontmatter whose Stop hooks, aliases expanded, number
// 2·3^29: a "billion laughs".
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("---\nl0: &l0 [{type: command, command: echo lol}, {type: command, command: echo lol}]\n")
	for i := 1; i < 30; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [*l%d, *l%d, *l%d]\n", i, i, i-1, i-1, i-1)
	}
	b.WriteString("hooks:\n  Stop:\n    - hooks: *l29\n---\n")
	return b.String()
}
