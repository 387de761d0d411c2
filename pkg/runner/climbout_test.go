package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestHookClimbsOutOfItsPlugin: a plugin's hooks that reach above its
// plugin's directory, in a command or in a line of a shell script of
// the plugin's it runs, are a discovery/escapes-plugin warning that names
// them and where; one that stays inside the plugin, and a project's hook,
// are not.
func TestHookClimbsOutOfItsPlugin(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}, {"name": "q", "source": "./plugins/q"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {
			"Stop": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/../shared/x.sh\""}]}],
			"SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/init.sh"}]}],
			"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "$CLAUDE_PLUGIN_ROOT/scripts/up.sh"}]}],
			"SessionEnd": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/inside.sh"}]}],
			"PreCompact": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/spaced.sh"}]}]}}`,
		"plugins/p/scripts/spaced.sh":          "#!/usr/bin/env bash\nscript_dir=\"$( cd \"$( dirname \"${BASH_SOURCE[0]}\" )\" && pwd )\"\nsource \"${script_dir}/../../../.venv/bin/activate\"\n",
		"plugins/p/scripts/init.sh":            "#!/usr/bin/env bash\nSCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nif [ -f \"${SCRIPT_DIR}/../../../utils/lib.sh\" ]; then\n  source \"${SCRIPT_DIR}/../../../utils/lib.sh\"\nfi\n",
		"plugins/p/scripts/up.sh":              "#!/bin/sh\nROOT=$(cd \"$(dirname \"$0\")/..\" && pwd)\n. \"$ROOT/../shared/lib.sh\"\n",
		"plugins/p/scripts/inside.sh":          "#!/bin/sh\nHERE=\"$(dirname \"$0\")\"\n. \"$HERE/../lib/ok.sh\"\n. \"${CLAUDE_PLUGIN_ROOT}/lib/ok.sh\"\n",
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		".claude/settings.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ../outside.sh"}]}]}}`,
	})
	got := climbMessages(t, dir)
	want := "4 hooks of plugin p (Stop at line 2, SessionStart at line 3, UserPromptSubmit at line 4 and PreCompact at line 6) reach above its directory plugins/p: " +
		"the command at line 2 names ${CLAUDE_PLUGIN_ROOT}/../shared/x.sh, which is plugins/shared/x.sh; " +
		"plugins/p/scripts/init.sh line 3 names ${SCRIPT_DIR}/../../../utils/lib.sh, which is utils/lib.sh; " +
		"plugins/p/scripts/up.sh line 3 names $ROOT/../shared/lib.sh, which is plugins/shared/lib.sh; " +
		"plugins/p/scripts/spaced.sh line 3 names ${script_dir}/../../../.venv/bin/activate, which is .venv/bin/activate; " +
		"in the repository they find what lies there, but Claude Code installs a plugin as a copy of its own directory"
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Fatalf("escapes-plugin findings:\n%s\nwant one that says %q", strings.Join(got, "\n"), want)
	}
}

// TestScriptClimbForms: the forms a script sets its own directory in,
// one that climbs in the assignment itself, a plugin at the tree's root
// (whose own paths never leave it), and several variables on one line,
// named in the same order each time.
func TestScriptClimbForms(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "r"}`,
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/in.sh"}]}],
			"SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/out.sh"}]}]}}`,
		"hooks/in.sh":  "#!/bin/sh\nD=$(dirname \"$0\")\n. \"$D/../lib/x.sh\"\n. \"${CLAUDE_PLUGIN_ROOT}/lib/x.sh\"\n",
		"hooks/out.sh": "#!/bin/sh\nROOT=$(cd \"$(dirname \"$0\")/../..\" && pwd)\nB=$(dirname \"$0\")\nC=$(dirname \"$0\")\n. $ROOT/lib.sh $C/../../c.sh $B/../../b.sh\n",
	})
	var first string
	for i := 0; i < 4; i++ {
		got := climbMessages(t, dir)
		if len(got) != 1 || !strings.Contains(got[0], "hooks/out.sh line 5 names $B/../../b.sh, which is outside the repository too (../b.sh); hooks/out.sh line 5 names $C/../../c.sh, which is outside the repository too (../c.sh); hooks/out.sh line 5 names $ROOT/lib.sh, which is outside the repository too (../lib.sh); what lies outside the repository it does not find here either") {
			t.Fatalf("escapes-plugin findings:\n%s", strings.Join(got, "\n"))
		}
		if i == 0 {
			first = got[0]
		} else if got[0] != first {
			t.Errorf("the message changed between audits:\n%s\n%s", first, got[0])
		}
	}
}

// climbMessages audits dir and returns the messages of its
// discovery/escapes-plugin findings, each a warning.
func climbMessages(t *testing.T, dir string) []string {
	t.Helper()
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleEscapesPlugin {
			if f.Severity != report.SeverityWarning {
				t.Errorf("severity %s: %s", f.Severity, f.Message)
			}
			got = append(got, f.Message)
		}
	}
	return got
}

// TestHookClimbsOutGroupedByPlugin: the hooks of one plugin whose scripts
// each source a library above the plugin (a marketplace's shared one)
// are one warning, at the first hook declared, that names the hooks and
// the places; each plugin has its own, and hooks that reach above the
// repository itself are apart, as their message differs.
func TestHookClimbsOutGroupedByPlugin(t *testing.T) {
	files := map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b"}]}`,
		"shared/lib.sh":                   "log() { :; }\n",
	}
	for _, p := range []string{"a", "b"} {
		files[p+"/.claude-plugin/plugin.json"] = `{"name": "` + p + `"}`
		files[p+"/hooks/hooks.json"] = `{"hooks": {
  "SessionStart": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/start.sh"}]}],
  "PostToolUse": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/check.sh"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/stop.sh"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/scripts/far.sh"}]}]}}`
		for _, s := range []string{"start", "check", "stop"} {
			files[p+"/hooks/scripts/"+s+".sh"] = "#!/usr/bin/env bash\nSCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"${SCRIPT_DIR}/../../../shared/lib.sh\"\nlog " + s + "\n"
		}
		files[p+"/hooks/scripts/far.sh"] = "#!/bin/sh\nD=$(dirname \"$0\")\n. \"$D/../../../../outside.sh\"\n"
	}
	got := climbMessages(t, makeTree(t, files))
	if len(got) != 4 {
		t.Fatalf("escapes-plugin findings, want 4 (two a plugin):\n%s", strings.Join(got, "\n"))
	}
	for _, p := range []string{"a", "b"} {
		grouped := "3 hooks of plugin " + p + " (SessionStart at line 2, PostToolUse Write|Edit at line 3 and Stop at line 4) reach above its directory " + p + ": " +
			p + "/hooks/scripts/start.sh line 3 names ${SCRIPT_DIR}/../../../shared/lib.sh, which is shared/lib.sh; " +
			p + "/hooks/scripts/check.sh line 3 names ${SCRIPT_DIR}/../../../shared/lib.sh, which is shared/lib.sh; " +
			p + "/hooks/scripts/stop.sh line 3 names ${SCRIPT_DIR}/../../../shared/lib.sh, which is shared/lib.sh; in the repository they find what lies there, but Claude Code installs a plugin as a copy of its own directory"
		alone := "hook " + p + "/hooks/hooks.json#hooks.SessionEnd[0].hooks[0] reaches above its plugin's directory " + p + ": " + p + "/hooks/scripts/far.sh line 3 names $D/../../../../outside.sh, which is outside the repository too (../outside.sh); what lies outside the repository it does not find here either"
		for _, w := range []string{grouped, alone} {
			if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
				t.Errorf("no finding says %q:\n%s", w, strings.Join(got, "\n"))
			}
		}
	}
}

