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
	echo 'bwrap: Can'"'"'t bind mount /oldroot/ on /newroot/: Unable to apply mount flags: remount "/newroot/run/netns/vgt-1": No such file or directory' >&2
	exit 1
fi
exec %[3]s "$@"
`, count, n, real)
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
// calling the host unable to confine or failing the run.
func TestStartsAgainOnAVanishedMount(t *testing.T) {
	requireConfinement(t)
	resetProbe()
	t.Cleanup(resetProbe)
	starts := flakyBwrap(t, 2)
	if c := ProbeConfinement(context.Background()); c.Confine != Available {
		t.Fatalf("the probe gave up: %s: %s", c.Confine, c.Why)
	}
	if n := starts(); n != 3 {
		t.Errorf("the probe started bwrap %d times, want 3", n)
	}
	starts = flakyBwrap(t, maxStarts-1)
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Stdin: strings.NewReader("payload"), Command: sh("cat")})
	if err != nil || res.Stdout != "payload" {
		t.Fatalf("err %v stdout %q", err, res.Stdout)
	}
	if n := starts(); n != maxStarts {
		t.Errorf("the run started bwrap %d times, want %d", n, maxStarts)
	}
	starts = flakyBwrap(t, maxStarts)
	if _, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: sh("true")}); err == nil || !strings.Contains(err.Error(), "vanished") {
		t.Errorf("a run whose every start met a vanishing mount: err %v", err)
	}
}
