package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// stopHooks is a hooks object with one Stop command hook per command.
func stopHooks(cmds ...string) string {
	var hs []string
	for _, c := range cmds {
		hs = append(hs, `{"type": "command", "command": "`+c+`"}`)
	}
	return `{"Stop": [{"hooks": [` + strings.Join(hs, ", ") + `]}]}`
}

// linkedPluginFiles is the plugin packages/foo: its default hooks file
// (with a script that is missing, for one finding), its manifest's own
// hooks, a command, and commands kept under its own .claude, which the
// walk's project reading meets too.
func linkedPluginFiles() map[string]string {
	return map[string]string{
		"packages/foo/.claude-plugin/plugin.json": `{"name": "foo", "commands": ["./commands", "./.claude/commands"], "hooks": {"hooks": ` + stopHooks("true manifest") + `}}`,
		"packages/foo/hooks/hooks.json":           `{"hooks": ` + stopHooks("true hooksfile", "bash ${CLAUDE_PLUGIN_ROOT}/missing.sh") + `}`,
		"packages/foo/commands/c.md":              "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"true command\"}]\n---\n",
		"packages/foo/.claude/commands/p.md":      "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"true dotclaude\"}]\n---\n",
		"packages/foo/extra/x.md":                 "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"true entry-command\"}]\n---\n",
	}
}

// symlink makes each link (path in dir -> target), with its directory.
func symlink(t *testing.T, dir string, links map[string]string) {
	t.Helper()
	for l, target := range links {
		p := filepath.Join(dir, l)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
}

// countCommands counts the hooks of each command.
func countCommands(hooks []*Hook) map[string]int {
	n := map[string]int{}
	for _, h := range hooks {
		n[h.Command]++
	}
	return n
}

// checkOnce fails unless every hook ID is given once, every finding is
// made once, and each command of want is the command of exactly one hook,
// of the plugin root packages/foo.
func checkOnce(t *testing.T, what string, d *Discovery, want ...string) {
	t.Helper()
	ids := map[string]bool{}
	for _, h := range d.Hooks {
		if ids[h.ID] {
			t.Errorf("%s: hook ID %s given twice", what, h.ID)
		}
		ids[h.ID] = true
		if h.InPlugin && h.PluginRoot != "packages/foo" {
			t.Errorf("%s: hook %s of the plugin root %s; want the directory it is, packages/foo", what, h.ID, h.PluginRoot)
		}
	}
	n, bad := countCommands(d.Hooks), false
	for _, c := range want {
		if n[c] != 1 {
			t.Errorf("%s: %d hooks run %q, want 1", what, n[c], c)
			bad = true
		}
	}
	if bad {
		t.Logf("%s: hooks:\n%s", what, strings.Join(hookLines(d.Hooks), "\n"))
	}
	seen := map[string]bool{}
	for _, f := range d.Findings {
		if k := findingLine(f) + " " + f.Message; seen[k] {
			t.Errorf("%s: finding made twice: %s", what, k)
		} else {
			seen[k] = true
		}
	}
	if !slices.Equal(d.Plugins, []string{"packages/foo"}) {
		t.Errorf("%s: plugins %q, want [packages/foo] once", what, d.Plugins)
	}
}

func hookLines(hs []*Hook) []string {
	var out []string
	for _, h := range hs {
		out = append(out, hookLine(h))
	}
	return out
}

// TestPluginThroughLinkIsReadOnce: a marketplace entry whose source is a
// link to a plugin directory the walk finds too (plugins/foo ->
// ../packages/foo) names one plugin, read once: each hook is listed once,
// under the directory the plugin is (packages/foo), whichever path is met
// first, whether the link is relative or absolute, and however the work
// tree is spelled; the entry's own hooks and commands still apply.
func TestPluginThroughLinkIsReadOnce(t *testing.T) {
	entry := `{"name": "mk", "plugins": [{"name": "foo", "source": "SRC", "commands": "./extra", "hooks": ` + stopHooks("true entry") + `}]}`
	wantIDs := []string{
		"packages/foo/.claude-plugin/plugin.json#hooks.Stop[0].hooks[0]",
		"packages/foo/.claude/commands/p.md#hooks.UserPromptSubmit[0].hooks[0]",
		"packages/foo/commands/c.md#hooks.UserPromptSubmit[0].hooks[0]",
		"packages/foo/extra/x.md#hooks.UserPromptSubmit[0].hooks[0]",
		"packages/foo/hooks/hooks.json#hooks.Stop[0].hooks[0]",
		"packages/foo/hooks/hooks.json#hooks.Stop[0].hooks[1]",
	}
	for _, tc := range []struct {
		name, market, src string
		abs               bool // the link's target is absolute
	}{
		// Read before the walk: the link is met first.
		{"root marketplace", ".claude-plugin/marketplace.json", "./plugins/foo", false},
		{"absolute link", ".claude-plugin/marketplace.json", "./plugins/foo", true},
		// Read after the walk has met packages/foo.
		{"later marketplace", "zz/.claude-plugin/marketplace.json", "../plugins/foo", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := linkedPluginFiles()
			files[tc.market] = strings.Replace(entry, "SRC", tc.src, 1)
			dir := makeTree(t, files)
			target := "../packages/foo"
			if tc.abs {
				target = filepath.Join(dir, "packages/foo")
			}
			symlink(t, dir, map[string]string{"plugins/foo": target})
			spelled := filepath.Join(t.TempDir(), "tree")
			symlink(t, filepath.Dir(spelled), map[string]string{"tree": dir})
			for _, at := range []string{dir, spelled} {
				d, err := ClaudeAdapter{}.Discover(at, at)
				if err != nil {
					t.Fatal(err)
				}
				checkOnce(t, at, d, "true manifest", "true hooksfile", "bash ${CLAUDE_PLUGIN_ROOT}/missing.sh", "true command", "true dotclaude", "true entry-command", "true entry")
				var ids []string
				for _, h := range d.Hooks {
					if h.Command == "true entry" {
						continue // named after the marketplace file
					}
					ids = append(ids, h.ID)
					if h.Plugin != "foo" || !h.InPlugin {
						t.Errorf("%s: %s; want a hook of the plugin foo", at, hookLine(h))
					}
				}
				slices.Sort(ids)
				if diff := cmp.Diff(wantIDs, ids); diff != "" {
					t.Errorf("%s: hook IDs (-want +got):\n%s", at, diff)
				}
				missing := 0
				for _, f := range d.Findings {
					if f.Rule == RuleMissingScript {
						missing++
					}
					if f.Rule == RuleRemoteSource {
						t.Errorf("%s: the link to the vendored plugin called a decoy: %s", at, f.Message)
					}
				}
				if missing != 1 {
					t.Errorf("%s: %d missing-script findings, want 1: %q", at, missing, findingLines(d.Findings))
				}
				if !slices.Equal(d.Markets["foo"], []string{"mk"}) {
					t.Errorf("%s: markets of foo %q", at, d.Markets["foo"])
				}
			}
		})
	}
}

