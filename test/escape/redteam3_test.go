package escape

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// tailWriter counts what is written to it and keeps the last 4 KiB.
type tailWriter struct {
	n    int64
	tail []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 4096 {
		w.tail = append([]byte(nil), w.tail[len(w.tail)-4096:]...)
	}
	return len(p), nil
}

// shown is the end of what was written, without its NULs.
func (w *tailWriter) shown() string {
	return strings.ReplaceAll(string(w.tail), "\x00", "")
}

// TestOutputPassedOnIsBounded: `vigiles run` passes the command's
// stdout and stderr on, and a caller may have sent them to a file
// (vigiles run > log, a CI step's log, which the runner keeps on its
// disk); a command that writes without end (half a gigabyte a second
// here, for the whole --timeout) filled the host's disk through it,
// past the largest file it may write itself. Each stream passes at most
// the run's file-size limit, then one line saying so; the run goes on
// and reports as ever.
func TestOutputPassedOnIsBounded(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if r.owner != nil {
				filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, vigilesBin, "run", "--workdir", dir, "--limit-file-size", "1MiB", "--",
				"sh", "-c", `head -c 50000000 /dev/zero; head -c 50000000 /dev/zero >&2; echo written > after`)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
			cmd.Dir = dir
			if r.cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
			}
			var stdout, stderr tailWriter
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("vigiles: %v\nstdout ends %q\nstderr ends %q", err, stdout.shown(), stderr.shown())
			}
			for _, s := range []struct {
				name string
				w    *tailWriter
			}{{"stdout", &stdout}, {"stderr", &stderr}} {
				if s.w.n > 1<<20+4096 {
					t.Errorf("%d bytes of the command's %s passed on, over its 1 MiB file-size limit", s.w.n, s.name)
				}
				note := "vigiles: the command's " + s.name + " passed 1048576 bytes"
				if !bytes.Contains(s.w.tail, []byte(note)) {
					t.Errorf("%s does not say it was cut (%q): %d bytes, ending %q", s.name, note, s.w.n, s.w.shown())
				}
			}
			// The report follows on stderr, with the write made after.
			if !bytes.Contains(stderr.tail, []byte("vigiles: confined, exit 0")) || !bytes.Contains(stderr.tail, []byte("after")) {
				t.Errorf("no report of the run, or its write, after the output: %q", stderr.shown())
			}
		})
	}
}
