package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vigiles/action/pkg/report"
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

// TestWriteBaselineOverwritesOnlyABaseline: --update-baseline rewrites a
// baseline, valid or not (damaged by hand or by a merge, empty), and
// refuses, as ErrBadOption, to overwrite any other file: --baseline
// naming the policy file (a slip for --config), a file of the host's,
// another tool's JSON, a FIFO. WhyNotBaseline, which the CLI asks before
// the audit runs, says the same, and why. A link at the name is replaced,
// not what it leads to (WhyNotBaseline follows it).
func TestWriteBaselineOverwritesOnlyABaseline(t *testing.T) {
	for _, tc := range []struct {
		name, data string // "" with fifo: none written
		fifo       bool
		why        string // WhyNotBaseline's; "" where it may be written
	}{
		{"a baseline", `{"schema": "vigiles.baseline/v2", "runs": {}}`, false, ""},
		{"an older one", `{"schema": "vigiles.baseline/v1", "runs": {}}`, false, ""},
		{"another version's", `{"schema": "vigiles.baseline/v9"}`, false, ""},
		{"an invalid one", `{"runs": [], "schema": "vigiles.baseline/v2"}`, false, ""},
		{"cut short", "{\n  \"schema\": \"vigiles.baseline/v2\",\n  \"runs\": {\n", false, ""},
		{"conflict markers", "{\n<<<<<<< HEAD\n  \"schema\": \"vigiles.baseline/v2\",\n=======\n  \"schema\" : \"vigiles.baseline/v1\",\n>>>>>>> old\n}\n", false, ""},
		{"empty", " \n", false, ""},
		{"the policy file", "checks:\n  - name: no network\n    hook: guard\n", false, "it is not JSON"},
		{"a host file", "build-host\n", false, "it is not JSON"},
		{"another tool's JSON", `{"name": "x", "version": "1.0.0"}`, false, `it is JSON without the "schema": "vigiles.baseline/v2" of a baseline`},
		{"a schema of another tool", `{"schema": "vigiles.report/v1"}`, false, `it is JSON without the "schema": "vigiles.baseline/v2" of a baseline`},
		{"an array", `[{"schema": "vigiles.baseline/v2"}]`, false, `it is JSON without the "schema": "vigiles.baseline/v2" of a baseline`},
		{"a FIFO", "", true, "it is a FIFO, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "b.json")
			if tc.fifo {
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := WhyNotBaseline(p); got != tc.why {
				t.Errorf("WhyNotBaseline: %q, want %q", got, tc.why)
			}
			err := WriteBaseline(dir, p, emptyBaseline())
			if tc.why == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := LoadBaseline(p); err != nil {
					t.Errorf("not rewritten: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "which is not a vigiles baseline ("+tc.why+")") ||
				!strings.Contains(err.Error(), "--baseline") {
				t.Errorf("err %v, want the write refused, saying why and naming --baseline", err)
			}
			if fi, err := os.Lstat(p); err != nil || tc.fifo != (fi.Mode()&os.ModeNamedPipe != 0) {
				t.Errorf("the file there was replaced: %v %v", fi, err)
			} else if !tc.fifo {
				if b, _ := os.ReadFile(p); string(b) != tc.data {
					t.Errorf("overwritten: %q", b)
				}
			}
		})
	}
	t.Run("a link to another file", func(t *testing.T) {
		dir := t.TempDir()
		policy := filepath.Join(dir, "policy.yml")
		if err := os.WriteFile(policy, []byte("checks: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "b.json")
		if err := os.Symlink("policy.yml", p); err != nil {
			t.Fatal(err)
		}
		if got := WhyNotBaseline(p); got != "it is not JSON" {
			t.Errorf("WhyNotBaseline through the link: %q", got)
		}
		if err := WriteBaseline(dir, p, emptyBaseline()); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(policy); string(b) != "checks: []\n" {
			t.Errorf("the file the link led to was written: %q", b)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		// Not replaced either, but by the rename's own error.
		p := filepath.Join(t.TempDir(), "b.json")
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if got := WhyNotBaseline(p); got != "" {
			t.Errorf("WhyNotBaseline: %q, want \"\"", got)
		}
		if err := WriteBaseline(filepath.Dir(p), p, emptyBaseline()); err == nil || errors.Is(err, ErrBadOption) {
			t.Errorf("err %v, want the rename's", err)
		}
	})
	t.Run("none there", func(t *testing.T) {
		if got := WhyNotBaseline(filepath.Join(t.TempDir(), "none.json")); got != "" {
			t.Errorf("WhyNotBaseline: %q, want \"\"", got)
		}
	})
}

// TestWriteBaselineRefusesOneTooLargeToRead: a baseline larger than the
// one vigiles reads back (a hook that writes a hundred thousand files of
// long names) is not written, and the error names the run that keeps the
// most: the next audit would refuse it, and accept nothing.
func TestWriteBaselineRefusesOneTooLargeToRead(t *testing.T) {
	dir := t.TempDir()
	b := emptyBaseline()
	writes := make([]string, 100000)
	for i := range writes {
		writes[i] = fmt.Sprintf("out/%0200d", i)
	}
	b.Runs["plugins/many/hooks/hooks.json#hooks.Stop[0].hooks[0]"] = BaselineRun{Outcome: report.OutcomeAllowed, Writes: writes, Hosts: []string{}}
	b.Runs["plugins/few/hooks/hooks.json#hooks.Stop[0].hooks[0]"] = BaselineRun{Outcome: report.OutcomeAllowed, Writes: []string{"a"}, Hosts: []string{}}
	p := filepath.Join(dir, "baseline.json")
	err := WriteBaseline(dir, p, b)
	if err == nil || !strings.Contains(err.Error(), "MiB vigiles reads back") || !strings.Contains(err.Error(), "plugins/many/hooks/hooks.json#hooks.Stop[0].hooks[0] keeps 100000 writes") {
		t.Fatalf("WriteBaseline of a baseline past %d MiB: %v; want an error that names the run keeping the most", maxBaseline>>20, err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a baseline too large to read was written (%v)", err)
	}
}

// TestWriteBaselineTooLargeWithoutRunsSaysSo: a baseline too large to read
// back that keeps no run is refused with what makes it so, not with
// advice --update-baseline cannot take (auditing some PATHs).
func TestWriteBaselineTooLargeWithoutRunsSaysSo(t *testing.T) {
	dir := t.TempDir()
	b := emptyBaseline()
	b.NotRun = map[string]string{}
	for i := range 100000 {
		b.NotRun[fmt.Sprintf("plugins/p/hooks/hooks.json#hooks.Stop[%d].hooks[0]%0200d", i, i)] = notRunYet
	}
	err := WriteBaseline(dir, filepath.Join(dir, "baseline.json"), b)
	if err == nil || strings.Contains(err.Error(), "PATH") || !strings.Contains(err.Error(), "it keeps no run") {
		t.Fatalf("WriteBaseline of a baseline past %d MiB without runs: %v; want an error that says it keeps no run", maxBaseline>>20, err)
	}
}
