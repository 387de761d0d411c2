package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestHookClimbsOutOfItsPlugin: a plugin hook that reaches above its
// plugin's directory, in its command or in a line of a shell script of
// the plugin's it runs, is a discovery/escapes-plugin warning that names
// where; one that stays inside the plugin, and a project's hook, are not.
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
	want := []string{
		`the command names ${CLAUDE_PLUGIN_ROOT}/../shared/x.sh, which is plugins/shared/x.sh`,
		`plugins/p/scripts/init.sh line 3 names ${SCRIPT_DIR}/../../../utils/lib.sh, which is utils/lib.sh; in the repository`,
		`plugins/p/scripts/up.sh line 3 names $ROOT/../shared/lib.sh, which is plugins/shared/lib.sh`,
		`plugins/p/scripts/spaced.sh line 3 names ${script_dir}/../../../.venv/bin/activate, which is .venv/bin/activate`,
	}
	if len(got) != len(want) {
		t.Fatalf("escapes-plugin findings:\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || strings.Contains(g, w) && strings.Contains(g, "Claude Code installs a plugin as a copy of its own directory")
		}
		if !found {
			t.Errorf("no finding says %q:\n%s", w, strings.Join(got, "\n"))
		}
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
