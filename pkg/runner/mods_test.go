package runner

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// modLines are the findings of rep about mods and the files their hooks
// files list under "modules" (discovery's and the baseline's), as
// "severity rule file:line:col message", sorted.
func modLines(rep *report.Report) []string {
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleMod, RuleMissingFile, RuleWrongType, RuleOutsideTree, RuleEscapesPlugin, RuleNotExecutable, RuleMalformed, RuleUnknownEvent,
			RuleDriftPrefix + DriftServerAdded, RuleDriftPrefix + DriftServerChanged, RuleDriftPrefix + DriftServerRemoved:
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	sort.Strings(got)
	return got
}

// TestModsAreNamed: a plugin whose hooks file lists a hooks module under
// "modules" is a mod, which Claude Code loads into its own process: a
// discovery/mod warning at the module's path in the hooks file, naming
// the plugin and the module's file (read from the hooks file's
// directory, as Anthropic's own mods write it), beside the file's
// command hooks or alone (no "no hooks object" error then), and wherever
// vigiles finds plugins (a marketplace's, a skills-directory plugin's, a
// hooks file the manifest names). A notice where the work tree's
// settings set the plugin false under enabledPlugins, or set
// disableAllHooks; a module not there, a directory, one out of the tree
// or a "modules" of another form is no mod; a plugin that is not a mod
// is named nothing of the kind. Untrusted names are quoted and cut.
//
// A module whose path leaves the plugin's directory, to a file beside it
// in the repository, out of the repository, or as an absolute path, is a
// discovery/escapes-plugin error, as Claude Code's validator refuses it
// and an installed plugin lacks it, with the fix for a module (a path
// from the hooks file's directory), not the manifest's .claude-plugin/
// hint; one that leaves its hooks file's directory and stays in the
// plugin is a mod. "${CLAUDE_PLUGIN_ROOT}" in a module's path is read
// as written. "modules" in a hooks object written inline (a manifest's
// "hooks", beside its "hooks" or among its events, an entry of its
// hooks list, a marketplace entry's "hooks"), which Claude Code does not
// read, is a discovery/malformed warning at the key, no mod, and not
// read as an event.
func TestModsAreNamed(t *testing.T) {
	const plugin = `{"name": "p"}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		links map[string]string // path in the tree → what its symbolic link says
		runs  int
		want  []string // each a line of modLines, whole
	}{
		{"beside hooks", map[string]string{
			"plugins/p/.claude-plugin/plugin.json": plugin,
			"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}, "modules": ["./register.ts"]}`,
			"plugins/p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 1, []string{
			"warning discovery/mod plugins/p/hooks/hooks.json:1:88 plugin p is a mod: its hooks file lists the hooks module ./register.ts (plugins/p/hooks/register.ts), which Claude Code loads into its own process and whose handlers it calls on events (tool calls, prompts, model requests, the interface being drawn), unsandboxed, with the user's rights, where they may watch, change or answer them; vigiles does not run mods, so nothing of what it does is recorded: review it, and what it imports, by hand",
		}},
		{"alone, of a marketplace's plugin", map[string]string{
			".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "m", "source": "./m"}]}`,
			"m/hooks/hooks.json":              `{"description": "d",` + "\n" + ` "modules": ["./lib/main.js"]}`,
			"m/hooks/lib/main.js":             "export function register(on) {}\n",
		}, nil, 0, []string{
			"warning discovery/mod m/hooks/hooks.json:2:14 plugin m is a mod: its hooks file lists the hooks module ./lib/main.js (m/hooks/lib/main.js), which Claude Code loads",
		}},
		{"a skills-directory plugin's", map[string]string{
			".claude/skills/band/.claude-plugin/plugin.json": `{"name": "band"}`,
			".claude/skills/band/hooks/hooks.json":           `{"modules": ["./register.tsx"]}`,
			".claude/skills/band/hooks/register.tsx":         "export const register = (on) => {}\n",
		}, nil, 0, []string{
			"warning discovery/mod .claude/skills/band/hooks/hooks.json:1:14 plugin band is a mod: its hooks file lists the hooks module ./register.tsx (.claude/skills/band/hooks/register.tsx)",
		}},
		{"a hooks file the manifest names", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": "./extra/more.json"}`,
			"p/extra/more.json":            `{"hooks": {}, "modules": ["./mod.js"]}`,
			"p/extra/mod.js":               "export function register(on) {}\n",
		}, nil, 0, []string{
			"warning discovery/mod p/extra/more.json:1:27 plugin p is a mod: its hooks file lists the hooks module ./mod.js (p/extra/mod.js)",
		}},
		{"turned off under enabledPlugins", map[string]string{
			".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "m", "source": "./m"}]}`,
			".claude/settings.json":           `{"enabledPlugins": {"m@mk": false}}`,
			"m/hooks/hooks.json":              `{"modules": ["./register.ts"]}`,
			"m/hooks/register.ts":             "export const register = (on) => {}\n",
		}, nil, 0, []string{
			"notice discovery/mod m/hooks/hooks.json:1:14 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not load it while that holds; plugin m is a mod: its hooks file lists the hooks module ./register.ts (m/hooks/register.ts)",
		}},
		{"turned off by disableAllHooks", map[string]string{
			".claude/settings.json":        `{"disableAllHooks": true}`,
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["./register.ts"]}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 0, []string{
			"notice discovery/mod p/hooks/hooks.json:1:14 turned off: disableAllHooks is true in .claude/settings.json, which turns hooks modules off too, so Claude Code does not load it while that holds; plugin p is a mod",
		}},
		{"untrusted names quoted", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p\u001b[31m"}`,
			"p/hooks/hooks.json":           `{"modules": ["./x\n.ts"]}`,
			"p/hooks/x\n.ts":               "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`warning discovery/mod p/hooks/hooks.json:1:14 plugin "p\x1b[31m" is a mod: its hooks file lists the hooks module "./x\n.ts" ("p/hooks/x\n.ts")`,
		}},
		{"module not there", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["./hooks/register.ts"]}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`warning discovery/missing-file p/hooks/hooks.json:1:14 p/hooks/hooks.json lists the hooks module "./hooks/register.ts", which is not in the tree (read from the hooks file's directory): Claude Code skips a module it cannot load, so this mod does nothing, and vigiles has nothing of it to name or keep`,
		}},
		{"a directory", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["./lib"]}`,
			"p/hooks/lib/register.ts":      "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`error discovery/wrong-type p/hooks/hooks.json:1:14 "modules": "./lib" names a directory; want the path of the hooks module, a JavaScript or TypeScript file`,
		}},
		{"out of the tree through a link", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["./register.ts"]}`,
		}, map[string]string{"p/hooks/register.ts": "../../../x.js"}, 0, []string{
			`error discovery/outside-work-tree p/hooks/hooks.json:1:14 hooks module "./register.ts"`,
		}},
		{"leaves the plugin, into the repository", map[string]string{
			"plugins/p/.claude-plugin/plugin.json": plugin,
			"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}, "modules": ["../../shared/register.ts"]}`,
			"plugins/shared/register.ts":           "export const register = (on) => {}\n",
		}, nil, 1, []string{
			`error discovery/escapes-plugin plugins/p/hooks/hooks.json:1:88 hooks module "../../shared/register.ts" leaves the plugin's directory plugins/p: Claude Code loads no hooks module whose path leaves it (its plugin validator: "The module path leaves the plugin directory"), and an installed plugin is a copy of that directory alone, so the module does not load, the plugin is no mod by it, and vigiles names no mod and keeps none in a baseline; move the module into the plugin and name it by a path from the hooks file's directory that stays inside it ("./register.ts")`,
		}},
		{"leaves the plugin, out of the tree", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["../../../x.js"]}`,
		}, nil, 0, []string{
			`error discovery/escapes-plugin p/hooks/hooks.json:1:14 hooks module "../../../x.js" leaves the plugin's directory p: Claude Code loads no hooks module`,
		}},
		{"an absolute path", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["/opt/register.ts"]}`,
		}, nil, 0, []string{
			`error discovery/escapes-plugin p/hooks/hooks.json:1:14 hooks module "/opt/register.ts" leaves the plugin's directory p: Claude Code loads no hooks module`,
		}},
		{"leaves a root hooks file, not from .claude-plugin", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": "./more.json"}`,
			"p/more.json":                  `{"hooks": {}, "modules": ["../register.ts"]}`,
			"p/register.ts":                "export const register = (on) => {}\n",
			"register.ts":                  "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`error discovery/escapes-plugin p/more.json:1:27 hooks module "../register.ts" leaves the plugin's directory p: Claude Code loads no hooks module whose path leaves it (its plugin validator: "The module path leaves the plugin directory"), and an installed plugin is a copy of that directory alone, so the module does not load, the plugin is no mod by it, and vigiles names no mod and keeps none in a baseline; move the module into the plugin and name it by a path from the hooks file's directory that stays inside it ("./register.ts")`,
		}},
		{"leaves its hooks directory, not the plugin", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["../src/register.ts"]}`,
			"p/src/register.ts":            "export const register = (on) => {}\n",
		}, nil, 0, []string{
			"warning discovery/mod p/hooks/hooks.json:1:14 plugin p is a mod: its hooks file lists the hooks module ../src/register.ts (p/src/register.ts)",
		}},
		{"a name that begins with two dots, in the plugin", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["../..register.ts"]}`,
			"p/..register.ts":              "export const register = (on) => {}\n",
		}, nil, 0, []string{
			"warning discovery/mod p/hooks/hooks.json:1:14 plugin p is a mod: its hooks file lists the hooks module ../..register.ts (p/..register.ts)",
		}},
		{"${CLAUDE_PLUGIN_ROOT} read as written", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"modules": ["${CLAUDE_PLUGIN_ROOT}/hooks/register.ts"]}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`warning discovery/missing-file p/hooks/hooks.json:1:14 p/hooks/hooks.json lists the hooks module "${CLAUDE_PLUGIN_ROOT}/hooks/register.ts", which is not in the tree`,
		}},
		{"inline, beside the manifest's hooks", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}, "modules": ["./hooks/register.ts"]}}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 1, []string{
			`warning discovery/malformed p/.claude-plugin/plugin.json:1:99 hooks.modules lists the hooks module "./hooks/register.ts", written inline in p/.claude-plugin/plugin.json: Claude Code reads a hooks module only from a hooks file (the plugin's hooks/hooks.json, or one the manifest's "hooks" names by its path), so it loads none from here, the plugin is no mod by it, and vigiles names no mod: to make it one, move "modules" into the plugin's hooks/hooks.json, with a path from that file's directory ("./register.ts")`,
		}},
		{"inline, among the manifest's events", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {"modules": ["./hooks/register.ts", "./x.ts"], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 1, []string{
			`warning discovery/malformed p/.claude-plugin/plugin.json:1:25 hooks.modules lists the hooks module "./hooks/register.ts" and 1 more, written inline in p/.claude-plugin/plugin.json: Claude Code reads a hooks module only from a hooks file`,
		}},
		{"inline, in the manifest's hooks list", map[string]string{
			"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": [{"hooks": {}, "modules": "./hooks/register.ts"}]}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`warning discovery/malformed p/.claude-plugin/plugin.json:1:39 hooks[0].modules is a string, not a list of module paths, written inline in p/.claude-plugin/plugin.json: Claude Code reads a hooks module only from a hooks file`,
		}},
		{"inline, in a marketplace entry", map[string]string{
			".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "m", "source": "./m", "hooks": {"modules": ["./hooks/register.ts"]}}]}`,
			"m/hooks/register.ts":             "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`warning discovery/malformed .claude-plugin/marketplace.json:1:69 plugins[m].hooks.modules lists the hooks module "./hooks/register.ts", written inline in .claude-plugin/marketplace.json: Claude Code reads a hooks module only from a hooks file`,
		}},
		{"not a list", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           `{"hooks": {}, "modules": "./register.ts"}`,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 0, []string{
			`error discovery/wrong-type p/hooks/hooks.json:1:26 "modules": want an array of module paths, found a string`,
		}},
		{"no mod", map[string]string{
			"p/.claude-plugin/plugin.json": plugin,
			"p/hooks/hooks.json":           serverStopHook,
			"p/hooks/register.ts":          "export const register = (on) => {}\n",
		}, nil, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			for p, to := range tc.links {
				if err := os.Symlink(to, filepath.Join(dir, p)); err != nil {
					t.Fatal(err)
				}
			}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != tc.runs {
				t.Errorf("%d runs, want %d", len(rep.Runs), tc.runs)
			}
			got := modLines(rep)
			if len(got) != len(tc.want) {
				t.Fatalf("findings:\n%s\nwant %d:\n%s", strings.Join(got, "\n"), len(tc.want), strings.Join(tc.want, "\n"))
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("finding:\n%s\nwant one starting\n%s", got[i], w)
				}
			}
		})
	}
}

