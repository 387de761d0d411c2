package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestOnFailureIsRead: a handler's onFailure is "block" or "continue";
// "block" marks the hook, any other value is an error and that hook is
// not read (on PostToolUse: on a PreToolUse hook, Claude Code fails the
// whole plugin: TestBrokenPluginGuard).
func TestOnFailureIsRead(t *testing.T) {
	dir := makeTree(t, map[string]string{"hooks/hooks.json": `{"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "a", "onFailure": "block"},
  {"type": "command", "command": "b", "onFailure": "continue"},
  {"type": "command", "command": "c"},
  {"type": "command", "command": "d", "onFailure": "Block"},
  {"type": "command", "command": "e", "onFailure": true}
]}]}}`})
	s := discoverAll(t, dir)
	got := map[string]bool{}
	for _, h := range s.hooks {
		got[h.Command] = h.FailBlocks
	}
	if diff := cmp.Diff(map[string]bool{"a": true, "b": false, "c": false}, got); diff != "" {
		t.Errorf("hooks read, and whether they fail blocking (-want +got):\n%s", diff)
	}
	wantF := []string{
		`error discovery/wrong-type hooks/hooks.json:5:52 PostToolUse[0].hooks[3].onFailure: want "block" or "continue", found the string "Block"`,
		`error discovery/wrong-type hooks/hooks.json:6:52 PostToolUse[0].hooks[4].onFailure: want "block" or "continue", found a boolean`,
	}
	if diff := cmp.Diff(wantF, findingMessages(s.findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestFailBlocks: with onFailure "block", a failed run (an exit status
// other than 0 and 2, a kill) reads as exit status 2 on its event:
// blocked where exit 2 blocks, its reason saying why; where exit 2 does
// not block the outcome stays and the reason says that onFailure changes
// nothing there; a timeout (TestTimedOutSaysWhoseBound),
// success, exit 2, vigiles' own failure and a WorktreeCreate hook are
// left as they are.
func TestFailBlocks(t *testing.T) {
	res := func(code int, signal string) *sandbox.Result {
		return &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: code, Signal: signal, Stderr: "boom\n"}
	}
	out := func(stdout string) *sandbox.Result {
		return &sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, Stderr: "boom\n"}
	}
	timedOut := &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: -1, TimedOut: true, DurationMs: 5000}
	for _, tc := range []struct {
		name    string
		event   string
		value   string
		res     *sandbox.Result
		outcome string
		reason  string
		blocked bool
	}{
		{name: "exit 1 blocks", event: PreToolUse, value: "Bash", res: res(1, ""), outcome: report.OutcomeBlocked, blocked: true,
			reason: "exit status 1, which onFailure block makes Claude Code read as exit status 2: boom"},
		{name: "a kill blocks", event: UserPromptSubmit, res: res(-1, "SIGSEGV"), outcome: report.OutcomeBlocked, blocked: true,
			reason: "killed by SIGSEGV, which onFailure block makes Claude Code read as exit status 2: boom"},
		{name: "Claude Code ignores it on Stop", event: Stop, res: res(127, ""), outcome: report.OutcomeAllowed,
			reason: "exit status 127: a non-blocking error, the agent carries on; its onFailure block changes nothing here: Claude Code ignores onFailure on Stop hooks"},
		{name: "and on TeammateIdle", event: TeammateIdle, res: res(1, ""), outcome: report.OutcomeAllowed,
			reason: "exit status 1: a non-blocking error, the agent carries on; its onFailure block changes nothing here: Claude Code ignores onFailure on TeammateIdle hooks"},
		{name: "a permission request is denied", event: PermissionRequest, value: "Bash", res: res(1, ""), outcome: report.OutcomeBlocked, blocked: true,
			reason: "exit status 1, which onFailure block makes Claude Code read as a block: it denies the permission request: boom"},
		{name: "JSON that does not parse", event: PreToolUse, value: "Bash", res: out(`{"hookSpecificOutput": }`), outcome: report.OutcomeBlocked, blocked: true,
			reason: "its JSON output does not parse, which onFailure block makes Claude Code read as exit status 2: boom"},
		{name: "JSON that fails the schema", event: PreToolUse, value: "Bash", res: out(`{"hookSpecificOutput":{"hookEventName":"pretooluse"}}`), outcome: report.OutcomeBlocked, blocked: true,
			reason: "its JSON output fails Claude Code's schema (hookSpecificOutput.hookEventName is \"pretooluse\", not \"PreToolUse\"), which onFailure block makes Claude Code read as exit status 2: boom"},
		{name: "JSON lines that set no field are text", event: PreToolUse, value: "Bash", res: out("{\"a\":1}\n{\"b\":2}"), outcome: report.OutcomeAllowed},
		{name: "valid JSON is success", event: PreToolUse, value: "Bash", res: out(`{"systemMessage":"ok"}`), outcome: report.OutcomeAllowed},
		{name: "text is success", event: PreToolUse, value: "Bash", res: out(`{not json`), outcome: report.OutcomeAllowed},
		{name: "exit 0 is success", event: PreToolUse, value: "Bash", res: res(0, ""), outcome: report.OutcomeAllowed},
		{name: "exit 2 blocks on its own", event: PreToolUse, value: "Bash", res: res(2, ""), outcome: report.OutcomeBlocked, reason: "exit status 2: boom"},
		{name: "an event exit 2 does not block", event: SessionStart, value: "startup", res: res(1, ""), outcome: report.OutcomeAllowed,
			reason: "exit status 1: a non-blocking error, the agent carries on; its onFailure block changes nothing here: Claude Code reads the failure as exit status 2, which does not block SessionStart"},
		{name: "an unblockable value", event: ConfigChange, value: "policy_settings", res: res(1, ""), outcome: report.OutcomeAllowed,
			reason: "exit status 1: a non-blocking error, the agent carries on; its onFailure block changes nothing here: Claude Code reads the failure as exit status 2, which does not block ConfigChange"},
		{name: "a timeout is timedOut's to tell", event: PreToolUse, value: "Bash", res: timedOut, outcome: report.OutcomeError,
			reason: "timed out after 5000 ms; the agent cancels the hook and carries on"},
		{name: "vigiles failed", event: PreToolUse, value: "Bash", res: &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: 125, Error: "no record"}, outcome: report.OutcomeError,
			reason: "the run failed: no record"},
		{name: "WorktreeCreate", event: WorktreeCreate, res: res(1, ""), outcome: report.OutcomeBlocked,
			reason: "exit status 1: any non-zero exit fails WorktreeCreate: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := failBlocks(tc.event, tc.value, tc.res, nil, DecideValue(tc.event, tc.value, tc.res, nil))
			if d.Outcome != tc.outcome || d.Reason != tc.reason || d.FailBlocked != tc.blocked {
				t.Errorf("got %s %q (fail-blocked %t)\nwant %s %q (fail-blocked %t)", d.Outcome, d.Reason, d.FailBlocked, tc.outcome, tc.reason, tc.blocked)
			}
		})
	}
}

