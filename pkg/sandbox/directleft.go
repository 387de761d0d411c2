package sandbox

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/pkg/sandbox/reaper"
	"golang.org/x/sys/unix"
)

// A direct run's lingered list. The command starts a session of its own
// (its pid is the session's and its process group's id), and what it
// leaves is read from /proc: every process of that session or group, and
// every process below one of them or below the main process while it
// runs. That is what the run can see without a sandbox's pid namespace:
// a process that moved to another session (setsid, or a daemon's double
// fork) and whose parent has then exited is reparented out of sight, and
// it is neither listed nor ended. Nor is the answer the kernel's, as the
// reaper's is: two reads of /proc that list nothing are taken for
// nothing, and a process that forks and exits without pause could slip
// between both.

// readProcEntry reads what a direct run reads of process pid, in
// /proc/PID/stat (procwait.Read); false where it cannot.
func readProcEntry(pid int) (procwait.Entry, bool) {
	e, err := procwait.Read(pid)
	return e, err == nil
}

// directMembers lists, in pid order with their start times, the processes
// of the direct run whose main process is s, but s itself: those of its
// session or process group, and those below one of them or below s.
func directMembers(s int) ([]int, map[int]procwait.Entry) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, nil
	}
	procs := map[int]procwait.Entry{}
	for _, d := range ents {
		if pid, err := strconv.Atoi(d.Name()); err == nil {
			if e, ok := readProcEntry(pid); ok {
				procs[pid] = e
			}
		}
	}
	return membersIn(s, procs), procs
}

// membersIn is directMembers over procs, what one read of /proc gave.
func membersIn(s int, procs map[int]procwait.Entry) []int {
	member := map[int]bool{s: true}
	for pid, e := range procs {
		if e.Session == s || e.Pgrp == s {
			member[pid] = true
		}
	}
	// Below a member: walk up each process's parents (bounded, as a
	// chain read across changes could loop) to the first it is known of.
	known := map[int]bool{}
	var below func(pid, depth int) bool
	below = func(pid, depth int) bool {
		if member[pid] {
			return true
		}
		if v, ok := known[pid]; ok || depth > 4096 {
			return v
		}
		// A parent that started after its child is a pid reused while
		// /proc was read, not the child's parent: the chain ends there.
		e, ok := procs[pid]
		p, pok := procs[e.PPid]
		v := ok && e.PPid > 1 && e.PPid != pid && (!pok || p.Start <= e.Start) && below(e.PPid, depth+1)
		known[pid] = v
		return v
	}
	var pids []int
	for pid := range procs {
		if pid != s && below(pid, 0) {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// directLeft is the lingered list of the direct run whose main process
// is s: what directMembers finds alive (reaper.List leaves out what has
// ended), from two reads of /proc where the first finds none; and what
// that read found of each process (its start time).
func directLeft(s int) ([]reaper.Process, map[int]procwait.Entry) {
	for range 2 {
		pids, procs := directMembers(s)
		if left := reaper.List(pids, "/proc"); len(left) > 0 {
			return left, procs
		}
	}
	return nil, nil
}

// lingerDirect gives what the direct run whose main process s exited at
// exitedAt left running the linger d from that exit, as the reaper gives
// a confined run's: it returns at once when nothing is left, else once
// the linger is over (or ctx is done) with what is left then, for the
// caller to end. While those it found run, it looks at them alone every
// 20 ms, not at all of /proc; once they have ended, at all of it again
// (what they started meanwhile).
func lingerDirect(ctx context.Context, s int, exitedAt time.Time, d time.Duration) []reaper.Process {
	deadline := exitedAt.Add(d)
	for {
		left, procs := directLeft(s)
		if len(left) == 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
			return left
		}
		// Their start times as the read that listed them gave them.
		watch := map[int]uint64{}
		for _, p := range left {
			if e, ok := procs[p.Pid]; ok && p.Pid > 0 {
				watch[p.Pid] = e.Start
			}
		}
		for stillRunning(watch) && time.Now().Before(deadline) && ctx.Err() == nil {
			t := time.NewTimer(min(20*time.Millisecond, time.Until(deadline)))
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
	}
}

// stillRunning says whether any process of watch (a pid and its start
// time) has not ended.
func stillRunning(watch map[int]uint64) bool {
	var live []int
	for pid, start := range watch {
		if e, ok := readProcEntry(pid); ok && e.Start == start {
			live = append(live, pid)
		}
	}
	return len(reaper.List(live, "/proc")) > 0
}

// endDirect kills what the direct run whose main process is s has left:
// its process group at once, then each process directMembers finds, until
// none is found (what one forks meanwhile is found in the next read), a
// second at most. Each is killed through a pidfd opened before its start
// time is read again, so that a pid that ended and was reused meanwhile
// is not killed; where the kernel gives no pidfds, by its pid once its
// start time is read again.
func endDirect(s int) {
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		_ = unix.Kill(-s, unix.SIGKILL)
		pids, procs := directMembers(s)
		if len(reaper.List(pids, "/proc")) == 0 {
			return
		}
		for _, pid := range pids {
			killIfSame(pid, procs[pid].Start)
		}
	}
}

// killIfSame sends SIGKILL to pid where it is still the process that
// started at start.
func killIfSame(pid int, start uint64) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if t, err := procwait.StartTime(pid); err == nil && t == start {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		return
	}
	defer unix.Close(fd)
	if t, err := procwait.StartTime(pid); err == nil && t == start {
		_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	}
}

// exitedNoReap returns once the child pid has exited, leaving it a zombie
// for os/exec to reap: while it is one, its pid, which is its session's
// and its group's id, is not taken by another process.
func exitedNoReap(pid int) {
	procwait.Exited(pid)
	var info unix.Siginfo
	for {
		// Without a pidfd Exited returned at once: wait here, in the
		// kernel (a thread held, where no poller can do it).
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil); !errors.Is(err, unix.EINTR) {
			return
		}
	}
}

