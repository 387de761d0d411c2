package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestEmptyIfIsNoCondition: a handler's "if": "" is no condition. Claude
// Code's filter passes over an empty "if" as over none, so the handler
// runs for every call its matcher selects, on a non-tool event too, and
// is one hook with a handler alike that has no "if". The audit runs it
// so, with a warning that it narrows nothing, where it was an error
// (want a permission rule) that failed the audit on a hook it ran all
// the same. Read from a settings file and from a skill's frontmatter.
func TestEmptyIfIsNoCondition(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "echo bash", "if": ""},
    {"type": "command", "command": "echo bash"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop", "if": ""}]}]}}`,
		".claude/skills/tidy/SKILL.md": "---\nname: tidy\ndescription: tidies\nhooks:\n  PostToolUse:\n    - matcher: Write\n      hooks:\n        - type: command\n          command: echo tidy\n          if: \"\"\n---\nbody\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, r := range rep.Runs {
		if r.Outcome != report.OutcomeAllowed {
			t.Errorf("%s %s %s: %s (%s), want allowed: Claude Code runs it as if it had no if", r.Event, r.Tool, r.Command, r.Outcome, r.Reason)
		}
		ran[r.Event+" "+r.Tool]++
	}
	for k, n := range map[string]int{"PreToolUse Bash": 1, "Stop ": 1, "PostToolUse Write": 1} {
		if ran[k] != n {
			t.Errorf("runs of %s = %d, want %d (runs by event and tool: %v)", k, ran[k], n, ran)
		}
	}
	var warned []string
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("error finding %s %s: %s", f.Rule, f.Location.File, f.Message)
		}
		if f.Rule == RuleMalformed && strings.Contains(f.Message, `.if "" is no condition: Claude Code runs the handler as if it had no "if"`) {
			if f.Severity != report.SeverityWarning {
				t.Errorf("%s: %s, want a warning", f.Location.File, f.Severity)
			}
			warned = append(warned, f.Location.File)
		}
	}
	if want := []string{".claude/settings.json", ".claude/settings.json", ".claude/skills/tidy/SKILL.md"}; strings.Join(sorted(warned), " ") != strings.Join(want, " ") {
		t.Errorf("empty-if warnings at %q, want %q", warned, want)
	}
}
