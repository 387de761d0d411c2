package escape

import (
	"regexp"
	"strconv"
	"testing"
)

// TestRedteam16ReaperSchedulingIsItsOwn: the sixteenth round's attempts
// (scripts/redteam16.py) on the scheduling of pid 1, the reaper, whose uid
// the command shares, for every caller and a --root-sandbox run, each way
// in a run of its own: util-linux's renice -n 19, ionice -c3, taskset and
// chrt -i on pid 1; setpriority, ioprio_set, sched_setaffinity,
// sched_setscheduler, sched_setparam and sched_setattr on each thread of
// pid 1 by its id; and setpriority and ioprio_set by the process group
// and the uid the command shares with pid 1 (0 and by number). The kernel
// lets a process of the same uid do each to a thread whose permitted
// capabilities are no more than its own: the reaper's forking thread,
// which dropped every capability, ended each run at nice 19, SCHED_IDLE,
// the idle I/O class and one CPU (by group and by uid too, though the
// call answered EPERM for the reaper's other threads, which the Go
// runtime starts from a thread that kept its capabilities). That thread
// now keeps CAP_WAKE_ALARM, permitted and never effective, which grants
// nothing in the sandbox's user namespace: each call answers EPERM, every
// thread of pid 1 reads back as it was, and the command's own calls on
// itself, its child and its threads by id still work.
func TestRedteam16ReaperSchedulingIsItsOwn(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3", "renice", "ionice", "taskset", "chrt")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			for _, way := range []string{"tools", "threads", "pgrp", "user", "own"} {
				t.Run(way, func(t *testing.T) {
					res := vigiles(t, c.runner, workTree(t), nil, c.withArgs([]string{"--", "python3", "redteam16.py", way})...)
					checkScriptRan(t, res, ranOf(t, res))
				})
			}
		})
	}
}

// TestRedteam16ReaperProcAndPidCallsStayOut: the rest of the sixteenth
// round (scripts/redteam16proc.py), for every caller and a --root-sandbox
// run: writing pid 1's files in /proc (oom_score_adj and oom_adj, to be
// the OOM killer's first choice; autogroup, whose nice value is apart
// from the process's; timerslack_ns, comm and each thread's comm,
// clear_refs, coredump_filter, sched, attr/current, loginuid, mem), each
// refused and read back as it was; moving pid 1 by any of its cgroups'
// cgroup.procs (EACCES); kcmp, migrate_pages, move_pages and
// get_robust_list on pid 1 (EPERM: it is non-dumpable, and its forking
// thread holds a capability the command lacks); PR_SET_PTRACER, which
// names who may trace the caller; process_mrelease of pid 1, alive
// (EINVAL); and SIGSTOP, SIGTERM and SIGKILL through a pidfd of pid 1,
// which the kernel drops (every disposition of pid 1 is SIG_DFL): the
// run goes on and ends as the script does.
func TestRedteam16ReaperProcAndPidCallsStayOut(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := vigiles(t, c.runner, workTree(t), nil, c.withArgs([]string{"--", "python3", "redteam16proc.py"})...)
			checkScriptRan(t, res, ranOf(t, res))
		})
	}
}

// ranLine is a sixteenth-round script's last line.
var ranLine = regexp.MustCompile(`(?m)^ran ([0-9]+)$`)

// ranOf is how many attempts a script whose count depends on the machine
// (pid 1's threads, the cgroup hierarchies) says it ran; the test fails
// where it says none or never got that far.
func ranOf(t *testing.T, res result) int {
	t.Helper()
	m := ranLine.FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("the script did not end: exit %d, error %q\nstdout: %s\nstderr: %s", res.ExitCode, res.Error, res.Stdout, res.Stderr)
	}
	n, _ := strconv.Atoi(m[1])
	if n == 0 {
		t.Fatalf("the script ran no attempt\nstdout: %s", res.Stdout)
	}
	return n
}
