package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// System V IPC objects outlive the processes that made them: a shared
// memory segment or a message queue stays, with its memory charged to the
// run's memory cgroup, until its IPC namespace goes, and the sandbox's
// namespace goes only with the init, after the record is made. A command
// that filled the cgroup that way and exited would leave the init no
// memory to make the record with. So once the command and everything it
// left are gone, the init removes every object in the namespace (it holds
// CAP_IPC_OWNER there): nothing can be attached to them any more, so their
// memory is freed at once.

// The ipc(2) commands x/sys/unix does not name (linux/ipc.h, shm.h, msg.h,
// sem.h).
const (
	ipcRmid = 0
	msgStat = 11
	msgInfo = 12
	shmStat = 13
	shmInfo = 14
	semStat = 18
	semInfo = 19
)

// removeSysVIPC removes every shared memory segment, message queue and
// semaphore set of the caller's IPC namespace, and says how many it
// removed.
func removeSysVIPC() (int, error) {
	n := 0
	for _, k := range []struct {
		name       string
		info, stat int
		ctl        func(id, cmd int, buf unsafe.Pointer) (int, error)
	}{
		{"shared memory segment", shmInfo, shmStat, shmctl},
		{"message queue", msgInfo, msgStat, msgctl},
		{"semaphore set", semInfo, semStat, semctl},
	} {
		// The structures the kernel fills are all smaller than this.
		var buf [512]byte
		top, err := k.ctl(0, k.info, unsafe.Pointer(&buf))
		if err != nil {
			return n, fmt.Errorf("listing System V objects (%s): %w", k.name, err)
		}
		for i := 0; i <= top; i++ {
			id, err := k.ctl(i, k.stat, unsafe.Pointer(&buf))
			if err != nil {
				continue // an unused index
			}
			if _, err := k.ctl(id, ipcRmid, nil); err != nil {
				return n, fmt.Errorf("removing System V %s %d: %w", k.name, id, err)
			}
			n++
		}
	}
	return n, nil
}

func shmctl(id, cmd int, buf unsafe.Pointer) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_SHMCTL, uintptr(id), uintptr(cmd), uintptr(buf))
	return errnoResult(r, e)
}

func msgctl(id, cmd int, buf unsafe.Pointer) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_MSGCTL, uintptr(id), uintptr(cmd), uintptr(buf))
	return errnoResult(r, e)
}

func semctl(id, cmd int, buf unsafe.Pointer) (int, error) {
	r, _, e := unix.Syscall6(unix.SYS_SEMCTL, uintptr(id), 0, uintptr(cmd), uintptr(buf), 0, 0)
	return errnoResult(r, e)
}

func errnoResult(r uintptr, e unix.Errno) (int, error) {
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}
