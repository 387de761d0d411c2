package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
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
