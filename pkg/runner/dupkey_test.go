package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHookDeclarationRepeatedKey: a key repeated inside a hook
// declaration, or above it where discovery reads it, is a warning at each
// later key, naming the line of the first, as a command named twice is.
// Claude Code parses with JSON.parse and keeps the last, and so does
// vigiles (the last is what runs); but a reviewer of the file or of its
// diff sees the first, so a plugin could show "echo harmless" and run
// another command.
func TestHookDeclarationRepeatedKey(t *testing.T) {
	dir := makeTree(t, map[string]string{
		// A handler with two commands, a group with two matchers and two
		// hooks arrays, and a settings file with two "hooks" objects.
		".claude/settings.json": `{
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo never"}]}]},
  "permissions": {}, "permissions": {},
  "hooks": {"PreToolUse": [{"matcher": "Read",
    "hooks": [{"type": "command", "command": "echo never"}],
    "matcher": "Bash",
    "hooks": [{"type": "command",
      "command": "echo harmless",
      "command": "echo hidden 1",
      "timeout": 5, "timeout": 7}]}]}
}`,
		// A hooks file with two "hooks" objects; a handler's type twice.
		"a/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo never"}]}]},
"description": "x", "description": "y",
"hooks": {"Stop": [{"hooks": [{"type": "prompt", "type": "command", "command": "echo hidden 2", "_x": 1, "_x": 2, "_x": 3}]}]}}`,
		// A manifest: every field discovery reads, twice; inline hooks
		// wrapped in a "hooks" object given twice.
		"b/.claude-plugin/plugin.json": `{"name": "decoy",
"hooks": "./none.json",
"skills": "./none", "agents": "./none", "commands": "./none",
"name": "b", "version": "1", "version": "2",
"skills": [], "agents": [], "commands": {"c": {"source": "./none.md", "content": "x", "source": "./c.md", "content": "y"}},
"hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo never"}]}]},
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hidden 3"}]}]}}}`,
		"b/c.md": stopHook("echo c"),
		// A marketplace: "plugins" and an entry's fields twice.
		"m/.claude-plugin/marketplace.json": `{"name": "m", "metadata": {},
"plugins": [{"name": "never", "source": "./never"}],
"plugins": [{"name": "decoy", "source": "./never", "name": "e", "source": "./e",
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo never"}]}]},
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo hidden 4"}]}]}}],
"metadata": {"pluginRoot": "/nowhere", "pluginRoot": "."}}`,
		"m/e/README.md": "no manifest\n",
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Command)
	}
	want := []string{
		".claude/settings.json#hooks.PreToolUse[0].hooks[0] echo hidden 1",
		"a/hooks/hooks.json#hooks.Stop[0].hooks[0] echo hidden 2",
		"b/.claude-plugin/plugin.json#hooks.Stop[0].hooks[0] echo hidden 3",
		"b/c.md#hooks.Stop[0].hooks[0] echo c",
		"m/.claude-plugin/marketplace.json#plugins[e].hooks.Stop[0].hooks[0] echo hidden 4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	for _, h := range s.hooks {
		if h.ID == want[0] && (h.Matcher != "Bash" || h.Timeout.Seconds() != 7) {
			t.Errorf("%s: matcher %q timeout %v, want the last ones (Bash, 7s)", h.ID, h.Matcher, h.Timeout)
		}
	}
	wantFinds := map[string]string{
		// The settings: not "permissions", which declares no hook.
		".claude/settings.json:4:3":   `"hooks" (first on line 2)`,
		".claude/settings.json:6:5":   `"matcher" of PreToolUse[0] (first on line 4)`,
		".claude/settings.json:7:5":   `"hooks" of PreToolUse[0] (first on line 5)`,
		".claude/settings.json:9:7":   `"command" of PreToolUse[0].hooks[0] (first on line 8)`,
		".claude/settings.json:10:21": `"timeout" of PreToolUse[0].hooks[0] (first on line 10)`,
		// The hooks file: not "description"; every later "_x".
		"a/hooks/hooks.json:3:1":   `"hooks" (first on line 1)`,
		"a/hooks/hooks.json:3:50":  `"type" of Stop[0].hooks[0] (first on line 3)`,
		"a/hooks/hooks.json:3:106": `"_x" of Stop[0].hooks[0] (first on line 3)`,
		"a/hooks/hooks.json:3:115": `"_x" of Stop[0].hooks[0] (first on line 3)`,
		// The manifest: not "version".
		"b/.claude-plugin/plugin.json:4:1":   `"name" (first on line 1)`,
		"b/.claude-plugin/plugin.json:5:1":   `"skills" (first on line 3)`,
		"b/.claude-plugin/plugin.json:5:15":  `"agents" (first on line 3)`,
		"b/.claude-plugin/plugin.json:5:29":  `"commands" (first on line 3)`,
		"b/.claude-plugin/plugin.json:5:87":  `"source" of commands[c] (first on line 5)`,
		"b/.claude-plugin/plugin.json:5:107": `"content" of commands[c] (first on line 5)`,
		"b/.claude-plugin/plugin.json:6:1":   `"hooks" (first on line 2)`,
		"b/.claude-plugin/plugin.json:7:3":   `"hooks" of hooks (first on line 6)`,
		// The marketplace.
		"m/.claude-plugin/marketplace.json:6:40": `"pluginRoot" of metadata (first on line 6)`,
		"m/.claude-plugin/marketplace.json:3:1":  `"plugins" (first on line 2)`,
		"m/.claude-plugin/marketplace.json:3:52": `"name" of plugins[0] (first on line 3)`,
		"m/.claude-plugin/marketplace.json:3:65": `"source" of plugins[0] (first on line 3)`,
		"m/.claude-plugin/marketplace.json:5:3":  `"hooks" of plugins[0] (first on line 4)`,
		"m/.claude-plugin/marketplace.json:6:1":  `"metadata" (first on line 1)`,
	}
	gotFinds := map[string]string{}
	for _, f := range s.findings {
		line := findingLine(f)
		msg, ok := strings.CutPrefix(line, "warning discovery/malformed ")
		if !ok {
			t.Errorf("unexpected finding %s: %s", line, f.Message)
			continue
		}
		what, rest, ok := strings.Cut(f.Message, " is declared again here ")
		first, _, ok2 := strings.Cut(rest, ";")
		if !ok || !ok2 {
			t.Errorf("%s: %s", line, f.Message)
			continue
		}
		gotFinds[msg] = what + " " + first
		if say := "; Claude Code reads only the last one, so the one declared before is ignored: keep one"; !strings.HasSuffix(f.Message, say) {
			t.Errorf("%s: message %q does not end %q", line, f.Message, say)
		}
	}
	if diff := cmp.Diff(wantFinds, gotFinds); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestFrontmatterRepeatedKeyRefused: in a frontmatter (YAML) a repeated
