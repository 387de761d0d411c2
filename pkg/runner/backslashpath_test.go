package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestBackslashPathCause: a plugin written on Windows names its script
// "${CLAUDE_PLUGIN_ROOT}\scripts\x.cmd"; sh on Linux and macOS keeps the
// backslashes as part of one file name, so the hook fails there with the
// path not found. The warning says so and names the tree's file, not that
// the hook climbs out of its repository, which the path, read as one name
// beside the tree, made it look like (a field test's report). A relative
// one is read from where the hook runs; one that names no file of the
// tree, read with slashes, is no such case.
func TestBackslashPathCause(t *testing.T) {
	tree := makeTree(t, map[string]string{"plugins/p/scripts/x.cmd": "echo hi\n"})
	for _, tc := range []struct{ name, context, stderr, want string }{
		{"an absolute path through the plugin's root", "plugin:plugins/p", "/bin/sh: 1: " + tree + `/plugins/p\scripts\x.cmd: not found` + "\n",
			"it names " + tree + `/plugins/p\scripts\x.cmd, a path written with backslashes, which Windows reads as separators and sh on Linux and macOS as part of a file's name, so the hook finds nothing there and fails on every machine but Windows; the tree has plugins/p/scripts/x.cmd: write the path with /, which Windows reads too`},
		{"a relative path", "project:.", `sh: 1: ./plugins\p\scripts\x.cmd: not found` + "\n",
			"the tree has plugins/p/scripts/x.cmd: write the path with /"},
		{"a path the tree lacks either way", "project:.", `sh: 1: ./plugins\p\scripts\y.cmd: not found` + "\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := missingPathCause(report.HookRun{Context: tc.context, Stderr: tc.stderr, ExitCode: 127}, tree)
			if tc.want == "" && strings.Contains(got, "backslashes") || !strings.Contains(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestBackslashPathAudited: the same plugin audited for real: its
// SessionStart hook fails in the sandbox, and the run's warning says why.
func TestBackslashPathAudited(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}\\\\scripts\\\\x.cmd\""}]}]}}`,
		"plugins/p/scripts/x.cmd":              "echo hi\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].ExitCode != 127 {
		t.Fatalf("runs %+v, want one that failed with the script not found", rep.Runs)
	}
	var said bool
	for _, f := range rep.Findings {
		said = said || f.Rule == RuleRunHookError && strings.Contains(f.Message, "a path written with backslashes") && strings.Contains(f.Message, "the tree has plugins/p/scripts/x.cmd")
	}
	if !said {
		t.Errorf("no run/hook-error names the backslashes: %v", findingLines(rep.Findings))
	}
}
