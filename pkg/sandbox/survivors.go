package sandbox

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// survivors lists, as the lingered list does, the processes below the
// reaper (pid reaperPid in the init's pid namespace, whose /proc shows the
// command's nested one) but the command's main process: what the command
// had running besides it when its deadline came. Claude Code, at a hook's
// timeout, ends the hook's process; what that process started lives on,
// and what it does then is not in a record vigiles ends at the deadline.
// So a timed-out run that had such processes is one whose record is not
// whole (Result.Lingered), as a run whose main process exited and left
// them is. The main process is the reaper's eldest child (the reaper
// forks it first; other children of the reaper are orphans adopted later);
// after it has exited every process below the reaper counts.
//
// It is a snapshot: a process forked while /proc is read may be missed.
func survivors(reaperPid int) []string {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	type proc struct {
		ppid  int
		start uint64
	}
	procs := map[int]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, start, ok := statOf(pid); ok {
			procs[pid] = proc{ppid, start}
		}
	}
	below := func(pid int) bool {
		for n := 0; n < 4096 && pid > 1; n++ {
			p, ok := procs[pid]
			if !ok {
				return false
			}
			if p.ppid == reaperPid {
				return true
			}
			pid = p.ppid
		}
		return false
	}
	main, mainStart := 0, uint64(0)
	var pids []int
	for pid, p := range procs {
		if !below(pid) {
			continue
		}
		pids = append(pids, pid)
		if p.ppid == reaperPid && (main == 0 || p.start < mainStart || p.start == mainStart && pid < main) {
			main, mainStart = pid, p.start
		}
	}
	slices.Sort(pids)
	pids = slices.DeleteFunc(pids, func(p int) bool { return p == main })
	if len(pids) == 0 {
		return nil
	}
	return reaper.List(pids, "/proc")
}

// statOf reads the parent pid and the start time (clock ticks after boot)
// of pid from /proc/PID/stat.
func statOf(pid int) (ppid int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	// After the name: state, ppid, pgrp, session, tty_nr, tpgid, flags,
	// minflt, cminflt, majflt, cmajflt, utime, stime, cutime, cstime,
	// priority, nice, num_threads, itrealvalue, starttime.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, 0, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	return ppid, start, err1 == nil && err2 == nil
}
