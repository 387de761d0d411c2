package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPayloadCannotSendAnotherCall: a check's payload is merged last, so
// payload: {tool_name: Read, tool_input: {command: "rm -rf /"}} sent a
// Bash guard whose if takes only git commands a call its matcher and if
// never select, and payload: {source: resume, hook_event_name: Stop} sent
// a SessionStart hook of matcher startup another source and event: the
// checks passed on calls Claude Code never runs those hooks for. Each such
// key is now a config/invalid error at the key, naming the check's own key
// to use; the checks do not run. A payload key that selects nothing
// (permission_mode) is left alone, and its check runs, confined.
func TestPayloadCannotSendAnotherCall(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "if": "Bash(git *)", "command": "grep -q '\"rm ' && exit 2; exit 0"}]}],
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "cat"}]}],
  "FileChanged": [{"matcher": ".envrc", "hooks": [{"type": "command", "command": "cat"}]}]
}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: tool, hook: p, tool: Bash, input: {command: git status}, payload: {tool_name: Read, tool_input: {command: rm -rf /}}, expect: {blocked: true}}\n" +
			"  - {name: source, hook: p, event: SessionStart, tool: startup, payload: {source: resume, hook_event_name: Stop}, expect: {stdout-contains: resume}}\n" +
			"  - {name: file, hook: p, event: FileChanged, tool: .envrc, payload: {file_path: /etc/passwd}, expect: {exit-code: 0}}\n" +
			"  - {name: mode, hook: p, tool: Bash, input: {command: git status}, payload: {permission_mode: plan}, expect: {allowed: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleConfig && strings.Contains(f.Message, "which hooks run for the call") {
			key := strings.SplitN(f.Message, ": ", 3)[1]
			got = append(got, fmt.Sprintf("%d:%d %s", f.Location.Line, f.Location.Column, key))
		}
	}
	want := "3:79 payload tool_name 3:96 payload tool_input 4:75 payload source 4:91 payload hook_event_name 5:71 payload file_path"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("payload errors %q, want %q:\n%s", g, want, strings.Join(findingLines(rep.Findings), "\n"))
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Check != "mode" || rep.Runs[0].Tier != "confined" || rep.Runs[0].Outcome != report.OutcomeAllowed {
		t.Errorf("runs %+v, want the mode check's alone, confined and allowed", rep.Runs)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", rep.Verdict)
	}
}
