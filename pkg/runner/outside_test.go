package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

// TestOutsidePluginDirectorySources: a marketplace that
// extraKnownMarketplaces gives a local directory is the repository's only
// where that directory is one discovery read as a marketplace of its name
// (a dot-directory too, which discovery reads because the settings name
// it); a directory elsewhere is outside, whatever decoy of that name the
// repository holds. An audit of a PATH
// below a dot-directory reads the settings of the package there too.
func TestOutsidePluginDirectorySources(t *testing.T) {
	decoy := map[string]string{
		"vendor/decoy/.claude-plugin/marketplace.json": `{"name": "decoy", "plugins": [{"name": "fmt", "source": "./f"}]}`,
		"vendor/decoy/f/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".mk/.claude-plugin/marketplace.json":          `{"name": "decoy", "plugins": [{"name": "fmt", "source": "./f"}]}`,
		".mk/f/hooks/hooks.json":                       `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true host:evil.example.test"}]}]}}`,
	}
	for _, tc := range []struct {
		path string
		warn bool
	}{
		{"/opt/evil", true},
		{"../evil", true},
		{"~/evil", true},
		{"./.mk", false},
		{"./vendor/decoy", false},
		{"vendor/decoy/", false},
	} {
		files := map[string]string{".claude/settings.json": `{"enabledPlugins": {"fmt@decoy": true}, "extraKnownMarketplaces": {"decoy": {"source": {"source": "directory", "path": "` + tc.path + `"}}}}`}
		for k, v := range decoy {
			files[k] = v
		}
		dir := makeTree(t, files)
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if got := hasFinding(rep.Findings, RuleOutsidePlugin, "fmt@decoy"); got != tc.warn {
			t.Errorf("a directory source %q: warned %v, want %v: %v", tc.path, got, tc.warn, findingLines(rep.Findings))
		}
	}
	dir := makeTree(t, map[string]string{
		".tools/app/.claude/settings.json": `{"enabledPlugins": {"lint@elsewhere": true}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{".tools/app"}, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(rep.Findings, RuleOutsidePlugin, "lint@elsewhere") {
		t.Errorf("an audit of .tools/app: %v; want lint@elsewhere said", findingLines(rep.Findings))
	}
}

// TestOutsidePluginOfClaudeCodesOwnMarketplace: Claude Code adds
// claude-plugins-official by itself, from its own source: a marketplace of
// that name in the repository is a decoy, and a plugin turned on from it
// comes from outside.
func TestOutsidePluginOfClaudeCodesOwnMarketplace(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "claude-plugins-official", "plugins": [{"name": "foo", "source": "./plugins/foo"}]}`,
		"plugins/foo/hooks/hooks.json":    `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude/settings.json":           `{"enabledPlugins": {"foo@claude-plugins-official": true}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(rep.Findings, RuleOutsidePlugin, "anthropics/claude-plugins-official") {
		t.Errorf("%v; want foo@claude-plugins-official said to come from outside", findingLines(rep.Findings))
	}
}

// TestOutsidePluginOfTheRepositoryItself: a repository that is its own
// marketplace, named in its settings by its GitHub source, turns on
// plugins the audit reads: not from outside. Another repository's source,
// or one with no marketplace of that name at the root, is outside.
func TestOutsidePluginOfTheRepositoryItself(t *testing.T) {
	for _, tc := range []struct {
		name, source, market string
		warn                 bool
	}{
		{"its own, by repo", `{"source": "github", "repo": "Org/Repo"}`, "ours", false},
		{"its own, by git URL", `{"source": "git", "url": "git@github.com:org/repo.git"}`, "ours", false},
		{"another repository", `{"source": "github", "repo": "org/other"}`, "ours", true},
		{"no marketplace of that name at the root", `{"source": "github", "repo": "org/repo"}`, "theirs", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".git/config":                     "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://github.com/org/repo.git\n",
				".claude-plugin/marketplace.json": `{"name": "` + tc.market + `", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
				"plugins/p/hooks/hooks.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				".claude/settings.json":           `{"enabledPlugins": {"p@ours": true}, "extraKnownMarketplaces": {"ours": {"source": ` + tc.source + `}}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if got := hasFinding(rep.Findings, RuleOutsidePlugin, "p@ours"); got != tc.warn {
				t.Errorf("warned %v, want %v: %v", got, tc.warn, findingLines(rep.Findings))
			}
		})
	}
}

// TestOutsidePluginOfAMarketplaceOfTheRepository: where the repository
// holds the marketplace the settings name by a remote source that its
// checkout's origin does not name (a release archive, a fork), the
// warning says the audited marketplace is not what Claude Code installs,
// and how to make it so: a checkout whose origin names the source, or a
// source pointed at the repository's own directory; not to vendor what
// is vendored already.
func TestOutsidePluginOfAMarketplaceOfTheRepository(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "ours", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/hooks/hooks.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude/settings.json":           `{"enabledPlugins": {"p@ours": true}, "extraKnownMarketplaces": {"ours": {"source": {"source": "github", "repo": "org/repo"}}}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesOf(rep.Findings, RuleOutsidePlugin)
	want := []string{`.claude/settings.json turns on the plugin p@ours, which Claude Code installs from the marketplace ours that extraKnownMarketplaces names (source {"repo":"org/repo","source":"github"}), outside the repository, not from the repository's marketplace of that name, which vigiles audited: the hooks Claude Code runs in every session here are the source's, which vigiles did not run or audit; where that source is this repository, audit a git checkout whose origin remote names it (vigiles then reads the source as the audited marketplace), else point the source at the repository's own directory`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outside-plugin findings (-want +got):\n%s", diff)
	}
}

// TestSettingsNamedMarketplaceInADotDirectory: a marketplace that
// extraKnownMarketplaces names by a local source inside the work tree is
// read wherever it is, a dot-directory too (.claude/plugins, which the
// walk does not search): its plugins are audited as those of any local
// marketplace, and a plugin turned on from it is not said to come from
// outside. A marketplace in a dot-directory that no settings name stays
// unread, and a source that leaves the tree stays outside.
func TestSettingsNamedMarketplaceInADotDirectory(t *testing.T) {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	for _, tc := range []struct {
		name, source string
		warn, read   bool
	}{
		{"a directory source", `{"source": "directory", "path": "./.claude/plugins"}`, false, true},
		{"a directory source without ./", `{"source": "directory", "path": ".claude/plugins/"}`, false, true},
		{"a file source", `{"source": "file", "path": "./.claude/plugins/.claude-plugin/marketplace.json"}`, false, true},
		{"a directory that leaves the tree", `{"source": "directory", "path": "../plugins"}`, true, false},
		{"a directory of no marketplace", `{"source": "directory", "path": "./.claude"}`, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude/settings.json":                           `{"extraKnownMarketplaces": {"m": {"source": ` + tc.source + `}}, "enabledPlugins": {"p@m": true}}`,
				".claude/plugins/.claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
				".claude/plugins/p/hooks/hooks.json":              stop("true named"),
				// Named by no settings: not searched.
				".cache/.claude-plugin/marketplace.json": `{"name": "c", "plugins": [{"name": "q", "source": "./q"}]}`,
				".cache/q/hooks/hooks.json":              stop("true cached"),
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if got := hasFinding(rep.Findings, RuleOutsidePlugin, "p@m"); got != tc.warn {
				t.Errorf("warned %v, want %v: %v", got, tc.warn, findingLines(rep.Findings))
			}
			var read, cached bool
			for _, r := range rep.Runs {
				read = read || r.Plugin == "p" && r.Location.File == ".claude/plugins/p/hooks/hooks.json"
				cached = cached || r.Plugin == "q"
			}
			if read != tc.read {
				t.Errorf("the plugin p of the marketplace read: %v, want %v; runs: %v", read, tc.read, rep.Runs)
			}
			if cached {
				t.Errorf("the walk read a marketplace in a dot-directory that no settings name")
			}
		})
	}
}

// TestOutsidePluginOfASourceThatHoldsNoMarketplace: a local source of
// extraKnownMarketplaces whose path, taken as written, names a place in
// the repository with no .claude-plugin/marketplace.json (one through
// ${CLAUDE_PROJECT_DIR}, which Claude Code does not expand there, or the
// .claude-plugin directory itself) is no marketplace Claude Code adds, so
// it installs nothing from it: the warning says so and how to fix the
// path, not that the hooks a source outside the repository holds run (a
// field test's report: a settings file that turned its own marketplace on
// by "${CLAUDE_PROJECT_DIR}/.claude-plugin").
func TestOutsidePluginOfASourceThatHoldsNoMarketplace(t *testing.T) {
	for _, tc := range []struct{ path, literal string }{
		{"${CLAUDE_PROJECT_DIR}/.claude-plugin", "; Claude Code reads the path as written, expanding no ${VAR} in it"},
		{"./.claude-plugin", ""},
	} {
		dir := makeTree(t, map[string]string{
			".claude-plugin/marketplace.json": `{"name": "ours", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
			"plugins/p/hooks/hooks.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			".claude/settings.json":           `{"enabledPlugins": {"p@ours": true}, "extraKnownMarketplaces": {"ours": {"source": {"source": "directory", "path": "` + tc.path + `"}}}}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		got := messagesOf(rep.Findings, RuleOutsidePlugin)
		want := []string{`.claude/settings.json turns on the plugin p@ours from the marketplace ours, which extraKnownMarketplaces names by the path ` + tc.path + `, where the repository holds no marketplace (no .claude-plugin/marketplace.json there` + tc.literal + `): Claude Code adds no marketplace from it, so it installs no plugin p from it and runs none of its hooks; vigiles audited the repository's marketplace of that name, which these settings do not install; point the path at the directory that holds .claude-plugin/marketplace.json, relative to the project's directory ("./" for its root)`}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("a directory source %q: outside-plugin findings (-want +got):\n%s", tc.path, diff)
		}
	}
}
