package runner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPreCompactCustomInstructionsNull: a PreCompact hook reads
// custom_instructions null, on an automatic compaction and on a manual
// one whose /compact names no instructions (the hooks reference's
// "PreCompact input"; Claude Code's compaction passes null there), not
// the empty string earlier copies of the reference showed: a hook that
// tells null from "" took a path no session takes, or told the audit.
// The hook, confined, prints its stdin, which is what it was sent.
func TestPreCompactCustomInstructionsNull(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := pluginTree(t, `{"PreCompact":[{"matcher":"manual","hooks":[{"type":"command","command":"cat"}]},
 {"matcher":"auto","hooks":[{"type":"command","command":"cat; echo"}]}]}`, nil)
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	runs := runsOf(rep, PreCompact)
	if len(runs) != 2 {
		t.Fatalf("PreCompact runs: %+v", rep.Runs)
	}
	seen := map[string]bool{}
	for _, r := range runs {
		var in map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &in); err != nil {
			t.Fatalf("%s: stdout is not the payload: %v: %q", r.ID, err, r.Stdout)
		}
		trigger, _ := in["trigger"].(string)
		seen[trigger] = true
		v, has := in["custom_instructions"]
		if !has || v != nil {
			t.Errorf("%s (trigger %s): custom_instructions %#v (present %v), want null", r.ID, trigger, v, has)
		}
	}
	if !seen["manual"] || !seen["auto"] {
		t.Errorf("triggers sent: %v, want manual and auto", seen)
	}
	if got := string(BuildPayload(PreCompact, "auto", "/repo", nil, nil).JSON()); !strings.Contains(got, `"trigger":"auto","custom_instructions":null`) {
		t.Errorf("payload: %s", got)
	}
}
