package escape

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestHostIPCIsOutOfReach: the host's System V IPC objects, POSIX message
// queues and /dev/shm are not files under the masks, and are shared by
// every process of the host's IPC namespace and /dev: the test makes one
// of each, open to every uid, and the hook, for every caller, reaches none
// of them (the sandbox's IPC namespace and /dev are its own). What the
// hook makes there does not reach the host either, and its /dev/shm write
// is in the record.
func TestHostIPCIsOutOfReach(t *testing.T) {
	requireBwrap(t)
	key := hostIPC(t)
	mqName := fmt.Sprintf("vigiles-escape-mq-%d-%d", os.Getpid(), time.Now().UnixNano())
	if mq, err := mqOpen(mqName, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR, 0o666); errors.Is(err, unix.ENOSYS) && os.Getenv("CI") != "true" {
		t.Skip("this kernel has no POSIX message queues (CONFIG_POSIX_MQUEUE)")
	} else if err != nil {
		t.Fatalf("mq_open: %v", err)
	} else {
		unix.Close(mq)
	}
	t.Cleanup(func() { mqUnlink(mqName); mqUnlink(mqName + "-sandbox") })
	canary := filepath.Join("/dev/shm", fmt.Sprintf("vigiles-escape-canary-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.WriteFile(canary, []byte("vigiles-canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(canary) })
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			written := fmt.Sprintf("vigiles-escape-written-%d-%d", os.Getpid(), time.Now().UnixNano())
			// The keys the hook makes its own objects with (key+3, key+4)
			// must be free on the host before it runs: an object found
			// there afterwards is then the hook's.
			if hostHas(key) {
				t.Fatalf("the host already has an object at %#x or %#x: no telling the hook's apart", key+3, key+4)
			}
			t.Cleanup(func() { os.Remove(filepath.Join("/dev/shm", written)) })
			res := vigiles(t, r, workTree(t), nil, "--env", fmt.Sprintf("IPC_BASE=%#x", key), "--env", "MQ_NAME="+mqName,
				"--env", "SHM_CANARY="+canary, "--env", "SHM_WRITE="+written, "--", "python3", "ipc.py")
			checkAttempts(t, res, 7)
			if res.ExitCode != 0 {
				t.Errorf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			if id, err := unix.SysvShmGet(key+3, 0, 0); err == nil {
				unix.SysvShmCtl(id, unix.IPC_RMID, nil)
				t.Error("the hook's System V segment appeared on the host")
			}
			if id, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key+4), 0, 0); errno == 0 {
				unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
				t.Error("the hook's System V message queue appeared on the host")
			}
			if mq, err := mqOpen(mqName+"-sandbox", unix.O_RDONLY, 0); err == nil {
				unix.Close(mq)
				t.Error("the hook's POSIX message queue appeared on the host")
			}
			if _, err := os.Lstat(filepath.Join("/dev/shm", written)); err == nil {
				t.Errorf("the hook's /dev/shm/%s appeared on the host", written)
			}
			got := res.writeLines()
			if !slices.Contains(got, "create /dev/shm/"+written) {
				t.Errorf("the /dev/shm write is not in the record: %q", got)
			}
		})
	}
}

