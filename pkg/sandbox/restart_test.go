package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/hostprog"
)

// flakyMount is the mount flakyBwrap's failed starts name, so that a
// failure of theirs is told from one where a host mount really vanished
// under the real bubblewrap (other packages' tests make and remove mounts
// meanwhile).
const flakyMount = "/newroot/run/netns/vigiles-flaky-bwrap"

// flakyBwrap puts a bwrap on PATH that fails its first n starts as
// bubblewrap does when a host mount vanishes while it binds the tree, and
// then runs the real one; it returns how many starts were made so far.
func flakyBwrap(t *testing.T, n int) (starts func() int) {
	t.Helper()
	real, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	bin := fakeBinDir(t)
	count := filepath.Join(bin, "count")
	// Written by bwrap as root and as the sandbox's uid.
	if err := os.WriteFile(count, []byte("0\n"), 0o666); err != nil || os.Chmod(count, 0o666) != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`#!/bin/sh
n=$(cat %[1]s 2>/dev/null || echo 0); echo $((n+1)) > %[1]s
if [ "$n" -lt %[2]d ]; then
	echo 'bwrap: Can'"'"'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "%[4]s": No such file or directory' >&2
	exit 1
fi
exec %[3]s "$@"
`, count, n, real, flakyMount)
	if err := os.WriteFile(filepath.Join(bin, "bwrap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	hostprog.SetDirsForTest(t, append([]string{bin}, hostprog.Dirs...)...)
	return func() int {
		b, _ := os.ReadFile(count)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return n
	}
}

// TestStartsAgainOnAVanishedMount: the probe and a run each start
// bubblewrap again when a host mount vanished under it, rather than
// calling the host unable to confine or failing the run. The real
// bubblewrap after the stand-in's failures may meet a host mount that
// really vanished (other packages' tests make and remove mounts at the
// same time), and is started again too: the starts are counted at least,
// and a run whose one real start met that is made again.
func TestStartsAgainOnAVanishedMount(t *testing.T) {
	requireConfinement(t)
	resetProbe()
	t.Cleanup(resetProbe)
	starts := flakyBwrap(t, 2)
	if c := ProbeConfinement(context.Background()); c.Confine != Available {
		t.Fatalf("the probe gave up: %s: %s", c.Confine, c.Why)
	}
	if n := starts(); n < 3 {
		t.Errorf("the probe started bwrap %d times, want 3", n)
	}
	dir := makeTree(t, nil)
	var res *Result
	var err error
	for try := 1; ; try++ {
		starts = flakyBwrap(t, maxStarts-1)
		res, err = Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Stdin: strings.NewReader("payload"), Command: sh("cat")})
		if err == nil || try == 5 || !strings.Contains(err.Error(), "vanished") || strings.Contains(err.Error(), flakyMount) {
			break
		}
		t.Logf("try %d: the real bubblewrap met a host mount that vanished: %v", try, err)
	}
	if err != nil || res.Stdout != "payload" {
		t.Fatalf("err %v stdout %q", err, res.Stdout)
	}
	if n := starts(); n != maxStarts {
		t.Errorf("the run started bwrap %d times, want %d", n, maxStarts)
	}
	// The error names what the last start said: that is how a real
	// bubblewrap's vanished mount is told from the stand-in's above.
	starts = flakyBwrap(t, maxStarts)
	if _, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh("true")}); err == nil || !strings.Contains(err.Error(), "vanished") ||
		!strings.Contains(err.Error(), flakyMount) {
		t.Errorf("a run whose every start met a vanishing mount: err %v, want it called vanished, naming %s", err, flakyMount)
	}
}
