package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoWithOutside is a repository and a directory beside it that holds a
// baseline that must never be written.
func repoWithOutside(t *testing.T) (dir, outside, victim string) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir, outside = filepath.Join(tmp, "repo"), filepath.Join(tmp, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim = filepath.Join(outside, "baseline.json")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, outside, victim
}

// untouched fails t where the victim was written, or anything else was
// made beside it.
func untouched(t *testing.T, outside, victim string) {
	t.Helper()
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the baseline outside the repository was written: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("outside the repository: %v, want only the victim", names)
	}
}

func emptyBaseline() *Baseline {
	return &Baseline{Schema: BaselineSchema, Runs: map[string]BaselineRun{}, Servers: []BaselineServer{}, ProjectServers: []BaselineServer{}}
}

// TestWriteBaselineRefusesADirectoryLinkedOut: WriteBaseline is handed a
// path its caller checked, and a directory link put on the way since (the
// repository is the pull request's, and its hooks, or anything else, can
// put one there) is not followed out of the repository, by an absolute
// target or by "..": the write fails as ErrOutsideTree and nothing
// outside is written. It followed such a link with MkdirAll and rename.
func TestWriteBaselineRefusesADirectoryLinkedOut(t *testing.T) {
	for _, tc := range []struct {
		name  string
		links func(dir, outside string) map[string]string // link (relative to dir) -> target
		path  string
	}{
		{"absolute", func(dir, outside string) map[string]string { return map[string]string{".vigiles": outside} }, ".vigiles/baseline.json"},
		{"climbing", func(dir, outside string) map[string]string { return map[string]string{".vigiles": "../outside"} }, ".vigiles/baseline.json"},
		{"deeper", func(dir, outside string) map[string]string {
			return map[string]string{"ci/vigiles": "../../outside"}
		}, "ci/vigiles/baseline.json"},
		{"a chain", func(dir, outside string) map[string]string {
			return map[string]string{".vigiles": "conf", "conf": outside}
		}, ".vigiles/baseline.json"},
		{"inside, then out", func(dir, outside string) map[string]string {
			return map[string]string{".vigiles": "conf/v", "conf/v": "../../outside"}
		}, ".vigiles/baseline.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, outside, victim := repoWithOutside(t)
			for l, target := range tc.links(dir, outside) {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, l)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteBaseline(dir, filepath.Join(dir, tc.path), emptyBaseline())
			if !errors.Is(err, ErrOutsideTree) {
				t.Errorf("err %v, want the link refused (ErrOutsideTree)", err)
			}
			untouched(t, outside, victim)
		})
	}
}

// TestWriteBaselineFollowsLinksInside: a directory link that stays in the
// repository is followed, by a relative or an absolute target, also one
// that climbs out of the directory holding it (conf/.vigiles ->
// ../shared, refused for a while: the check before the run let it pass,
// and the audit failed after every hook had run); a link at the file's
// name is replaced by the file, not followed.
func TestWriteBaselineFollowsLinksInside(t *testing.T) {
	dir, outside, victim := repoWithOutside(t)
	for _, d := range []string{"conf/v", "shared", "ci"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	symlinks(t, dir, map[string]string{
		".vigiles":      "conf/v",
		"abs":           filepath.Join(dir, "conf"),
		"conf/v/old":    victim,
		"ci/.vigiles":   "../shared",
		"shared/deeper": "../conf/v",
	})
	for _, p := range []string{".vigiles/baseline.json", "abs/v/b2.json", ".vigiles/old", "ci/.vigiles/b3.json", "ci/.vigiles/deeper/b4.json"} {
		if err := WriteBaseline(dir, filepath.Join(dir, p), emptyBaseline()); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{"conf/v/baseline.json", "conf/v/b2.json", "conf/v/old", "shared/b3.json", "conf/v/b4.json"} {
		fi, err := os.Lstat(filepath.Join(dir, p))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v, want a file, 0644", p, fi, err)
			continue
		}
		if _, err := LoadBaseline(filepath.Join(dir, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "conf", "v")); len(ents) != 4 {
		t.Errorf("conf/v holds %d entries, want the four files (no temporary file left)", len(ents))
	}
	untouched(t, outside, victim)
}

// TestWriteBaselineMakesItsDirectories: the directories of a baseline in
// the repository are made when they are missing (.vigiles on the first
// --update-baseline, .vigiles/new/deeper as the action's image test
// writes), each in the directory made or opened before it; outside the
// repository none is made (MkdirAll made every one: a mistyped path became
// a tree of directories anywhere).
func TestWriteBaselineMakesItsDirectories(t *testing.T) {
	dir, outside, victim := repoWithOutside(t)
	for _, p := range []string{".vigiles/baseline.json", ".vigiles/new/deeper/baseline.json"} {
		if err := WriteBaseline(dir, filepath.Join(dir, p), emptyBaseline()); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadBaseline(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, ".vigiles", "new")); err != nil || fi.Mode().Perm()&0o700 != 0o700 {
		t.Errorf(".vigiles/new: %v %v", fi, err)
	}
	for _, missing := range []string{"own/b.json", "a/b/baseline.json"} {
		err := WriteBaseline(dir, filepath.Join(outside, missing), emptyBaseline())
		first, _, _ := strings.Cut(missing, "/")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(outside, first)) {
			t.Errorf("%s: err %v, want the missing directory %s named", missing, err, first)
		}
		if _, err := os.Lstat(filepath.Join(outside, first)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a directory was made outside the repository: %v", err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("another file was written: %q", b)
	}
}

// TestWriteBaselineOutsideTheRepository: a baseline path outside the
// repository is the caller's own choice, and its links are followed (a
// work tree reached through a link, a directory of baselines elsewhere),
// as they were before the write held its directory.
func TestWriteBaselineOutsideTheRepository(t *testing.T) {
	dir, outside, victim := repoWithOutside(t)
	link := filepath.Join(filepath.Dir(dir), "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(outside, "kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteBaseline(dir, filepath.Join(link, "kept", "b.json"), emptyBaseline()); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBaseline(filepath.Join(outside, "kept", "b.json")); err != nil {
		t.Error(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("another file was written: %q", b)
	}
	// The repository spelled through a link is outside as a path, and the
	// caller's: written where the link leads.
	spelled := filepath.Join(filepath.Dir(dir), "spelled")
	if err := os.Symlink(dir, spelled); err != nil {
		t.Fatal(err)
	}
	if err := WriteBaseline(dir, filepath.Join(spelled, ".vigiles", "baseline.json"), emptyBaseline()); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBaseline(filepath.Join(dir, ".vigiles", "baseline.json")); err != nil {
		t.Error(err)
	}
}
