package runner

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestTimeoutsAndDecidesGrouped: through a real confined audit, the
// run/timeout and run/decides findings of one command a plugin declares
// as several hooks are one finding at its first declaration naming the
// hooks, and those of one hook's runs for the tools its matcher takes one
// naming the tools, as run/hook-error's are; another plugin's keep their
// own. A sharded audit's merge groups them alike.
func TestTimeoutsAndDecidesGrouped(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	slow := `{"type": "command", "command": "sleep 30", "timeout": 1}`
	allow := `{"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"permissionDecisionReason\": \"fine\"}}'"}`
	dir := makeTree(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/hooks/hooks.json": `{"hooks": {
  "Stop": [{"hooks": [` + slow + `]}],
  "SessionStart": [{"matcher": "startup", "hooks": [` + slow + `]}],
  "PreToolUse": [{"matcher": "Bash|Write", "hooks": [` + slow + `]}, {"matcher": "Bash", "hooks": [` + allow + `]},
    {"matcher": "Edit", "hooks": [` + allow + `]}]}}`,
		"q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"q/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash|Edit|Write", "hooks": [` + slow + `, ` + allow + `]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: ""})
	if err != nil {
		t.Fatal(err)
	}
	checkGrouped(t, "the audit", rep)
	// Shards leave them apart (a hook's runs fall in both), and their
	// merge groups them as the whole audit did.
	var parts []NamedReport
	for _, shard := range []string{"1/2", "2/2"} {
		part, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: "", Shard: shard})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, NamedReport{Name: shard, Report: part})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	checkGrouped(t, "the shards' merge", merged)
}

// checkGrouped checks rep's run/timeout and run/decides findings of
// TestTimeoutsAndDecidesGrouped's tree (what names the report).
func checkGrouped(t *testing.T, what string, rep *report.Report) {
	t.Helper()
	got := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Rule == RuleRunTimeout || f.Rule == RuleRunDecides {
			got[f.Rule+" "+f.Location.File] = append(got[f.Rule+" "+f.Location.File], f.Message)
			if f.Location.File == "p/hooks/hooks.json" && f.Rule == RuleRunTimeout && f.Location.Line != 2 {
				t.Errorf("%s: p's run/timeout is at line %d, want 2, the first declaration", what, f.Location.Line)
			}
		}
	}
	// When each run was ended is no part of what is compared: the
	// grouped finding spans them.
	ended := `timed out after \d+( to \d+)? ms; `
	for _, c := range []struct{ key, want string }{
		{RuleRunTimeout + " p/hooks/hooks.json", `^p: 3 hooks that run one command \(Stop at line 2, SessionStart startup at line 3 and PreToolUse \(2 runs\) at line 4\), 4 runs, each alike: ` + ended},
		{RuleRunTimeout + " q/hooks/hooks.json", `^q/hooks/hooks.json#hooks.PreToolUse\[0\].hooks\[0\], run for each of the 3 tools its matcher takes \(Bash, Edit and Write\): ` + ended},
		{RuleRunDecides + " p/hooks/hooks.json", `^p: 2 hooks that run one command \(PreToolUse Bash at line 4 and PreToolUse Edit at line 5\), 2 runs, each tells Claude Code alike what to do with the call: `},
		{RuleRunDecides + " q/hooks/hooks.json", `^q PreToolUse, run for each of the 3 tools its matcher takes \(Bash, Edit and Write\), tells Claude Code what to do with the call: `},
	} {
		if ms := got[c.key]; len(ms) != 1 || !regexp.MustCompile(c.want).MatchString(ms[0]) {
			t.Errorf("%s: %s: %q\nwant one matching %s", what, c.key, ms, c.want)
		}
	}
	for key, ms := range got {
		if !strings.HasPrefix(key, RuleRunTimeout+" p/") && !strings.HasPrefix(key, RuleRunTimeout+" q/") && !strings.HasPrefix(key, RuleRunDecides+" p/") && !strings.HasPrefix(key, RuleRunDecides+" q/") {
			t.Errorf("%s: unexpected %s: %q", what, key, ms)
		}
	}
}

// TestTimeoutsGroupedAcrossEventDefaults: through a real confined audit,
// one slow command with no timeout of its own, on events whose default
// wait under Claude Code is the same (Stop, SessionStart), ended at the
// policy's defaults.timeout, is one run/timeout that says the default is
// each of their events'; on an event that waits otherwise
// (UserPromptSubmit) it keeps its own.
func TestTimeoutsGroupedAcrossEventDefaults(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	slow := `{"type": "command", "command": "sleep 30"}`
	dir := makeTree(t, map[string]string{
		".vigiles.yml":                 "defaults:\n  timeout: 1s\n",
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/hooks/hooks.json": `{"hooks": {
  "Stop": [{"hooks": [` + slow + `]}],
  "SessionStart": [{"matcher": "startup", "hooks": [` + slow + `]}],
  "UserPromptSubmit": [{"hooks": [` + slow + `]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Baseline: ""})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunTimeout {
			got = append(got, f.Message)
		}
	}
	slices.Sort(got)
	want := []*regexp.Regexp{
		regexp.MustCompile(`^p/hooks/hooks.json#hooks.UserPromptSubmit\[0\].hooks\[0\]: timed out after \d+ ms, .*its default for UserPromptSubmit hooks\)`),
		regexp.MustCompile(`^p: 2 hooks that run one command \(Stop at line 2 and SessionStart startup at line 3\), 2 runs, each alike: timed out after \d+( to \d+)? ms, .*\(it waits up to [^,]+, the default for each of their events\)`),
	}
	if len(got) != len(want) || !want[0].MatchString(got[0]) || !want[1].MatchString(got[1]) {
		t.Errorf("run/timeout findings: %q\nwant two, matching %s and %s", got, want[0], want[1])
	}
}
