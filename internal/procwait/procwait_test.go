package procwait

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestExitedWaitsForTheEnd: Exited returns only once the child has ended,
// and leaves it to be reaped; it returns at once for a child that ended
// before, and for a pid that is no child of ours.
func TestExitedWaitsForTheEnd(t *testing.T) {
	cmd := exec.Command("sleep", "0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	Exited(cmd.Process.Pid)
	// Ended, and still there to be reaped by the caller's own wait: a
	// return before the end would find nothing to reap here.
	var ws unix.WaitStatus
	if pid, err := unix.Wait4(cmd.Process.Pid, &ws, unix.WNOHANG, nil); err != nil || pid != cmd.Process.Pid || !ws.Exited() {
		t.Fatalf("after Exited, wait4 gave pid %d, %v, status %v: want the child, ended", pid, err, ws)
	}

	// A child that has already ended (a zombie).
	cmd = exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	for info.Signo == 0 {
		time.Sleep(time.Millisecond)
		if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
			t.Fatal(err)
		}
	}
	Exited(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}

	// Our parent, alive and no child of ours; and no process at all.
	Exited(os.Getppid())
	Exited(1 << 22)
}

// BenchmarkWait waits for a 20 ms child with cmd.Wait alone (blocked in
// waitid) and after Exited, and reports this process's own CPU per wait
// (user+sys of all its threads, children not included): what the
// runtime's sysmon costs while a P is held in the system call.
func BenchmarkWait(b *testing.B) {
	for _, polled := range []bool{false, true} {
		name := "blocking"
		if polled {
			name = "polled"
		}
		b.Run(name, func(b *testing.B) {
			var before, after syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &before)
			for i := 0; i < b.N; i++ {
				cmd := exec.Command("sleep", "0.02")
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				if polled {
					Exited(cmd.Process.Pid)
				}
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-us/op")
		})
	}
}
