package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestProjectSkillHookGetsItsDirectoryAsPluginRoot: Claude Code registers
// a skill's hooks with the skill's directory, which execCommandHook
// exports as CLAUDE_PLUGIN_ROOT (its ${CLAUDE_PLUGIN_ROOT} is left in the
// command, and the shell reads it from there). A project skill's guard
// that runs "${CLAUDE_PLUGIN_ROOT}/guard.sh" ran /guard.sh under vigiles,
// which sh could not open (blocked by sh's exit status 2, not the
// guard's), with a discovery/missing-script error, where under Claude
// Code the guard runs and blocks. A hook of the project's settings still
// gets none.
func TestProjectSkillHookGetsItsDirectoryAsPluginRoot(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/skills/guard/SKILL.md": "---\nname: guard\ndescription: d\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: 'sh \"${CLAUDE_PLUGIN_ROOT}/guard.sh\"'\n---\nbody\n",
		".claude/skills/guard/guard.sh": "echo \"root=$CLAUDE_PLUGIN_ROOT\" >&2\nexit 2\n",
		".claude/settings.json":         `{"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo \"root=${CLAUDE_PLUGIN_ROOT-unset}\""}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleMissingScript {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	var skill, settings bool
	for _, r := range rep.Runs {
		if r.Tier != "confined" {
			t.Fatalf("run %s: tier %q, want confined", r.ID, r.Tier)
		}
		switch {
		case strings.Contains(r.ID, "SKILL.md") && r.Tool == "Bash":
			skill = true
			want := "root=" + filepath.Join(dir, ".claude", "skills", "guard")
			if r.Outcome != report.OutcomeBlocked || !strings.Contains(r.Stderr, want) {
				t.Errorf("skill's run %s: %s, stderr %q; want blocked, %q", r.ID, r.Outcome, r.Stderr, want)
			}
		case strings.Contains(r.ID, "settings.json") && r.Tool == "Write":
			settings = true
			if !strings.Contains(r.Stdout, "root=unset") {
				t.Errorf("settings' run %s: stdout %q, want CLAUDE_PLUGIN_ROOT unset", r.ID, r.Stdout)
			}
		}
	}
	if !skill || !settings {
		t.Errorf("runs: skill %v, settings %v; want both: %v", skill, settings, findingLines(rep.Findings))
	}
}
