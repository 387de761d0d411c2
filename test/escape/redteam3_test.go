package escape

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The third red-team round: attempts on the host's resources (its memory
// through the scratch's files, its disk through what vigiles passes on),
// on the caller's terminal and on the processes outside the sandbox,
// each run for real through the vigiles binary, as root and as an
// unprivileged user.

// TestManyEmptyFilesFillTheScratch: a command that makes empty files
// until it can make no more. Their data is nothing, so the scratch's
// size never bounds them; each takes about 1 KiB of the host's kernel
// memory, and the kernel's own count for a tmpfs is half the host's
// pages (three million files, 3 GiB, on 24 GiB), past every limit the
// run was given. The scratch's file count bounds them, with a memory
// cgroup (a root caller's run under --limit-run-memory) and without one
// (a non-root caller's): the command meets ENOSPC well before 200,000
// files, the run names the limit (scratch), and the record holds every
// file it made, each once, and nothing reaches the host's tree.
func TestManyEmptyFilesFillTheScratch(t *testing.T) {
	requireBwrap(t)
	const most = 200000
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			before, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"--limit-scratch", "64MiB", "--timeout", "100s"}
			if r.cred == nil && os.Geteuid() == 0 {
				// A root caller's run is held by a memory cgroup: its
				// default of 4 GiB leaves a million files.
				args = append(args, "--limit-run-memory", "256MiB")
			}
			res := vigiles(t, r, dir, nil, append(args, "--", "python3", "-c", `import errno, os
os.mkdir("many")
n = 0
why = "none"
try:
    while n < `+strconv.Itoa(most)+`:
        open("many/%d" % n, "w").close()
        n += 1
except OSError as e:
    why = errno.errorcode.get(e.errno, str(e.errno))
print(n, why)`)...)
			if res.Error != "" {
				t.Fatalf("exit %d, error %q: %s", res.ExitCode, res.Error, res.Stderr)
			}
			var made int
			var why string
			if _, err := fmt.Sscan(res.Stdout, &made, &why); err != nil {
				t.Fatalf("stdout %q: %v; stderr %q", res.Stdout, err, res.Stderr)
			}
			if made >= most || why != "ENOSPC" {
				t.Fatalf("made %d empty files (%s), want ENOSPC before %d: the scratch's file count does not bound them", made, why, most)
			}
			if res.LimitHit != "scratch" {
				t.Errorf("limitHit %q, want scratch (made %d)", res.LimitHit, made)
			}
			seen := map[string]bool{}
			for _, w := range res.Writes {
				if name, ok := strings.CutPrefix(w.Path, "many/"); ok {
					if w.Op != "create" || seen[name] {
						t.Errorf("write %+v: want one create of each file", w)
					}
					seen[name] = true
				}
			}
			if len(seen) != made {
				t.Errorf("the record holds %d of the %d files made", len(seen), made)
			}
			after, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(after) != len(before) {
				t.Errorf("the host's tree has %d entries after the run, %d before", len(after), len(before))
			}
			if _, err := os.Stat(filepath.Join(dir, "many")); !os.IsNotExist(err) {
				t.Errorf("the files reached the host's tree: %v", err)
			}
		})
	}
}
