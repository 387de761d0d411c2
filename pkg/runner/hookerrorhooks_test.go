package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestHookErrorsGroupedAcrossHooks: through a real confined audit, a
// plugin that runs one command, which this machine lacks, on several
// events is one run/hook-error warning at its first declaration, naming
// each hook (its event, its runs, its line), not one warning a hook; the
// same command in another plugin keeps its own warning, and so does
// another command of the plugin that fails otherwise.
func TestHookErrorsGroupedAcrossHooks(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	missing := `{"type": "command", "command": "vigiles-no-such-program --event"}`
	dir := makeTree(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/hooks/hooks.json": `{"hooks": {
  "Stop": [{"hooks": [` + missing + `]}],
  "SessionStart": [{"matcher": "startup", "hooks": [` + missing + `]}],
  "PreToolUse": [{"matcher": "Bash|Write", "hooks": [` + missing + `]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "exit 3"}]}]}}`,
		"q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [` + missing + `]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: ""})
	if err != nil {
		t.Fatal(err)
	}
	var p, q, other []string
	for _, f := range rep.Findings {
		switch {
		case f.Rule != RuleRunHookError:
		case strings.Contains(f.Message, "exit status 3"):
			other = append(other, f.Message)
		case f.Location.File == "p/hooks/hooks.json":
			p = append(p, f.Message)
			if f.Location.Line != 2 {
				t.Errorf("the grouped warning is at line %d, want 2, the first declaration", f.Location.Line)
			}
		case f.Location.File == "q/hooks/hooks.json":
			q = append(q, f.Message)
		}
	}
	want := "p: 3 hooks that run one command (Stop at line 2, SessionStart startup at line 3 and PreToolUse (2 runs) at line 4), 4 runs, each failed alike (exit status 127; its stderr says: "
	if len(p) != 1 || !strings.HasPrefix(p[0], want) || !strings.Contains(p[0], "vigiles-no-such-program: not found") {
		t.Errorf("plugin p's warnings: %q\nwant one starting %q", p, want)
	}
	if len(q) != 1 || !strings.HasPrefix(q[0], "q Stop failed (exit status 127") {
		t.Errorf("plugin q's warnings: %q, want its own", q)
	}
	if len(other) != 1 || !strings.HasPrefix(other[0], "p UserPromptSubmit failed (exit status 3") {
		t.Errorf("the other command's warnings: %q, want its own", other)
	}
}

// TestHookErrorsGroupedAcrossFiles: through a real confined audit, one
// command a plugin declares in its manifest and in its hooks file, failing
// alike, is one run/hook-error warning at the first declaration, by file
// and line, that names the other by its file and line (placeNamed).
func TestHookErrorsGroupedAcrossFiles(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	missing := `{"type": "command", "command": "vigiles-no-such-program --either"}`
	dir := makeTree(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p", "hooks": {
  "Stop": [{"hooks": [` + missing + `]}]}}`,
		"p/hooks/hooks.json": `{"hooks": {
  "SessionStart": [{"matcher": "startup", "hooks": [` + missing + `]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: ""})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			got = append(got, f.Location.File+": "+f.Message)
		}
	}
	want := "p/.claude-plugin/plugin.json: p: 2 hooks that run one command (Stop at line 2 and SessionStart startup at p/hooks/hooks.json:2), 2 runs, each failed alike (exit status 127"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("the warnings: %q\nwant one starting %q", got, want)
	}
}
