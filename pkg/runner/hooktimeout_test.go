package runner

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestHookTimeoutAnyPositive: a hook's timeout is any positive number of
// seconds, as Claude Code reads it: a large one is read (the run is
// capped apart), one that looks like milliseconds is a warning that says
// what it is read as, one past Node.js's longest timer a warning that it
// may end the hook at once; zero, a negative number or a string is an
// error, and that hook is not read.
func TestHookTimeoutAnyPositive(t *testing.T) {
	dir := makeTree(t, map[string]string{"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "a", "timeout": 120000},
  {"type": "command", "command": "b", "timeout": 3600},
  {"type": "command", "command": "c", "timeout": 0.5},
  {"type": "command", "command": "d", "timeout": 3000000},
  {"type": "command", "command": "e", "timeout": 0},
  {"type": "command", "command": "f", "timeout": "60"}
]}]}}`})
	s := discoverAll(t, dir)
	got := map[string]time.Duration{}
	for _, h := range s.hooks {
		got[h.Command] = h.Timeout
	}
	want := map[string]time.Duration{"a": 120000 * time.Second, "b": time.Hour, "c": 500 * time.Millisecond, "d": 3000000 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("timeouts (-want +got):\n%s", diff)
	}
	wantF := []string{
		"error discovery/wrong-type hooks/hooks.json:6:50 Stop[0].hooks[4].timeout: want a positive number of seconds, found 0",
		`error discovery/wrong-type hooks/hooks.json:7:50 Stop[0].hooks[5].timeout: want a positive number of seconds, found the string "60"`,
		"warning discovery/wrong-type hooks/hooks.json:2:50 Stop[0].hooks[0].timeout: 120000 is read in seconds (33h20m), not milliseconds: if 120 seconds were meant, write 120",
		"warning discovery/wrong-type hooks/hooks.json:5:50 Stop[0].hooks[3].timeout: 3000000 seconds is past the longest timer Node.js keeps (2147483 seconds, about 24.8 days), which it replaces with one of a millisecond: Claude Code may end the hook at once; write the seconds it may take",
	}
	if diff := cmp.Diff(wantF, findingMessages(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
