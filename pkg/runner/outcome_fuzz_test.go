package runner

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// FuzzDecideOutput feeds hook output (bytes the hook controls) to the
// outcome rules: they never panic, exit 2 always blocks, a reason taken
// from hook output stays bounded, and the outcome is one of the two an
// agent can act on.
func FuzzDecideOutput(f *testing.F) {
	f.Add([]byte(`{"continue":false,"stopReason":"no"}`), "", 0)
	f.Add([]byte(`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"rm -rf"}}`), "", 0)
	f.Add([]byte(`{"decision":"block","reason":"x"}`), "", 0)
	f.Add([]byte(`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"m"}}}`), "", 0)
	f.Add([]byte("not json ::error::x"), "blocked\n", 2)
	f.Add([]byte(`[1,2,{"continue":false}]`), "", 0)
	f.Add([]byte("{\"continue\":false,\"stopReason\":\"\xff\xfe\u2028\"}"), "", 0)
	f.Fuzz(func(t *testing.T, stdout []byte, stderr string, exit int) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: exit, Stdout: string(stdout), Stderr: stderr}
		d := Decide(PreToolUse, res, nil)
		switch d.Outcome {
		case report.OutcomeAllowed, report.OutcomeBlocked:
		default:
			t.Fatalf("outcome %q for a finished run", d.Outcome)
		}
		if exit == 2 && d.Outcome != report.OutcomeBlocked {
			t.Fatalf("exit 2 did not block: %+v", d)
		}
		if len(d.Reason) > maxReason+200 {
			t.Fatalf("reason of %d bytes", len(d.Reason))
		}
		if utf8.ValidString(stderr) && utf8.Valid(stdout) && !utf8.ValidString(d.Reason) {
			t.Fatalf("valid input gave an invalid UTF-8 reason %q", d.Reason)
		}
		if d.Outcome == report.OutcomeBlocked && exit != 2 && !strings.Contains(string(stdout), "{") {
			t.Fatalf("blocked without exit 2 or JSON: %+v", d)
		}
	})
}
