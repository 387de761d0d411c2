package sandbox

import (
	"strings"
	"testing"
)

// fileSizeHook writes 2 MiB to the path it is given, a MiB at a time, in
// Python, which ignores SIGXFSZ: past the run's file-size limit the
// write fails with EFBIG, which the hook catches, and it exits 0 saying
// so, as a hook that reaches a host only where its write succeeded would
// leave no attempt in the record.
const fileSizeHook = `import sys
try:
    with open(sys.argv[1], "wb") as f:
        for _ in range(2):
            f.write(b"\0" * (1 << 20))
    print("written")
except OSError as e:
    print("quiet:", e.strerror)
`

// TestFileSizeLimitMetQuietly: a command that ignores SIGXFSZ (Python and
// Go do, from their start) meets the file-size limit with an error it may
// catch, and goes on: the reaper, which names the limit by the signal,
// saw nothing, and the run passed for whole. A file it wrote that reached
// the limit names it, in the work tree, HOME, TMPDIR and /dev/shm, by
// both methods; one short of the limit names nothing, and neither does a
// file of the tree as large as the limit that the command only chmods.
func TestFileSizeLimitMetQuietly(t *testing.T) {
	requireConfinement(t)
	const limit = 1 << 20
	for _, method := range []string{"overlay", "copy"} {
		for _, c := range []struct {
			name, script, hit string
		}{
			{"tree", "python3 hook.py out", "file-size"},
			{"HOME", "python3 hook.py ~/out", "file-size"},
			{"TMPDIR", "python3 hook.py /tmp/out", "file-size"},
			{"shm", "python3 hook.py /dev/shm/out", "file-size"},
			{"under the limit", `head -c 1048575 /dev/zero > out; echo written`, ""},
			{"a tree file at the limit, chmod", `chmod 600 atlimit; echo written`, ""},
		} {
			t.Run(method+"/"+c.name, func(t *testing.T) {
				dir := makeTree(t, map[string]string{"hook.py": fileSizeHook, "atlimit": strings.Repeat("x", limit)})
				res := run(t, Spec{Dir: dir, WritesMethod: method, Limits: Limits{FileBytes: limit}, Command: sh(c.script)})
				if res.Error != "" || res.ExitCode != 0 {
					t.Fatalf("exit %d error %q stderr %q", res.ExitCode, res.Error, res.Stderr)
				}
				if c.hit != "" && !strings.Contains(res.Stdout, "quiet: File too large") {
					t.Fatalf("the hook did not meet the limit quietly: stdout %q stderr %q", res.Stdout, res.Stderr)
				}
				if res.LimitHit != c.hit {
					t.Errorf("limitHit = %q, want %q (stdout %q, writes %+v)", res.LimitHit, c.hit, res.Stdout, res.Writes)
				}
				if len(res.Writes) == 0 {
					t.Errorf("no write recorded: %+v", res)
				}
			})
		}
	}
}

// TestFileSizeLimitNotNamedByALargerFile: a file larger than the
// file-size limit is none the command wrote (the limit, soft and hard,
// cuts every write at it), so one of the tree it moved or linked (by the
// copy method, where that copies nothing up) names no limit: the run met
// none, and its record is whole.
func TestFileSizeLimitNotNamedByALargerFile(t *testing.T) {
	requireConfinement(t)
	const limit = 1 << 20
	for _, script := range []string{"mv big moved", "ln big linked", "mkdir d && mv big d/"} {
		t.Run(script, func(t *testing.T) {
			dir := makeTree(t, map[string]string{"big": strings.Repeat("x", limit+1)})
			res := run(t, Spec{Dir: dir, WritesMethod: "copy", Limits: Limits{FileBytes: limit}, Command: sh(script)})
			if res.Error != "" || res.ExitCode != 0 {
				t.Fatalf("exit %d error %q stderr %q", res.ExitCode, res.Error, res.Stderr)
			}
			if len(res.Writes) == 0 {
				t.Fatalf("no write recorded: %+v", res)
			}
			if res.LimitHit != "" {
				t.Errorf("limitHit = %q, want none: the command wrote nothing up to the limit (writes %+v)", res.LimitHit, res.Writes)
			}
		})
	}
}