// TestBaselineKeepsMods: --update-baseline keeps each mod Claude Code
// loads, of kind "mod", with its module's path as written, the file it
// resolves to, and the SHA-256 of that file and of those it imports of
// the plugin by a relative path, also out of its hooks directory (not a
// type-only import, a package, or a file out of the plugin: another
// plugin's, one beside the plugin in the repository, one out of the
// repository, which relImport does not follow). Against it the mod is a notice, accepted; its
// module rewritten, or a helper it imports, is a baseline/server-changed
// error that names the file, beside the discovery/mod warning; a new
// mod is baseline/server-added, and one gone baseline/server-removed.
func TestBaselineKeepsMods(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "m", "source": "./m"}, {"name": "n", "source": "./n"}]}`,
		"m/hooks/hooks.json":              `{"modules": ["./register.ts"]}`,
		"m/hooks/register.ts": "import { pane } from './ui/pane'\nimport type { T } from './types'\nimport x from 'left-pad'\nconst h = require(\"../../n/hooks/x.js\")\n" +
			"import { help } from '../lib/help'\nimport { util } from '../../shared/util'\nimport { far } from '../../../../../../far'\nexport const register = (on) => {}\n",
		"m/hooks/ui/pane.tsx": "export const pane = 1\n",
		"m/lib/help.ts":       "export const help = 1\n",
		"shared/util.ts":      "export const util = 1\n",
		"m/hooks/types.ts":    "export type T = number\n",
		"n/hooks/hooks.json":  serverStopHook,
		"n/hooks/x.js":        "module.exports = 1\n",
	})
	rep := serverAudit(t, dir, true)
	for _, l := range modLines(rep) {
		if !strings.HasPrefix(l, "notice ") {
			t.Errorf("--update-baseline keeps every mod, so each is a notice: %s", l)
		}
	}
	servers, _ := savedServers(t, dir)
	for i := range servers {
		for j := range servers[i].Files {
			if len(servers[i].Files[j].SHA256) != 64 {
				t.Errorf("file %s kept without its hash", servers[i].Files[j].Path)
			}
			servers[i].Files[j].SHA256 = "x"
		}
	}
	want := []BaselineServer{{Plugin: "m", Context: "plugin:m", Kind: "mod", Name: "./register.ts", Starts: "m/hooks/register.ts", File: "m/hooks/hooks.json",
		Files: []BaselineFile{{Path: "m/hooks/register.ts", SHA256: "x"}, {Path: "m/hooks/ui/pane.tsx", SHA256: "x"}, {Path: "m/lib/help.ts", SHA256: "x"}}}}
	if d := cmp.Diff(want, servers); d != "" {
		t.Errorf("the baseline's servers (-want +got):\n%s", d)
	}

	rep = serverAudit(t, dir, false)
	if rep.Verdict != report.VerdictPass || len(rep.Drift) != 0 {
		t.Errorf("verdict %s, drift %+v: %v", rep.Verdict, rep.Drift, modLines(rep))
	}
	lacks(t, modLines(rep), "notice discovery/mod m/hooks/hooks.json:1:14 accepted in the baseline as it is: plugin m is a mod")

	for _, tc := range []struct{ file, content, said string }{
		{"m/hooks/register.ts", "export const register = (on) => { on('tool.call', ($, e) => ({deny: 'x'})) }\n", "m/hooks/register.ts changed"},
		{"m/hooks/ui/pane.tsx", "export const pane = fetch('https://x.test/')\n", "m/hooks/ui/pane.tsx changed"},
	} {
		before, _ := os.ReadFile(filepath.Join(dir, tc.file))
		rewrite(t, dir, tc.file, tc.content)
		rep = serverAudit(t, dir, false)
		if rep.Verdict != report.VerdictFail {
			t.Errorf("%s rewritten: verdict %s, want fail", tc.file, rep.Verdict)
		}
		lacks(t, modLines(rep),
			"error baseline/server-changed m/hooks/hooks.json:1:14 mod ./register.ts of plugin m starts as the baseline accepted, but runs files of the tree other than it accepted",
			tc.said,
			"warning discovery/mod m/hooks/hooks.json:1:14 plugin m is a mod")
		rewrite(t, dir, tc.file, string(before))
	}

	// A new mod, and the old one gone.
	rewrite(t, dir, "m/hooks/hooks.json", `{"hooks": {}}`)
	rewrite(t, dir, "n/hooks/hooks.json", `{"modules": ["./x.js"]}`)
	rep = serverAudit(t, dir, false)
	lacks(t, modLines(rep),
		"error baseline/server-added n/hooks/hooks.json:1:14 new mod ./x.js of plugin n, not in the baseline, which Claude Code loads into its own process, unsandboxed, and vigiles does not run, so nothing of what it does is audited: n/hooks/x.js",
		"notice baseline/server-removed m/hooks/hooks.json:0:0 mod ./register.ts of plugin m is in the baseline, but no plugin declares it any more")
	if rep.Verdict != report.VerdictFail {
		t.Errorf("a new mod: verdict %s, want fail", rep.Verdict)
	}
}

// TestBaselineKeepsNoModOutsideItsPlugin: a module whose path leaves its
// plugin's directory (here to a file beside the plugin in the repository,
// which another plugin's mod lists from inside its own) is a
// discovery/escapes-plugin error, named no mod, and --update-baseline
// keeps no mod of it: only the mod whose module is its plugin's own.
func TestBaselineKeepsNoModOutsideItsPlugin(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "m", "source": "./plugins/m"}, {"name": "o", "source": "./plugins/o"}]}`,
		"plugins/m/hooks/hooks.json":      `{"modules": ["./register.ts"]}`,
		"plugins/m/hooks/register.ts":     "export const register = (on) => {}\n",
		"plugins/o/hooks/hooks.json":      `{"modules": ["../../shared/register.ts"]}`,
		"plugins/shared/register.ts":      "export const register = (on) => {}\n",
	})
	rep := serverAudit(t, dir, true)
	got := modLines(rep)
	lacks(t, got,
		`error discovery/escapes-plugin plugins/o/hooks/hooks.json:1:14 hooks module "../../shared/register.ts" leaves the plugin's directory plugins/o`,
		"notice discovery/mod plugins/m/hooks/hooks.json:1:14")
	for _, l := range got {
		if strings.Contains(l, "plugin o is a mod") {
			t.Errorf("a module out of its plugin is named a mod: %s", l)
		}
	}
	servers, _ := savedServers(t, dir)
	if len(servers) != 1 || servers[0].Plugin != "m" || servers[0].Starts != "plugins/m/hooks/register.ts" {
		t.Errorf("the baseline keeps %+v, want plugin m's mod alone", servers)
	}
}
