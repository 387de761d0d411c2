package runner

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsNamedMarketplaceFileOfAnyName: a marketplace that
// extraKnownMarketplaces names by a "file" source whose file is not
// .claude-plugin/marketplace.json (marketplaces/team.json) is read as
// Claude Code reads it, from the marketplace root two directories above
// the file: its plugins' relative sources (a dot-directory's too, which
// the walk does not search, and a bare name under metadata.pluginRoot)
// resolve from there, their hooks run in the audit, and a plugin turned
// on from it is not said to come from outside the repository, though the
// root holds a decoy .claude-plugin/marketplace.json of that name.
func TestSettingsNamedMarketplaceFileOfAnyName(t *testing.T) {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	for _, tc := range []struct {
		name, settings, path, market, hooks string
	}{
		{"a file below the root", ".claude/settings.json", "./marketplaces/team.json",
			`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./.tools/p"}]}`, ".tools/p/hooks/hooks.json"},
		{"a file in a dot-directory", ".claude/settings.json", ".claude/team.json",
			`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./.tools/p"}]}`, ".tools/p/hooks/hooks.json"},
		{"a bare name under pluginRoot", ".claude/settings.json", "./marketplaces/team.json",
			`{"name": "m", "owner": {"name": "o"}, "metadata": {"pluginRoot": "./.tools"}, "plugins": [{"name": "p", "source": "p"}]}`, ".tools/p/hooks/hooks.json"},
		{"a package's file", "packages/app/.claude/settings.json", "./mk/team.json",
			`{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./.tools/p"}]}`, "packages/app/.tools/p/hooks/hooks.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := ""
			if tc.settings != ".claude/settings.json" {
				proj = "packages/app/"
			}
			file := proj + tc.path
			if tc.path[0] == '.' && tc.path[1] == '/' {
				file = proj + tc.path[2:]
			}
			dir := makeTree(t, map[string]string{
				tc.settings: `{"extraKnownMarketplaces": {"m": {"source": {"source": "file", "path": "` + tc.path + `"}}}, "enabledPlugins": {"p@m": true}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				file:        tc.market,
				tc.hooks:    stop("true named"),
				// A decoy of that name at the root, which these
				// settings do not install from.
				".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "q", "source": "./q"}]}`,
				"q/hooks/hooks.json":              stop("true decoy"),
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if hasFinding(rep.Findings, RuleOutsidePlugin, "p@m") {
				t.Errorf("p@m said to come from outside: %v", findingLines(rep.Findings))
			}
			read := false
			for _, r := range rep.Runs {
				read = read || r.Plugin == "p" && r.Location.File == tc.hooks
			}
			if !read {
				t.Errorf("the plugin p of %s not run; runs: %v; findings: %v", file, rep.Runs, findingLines(rep.Findings))
			}
		})
	}
}

// TestOutsidePluginOfAFileSourceNotRead: a "file" source of
// extraKnownMarketplaces inside the repository that vigiles does not read
// is said for what it is, not as a source outside the repository: a file
// the repository does not hold (Claude Code adds no marketplace from it),
// a file at the repository's top, whose marketplace root (two
// directories up) and its plugins' relative sources with it are outside
// the repository, and a file (or a directory source's) that discovery
// read no marketplace of the entry's name from; a file outside the
// repository is outside.
func TestOutsidePluginOfAFileSourceNotRead(t *testing.T) {
	for _, tc := range []struct{ kind, path, want string }{
		{"file", "./marketplaces/other.json", `.claude/settings.json turns on the plugin p@m from the marketplace m, which extraKnownMarketplaces names by the path ./marketplaces/other.json, whose marketplace file marketplaces/other.json vigiles did not read as a marketplace of that name (it names the marketplace other), so it ran and audited none of its plugins' hooks; give the file the "name" m, or point the path at the marketplace of that name`},
		{"file", "./marketplaces/broken.json", `.claude/settings.json turns on the plugin p@m from the marketplace m, which extraKnownMarketplaces names by the path ./marketplaces/broken.json, whose marketplace file marketplaces/broken.json vigiles did not read as a marketplace of that name (it is not a JSON object or gives no "name"), so it ran and audited none of its plugins' hooks; give the file the "name" m, or point the path at the marketplace of that name`},
		{"directory", "./marketplaces", `.claude/settings.json turns on the plugin p@m from the marketplace m, which extraKnownMarketplaces names by the path ./marketplaces, whose marketplace file marketplaces/.claude-plugin/marketplace.json vigiles did not read as a marketplace of that name (it names the marketplace other), so it ran and audited none of its plugins' hooks; give the file the "name" m, or point the path at the marketplace of that name`},
		{"file", "./marketplaces/gone.json", `.claude/settings.json turns on the plugin p@m from the marketplace m, which extraKnownMarketplaces names by the file path ./marketplaces/gone.json, where the repository holds no marketplace (no file there): Claude Code adds no marketplace from it, so it installs no plugin p from it and runs none of its hooks; point the path at the marketplace file, relative to the project's directory`},
		{"file", "./team.json", `.claude/settings.json turns on the plugin p@m from the marketplace m, which extraKnownMarketplaces names by the file path ./team.json: Claude Code reads that file and takes the directory two levels above it as the marketplace's root, where its plugins' relative sources start, and that directory is outside the repository, so vigiles did not read the file, and ran and audited none of its plugins' hooks; keep the file at <root>/.claude-plugin/marketplace.json, where <root> is the directory of the repository that its plugins' relative sources start from, and point the path at it`},
		{"file", "../elsewhere/team.json", `.claude/settings.json turns on the plugin p@m, which Claude Code installs from the marketplace m that extraKnownMarketplaces names (source {"path":"../elsewhere/team.json","source":"file"}), outside the repository, and whose hooks it runs in every session here: vigiles did not run or audit them; vendor it in the repository with a marketplace entry that points at it, to audit it`},
	} {
		dir := makeTree(t, map[string]string{
			".claude/settings.json":                        `{"enabledPlugins": {"p@m": true}, "extraKnownMarketplaces": {"m": {"source": {"source": "` + tc.kind + `", "path": "` + tc.path + `"}}}}`,
			"team.json":                                    `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"marketplaces/other.json":                      `{"name": "other", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"marketplaces/broken.json":                     `{"owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"marketplaces/.claude-plugin/marketplace.json": `{"name": "other", "owner": {"name": "o"}, "plugins": []}`,
			"p/hooks/hooks.json":                           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{tc.want}, messagesOf(rep.Findings, RuleOutsidePlugin)); diff != "" {
			t.Errorf("a %s source %q: outside-plugin findings (-want +got):\n%s", tc.kind, tc.path, diff)
		}
	}
}