// hostIPC makes the host's System V shared memory segment, message queue
// and semaphore set the hook must not reach, at keys key, key+1 and key+2
// (what ipc.py reads from IPC_BASE), open to every uid, and returns key.
// The key is drawn at random, and taken only where all three are made
// afresh (IPC_EXCL) and key+3 and key+4, where the hook makes its own, are
// free: an object another test or process holds, or one a killed run
// left, is never taken for the test's own, never removed, and never fails
// the test. The three are removed when the test ends.
func hostIPC(t *testing.T) int {
	t.Helper()
	for range 100 {
		// Above 0 (IPC_PRIVATE) and below 2^31 (key_t is signed), with
		// room for key+4.
		key := 1 + rand.IntN(math.MaxInt32-8)
		if hostHas(key) {
			continue
		}
		shm, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|unix.IPC_EXCL|0o666)
		if errors.Is(err, unix.EEXIST) {
			continue
		} else if err != nil {
			t.Fatalf("shmget: %v", err)
		}
		t.Cleanup(func() { unix.SysvShmCtl(shm, unix.IPC_RMID, nil) })
		msg, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key+1), unix.IPC_CREAT|unix.IPC_EXCL|0o666, 0)
		if errno == unix.EEXIST {
			continue
		} else if errno != 0 {
			t.Fatalf("msgget: %v", errno)
		}
		t.Cleanup(func() { unix.Syscall(unix.SYS_MSGCTL, msg, unix.IPC_RMID, 0) })
		sem, _, errno := unix.Syscall(unix.SYS_SEMGET, uintptr(key+2), 1, unix.IPC_CREAT|unix.IPC_EXCL|0o666)
		if errno == unix.EEXIST {
			continue
		} else if errno != 0 {
			t.Fatalf("semget: %v", errno)
		}
		t.Cleanup(func() { unix.Syscall6(unix.SYS_SEMCTL, sem, 0, unix.IPC_RMID, 0, 0, 0) })
		return key
	}
	t.Fatal("no free System V IPC key in 100 random tries")
	return 0
}

// hostHas says whether the host holds a shared memory segment at key+3 or
// a message queue at key+4, the keys the hook makes its own with (one it
// may not open, EACCES, counts).
func hostHas(key int) bool {
	_, err := unix.SysvShmGet(key+3, 0, 0)
	_, _, errno := unix.Syscall(unix.SYS_MSGGET, uintptr(key+4), 0, 0)
	return !errors.Is(err, unix.ENOENT) || errno != unix.ENOENT
}

// mqOpen and mqUnlink are mq_open(3) and mq_unlink(3): the system calls
// take the name without its leading slash.
func mqOpen(name string, flags, mode int) (int, error) {
	p, err := unix.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	fd, _, errno := unix.Syscall6(unix.SYS_MQ_OPEN, uintptr(unsafe.Pointer(p)), uintptr(flags), uintptr(mode), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func mqUnlink(name string) {
	if p, err := unix.BytePtrFromString(name); err == nil {
		unix.Syscall(unix.SYS_MQ_UNLINK, uintptr(unsafe.Pointer(p)), 0, 0)
	}
}

// TestSysVMemoryLeftByTheHookLeavesRoomForTheRecord: System V shared
// memory outlives the process that made it, and its pages stay charged to
// the run's memory cgroup (a root caller's run under --limit-run-memory).
// A hook that writes 20,000 files and then fills the rest of its 256 MiB
// with detached segments (the filler dies of the limit) leaves the init
// room to make the record: the run ends normally, names the memory limit,
// and its record holds every file. Without the init's removal of the
// namespace's segments once the command is gone, the kernel ended the
// init as it walked the files ("nothing was recorded", exit 125) in each
// of three runs.
func TestSysVMemoryLeftByTheHookLeavesRoomForTheRecord(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "only a root caller's run is held by a memory cgroup")
	const files = 20000
	res := vigiles(t, runner{name: "root"}, workTree(t), nil, "--limit-run-memory", "256MiB", "--timeout", "150s",
		"--", "python3", "shmfill.py", strconv.Itoa(files))
	t.Logf("exit %d, limit hit %q, stdout %q", res.ExitCode, res.LimitHit, res.Stdout)
	if res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("exit %d, error %q; want the record made\nstderr: %s", res.ExitCode, res.Error, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "filler 9\n") {
		t.Errorf("the filler was not ended by the kernel (status 9, SIGKILL) as it filled the run's memory: stdout %q", res.Stdout)
	}
	if res.LimitHit != "memory" {
		t.Errorf("limit hit %q, want memory (the filler died of it)", res.LimitHit)
	}
	made := 0
	for _, w := range res.Writes {
		if w.Op == "create" && strings.HasPrefix(w.Path, "f") && strings.HasSuffix(w.Path, ".txt") {
			made++
		}
	}
	if made != files {
		t.Errorf("the record holds %d of the %d files the hook wrote", made, files)
	}
}
