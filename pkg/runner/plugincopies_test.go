package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// copiedPlugins is a tree whose marketplace lists the plugins names from
// plugins/, with a copy of each kept under each of copies (a backup of
// the plugins directory), each plugin a skill alone.
func copiedPlugins(names []string, copies ...string) map[string]string {
	var entries []string
	files := map[string]string{}
	for _, n := range names {
		entries = append(entries, `{"name": "`+n+`", "source": "./plugins/`+n+`"}`)
		for _, at := range append([]string{"plugins"}, copies...) {
			files[at+"/"+n+"/.claude-plugin/plugin.json"] = `{"name": "` + n + `"}`
			files[at+"/"+n+"/skills/s/SKILL.md"] = "---\nname: s\ndescription: s\n---\nhi\n"
		}
	}
	files[".claude-plugin/marketplace.json"] = `{"name": "m", "owner": {"name": "o"}, "plugins": [` + strings.Join(entries, ", ") + `]}`
	return files
}

// TestBackupOfThePluginsDirectoryIsOneNotice: a backup of a marketplace's
// plugins directory kept in the tree, which no marketplace lists, is one
// remote-source notice per copy, at the first entry, that counts the
// entries and names the first copies: not one notice per entry (two
// backups of 434 plugins made 868 alike). A copy of one plugin under
// another directory name is a notice of its own.
func TestBackupOfThePluginsDirectoryIsOneNotice(t *testing.T) {
	names := []string{"a", "b", "c", "d", "e", "f", "g"}
	files := copiedPlugins(names, "plugins.bak", "old/2025/plugins")
	files["old/plugin-a/.claude-plugin/plugin.json"] = `{"name": "a"}`
	rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == RuleRemoteSource {
			got = append(got, f)
		}
	}
	if len(got) != 3 {
		t.Fatalf("%d remote-source findings; want 3 (one per copy): %v", len(got), findingLines(got))
	}
	for _, want := range []string{
		"7 marketplace entries install plugins of the tree that vigiles audits, and plugins.bak holds a copy of each (plugins.bak/a of plugins/a, plugins.bak/b of plugins/b, plugins.bak/c of plugins/c, plugins.bak/d of plugins/d, plugins.bak/e of plugins/e and 2 more)",
		"7 marketplace entries install plugins of the tree that vigiles audits, and old/2025 holds a copy of each (old/2025/plugins/a of plugins/a,",
		"the marketplace entry a installs plugins/a, a plugin of that name, which vigiles audits; the plugin of that name vendored at old/plugin-a",
	} {
		n := 0
		for _, f := range got {
			if strings.Contains(f.Message, want) {
				n++
				if f.Severity != report.SeverityNotice || f.Location.File != ".claude-plugin/marketplace.json" || f.Location.Line != 1 {
					t.Errorf("%s at %v; want a notice at the marketplace's first entry", f.Severity, f.Location)
				}
			}
		}
		if n != 1 {
			t.Errorf("%d findings say %q; want 1: %v", n, want, findingLines(got))
		}
	}
}

