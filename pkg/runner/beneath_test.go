package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBeneath: lookups inside the repository resolve as the kernel's
// would; any that leaves it, by ".." or through a link, is ErrOutsideTree
// whether or not its target exists.
func TestBeneath(t *testing.T) {
	out := makeTree(t, map[string]string{"there.json": "{}", "dir/": ""})
	dir := makeTree(t, map[string]string{"a/b.json": "{}", "c/": ""})
	for name, target := range map[string]string{
		"a/rel-in":   "b.json",
		"c/up-in":    "../a",
		"abs-in":     filepath.Join(dir, "a"),
		"abs-out":    out,
		"rel-out":    "../../../../../../../../../../" + strings.TrimPrefix(out, "/"),
		"loop":       "loop",
		"c/via-link": "../abs-in/b.json",
		// Through a directory that is not there: not there, as for the
		// kernel, though its text climbs out.
		"c/gone-climb": "gone/../../../..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		path, want string // want: resolved path (relative to dir), "outside", "missing" or "loop"
	}{
		{"a/b.json", "a/b.json"},
		{".", "."},
		{"a/rel-in", "a/b.json"},
		{"c/up-in/b.json", "a/b.json"},
		{"abs-in/b.json", "a/b.json"},
		{"c/via-link", "a/b.json"},
		{"a/nope.json", "missing"},
		{"a/b.json/x", "missing"},
		{"loop", "loop"},
		{"c/gone-climb", "missing"},
		{"abs-out/there.json", "outside"},
		{"abs-out/nowhere.json", "outside"},
		{"abs-out/dir", "outside"},
		{"rel-out/there.json", "outside"},
		{"rel-out/nowhere.json", "outside"},
		{"a/../../x", "outside"},
		{"/etc/passwd", "outside"},
	} {
		p := tt.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		got, fi, err := beneath(dir, dir, p)
		switch tt.want {
		case "outside":
			if !errors.Is(err, ErrOutsideTree) {
				t.Errorf("%s: got %s %v, want outside the tree", tt.path, got, err)
			}
		case "missing", "loop":
			if err == nil || errors.Is(err, ErrOutsideTree) {
				t.Errorf("%s: got %s %v, want %s", tt.path, got, err, tt.want)
			}
			if tt.want == "loop" && (!strings.Contains(fmt.Sprint(err), "too many levels") || !errors.Is(err, fs.ErrNotExist)) {
				t.Errorf("%s: %v, want a loop", tt.path, err)
			}
		default:
			if err != nil || got != filepath.Join(dir, tt.want) || fi == nil {
				t.Errorf("%s: got %s %v, want %s", tt.path, got, err, tt.want)
			}
		}
	}
}