// reapGroup reaps the children of this process in the process group of
// s, the direct run's command, which has just been killed: the orphans of
// the command that came to this process (becomeSubreaper). It is called
// before s is reaped, and leaves s to os/exec: while s is not reaped, its
// pid, the group's id, is not taken, so that every process of that group
// is the run's; once it was reaped, a group of that id could be another's
// (the pid reused and made a group's leader), whose children a wait for
// the group would reap. Each is reaped through a pidfd opened before its
// group and parent are read again. It waits while the group still has a
// child of this process that has not exited, 200 ms at most. A process
// the command moved out of its group (setsid) lives on, in the open, as a
// direct run's may, and once it exits is reaped at the end of a run
// (reapStrays). Where this process is no subreaper, no process of the
// group but s is its child: nothing is read.
func reapGroup(s int) {
	if !subreaper.Load() {
		return
	}
	for deadline := time.Now().Add(200 * time.Millisecond); ; time.Sleep(time.Millisecond) {
		kids := groupChildren(s)
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			reapInGroup(pid, s)
		}
		if time.Now().After(deadline) {
			return
		}
	}
}

// groupChildren lists this process's children in the process group s,
// but s: from the kernel's list of them (childrenOf), or, where it has
// none (CONFIG_PROC_CHILDREN), from every process's stat.
func groupChildren(s int) []int {
	self := os.Getpid()
	var kids []int
	pids, ok := childrenOf(self)
	if !ok {
		_, procs := directMembers(s)
		for pid, e := range procs {
			if e.PPid == self && e.Pgrp == s && pid != s {
				kids = append(kids, pid)
			}
		}
		return kids
	}
	for _, pid := range pids {
		if pid != s {
			if e, ok := readProcEntry(pid); ok && e.Pgrp == s {
				kids = append(kids, pid)
			}
		}
	}
	return kids
}

// reapInGroup reaps pid, a child of this process in the process group s,
// where it has exited: through a pidfd opened before its parent and group
// are read again, so that a pid reaped meanwhile (reapStrays) and reused
// is not; where the kernel gives no pidfds, by its pid, which nothing
// else reaps then (reapStrays does not, os/exec reaps its own).
func reapInGroup(pid, s int) {
	ours := func() bool {
		e, ok := readProcEntry(pid)
		return ok && e.PPid == os.Getpid() && e.Pgrp == s
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if !pidfds() && ours() {
			var ws unix.WaitStatus
			_, _ = unix.Wait4(pid, &ws, unix.WNOHANG|unix.WALL, nil)
		}
		return
	}
	defer unix.Close(fd)
	if ours() {
		// Where waitid knows no pidfds (Linux 5.3), the end of the run
		// reaps it (reapStrays).
		var info unix.Siginfo
		_ = unix.Waitid(unix.P_PIDFD, fd, &info, unix.WEXITED|unix.WNOHANG|unix.WALL, nil)
	}
}
