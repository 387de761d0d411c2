package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// TestPartialAuditAgainstTheBaseline: an audit of some directories (PATHs)
// says a hook is removed only where it looked, and may not write the
// baseline, which would then keep only the hooks under the PATHs. This
// holds for every caller (the Action's paths input, not only the CLI).
func TestPartialAuditAgainstTheBaseline(t *testing.T) {
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	dir := makeTree(t, map[string]string{
		"plugins/a/hooks/hooks.json": stop,
		// Another command: Claude Code runs identical ones once.
		"plugins/a/hooks/extra.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true extra"}]}]}}`,
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

// TestPartialAuditReadsAsTheWholeAudit: an audit of part of the tree runs
// what the whole audit runs there, under the same ids and contexts, so
// the baseline the whole audit wrote finds nothing removed or moved that
// is not. Here plugin a's manifest names plugin b's hooks file: the whole
// audit runs its handler twice, in b's context and in a's
// ("#in:plugins/a"); an audit of plugins/b alone once read only b's, and
// said a's run was removed.
func TestPartialAuditReadsAsTheWholeAudit(t *testing.T) {
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	dir := makeTree(t, map[string]string{
		"plugins/a/.claude-plugin/plugin.json":      `{"name": "a", "hooks": "./b-hooks.json"}`,
		"plugins/b/hooks/hooks.json":                stop,
		"plugins/c/hooks/hooks.json":                stop,
		"plugins/c/node_modules/d/hooks/hooks.json": stop,
	})
	// Plugin a reads b's hooks file too, through a link in its own
	// directory (Claude Code loads no manifest path that leaves it).
	symlinks(t, dir, map[string]string{"plugins/a/b-hooks.json": "../b/hooks/hooks.json"})
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	whole, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(paths ...string) (got []string) {
		t.Helper()
		rep, err := Audit(ctx, Options{Dir: dir, Paths: paths, Baseline: base, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Severity == report.SeverityError {
				t.Errorf("audit of %v: %s", paths, findingLine(f))
			}
		}
		for _, r := range rep.Runs {
			got = append(got, r.ID+" "+r.Context)
		}
		sort.Strings(got)
		return got
	}
	// b's run, and a's of the same file through its link: the file an
	// audit of plugins/b reads, as the whole audit reads it.
	var want []string
	for _, r := range whole.Runs {
		if strings.HasPrefix(r.ID, "plugins/b/") || strings.HasPrefix(r.ID, "plugins/a/") {
			want = append(want, r.ID+" "+r.Context)
		}
	}
	sort.Strings(want)
	if len(want) != 2 {
		t.Fatalf("the whole audit ran %v from plugins/b and plugins/a; want b's run and a's", want)
	}
	if diff := cmp.Diff(want, ids("plugins/b")); diff != "" {
		t.Errorf("audit of plugins/b: runs (-whole audit's +its own):\n%s", diff)
	}
	if diff := cmp.Diff(want, ids("plugins/b/hooks")); diff != "" {
		t.Errorf("audit of plugins/b/hooks: runs (-whole audit's +its own):\n%s", diff)
	}
	// What the walk of the tree does not reach is discovered from the
	// PATH that names it: a plugin in node_modules (new to the baseline).
	rep, err := Audit(ctx, Options{Dir: dir, Paths: []string{"plugins/c/node_modules/d"}, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].ID != "plugins/c/node_modules/d/hooks/hooks.json#hooks.Stop[0].hooks[0]" {
		t.Errorf("audit of a plugin in node_modules ran %v", rep.Runs)
	}
}

// TestPartialAuditCases: cases a review found where an audit of some
// PATHs ran otherwise than the whole audit there, or said otherwise of
// the baseline the whole audit wrote.
func TestPartialAuditCases(t *testing.T) {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	for _, tc := range []struct {
		name    string
		files   map[string]string
		links   map[string]string
		change  func(dir string) error // after the baseline
		paths   []string
		runs    int      // the runs the partial audit has
		removed []string // the files of its hook-removed findings
		noRun   bool     // its one run is listed, not run (settings turn it off)
		added   bool     // its runs are new to the baseline: the walk of the tree does not reach them
		errs    []string // the rules of the errors it has, at places outside the PATHs
	}{
		{
			name: "a marketplace only a PATH's discovery reads decides enabledPlugins",
			files: map[string]string{
				".mk/.claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"x","source":"./x"}]}`,
				".mk/x/hooks/hooks.json":              stop("true"),
				".claude/settings.json":               `{"enabledPlugins":{"x@m":false,"x@other":true}}`,
			},
			paths: []string{".mk"}, runs: 1, noRun: true, added: true,
		},
		{
			name:  "a PATH through a link: the files it holds are spelled by the link",
			files: map[string]string{"config/claude/settings.json": stop("true")},
			links: map[string]string{".claude": "config/claude"},
			paths: []string{".claude"}, runs: 1,
		},
		{
			name:  "the real directory a link of the repository names",
			files: map[string]string{"config/claude/settings.json": stop("true")},
			links: map[string]string{".claude": "config/claude"},
			paths: []string{"config"}, runs: 1,
		},
		{
			name: "hooks a marketplace entry elsewhere gives a plugin under the PATH",
			files: map[string]string{
				".claude-plugin/marketplace.json":      `{"name":"m","plugins":[{"name":"a","source":"./plugins/a","hooks":` + stop("true") + `}]}`,
				"plugins/a/.claude-plugin/plugin.json": `{"name":"a"}`,
			},
			paths: []string{"plugins/a"}, runs: 1,
		},
		{
			name: "a marketplace elsewhere installs a remote source of a plugin vendored under the PATH",
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"x","source":{"source":"github","repo":"o/x"}}]}`,
				"plugins/x/hooks/hooks.json":      stop("true"),
			},
			paths: []string{"plugins/x"}, runs: 1, errs: []string{RuleRemoteSource},
		},
		{
			name: "a plugin of an entry's name vendored under the PATH, the entry installing another directory",
			files: map[string]string{
				".claude-plugin/marketplace.json":    `{"name":"m","plugins":[{"name":"x","source":"./plugins/x"}]}`,
				"plugins/x/hooks/hooks.json":         stop("true"),
				"other/x/.claude-plugin/plugin.json": `{"name":"x","hooks":` + stop("true decoy") + `}`,
			},
			paths: []string{"other/x"}, runs: 1, errs: []string{RuleRemoteSource}, added: true,
		},
		{
			name: "a manifest under the PATH no longer names a file elsewhere",
			files: map[string]string{
				"plugins/a/.claude-plugin/plugin.json": `{"name":"a","hooks":"./guard.json"}`,
				"plugins/b/hooks/hooks.json":           stop("true"),
				"shared/guard.json":                    stop("true"),
			},
			links: map[string]string{"plugins/a/guard.json": "../../shared/guard.json"},
			change: func(dir string) error {
				return os.WriteFile(filepath.Join(dir, "plugins/a/.claude-plugin/plugin.json"), []byte(`{"name":"a","hooks":`+stop("true")+`}`), 0o644)
			},
			paths: []string{"plugins/a"}, runs: 1, removed: []string{"plugins/a/guard.json"}, added: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			symlinks(t, dir, tc.links)
			ctx := context.Background()
			base := ".vigiles/baseline.json"
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
				t.Fatal(err)
			}
			if tc.change != nil {
				if err := tc.change(dir); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Audit(ctx, Options{Dir: dir, Paths: tc.paths, Baseline: base, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var removed, errs []string
			for _, f := range rep.Findings {
				switch {
				case slices.Contains(tc.errs, f.Rule) && f.Severity == report.SeverityError:
					errs = append(errs, f.Rule)
				case f.Rule == RuleDriftPrefix+DriftHookRemoved:
					removed = append(removed, f.Location.File)
				case tc.added && f.Rule == RuleDriftPrefix+DriftHookAdded:
				case f.Severity == report.SeverityError || strings.HasPrefix(f.Rule, RuleDriftPrefix):
					t.Errorf("%s: %s", findingLine(f), f.Message)
				}
			}
			if diff := cmp.Diff(tc.errs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.removed, removed); diff != "" {
				t.Errorf("hook-removed (-want +got):\n%s", diff)
			}
			if len(rep.Runs) != tc.runs {
				t.Fatalf("%d runs, want %d: %v", len(rep.Runs), tc.runs, rep.Runs)
			}
			if tc.noRun && rep.Runs[0].Outcome != report.OutcomeNotExecutable {
				t.Errorf("%s: %s, want it listed, not run (settings turn it off)", rep.Runs[0].ID, rep.Runs[0].Outcome)
			}
		})
	}
}

// TestAMalformedDeclarationIsSaidAsSuch: a hooks file with a syntax error
// is the discovery error at its place; the audit that then finds no hook
// says it could read none (not that it looked in the wrong place), and a
// run the baseline has of that file is not said removed but unread.
func TestAMalformedDeclarationIsSaidAsSuch(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugins/p/hooks/hooks.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command" "command": "true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleNoHooks:
			if !strings.Contains(f.Message, "no hooks could be read") || !strings.Contains(f.Message, "plugins/p/hooks/hooks.json") {
				t.Errorf("%s: %s", findingLine(f), f.Message)
			}
		case RuleDriftPrefix + DriftHookRemoved:
			if f.Severity != report.SeverityError || !strings.Contains(f.Message, "could not be read") {
				t.Errorf("%s: %s", findingLine(f), f.Message)
			}
		}
	}
	if !hasFinding(rep.Findings, RuleMalformed, "") || rep.Verdict == report.VerdictPass {
		t.Errorf("verdict %s: %v", rep.Verdict, findingLines(rep.Findings))
	}
}

// TestAMissingBaselineNamesItsFlag: the notice of a missing baseline that
// is not the default tells the command that writes that one.
func TestAMissingBaselineNamesItsFlag(t *testing.T) {
	dir := makeTree(t, map[string]string{"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	for base, want := range map[string]string{"nope.json": "vigiles audit --update-baseline --baseline nope.json`", DefaultBaseline: "vigiles audit --update-baseline`", "my base.json": "--baseline 'my base.json'`"} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if !hasFinding(rep.Findings, RuleBaselineMissing, want) {
			t.Errorf("baseline %q: %v; want the notice to say %q", base, findingLines(rep.Findings), want)
		}
	}
}
