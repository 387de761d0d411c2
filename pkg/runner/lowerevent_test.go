package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestLowerCamelEventIsNotRun: a plugin that a marketplace lists for
// GitHub Copilot CLI keeps its hooks inline in its manifest, under
// Copilot's event names (sessionStart, agentStop), which Claude Code,
// matching an event's name exactly, never runs, under any version: no
// event of Claude Code's is named in lower camel case. The audit lists
// those hooks and runs none of them, where it runs a hook of an upper
// camel case event it does not know (perhaps newer than it) once; the
// warning says which.
func TestLowerCamelEventIsNotRun(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p-copilot", "source": "./plugins/p-copilot"}]}`,
		"plugins/p-copilot/.claude-plugin/plugin.json": `{"name": "p-copilot", "version": "1.0.0", "hooks": {
  "sessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo lower"}]}],
  "agentStop": [{"hooks": [{"type": "command", "command": "echo agent"}]}],
  "SessionBegin": [{"hooks": [{"type": "command", "command": "echo upper"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo known"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, r := range rep.Runs {
		if r.Outcome != report.OutcomeNotExecutable {
			ran[r.Event] = true
		}
	}
	for ev, want := range map[string]bool{"sessionStart": false, "agentStop": false, "SessionBegin": true, "Stop": true} {
		if ran[ev] != want {
			t.Errorf("event %s ran: %v, want %v (runs %+v)", ev, ran[ev], want, rep.Runs)
		}
	}
	said := map[string]string{}
	for _, m := range messagesOf(rep.Findings, RuleUnknownEvent) {
		for _, ev := range []string{"sessionStart", "agentStop", "SessionBegin"} {
			if strings.Contains(m, `"`+ev+`"`) {
				said[ev] = m
			}
		}
	}
	for _, ev := range []string{"sessionStart", "agentStop"} {
		if !strings.Contains(said[ev], "(no event of Claude Code's is named in lower camel case: another agent's name, GitHub Copilot CLI's or Cursor's, or a typo)") || !strings.Contains(said[ev], "Claude Code runs none of its hooks, under any version: vigiles lists them and runs none") {
			t.Errorf("unknown-event for %s: %q, want that vigiles lists its hooks and runs none", ev, said[ev])
		}
	}
	if !strings.Contains(said["SessionBegin"], "so it runs its hooks once with the common fields only") {
		t.Errorf("unknown-event for SessionBegin: %q, want that it runs its hooks once", said["SessionBegin"])
	}
}

// TestCaseVariantEventIsNotRun: an event name that differs from one of
// Claude Code's only in case (PreTooluse, STOP) is no newer event, and
// Claude Code, which matches an event's name exactly, runs none of its
// hooks: the audit lists them and runs none, as it does a lower camel
// case name, and the warning names the event as Claude Code spells it.
// It ran them once, with the common fields, as an event newer than
// vigiles.
func TestCaseVariantEventIsNotRun(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {
  "PreTooluse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo tooluse"}]}],
  "STOP": [{"hooks": [{"type": "command", "command": "echo stop"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo known"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for _, r := range rep.Runs {
		listed[r.Event] = string(r.Outcome)
		if r.Event != "Stop" && (r.Outcome != report.OutcomeNotExecutable || !strings.Contains(r.Reason, "matches an event's name exactly, case and all")) {
			t.Errorf("%s run: %s (%s), want not-executable: Claude Code runs no hook of it", r.Event, r.Outcome, r.Reason)
		}
	}
	if listed["PreTooluse"] == "" || listed["STOP"] == "" || listed["Stop"] != string(report.OutcomeAllowed) {
		t.Errorf("runs by event = %v, want PreTooluse and STOP listed, Stop allowed", listed)
	}
	said := map[string]string{}
	for _, m := range messagesOf(rep.Findings, RuleUnknownEvent) {
		for _, ev := range []string{"PreTooluse", "STOP"} {
			if strings.Contains(m, `"`+ev+`"`) {
				said[ev] = m
			}
		}
	}
	for ev, right := range map[string]string{"PreTooluse": "PreToolUse", "STOP": "Stop"} {
		if !strings.Contains(said[ev], "it differs from "+right+" only in case") || !strings.Contains(said[ev], "vigiles lists them and runs none") {
			t.Errorf("unknown-event for %s: %q, want it to name %s and say that its hooks are listed, not run", ev, said[ev], right)
		}
	}
}
