package runner

import (
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
// (Decision.BadJSON) blocks the action instead of letting it through. vigiles
// reads such a failure as exit status 2 on that event: blocked where exit
// 2 blocks (DecideValue of the run as if it had exited 2), with a reason
// that says so; a PermissionRequest is denied (where exit 2 is not
// honoured); on Stop, SubagentStop, TaskCompleted and TeammateIdle
// Claude Code ignores onFailure, and on an event exit 2 does not block
// it changes nothing: the reason says which. A run that timed out keeps
// its outcome, error (its record ends at the timeout), and its reason
// says what onFailure does then (runSettings.timedOut). A run vigiles
// refused or failed to make, and a WorktreeCreate or WorktreeRemove hook
// (any failure already fails it), are left as they are. An async hook's
// run is not read so: Claude Code ignores onFailure there too, and its
// reason says so (asyncOnFailure).
func failBlocks(event, value string, res *sandbox.Result, runErr error, d Decision) Decision {
	how := failureOf(event, res, runErr, d)
	switch {
	case how == "":
		return d
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

// failureOf says how a run of a hook of event, with the outcome d,
// failed as onFailure reads a failure (failBlocks): "exit status 1",
// "killed by SIGSEGV", JSON Claude Code cannot read; "" for a run that
// did not fail so, or that failBlocks leaves as it is.
func failureOf(event string, res *sandbox.Result, runErr error, d Decision) string {
	if runErr != nil || res == nil || res.Error != "" || res.TimedOut || res.Tier == sandbox.TierRefused || outcomeRules[event].failsOnNonZero() {
		return ""
	}
	switch {
	case res.Signal != "":
		return "killed by " + res.Signal
	case res.ExitCode != 0 && res.ExitCode != 2:
		return fmt.Sprintf("exit status %d", res.ExitCode)
	case res.ExitCode == 0 && d.BadJSON != "":
		return d.BadJSON
	}
	return ""
}

// asyncOnFailure is what a run of an async hook whose handler sets
// onFailure "block" adds to its reason where it failed (failureOf):
// Claude Code ignores onFailure on async hooks, so the failure blocks
// nothing.
const asyncOnFailure = "it runs async, so its onFailure block does not apply: Claude Code ignores onFailure on async hooks"

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
