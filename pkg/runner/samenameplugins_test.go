package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestSameNamedPluginsAreNamed: two enabled plugins of one name, each of
// its own marketplace (guard@mk, guard@mk2), are two plugins to the
// audit, and each one's hooks run; Claude Code runs one's and leaves out
// the other's (its /plugin says so from 2.1.296 on), which one its docs
// do not say. A discovery/same-name warning names them both, so a guard
// of the one left out, seen to block, is not taken for one a session
// runs. Where the settings turn one of them off there is one plugin of
// the name, and no warning.
func TestSameNamedPluginsAreNamed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string
		warned   bool
	}{
		{"both on", `{"enabledPlugins": {"guard@mk": true, "guard@mk2": true}}`, true},
		{"one off", `{"enabledPlugins": {"guard@mk": false, "guard@mk2": true}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude-plugin/marketplace.json":       `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
				"other/.claude-plugin/marketplace.json": `{"name": "mk2", "plugins": [{"name": "guard", "source": "./g2"}]}`,
				"other/g2/hooks/hooks.json":             `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk2"}]}]}}`,
				"plugins/guard/hooks/hooks.json":        `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk"}]}]}}`,
				".claude/settings.json":                 tc.settings,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			ran := map[string]bool{}
			for _, r := range rep.Runs {
				ran[r.Command] = r.Outcome != report.OutcomeNotExecutable
			}
			if !ran["echo mk2"] || ran["echo mk"] != tc.warned {
				t.Errorf("ran %v: want echo mk2 run, echo mk run %v", ran, tc.warned)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleSameName {
					got = append(got, f)
				}
			}
			if !tc.warned {
				if len(got) != 0 {
					t.Errorf("findings %+v; want no %s", got, RuleSameName)
				}
				return
			}
			if len(got) != 1 || got[0].Severity != report.SeverityWarning || got[0].Location.File != "other/g2" ||
				!strings.Contains(got[0].Message, "2 enabled plugins share the name guard (other/g2, plugins/guard)") {
				t.Errorf("findings %+v; want one %s warning naming both directories\n%s", got, RuleSameName, findingLines(rep.Findings))
			}
		})
	}
}
