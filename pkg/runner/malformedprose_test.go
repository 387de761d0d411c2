package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMalformedFrontmatterProse: a frontmatter neither reading takes
// (YAML, then YAML with its values quoted as Claude Code retries it)
// whose "hooks" is prose, in a value, declares no hooks: a warning that
// Claude Code reads none of it, not an error. These are the shapes of
// agents a real repository ships: a description whose first line ends in
// "Examples:" and whose dialogue lines below are not indented, one that
// mentions hooks in a quoted line of the dialogue, one with a literal
// "\n" in its plain value. Neither as a plugin's agent nor as the
// project's do they fail discovery.
func TestMalformedFrontmatterProse(t *testing.T) {
	validator := "---\nname: validator\ndescription: Use this agent when the user asks to \"validate my plugin\". Examples:\n\n" +
		"<example>\nContext: a plugin was made\nuser: \"I made a plugin with commands and hooks\"\nassistant: \"Let me validate it.\"\n" +
		"<commentary>\nValidate early.\n</commentary>\n</example>\n\nmodel: inherit\ntools: [\"Read\", \"Grep\"]\n---\n\nYou validate plugins.\n"
	simplifier := "---\nname: simplifier\ndescription: Use this agent after code is written.\\n\\nExamples:\\n\\n<example>\n" +
		"Context: a feature was added.\nuser: \"Please add auth\"\nassistant: \"Done. Here's the code:\"\n<function call omitted>\n" +
		"<commentary>\nSimplify it.\n</commentary>\n</example>\nmodel: opus\n---\n\nYou simplify code.\n"
	for _, tc := range []struct {
		name, plugin, project string
	}{
		{"plugin agents", "plugins/p/agents/", ""},
		{"project agents", "", ".claude/agents/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			}
			dir := tc.plugin + tc.project
			files[dir+"validator.md"] = validator
			files[dir+"simplifier.md"] = simplifier
			s := discoverAll(t, makeTree(t, files))
			want := []string{
				"warning discovery/malformed " + dir + "simplifier.md:7:1",
				"warning discovery/malformed " + dir + "validator.md:3:1",
			}
			if diff := cmp.Diff(want, findingLines(s.findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
			for _, f := range s.findings {
				if !strings.Contains(f.Message, "and Claude Code none where its parser refuses it too") || !strings.Contains(f.Message, "declares no hooks") {
					t.Errorf("message %q", f.Message)
				}
			}
			if len(s.hooks) != 1 {
				t.Errorf("%d hooks, want the hooks file's 1", len(s.hooks))
			}
		})
	}
}

// TestMayKeyHooks: every way a YAML mapping key may spell "hooks" in a
// frontmatter vigiles cannot read is still the error (at any depth: in a
// flow mapping, after "? " or "- ", under a tag or an anchor, with escapes
// in double quotes, through an alias or a merge key); the word in prose,
// where no key can be, is a warning. Each line is set below a broken
// description, so neither reading takes the frontmatter. Alone, each key
// line is YAML that the JavaScript parsers read with a "hooks" key (but
// for the fail-closed ones: a flow sequence as the key, which a parser
// may turn into a string of its own making, and a merge key or an alias
// where the word is elsewhere), and no prose line is.
func TestMayKeyHooks(t *testing.T) {
	keys := []string{
		"hooks:",
		"hooks: {Stop: []}",
		"hooks :",
		"hooks\t: x",
		"? hooks # a comment\n: x",
		"  hooks: x",
		"\"hooks\": x",
		"'hooks' : x",
		"? hooks\n: x",
		"?\n  hooks\n: x",
		"? |-\n  hooks\n: x",
		"- hooks: x",
		"- ? hooks\n  : x",
		"x: {a: 1, hooks: y}",
		"x: {hooks: y}",
		"x: {a: 1,\n  hooks: y}",
		"x: [{hooks: y}]",
		"[hooks]: x",
		"x: {hooks}",
		"x: {\"a\":1,\"hooks\":2}",
		"\"hoo\\x6bs\": x",
		"\"hoo\\u006bs\": x",
		"? \"hoo\\\n  ks\"\n: x",
		"? \"hoo\\x6bs\"\n: x",
		"x: {a: 1, \"hoo\\x6bs\": y}",
		"!!str hooks: x",
		"!<tag:yaml.org,2002:str> hooks: x",
		"&a hooks: x",
		"&a !!str 'hooks': x",
		"x: {&a hooks: y}",
		"x: {a: 1, !!str hooks: y}",
		"x: {a: 1,!!str hooks: y}",
		"x: {a: 1,&a hooks: y}",
		"x: {\"a\":1,!!str &a hooks: y}",
		"x: {a: [1],!<tag:yaml.org,2002:str> hooks: y}",
		"x: {a: 1,!!str \"hoo\\x6bs\": y}",
		"x: [a,!!str hooks: y]",
		"? \"hooks\",x\n: v",
		"? 'hooks'x\n: v",
		"\ufeffhooks: x",
		"\ufeff!!str hooks: x",
		"name: &k hooks\n*k : x",
		"name: &k \"hoo\\x6bs\"\n*k : x",
		"x: &b {hooks: {}}\n<<: *b",
		"x: &b {y: 1}\n<<: *b\nnote: hooks",
	}
	prose := []string{
		"note: Use this when the user mentions plugin hooks.",
		"user: \"I made a plugin with commands and hooks\"",
		"note: pre-hooks: x",
		"use hooks: x",
		"# hooks: in a comment",
		"note: a\\nb",
		"user: \"say \\\"hi\\\" about hooks\"",
		"hooksy: x",
		"note: tools, hooks, and agents",
		"- Use hooks wisely",
		"* emphasis on hooks",
		"note: \"hooks\" and more",
		"note: x &a hooks",
	}
	const broken = "name: a\ndescription: Examples:\n<example>\n"
	for _, tc := range []struct {
		lines []string
		want  bool
	}{{keys, true}, {prose, false}} {
		for _, line := range tc.lines {
			fm := broken + line + "\n"
			if got := mayKeyHooks([]byte(fm)); got != tc.want {
				t.Errorf("mayKeyHooks(%q) = %v, want %v", fm, got, tc.want)
			}
			skill := "plugins/p/skills/s/SKILL.md"
			s := discoverAll(t, makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				skill:                                  "---\n" + fm + "---\n",
			}))
			want := "warning"
			if tc.want {
				want = "error"
			}
			if len(s.findings) < 1 || s.findings[0].Rule != RuleMalformed || string(s.findings[0].Severity) != want {
				t.Errorf("%q: findings %v, want a discovery/malformed %s first", line, s.findings, want)
			}
		}
	}
}