// TestClimbsPastTheBound: a hook's places above its plugin are named up
// to the bound and the rest counted, truly, however many a script holds:
// a script's places were read only up to the bound, so the fourth and
// later went uncounted (a script of five places was named as three, with
// no "more"), and a group of hooks that runs one script named three
// where it names six.
func TestClimbsPastTheBound(t *testing.T) {
	script := func(n int) string {
		s := "#!/bin/sh\nD=$(dirname \"$0\")\n"
		for i := range n {
			s += fmt.Sprintf(". \"$D/../../lib%d.sh\"\n", i+1)
		}
		return s
	}
	named := func(lines ...int) string {
		var said []string
		for _, l := range lines {
			said = append(said, fmt.Sprintf("plugins/p/x.sh line %d names $D/../../lib%d.sh, which is lib%d.sh", l+2, l, l))
		}
		return strings.Join(said, "; ")
	}
	one := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}`
	for _, c := range []struct {
		name, hooks string
		places      int
		want        string
	}{
		{"at the bound", one, 3, ": " + named(1, 2, 3) + "; in the repository it finds"},
		{"one past it", one, 4, ": " + named(1, 2, 3) + "; and 1 more; in the repository it finds"},
		{"five past it", one, 8, ": " + named(1, 2, 3) + "; and 5 more; in the repository it finds"},
		{"a command's place and a script's", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh ${CLAUDE_PLUGIN_ROOT}/../up"}]}]}}`, 5,
			": the command names ${CLAUDE_PLUGIN_ROOT}/../up, which is plugins/up; " + named(1, 2) + "; and 3 more; in the repository it finds"},
		{"two hooks, at the group's bound", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}],
			"SessionEnd": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}`, 6,
			"(Stop at line 1 and SessionEnd at line 2) reach above its directory plugins/p: " + named(1, 2, 3, 4, 5, 6) + "; in the repository they find"},
		{"two hooks, one past the group's bound", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}],
			"SessionEnd": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}`, 7,
			"(Stop at line 1 and SessionEnd at line 2) reach above its directory plugins/p: " + named(1, 2, 3, 4, 5, 6) + "; and 1 more; in the repository they find"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := climbMessages(t, makeTree(t, map[string]string{
				".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
				"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
				"plugins/p/hooks/hooks.json":           c.hooks,
				"plugins/p/x.sh":                       script(c.places),
			}))
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("escapes-plugin findings:\n%s\nwant one that says %q", strings.Join(got, "\n"), c.want)
			}
		})
	}
}

