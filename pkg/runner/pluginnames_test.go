package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// A plugin directory is read once, under the first name that reaches it
// (a marketplace entry's, or its own when the walk meets it first), but
// Claude Code installs it under each entry that names it. The names it
// was not read under must still count: a remote source of one of them
// beside the vendored copy is an error, and a settings key turns its
// hooks off only where it turns off every name.

const guardStop = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "host:guard.example"}]}]}}`

// TestRemoteSourceOfASecondName: an entry of another name that reaches
// the vendored directory first does not turn the remote-source error for
// the vendored plugin's own name into a notice.
func TestRemoteSourceOfASecondName(t *testing.T) {
	for _, first := range []bool{false, true} {
		files := map[string]string{
			"market/.claude-plugin/marketplace.json": `{"name":"mk","plugins":[{"name":"guard","source":"https://evil.example/guard.git"}]}`,
			"plugins/guard/hooks/hooks.json":         guardStop,
		}
		if first {
			files["aa/.claude-plugin/marketplace.json"] = `{"name":"aa","plugins":[{"name":"x","source":"../plugins/guard"}]}`
		}
		dir := makeTree(t, files)
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		var sev []report.Severity
		for _, f := range d.Findings {
			if f.Rule == RuleRemoteSource {
				sev = append(sev, f.Severity)
			}
		}
		if len(sev) != 1 || sev[0] != report.SeverityError {
			t.Errorf("another entry first %v: remote-source findings %v, want one error\n%s", first, sev, strings.Join(findingLines(d.Findings), "\n"))
		}
	}
}

// TestSettingsKeyOfOneNameDoesNotHideAnother: the directory is read as
// the entry or walk that reaches it first names it; a key turning that
// name off does not turn off the hooks Claude Code runs under the other.
func TestSettingsKeyOfOneNameDoesNotHideAnother(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"another entry first": {
			"market/.claude-plugin/marketplace.json": `{"name":"mk","plugins":[{"name":"guard","source":"../plugins/guard"}]}`,
			"aa/.claude-plugin/marketplace.json":     `{"name":"aa","plugins":[{"name":"x","source":"../plugins/guard"}]}`,
			"plugins/guard/hooks/hooks.json":         guardStop,
			".claude/settings.json":                  `{"enabledPlugins": {"x@aa": false, "guard@mk": true}}`,
		},
		"the walk first": {
			"zz/.claude-plugin/marketplace.json":   `{"name":"mk","plugins":[{"name":"guard","source":"../packages/guard-impl"}]}`,
			"packages/guard-impl/hooks/hooks.json": guardStop,
			".claude/settings.json":                `{"enabledPlugins": {"guard-impl@elsewhere": false}}`,
		},
	} {
		t.Run(name, func(t *testing.T) { requireRunOn(t, files, "guard.example") })
	}
	// Off under every name: off.
	dir := makeTree(t, map[string]string{
		"market/.claude-plugin/marketplace.json": `{"name":"mk","plugins":[{"name":"guard","source":"../plugins/guard"}]}`,
		"aa/.claude-plugin/marketplace.json":     `{"name":"aa","plugins":[{"name":"x","source":"../plugins/guard"}]}`,
		"plugins/guard/hooks/hooks.json":         guardStop,
		".claude/settings.json":                  `{"enabledPlugins": {"x@aa": false, "guard@mk": false}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if strings.Contains(r.Command, "guard.example") && r.Outcome != report.OutcomeNotExecutable {
			t.Errorf("%s: %s, want it listed as turned off under both names", r.ID, r.Outcome)
		}
	}
}

// TestEntryHooksAreOfTheEntrysName: a marketplace entry's own hooks are
// installed under the entry's name, whatever name the manifest gives the
// directory: a key turning the manifest's name off does not turn them off.
func TestEntryHooksAreOfTheEntrysName(t *testing.T) {
	requireRunOn(t, map[string]string{
		".claude-plugin/marketplace.json":          `{"name":"mk","plugins":[{"name":"guard","source":"./plugins/guard","hooks":{"Stop":[{"hooks":[{"type":"command","command":"host:entry.example"}]}]}}]}`,
		"plugins/guard/.claude-plugin/plugin.json": `{"name":"guard-impl"}`,
		".claude/settings.json":                    `{"enabledPlugins": {"guard-impl@nowhere": false}}`,
	}, "entry.example")
}

