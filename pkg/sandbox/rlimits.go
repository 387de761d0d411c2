package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// rlimitsFit refuses a run whose per-process limits lie above the hard
// limits this process has, and so the sandbox inherits: no process inside
// may raise a hard limit (that takes CAP_SYS_RESOURCE of the host's user
// namespace), so the reaper's setrlimit, or the shell's `ulimit` that sets
// the process limit where no pids cgroup does (nproc), would fail. The
// reaper's failure refused every run naming an errno; the shell's ended
// the run before the command started, with an exit status of 125 that
// read as the command's own, and nothing written or sent: a hook that
// never ran passed as one that did nothing. Each refusal names the limit,
// its flag and key, and the caller's hard limit.
func rlimitsFit(l Limits, nproc bool) error {
	type need struct {
		res       int
		v         uint64
		what, opt string
		ulimit    string
	}
	needs := []need{
		{unix.RLIMIT_AS, l.MemoryBytes, fmt.Sprintf("address space per process of %d bytes", l.MemoryBytes), "--limit-memory, limits.memory", "-Hv"},
		{unix.RLIMIT_FSIZE, l.FileBytes, fmt.Sprintf("largest file of %d bytes", l.FileBytes), "--limit-file-size, limits.file-size", "-Hf"},
		{unix.RLIMIT_CPU, l.CPUSeconds + 1, fmt.Sprintf("CPU time per process of %d s (its hard limit one second more)", l.CPUSeconds), "--limit-cpu, limits.cpu-seconds", "-Ht"},
		{unix.RLIMIT_NOFILE, l.OpenFiles, fmt.Sprintf("%d open files per process", l.OpenFiles), "--limit-open-files, limits.open-files", "-Hn"},
	}
	if nproc {
		needs = append(needs, need{unix.RLIMIT_NPROC, uint64(l.Pids), fmt.Sprintf("%d processes", l.Pids), "--limit-pids, limits.pids", "-Hu"})
	}
	// Whatever sets the run's own process limit, the sandbox's processes
	// (bubblewrap, the init, the reaper, the command) start under the
	// process limit vigiles was started with: below what the sandbox
	// needs, bubblewrap or the init could not even start, and the
	// refusal named the wrong fix (user namespaces), or held a Go
	// runtime's crash.
	var np unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &np); err == nil && np.Cur != unix.RLIM_INFINITY && np.Cur < MinPids {
		return fmt.Errorf("vigiles was started with a process limit of %d (bash's `ulimit -u` shows it), below the %d the sandbox needs to start; fix: raise it (ulimit -u, or the container's or service's limit)", np.Cur, MinPids)
	}
	for _, n := range needs {
		var rl unix.Rlimit
		if err := unix.Getrlimit(n.res, &rl); err != nil {
			return fmt.Errorf("reading this process's limits: %w", err)
		}
		if n.v == 0 || rl.Max == unix.RLIM_INFINITY || n.v <= rl.Max {
			continue
		}
		return fmt.Errorf("the run's limit of %s is above the hard limit vigiles was started with (%d; bash's `ulimit %s` shows it), which nothing inside the sandbox may raise; fix: lower the limit (%s), or start vigiles with a higher hard limit", n.what, rl.Max, n.ulimit, n.opt)
	}
	return nil
}

// pidsReserve is how many processes and threads of the caller's uid each
// of a non-root caller's runs under way keeps out of the command's reach
// under the caller's own process limit. RLIMIT_NPROC is checked at each
// fork and clone against the uid's whole count (every namespace; the
// sandbox's user namespace is also capped at the limit its creator had),
// and the broker, bubblewrap, the connector (slirp4netns or pasta), the
// init and the reaper are all of that uid: a command that took the whole
// count left Go's runtime in the broker or the init no new OS thread,
// which it cannot do without, and it aborted ("failed to create new OS
// thread", exit status 2), losing the record. A broker or an init makes a
// thread for each CPU it runs Go on (GOMAXPROCS) and one for each
// goroutine blocked in a system call; on a host of two CPUs a run's own
// tasks outside the command were some 20 at once, and the egress
// recorder, serving hundreds of connections, needed more as the command
// held the rest. An audit keeps up to three sandboxes a lane (one
// prepared, one running, one making its record): its own tasks were 55
// at most with --jobs 2 and 103 with --jobs 4, 26 or 27 a lane. 64 a lane
// leaves that twice over.
const pidsReserve = 64

// pidsUnder returns the process limit the command gets when vigiles runs
// lanes commands at once (an audit's --jobs; below 1 is 1) under a soft
// RLIMIT_NPROC of soft (unix.RLIM_INFINITY when it has none): pids, or
// less, so that each lane has an equal share of soft and pidsReserve of
// each share stays for vigiles' own processes and threads. The kernel
// checks each fork against the uid's whole count, so a command that took
// more than its share would leave another lane's command none, and
// vigiles no thread. A soft limit that leaves the command less than
// MinPids refuses the run, naming `ulimit -u` (and --jobs, where lanes
// share it).
func pidsUnder(pids int, soft uint64, lanes int) (int, error) {
	if soft == unix.RLIM_INFINITY {
		return pids, nil
	}
	lanes = max(lanes, 1)
	share := soft / uint64(lanes)
	if share < MinPids+pidsReserve {
		least := uint64(lanes) * (MinPids + pidsReserve)
		if lanes == 1 {
			return 0, fmt.Errorf("vigiles was started with a process limit of %d (bash's `ulimit -u` shows it), which its own processes and threads share with the command's (the kernel counts them all for the uid): it keeps %d of them for itself, which leaves below the %d the sandbox needs; fix: raise it to at least %d (ulimit -u, or the container's or service's limit)", soft, pidsReserve, MinPids, least)
		}
		return 0, fmt.Errorf("vigiles was started with a process limit of %d (bash's `ulimit -u` shows it), which its own processes and threads share with the %d commands it runs at once (the kernel counts them all for the uid): each run's share is %d, of which it keeps %d for itself, which leaves below the %d the sandbox needs; fix: raise it to at least %d (ulimit -u, or the container's or service's limit), or run fewer hooks at once (--jobs, the action's jobs input)", soft, lanes, share, pidsReserve, MinPids, least)
	}
	if uint64(pids) > share-pidsReserve {
		return int(share - pidsReserve), nil
	}
	return pids, nil
}

// dropSchedulingLimits sets the two limits that let a process raise its
// own scheduling to 0, hard and soft, for the init and all it starts:
// RLIMIT_RTPRIO, which allows a realtime policy (SCHED_FIFO, SCHED_RR) up
// to its value, and RLIMIT_NICE, which allows a nice value down to 20
// minus its value. A caller may hold them (a desktop user in the audio
// group, `@audio - rtprio 95` in limits.conf, or `nice` 40 for root's
// sessions), and the sandbox inherited them: a hook's spinning processes
// at SCHED_FIFO held their CPUs against every process of the host but the
// 5 % the kernel's realtime throttling leaves, for the whole run, and at
// nice -20 took some 87 times a normal process's share. Without
// CAP_SYS_NICE in the host's user namespace, which no process of the
// sandbox holds, these limits are the only gate. Lowering a limit cannot
// be refused.
func dropSchedulingLimits() error {
	for _, l := range []struct {
		res  int
		name string
	}{{unix.RLIMIT_RTPRIO, "RLIMIT_RTPRIO"}, {unix.RLIMIT_NICE, "RLIMIT_NICE"}} {
		if err := unix.Setrlimit(l.res, &unix.Rlimit{}); err != nil {
			return fmt.Errorf("setting %s to 0: %w", l.name, err)
		}
	}
	return nil
}
