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
