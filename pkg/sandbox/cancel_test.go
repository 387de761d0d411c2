package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/internal/testbin"
)

// orphanedBwrap stands in for bubblewrap killed while it set up, its
// child living on (bubblewrap issue #633), as orphaningBwrap does, but
// the child it leaves is the real bubblewrap, with the run's pipes: a
// whole sandbox that reads the config, starts the init and runs the
// command, outside the process group the broker kills. %s is the real
// bubblewrap, quoted.
const orphanedBwrap = `#!/bin/sh
setsid sh -c '"$0" "$@" & wait' %s "$@" &
echo "{\"child-pid\": $!}" >&6
exec sleep 300
`

// TestCancelledRunLeavesNothing: a non-root caller's run (no cgroup of
// the run holds its processes) cancelled while a sandbox bubblewrap
// orphaned runs its command ends that command too: the init sees the
// broker close the ready pipe and ends the sandbox (dieWithBroker), where
// it ran on to its deadline. As root, the test runs itself as nobody.
func TestCancelledRunLeavesNothing(t *testing.T) {
	if os.Geteuid() == 0 {
		asNobody(t, "TestCancelledRunLeavesNothing")
		return
	}
	requireConfinement(t)
	real, err := hostprog.Find("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	marks := t.TempDir()
	fake := filepath.Join(marks, "bwrap")
	if err := os.WriteFile(fake, []byte(fmt.Sprintf(orphanedBwrap, strconv.Quote(real))), 0o755); err != nil {
		t.Fatal(err)
	}
	// The command, found by its argument: a sleep well past the test's
	// bound, its deadline further still.
	token := fmt.Sprintf("3000.%d", os.Getpid())
	left := func() []int { return processesWithArgs("\x00" + token + "\x00") }
	t.Cleanup(func() {
		for _, pid := range left() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runConfined(ctx, Spec{Dir: makeTree(t, nil), Mode: ModeStrict, Timeout: time.Hour,
			Command: []string{"sleep", token}}, fake, "", nil, &Result{Schema: ResultSchema})
		done <- err
	}()
	for bound := time.Now().Add(time.Minute); len(left()) == 0; { // a bound on a hang
		select {
		case err := <-done:
			t.Fatalf("the run ended before its command ran: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(bound) {
			cancel()
			t.Fatalf("the command never ran: %v", <-done)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run: %v", err)
	}
	// A bound on a hang, not a measure: the command's deadline is an
	// hour away, and a run that leaves it leaves it that long.
	for bound := time.Now().Add(30 * time.Second); len(left()) > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(bound) {
			t.Fatalf("the cancelled run left its command running: pids %v", left())
		}
	}
}

// processesWithArgs lists the processes whose /proc/PID/cmdline ends in
// args.
func processesWithArgs(args string) []int {
	ents, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.HasSuffix(b, []byte(args)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// asNobody runs the test named test of a copy of this test binary as the
// user nobody (GitHub's hosted runners run vigiles as a non-root user),
// from a directory that user can read, and fails with its output where
// it fails.
func asNobody(t *testing.T, test string) {
	u, err := user.Lookup("nobody")
	if err != nil {
		missing(t, fmt.Sprintf("a user nobody to run as (%v)", err))
	}
	if u.Uid == "0" {
		t.Fatal("nobody is root")
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		missing(t, "runuser")
	}
	dir, err := os.MkdirTemp("", "vigiles-sandbox-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	tmp := filepath.Join(dir, "tmp")
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		t.Fatal(err)
	}
	bin := testbin.Copy(t, dir, "sandbox.test")
	cmd := exec.Command(runuser, "-u", "nobody", "--", bin, "-test.count=1", "-test.v", "-test.run", "^"+test+"$")
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "HOME="+tmp)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+test)) {
		t.Fatalf("as nobody, %s did not pass:\n%s", test, out)
	}
	t.Logf("as nobody:\n%s", out)
}
