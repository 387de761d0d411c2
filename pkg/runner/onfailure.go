package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// failBlocks reads d, the outcome of a run of a hook of event (sent with
// the matcher value value) whose handler sets onFailure "block", as
// Claude Code 2.1.295 and later read it: a hook that cannot start, times
// out, exits with a status other than 0 and 2 (a kill among them) or
// prints JSON that Claude Code cannot parse or that fails its schema
// (jsonFailure) blocks the action instead of letting it through. vigiles
// reads such a failure as exit status 2 on that event: blocked where exit
// 2 blocks (DecideValue of the run as if it had exited 2), with a reason
// that says so; a PermissionRequest is denied (where exit 2 is not
// honoured); on Stop, SubagentStop, TaskCompleted and TeammateIdle
// Claude Code ignores onFailure, and on an event exit 2 does not block
// it changes nothing: the reason says which. A run that timed out keeps
// its outcome, error (its record ends at the timeout), and its reason
// says what onFailure does then (runSettings.timedOut). A run vigiles
// refused or failed to make, and a WorktreeCreate or WorktreeRemove hook
// (any failure already fails it), are left as they are.
func failBlocks(event, value string, res *sandbox.Result, runErr error, d Decision) Decision {
	if runErr != nil || res == nil || res.Error != "" || res.TimedOut || res.Tier == sandbox.TierRefused || outcomeRules[event].pathOutput || outcomeRules[event].nonZeroFails {
		return d
	}
	how := ""
	switch {
	case res.Signal != "":
		how = "killed by " + res.Signal
	case res.ExitCode != 0 && res.ExitCode != 2:
		how = fmt.Sprintf("exit status %d", res.ExitCode)
	case res.ExitCode == 0:
		if how = jsonFailure(event, res); how == "" {
			return d
		}
	default:
		return d
	}
	switch {
	case onFailureIgnored(event):
		d.Reason = strings.TrimPrefix(d.Reason+"; ", "; ") + fmt.Sprintf("its onFailure block changes nothing here: Claude Code ignores onFailure on %s hooks", event)
		return d
	case event == PermissionRequest:
		return Decision{Outcome: report.OutcomeBlocked, Output: d.Output, Unread: d.Unread, FailBlocked: true, Failure: how,
			Reason: fmt.Sprintf("%s, which onFailure block makes Claude Code read as a block: it denies the permission request: %s", how, orDefault(clip(stderrText(res), maxReason), "(no message on stderr)"))}
	}
	as2 := *res
	as2.ExitCode, as2.Signal = 2, ""
	d2 := DecideValue(event, value, &as2, nil)
	if d2.Outcome != report.OutcomeBlocked {
		d.Reason = strings.TrimPrefix(d.Reason+"; ", "; ") + fmt.Sprintf("its onFailure block changes nothing here: Claude Code reads the failure as exit status 2, which does not block %s", event)
		return d
	}
	d2.Reason = fmt.Sprintf("%s, which onFailure block makes Claude Code read as exit status 2: %s", how, strings.TrimPrefix(d2.Reason, "exit status 2: "))
	d2.FailBlocked, d2.Failure = true, how
	return d2
}

// onFailureIgnored says whether Claude Code ignores a handler's
// onFailure on event's hooks: on Stop, SubagentStop, TaskCompleted and
// TeammateIdle a failure is let through whatever it says (its schema's
// description of the key, and the events its code leaves out).
func onFailureIgnored(event string) bool {
	switch event {
	case Stop, SubagentStop, TaskCompleted, TeammateIdle:
		return true
	}
	return false
}

// jsonFailure says how the stdout of res, a run of a hook of event that
// exited 0, is a failure to Claude Code: output it tries to read as JSON
// (an object from its first character to its last) and cannot parse, or
// an object that fails its schema (checkSchema), on an event whose
// decision model reads JSON; "" for any other output. Lines that each
// parse as JSON on their own and none of which sets a field are text to
// Claude Code, not a failure.
func jsonFailure(event string, res *sandbox.Result) string {
	rules := outcomeRules[event]
	if rules.ignoresOutput || rules.pathOutput || res.StdoutTruncated {
		return ""
	}
	t := strings.TrimSpace(string(outputBytes(res.StdoutBytes(), res.Stdout, res.StdoutEncoding)))
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		return ""
	}
	out, ok := ParseOutput([]byte(t))
	if !ok {
		if jsonLinesOfNoField(t) {
			return ""
		}
		return "its JSON output does not parse"
	}
	if obj, isObj := out.(map[string]any); isObj {
		if why := checkSchema(event, obj); why != "" {
			return "its JSON output fails Claude Code's schema (" + why + ")"
		}
	}
	return ""
}

// outputFields are the top-level fields of a hook's JSON output that
// Claude Code reads (hooks.md, "JSON output").
var outputFields = []string{"continue", "stopReason", "suppressOutput", "systemMessage", "terminalSequence", "decision", "reason", "hookSpecificOutput"}

// jsonLinesOfNoField says whether t is two or more lines that each parse
// as JSON on their own, none an object that sets a field of outputFields:
// Claude Code reads such output as plain text.
func jsonLinesOfNoField(t string) bool {
	lines := 0
	for _, l := range strings.Split(t, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		v, ok := ParseOutput([]byte(l))
		if !ok {
			var scalar any
			if json.Unmarshal([]byte(l), &scalar) != nil {
				return false
			}
			lines++
			continue
		}
		if obj, isObj := v.(map[string]any); isObj && slices.ContainsFunc(outputFields, func(k string) bool { _, has := obj[k]; return has }) {
			return false
		}
		lines++
	}
	return lines >= 2
}

// blocksOnFailure says whether onFailure "block" makes Claude Code block
// a call of event with the matcher value value when the hook fails: where
// exit status 2 blocks it, and a PermissionRequest, which it denies; not
// on the events where it ignores onFailure.
func blocksOnFailure(event, value string) bool {
	if onFailureIgnored(event) {
		return false
	}
	if event == PermissionRequest {
		return true
	}
	rules := outcomeRules[event]
	return (!rules.ignoresOutput || rules.nonZeroFails) && !rules.exit2Allows && !slices.Contains(rules.unblockable, value)
}
