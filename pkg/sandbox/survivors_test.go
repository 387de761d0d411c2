package sandbox

import (
	"strings"
	"testing"
	"time"
)

// TestTimedOutRunListsWhatRanBesideTheMainProcess: at a hook's timeout
// Claude Code ends the hook's process, and what it started lives on; a
// run vigiles ends at its deadline records none of what those do after.
// So the processes that ran beside the main one at the deadline are its
// lingered list, and the record is not whole (the review passed a
// no-write check on a hook that hung past its own short timeout while a
// child wrote .git/hooks after it). A main process alone leaves none.
func TestTimedOutRunListsWhatRanBesideTheMainProcess(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	res := run(t, Spec{Dir: dir, Timeout: time.Second, Command: sh(`(sleep 1.5; echo x > late.txt) & exec sleep 60`)})
	if !res.TimedOut || res.ExitCode != 137 {
		t.Fatalf("timedOut %v exit %d, want a timed-out run", res.TimedOut, res.ExitCode)
	}
	var cmds []string
	for _, e := range res.Lingered {
		_, cmd, _ := strings.Cut(e, " ")
		cmds = append(cmds, cmd)
	}
	if len(cmds) != 2 || !strings.HasPrefix(cmds[0], "/usr/bin/bash -c (sleep 1.5") && !strings.HasPrefix(cmds[0], "bash -c (sleep 1.5") || cmds[1] != "sleep 1.5" {
		t.Errorf("lingered %q, want the background subshell and its sleep (the main process, sleep 60, not listed)", res.Lingered)
	}
	alone := run(t, Spec{Dir: dir, Timeout: time.Second, Command: sh(`exec sleep 60`)})
	if !alone.TimedOut || alone.Lingered != nil {
		t.Errorf("a main process alone at its deadline: timedOut %v lingered %q, want none lingered", alone.TimedOut, alone.Lingered)
	}
}
