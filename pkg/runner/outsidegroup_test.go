package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// A settings file that turns on many plugins of one outside marketplace
// gives one discovery/outside-plugin warning, at the first key's line,
// naming the plugins up to a bound and counting the rest; each other
// marketplace, cause and settings file keeps a warning of its own.
func TestOutsidePluginsGroupByFileAndMarketplace(t *testing.T) {
	var on []string
	for i := range 44 {
		on = append(on, fmt.Sprintf("    %q: true", fmt.Sprintf("p%02d@far", i)))
	}
	on = append(on, `    "solo@elsewhere": true`, `    "lost@gone": true`, `    "lost2@gone": true`)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": "{\n  \"enabledPlugins\": {\n" + strings.Join(on, ",\n") + "\n  },\n" +
			`  "extraKnownMarketplaces": {"far": {"source": {"source": "github", "repo": "acme/far"}}, "gone": {"source": {"source": "directory", "path": "./nothing-here"}}}` + "\n}\n",
		".claude/settings.local.json": `{"enabledPlugins": {"p01@far": true, "x@far": true}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	byWhere := map[string]report.Finding{}
	for _, f := range rep.Findings {
		if f.Rule != RuleOutsidePlugin {
			continue
		}
		key := fmt.Sprintf("%s:%d", f.Location.File, f.Location.Line)
		if _, dup := byWhere[key]; dup {
			t.Errorf("two warnings at %s", key)
		}
		byWhere[key] = f
	}
	// Line 3 holds p00@far, the first key; p01@far is the local file's
	// (the last file that sets a key decides), so 43 here.
	far := byWhere[".claude/settings.json:3"]
	if !strings.Contains(far.Message, "turns on 43 plugins (p00@far, p02@far,") || !strings.Contains(far.Message, "p10@far and 33 more)") ||
		strings.Contains(far.Message, "p11@far") || !strings.Contains(far.Message, "acme/far") || !strings.Contains(far.Message, "vendor them") {
		t.Errorf("the far group's warning at line 3 = %q", far.Message)
	}
	if solo := byWhere[".claude/settings.json:47"]; !strings.Contains(solo.Message, "turns on the plugin solo@elsewhere,") {
		t.Errorf("the elsewhere warning at line 47 = %q", solo.Message)
	}
	if gone := byWhere[".claude/settings.json:48"]; !strings.Contains(gone.Message, "turns on 2 plugins (lost@gone, lost2@gone) from the marketplace gone") ||
		!strings.Contains(gone.Message, "installs none of them from it") {
		t.Errorf("the gone warning at line 48 = %q", gone.Message)
	}
	if local := byWhere[".claude/settings.local.json:1"]; !strings.Contains(local.Message, "turns on 2 plugins (p01@far, x@far)") {
		t.Errorf("the local file's warning = %q", local.Message)
	}
	if len(byWhere) != 4 {
		t.Errorf("%d warnings, want 4: %v", len(byWhere), findingLines(rep.Findings))
	}
}
