package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestUpdateBaselineLastMomentLinks: audit --update-baseline checks the
// baseline's path (linkedOut), then writes it; a link put in place in
// between (a hook of a --sandbox off or trusted run that is still
// running, or another process: the repository is the pull request's) is
// not followed out of the repository. One for the directory makes the
// write fail and nothing outside is written; one at the file's name is
// replaced by the baseline.
func TestUpdateBaselineLastMomentLinks(t *testing.T) {
	t.Cleanup(func() { beforeBaselineWrite = nil })
	hooks := map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`}
	plant := func(t *testing.T, dir string) {
		for p, c := range hooks {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	const base = ".vigiles/baseline.json"
	t.Run("the directory", func(t *testing.T) {
		for _, target := range []string{"outside", "../outside"} {
			dir, outside, victim := repoWithOutside(t)
			plant(t, dir)
			if target == "outside" {
				target = outside
			}
			if err := os.Mkdir(filepath.Join(dir, ".vigiles"), 0o755); err != nil {
				t.Fatal(err)
			}
			swapped := false
			beforeBaselineWrite = func() {
				swapped = true
				os.RemoveAll(filepath.Join(dir, ".vigiles"))
				if err := os.Symlink(target, filepath.Join(dir, ".vigiles")); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
			if !swapped {
				t.Fatal("the hook did not run")
			}
			if !errors.Is(err, ErrOutsideTree) {
				t.Errorf("-> %s: err %v, want the write refused (ErrOutsideTree)", target, err)
			}
			untouched(t, outside, victim)
		}
	})
	t.Run("the file", func(t *testing.T) {
		dir, outside, victim := repoWithOutside(t)
		plant(t, dir)
		beforeBaselineWrite = func() {
			os.Mkdir(filepath.Join(dir, ".vigiles"), 0o755)
			if err := os.Symlink(victim, filepath.Join(dir, base)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
			t.Fatal(err)
		}
		untouched(t, outside, victim)
		fi, err := os.Lstat(filepath.Join(dir, base))
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: %v %v, want the baseline in the link's place", base, fi, err)
		}
		if b, err := LoadBaseline(filepath.Join(dir, base)); err != nil || len(b.Runs) != 1 {
			t.Errorf("%s: %v, %v; want the audit's one run", base, b, err)
		}
	})
}
