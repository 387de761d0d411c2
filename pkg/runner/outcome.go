package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// Decision is a hook's outcome as the agent would read it.
type Decision struct {
	Outcome string // report.Outcome*
	Reason  string
	// Output is stdout parsed as JSON when stdout is a JSON value (and the
	// hook exited 0, the only case where the agent reads it); nil otherwise.
	Output any
}

// maxReason bounds the reason copied from hook output.
const maxReason = 2000

// clip trims s and cuts it to at most n bytes (cutBytes).
func clip(s string, n int) string {
	return cutBytes(strings.TrimSpace(s), n)
}

// ParseOutput parses a hook's stdout as JSON when it is JSON.
func ParseOutput(stdout []byte) (any, bool) {
	t := strings.TrimSpace(string(stdout))
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	return normalizeJSON(v), true
}

// normalizeJSON turns json.Number into float64 so values compare like
// YAML values do.
func normalizeJSON(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeJSON(e)
		}
	}
	return v
}

// Decide reads the outcome of a finished run: blocked when the hook exits
// 2, or exits 0 with JSON whose continue is false, whose
// hookSpecificOutput.permissionDecision is "deny", whose
// hookSpecificOutput.decision.behavior is "deny" (PermissionRequest), or
// whose legacy decision is "block" or "deny"; an error when vigiles could
// not run it or it timed out; allowed otherwise (another non-zero exit is
// a non-blocking error to the agent, which carries on).
func Decide(res *sandbox.Result, runErr error) Decision {
	if res != nil && res.Tier == sandbox.TierRefused {
		return Decision{Outcome: report.OutcomeError, Reason: "refused: " + orDefault(res.Refusal, res.Error)}
	}
	if runErr != nil {
		return Decision{Outcome: report.OutcomeError, Reason: "vigiles could not run the hook: " + runErr.Error()}
	}
	if res == nil {
		return Decision{Outcome: report.OutcomeError, Reason: "no run result"}
	}
	switch {
	case res.Error != "":
		return Decision{Outcome: report.OutcomeError, Reason: "the run failed: " + res.Error}
	case res.TimedOut:
		return Decision{Outcome: report.OutcomeError, Reason: fmt.Sprintf("timed out after %.0f ms; the agent cancels the hook and carries on", res.DurationMs)}
	case res.Signal != "" && res.ExitCode != 2:
		return Decision{Outcome: report.OutcomeAllowed, Reason: "killed by " + res.Signal + ": a non-blocking error, the agent carries on"}
	}
	stdout := res.StdoutBytes()
	if stdout == nil {
		stdout = []byte(res.Stdout)
	}
	stderr := res.Stderr
	if res.ExitCode == 2 {
		r := clip(stderr, maxReason)
		if r == "" {
			r = "(no message on stderr)"
		}
		return Decision{Outcome: report.OutcomeBlocked, Reason: "exit status 2: " + r}
	}
	if res.ExitCode != 0 {
		return Decision{Outcome: report.OutcomeAllowed, Reason: fmt.Sprintf("exit status %d: a non-blocking error, the agent carries on", res.ExitCode)}
	}
	if res.StdoutTruncated {
		// The agent reads all of stdout; the run kept only its cap. What
		// starts as JSON (or is blank so far) may decide the call in
		// the part that was dropped: the outcome is not known.
		if t := strings.TrimSpace(string(stdout)); t == "" || t[0] == '{' || t[0] == '[' {
			return Decision{Outcome: report.OutcomeError, Reason: "the outcome cannot be read: the hook exited 0 and printed more on stdout than the run keeps (its output cap), and what was kept may be the start of JSON that decides the call"}
		}
	}
	out, ok := ParseOutput(stdout)
	if !ok {
		return Decision{Outcome: report.OutcomeAllowed}
	}
	d := Decision{Outcome: report.OutcomeAllowed, Output: out}
	obj, _ := out.(map[string]any)
	if obj == nil {
		return d
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	if c, ok := obj["continue"].(bool); ok && !c {
		d.Outcome = report.OutcomeBlocked
		d.Reason = "continue: false: " + orDefault(clip(str(obj, "stopReason"), maxReason), "(no stopReason)")
		return d
	}
	if hso, ok := obj["hookSpecificOutput"].(map[string]any); ok {
		switch strings.ToLower(str(hso, "permissionDecision")) {
		case "deny":
			d.Outcome = report.OutcomeBlocked
			d.Reason = "permissionDecision deny: " + orDefault(clip(str(hso, "permissionDecisionReason"), maxReason), "(no reason)")
			return d
		case "ask":
			d.Reason = "permissionDecision ask: the agent asks the user"
		}
		if dec, ok := hso["decision"].(map[string]any); ok && strings.ToLower(str(dec, "behavior")) == "deny" {
			d.Outcome = report.OutcomeBlocked
			d.Reason = "decision.behavior deny: " + orDefault(clip(str(dec, "message"), maxReason), "(no message)")
			return d
		}
	}
	switch strings.ToLower(str(obj, "decision")) {
	case "block", "deny":
		d.Outcome = report.OutcomeBlocked
		d.Reason = "decision " + strings.ToLower(str(obj, "decision")) + ": " + orDefault(clip(str(obj, "reason"), maxReason), "(no reason)")
	}
	return d
}
