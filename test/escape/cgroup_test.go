package escape

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCgroupMountedAtItsOwnRoot: in a container that shares the host's
// cgroup namespace but sees only its own part of each hierarchy (its
// cgroup bind-mounted at /sys/fs/cgroup/<controller>), the caller's cgroup
// path from /proc does not exist as such under the mount. A root caller's
// run is still born in pids and memory cgroups below the caller's own (so
// a limit on the caller holds the run), the broker leaves them, and
// nothing is left behind; whether the caller sits at the mount's root or
// below it.
func TestCgroupMountedAtItsOwnRoot(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "making cgroups and mount namespaces needs root")
	requireTools(t, "unshare")
	for _, tc := range []struct {
		name, sub string // sub: the caller's cgroup below the mounted one
		args      string // vigiles run's limits
	}{
		// The command allocates 300 MiB under a 128 MiB run.
		{"at the mount's root", "", "--limit-run-memory 134217728"},
		// The command allocates 300 MiB under a caller limited to 256 MiB.
		{"below it", "sub", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("vigiles-escape-%d", os.Getpid())
			var dirs []string
			for _, c := range []string{"pids", "memory"} {
				d := filepath.Join("/sys/fs/cgroup", c, name)
				dirs = append(dirs, d)
				if tc.sub != "" {
					dirs = append(dirs, filepath.Join(d, tc.sub))
				}
			}
			for _, d := range dirs {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatalf("making %s: %v", d, err)
				}
			}
			defer func() {
				for i := len(dirs) - 1; i >= 0; i-- {
					os.Remove(dirs[i])
				}
			}()
			caller := name
			if tc.sub != "" {
				caller = name + "/" + tc.sub
				lim := filepath.Join("/sys/fs/cgroup/memory", caller)
				for _, f := range []string{"memory.limit_in_bytes", "memory.memsw.limit_in_bytes"} {
					if err := os.WriteFile(filepath.Join(lim, f), []byte("268435456"), 0); err != nil && f == "memory.limit_in_bytes" {
						t.Fatal(err)
					}
				}
			}
			wt := workTree(t)
			script := `set -e
echo $$ > /sys/fs/cgroup/pids/` + caller + `/cgroup.procs
echo $$ > /sys/fs/cgroup/memory/` + caller + `/cgroup.procs
exec unshare -m --propagation private sh -c '
mount --bind /sys/fs/cgroup/pids/` + name + ` /sys/fs/cgroup/pids
mount --bind /sys/fs/cgroup/memory/` + name + ` /sys/fs/cgroup/memory
exec "$0" run --json --workdir "$1" ` + tc.args + ` -- sh -c "echo ok; exec python3 -c \"b = bytearray(300 << 20); print(1)\""' "$0" "$1"`
			out, err := exec.Command("sh", "-c", script, vigilesBin, wt).Output()
			var res result
			if jerr := json.Unmarshal(out, &res); jerr != nil {
				t.Fatalf("no result (%v, %v): %s", err, jerr, out)
			}
			if res.Tier != "confined" || res.Error != "" || res.Stdout != "ok\n" || res.LimitHit != "memory" {
				t.Fatalf("tier %s exit %d limitHit %q error %q refusal %q stdout %q", res.Tier, res.ExitCode, res.LimitHit, res.Error, res.Refusal, res.Stdout)
			}
			for _, d := range dirs {
				left, _ := filepath.Glob(filepath.Join(d, "vigiles-*"))
				if len(left) != 0 {
					t.Errorf("cgroups left behind: %v", left)
				}
				if b, _ := os.ReadFile(filepath.Join(d, "tasks")); len(strings.TrimSpace(string(b))) != 0 {
					t.Errorf("tasks left in %s: %s", d, b)
				}
			}
		})
	}
}
