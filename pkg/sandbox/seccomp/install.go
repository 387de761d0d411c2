package seccomp

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Install sets no_new_privs and loads f as a seccomp filter for every
// thread of the calling process (SECCOMP_FILTER_FLAG_TSYNC). Call it with
// the goroutine locked to its OS thread (runtime.LockOSThread), as late as
// possible before exec'ing the confined command: the filter forbids mount,
// unshare(CLONE_NEWUSER), setns and ptrace for the caller too, and it
// cannot be removed.
//
// The error wraps the kernel's errno (errors.Is(err, unix.EINVAL) on a
// kernel without seccomp filters); a thread that could not be
// synchronized is reported by id.
func Install(f []unix.SockFilter) error {
	if len(f) == 0 {
		return errors.New("installing seccomp filter: empty program")
	}
	if len(f) > maxInsns {
		return fmt.Errorf("installing seccomp filter: %d instructions, more than %d", len(f), maxInsns)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("installing seccomp filter: setting no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP,
		unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if errno != 0 {
		return fmt.Errorf("installing seccomp filter: %w", errno)
	}
	if r != 0 {
		// With TSYNC, a positive return is the id of a thread that could
		// not be synchronized; nothing was installed.
		return fmt.Errorf("installing seccomp filter: thread %d could not be synchronized", r)
	}
	return nil
}
