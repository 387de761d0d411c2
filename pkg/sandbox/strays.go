package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// reapStrays reaps the children of this process that have exited and that
// nothing else will reap: the orphans that came to it as a child
// subreaper (becomeSubreaper) from what it started — a process a direct
// run's command moved out of its group, a daemonized connector of a
// doctor check, bubblewrap's child where a doctor check ran bubblewrap.
// Left alone, each stayed a zombie of the broker for as long as an audit
// ran. A child that os/exec started holds a pidfd in this process from
// its fork until os/exec has waited for it (Go does so where the kernel
// has pidfds); those are os/exec's to reap, and left alone. Where the
// kernel has no pidfds, os/exec's children cannot be told apart, and
// nothing is reaped here.
func reapStrays() {
	if !subreaper.Load() || !pidfds() {
		return
	}
	// Cheap first: is any child a zombie at all?
	var info unix.Siginfo
	// With WNOHANG and no child to report, waitid leaves si_signo 0.
	if err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		return
	}
	// The zombies first, then the pidfds: a child forked in between is
	// not among the zombies, and every zombie's pidfd, if os/exec holds
	// one, was there since its fork.
	zombies := zombieChildPids()
	owned := pidfdPids()
	for _, pid := range zombies {
		if owned[pid] {
			continue
		}
		var ws unix.WaitStatus
		_, _ = unix.Wait4(pid, &ws, unix.WNOHANG|unix.WALL, nil)
	}
}

// pidfds reports whether this kernel gives pidfds (pidfd_open, Linux 5.3),
// as os/exec then holds one for each child it starts.
var pidfds = sync.OnceValue(func() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// zombieChildPids lists this process's children that are zombies. The
// kernel lists each thread's children in /proc/self/task/*/children, and
// an orphan that comes to this process as a subreaper is a child of one of
// its threads, as a child of a thread that ended is of another: read
// there (childrenOf), the children are found without a walk of every
// process of the machine, and each is asked whether it has exited (waitid, which names
// a child of this process alone). A list read while children come and go
// may miss one (the kernel says the files are exact only for stopped
// children); it is reaped at the next run's end. Where the kernel has no
// such files (built without CONFIG_PROC_CHILDREN, which childrenOf tells
// by a thread still there without one) or they cannot be read, /proc is
// walked.
func zombieChildPids() []int {
	kids, ok := childrenOf(os.Getpid())
	if !ok {
		return walkZombieChildPids()
	}
	var out []int
	for _, pid := range kids {
		var info unix.Siginfo
		// A child that has exited is reported, and left for Wait4;
		// one that has not leaves si_signo 0.
		if err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil); err == nil && info.Signo != 0 {
			out = append(out, pid)
		}
	}
	return out
}

// walkZombieChildPids lists this process's children that are zombies by
// each process's stat in /proc.
func walkZombieChildPids() []int {
	me := []byte(" " + strconv.Itoa(os.Getpid()) + " ")
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// After the name: " Z PPID ".
		i := bytes.LastIndexByte(b, ')')
		if i < 0 || !bytes.HasPrefix(b[i+1:], []byte(" Z")) || !bytes.HasPrefix(b[i+3:], me) {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// pidfdPids is the set of processes this process holds a pidfd of
// ("Pid:" in the descriptor's fdinfo).
func pidfdPids() map[int]bool {
	owned := map[int]bool{}
	ents, err := os.ReadDir("/proc/self/fdinfo")
	if err != nil {
		return owned
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/self/fdinfo/" + e.Name())
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if v, ok := bytes.CutPrefix(line, []byte("Pid:")); ok {
				if pid, err := strconv.Atoi(string(bytes.TrimSpace(v))); err == nil {
					owned[pid] = true
				}
			}
		}
	}
	return owned
}
