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
			"SessionEnd": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/scripts/inside.sh"}]}]}}`,
		"plugins/p/scripts/init.sh":            "#!/usr/bin/env bash\nSCRIPT_DIR=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")\" && pwd)\"\nsource \"${SCRIPT_DIR}/../../../utils/lib.sh\"\n",
		"plugins/p/scripts/up.sh":              "#!/bin/sh\nROOT=$(cd \"$(dirname \"$0\")/..\" && pwd)\n. \"$ROOT/../shared/lib.sh\"\n",
		"plugins/p/scripts/inside.sh":          "#!/bin/sh\nHERE=\"$(dirname \"$0\")\"\n. \"$HERE/../lib/ok.sh\"\n. \"${CLAUDE_PLUGIN_ROOT}/lib/ok.sh\"\n",
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		".claude/settings.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ../outside.sh"}]}]}}`,
	})
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
	want := []string{
		`the command names ${CLAUDE_PLUGIN_ROOT}/../shared/x.sh, which is plugins/shared/x.sh`,
		`plugins/p/scripts/init.sh line 3 names ${SCRIPT_DIR}/../../../utils/lib.sh, which is utils/lib.sh`,
		`plugins/p/scripts/up.sh line 3 names $ROOT/../shared/lib.sh, which is plugins/shared/lib.sh`,
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
