package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestEveryHookSpecificFieldIsTyped: the hooks reference's output schema
// (SyncHookJSONOutput in the Agent SDK reference, which the hooks
// reference's JSON output shares) types every field of
// hookSpecificOutput: a UserPromptSubmit sessionTitle is a string, its
// suppressOriginalPrompt a boolean, a PostToolUse classifierContext a
// string. Output with one of another type fails the schema, a
// non-blocking error: Claude Code reads none of it, and a decision
// "block" beside it blocks nothing. The audit read those fields as
// untyped, so such a block read as one.
func TestEveryHookSpecificFieldIsTyped(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat \"$CLAUDE_PROJECT_DIR/title.json\""}]}],
  "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "cat \"$CLAUDE_PROJECT_DIR/classifier.json\""}]}]}}`,
		"title.json":      `{"decision": "block", "reason": "no", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "sessionTitle": ["t"], "suppressOriginalPrompt": "yes"}}`,
		"classifier.json": `{"decision": "block", "reason": "no", "hookSpecificOutput": {"hookEventName": "PostToolUse", "classifierContext": 5}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rep.Runs {
		if r.Event != UserPromptSubmit && r.Event != PostToolUse {
			continue
		}
		seen[r.Event] = true
		if r.Outcome != report.OutcomeAllowed || !strings.Contains(r.Reason, "schema") {
			t.Errorf("%s %s: %s (%s); want allowed: the output fails Claude Code's schema", r.Event, r.Tool, r.Outcome, r.Reason)
		}
	}
	if !seen[UserPromptSubmit] || !seen[PostToolUse] {
		t.Fatalf("runs of %v, want UserPromptSubmit and PostToolUse", seen)
	}
}