// key is not resolved to the last, as in JSON: YAML allows a key once, a
// parser refuses the whole frontmatter, and so none of its hooks is read,
// and that is an error at the later key, wherever in the hooks it is.
func TestFrontmatterRepeatedKeyRefused(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/commands/c.md": "---\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo harmless\n          command: echo hidden\n---\n",
	})
	s := discoverAll(t, dir)
	if len(s.hooks) != 0 {
		t.Errorf("hooks read from a frontmatter with a repeated key: %v", s.hooks)
	}
	if diff := cmp.Diff([]string{"error discovery/malformed .claude/commands/c.md:7:11"}, findingLines(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestKeysDifferingInLoneSurrogates: JSON.parse keeps a lone surrogate
// escape ("\ud800") as it is, so two keys that differ only there are two
// keys to Claude Code, though Go decodes both to U+FFFD: two commands so
// named are two commands, and the hooks of both are read, with no
// warning of a repeated key; so are two handler keys.
func TestKeysDifferingInLoneSurrogates(t *testing.T) {
	first := strings.ReplaceAll(stopHook("echo first"), "\n", `\n`)
	second := strings.ReplaceAll(stopHook("echo second"), "\n", `\n`)
	dir := makeTree(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p", "commands": {` +
			`"c\ud800": {"content": "` + first + `"}, "c\udbff": {"content": "` + second + `"}},
"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo x", "_x\udc00": 1, "_x\udc01": 2, "_x\ud83d\ude00": 3, "_x\ud83d\ude00": 4}]}]}}`,
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Command)
	}
	want := []string{
		"p/.claude-plugin/plugin.json#commands[c\uFFFD].hooks.Stop[0].hooks[0] echo first",
		"p/.claude-plugin/plugin.json#commands[c\uFFFD].hooks.Stop[0].hooks[0]#2 echo second",
		"p/.claude-plugin/plugin.json#hooks.Stop[0].hooks[0] echo x",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	// Only the pair that is one key (a valid surrogate pair, twice).
	if diff := cmp.Diff([]string{"warning discovery/malformed p/.claude-plugin/plugin.json:2:123"}, findingLines(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
	}
}

// TestJSONKeyIdent: keys are one key exactly when JSON.parse makes them
// the same string of UTF-16 code units.
func TestJSONKeyIdent(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{`"\ud800"`, `"\uD800"`, true},
		{`"\ud800"`, `"\udbff"`, false},
		{`"a\n\ud800"`, `"an\ud800"`, false},
		{`"a\n\ud800"`, `"a\u000a\ud800"`, true},
		{`"\ud83d\ude00"`, `"😀"`, true},
		{`"\ude00\ud83d"`, `"\ud83d\ude00"`, false},
		{`"x\ud83d"`, `"x\ud83d\u0041"`, false},
		{`"hooks"`, `"hoo\u006bs"`, true},
	} {
		n, err := parseJSON([]byte(`{` + tc.a + `: 1, ` + tc.b + `: 2}`))
		if err != nil {
			t.Fatal(err)
		}
		if same := n.Members[0].ident() == n.Members[1].ident(); same != tc.same {
			t.Errorf("%s and %s: one key %v, want %v", tc.a, tc.b, same, tc.same)
		}
	}
	n, err := parseJSON([]byte(`{"hooks": 1, "hooks\ud800": 2}`))
	if err != nil {
		t.Fatal(err)
	}
	if v := n.get("hooks"); v == nil || v.Num != 1 {
		t.Errorf(`get("hooks") = %v, want the member "hooks"`, v)
	}
	if v := n.get("hooks\uFFFD"); v != nil {
		t.Errorf(`get("hooks\uFFFD") = %v: a lone surrogate is no U+FFFD`, v)
	}
}
