package reaper

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// lingerChildEnv, set, makes the test binary the process of
// TestLingerFailsOnAnUnreadableProc that lowers its own limits.
const lingerChildEnv = "VIGILES_REAPER_TEST_UNREADABLE_PROC"

// TestLingerFailsOnAnUnreadableProc shows the claim of docs/security.md's
// row "Hide leftover processes or a reached process limit by lowering the
// reaper's limits": "a /proc the reaper cannot read fails the run instead
// of reporting none". A process of its own (the test binary again, so
// that the test's own limits stay as they were) leaves a child running,
// lowers its RLIMIT_NOFILE below the descriptors it holds, as `prlimit
// --pid 1 --nofile=3:3` would the reaper's, and asks linger for the
// processes left: linger answers with the error of reading /proc, which
// Run sends as the status's Error, never with an empty list.
func TestLingerFailsOnAnUnreadableProc(t *testing.T) {
	if os.Getenv(lingerChildEnv) == "1" {
		lingerWithoutDescriptors()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLingerFailsOnAnUnreadableProc$", "-test.count=1")
	cmd.Env = append(os.Environ(), lingerChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the process that lowers its limits: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "linger error: ") || !strings.Contains(string(out), "too many open files") {
		t.Errorf("linger did not fail on a /proc it cannot read: %s", out)
	}
	if strings.Contains(string(out), "linger listed") {
		t.Errorf("linger reported a list from a /proc it cannot read: %s", out)
	}
}

// lingerWithoutDescriptors starts a child that outlives the call, lowers
// RLIMIT_NOFILE to 3, so that no new descriptor can be opened, calls
// linger with no time left, and prints what it answered.
func lingerWithoutDescriptors() {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		fmt.Println("starting a child:", err)
		os.Exit(1)
	}
	defer child.Process.Kill()
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		fmt.Println("getrlimit:", err)
		os.Exit(1)
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: 3, Max: old.Max}); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(1)
	}
	left, err := linger(0)
	unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	if err != nil {
		fmt.Println("linger error:", err)
		return
	}
	fmt.Printf("linger listed %+v\n", left)
}