// TestAFileIsReadInEachContext: a hooks file of one plugin that another
// plugin's manifest names (the other's directory holds the first's) is
// read in that plugin's context too, not in its place: the owner's hooks
// keep their ids and root whichever reader comes first, and the other
// reader's get ids of their own ("#in:" its root).
func TestAFileIsReadInEachContext(t *testing.T) {
	for _, market := range []string{"aa", "zz"} {
		// evil's directory holds guard's: its manifest names guard's
		// hooks file inside its own directory. A marketplace in aa has
		// guard read first; in zz, the walk reads evil first.
		dir := makeTree(t, map[string]string{
			"plugins/guard/.claude-plugin/plugin.json":  `{"name":"guard"}`,
			"plugins/guard/hooks/hooks.json":            `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"sh ${CLAUDE_PLUGIN_ROOT}/check.sh"}]}]}}`,
			"plugins/guard/check.sh":                    "exit 2\n",
			market + "/.claude-plugin/marketplace.json": `{"name":"m","plugins":[{"name":"guard","source":"../plugins/guard"}]}`,
			"plugins/.claude-plugin/plugin.json":        `{"name":"evil","hooks":"./guard/hooks/hooks.json"}`,
			"plugins/check.sh":                          "exit 2\n",
		})
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range d.Hooks {
			got = append(got, h.ID+" "+h.Plugin+" "+h.PluginRoot)
		}
		slices.Sort(got)
		want := []string{
			"plugins/guard/hooks/hooks.json#hooks.PreToolUse[0].hooks[0] guard plugins/guard",
			"plugins/guard/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]#in:plugins evil plugins",
		}
		if !slices.Equal(got, want) {
			t.Errorf("marketplace in %s: hooks\n%s\nwant\n%s", market, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestAPluginsOwnClaudeIsReadAsThePlugins: a directory an entry installs
// (strict: false, its commands under its own .claude), which the walk
// met first as a package: its command's hook is also the plugin's, run
// in a session at the work tree's root, not only the package's, which
// the package's settings turn off.
func TestAPluginsOwnClaudeIsReadAsThePlugins(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"zz/.claude-plugin/marketplace.json":   `{"name":"mk","plugins":[{"name":"guard","source":"../packages/guard","strict":false,"commands":["./.claude/commands"]}]}`,
		"packages/guard/.claude/commands/g.md": "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"host:guard.example\"}]\n---\nA command.\n",
		"packages/guard/.claude/settings.json": `{"disableAllHooks": true}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var asPlugin int
	for _, r := range rep.Runs {
		if strings.Contains(r.Command, "guard.example") && r.Plugin == "guard" && r.Outcome != report.OutcomeNotExecutable {
			asPlugin++
		}
	}
	if asPlugin == 0 {
		for _, r := range rep.Runs {
			t.Logf("%s %s %s %s", r.ID, r.Plugin, r.Outcome, r.Reason)
		}
		t.Error("the plugin's command hook is not run as the plugin's")
	}
}

// TestDiscoveryIsBounded: a file is read once in each context that names
// it, so many manifests naming one large hooks file would make discovery
// read it again and again; the handlers taken and the bytes read in one
// discovery are bounded, and passing either bound is an error finding.
func TestDiscoveryIsBounded(t *testing.T) {
	t.Run("handlers", func(t *testing.T) {
		files := map[string]string{}
		hs := make([]string, 2000)
		for i := range hs {
			hs[i] = `{"type":"command","command":"true"}`
		}
		files["shared/big.json"] = `{"hooks":{"Stop":[{"hooks":[` + strings.Join(hs, ",") + `]}]}}`
		links := map[string]string{}
		for i := 0; i < maxHandlers/len(hs)+2; i++ {
			files[fmt.Sprintf("p/%03d/.claude-plugin/plugin.json", i)] = `{"name":"p","hooks":"./big.json"}`
			links[fmt.Sprintf("p/%03d/big.json", i)] = "../../shared/big.json"
		}
		dir := makeTree(t, files)
		symlinks(t, dir, links)
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Hooks) > maxHandlers || !hasFinding(d.Findings, RuleMalformed, "hook handlers are declared") {
			t.Errorf("%d hooks, findings %v; want at most %d and the bound said", len(d.Hooks), findingLines(d.Findings), maxHandlers)
		}
		// The bound is passed for the whole tree, which an audit of
		// part of it reads too: it is said there, wherever it points.
		rep, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"p/000"}, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if !hasFinding(rep.Findings, RuleMalformed, "hook handlers are declared") {
			t.Errorf("audit of p/000: findings %v; want the bound said", findingLines(rep.Findings))
		}
	})
	t.Run("bytes", func(t *testing.T) {
		files := map[string]string{
			"shared/big.json": `{"description":"` + strings.Repeat("x", maxDeclFile-200) + `","hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`,
		}
		links := map[string]string{}
		for i := 0; i < maxDeclTotal/maxDeclFile+2; i++ {
			files[fmt.Sprintf("p/%03d/.claude-plugin/plugin.json", i)] = `{"name":"p","hooks":"./big.json"}`
			links[fmt.Sprintf("p/%03d/big.json", i)] = "../../shared/big.json"
		}
		dir := makeTree(t, files)
		symlinks(t, dir, links)
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !hasFinding(d.Findings, RuleMalformed, "more than vigiles reads in one discovery") {
			t.Errorf("findings %v; want the bound on bytes said", findingLines(d.Findings))
		}
	})
}

func hasFinding(fs []report.Finding, rule, text string) bool {
	for _, f := range fs {
		if f.Rule == rule && strings.Contains(f.Message, text) {
			return true
		}
	}
	return false
}

// TestAnEnclosingPluginDoesNotTakeTheOwnersIds: a plugin that holds
// another (a directory of plugins, or the work tree itself, made a plugin
// whose manifest names a file of the one below) reads that file first,
// but as another's: its hooks get "#in:" its root, and the owner keeps
// its ids, its root and its plugin.
func TestAnEnclosingPluginDoesNotTakeTheOwnersIds(t *testing.T) {
	for name, manifest := range map[string]string{
		"plugins/.claude-plugin/plugin.json": `{"name":"helpers","hooks":"./guard/hooks/hooks.json"}`,
		".claude-plugin/plugin.json":         `{"name":"all","hooks":"./plugins/guard/hooks/hooks.json"}`,
	} {
		dir := makeTree(t, map[string]string{
			"plugins/guard/.claude-plugin/plugin.json": `{"name":"guard"}`,
			"plugins/guard/hooks/hooks.json":           `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`,
			name:                                       manifest,
		})
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		const id = "plugins/guard/hooks/hooks.json#hooks.Stop[0].hooks[0]"
		var owner, other int
		for _, h := range d.Hooks {
			switch {
			case h.ID == id && h.Plugin == "guard" && h.PluginRoot == "plugins/guard":
				owner++
			case strings.HasPrefix(h.ID, id+"#in:"):
				other++
			default:
				t.Errorf("%s: unexpected hook %s", name, hookLine(h))
			}
		}
		if owner != 1 || other != 1 {
			t.Errorf("%s: %d of the owner's, %d of the other's; want one each", name, owner, other)
		}
	}
}

// TestAPluginsOwnClaudeInEitherOrder: a plugin directory that is a package
// too (its commands under its own .claude, named by a marketplace entry):
// the plugin's reading of them runs whichever of the entry and the
// package the walk meets first; the package's, which its settings turn
// off, does not take their place.
func TestAPluginsOwnClaudeInEitherOrder(t *testing.T) {
	for _, market := range []string{"aa", "zz"} {
		dir := makeTree(t, map[string]string{
			market + "/.claude-plugin/marketplace.json": `{"name":"mk","plugins":[{"name":"guard","source":"../packages/guard","strict":false,"commands":["./.claude/commands"]}]}`,
			"packages/guard/.claude-plugin/plugin.json": `{"name":"guard"}`,
			"packages/guard/.claude/commands/g.md":      "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"host:guard.example\"}]\n---\nA command.\n",
			"packages/guard/.claude/settings.json":      `{"disableAllHooks": true}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		ran := 0
		for _, r := range rep.Runs {
			if strings.Contains(r.Command, "guard.example") && r.Plugin == "guard" && r.Outcome != report.OutcomeNotExecutable {
				ran++
			}
		}
		if ran != 1 {
			for _, r := range rep.Runs {
				t.Logf("%s %s %s %s", r.ID, r.Plugin, r.Outcome, r.Reason)
			}
			t.Errorf("marketplace in %s: %d runs of the plugin's command hook, want 1", market, ran)
		}
	}
}

// TestTwoEntriesOfOneFile: two entries of one directory, whose manifest
// names one hooks file: it is read once, under the first, and its hooks
// are of both names, so a key turning the first off does not turn off
// what Claude Code runs as the second.
func TestTwoEntriesOfOneFile(t *testing.T) {
	requireRunOn(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name":"m","plugins":[` +
			`{"name":"decoy","source":"./packages/guard"},` +
			`{"name":"guard","source":"./packages/guard"}]}`,
		"packages/guard/.claude-plugin/plugin.json": `{"hooks":"./guard-hooks.json"}`,
		"packages/guard/guard-hooks.json":           guardStop,
		".claude/settings.json":                     `{"enabledPlugins": {"decoy@m": false}}`,
	}, "guard.example")
}

// TestAHookThatRunsElsewhereIsDrift: whatever rule decides which plugin
// or package reads a declaration, a pull request can change the readers:
// a run the baseline knows that now runs in another context (here a
// package's declarations, which a plugin made of the package now reads,
// at the work tree's root with its scripts) is drift, an error; for a
// hook vigiles lists and does not run (an http hook) too.
func TestAHookThatRunsElsewhereIsDrift(t *testing.T) {
	for name, tc := range map[string]struct{ file, decl, manifest string }{
		"command": {"pkg/.claude/commands/g.md", "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"host:guard.example\"}]\n---\nA command.\n",
			`{"name":"pkgtools","commands":"./.claude/commands"}`},
		"listed": {"pkg/.claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"http","url":"https://guard.example/stop"}]}]}}`,
			`{"name":"pkgtools","hooks":"./.claude/settings.json"}`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{tc.file: tc.decl})
			base := ".vigiles/baseline.json"
			if _, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks(), Baseline: base, UpdateBaseline: true}); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(dir, "pkg/.claude-plugin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "pkg/.claude-plugin/plugin.json"), []byte(tc.manifest), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks(), Baseline: base})
			if err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, d := range rep.Drift {
				kinds = append(kinds, d.Kind+":"+d.Was+">"+d.Now)
			}
			if !slices.Contains(kinds, DriftContext+":project:pkg>plugin:pkg") || rep.Verdict == report.VerdictPass {
				t.Errorf("drift %v, verdict %s; want the context's change, failing", kinds, rep.Verdict)
			}
		})
	}
}

