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
// says so; on an event exit 2 does not block the reason says that
// onFailure changes nothing there. A run that timed out keeps its
// outcome, error (its record ends at the timeout), and its reason says
// what onFailure does then (runSettings.timedOut). A run vigiles refused
// or failed to make, and a WorktreeCreate hook (any failure already
// fails it), are left as they are.
func failBlocks(event, value string, res *sandbox.Result, runErr error, d Decision) Decision {
	if runErr != nil || res == nil || res.Error != "" || res.TimedOut || res.Tier == sandbox.TierRefused || outcomeRules[event].pathOutput {
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

// blocksOnFailure says whether onFailure "block" makes Claude Code block
// a call of event with the matcher value value when the hook fails: where
// exit status 2 blocks it.
func blocksOnFailure(event, value string) bool {
	rules := outcomeRules[event]
	return (!rules.ignoresOutput || rules.nonZeroFails) && !rules.exit2Allows && !slices.Contains(rules.unblockable, value)
}
