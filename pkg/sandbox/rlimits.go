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
