package fsx

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// closeRangeCloexec is CLOSE_RANGE_CLOEXEC (Linux 5.11).
const closeRangeCloexec = 1 << 2

// CloexecFrom marks every file descriptor from first on close-on-exec, so
// that nothing a process inherited — the caller's open files and
// directories, another tool's pipes — reaches a child unless it is handed
// on purpose (exec.Cmd's ExtraFiles are dup'ed without the flag).
func CloexecFrom(first int) {
	if err := unix.CloseRange(uint(first), ^uint(0), closeRangeCloexec); err == nil {
		return
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd >= first {
			unix.CloseOnExec(fd)
		}
	}
}
