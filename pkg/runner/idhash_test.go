package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// hashPlace is a handler's place in its file, as an id names it; the
// directory o#<hashPlace> is named so that the id of a hook its plugin
// reads from a plugin below it (…#in:o#<hashPlace>) is, but for the
// discovery, that of a hook of the file hooks.json#<hashPlace>#in:o beside
// the one it reads.
const hashPlace = "hooks.Stop[0].hooks[0]"

// hashTree is a tree whose paths hold '#': the plugins a#b (whose Stop
// hook writes) and a beside it, g.json#x with a skill whose frontmatter
// declares a PreToolUse hook, and o#<hashPlace>, which reads the hooks
// file of the plugin in/ below it, where in's manifest names a second
// hooks file, hooks.json#<hashPlace>#in:o.
func hashTree() map[string]string {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	o := "o#" + hashPlace
	return map[string]string{
		"a#b/.claude-plugin/plugin.json":                  `{"name": "ab"}`,
		"a#b/hooks/hooks.json":                            stop("echo x > made"),
		"a/.claude-plugin/plugin.json":                    `{"name": "a"}`,
		"a/hooks/hooks.json":                              stop("true"),
		"g.json#x/.claude-plugin/plugin.json":             `{"name": "g"}`,
		"g.json#x/skills/s/SKILL.md":                      "---\nname: s\ndescription: d\nhooks:\n  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: \"true\"}]}]\n---\n",
		o + "/.claude-plugin/plugin.json":                 `{"name": "outer", "hooks": "./in/hooks/hooks.json"}`,
		o + "/in/.claude-plugin/plugin.json":              `{"name": "inner", "hooks": "./hooks/hooks.json#` + hashPlace + `#in:o"}`,
		o + "/in/hooks/hooks.json":                        stop("true outer"),
		o + "/in/hooks/hooks.json#" + hashPlace + "#in:o": stop("true inner"),
	}
}

// TestHookIDsOfPathsHoldingHash: a hook's id is its file, '#' and its
// place there, and a name of the file may hold '#' too. Through a real
// discovery and real confined audits of such a tree (hashTree), no two
// hooks share an id, not even the two whose ids would read alike (the
// plugin o#… reading in/hooks/hooks.json, and in's own hooks file named
// hooks.json#…#in:o: the second to come keeps apart with #2), and each
// hook's declaration, and the "file" a baseline keeps of its run, is its
// own file, not a guess from the id; an audit against that baseline has
// no drift; an audit of the PATH a tells nothing of a#b's hook gone, one
// of a#b does, at its file; a check selects a#b's hook by that file and
// not by the plugin a, and one of the plugin g that takes no skill's hook
// names the skill's file whole (g.json#x/skills/s/SKILL.md, where a guess
// from the id named g.json).
func TestHookIDsOfPathsHoldingHash(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, hashTree())
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]*Hook{}
	for _, h := range d.Hooks {
		if ids[h.ID] != nil {
			t.Errorf("two hooks share the id %q: of %s and of %s", h.ID, ids[h.ID].Location.File, h.Location.File)
		}
		ids[h.ID] = h
		if f := idFile(h.Location.File); !strings.HasPrefix(h.ID, f+"#") || !strings.HasPrefix(h.decl(), f+"#") {
			t.Errorf("hook %q (declaration %q) is not of its file %q", h.ID, h.decl(), f)
		}
	}
	in := "o#" + hashPlace + "/in/hooks/hooks.json"
	read := in + "#" + hashPlace + "#in:o#" + hashPlace
	for id, file := range map[string]string{
		"a#b/hooks/hooks.json#" + hashPlace:                       "a#b/hooks/hooks.json",
		"a/hooks/hooks.json#" + hashPlace:                         "a/hooks/hooks.json",
		"g.json#x/skills/s/SKILL.md#hooks.PreToolUse[0].hooks[0]": "g.json#x/skills/s/SKILL.md",
		in + "#" + hashPlace:                                      in,
		read:                                                      in,
		read + "#2":                                               in + "#" + hashPlace + "#in:o",
	} {
		if h := ids[id]; h == nil || h.Location.File != file {
			t.Errorf("no hook %q of %q; %v", id, file, findingLines(d.Findings))
		}
	}
	if len(ids) != 6 {
		t.Errorf("%d hooks, want 6; %v", len(ids), findingLines(d.Findings))
	}

	ctx := context.Background()
	audit := func(update bool, paths ...string) *report.Report {
		t.Helper()
		rep, err := Audit(ctx, Options{Dir: dir, Paths: paths, Baseline: serversBase, UpdateBaseline: update, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := audit(true)
	b, err := LoadBaseline(dir + "/" + serversBase)
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range b.Runs {
		h := ids[strings.SplitN(id, "@", 2)[0]]
		if h == nil || r.File != h.Location.File {
			t.Errorf("the baseline keeps run %q of the file %q; want its hook's", id, r.File)
		}
	}
	if rep = audit(false); len(rep.Drift) != 0 {
		t.Errorf("against the baseline it wrote: drift %q; %v", driftOf(rep), findingLines(rep.Findings))
	}

	writeFile(t, dir, "a#b/hooks/hooks.json", `{"hooks": {}}`)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"a", nil},
		{"a#b", []string{DriftHookRemoved + " a#b/hooks/hooks.json#" + hashPlace + " at a#b/hooks/hooks.json"}},
	} {
		rep := audit(false, tc.path)
		var got []string
		for _, d := range rep.Drift {
			got = append(got, d.Kind+" "+d.Hook+" at "+d.Location.File)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("an audit of %s: drift %q, want %q", tc.path, got, tc.want)
		}
	}
	writeFile(t, dir, "a#b/hooks/hooks.json", hashTree()["a#b/hooks/hooks.json"])

	writeFile(t, dir, ".vigiles.yml", `checks:
  - {name: plugin a, hook: a, event: Stop, expect: {no-write: true}}
  - {name: file a#b, hook: 'a#b/hooks/hooks.json', event: Stop, expect: {no-write: true}}
  - {name: plugin g, hook: g, event: PreToolUse, tool: Bash, expect: {blocked: false}}
`)
	rep, err = Test(ctx, Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, r := range rep.Runs {
		runs = append(runs, r.ID)
	}
	slices.Sort(runs)
	if want := []string{"check:file a#b>a#b/hooks/hooks.json#" + hashPlace, "check:plugin a>a/hooks/hooks.json#" + hashPlace}; !slices.Equal(runs, want) {
		t.Errorf("checks ran %q, want %q; %v", runs, want, findingLines(rep.Findings))
	}
	var fails, noHook []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case "expect/no-write":
			fails = append(fails, f.Hook)
		case RuleCheckHook:
			noHook = append(noHook, f.Message)
		}
	}
	if want := []string{"check:file a#b>a#b/hooks/hooks.json#" + hashPlace}; !slices.Equal(fails, want) {
		t.Errorf("expect/no-write of %q, want %q", fails, want)
	}
	if len(noHook) != 1 || !strings.Contains(noHook[0], "declared in the frontmatter of g.json#x/skills/s/SKILL.md,") {
		t.Errorf("check/no-hook: %q, want one naming the skill's file g.json#x/skills/s/SKILL.md", noHook)
	}
}