// TestAuditReadsOnFailureBlock audits, confined, a PreToolUse guard that
// crashes with onFailure "block" beside one without it: the first run is
// blocked, as Claude Code blocks it, and its run/hook-error warning says
// that every call it fails on is blocked; the second is allowed. A third,
// with onFailure "block", exits 0 with JSON that fails Claude Code's
// schema: a failure too, blocked.
func TestAuditReadsOnFailureBlock(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "echo crashed >&2; exit 1", "onFailure": "block"},
  {"type": "command", "command": "echo crashed >&2; exit 1"},
  {"type": "command", "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"pretooluse\"}}'", "onFailure": "block"}
]}]}}`})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[string]string{}
	for _, r := range rep.Runs {
		outcomes[r.ID] = r.Outcome
	}
	want := map[string]string{
		".claude/settings.json#hooks.PreToolUse[0].hooks[0]@Bash": report.OutcomeBlocked,
		".claude/settings.json#hooks.PreToolUse[0].hooks[1]@Bash": report.OutcomeAllowed,
		".claude/settings.json#hooks.PreToolUse[0].hooks[2]@Bash": report.OutcomeBlocked,
	}
	if diff := cmp.Diff(want, outcomes); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	warned := messagesByHook(rep.Findings, RuleRunHookError)
	if m := warned[".claude/settings.json#hooks.PreToolUse[0].hooks[0]@Bash"]; !strings.Contains(m, "its onFailure block makes Claude Code block the call whenever it fails so") {
		t.Errorf("the blocking guard's warning: %q", m)
	}
	if m := warned[".claude/settings.json#hooks.PreToolUse[0].hooks[2]@Bash"]; !strings.Contains(m, "failed (its JSON output fails Claude Code's schema (hookSpecificOutput.hookEventName is \"pretooluse\", not \"PreToolUse\"); its stderr is empty): its onFailure block makes Claude Code block the call whenever it fails so") {
		t.Errorf("the guard whose JSON fails the schema: %q", m)
	}
	if m := warned[".claude/settings.json#hooks.PreToolUse[0].hooks[1]@Bash"]; !strings.Contains(m, "Claude Code shows a hook error and carries on without it") {
		t.Errorf("the other guard's warning: %q", m)
	}
}

// TestAsyncOnFailureBlockDoesNotApply: Claude Code ignores onFailure on
// an async hook, so an async PreToolUse guard with onFailure "block"
// that exits 1, or is killed, is allowed, as without it; its reason said
// what the onFailure block would do ("it would have: exit status 1,
// which onFailure block makes Claude Code read as exit status 2"), and
// now says that the hook runs async, so the block does not apply. Its
// run/hook-error warning says it runs async, not that the call is
// blocked.
func TestAsyncOnFailureBlockDoesNotApply(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "exit 1", "async": true, "onFailure": "block"},
  {"type": "command", "command": "kill", "async": true, "onFailure": "block"}
]}]}}`})
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: 1, Stderr: "boom\n", Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if spec.Command[len(spec.Command)-1] == "kill" {
			res.ExitCode, res.Signal = -1, "SIGSEGV"
		}
		return res, nil
	}}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Runs {
		got[r.Command] = r.Outcome + ": " + r.Reason
	}
	want := map[string]string{
		"exit 1": report.OutcomeAllowed + ": async: the agent does not wait for the hook, so its failure stops nothing (exit status 1: a non-blocking error, the agent carries on); " + asyncOnFailure,
		"kill":   report.OutcomeAllowed + ": async: the agent does not wait for the hook, so its failure stops nothing (killed by SIGSEGV: a non-blocking error, the agent carries on); " + asyncOnFailure,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("outcomes and reasons (-want +got):\n%s", diff)
	}
	warned := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleRunHookError {
			warned++
			if strings.Contains(f.Message, "onFailure block makes") || !strings.Contains(f.Message, "it runs async") {
				t.Errorf("warning: %q", f.Message)
			}
		}
	}
	if warned != 2 {
		t.Errorf("%d run/hook-error warnings, want 2: %v", warned, findingLines(rep.Findings))
	}
}
