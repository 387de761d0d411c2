package sandbox

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestLingerDoesNotStretchTheTimeout: --timeout bounds the command from its
// start, whatever --linger says; the linger is only for what a main process
// that exited within its timeout leaves behind. (The linger used to be
// added to the deadline: a command still running at its timeout ran on for
// the linger, and what it wrote then was recorded as the run's.)
func TestLingerDoesNotStretchTheTimeout(t *testing.T) {
	requireConfinement(t)
	for _, tc := range []struct {
		name     string
		command  []string
		timedOut bool
		// wrote is the file the run's record must hold (the leftover's
		// write, after the timeout but within the linger); notWrote one it
		// must not (a write after the timeout by a command still running).
		wrote, notWrote string
		lingered        string // in the lingered list
		maxDurationMs   float64
		// timeout and linger are the run's, 1 s and 4 s where 0.
		timeout, linger time.Duration
	}{
		{
			// A timed-out run's durationMs is the broker's wall time,
			// the sandbox's set-up and record included, which a loaded
			// machine running the -race binary as the init stretches
			// by seconds: with a 4 s linger, a deadline stretched to 5 s
			// was told apart from 1 s by a bound a starved set-up could
			// pass. With a 60 s linger, a stretched deadline outlasts
			// the sleep: the run would not time out, and would take 30 s.
			name:          "a command still running is killed at its timeout",
			command:       []string{"sleep", "30"},
			timedOut:      true,
			maxDurationMs: 20000,
			timeout:       time.Second,
			linger:        60 * time.Second,
		},
		{
			name:     "a command still running writes nothing after its timeout",
			command:  []string{"sh", "-c", "sleep 2.5; echo late > late.txt; sleep 10"},
			timedOut: true,
			notWrote: "late.txt",
		},
		{
			// The child writes after the main process's timeout has
			// passed, well within the linger: the linger runs from the
			// main process's exit, not from its start. The timeout is
			// 3 s: the main process exits in time on a loaded machine
			// too (a starved one had not at 1 s, and timed out).
			name:     "leftovers of a command that exited in time get the whole linger",
			command:  sh("(sleep 3.5; echo child > child.txt; sleep 30) >/dev/null 2>&1 & echo main done"),
			timeout:  3 * time.Second,
			linger:   6 * time.Second,
			wrote:    "child.txt",
			lingered: "sleep 30",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, nil)
			timeout, linger := time.Second, 4*time.Second
			if tc.timeout > 0 {
				timeout, linger = tc.timeout, tc.linger
			}
			res := run(t, Spec{Dir: dir, Timeout: timeout, Linger: linger, Command: tc.command})
			if res.TimedOut != tc.timedOut {
				t.Errorf("timedOut = %v, want %v (exit %d, %.0f ms, stderr %q)", res.TimedOut, tc.timedOut, res.ExitCode, res.DurationMs, res.Stderr)
			}
			if tc.timedOut && (res.ExitCode != 137 || res.LimitHit != "wall-time") {
				t.Errorf("exit %d, limitHit %q; want 137 and wall-time", res.ExitCode, res.LimitHit)
			}
			if !tc.timedOut && res.ExitCode != 0 {
				t.Errorf("exit %d, want 0 (stderr %q)", res.ExitCode, res.Stderr)
			}
			if tc.maxDurationMs > 0 && res.DurationMs >= tc.maxDurationMs {
				t.Errorf("durationMs = %.0f, want under %.0f: the deadline was stretched by the linger", res.DurationMs, tc.maxDurationMs)
			}
			written := map[string]bool{}
			for _, w := range res.Writes {
				written[w.Path] = true
			}
			if tc.wrote != "" && !written[tc.wrote] {
				t.Errorf("%s is not in the record: %+v", tc.wrote, res.Writes)
			}
			if tc.notWrote != "" && written[tc.notWrote] {
				t.Errorf("%s, written after the deadline, is in the record: %+v", tc.notWrote, res.Writes)
			}
			if tc.lingered != "" && !strings.Contains(strings.Join(res.Lingered, "\n"), tc.lingered) {
				t.Errorf("lingered = %q, want %q listed", res.Lingered, tc.lingered)
			}
		})
	}
}

// TestInitDeadlineFollowsTheMainProcess: the init's deadline for a stand-in
// reaper is the timeout until the reaper says the main process exited
// (reaper.FdExited), and the linger plus lingerGrace from then. Time bounds
// here are generous correctness bounds, not measurements.
func TestInitDeadlineFollowsTheMainProcess(t *testing.T) {
	status := fmt.Sprintf(`{"protocol":%d,"exitCode":0,"signal":"","lingered":[{"pid":7,"cmdline":"sleep\u0000100"}]}`, reaper.Protocol)
	for _, tc := range []struct {
		name     string
		script   string
		linger   time.Duration
		timedOut bool
		within   time.Duration // run returns before this
	}{
		{
			name:     "no exit notice: killed at the timeout, not the timeout and the linger",
			script:   `cat <&3 >/dev/null; exec sleep 60`,
			linger:   30 * time.Second,
			timedOut: true,
			within:   10 * time.Second,
		},
		{
			// The status comes 3 s after the exit, past the 2 s
			// timeout: within the linger, it is no timeout. (The
			// timeout leaves the shell 2 s to start and say the exit,
			// which a loaded machine may need.)
			name:   "an exit in time: the status may come within the linger",
			script: `cat <&3 >/dev/null; printf x >&5; exec 5>&-; sleep 3; printf '%s' "$STATUS" >&4; exec 4>&-; exit 0`,
			linger: 20 * time.Second,
			within: 10 * time.Second,
		},
		{
			name:     "an exit in time, and no status within the linger: killed",
			script:   `cat <&3 >/dev/null; printf x >&5; exec 5>&-; exec sleep 60`,
			linger:   300 * time.Millisecond,
			timedOut: true,
			within:   10 * time.Second,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rp := fakeReaperScript(t, tc.script, status)
			start := time.Now()
			st, timedOut, settle, err := rp.run(initConfig{Timeout: 2 * time.Second, Linger: tc.linger}, reaper.CommandDoc{})
			took := time.Since(start)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if err := settle(); err != nil {
				t.Errorf("settle: %v", err)
			}
			if timedOut != tc.timedOut {
				t.Errorf("timedOut = %v after %v, want %v", timedOut, took, tc.timedOut)
			}
			if !tc.timedOut && len(st.Lingered) != 1 {
				t.Errorf("status = %+v, want the stand-in's", st)
			}
			if took >= tc.within {
				t.Errorf("run took %v, want under %v", took, tc.within)
			}
		})
	}
}
