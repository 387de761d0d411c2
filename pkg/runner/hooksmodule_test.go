package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestHooksModules: a plugin's hooks file that lists a module under
// "modules" (a JavaScript module Claude Code loads into its own process)
// is a discovery/not-executable warning at the module's path, beside its
// hooks or alone (no "no hooks object" error then); a "modules" of
// another form is a discovery/wrong-type error.
func TestHooksModules(t *testing.T) {
	for _, tc := range []struct {
		name, hooks string
		runs        int
		want        string // the finding at the module, "rule severity: text"
	}{
		{"beside hooks", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}, "modules": ["./hooks/mod.js"]}`, 1,
			"discovery/not-executable warning: plugins/p/hooks/hooks.json lists the hooks module ./hooks/mod.js: Claude Code loads such a JavaScript module"},
		{"alone", `{"modules": ["./hooks/mod.js"]}`, 0,
			"discovery/not-executable warning: plugins/p/hooks/hooks.json lists the hooks module ./hooks/mod.js"},
		{"not a list", `{"hooks": {}, "modules": "./hooks/mod.js"}`, 0,
			`discovery/wrong-type error: "modules": want an array of module paths, found a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           tc.hooks,
				"plugins/p/hooks/mod.js":               "export function register(on) {}\n",
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != tc.runs {
				t.Errorf("%d runs, want %d", len(rep.Runs), tc.runs)
			}
			var got []string
			for _, f := range rep.Findings {
				if f.Location.File == "plugins/p/hooks/hooks.json" && f.Severity != report.SeverityNotice {
					got = append(got, f.Rule+" "+string(f.Severity)+": "+f.Message)
				}
			}
			if len(got) != 1 || !strings.HasPrefix(got[0], tc.want) {
				t.Errorf("findings of the hooks file %q, want one starting %q", got, tc.want)
			}
		})
	}
}
