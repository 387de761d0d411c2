package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReapStraysReapsEachThreadsZombies: reapStrays reaps an orphan that
// came to this process as a subreaper and a child that a thread other
// than the main one forked without a pidfd (which the main thread's
// children file does not list), and leaves os/exec's child, whose pidfd
// this process holds, to os/exec. The children files and the walk of
// /proc, where the kernel has no such files, list the same zombies.
func TestReapStraysReapsEachThreadsZombies(t *testing.T) {
	becomeSubreaper()
	if !subreaper.Load() {
		t.Fatal("this process is no child subreaper")
	}
	if !pidfds() {
		if os.Getenv("CI") == "true" {
			t.Fatal("the kernel gives no pidfds, which CI's has")
		}
		t.Skip("this kernel gives no pidfds (Linux 5.3), and reapStrays reaps nothing without them")
	}
	// The orphan: sh's background child, which sh leaves as it exits.
	out, err := exec.Command("setsid", "sh", "-c", "sleep 0 & echo $!").Output()
	if err != nil {
		t.Fatal(err)
	}
	orphan, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("sh printed %q", out)
	}
	// The child of another thread, forked with no pidfd.
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Fatal(err)
	}
	var forked int
	offMainThread(func() bool {
		forked, err = syscall.ForkExec(truePath, []string{"true"}, &syscall.ProcAttr{})
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	owned := exec.Command("true")
	if err := owned.Start(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range []int{orphan, forked, owned.Process.Pid} {
		for deadline := time.Now().Add(2 * time.Minute); !exited(pid); {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d is no child of this process that has exited", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	me := strconv.Itoa(os.Getpid())
	if b, err := os.ReadFile("/proc/" + me + "/task/" + me + "/children"); err == nil && slices.Contains(strings.Fields(string(b)), strconv.Itoa(forked)) {
		t.Errorf("the main thread's children file lists %d, forked on another thread", forked)
	}
	listed := map[string][]int{"walk": walkZombieChildPids()}
	if procChildren() {
		listed["children files"] = zombieChildPids()
	} else {
		t.Log("this kernel lists no thread's children (CONFIG_PROC_CHILDREN): the walk alone is looked at")
	}
	for how, zs := range listed {
		for _, pid := range []int{orphan, forked, owned.Process.Pid} {
			if !slices.Contains(zs, pid) {
				t.Errorf("the %s list zombies %v, without %d", how, zs, pid)
			}
		}
	}

	reapStrays()
	for what, pid := range map[string]int{"the orphan": orphan, "the other thread's child": forked} {
		if exited(pid) {
			t.Errorf("%s, %d, is still a zombie of this process", what, pid)
		}
	}
	if !exited(owned.Process.Pid) {
		t.Errorf("os/exec's child, %d, was reaped", owned.Process.Pid)
	}
	if err := owned.Wait(); err != nil {
		t.Errorf("os/exec's wait: %v", err)
	}
}

// exited says whether pid is a child of this process that has exited and
// is not reaped.
func exited(pid int) bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT|unix.WALL, nil)
	return err == nil && info.Signo != 0
}

// BenchmarkReapStrays: what reapStrays costs with one zombie child (os/exec's,
// which it leaves) on a machine of 200 processes more than it had, and
// what its list of zombies costs read from the children files and by the
// walk of /proc that it makes where the kernel has none.
func BenchmarkReapStrays(b *testing.B) {
	becomeSubreaper()
	if !subreaper.Load() || !pidfds() {
		b.Skip("this process is no subreaper or the kernel gives no pidfds")
	}
	many := exec.Command("sh", "-c", "for i in $(seq 200); do sleep 600 & done; wait")
	many.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := many.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = syscall.Kill(-many.Process.Pid, syscall.SIGKILL)
		_ = many.Wait()
	})
	owned := exec.Command("true")
	if err := owned.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = owned.Wait() })
	for !exited(owned.Process.Pid) {
		time.Sleep(10 * time.Millisecond)
	}
	for kids, _ := childrenOf(many.Process.Pid); len(kids) < 200; kids, _ = childrenOf(many.Process.Pid) {
		time.Sleep(10 * time.Millisecond)
	}
	b.Run("reapStrays", func(b *testing.B) {
		for b.Loop() {
			reapStrays()
		}
	})
	b.Run("children files", func(b *testing.B) {
		if !procChildren() {
			b.Skip("this kernel lists no thread's children")
		}
		for b.Loop() {
			zombieChildPids()
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			walkZombieChildPids()
		}
	})
}

// procChildren says whether this kernel lists a thread's children
// (/proc/PID/task/TID/children, CONFIG_PROC_CHILDREN).
func procChildren() bool {
	_, ok := childrenOf(os.Getpid())
	return ok
}