// TestUnlistedCopyOfAListedPluginIsNotRun: Claude Code loads a plugin of
// the tree only where a marketplace lists it (or --plugin-dir names it),
// so a copy of a listed plugin that no marketplace lists is never loaded:
// the audit runs none of its hooks, names none of its skills' shell
// lines, and does not name it among what Claude Code loads; the listed
// plugin's hook runs. An audit that names the copy as its PATH runs its
// hook, as it would a fixture's.
func TestUnlistedCopyOfAListedPluginIsNotRun(t *testing.T) {
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
	}
	for _, at := range []string{"plugins/p", "backup/p"} {
		files[at+"/.claude-plugin/plugin.json"] = `{"name": "p"}`
		files[at+"/hooks/hooks.json"] = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`
		files[at+"/skills/s/SKILL.md"] = "---\nname: s\ndescription: s\n---\nnow: !`date`\n"
	}
	dir := makeTree(t, files)
	sandboxtest.RequireConfinement(t)
	ranAt := func(rep *report.Report) []string {
		var at []string
		for _, r := range rep.Runs {
			at = append(at, r.Location.File+":"+r.Outcome)
		}
		return at
	}
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if got := ranAt(rep); len(got) != 1 || !strings.HasPrefix(got[0], "plugins/p/hooks/hooks.json:") {
		t.Errorf("runs %v; want the listed plugin's hook alone", got)
	}
	notice := 0
	for _, f := range rep.Findings {
		if strings.Contains(f.Location.File, "backup/") || strings.Contains(f.Message, "backup/p/skills") {
			t.Errorf("a finding of the copy, which Claude Code never loads: %s", findingLines([]report.Finding{f}))
		}
		if f.Rule == RuleRemoteSource && strings.Contains(f.Message, "vendored at backup/p") && strings.Contains(f.Message, "vigiles runs none of its hooks") {
			notice++
		}
	}
	if notice != 1 {
		t.Errorf("%d remote-source notices say the copy is not run; want 1: %v", notice, findingLines(rep.Findings))
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Paths: []string{"backup/p"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := ranAt(rep); len(got) != 1 || !strings.HasPrefix(got[0], "backup/p/hooks/hooks.json:") {
		t.Errorf("audit of backup/p: runs %v; want the copy's hook", got)
	}
}

// TestCopyBases: where a copy lies, and what of, less the path the two
// end with alike.
func TestCopyBases(t *testing.T) {
	for _, tc := range []struct{ root, dir, copyAt, from string }{
		{"plugins.bak/p", "plugins/p", "plugins.bak", "plugins"},
		{"old/2025/plugins/p", "plugins/p", "old/2025", "."},
		{"p", "plugins/p", ".", "plugins"},
		{"old/plugin-x", "plugins/x", "old/plugin-x", "plugins/x"},
		{"backup", ".", "backup", "."},
		{".", "plugin", ".", "plugin"},
	} {
		if a, f := copyBases(tc.root, tc.dir); a != tc.copyAt || f != tc.from {
			t.Errorf("copyBases(%q, %q) = %q, %q; want %q, %q", tc.root, tc.dir, a, f, tc.copyAt, tc.from)
		}
	}
}

// TestPluginListedUnderAnotherNameIsNoCopy: a plugin directory that an
// entry of the tree's marketplace lists under another name than its
// manifest's (plugins/x-copilot, whose manifest names it x, listed as
// x-copilot) is installed in its own right, and audited so: no notice
// calls it a copy of plugins/x, which the entry x installs, and no error
// a decoy, hooks or none; an unlisted copy of plugins/x still is one.
func TestPluginListedUnderAnotherNameIsNoCopy(t *testing.T) {
	hooks := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	for _, copyHooks := range []bool{true, false} {
		files := map[string]string{
			".claude-plugin/marketplace.json":              `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "x", "source": "./plugins/x"}, {"name": "x-copilot", "source": "./plugins/x-copilot"}]}`,
			"plugins/x/.claude-plugin/plugin.json":         `{"name": "x"}`,
			"plugins/x/hooks/hooks.json":                   hooks,
			"plugins/x-copilot/.claude-plugin/plugin.json": `{"name": "x"}`,
			"plugins/x-copilot/skills/s/SKILL.md":          "---\nname: s\ndescription: s\n---\nhi\n",
			"plugins.bak/x/.claude-plugin/plugin.json":     `{"name": "x"}`,
		}
		if copyHooks {
			files["plugins/x-copilot/hooks/hooks.json"] = hooks
		}
		rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Rule == RuleRemoteSource {
				got = append(got, f.Message)
			}
		}
		if len(got) != 1 || !strings.Contains(got[0], "vendored at plugins.bak/x") || strings.Contains(strings.Join(got, "\n"), "x-copilot") {
			t.Errorf("x-copilot with hooks %v: remote-source %q; want one, of plugins.bak/x alone", copyHooks, got)
		}
	}
}
