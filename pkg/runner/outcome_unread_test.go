package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestUnreadTopLevelKeys: JSON output whose top-level keys Claude Code
// does not read (a guard's rewritten tool_input and its additionalContext,
// which belong under hookSpecificOutput) stays allowed, and its reason
// names those keys and where they belong, so that the guard shows as
// doing nothing, not as a plain "allowed". Keys Claude Code reads, and
// the async response's, are not named; the outcome never changes.
func TestUnreadTopLevelKeys(t *testing.T) {
	d := Decide(PreToolUse, confinedWith(`{"tool_input":{"command":"ls"},"additionalContext":"rewrote the command"}`), nil)
	if d.Outcome != report.OutcomeAllowed {
		t.Errorf("outcome %s, want allowed", d.Outcome)
	}
	for _, want := range []string{`"additionalContext" (it belongs in hookSpecificOutput, whose hookEventName is "PreToolUse")`,
		`"tool_input" (a rewritten input belongs in hookSpecificOutput.updatedInput)`, "does nothing"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q, want it to hold %q", d.Reason, want)
		}
	}
	d = Decide(PermissionRequest, confinedWith(`{"updatedInput":{"command":"ls"}}`), nil)
	if d.Outcome != report.OutcomeAllowed || !strings.Contains(d.Reason, "hookSpecificOutput.decision.updatedInput") {
		t.Errorf("PermissionRequest: %s (%s)", d.Outcome, d.Reason)
	}
	d = Decide(Stop, confinedWith(`{"foo":1}`), nil)
	if d.Outcome != report.OutcomeAllowed || !strings.Contains(d.Reason, `top-level key "foo" of the JSON output on Stop`) {
		t.Errorf("Stop: %s (%s)", d.Outcome, d.Reason)
	}
	// A blocking decision beside an unread key still blocks.
	d = Decide(PreToolUse, confinedWith(`{"tool_input":{},"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`), nil)
	if d.Outcome != report.OutcomeBlocked {
		t.Errorf("deny beside tool_input: %s (%s)", d.Outcome, d.Reason)
	}
	for _, out := range []string{`{"continue":true,"systemMessage":"x","suppressOutput":true}`, `{"async":true,"asyncTimeout":30}`,
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls"}}}`} {
		if d := Decide(PreToolUse, confinedWith(out), nil); strings.Contains(d.Reason, "does not read") {
			t.Errorf("%s: reason %q names a key Claude Code reads", out, d.Reason)
		}
	}
}

// TestUnreadTopLevelNewerFields: the hookSpecificOutput fields the hooks
// reference added since (SessionStart's sessionTitle and reloadSkills,
// UserPromptSubmit's sessionTitle and suppressOriginalPrompt,
// UserPromptExpansion's additionalContext, PostToolUse's
// classifierContext), written at the top level where Claude Code does not
// read them, are told where they belong, as the older fields are.
func TestUnreadTopLevelNewerFields(t *testing.T) {
	for _, tc := range []struct{ event, key string }{
		{SessionStart, "sessionTitle"},
		{SessionStart, "reloadSkills"},
		{UserPromptSubmit, "sessionTitle"},
		{UserPromptSubmit, "suppressOriginalPrompt"},
		{UserPromptExpansion, "additionalContext"},
		{PostToolUse, "classifierContext"},
	} {
		d := Decide(tc.event, confinedWith(`{"`+tc.key+`":true}`), nil)
		want := `"` + tc.key + `" (it belongs in hookSpecificOutput, whose hookEventName is "` + tc.event + `")`
		if d.Outcome != report.OutcomeAllowed || !strings.Contains(d.Reason, want) {
			t.Errorf("%s %s: %s (%s), want allowed with a reason holding %q", tc.event, tc.key, d.Outcome, d.Reason, want)
		}
	}
}
