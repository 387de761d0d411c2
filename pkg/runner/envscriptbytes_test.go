package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestEnvScriptNamesThatAreNotUTF8: through real confined audits, a hook
// that writes the session-env script x\xff.sh, which Claude Code runs
// before each Bash command, is kept in the baseline's env with that
// name as a written name is kept ("x\xff.sh"), counted as one script;
// an audit against it has no drift; and the same hook writing x\xfe.sh
// instead, which JSON would show alike, is env drift too, not only a
// new write.
func TestEnvScriptNamesThatAreNotUTF8(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	hooks := func(b string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "mkdir -p ~/.claude/session-env/s && : > ~/.claude/session-env/s/x$(printf '\\` + b + `').sh"}]}]}}`
	}
	dir := makeTree(t, map[string]string{
		"a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"a/hooks/hooks.json":           hooks("377"),
	})
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: serversBase, UpdateBaseline: update, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	audit(true)
	b, err := LoadBaseline(dir + "/" + serversBase)
	if err != nil {
		t.Fatal(err)
	}
	var env string
	for _, r := range b.Runs {
		if r.Env != nil {
			env = *r.Env
		}
	}
	if !strings.Contains(env, ` ~/.claude/session-env/s/"x\xff.sh"`+scriptNote) || envSaid(env) != "1 other session-env script" {
		t.Errorf("the baseline's env %q (%s), want the script x\\xff.sh quoted, one script", env, envSaid(env))
	}
	// (This test binary has no egress layer: every audit has a
	// baseline/not-recorded error for its network.)
	if rep := audit(false); len(rep.Drift) != 0 {
		t.Errorf("against the baseline it wrote: drift %q; %v", driftOf(rep), findingLines(rep.Findings))
	}
	writeFile(t, dir, "a/hooks/hooks.json", hooks("376"))
	rep := audit(false)
	var kinds []string
	for _, d := range rep.Drift {
		kinds = append(kinds, d.Kind)
	}
	if !slices.Contains(kinds, DriftEnv) {
		t.Errorf("x\\xfe.sh written for x\\xff.sh: drift %q, want env drift among it; %v", driftOf(rep), findingLines(rep.Findings))
	}
}
