package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// oneRemoteSource fails t unless rep has exactly one discovery/remote-source
// finding, of severity sev, whose message says each of says.
func oneRemoteSource(t *testing.T, rep *report.Report, sev report.Severity, says ...string) {
	t.Helper()
	var got []report.Finding
	for _, f := range rep.Findings {
		if f.Rule == RuleRemoteSource {
			got = append(got, f)
		}
	}
	ok := len(got) == 1 && got[0].Severity == sev
	for _, w := range says {
		ok = ok && strings.Contains(got[0].Message, w)
	}
	if !ok {
		t.Errorf("remote-source findings %v; want one %s saying %q (all: %v)", findingLines(got), sev, says, findingLines(rep.Findings))
	}
}

// TestUnderTheRoot: under takes "." for the root of relative paths, as a
// plugin at the work tree's root has: a relative path lies below it
// unless it climbs out; other directories are as before.
func TestUnderTheRoot(t *testing.T) {
	for _, tc := range []struct {
		p, d string
		want bool
	}{
		{".claude-plugin/marketplace.json", ".", true},
		{".", ".", true},
		{"a", ".", true},
		{"..", ".", false},
		{"../a", ".", false},
		{"/etc/x", ".", false},
		{"", ".", false},
		{"sub/a", "sub", true},
		{"sub", "sub", true},
		{"subx/a", "sub", false},
		{"/a", "/", false},
	} {
		if got := under(tc.p, tc.d); got != tc.want {
			t.Errorf("under(%q, %q) = %v; want %v", tc.p, tc.d, got, tc.want)
		}
	}
}

