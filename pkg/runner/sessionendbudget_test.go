package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestSessionEndBudget: Claude Code gives SessionEnd hooks a 1.5 s budget
// they share, "automatically raised to the highest per-hook timeout
// configured in settings files, up to 60 seconds. Timeouts set on
// plugin-provided hooks don't raise the budget" (hooks.md, "SessionEnd").
// A settings file's hook is waited its own timeout, up to 60 s; a
// plugin's, or a frontmatter's, 1.5 s at most, whatever its own says.
func TestSessionEndBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       Hook
		want    time.Duration
		whyPart string
	}{
		{"settings, no timeout", Hook{}, 1500 * time.Millisecond, "the budget SessionEnd hooks share"},
		{"settings, under the budget", Hook{Timeout: time.Second}, time.Second, "its own timeout"},
		{"settings, raises the budget", Hook{Timeout: 30 * time.Second}, 30 * time.Second, "its own timeout"},
		{"settings, past 60 s", Hook{Timeout: 120 * time.Second}, 60 * time.Second, "which its own timeout raises to 1m at most"},
		{"plugin, under the budget", Hook{InPlugin: true, Timeout: time.Second}, time.Second, "its own timeout"},
		{"plugin, past the budget", Hook{InPlugin: true, Timeout: 30 * time.Second}, 1500 * time.Millisecond, "which a plugin's own timeout does not raise"},
		{"frontmatter, past the budget", Hook{Scoped: true, Timeout: 30 * time.Second}, 1500 * time.Millisecond, "frontmatter's hook does not raise"},
	} {
		h := tc.h
		h.Event = SessionEnd
		if got := claudeWait(&h); got != tc.want {
			t.Errorf("%s: Claude Code waits %s, want %s", tc.name, got, tc.want)
		}
		if why := claudeWhy(&h); !strings.Contains(why, tc.whyPart) {
			t.Errorf("%s: why %q, want it to hold %q", tc.name, why, tc.whyPart)
		}
	}
}

// TestSessionEndSettingsHookTimedOut: a SessionEnd hook of a settings
// file that runs out its own timeout of 30 s ran out Claude Code's wait,
// not past it: its reason says the agent cancels it, as for any hook,
// where a plugin's (TestTimedOutSaysWhoseBound) says Claude Code would
// have ended it at 1.5 s.
func TestSessionEndSettingsHookTimedOut(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "flush", "timeout": 30}]}]}}`})
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, DurationMs: float64(spec.Timeout.Milliseconds()),
			Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) == 0 {
		t.Fatalf("no runs: %v", findingLines(rep.Findings))
	}
	for _, r := range rep.Runs {
		if want := "timed out after 30000 ms" + carriesOn; r.Reason != want {
			t.Errorf("%s: reason\n got %s\nwant %s", r.ID, r.Reason, want)
		}
	}
}
