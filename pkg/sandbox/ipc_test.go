package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestRemoveSysVIPC: in an IPC namespace of its own, a shared memory
// segment (filled, detached), a message queue and a semaphore set are all
// removed, and the namespace is empty afterwards.
func TestRemoveSysVIPC(t *testing.T) {
	requireRoot(t, "a new IPC namespace needs CAP_SYS_ADMIN")
	type outcome struct {
		removed, left int
		err           error
	}
	done := make(chan outcome, 1)
	// This thread alone moves to the new namespace.
	inThreadOfItsOwn(func() {
		if err := unix.Unshare(unix.CLONE_NEWIPC); err != nil {
			done <- outcome{err: err}
			return
		}
		seg, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4<<20, unix.IPC_CREAT|0o600)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		mem, err := unix.SysvShmAttach(seg, 0, 0)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		for i := range mem {
			mem[i] = 1
		}
		unix.SysvShmDetach(mem)
		if _, _, e := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0); e != 0 {
			done <- outcome{err: e}
			return
		}
		if _, _, e := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 4, unix.IPC_CREAT|0o600); e != 0 {
			done <- outcome{err: e}
			return
		}
		n, err := removeSysVIPC()
		left := 0
		if err == nil {
			// A second pass finds what the first left.
			left, err = removeSysVIPC()
		}
		done <- outcome{n, left, err}
	})
	o := <-done
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.removed != 3 || o.left != 0 {
		t.Errorf("removed %d objects, %d left; want 3 and none", o.removed, o.left)
	}
}
