package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// auditRun is the part of a hook's run in `vigiles audit --format json`
// these tests read.
type auditRun struct {
	ID       string `json:"id"`
	Command  string `json:"command"`
	Tier     string `json:"tier"`
	Outcome  string `json:"outcome"`
	ExitCode int    `json:"exitCode"`
	TimedOut bool   `json:"timedOut"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	Writes   []struct {
		Path string `json:"path"`
	} `json:"writes"`
}

// auditAs audits dir, whose .claude/settings.json the test wrote, as r
// (the tree owned by r.owner where it is set), two hooks at a time, and
// returns the report's runs.
func auditAs(t *testing.T, r runner, dir string) []auditRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := vigilesAs(ctx, r, dir, nil, "audit", "--dir", dir, "--format", "json", "--baseline", "", "-q", "--jobs", "2")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var rep struct {
		Runs []auditRun `json:"runs"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &rep); jerr != nil {
		t.Fatalf("vigiles audit as %s: %v; no JSON report (%v)\nstderr: %s", r.name, err, jerr, stderr.String())
	}
	return rep.Runs
}

// twoHookTree is a work tree holding the escape scripts whose
// .claude/settings.json declares hooks a and b, each a handler's JSON,
// for the Stop event.
func twoHookTree(t *testing.T, a, b string) string {
	t.Helper()
	dir := workTree(t)
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"Stop": [{"hooks": [` + a + `, ` + b + `]}]}}`
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// hookTimes reads the "start T" and "end T" lines a redteam17 hook
// prints: when, on the host's clock, it left its marks and when it left.
func hookTimes(t *testing.T, run auditRun) (start, end float64) {
	t.Helper()
	for _, line := range strings.Split(run.Stdout, "\n") {
		if v, ok := strings.CutPrefix(line, "start "); ok {
			start, _ = strconv.ParseFloat(v, 64)
		}
		if v, ok := strings.CutPrefix(line, "end "); ok {
			end, _ = strconv.ParseFloat(v, 64)
		}
	}
	if start == 0 || end == 0 {
		t.Fatalf("%s did not say when it ran:\nstdout: %s\nstderr: %s", run.ID, run.Stdout, run.Stderr)
	}
	return start, end
}

// TestRedteam17HookAgainstHook: the seventeenth round ran two hooks of one
// audit at the same time (--jobs 2), hook a and hook b, for a root caller
// (each run of a root-owned tree its own sandbox uid), root on a tree
// nobody owns (both sandboxes nobody's uid) and nobody itself (both the
// caller's uid). Each left its mark in every place two processes of one
// host uid could share, and looked for the other's once it had had time
// to leave it: a file in /dev/shm, /tmp and the work tree (each sandbox
// has its own scratch, its own /tmp and its own view of the tree), an
// abstract unix socket (each has its own network namespace), a key in the
// user and user-session keyrings (add_key and keyctl fail with EPERM in
// every run), a System V message queue (each has its own IPC namespace)
// and a POSIX one (mq_open fails with EACCES), its processes in /proc
// and a signal 0 to every pid below 65,536 (each has its own pid
// namespace, and the other's processes are neither seen nor reached), and
// the cgroup tree under /sys/fs/cgroup (the other's cgroup may be listed,
// but a pid of its reads as 0 there, and no file of the tree, the other's
// limits, freezer and cgroup.procs among them, opens for writing).
// None crossed; the hooks' own times show they ran at once. A lock on a
// host file both read (/etc/hostname) does cross, and so does a watch's
// news of the other's opens of one: see TestRedteam17LockOnASharedHostFile
// and TestRedteam17WatchOnASharedHostFile.
func TestRedteam17HookAgainstHook(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			runs := auditAs(t, r, twoHookTree(t,
				`{"type": "command", "command": "python3 redteam17.py a 6"}`,
				`{"type": "command", "command": "python3 redteam17.py b 6"}`))
			if len(runs) != 2 {
				t.Fatalf("%d runs, want 2: %+v", len(runs), runs)
			}
			for _, run := range runs {
				if run.Tier != "confined" {
					t.Fatalf("%s: tier %s, outcome %s", run.ID, run.Tier, run.Outcome)
				}
				t.Logf("%s:\n%s", run.Command, run.Stdout)
				checkScriptRan(t, result{Stdout: run.Stdout, Stderr: run.Stderr, ExitCode: run.ExitCode}, 12)
			}
			s0, e0 := hookTimes(t, runs[0])
			s1, e1 := hookTimes(t, runs[1])
			if s0 >= e1 || s1 >= e0 {
				t.Fatalf("the two hooks did not run at once (%.3f–%.3f, %.3f–%.3f): nothing was tried", s0, e0, s1, e1)
			}
		})
	}
}

// TestRedteam17LockOnASharedHostFile: a lock does cross from one hook to
// another. flock needs only a descriptor, and the kernel keeps the lock on
// the host's inode, which every sandbox's read-only root shows as it is:
// hook a took an exclusive lock on /etc/hostname, and hook b, run at the
// same time in a sandbox of its own, waited for the same lock until its
// own deadline (the handler's "timeout": 15 s; a holds it for 40 s), for every caller alike.
// Its run is recorded as b's own timeout, with what it printed before;
// a's run ends as its script does. This is the honest limit "Advisory
// locks on what it reads" in docs/security.md, between two hooks: the
// calls stay allowed, since the tools a hook runs lock files of their own
// (SQLite, flock(1)) in the tree and its scratch, which are each sandbox's
// own, and no sandbox layer can tell those descriptors from a host
// file's.
func TestRedteam17LockOnASharedHostFile(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			runs := auditAs(t, r, twoHookTree(t,
				`{"type": "command", "command": "python3 redteam17lock.py hold 40"}`,
				`{"type": "command", "command": "python3 redteam17lock.py wait", "timeout": 15}`))
			if len(runs) != 2 {
				t.Fatalf("%d runs, want 2: %+v", len(runs), runs)
			}
			for _, run := range runs {
				if run.Tier != "confined" {
					t.Fatalf("%s: tier %s, outcome %s", run.ID, run.Tier, run.Outcome)
				}
				t.Logf("%s: outcome %s, exit %d, timed out %v\n%s", run.Command, run.Outcome, run.ExitCode, run.TimedOut, run.Stdout)
				switch {
				case strings.Contains(run.Command, "hold"):
					if run.TimedOut || run.ExitCode != 0 || !strings.Contains(run.Stdout, "let go") {
						t.Errorf("the holder did not end as its script did: exit %d, timed out %v\nstdout: %s\nstderr: %s", run.ExitCode, run.TimedOut, run.Stdout, run.Stderr)
					}
				default:
					if !strings.Contains(run.Stdout, "waiting for") {
						t.Fatalf("the waiter did not start waiting:\nstdout: %s\nstderr: %s", run.Stdout, run.Stderr)
					}
					if strings.Contains(run.Stdout, "got the lock") || !run.TimedOut {
						t.Errorf("the waiter got the lock the other hook held, or its run did not time out: timed out %v\nstdout: %s", run.TimedOut, run.Stdout)
					}
				}
			}
		})
	}
}

// TestRedteam17WatchOnASharedHostFile: what a hook opens of the host's
// files is told to another hook that watches them. inotify reports every
// open and read of a watched inode, whoever makes it, and the host's
// files are the same inodes in every sandbox's read-only root: hook a
// watched /etc/services and /etc/protocols, which hook b, run at the same
// time in a sandbox of its own, read now and then, and a was told of b's
// opens, for every caller alike. It learns when b read which host file,
// not what b read or wrote: b's tree, scratch and output are its own, and
// a's watch on a file of the work tree, which b read too, was told of a's
// own open alone (each sandbox sees the tree through its own overlay or
// copy, inodes of its own). The
// calls stay allowed, as for a lock: the tools a hook runs watch its tree
// (file watchers, build tools), and no sandbox layer can tell a watch on
// the tree from one on a host file.
func TestRedteam17WatchOnASharedHostFile(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			runs := auditAs(t, r, twoHookTree(t,
				`{"type": "command", "command": "python3 redteam17watch.py watch 15"}`,
				`{"type": "command", "command": "python3 redteam17watch.py read 20"}`))
			if len(runs) != 2 {
				t.Fatalf("%d runs, want 2: %+v", len(runs), runs)
			}
			for _, run := range runs {
				if run.Tier != "confined" || run.ExitCode != 0 || !strings.Contains(run.Stdout, "done") {
					t.Fatalf("%s: tier %s, exit %d\nstdout: %s\nstderr: %s", run.Command, run.Tier, run.ExitCode, run.Stdout, run.Stderr)
				}
				t.Logf("%s:\n%s", run.Command, run.Stdout)
				if !strings.Contains(run.Command, ".py watch") {
					continue
				}
				if !strings.Contains(run.Stdout, "saw the other's open of /etc/services") {
					t.Errorf("the watcher was not told of the other hook's opens of a host file, which docs/security.md says it is:\n%s", run.Stdout)
				}
				if strings.Contains(run.Stdout, "saw the other's open of redteam17.py") || !strings.Contains(run.Stdout, "saw its own open of redteam17.py") {
					t.Errorf("the watch on the work tree's file heard the other hook's opens, or not its own:\n%s", run.Stdout)
				}
			}
		})
	}
}