// TestDiscoveryBoundCountsAFileByItsInode: a file read by many names (a
// directory link gives it one more each) counts against the bound from
// its second reading on, as one read in many contexts does.
func TestDiscoveryBoundCountsAFileByItsInode(t *testing.T) {
	n := maxDeclTotal/maxDeclFile + 2
	dir := makeTree(t, map[string]string{"plugins/p/d/h.json": `{"description":"` + strings.Repeat("a", maxDeclFile-200) + `","hooks":{"Stop":[{"hooks":[{"type":"command","command":"true"}]}]}}`})
	var paths []string
	for i := 0; i < n; i++ {
		if err := os.Symlink("d", filepath.Join(dir, "plugins/p", fmt.Sprintf("l%d", i))); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, fmt.Sprintf(`"./l%d/h.json"`, i))
	}
	if err := os.MkdirAll(filepath.Join(dir, "plugins/p/.claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plugins/p/.claude-plugin/plugin.json"), []byte(`{"name":"p","hooks":[`+strings.Join(paths, ",")+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !hasFinding(d.Findings, RuleMalformed, "more than vigiles reads in one discovery") {
		t.Errorf("findings %v; want the bound said", findingLines(d.Findings))
	}
}

// TestAPartialAuditKeepsTheContexts: an audit of a path reads its
// directory as the whole audit's walk does (plugin, its marketplace, its
// project), so its runs keep their ids and contexts and a baseline of the
// whole audit shows no drift: a plugin naming files of its own .claude,
// and one that is its own marketplace whose entry names them.
func TestAPartialAuditKeepsTheContexts(t *testing.T) {
	const cmd = "---\nhooks:\n  UserPromptSubmit:\n    - hooks: [{type: command, command: \"host:guard.example\"}]\n---\nA command.\n"
	for path, files := range map[string]map[string]string{
		"plugins/x": {
			"plugins/x/.claude-plugin/plugin.json": `{"name":"x","commands":"./.claude/commands"}`,
			"plugins/x/.claude/commands/g.md":      cmd,
		},
		"tools": {
			"tools/.claude-plugin/plugin.json":      `{"name":"tools"}`,
			"tools/.claude-plugin/marketplace.json": `{"name":"t","plugins":[{"name":"tools","source":"./","commands":"./.claude/commands"}]}`,
			"tools/.claude/commands/g.md":           cmd,
		},
	} {
		t.Run(path, func(t *testing.T) {
			dir := makeTree(t, files)
			base := ".vigiles/baseline.json"
			if _, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks(), Baseline: base, UpdateBaseline: true}); err != nil {
				t.Fatal(err)
			}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks(), Baseline: base, Paths: []string{path}})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
				t.Errorf("drift %+v, verdict %s; want none, pass", rep.Drift, rep.Verdict)
			}
		})
	}
}

// requireRunOn audits the tree of files and requires the hook whose
// command holds cmd to be in the audit and run: not listed as turned off.
func requireRunOn(t *testing.T, files map[string]string, cmd string) {
	t.Helper()
	rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, r := range rep.Runs {
		if strings.Contains(r.Command, cmd) {
			if r.Outcome == report.OutcomeNotExecutable {
				t.Errorf("%s listed as turned off (%s); Claude Code runs it under another of its names", r.ID, r.Reason)
			}
			ran++
		}
	}
	if ran == 0 {
		t.Errorf("the hook of %s is not in the audit", cmd)
	}
}
