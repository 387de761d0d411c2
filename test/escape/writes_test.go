package escape

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWritesExactForEveryCaller repeats the write-record check through the
// vigiles binary for each caller (root, an unprivileged user, root on a
// tree another user owns), with the host tree checked afterwards; the
// create of a file renamed names the path it was renamed from.
func TestWritesExactForEveryCaller(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			for name, content := range map[string]string{"keep.txt": "k", "mod.txt": "aaaa", "gone.txt": "g", "old.txt": "o", "mode.txt": "m"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := vigiles(t, r, dir, nil, "--", "bash", "-c", `set -e
				m=$(stat -c %y mod.txt); printf bbbb > mod.txt; touch -d "$m" mod.txt
				rm gone.txt; mv old.txt new.txt; chmod 600 mode.txt; ln -s keep.txt link
				echo 1 > created.txt; mkdir -p ~/.cache; echo 2 > ~/.cache/c; echo 3 > /tmp/t`)
			if res.ExitCode != 0 {
				t.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
			}
			var got []string
			for _, w := range res.Writes {
				if w.From != "" {
					w.Path += " from " + w.From
				}
				got = append(got, w.Op+" "+w.Path)
			}
			want := []string{"create $TMPDIR/t", "create created.txt", "create link", "create new.txt from old.txt", "create ~/.cache/c",
				"delete gone.txt", "delete old.txt", "modify mod.txt", "modify mode.txt"}
			sort.Strings(got)
			sort.Strings(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
			for _, name := range []string{"gone.txt", "old.txt"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s is gone from the host tree", name)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "mod.txt")); string(b) != "aaaa" {
				t.Errorf("mod.txt changed on the host: %q", b)
			}
		})
	}
}

// TestMountsInsideTheTreeForEveryCaller: a tmpfs mounted inside the work
// tree, for each caller: root's own tree is refused, naming the fixes (its
// id-mapped hand-over would show an empty directory there); an
// unprivileged caller's, and root's on a tree another user owns, are
// recorded by copy, exactly, inside the mount too, and neither the tree
// nor the mount changes on the host. The caller's TMPDIR, outside /tmp, is
// masked for each.
func TestMountsInsideTheTreeForEveryCaller(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "mounting needs root")
	tmpdir, err := os.MkdirTemp("/var/lib", "vigiles-escape-tmpdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmpdir) })
	os.Chmod(tmpdir, 0o755)
	if err := os.WriteFile(filepath.Join(tmpdir, "token"), []byte("TMPDIRSECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			sub := filepath.Join(dir, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("tmpfs", sub, "tmpfs", 0, "mode=0755"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Unmount(sub, syscall.MNT_DETACH) })
			for _, n := range []string{"mod", "gone", "old"} {
				if err := os.WriteFile(filepath.Join(sub, n), []byte(n), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			script := `cat ` + tmpdir + `/token; echo more >> sub/mod; rm sub/gone; mv sub/old sub/new; mkdir sub/d; exit 0`
			env := []string{"TMPDIR=" + tmpdir}
			if r.owner == nil {
				// Root's own tree: refused before anything runs.
				cmd := exec.Command(vigilesBin, "run", "--json", "--workdir", dir, "--", "bash", "-c", script)
				cmd.Env = append([]string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}, env...)
				out, _ := cmd.Output()
				var res result
				if err := json.Unmarshal(out, &res); err != nil {
					t.Fatalf("no JSON result: %v: %s", err, out)
				}
				if res.Tier != "refused" || !strings.Contains(res.Refusal, `"sub"`) || !strings.Contains(res.Refusal, "--root-sandbox") {
					t.Errorf("root's tree with a mount inside: tier %s refusal %q, want a refusal naming the mount and the fixes", res.Tier, res.Refusal)
				}
				return
			}
			// vigiles gives the tree (the mount's files too) to its owner
			// first: the same walk, so that the hash is taken after it.
			filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
				return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
			})
			before := hashTree(t, dir)
			res := vigiles(t, r, dir, env, "--", "bash", "-c", script)
			if strings.Contains(res.Stdout, "TMPDIRSECRET") {
				t.Errorf("the command read the caller's TMPDIR %s", tmpdir)
			}
			var got []string
			for _, w := range res.Writes {
				got = append(got, w.Op+" "+w.Path)
			}
			want := []string{"create sub/d", "create sub/new", "delete sub/gone", "delete sub/old", "modify sub/mod"}
			sort.Strings(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("writes (-want +got):\n%s\nstderr: %s", d, res.Stderr)
			}
			if hashTree(t, dir) != before {
				t.Errorf("the host's tree or its mount changed")
			}
		})
	}
}

// hashTree fingerprints every path under root (into its mounts), with its
// mode, owner, size and content.
func hashTree(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		fmt.Fprintf(h, "%s %v %d:%d %d\n", p, fi.Mode(), st.Uid, st.Gid, fi.Size())
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}
