package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestRefusedHooksFile: a plugin's hooks file that Claude Code's loader
// refuses ({} or notes alone, events at its top level, "hooks" that is
// no object, no object at all, not valid JSON) is a "Hook load failed"
// plugin error, with which Claude Code fails the whole plugin to load
// (anthropics/claude-code#31763; "Status: failed to load" in claude
// plugin list): the hooks its manifest declares inline or in another
// file run no more than the file's. vigiles lists them, not run, and the
// error says so; another plugin's hooks run, and a hooks file of
// {"hooks": {}} declares none without failing anything.
func TestRefusedHooksFile(t *testing.T) {
	for _, tc := range []struct {
		name, body, says string
		refused          bool
	}{
		{"{}", `{}`, `hooks/hooks.json has no "hooks" object: Claude Code's schema requires one and refuses the file ("Hook load failed"`, true},
		{"notes alone", `{"description": "none yet"}`, `hooks/hooks.json has no "hooks" object`, true},
		{"events at the top level", `{"Stop": [{"hooks": [{"type": "command", "command": "from-file"}]}]}`, `hooks/hooks.json has events at the top level (Stop)`, true},
		{"hooks a list", `{"hooks": []}`, `"hooks": want an object keyed by event name, found an array`, true},
		{"no object", `[]`, `hooks/hooks.json: want a JSON object with "hooks", found an array`, true},
		{"not valid JSON", `{"hooks": {"Stop": [}}`, `hooks/hooks.json is not valid JSON`, true},
		{"no hooks, as written to declare none", `{"hooks": {}}`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": ["./extra.json", {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # inline"}]}]}}]}`,
				"plugins/p/extra.json":                 `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true # extra"}]}]}}`,
				"plugins/p/hooks/hooks.json":           tc.body,
				"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
				"plugins/q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # q"}]}]}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			ran := map[string]bool{}
			for _, r := range rep.Runs {
				skipped := strings.HasPrefix(r.Reason, "listed, not run: Claude Code fails to load plugin p: it refuses a hooks file of it (\"Hook load failed\"; plugins/p/hooks/hooks.json, line 1)")
				if want := tc.refused && r.Plugin == "p"; skipped != want {
					t.Errorf("%s %s: %s %q, want it skipped %v", r.Plugin, r.Event, r.Outcome, r.Reason, want)
				}
				ran[r.Plugin+" "+r.Event] = true
			}
			for _, want := range []string{"p Stop", "p SessionStart", "q Stop"} {
				if !ran[want] {
					t.Errorf("no run of %s's hook listed; runs %v", want, ran)
				}
			}
			var errs []report.Finding
			for _, f := range rep.Findings {
				if f.Severity == report.SeverityError && f.Location.File == "plugins/p/hooks/hooks.json" {
					errs = append(errs, f)
				}
			}
			if !tc.refused {
				if len(errs) != 0 {
					t.Errorf("errors %v, want none", findingLines(errs))
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("errors at plugins/p/hooks/hooks.json %v, want one", findingLines(errs))
			}
			for _, say := range []string{
				strings.ReplaceAll(tc.says, "hooks/hooks.json", "plugins/p/hooks/hooks.json"),
				"; Claude Code fails to load a plugin one of whose hooks files it refuses: none of plugin p's hooks runs, those its manifest or its other hooks files declare too (vigiles lists its 2 and runs none)",
			} {
				if !strings.Contains(errs[0].Message, say) {
					t.Errorf("message %q does not say %q", errs[0].Message, say)
				}
			}
		})
	}
}

// TestStandardHooksNamedAgain: a manifest whose "hooks" names the
// plugin's standard hooks/hooks.json, which Claude Code loads by itself,
// is a "Hook load failed: Duplicate hooks file detected" plugin error,
// with which recent versions fail the whole plugin to load: none of its
// hooks runs, the standard file's, the manifest's inline ones, and
// vigiles lists them, not run; another plugin's run.
func TestStandardHooksNamedAgain(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p", "hooks": ["./hooks/hooks.json", {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # inline"}]}]}}]}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true # standard"}]}]}}`,
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"plugins/q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # q"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range rep.Runs {
		n++
		skipped := strings.HasPrefix(r.Reason, `listed, not run: Claude Code fails to load plugin p: it refuses a hooks file of it ("Hook load failed"; plugins/p/.claude-plugin/plugin.json, line 1)`)
		if want := r.Plugin == "p"; skipped != want {
			t.Errorf("%s %s: %s %q, want it skipped %v", r.Plugin, r.Event, r.Outcome, r.Reason, want)
		}
	}
	if n != 3 {
		t.Errorf("%d runs, want 3 (p's two hooks, listed, and q's)", n)
	}
	says := false
	for _, f := range rep.Findings {
		says = says || f.Location.File == "plugins/p/.claude-plugin/plugin.json" && strings.Contains(f.Message, `("Hook load failed: Duplicate hooks file detected")`) &&
			strings.HasSuffix(f.Message, "; Claude Code fails to load a plugin one of whose hooks files it refuses: none of plugin p's hooks runs, those its manifest or its other hooks files declare too (vigiles lists its 2 and runs none)")
	}
	if !says {
		t.Errorf("no error says that plugin p fails to load and none of its hooks runs:\n%s", strings.Join(findingMessages(rep.Findings), "\n"))
	}
}