// TestVendoredAtTheRootWithItsOwnMarketplace: a plugin at the root of
// the work tree that lists itself, by a remote source, in a marketplace
// file of its own (inside its directory) is what users of that
// marketplace install: a notice, as for the same plugin and marketplace
// in a directory below the root, not the error of a remote source over
// a vendored copy.
func TestVendoredAtTheRootWithItsOwnMarketplace(t *testing.T) {
	for _, at := range []string{"", "sub/"} {
		t.Run("at "+orDefault(at, "the root"), func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				at + ".claude-plugin/plugin.json":      `{"name": "p"}`,
				at + "hooks/hooks.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				at + ".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "github", "repo": "x/p"}}]}`,
				// At the root the entry is the repository listing itself
				// by its URL: the checkout's origin says it is x/p.
				".git/HEAD":   "ref: refs/heads/main\n",
				".git/config": "[remote \"origin\"]\n\turl = https://github.com/x/p.git\n",
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, f := range rep.Findings {
				if f.Rule == RuleRemoteSource {
					n++
					if f.Severity != report.SeverityNotice || strings.Contains(f.Message, "vendored at") {
						t.Errorf("remote-source finding %s %q; want a notice", f.Severity, f.Message)
					}
				}
			}
			if n != 1 {
				t.Errorf("%d remote-source findings; want 1: %v", n, findingLines(rep.Findings))
			}
		})
	}
}

// TestRootPluginAndAnotherSource: at the tree's root, the repository's
// marketplace files are no marketplace of the plugin's own: an entry of
// the root plugin's name that installs another directory of the tree, or
// another repository, is the error a vendored plugin's decoy is (the
// exemption of a plugin's own marketplace let both through at the root).
func TestRootPluginAndAnotherSource(t *testing.T) {
	for name, market := range map[string]string{
		"a decoy directory":  `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": "./plugins/decoy"}]}`,
		"another repository": `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "github", "repo": "evil/p"}}]}`,
		// Its own repository, but another directory of it, another
		// revision, or a key Claude Code does not read for the kind.
		"a subdirectory of itself":   `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "git-subdir", "url": "https://github.com/x/p.git", "path": "plugins/decoy"}}]}`,
		"another ref of itself":      `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "github", "repo": "x/p", "ref": "evil"}}]}`,
		"a url source's stray repo":  `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "url", "url": "https://git.example.test/p.git", "repo": "x/p"}}]}`,
		"an npm source's stray repo": `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "p", "source": {"source": "npm", "package": "evil-p", "repo": "x/p"}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{
				".claude-plugin/plugin.json":      `{"name": "p"}`,
				"hooks/hooks.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				".claude-plugin/marketplace.json": market,
				".git/HEAD":                       "ref: refs/heads/main\n",
				".git/config":                     "[remote \"origin\"]\n\turl = https://github.com/x/p.git\n",
			}
			if name == "a decoy directory" {
				files["plugins/decoy/.claude-plugin/plugin.json"] = `{"name": "p"}`
			}
			dir := makeTree(t, files)
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			errs := 0
			for _, f := range rep.Findings {
				if f.Rule == RuleRemoteSource && f.Severity == report.SeverityError {
					errs++
				}
			}
			if errs == 0 {
				t.Errorf("no remote-source error: %v", findingLines(rep.Findings))
			}
		})
	}
}

// TestVendoredPluginWithoutHooks: a remote entry of the name of a
// vendored plugin that declares no hooks (commands and skills only) is
// the same error as for one with hooks: Claude Code installs the remote
// source, and vigiles audited the vendored directory.
func TestVendoredPluginWithoutHooks(t *testing.T) {
	rep := auditTree(t, map[string]string{
		"plugins/.claude-plugin/plugin.json": `{"name": "noxa"}`,
		"plugins/commands/x.md":              "---\ndescription: x\n---\nhi\n",
		".claude-plugin/marketplace.json":    `{"name": "m", "owner": {"name": "x"}, "plugins": [{"name": "noxa", "source": {"source": "git-subdir", "url": "https://git.example.test/noxa.git", "path": "./plugins"}}]}`,
	})
	oneRemoteSource(t, rep, report.SeverityError, "vendored at plugins")
}

// TestRootPluginListingAnAuditedPlugin: a plugin at the tree's root whose
// marketplace lists its name from a directory of the tree that is itself
// a plugin of that name, with hooks of its own, installs what vigiles
// audits: a notice that the root's copy is not what is installed, not
// the error of a decoy (claude-mem's root manifest and ./plugin).
func TestRootPluginListingAnAuditedPlugin(t *testing.T) {
	rep := auditTree(t, map[string]string{
		".claude-plugin/plugin.json":      `{"name": "p"}`,
		"sub/.claude-plugin/plugin.json":  `{"name": "p"}`,
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./sub"}]}`,
		"sub/hooks/hooks.json":            `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	oneRemoteSource(t, rep, report.SeverityNotice, "installs sub")
	if rep.Verdict != report.VerdictPass {
		t.Errorf("verdict %s; want a pass: %v", rep.Verdict, findingLines(rep.Findings))
	}
}

// TestBackupCopyOfAListedPlugin: a marketplace entry that installs a
// plugin of the tree under its own name, beside a copy of that plugin
// kept elsewhere in the tree (a backup of the plugins directory) that
// declares no hooks, installs what vigiles audits, and no run of the
// copy's passes for it: a notice, not the decoy's error (a marketplace
// with two backups of its 433 plugins had 866 errors). A copy with hooks,
// beside an installed plugin without, stays the error.
func TestBackupCopyOfAListedPlugin(t *testing.T) {
	for _, tc := range []struct {
		copyHooks bool
		want      report.Severity
	}{{false, report.SeverityNotice}, {true, report.SeverityError}} {
		files := map[string]string{
			".claude-plugin/marketplace.json":                   `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
			"plugins/p/.claude-plugin/plugin.json":              `{"name": "p"}`,
			"plugins/p/skills/s/SKILL.md":                       "---\nname: s\ndescription: s\n---\nhi\n",
			"backups/2025/plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
			"backups/2025/plugins/p/skills/s/SKILL.md":          "---\nname: s\ndescription: s\n---\nhi\n",
		}
		if tc.copyHooks {
			files["backups/2025/plugins/p/hooks/hooks.json"] = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}`
		}
		t.Run(fmt.Sprintf("copy with hooks %v", tc.copyHooks), func(t *testing.T) {
			oneRemoteSource(t, auditTree(t, files), tc.want, "the marketplace entry p installs plugins/p", "vendored at backups/2025/plugins/p")
		})
	}
}
