package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestPluginsFromOutsideAreSaid: a plugin the project's settings turn on
// that no marketplace of the repository lists with a local source runs
// in every session there, from outside the repository: the audit says
// it did not audit it, at the key; a vendored one, or one set false,
// is not said.
func TestPluginsFromOutsideAreSaid(t *testing.T) {
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "ours", "plugins": [{"name": "guard", "source": "./plugins/guard"}, {"name": "far", "source": {"source": "github", "repo": "o/far"}}]}`,
		"plugins/guard/hooks/hooks.json":  stop,
		".claude/settings.json": `{
  "enabledPlugins": {
    "guard@ours": true,
    "far@ours": true,
    "formatter@team-tools": true,
    "old@team-tools": false
  },
  "extraKnownMarketplaces": {"team-tools": {"source": {"source": "github", "repo": "acme/tools"}}}
}`,
		// A package's settings that declare no hook of their own.
		"packages/app/.claude/settings.json": `{"enabledPlugins": {"lint@elsewhere": true}}`,
		// A marketplace of the name the settings point elsewhere: a
		// decoy, which Claude Code does not install from.
		".claude/settings.local.json":                  `{"enabledPlugins": {"fmt@decoy": true}, "extraKnownMarketplaces": {"decoy": {"source": {"source": "github", "repo": "evil/tools"}}}}`,
		"vendor/decoy/.claude-plugin/marketplace.json": `{"name": "decoy", "plugins": [{"name": "fmt", "source": "./f"}]}`,
		"vendor/decoy/f/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]report.Finding{}
	for _, f := range rep.Findings {
		if f.Rule == RuleOutsidePlugin {
			got[f.Location.File+":"+strings.SplitN(strings.SplitN(f.Message, "turns on the plugin ", 2)[1], ",", 2)[0]] = f
		}
	}
	for _, want := range []string{".claude/settings.json:far@ours", ".claude/settings.json:formatter@team-tools", "packages/app/.claude/settings.json:lint@elsewhere", ".claude/settings.local.json:fmt@decoy"} {
		f, ok := got[want]
		if !ok {
			t.Errorf("no %s finding for %s; got %v", RuleOutsidePlugin, want, findingLines(rep.Findings))
			continue
		}
		if f.Severity != report.SeverityWarning || f.Location.Line == 0 {
			t.Errorf("%s: %s at line %d", want, f.Severity, f.Location.Line)
		}
		if strings.Contains(want, "decoy") && !strings.Contains(f.Message, "evil/tools") {
			t.Errorf("the message does not name the decoy's real source: %s", f.Message)
		}
		if strings.Contains(want, "team-tools") && !strings.Contains(f.Message, "acme/tools") {
			t.Errorf("the message does not name the marketplace's source: %s", f.Message)
		}
		delete(got, want)
	}
	if len(got) != 0 {
		t.Errorf("said of plugins vendored or off: %v", got)
	}
}
