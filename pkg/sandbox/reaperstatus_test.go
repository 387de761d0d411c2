package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// fakeReaper starts a shell in the reaper's place, with the config pipe on
// fd 3, the status pipe on fd 4 and the main-process-exited pipe on fd 5
// (which it leaves unwritten): it reads the config to its end, writes
// status, and then waits for a signal, as a reaper still exiting would.
func fakeReaper(t *testing.T, status string) *reaperProc {
	t.Helper()
	return fakeReaperScript(t, `cat <&3 >/dev/null; printf '%s' "$STATUS" >&4; exec 4>&-; exec sleep 60`, status)
}

// fakeReaperScript is fakeReaper with a script of the caller's.
func fakeReaperScript(t *testing.T, script, status string) *reaperProc {
	t.Helper()
	cfR, cfW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stR, stW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	exR, exW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = append(os.Environ(), "STATUS="+status)
	cmd.ExtraFiles = []*os.File{cfR, stW, exW}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cfR.Close()
	stW.Close()
	exW.Close()
	pid := cmd.Process.Pid
	t.Cleanup(func() {
		unix.Kill(pid, unix.SIGKILL)
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	})
	return &reaperProc{pid: pid, cfW: cfW, stR: stR, exR: exR}
}

func stillThere(pid int) bool { return unix.Kill(pid, 0) == nil }

// killAfterStatus kills the stand-in 200 ms after it has written its
// status and closed fd 4, as a reaper that ends what the command left
// would exit: late enough that a run that did not wait for the exit has
// returned by then, and counted from the status, not from the start (a
// loaded machine can take 200 ms before the shell has even written it).
func killAfterStatus(pid int) {
	for i := 0; i < 20000; i++ {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d/fd/4", pid)); err != nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	unix.Kill(pid, unix.SIGKILL)
}

// TestRecordWaitsForTheReaperOnlyWhenSomethingIsLeft: the init makes the
// record as soon as the reaper's status says the command ended and left
// nothing running (the reaper is then the only process of its pid
// namespace, so nothing can write any more), without waiting for the
// reaper's own exit; with leftovers listed, it waits for that exit, which
// ends them. Either way the status is checked whole before the record is
// sent: anything after it fails the run.
func TestRecordWaitsForTheReaperOnlyWhenSomethingIsLeft(t *testing.T) {
	cfg := initConfig{Timeout: 20 * time.Second}
	doc := func(lingered string) string {
		return fmt.Sprintf(`{"protocol":%d,"exitCode":0,"signal":""%s}`, reaper.Protocol, lingered)
	}

	t.Run("nothing left: the record need not wait", func(t *testing.T) {
		rp := fakeReaper(t, doc("")+"\n")
		st, timedOut, settle, err := rp.run(cfg, reaper.CommandDoc{})
		if err != nil || timedOut || st.ExitCode != 0 {
			t.Fatalf("run: %+v, %v, %v", st, timedOut, err)
		}
		if !stillThere(rp.pid) {
			t.Fatal("run waited for the reaper's exit although nothing was left")
		}
		unix.Kill(rp.pid, unix.SIGKILL)
		if err := settle(); err != nil {
			t.Errorf("settle: %v", err)
		}
		if stillThere(rp.pid) {
			t.Error("settle returned before the reaper was reaped")
		}
	})

	t.Run("something left: wait for the reaper's exit", func(t *testing.T) {
		rp := fakeReaper(t, doc(`,"lingered":[{"pid":7,"cmdline":"sleep\u0000100"}]`)+"\n")
		go killAfterStatus(rp.pid)
		st, _, settle, err := rp.run(cfg, reaper.CommandDoc{})
		if err != nil || len(st.Lingered) != 1 {
			t.Fatalf("run: %+v, %v", st, err)
		}
		if stillThere(rp.pid) {
			t.Fatal("run returned before the reaper's exit, which ends what the command left")
		}
		if err := settle(); err != nil {
			t.Errorf("settle: %v", err)
		}
	})

	t.Run("anything after the status fails the run", func(t *testing.T) {
		rp := fakeReaper(t, doc("")+"\n"+doc("")+"\n")
		_, _, settle, err := rp.run(cfg, reaper.CommandDoc{})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		unix.Kill(rp.pid, unix.SIGKILL)
		if err := settle(); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("settle = %v, want the status called malformed", err)
		}
	})

	t.Run("a status from another build waits and fails", func(t *testing.T) {
		rp := fakeReaper(t, strings.Replace(doc(""), fmt.Sprintf(`"protocol":%d`, reaper.Protocol), `"protocol":1`, 1))
		go killAfterStatus(rp.pid)
		_, _, _, err := rp.run(cfg, reaper.CommandDoc{})
		if err == nil || !strings.Contains(err.Error(), "different builds") {
			t.Fatalf("run = %v, want the protocol mismatch", err)
		}
		if stillThere(rp.pid) {
			t.Error("run returned before the reaper's exit")
		}
	})

	// A reaper from before the protocol number reads one document, finds
	// no command in it, says so and exits: the init's write of the command
	// document may then find the pipe closed. What that reaper said is no
	// verdict either; the run fails as from another build. (Which write
	// breaks depends on timing: here the stand-in closes its config end
	// before any, so the first does.)
	t.Run("a status from another build, its config pipe closed, fails", func(t *testing.T) {
		pre := `{"error":"no command","exitCode":0,"signal":"","durationNs":0}`
		rp := fakeReaperScript(t, `exec 3<&-; printf '%s' "$STATUS" >&4; exec 4>&-; exec sleep 60`, pre)
		for i := 0; ; i++ {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d/fd/3", rp.pid)); os.IsNotExist(err) {
				break
			}
			if i == 5000 {
				t.Fatal("the stand-in never closed its config pipe")
			}
			time.Sleep(time.Millisecond)
		}
		go killAfterStatus(rp.pid)
		_, _, _, err := rp.run(cfg, reaper.CommandDoc{})
		if err == nil || !strings.Contains(err.Error(), "different builds") || !strings.Contains(err.Error(), "no command") {
			t.Fatalf("run = %v, want the protocol mismatch, with what the reaper said", err)
		}
	})
}

// TestReaperStartErrorNamesTheNamespaceLimit: a reaper whose clone
// finds the namespace limits used up (ENOSPC; EUSERS on older kernels)
// is refused naming the limit and the sysctls to raise; it read
// "starting the reaper: no space left on device", like a full disk, with
// no fix. Another error is passed on as it was.
func TestReaperStartErrorNamesTheNamespaceLimit(t *testing.T) {
	for _, e := range []error{unix.ENOSPC, unix.EUSERS, fmt.Errorf("fork/exec: %w", unix.ENOSPC)} {
		err := reaperStartError(e)
		var rf refusal
		if !errors.As(err, &rf) || !errors.Is(err, e) {
			t.Errorf("%v: %v is not a refusal wrapping it", e, err)
		}
		for _, w := range []string{"limit on pid or mount namespaces", "not a full disk", "fix: raise user.max_pid_namespaces and user.max_mnt_namespaces", "sysctl -w"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", e, err, w)
			}
		}
	}
	if got, want := reaperStartError(unix.EAGAIN).Error(), "starting the reaper: "+unix.EAGAIN.Error(); got != want {
		t.Errorf("EAGAIN: %q, want %q", got, want)
	}
}
