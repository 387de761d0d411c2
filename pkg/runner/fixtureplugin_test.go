package runner

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// A listed plugin's test fixtures (plugin-shaped directories kept inside
// it, a deliberately broken one among them) are no plugins Claude Code
// loads: it installs the directory the marketplace entry names, and reads
// none inside it as a plugin. The walk lists them with a notice and
// reads none of their declarations, in a notice that says whose fixture
// it is and that it itself is listed by none (it said "and no
// marketplace lists it", which read as the enclosing plugin); one a
// marketplace lists, or an audit names as its PATH, is read as the
// plugin it is.
func TestFixturePluginsInsideAPluginAreNotRun(t *testing.T) {
	broken := `{"PostToolUse": [{"hooks": [{"type": "command", "command": "echo broken"}]}]}`
	fixture := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo fixture"}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [
  {"name": "evaluator", "source": "./plugins/evaluator"},
  {"name": "listed", "source": "./plugins/evaluator/fixtures/listed"}
]}`,
		"plugins/evaluator/.claude-plugin/plugin.json":                 `{"name": "evaluator"}`,
		"plugins/evaluator/hooks/hooks.json":                           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo own"}]}]}}`,
		"plugins/evaluator/fixtures/broken/.claude-plugin/plugin.json": `{"name": "broken", "hooks": "./hooks/hooks.json"}`,
		"plugins/evaluator/fixtures/broken/hooks/hooks.json":           broken,
		"plugins/evaluator/fixtures/bare/hooks/hooks.json":             fixture,
		"plugins/evaluator/fixtures/listed/.claude-plugin/plugin.json": `{"name": "listed"}`,
		// Listed by a marketplace the walk meets after it: read there, and
		// no notice.
		"zz/.claude-plugin/marketplace.json":                 `{"name": "late", "owner": {"name": "o"}, "plugins": [{"name": "late", "source": "../plugins/evaluator/fixtures/late"}]}`,
		"plugins/evaluator/fixtures/late/hooks/hooks.json":   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo late"}]}]}}`,
		"plugins/evaluator/fixtures/listed/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo listed"}]}]}}`,
	})

	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, h := range d.Hooks {
		cmds = append(cmds, h.Command)
	}
	slices.Sort(cmds)
	if want := []string{"echo late", "echo listed", "echo own"}; !slices.Equal(cmds, want) {
		t.Errorf("hooks run = %q, want %q (no fixture's)", cmds, want)
	}
	if want := []string{"plugins/evaluator", "plugins/evaluator/fixtures/late", "plugins/evaluator/fixtures/listed"}; !slices.Equal(sorted(d.Plugins), want) {
		t.Errorf("plugins = %q, want %q", d.Plugins, want)
	}
	notes := map[string]string{}
	for _, f := range d.Findings {
		if strings.Contains(f.Location.File, "fixtures/") {
			if f.Severity != report.SeverityNotice || f.Rule != RuleNotExecutable {
				t.Errorf("a fixture gave %s %s %s: %s", f.Severity, f.Rule, f.Location.File, f.Message)
				continue
			}
			notes[f.Location.File] = f.Message
		}
	}
	for file, inside := range map[string]string{
		"plugins/evaluator/fixtures/broken/.claude-plugin/plugin.json": "plugins/evaluator/fixtures/broken lies inside the plugin plugins/evaluator, which a marketplace lists, and is listed by no marketplace itself (a test's fixture)",
		"plugins/evaluator/fixtures/bare/hooks/hooks.json":             "plugins/evaluator/fixtures/bare lies inside the plugin plugins/evaluator, which a marketplace lists, and is listed by no marketplace itself (a test's fixture)",
	} {
		if m, ok := notes[file]; !ok || !strings.Contains(m, inside) || !strings.Contains(m, "does not run its hooks") {
			t.Errorf("notice at %s = %q, want it to say it lies %s and is not run", file, m, inside)
		}
	}
	if len(notes) != 2 {
		t.Errorf("fixture notices = %d, want 2 (one each): %q", len(notes), notes)
	}

	// Named as the PATH of vigiles audit, a fixture is read as a plugin, broken
	// hooks file and all.
	one, err := ClaudeAdapter{}.Discover(dir, dir+"/plugins/evaluator/fixtures/broken")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(one.Plugins, "plugins/evaluator/fixtures/broken") {
		t.Errorf("an audit of the fixture's path reads plugins %q, want it", one.Plugins)
	}
	var errs int
	for _, f := range one.Findings {
		if f.Severity == report.SeverityError {
			errs++
		}
	}
	if errs == 0 {
		t.Errorf("an audit of the broken fixture's path finds no error: %q", findingLines(one.Findings))
	}
}

// A repository that is itself a plugin its own marketplace lists ("./")
// keeps its fixtures under it: they are its files, not plugins of their
// own. Without a marketplace that lists the enclosing plugin, nothing
// says which directory the author loads (--plugin-dir), and both are read.
func TestFixturePluginsInsideTheWorkTreesPlugin(t *testing.T) {
	files := map[string]string{
		".claude-plugin/plugin.json":                 `{"name": "top"}`,
		"hooks/hooks.json":                           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo top"}]}]}}`,
		"test/fixtures/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"test/fixtures/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo p"}]}]}}`,
	}
	for _, tc := range []struct {
		market string
		want   []string
		notice bool
	}{
		{`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "top", "source": "./"}]}`, []string{"echo top"}, true},
		{"", []string{"echo p", "echo top"}, false},
	} {
		tree := maps.Clone(files)
		if tc.market != "" {
			tree[".claude-plugin/marketplace.json"] = tc.market
		}
		dir := makeTree(t, tree)
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		var cmds []string
		for _, h := range d.Hooks {
			cmds = append(cmds, h.Command)
		}
		if !slices.Equal(sorted(cmds), tc.want) {
			t.Errorf("marketplace %q: hooks = %q, want %q", tc.market, cmds, tc.want)
		}
		var said bool
		for _, f := range d.Findings {
			if f.Location.File == "test/fixtures/p/.claude-plugin/plugin.json" && strings.Contains(f.Message, "inside the work tree's plugin") {
				said = true
			}
		}
		if said != tc.notice {
			t.Errorf("marketplace %q: a notice names the fixture: %v, want %v: %q", tc.market, said, tc.notice, findingLines(d.Findings))
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