// TestClimbOutsideTheRepositoryPastTheBound: a hook one of whose places
// past the named three leads above the repository itself is said not to
// find it in this run either, as its group (apart from the hooks whose
// places stay in the repository) already held; it was said to find
// what lies there.
func TestClimbOutsideTheRepositoryPastTheBound(t *testing.T) {
	got := climbMessages(t, makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/x.sh"}]}]}}`,
		"plugins/p/x.sh":                       "#!/bin/sh\nD=$(dirname \"$0\")\n. \"$D/../a.sh\"\n. \"$D/../b.sh\"\n. \"$D/../c.sh\"\n. \"$D/../../../far.sh\"\n",
	}))
	want := "plugins/p/x.sh line 5 names $D/../c.sh, which is plugins/c.sh; and 1 more; what lies outside the repository it does not find here either"
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("escapes-plugin findings:\n%s\nwant one that says %q", strings.Join(got, "\n"), want)
	}
}

// TestClimbOfACommandInAnotherFile: of a plugin's hooks that reach above
// it from its manifest and from its hooks file, the command of the file
// the finding does not stand in is named by that file and line, as its
// hook is, where "the command at line 2" named the line of the other
// file; two commands at one line of each, alike, are two places.
func TestClimbOfACommandInAnotherFile(t *testing.T) {
	got := climbMessages(t, makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p",
			"hooks": {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/../a.sh"}]}]}}}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {
			"Stop": [{"hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/../a.sh"}]}]}}`,
	}))
	want := "2 hooks of plugin p (SessionStart at line 2 and Stop at plugins/p/hooks/hooks.json:2) reach above its directory plugins/p: " +
		"the command at line 2 names ${CLAUDE_PLUGIN_ROOT}/../a.sh, which is plugins/a.sh; " +
		"the command at plugins/p/hooks/hooks.json:2 names ${CLAUDE_PLUGIN_ROOT}/../a.sh, which is plugins/a.sh; in the repository they find"
	if len(got) != 1 || !strings.Contains(got[0], want) {
		t.Errorf("escapes-plugin findings:\n%s\nwant one that says %q", strings.Join(got, "\n"), want)
	}
}
