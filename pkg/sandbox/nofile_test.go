package sandbox

import (
	"errors"
	"fmt"
	"os"
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
	for _, err := range []error{pipe, cgroup} {
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
