// Package procwait waits for a child's exit in the Go runtime's poller
// rather than in a blocking wait system call, and reads what /proc says of
// a process (Stat, Gone: whether a broker that left a cgroup or a
// directory named after it is gone).
//
// A goroutine blocked in wait4 or waitid keeps its P in a system call.
// While any P is so held, the runtime's sysmon thread keeps waking to look
// at it: every 20 µs at first, backing off to 10 ms, and back to 20 µs
// each time it takes the P away after 10 ms. On a nested virtual machine
// each of those wakeups programs a timer and halts, both of which trap to
// the hypervisor: about 2 ms of CPU for a 20 ms wait, in a process that
// does nothing (docs/performance.md, item 21). A pidfd waited on in the
// poller leaves every P idle, and sysmon then sleeps.
package procwait

import (
	"os"

	"golang.org/x/sys/unix"
)

// Exited returns once the process pid has ended (it is then a zombie,
// for the caller to reap with its own wait) or at once when the pidfd
// cannot be had (PIDFD_NONBLOCK needs Linux 5.10), so that the caller's
// own blocking wait does the waiting. It does not reap: pid must be a
// child that nothing else reaps meanwhile.
func Exited(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	// A non-blocking fd given to os.NewFile joins the poller.
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd reads as ready once its process has ended. Read calls the
	// function, and while it says "not yet" waits for readiness. The
	// function asks the kernel, without reaping (WNOWAIT), so that no
	// wakeup of the poller's is taken for the end; with nothing to report
	// waitid leaves si_signo 0.
	_ = rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
		return err != nil || info.Signo != 0
	})
}
