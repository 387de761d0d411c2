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
// out or exits with a status other than 0 and 2 (a kill among them)
// blocks the action instead of letting it through. vigiles reads such a
// failure as exit status 2 on that event: blocked where exit 2 blocks
// (DecideValue of the run as if it had exited 2), with a reason that
// says so; on an event exit 2 does not block, and for a run that timed
// out (whose outcome stays error: its record ends at the timeout), the
// reason says what onFailure does there. A run vigiles refused or failed
// to make, and a WorktreeCreate hook (any failure already fails it), are
// left as they are.
func failBlocks(event, value string, res *sandbox.Result, runErr error, d Decision) Decision {
	rules := outcomeRules[event]
	if runErr != nil || res == nil || res.Error != "" || res.Tier == sandbox.TierRefused || rules.pathOutput {
		return d
	}
	if res.TimedOut {
		if !rules.ignoresOutput && !rules.exit2Allows && !slices.Contains(rules.unblockable, value) {
			// Claude Code cancels it, but does not carry on.
			const carries = "the agent cancels the hook and carries on"
			if strings.Contains(d.Reason, carries) {
				d.Reason = strings.Replace(d.Reason, carries, "the agent cancels the hook and, as its onFailure block says, blocks the call", 1)
			} else {
				d.Reason += "; its onFailure block makes Claude Code block the call when the hook times out"
			}
		}
		return d
	}
	how := ""
	switch {
	case res.Signal != "":
		how = "killed by " + res.Signal
	case res.ExitCode != 0 && res.ExitCode != 2:
		how = fmt.Sprintf("exit status %d", res.ExitCode)
	default:
		return d
	}
	as2 := *res
	as2.ExitCode, as2.Signal = 2, ""
	d2 := DecideValue(event, value, &as2, nil)
	if d2.Outcome != report.OutcomeBlocked {
		d.Reason += fmt.Sprintf("; its onFailure block changes nothing here: Claude Code reads the failure as exit status 2, which does not block %s", event)
		return d
	}
	d2.Reason = fmt.Sprintf("%s, which onFailure block makes Claude Code read as exit status 2: %s", how, strings.TrimPrefix(d2.Reason, "exit status 2: "))
	d2.FailBlocked = true
	return d2
}
