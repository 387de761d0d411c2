package escape

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Round thirty-one: the runner's tool cache as a recorded overlay, and
// HOME bound at the caller's HOME path too, attacked (the policy
// comparison's holes are closed in pkg/runner: policydiff_test.go and
// cmd/action's policybase31_test.go).
//
// No hole was found here; these pin what was tried, each record exact and
// the host untouched:
//
//   - in the tool cache: a FIFO made, a tool renamed into the work tree,
//     a write cut at the file-size limit, a hard link either way (EXDEV
//     across the mounts), a write through a link the host keeps there
//     that leads out of it (it fails read-only where it leads, as a
//     write there would: security.md's honest limits), a directory
//     renamed (TestRedteam31ToolCacheRecordIsExact);
//   - with the work tree in the caller's HOME (/home/NAME/work/repo/repo),
//     a write by the command's HOME path to the empty directory under the
//     tree's mount point, ~/work renamed away and back, renamed away for
//     good, the caller's HOME path's mode changed, rm -rf of ~/work (the
//     mount point is busy) (TestRedteam31CallersHomeRecordIsExact).
//
// Left as it is, and said in security.md's honest limits: a tool cache
// inside the caller's HOME (a self-hosted runner's
// /home/runner/actions-runner/_work/_tool) lies under the run's HOME, so
// its tools are not there and a write to one fails (ENOENT), unrecorded.
func TestRedteam31ToolCacheRecordIsExact(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		// A root caller's sandbox for a root-owned tree runs as a uid
		// of its own, to which root's tool cache is handed id-mapped.
		t.Run(r.name, func(t *testing.T) {
			stamp := time.Now().UnixNano()
			tools := fmt.Sprintf("/opt/vigiles-rt31-%d", stamp)
			outside := fmt.Sprintf("/opt/vigiles-rt31o-%d", stamp)
			t.Cleanup(func() { os.RemoveAll(tools); os.RemoveAll(outside) })
			for _, d := range []string{filepath.Join(tools, "node"), outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			node, target := filepath.Join(tools, "node", "node"), filepath.Join(outside, "target")
			for p, text := range map[string]string{node: "n\n", target: "t\n"} {
				if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, filepath.Join(tools, "link")); err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{tools, outside} {
				if r.owner == nil {
					break
				}
				filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			dir := redteam27Tree(t, nil)
			for _, tc := range []struct {
				hook  string
				want  []string
				limit string
			}{
				{"mkfifo " + tools + "/fifo", []string{"create " + tools + "/fifo"}, ""},
				{"mv " + node + " ./stolen", []string{"create stolen", "delete " + node}, ""},
				{"head -c 3000000 /dev/zero > " + tools + "/big", []string{"create " + tools + "/big"}, "file-size"},
				{"ln " + node + " ./hl; echo x > src; ln src " + tools + "/hl; exit 0", []string{"create src"}, ""},
				{"echo a >> " + tools + "/link; exit 0", nil, ""},
				{"mv " + tools + "/node " + tools + "/node2", []string{"delete " + tools + "/node", "delete " + node, "create " + tools + "/node2/node"}, ""},
			} {
				env := []string{"RUNNER_TOOL_CACHE=" + tools, "AGENT_TOOLSDIRECTORY=" + tools + "/node"}
				res, _ := runVigiles(t, r, dir, env, "--limit-file-size", "1000000", "--", "sh", "-c", tc.hook)
				if res.Tier != "confined" || res.Refusal != "" || res.Error != "" || res.LimitHit != tc.limit {
					t.Fatalf("%q: tier %s, refusal %q, error %q, limit %q (want %q)\n%s", tc.hook, res.Tier, res.Refusal, res.Error, res.LimitHit, tc.limit, res.raw)
				}
				got := res.writeLines()
				if !slices.Equal(got, tc.want) {
					t.Errorf("%q: writes %q, want %q\n%s", tc.hook, got, tc.want, res.raw)
				}
			}
			var left []string
			for _, d := range []string{tools, outside} {
				filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error { left = append(left, p); return nil })
			}
			want := []string{tools, filepath.Join(tools, "link"), filepath.Join(tools, "node"), node, outside, target}
			if !slices.Equal(left, want) {
				t.Errorf("the host has %q, want %q", left, want)
			}
			for p, text := range map[string]string{node: "n\n", target: "t\n"} {
				if b, _ := os.ReadFile(p); string(b) != text {
					t.Errorf("the host's %s holds %q, want %q", p, b, text)
				}
			}
			if es, _ := os.ReadDir(dir); len(es) != 0 {
				t.Errorf("the host's tree holds %v", es)
			}
		})
	}
}

func TestRedteam31CallersHomeRecordIsExact(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		if r.name == "root-on-a-tree-nobody-owns" {
			continue
		}
		t.Run(r.name, func(t *testing.T) {
			home := fmt.Sprintf("/home/vigiles-rt31h-%d", time.Now().UnixNano())
			dir := filepath.Join(home, "work", "repo", "repo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(home) })
			if r.owner != nil {
				filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			for _, tc := range []struct {
				hook string
				want []string
			}{
				{`echo a > "$HOME/work/repo/repo/x"`, []string{"create ~/work/repo/repo/x"}},
				{"mv " + home + "/work " + home + "/w2 && mv " + home + "/w2 " + home + "/work", nil},
				{"mv " + home + "/work " + home + "/stolen", []string{"create ~/stolen/repo/repo", "delete ~/work", "delete ~/work/repo", "delete ~/work/repo/repo"}},
				{"chmod 777 " + home, []string{"modify ~"}},
				{"rm -rf " + home + "/work 2>/dev/null; exit 0", nil},
			} {
				res, code := runVigiles(t, r, dir, []string{"HOME=" + home}, "--", "sh", "-c", tc.hook)
				if res.Tier != "confined" || code != 0 || res.Refusal != "" || res.Error != "" {
					t.Fatalf("%q: tier %s, exit %d, refusal %q, error %q\n%s", tc.hook, res.Tier, code, res.Refusal, res.Error, res.raw)
				}
				got := res.writeLines()
				if !slices.Equal(got, tc.want) {
					t.Errorf("%q: writes %q, want %q\n%s", tc.hook, got, tc.want, res.raw)
				}
			}
			var left []string
			filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
				left = append(left, strings.TrimPrefix(p, home))
				return nil
			})
			if want := []string{"", "/work", "/work/repo", "/work/repo/repo"}; !slices.Equal(left, want) {
				t.Errorf("the host's HOME holds %q, want %q", left, want)
			}
			if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o755 {
				t.Errorf("the host's HOME: %v, %v; want its mode 0755 as it was", fi, err)
			}
		})
	}
}
