package escape

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWritesExactForEveryCaller repeats the write-record check through the
// vigiles binary for each caller (root, an unprivileged user, root on a
// tree another user owns), with the host tree checked afterwards.
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
				got = append(got, w.Op+" "+w.Path)
			}
			want := []string{"create $TMPDIR/t", "create created.txt", "create link", "create new.txt", "create ~/.cache/c",
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
