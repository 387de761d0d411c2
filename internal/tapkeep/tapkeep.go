package tapkeep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// Keep makes the tap that process pid (a child of the caller) holds
// persistent, through a duplicate of its /dev/net/tun descriptor taken
// with pidfd_getfd (Linux 5.6; refused by seccomp profiles that reserve
// it for CAP_SYS_PTRACE, and by ptrace rules). The duplicate is closed
// before Keep returns.
func Keep(pid int) error {
	fd, err := Dup(pid)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.TUNSETPERSIST, 1); err != nil {
		return fmt.Errorf("TUNSETPERSIST: %w", err)
	}
	return nil
}

// Dup returns a duplicate of process pid's /dev/net/tun descriptor.
func Dup(pid int) (int, error) {
	pfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1, fmt.Errorf("pidfd_open: %w", err)
	}
	defer unix.Close(pfd)
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return -1, err
	}
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join(dir, e.Name())); l != "/dev/net/tun" {
			continue
		}
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fd, err := unix.PidfdGetfd(pfd, n, 0)
		if err != nil {
			return -1, fmt.Errorf("pidfd_getfd: %w", err)
		}
		return fd, nil
	}
	return -1, errors.New("no /dev/net/tun descriptor")
}
