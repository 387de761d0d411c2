package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOffKeysTurnNothingOff: "enabled": false or "disabled": true on a
// matcher group or a hook handler, keys Claude Code does not read, is a
// warning that the hooks run all the same; they are read and run, and
// "enabled": true, or such a key that is no boolean, says nothing.
func TestOffKeysTurnNothingOff(t *testing.T) {
	dir := makeTree(t, map[string]string{"hooks/hooks.json": `{"hooks": {"Stop": [
  {"enabled": false, "hooks": [{"type": "command", "command": "a"}]},
  {"hooks": [{"type": "command", "command": "b", "disabled": true}, {"type": "command", "command": "c", "enabled": true}]},
  {"disabled": "yes", "hooks": [{"type": "command", "command": "d", "disabled": false}]}
]}}`})
	s := discoverAll(t, dir)
	var cmds []string
	for _, h := range s.hooks {
		cmds = append(cmds, h.Command)
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, cmds); diff != "" {
		t.Errorf("hooks read (-want +got):\n%s", diff)
	}
	wantF := []string{
		`warning discovery/malformed hooks/hooks.json:2:15 Stop[0].enabled: false turns nothing off: Claude Code reads no "enabled" key on a matcher group and ignores it, so its hooks run; to turn them off, remove the group`,
		`warning discovery/malformed hooks/hooks.json:3:62 Stop[1].hooks[0].disabled: true turns nothing off: Claude Code reads no "disabled" key on a hook handler and ignores it, so the hook runs; to turn it off, remove the handler`,
	}
	if diff := cmp.Diff(wantF, findingMessages(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestMisspeltKeys: a key of a matcher group or a hook handler that
// Claude Code does not read but nearly one it does ("matchr", "Timeout")
// is a warning naming the key meant and what its absence does; a key near
// none, or one beside the real key, says nothing.
func TestMisspeltKeys(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [
  {"matchr": "Bash", "hooks": [{"type": "command", "command": "a", "timeot": 5}]},
  {"matcher": "Write", "Matcher": "Edit", "hooks": [{"type": "command", "command": "b", "Timeout": 5, "note": "x", "statusMesage": "y"}]}
]}}`})
	s := discoverAll(t, dir)
	wantF := []string{
		`warning discovery/malformed .claude/settings.json:2:4 PreToolUse[0]: "matchr" is no key of a matcher group: did you mean "matcher"? Claude Code matches keys exactly, case and all, and ignores one it does not read, so the group has no matcher and its hooks run for everything the event fires for`,
		`warning discovery/malformed .claude/settings.json:2:68 PreToolUse[0].hooks[0]: "timeot" is no key of a hook handler: did you mean "timeout"? Claude Code matches keys exactly, case and all, and ignores one it does not read, so the hook gets its event's default timeout`,
		`warning discovery/malformed .claude/settings.json:3:116 PreToolUse[1].hooks[0]: "statusMesage" is no key of a hook handler: did you mean "statusMessage"? Claude Code matches keys exactly, case and all, and ignores one it does not read`,
		`warning discovery/malformed .claude/settings.json:3:89 PreToolUse[1].hooks[0]: "Timeout" is no key of a hook handler: did you mean "timeout"? Claude Code matches keys exactly, case and all, and ignores one it does not read, so the hook gets its event's default timeout`,
	}
	if diff := cmp.Diff(wantF, findingMessages(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestUnreadKeys: a key of a matcher group or a hook handler that Claude
// Code does not read and that is nearly none it reads ("conditions", which
// reads as narrowing the group) is a warning that it is ignored and what
// runs; the hooks are read and run all the same. Keys it reads, notes
// ("description", "_comment", "$schema"), a slip misspeltKeys names and
// offKeys' "enabled" and "disabled" say nothing more.
func TestUnreadKeys(t *testing.T) {
	dir := makeTree(t, map[string]string{"hooks/hooks.json": `{"hooks": {"PostToolUse": [
  {"matcher": "Edit", "conditions": {"fileExtensions": [".rs"]}, "hooks": [{"type": "command", "command": "a"}]},
  {"description": "x", "_comment": "y", "$schema": "z", "hooks": [{"type": "command", "command": "b", "when": "rs", "comment": "n", "timeot": 5}]},
  {"matchr": "Write", "enabled": true, "disabled": "yes", "hooks": [{"type": "prompt", "prompt": "ok?", "continueOnBlock": true, "statusMessage": "s", "async": false}]}
], "Stop": [
  {"matcher": "x", "paths": ["src"], "hooks": [{"type": "command", "command": "c"}]}
]}}`})
	s := discoverAll(t, dir)
	var cmds []string
	for _, h := range s.hooks {
		if h.Type == TypeCommand {
			cmds = append(cmds, h.Command)
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, cmds); diff != "" {
		t.Errorf("hooks read (-want +got):\n%s", diff)
	}
	var got []string
	for _, m := range findingMessages(s.findings) {
		if strings.Contains(m, "discovery/malformed") {
			got = append(got, m)
		}
	}
	want := []string{
		`warning discovery/malformed hooks/hooks.json:2:23 PostToolUse[0]: "conditions" is no key Claude Code reads on a matcher group: it ignores it, so it narrows nothing: the group's hooks run for everything its matcher "Edit" selects, and vigiles runs them so; to narrow them, test the payload in the hook or give a handler an "if" permission rule`,
		`warning discovery/malformed hooks/hooks.json:3:103 PostToolUse[1].hooks[0]: "when" is no key Claude Code reads on a hook handler: it ignores it, so the hook runs as if it were not there, and vigiles runs it so`,
		`warning discovery/malformed hooks/hooks.json:3:133 PostToolUse[1].hooks[0]: "timeot" is no key of a hook handler: did you mean "timeout"? Claude Code matches keys exactly, case and all, and ignores one it does not read, so the hook gets its event's default timeout`,
		`warning discovery/malformed hooks/hooks.json:4:4 PostToolUse[2]: "matchr" is no key of a matcher group: did you mean "matcher"? Claude Code matches keys exactly, case and all, and ignores one it does not read, so the group has no matcher and its hooks run for everything the event fires for`,
		`warning discovery/malformed hooks/hooks.json:6:20 Stop[0]: "paths" is no key Claude Code reads on a matcher group: it ignores it, so it narrows nothing: the group's hooks run for everything the event fires for, and vigiles runs them so; to narrow them, test the payload in the hook`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestHandlerKeysOnAMatcherGroup: a hook handler's key written on its
// matcher group ("once": true beside "hooks", as a field test's plugin
// wrote it on SessionStart; "timeout") is ignored there: the warning says
// it is a handler's key and to move it, not that it narrows nothing and
// to test the payload, which is no fix for it. "if" on a group keeps its
// own advice, to give a handler an "if" rule.
func TestHandlerKeysOnAMatcherGroup(t *testing.T) {
	dir := makeTree(t, map[string]string{"hooks/hooks.json": `{"hooks": {"SessionStart": [
  {"once": true, "hooks": [{"type": "command", "command": "a"}]}
], "PreToolUse": [
  {"matcher": "Bash", "timeout": 5, "if": "Bash(git *)", "hooks": [{"type": "command", "command": "b"}]}
]}}`})
	s := discoverAll(t, dir)
	if n := len(s.hooks); n != 2 {
		t.Fatalf("read %d hooks, want 2", n)
	}
	var got []string
	for _, m := range findingMessages(s.findings) {
		if strings.Contains(m, "discovery/malformed") {
			got = append(got, m)
		}
	}
	want := []string{
		`warning discovery/malformed hooks/hooks.json:2:4 SessionStart[0]: "once" is a hook handler's key, not a matcher group's: Claude Code ignores it here, so the group's hooks run as if it were not there, each time the event fires, and vigiles runs them so; to mean it, put it on the handlers under "hooks" (and a handler's "once" runs a hook once per session only in a skill's frontmatter)`,
		`warning discovery/malformed hooks/hooks.json:4:23 PreToolUse[0]: "timeout" is a hook handler's key, not a matcher group's: Claude Code ignores it here, so the group's hooks run as if it were not there, each time the event fires, and vigiles runs them so; to mean it, put it on the handlers under "hooks"`,
		`warning discovery/malformed hooks/hooks.json:4:37 PreToolUse[0]: "if" is no key Claude Code reads on a matcher group: it ignores it, so it narrows nothing: the group's hooks run for everything its matcher "Bash" selects, and vigiles runs them so; to narrow them, test the payload in the hook or give a handler an "if" permission rule`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
