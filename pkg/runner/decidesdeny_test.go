package runner

import "testing"

// TestDecidesLeavesOutADeny: a permissionDecision deny, and a
// PermissionRequest decision's behavior deny, are a block, which the
// outcome says: decidesOf keeps neither (run/decides warned of a plain
// deny, and of none of exit 2 or decision "block"), and keeps allow, ask
// and the other fields; a baseline's deny, kept by an earlier vigiles,
// reads as what decidesOf now gives.
func TestDecidesLeavesOutADeny(t *testing.T) {
	for out, want := range map[string]string{
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`:              "",
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}`:                    "",
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "updatedInput": {"command": "ls"}}}`:             `{"updatedInput":{"command":"ls"}}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}`:                                               `{"permissionDecision":"allow"}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}`:                                                 `{"permissionDecision":"ask"}`,
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}`: `{"decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}`,
		// updatedPermissions is read beside "allow" only (dropUnread).
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "updatedPermissions": [{"type": "setMode"}]}}}`: "",
	} {
		v, ok := ParseOutput([]byte(out))
		if !ok {
			t.Fatalf("%s does not parse", out)
		}
		if got := decidesOf(Decision{Output: v}); got != want {
			t.Errorf("decidesOf(%s) = %s; want %s", out, orDefault(got, `""`), orDefault(want, `""`))
		}
	}
	for kept, want := range map[string]string{
		`{"permissionDecision":"deny"}`:                            "",
		`{"decision":{"behavior":"deny"}}`:                         "",
		`{"permissionDecision":"deny","updatedInput":{"n":1.50}}`:  `{"updatedInput":{"n":1.50}}`,
		`{"permissionDecision":"allow","updatedInput":{"n":1.50}}`: `{"permissionDecision":"allow","updatedInput":{"n":1.50}}`,
		`{"decision":"approve"}`:                                   `{"decision":"approve"}`,
	} {
		if got := decidesWithoutDeny(kept); got != want {
			t.Errorf("decidesWithoutDeny(%s) = %s; want %s", kept, orDefault(got, `""`), orDefault(want, `""`))
		}
	}
}
