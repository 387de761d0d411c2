package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// A plugin repository that is its own marketplace (its
// .claude-plugin/marketplace.json lists "./") and has no plugin.json, or
// one with no name, is installed under the entry's name: Claude Code
// names the plugin after it (name@marketplace), not after the directory
// the repository is checked out in, which only --plugin-dir would give
// it. The walk meets the directory as a plugin before its marketplace;
// the audit still runs its hooks under the entry's name, at the work
// tree and in a directory below it alike.
func TestOwnMarketplaceNamesItsPlugin(t *testing.T) {
	hooks := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo \"$CLAUDE_PLUGIN_DATA\""}]}]}}`
	sandboxtest.RequireConfinement(t)
	for name, tc := range map[string]struct {
		files map[string]string
		want  map[string]struct{ plugin, data string }
	}{
		"at the work tree, no manifest": {
			files: map[string]string{
				".claude-plugin/marketplace.json": `{"name": "mk", "owner": {"name": "o"}, "plugins": [{"name": "guard", "source": "./"}]}`,
				"hooks/hooks.json":                hooks,
			},
			want: map[string]struct{ plugin, data string }{"hooks/hooks.json": {"guard", "guard-mk"}},
		},
		"below it": {
			files: map[string]string{
				// A manifest with no name.
				"vendor/fmt-main/.claude-plugin/marketplace.json": `{"name": "fm", "owner": {"name": "o"}, "plugins": [{"name": "fmt", "source": "./"}]}`,
				"vendor/fmt-main/.claude-plugin/plugin.json":      `{"description": "formats"}`,
				"vendor/fmt-main/hooks/hooks.json":                hooks,
				// A manifest's name stays the plugin's, whatever the entry says.
				"vendor/lint-main/.claude-plugin/marketplace.json": `{"name": "lm", "owner": {"name": "o"}, "plugins": [{"name": "lint-entry", "source": "./"}]}`,
				"vendor/lint-main/.claude-plugin/plugin.json":      `{"name": "lint"}`,
				"vendor/lint-main/hooks/hooks.json":                hooks,
			},
			want: map[string]struct{ plugin, data string }{
				"vendor/fmt-main/hooks/hooks.json":  {"fmt", "fmt-fm"},
				"vendor/lint-main/hooks/hooks.json": {"lint", "lint-entry-lm"},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			rep, err := Audit(context.Background(), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			seen := map[string]bool{}
			for _, r := range rep.Runs {
				file, _, _ := strings.Cut(r.ID, "#")
				w, ok := want[file]
				if !ok {
					t.Errorf("unexpected run %s", r.ID)
					continue
				}
				seen[file] = true
				if r.Plugin != w.plugin {
					t.Errorf("run %s: plugin %q, want %q (the name Claude Code installs it under, not the directory's %q)", r.ID, r.Plugin, w.plugin, filepath.Base(filepath.Dir(filepath.Dir(filepath.Join(dir, file)))))
				}
				if got := strings.TrimSpace(r.Stdout); !strings.HasSuffix(got, "/.claude/plugins/data/"+w.data) {
					t.Errorf("run %s: CLAUDE_PLUGIN_DATA %q, want …/.claude/plugins/data/%s", r.ID, got, w.data)
				}
			}
			if name == "below it" {
				if got := messagesOf(rep.Findings, RuleMalformed); len(got) != 1 || !strings.Contains(got[0], `using the marketplace entry's, "fmt"`) {
					t.Errorf("malformed findings %q, want one saying the nameless manifest takes the entry's name", got)
				}
			}
			for file := range want {
				if !seen[file] {
					t.Errorf("no run of %s; runs: %+v", file, rep.Runs)
				}
			}
		})
	}
}
