package runner

import (
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