// TestMalformedProseElsewhere: a frontmatter that is never closed whose
// "hooks" is prose is no finding (it seems to declare no hooks); one with
// the word at a key's start still is.
func TestMalformedProseElsewhere(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"never closed, prose", "---\nname: s\ndescription: about hooks and more\n\nbody\n", nil},
		{"never closed, a key", "---\nname: s\nhooks:\n  Stop: []\n", []string{"warning discovery/malformed " + skill + ":1:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				skill:                                  tc.body,
			}))
			if diff := cmp.Diff(tc.want, findingLines(s.findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
		})
	}
}

// TestMalformedFlowPropertyAfterComma: a frontmatter that yaml.v3 refuses
// for a control character in a value, which the JavaScript yaml package
// reads, and whose "hooks" keys are written with a tag right after a flow
// collection's "," (no blank between): that package reads hooks from it
// (a Stop hook that runs "echo x"), so it is the error, not a warning that
// Claude Code reads none of it.
func TestMalformedFlowPropertyAfterComma(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	fm := "{description: \"a\x01b\",!!str hooks: {Stop: [{matcher: \"\",!!str hooks: [{type: command, command: echo x}]}]}}\n"
	s := discoverAll(t, makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		skill:                                  "---\n" + fm + "---\n",
	}))
	want := []string{"error discovery/malformed " + skill + ":2:1"}
	if diff := cmp.Diff(want, findingLines(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
	}
}

// TestFrontmatterHooksOnlyOnceQuoted: a frontmatter yaml.v3 reads with no
// "hooks" key, which the JavaScript parsers refuse as written (a key
// given twice in a nested flow mapping) and read once its values are
// quoted as Claude Code retries it: the quoting closes the multi-line
// single-quoted description on its first line, and the lines that were
// inside it become a top-level "hooks" key with a Stop hook. Claude Code
// runs that hook; vigiles, which reads no hooks there, says so as the
// error. A frontmatter whose quoted reading adds no hooks is no finding.
func TestFrontmatterHooksOnlyOnceQuoted(t *testing.T) {
	skill := "plugins/p/skills/s/SKILL.md"
	hidden := "name: x\nc: {k: 1, k: 2}\ndescription: 'a: b\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo x\nend: z'\n"
	plain := "name: x\nc: {k: 1, k: 2}\ndescription: 'a: b\nsee the hooks\nend: z'\n"
	for _, tc := range []struct {
		name, fm string
		want     []string
	}{
		{"hooks once quoted", hidden, []string{"error discovery/malformed " + skill + ":5:1"}},
		{"no hooks once quoted", plain, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				skill:                                  "---\n" + tc.fm + "---\n",
			}))
			if diff := cmp.Diff(tc.want, findingLines(s.findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s\n%v", diff, s.findings)
			}
		})
	}
}

// TestMayKeyHooksBounded: a long line of places where a key may start,
// each looked back from to the line's start, costs mayKeyHooks a bounded
// number of steps; past them it says yes (failing closed). Before, 64 KiB
// of "xhooks" took seconds and said no, and the 4 MiB a frontmatter may
// hold took hours.
func TestMayKeyHooksBounded(t *testing.T) {
	fm := []byte(strings.Repeat("xhooks", (64<<10)/6) + "\n")
	if !mayKeyHooks(fm) {
		t.Errorf("mayKeyHooks of %d bytes of \"xhooks\" = false, want true once its steps are spent", len(fm))
	}
}
