package sandbox

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vigiles/action/internal/procwait"
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
// they are listed as one Unlisted entry.
//
// A reaper with no child at the deadline, its main process not gone, has
// not started the command yet (the deadline runs from the command's
// handing over, and the reaper forks the main process first): nothing ran
// beside it, and what a scan after that first read finds is the main
// process, forked since, not a survivor.
func survivors(reaperPid int, mainGone bool) []reaper.Process {
	first, ok := childrenOf(reaperPid)
	return survivorsOf(reaperPid, mainGone, first, ok)
}

// survivorsOf is survivors, given the reaper's children as read first at
// the deadline (childrenOf's answer).
func survivorsOf(reaperPid int, mainGone bool, first []int, ok bool) []reaper.Process {
	main := 0
	if !mainGone {
		if ok && len(first) == 0 {
			return nil
		}
		main = eldest(first)
	}
	if listed := scanSurvivors(reaperPid, main); len(listed) > 0 {
		return listed
	}
	if !ok || othersBelow(reaperPid, main, first) {
		return []reaper.Process{{Unlisted: true}}
	}
	return nil
}

// eldest is the process of pids that started first (the smaller pid of
// two that started in one clock tick); 0 for none.
func eldest(pids []int) int {
	main, mainStart := 0, uint64(0)
	for _, c := range pids {
		if _, start, err := procwait.Stat(c); err == nil && (main == 0 || start < mainStart || start == mainStart && c < main) {
			main, mainStart = c, start
		}
	}
	return main
}

// othersBelow says whether the kernel shows a process below the reaper
// but main (0: none is excluded), given first, the reaper's children as
// read before: a child of the reaper's other than main, or any child of
// main's (a zombie it did not reap too). Where the children cannot be
// read, it says yes.
func othersBelow(reaperPid, main int, first []int) bool {
	if slices.ContainsFunc(first, func(c int) bool { return c != main }) {
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
	return childrenIn("/proc", pid)
}

// childrenIn is childrenOf in the proc file system mounted at proc. A
// thread whose children file is missing while its own directory is still
// there is a kernel without the files, which lists no thread's children:
// false, not an empty list, so that no caller takes "none listed" for
// "none there". A thread whose directory went with it ended while it was
// read; a process that went is false, as a pid gone is.
func childrenIn(proc string, pid int) ([]int, bool) {
	dir := proc + "/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			if !os.IsNotExist(err) || exists(dir+"/"+t.Name()) || !exists(proc+"/"+strconv.Itoa(pid)) {
				return nil, false
			}
			continue // the thread ended while it was read
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
	return exists("/proc/" + strconv.Itoa(pid))
}

// exists says whether path names a file (stat follows a link).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// scanSurvivors lists what a scan of /proc finds below the reaper but
// main (0: none is excluded), to name them. It is a snapshot: see
// survivors.
func scanSurvivors(reaperPid, main int) []reaper.Process {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if ppid, _, err := procwait.Stat(pid); err == nil {
				parent[pid] = ppid
			}
		}
	}
	below := func(pid int) bool {
		for n := 0; n < 4096 && pid > 1; n++ {
			ppid, ok := parent[pid]
			if !ok {
				return false
			}
			if ppid == reaperPid {
				return true
			}
			pid = ppid
		}
		return false
	}
	var pids []int
	for pid := range parent {
		if pid != main && below(pid) {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		return nil
	}
	slices.Sort(pids)
	return reaper.List(pids, "/proc")
}
