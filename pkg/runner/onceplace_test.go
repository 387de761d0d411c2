package runner

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOnceOutsideSkills: "once": true on a hook of a settings file, of a
// plugin's hooks (its hooks file or its manifest) or of an agent's
// frontmatter is a warning that Claude Code ignores it there (it honours
// it only in a skill's frontmatter, a command's too), so the hook runs
// each time; in a skill or a command, and "once": false anywhere, says
// nothing. The hooks are read and run either way.
func TestOnceOutsideSkills(t *testing.T) {
	fm := func(ev string) string {
		return "---\nname: n\ndescription: d\nhooks:\n  " + ev + ":\n    - hooks:\n        - {type: command, command: echo, once: true}\n---\nbody\n"
	}
	s := discoverAll(t, makeTree(t, map[string]string{
		".claude/settings.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "once": true}, {"type": "command", "command": "b", "once": false}]}]}}`,
		".claude-plugin/plugin.json": `{"name": "p", "hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "c", "once": true}]}]}}}`,
		"hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "d", "once": true}]}]}}`,
		".claude/agents/rev.md":      fm("PreToolUse"),
		".claude/skills/s/SKILL.md":  fm("PostToolUse"),
		".claude/commands/c.md":      fm("UserPromptSubmit"),
	}))
	if len(s.hooks) != 7 {
		t.Errorf("%d hooks read, want 7", len(s.hooks))
	}
	var got []string
	for _, f := range s.findings {
		if f.Rule == RuleMalformed {
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	say := func(at, where, in string) string {
		return "warning discovery/malformed " + at + " " + where + `.once: true runs a hook once per session only in a skill's frontmatter; Claude Code ignores it in ` + in + `, so the hook runs each time its event fires, and vigiles runs it so: move the hook to a skill, or remove "once"`
	}
	want := []string{
		say(".claude/settings.json:1:76", "Stop[0].hooks[0]", "a settings file"),
		say(".claude/agents/rev.md:7:48", "PreToolUse[0].hooks[0]", "an agent's frontmatter"),
		say("hooks/hooks.json:1:84", "SessionStart[0].hooks[0]", "a plugin's hooks"),
		say(".claude-plugin/plugin.json:1:99", "Stop[0].hooks[0]", "a plugin's hooks"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
