package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestIdenticalHooksRunOnce: Claude Code runs a command hook once for a
// call however often one source declares it (a manifest's inline hooks
// that repeat its hooks/hooks.json; both project settings files), the
// last declared: the audit runs it once too, and says which run it left
// out; two plugins' alike commands, and hooks that differ in if or
// async, each run. A baseline written so compares without drift.
func TestIdenticalHooksRunOnce(t *testing.T) {
	stop := `{"Stop": [{"hooks": [{"type": "command", "command": "true same"}]}]}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}, {"name": "q", "source": "./plugins/q"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {"hooks": ` + stop + `}}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": ` + stop + `}`,
		"plugins/q/hooks/hooks.json":           `{"hooks": ` + stop + `}`,
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "true guard"},
			{"type": "command", "command": "true guard", "if": "Bash(git *)"},
			{"type": "command", "command": "true guard", "async": true}]}]}}`,
		".claude/settings.local.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true guard"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Runs {
		ids = append(ids, r.Plugin+" "+r.Event+" "+r.Tool)
	}
	slices.Sort(ids)
	want := []string{"p Stop ", "project PreToolUse Bash", "project PreToolUse Bash", "project-local PreToolUse Bash", "q Stop "}
	if !slices.Equal(ids, want) {
		t.Errorf("runs %q, want %q", ids, want)
	}
	var notes []string
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && f.Severity == report.SeverityNotice {
			notes = append(notes, f.Message)
		}
	}
	if len(notes) != 2 || !slices.ContainsFunc(notes, func(m string) bool {
		return strings.Contains(m, "its plugin declares the same command hook again") && strings.Contains(m, "Claude Code runs it once for a call, the last declared")
	}) || !slices.ContainsFunc(notes, func(m string) bool {
		return strings.Contains(m, "its project's settings declares the same command hook again")
	}) {
		t.Errorf("notices of the runs left out: %q", notes)
	}
	base := ".vigiles/baseline.json"
	if _, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 {
		t.Errorf("drift against the baseline written from the tree: %+v", rep.Drift)
	}
}

// TestTheLastDeclaredPastTheTenth: of a hook declared twelve times the run
// kept is the twelfth's (hooks[11]), and the notices name it, where the
// IDs' string order took hooks[9] for the last declared.
func TestTheLastDeclaredPastTheTenth(t *testing.T) {
	var hooks []string
	for range 12 {
		hooks = append(hooks, `{"type": "command", "command": "true same"}`)
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [` + strings.Join(hooks, ",\n") + `]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	const last = ".claude/settings.json#hooks.Stop[0].hooks[11]"
	if len(rep.Runs) != 1 || rep.Runs[0].ID != last || rep.Runs[0].Location.Line != 12 {
		t.Errorf("runs %+v, want one, %s at line 12", rep.Runs, last)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && f.Severity == report.SeverityNotice {
			n++
			if !strings.HasSuffix(f.Message, "the last declared: "+last+", which vigiles runs") {
				t.Errorf("notice %q does not name %s as the run kept", f.Message, last)
			}
		}
	}
	if n != 11 {
		t.Errorf("%d notices of runs left out, want 11", n)
	}
}

// TestCheckRunsIdenticalHooksOnce: a check's expectations are checked of
// the one run Claude Code makes of a hook its plugin declares twice (the
// manifest's inline hooks and hooks/hooks.json), and the run left out is
// named, once, as the one vigiles runs (it said "the audit", which
// vigiles test is not); a second check of the same hook keeps its own run.
func TestCheckRunsIdenticalHooksOnce(t *testing.T) {
	stop := `{"Stop": [{"hooks": [{"type": "command", "command": "true same"}]}]}`
	check := "  - name: %s\n    hook: p\n    event: Stop\n    expect:\n      exit-code: 0\n"
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p", "hooks": {"hooks": ` + stop + `}}`,
		"hooks/hooks.json":           `{"hooks": ` + stop + `}`,
		".vigiles.yml":               "checks:\n" + fmt.Sprintf(check, "one") + fmt.Sprintf(check, "two"),
	})
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 2 {
		t.Errorf("%d runs, want one for each check", len(rep.Runs))
	}
	var notes int
	for _, f := range rep.Findings {
		switch {
		case f.Rule == RuleNoRun && f.Severity == report.SeverityNotice && strings.Contains(f.Message, "its plugin declares the same command hook again"):
			notes++
			if !strings.HasSuffix(f.Message, ", which vigiles runs") {
				t.Errorf("the notice of the run left out: %q; want it to end \", which vigiles runs\"", f.Message)
			}
		case f.Severity != report.SeverityNotice:
			t.Errorf("finding %s: %s", f.Rule, f.Message)
		}
	}
	if notes != 1 {
		t.Errorf("%d notices of the run left out, want one", notes)
	}
}

// TestHooksDifferingInTimeoutOrOnFailureEachRun: vigiles keeps apart
// alike command hooks that differ in timeout or onFailure (their runs'
// records could differ: one cut sooner, one whose failure blocks), so
// each runs; only the one declared again as it is is left out, with a
// notice.
func TestHooksDifferingInTimeoutOrOnFailureEachRun(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
			{"type": "command", "command": "true guard"},
			{"type": "command", "command": "true guard", "timeout": 30},
			{"type": "command", "command": "true guard", "onFailure": "block"},
			{"type": "command", "command": "true guard"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Runs {
		ids = append(ids, strings.TrimPrefix(r.ID, ".claude/settings.json#hooks.PreToolUse[0]."))
	}
	slices.Sort(ids)
	want := []string{"hooks[1]@Bash", "hooks[2]@Bash", "hooks[3]@Bash"}
	if !slices.Equal(ids, want) {
		t.Errorf("runs %q, want %q: hooks that differ in timeout or onFailure each run, and of the two alike the last declared", ids, want)
	}
	var left []string
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && f.Severity == report.SeverityNotice {
			left = append(left, f.Hook)
		}
	}
	if len(left) != 1 || !strings.HasSuffix(left[0], "hooks[0]@Bash") {
		t.Errorf("runs left out %q, want hooks[0]@Bash alone", left)
	}
}

// TestScopedHooksAreNotMergedWithSettings: the hooks Claude Code runs
// once for a call are those one source declares again, not a skill's,
// agent's or command's own (docs/report-format.md, plan/not-run): a
// skill's hook and the project settings' alike command hook each run,
// and neither is left out.
func TestScopedHooksAreNotMergedWithSettings(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json":     `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true same"}]}]}}`,
		".claude/skills/s/SKILL.md": "---\nname: s\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: true same\n---\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Runs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	want := []string{".claude/settings.json#hooks.Stop[0].hooks[0]", ".claude/skills/s/SKILL.md#hooks.Stop[0].hooks[0]"}
	if !slices.Equal(ids, want) {
		t.Errorf("runs %q, want %q: a skill's hook runs beside the settings' alike one", ids, want)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun {
			t.Errorf("%s %s: %s", f.Rule, f.Hook, f.Message)
		}
	}
}
