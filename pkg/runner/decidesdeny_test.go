package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestDecidesLeavesOutADeny: a permissionDecision deny, and a
// PermissionRequest decision's behavior deny, are a block, which the
// outcome says: decidesOf keeps neither (run/decides warned of a plain
// deny, and of none of exit 2 or decision "block"), and keeps allow, ask
// and the other fields; a baseline's deny, kept by an earlier vigiles,
// reads as what decidesOf now gives, and so does one with a field
// Claude Code does not read there, which an earlier vigiles kept.
func TestDecidesLeavesOutADeny(t *testing.T) {
	for out, want := range map[string]string{
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}`:  "",
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}`:        "",
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "updatedInput": {"command": "ls"}}}`: `{"updatedInput":{"command":"ls"}}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}`:                                   `{"permissionDecision":"allow"}`,
		// A PreToolUse decision object is read by no one there: the
		// top-level approve beside it is what Claude Code reads.
		`{"decision": "approve", "hookSpecificOutput": {"hookEventName": "PreToolUse", "decision": {"behavior": "deny"}}}`:                     `{"decision":"approve"}`,
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask"}}`:                                                 `{"permissionDecision":"ask"}`,
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}`: `{"decision":{"behavior":"allow","updatedInput":{"command":"ls"}}}`,
		// updatedPermissions is read beside "allow" only (dropUnread).
		`{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "updatedPermissions": [{"type": "setMode"}]}}}`: "",
		// A decision object is PermissionRequest's: PreToolUse reads none.
		`{"hookSpecificOutput": {"hookEventName": "PreToolUse", "decision": {"behavior": "allow", "updatedInput": {"command": "ls"}}}}`: "",
		`{"decision": "approve"}`: `{"decision":"approve"}`,
	} {
		v, ok := ParseOutput([]byte(out))
		if !ok {
			t.Fatalf("%s does not parse", out)
		}
		if got := decidesOf(Decision{Output: v}); got != want {
			t.Errorf("decidesOf(%s) = %s; want %s", out, orDefault(got, `""`), orDefault(want, `""`))
		}
	}
	for _, tc := range []struct{ event, kept, want string }{
		{PreToolUse, `{"permissionDecision":"deny"}`, ""},
		{PermissionRequest, `{"decision":{"behavior":"deny"}}`, ""},
		{PreToolUse, `{"permissionDecision":"deny","updatedInput":{"n":1.50}}`, `{"updatedInput":{"n":1.50}}`},
		{PreToolUse, `{"permissionDecision":"allow","updatedInput":{"n":1.50}}`, `{"permissionDecision":"allow","updatedInput":{"n":1.50}}`},
		{PreToolUse, `{"decision":"approve"}`, `{"decision":"approve"}`},
		// What an earlier vigiles kept that Claude Code does not read
		// there (dropUnread): no drift from what decidesOf now gives.
		{PreToolUse, `{"permissionDecision":"defer","updatedInput":{"command":"ls"}}`, `{"permissionDecision":"defer"}`},
		{PreModelSwitch, `{"updatedInput":{"model":"x"}}`, ""},
		{PermissionRequest, `{"decision":{"behavior":"ask","updatedPermissions":[{"type":"setMode"}]}}`, `{"decision":{"behavior":"ask"}}`},
		{PreToolUse, `not json`, `not json`},
		// One object and nothing after it: a kept value with a stray
		// "}" or "]" after it is no object vigiles wrote, and is
		// compared as it is.
		{PreToolUse, `{"permissionDecision":"deny"}}`, `{"permissionDecision":"deny"}}`},
		{PreToolUse, `{"permissionDecision":"deny"}]`, `{"permissionDecision":"deny"}]`},
	} {
		if got := decidesAsKept(tc.event, tc.kept); got != tc.want {
			t.Errorf("decidesAsKept(%s, %s) = %s; want %s", tc.event, tc.kept, orDefault(got, `""`), orDefault(tc.want, `""`))
		}
	}
}

// TestBaselineDecidesOfAnEarlierVigilesIsNoDrift: a baseline an earlier
// vigiles wrote keeps in a run's decides what Claude Code does not read
// there (an updatedInput beside permissionDecision "defer"), which
// decidesOf now leaves out: the same hook's run is no drift from it.
func TestBaselineDecidesOfAnEarlierVigilesIsNoDrift(t *testing.T) {
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{},
			Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","updatedInput":{"command":"ls"}}}`}, nil
	}}
	dir := makeTree(t, map[string]string{
		".vigiles.yml":                   "plugins:\n  untrusted: [\"plugins/*\"]\n",
		"plugins/guard/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true guard"}]}]}}`,
	})
	const base = ".vigiles/baseline.json"
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: update, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	audit(true)
	p := filepath.Join(dir, base)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const now, earlier = `"decides": "{\"permissionDecision\":\"defer\"}"`, `"decides": "{\"permissionDecision\":\"defer\",\"updatedInput\":{\"command\":\"ls\"}}"`
	if !strings.Contains(string(data), now) {
		t.Fatalf("the baseline keeps no %s:\n%s", now, data)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), now, earlier, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := audit(false); len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
		t.Errorf("the same run against an earlier vigiles' baseline: drift %v, verdict %s:\n%s", driftOf(rep), rep.Verdict, findingLines(rep.Findings))
	}
}