// TestPluginNamedByTwoEntries: two marketplaces list one plugin, one
// through a link and one by its own path: the plugin's declarations are
// read once, and each entry's own hooks once, each under its own ID.
func TestPluginNamedByTwoEntries(t *testing.T) {
	files := linkedPluginFiles()
	files[".claude-plugin/marketplace.json"] = `{"name": "a", "plugins": [{"name": "foo", "source": "./plugins/foo", "hooks": ` + stopHooks("true entry-a") + `}]}`
	files["market-b/.claude-plugin/marketplace.json"] = `{"name": "b", "plugins": [{"name": "foo", "source": "../packages/foo", "hooks": ` + stopHooks("true entry-b") + `}]}`
	// A third entry through a link to a link, with the same hooks as the
	// first: its declaration keeps an ID of its own.
	files["market-c/.claude-plugin/marketplace.json"] = `{"name": "c", "plugins": [{"name": "foo", "source": "../plugins/again", "hooks": ` + stopHooks("true entry-a") + `}]}`
	dir := makeTree(t, files)
	symlink(t, dir, map[string]string{"plugins/foo": "../packages/foo", "plugins/again": "foo"})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "discovery", d, "true manifest", "true hooksfile", "true command", "true dotclaude", "true entry-b")
	if n := countCommands(d.Hooks)["true entry-a"]; n != 2 {
		t.Errorf("%d hooks of \"true entry-a\", want one per entry: %q", n, hookLines(d.Hooks))
	}
	if !slices.Equal(d.Markets["foo"], []string{"a", "b", "c"}) {
		t.Errorf("markets of foo %q", d.Markets["foo"])
	}
	for _, f := range d.Findings {
		if f.Rule == RuleRemoteSource {
			t.Errorf("an entry naming the vendored plugin called a decoy: %s", f.Message)
		}
	}

	// An audit runs each hook once, and reports each finding once.
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]map[string]bool{} // command -> IDs run
	for _, r := range rep.Runs {
		if runs[r.Command] == nil {
			runs[r.Command] = map[string]bool{}
		}
		runs[r.Command][r.ID] = true
	}
	for _, c := range []string{"true manifest", "true hooksfile", "true command", "true dotclaude", "true entry-b"} {
		if len(runs[c]) != 1 {
			t.Errorf("%q run as %d hooks, want 1: %v", c, len(runs[c]), runs[c])
		}
	}
	missing := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleMissingScript {
			missing++
		}
	}
	if missing != 1 {
		t.Errorf("%d missing-script findings in the audit, want 1", missing)
	}
}

// TestPluginLinkOutsideStaysOutside: a marketplace source through a link
// that leads out of the tree is the outside-the-work-tree finding, even
// when the host path it leads to links back to the tree's own plugin (one
// directory to EvalSymlinks): nothing outside is read, and the plugin in
// the tree is read once, as itself.
func TestPluginLinkOutsideStaysOutside(t *testing.T) {
	outside := makeTree(t, map[string]string{
		"foo/.claude-plugin/plugin.json": `{"name": "foo"}`,
		"foo/hooks/hooks.json":           `{"hooks": ` + stopHooks("true outside") + `}`,
	})
	files := linkedPluginFiles()
	files[".claude-plugin/marketplace.json"] = `{"name": "mk", "plugins": [
		{"name": "foo", "source": "./plugins/out"},
		{"name": "foo", "source": "./plugins/round"}]}`
	dir := makeTree(t, files)
	symlink(t, outside, map[string]string{"back": filepath.Join(dir, "packages/foo")})
	symlink(t, dir, map[string]string{
		"plugins/out":   filepath.Join(outside, "foo"),
		"plugins/round": filepath.Join(outside, "back"),
	})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	checkOnce(t, "discovery", d, "true manifest", "true hooksfile", "true command", "true dotclaude")
	if n := countCommands(d.Hooks)["true outside"]; n != 0 {
		t.Errorf("a hook outside the tree was read: %q", hookLines(d.Hooks))
	}
	var got []string
	for _, f := range d.Findings {
		if f.Rule == RuleOutsideTree {
			got = append(got, findingLine(f))
		}
	}
	want := []string{
		string(report.SeverityError) + " " + RuleOutsideTree + " .claude-plugin/marketplace.json:2:29",
		string(report.SeverityError) + " " + RuleOutsideTree + " .claude-plugin/marketplace.json:3:29",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outside-the-work-tree findings (-want +got):\n%s", diff)
	}
}
