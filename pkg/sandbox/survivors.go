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
// after it has exited (mainGone: its notice came) every process below the
// reaper counts.
//
// Whether any is left is the kernel's answer, not the scan's (a process
// that forks and exits without pause, its pid new at every read, slips
// between the scan's reads of /proc, and a main process's unreaped
// children make the scan slow): the reaper's direct children, read whole
// from /proc (the kernel lists them under its lock), then the main
// process's, then the reaper's again. A process below the main one is
// among its children or below one of them; once it, or a descendant, is
// orphaned, it is the reaper's child, and each of its later incarnations
// is too. Where the kernel says some are left and the scan listed none,
// they are listed as reaper.LingeredUnlisted.
func survivors(reaperPid int, mainGone bool) []string {
	listed := scanSurvivors(reaperPid, mainGone)
	if len(listed) > 0 {
		return listed
	}
	if othersBelow(reaperPid, mainGone) {
		return []string{reaper.LingeredUnlisted}
	}
	return nil
}

// othersBelow says whether the kernel shows a process below the reaper
// but the main one (its eldest child): a child of the reaper's other than
// that, or any child of the main process's (a zombie it did not reap
// too). Where the children cannot be read, it says yes.
func othersBelow(reaperPid int, mainGone bool) bool {
	first, ok := childrenOf(reaperPid)
	if !ok || mainGone && len(first) > 0 {
		return true
	}
	main, mainStart := 0, uint64(0)
	for _, c := range first {
		if _, start, ok := statOf(c); ok && (main == 0 || start < mainStart || start == mainStart && c < main) {
			main, mainStart = c, start
		}
	}
	if len(first) > 1 {
		return true
	}
	if main != 0 {
		kids, ok := childrenOf(main)
		if !ok && statExists(main) || len(kids) > 0 {
			return true
		}
	}
	again, ok := childrenOf(reaperPid)
	return !ok || slices.ContainsFunc(again, func(c int) bool { return c != main })
}

// childrenOf lists the children of every thread of pid, as the kernel's
// /proc/PID/task/TID/children gives them; false where they cannot be read
// (a kernel without CONFIG_PROC_CHILDREN, a pid gone).
func childrenOf(pid int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			if os.IsNotExist(err) && statExists(pid) {
				continue // the thread ended while it was read
			}
			return nil, false
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, true
}

// statExists says whether pid is still there.
func statExists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

// scanSurvivors lists what the scan of /proc finds below the reaper but
// the main process. It is a snapshot: see survivors.
func scanSurvivors(reaperPid int, mainGone bool) []string {
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
	if !mainGone {
		pids = slices.DeleteFunc(pids, func(p int) bool { return p == main })
	}
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
