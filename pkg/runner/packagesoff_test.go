package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestPackageDecidesEachPluginOnItsOwn turns two plugins of a
// marketplace off in the root's settings, and one of them off in a
// package's too: a session started in the package runs the other
// plugin's hooks, which the audit runs, and none of the first's, which
// it lists. What onInAPackage learnt of one plugin is not taken for
// another's, whichever is asked first, and a plugin's second hook gets
// its first hook's answer.
func TestPackageDecidesEachPluginOnItsOwn(t *testing.T) {
	hooks := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true one"}, {"type": "command", "command": "true two"}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "./plugins/b"}]}`,
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"plugins/a/hooks/hooks.json":           hooks,
		"plugins/b/.claude-plugin/plugin.json": `{"name": "b"}`,
		"plugins/b/hooks/hooks.json":           hooks,
		".claude/settings.json":                `{"enabledPlugins": {"a@m": false, "b@m": false}}`,
		"pkg/.claude/settings.json":            `{"enabledPlugins": {"b@m": false}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, r := range rep.Runs {
		plugin := r.Plugin
		if r.Outcome == report.OutcomeAllowed {
			ran[plugin]++
		} else if !strings.Contains(r.Reason, "turned off") {
			t.Errorf("%s: %s, %s; want it run, or listed as turned off", r.ID, r.Outcome, r.Reason)
		}
	}
	if ran["a"] != 2 || ran["b"] != 0 {
		t.Errorf("ran %v; want both hooks of a (on in pkg) and none of b (off there too)", ran)
	}
}
