package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestPartialAuditAgainstTheBaseline: an audit of some directories (PATHs)
// says a hook is removed only where it looked, and may not write the
// baseline, which would then keep only the hooks under the PATHs. This
// holds for every caller (the Action's paths input, not only the CLI).
func TestPartialAuditAgainstTheBaseline(t *testing.T) {
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	dir := makeTree(t, map[string]string{
		"plugins/a/hooks/hooks.json":           stop,
		"plugins/a/hooks/extra.json":           stop,
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a", "hooks": "./hooks/extra.json"}`,
		"plugins/b/hooks/hooks.json":           stop,
		".claude/settings.json":                stop,
	})
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "plugins/a/hooks/extra.json")); err != nil {
		t.Fatal(err)
	}
	removed := func(paths ...string) map[string]bool {
		t.Helper()
		rep, err := Audit(ctx, Options{Dir: dir, Paths: paths, Baseline: base, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, f := range rep.Findings {
			if f.Rule == RuleDriftPrefix+DriftHookRemoved {
				got[f.Location.File] = true
			}
		}
		return got
	}
	if got := removed("plugins/b"); len(got) != 0 {
		t.Errorf("an audit of plugins/b says %v removed; nothing under it was", got)
	}
	if got := removed("plugins/a"); len(got) != 1 || !got["plugins/a/hooks/extra.json"] {
		t.Errorf("an audit of plugins/a says %v removed; want plugins/a/hooks/extra.json only", got)
	}
	if got := removed("plugins/..", "plugins/b"); len(got) != 1 {
		t.Errorf("an audit whose PATHs hold the work tree says %v removed; want the one hook", got)
	}
	_, err = Audit(ctx, Options{Dir: dir, Paths: []string{"plugins/a"}, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
	if !errors.Is(err, ErrBadOption) {
		t.Errorf("--update-baseline with a PATH: error %v, want ErrBadOption", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, base)); string(got) != string(want) {
		t.Error("an audit of part of the tree rewrote the baseline")
	}
}
