package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOutOfFilesNamesTheFix: a set-up error that wraps EMFILE (at any
// depth, a refusal's too) becomes a refusal that says the command did not
// run and names ulimit -n, dropping a fix meant for another cause; ENFILE
// names the host's table, not vigiles' limit; text that only says "too
// many open files" (a hook's own, relayed) is left alone.
func TestOutOfFilesNamesTheFix(t *testing.T) {
	pipe := fmt.Errorf("making the sandbox's pipes: %w", os.NewSyscallError("pipe2", unix.EMFILE))
	cgroup := fmt.Errorf("%w: opening the command's pids cgroup: %w; fix: run vigiles as a non-root user", ErrRefused, &os.PathError{Op: "open", Path: "/sys/fs/cgroup/x", Err: unix.EMFILE})
	for _, err := range []error{pipe, cgroup, fmt.Errorf("handing the work tree to the sandbox: %w", errDescriptorsCut)} {
		got := outOfFiles(err)
		msg := got.Error()
		if !errors.Is(got, ErrRefused) || !errors.Is(got, unix.EMFILE) {
			t.Errorf("%v: not a refusal for EMFILE: %v", err, got)
		}
		for _, want := range []string{"ulimit -n", "did not run", "ran out of file descriptors"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%v: %q lacks %q", err, msg, want)
			}
		}
		if strings.Contains(msg, "non-root") || strings.Count(msg, "run refused") != 1 {
			t.Errorf("%v: %q", err, msg)
		}
	}
	nfile := outOfFiles(fmt.Errorf("starting bubblewrap: %w", unix.ENFILE))
	if msg := nfile.Error(); !errors.Is(nfile, ErrRefused) || !strings.Contains(msg, "fs.file-max") || !strings.Contains(msg, "system's table") || !strings.Contains(msg, "did not run") {
		t.Errorf("ENFILE: %q", msg)
	}
	plain := errors.New("the hook: too many open files")
	if got := outOfFiles(plain); got != plain {
		t.Errorf("plain text: %v", got)
	}
}

// fillDescriptors lowers this process's soft open-files limit and opens
// descriptors until only free of them are left; undo restores both.
// setrlimit is process-wide: the test must not run in parallel.
func fillDescriptors(t *testing.T, free int) (undo func()) {
	var old unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	// The highest descriptor open now, plus room to fill.
	high := 0
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		var n int
		fmt.Sscan(e.Name(), &n)
		high = max(high, n)
	}
	lim := old
	lim.Cur = uint64(high + 64)
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	var held []int
	for {
		fd, err := unix.Dup(0)
		if err != nil {
			break
		}
		held = append(held, fd)
	}
	for i := 0; i < free && len(held) > 0; i++ {
		unix.Close(held[len(held)-1])
		held = held[:len(held)-1]
	}
	return func() {
		for _, fd := range held {
			unix.Close(fd)
		}
		unix.Setrlimit(unix.RLIMIT_NOFILE, &old)
	}
}

// TestNamespacesCutByTheLimitBlameIt: a broker at its open-files limit
// gets the sandbox's namespaces without (some of) their descriptors: the
// kernel sets MSG_CTRUNC. That is said as the limit's doing, naming
// ulimit -n; it read "the sandbox sent 'n' with 1 descriptors, not its 2
// namespaces", blaming the sandbox.
//
// It runs in a process of its own: between filling the table and the
// receive, a descriptor closed by anything else in the test binary (an
// *os.File an earlier test dropped, closed by the garbage collector; a
// command's pipe closed by its goroutine) left room for both (CI, in a
// shuffled run of the package).
func TestNamespacesCutByTheLimitBlameIt(t *testing.T) {
	if os.Getenv("VIGILES_NOFILE_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "VIGILES_NOFILE_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
			t.Fatalf("the test in its own process failed: %v\n%s", err, out)
		}
		return
	}
	// No collection while the table is full: nothing of this process's
	// own is closed meanwhile either.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(pair[1])
	f := os.NewFile(uintptr(pair[0]), "control")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ns []int
	for _, name := range []string{"user", "net"} {
		fd, err := unix.Open("/proc/self/ns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			missing(t, fmt.Sprintf("its own namespaces to pass (%v)", err))
		}
		defer unix.Close(fd)
		ns = append(ns, fd)
	}
	if err := unix.Sendmsg(pair[1], []byte{nsByte}, unix.UnixRights(ns...), nil, 0); err != nil {
		t.Fatal(err)
	}
	undo := fillDescriptors(t, 1) // room for one of the two
	got := receiveNamespaces(c.(*net.UnixConn))
	undo()
	got.close()
	if got.err == nil {
		t.Fatal("both namespaces came")
	}
	if !errors.Is(got.err, unix.EMFILE) || !strings.Contains(got.err.Error(), "MSG_CTRUNC") {
		t.Errorf("not said as the open-files limit: %v", got.err)
	}
	msg := outOfFiles(got.err).Error()
	if !strings.Contains(msg, "ulimit -n") || strings.Contains(msg, "the sandbox sent") {
		t.Errorf("%q", msg)
	}
}
