package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// cannedResult is what the fake hook "did".
func cannedResult() *sandbox.Result {
	return &sandbox.Result{
		Tier: sandbox.TierConfined, ExitCode: 0, DurationMs: 120,
		Stdout: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"},"n":3}`,
		Stderr: "checked the call\n",
		Writes: []evidence.Write{{Path: "notes.txt", Op: evidence.OpCreate, Kind: "file"}, {Path: ".git/config", Op: evidence.OpModify, Kind: "file"}},
		Egress: []evidence.Egress{{Host: "api.example.test", Port: 443, Via: evidence.ViaProxy, Attempts: 1}, {Host: "telemetry.evil.test", Via: evidence.ViaDNS, Attempts: 2}},
	}
}

// expectCase is one expectation, written so that it passes or fails
// against cannedResult.
type expectCase struct {
	yaml string
	pass bool
}

var expectCases = []expectCase{
	{"exit-code: 0", true},
	{"exit-code: 2", false},
	{"blocked: true", true},
	{"blocked: false", false},
	{"allowed: false", true},
	{"allowed: true", false},
	{"outcome: blocked", true},
	{"outcome: allowed", false},
	{"stdout-contains: permissionDecision", true},
	{"stdout-contains: nothing-like-this", false},
	{"stderr-contains: checked", true},
	{"stderr-contains: dangerous", false},
	{`stdout-matches: '"n":\d'`, true},
	{`stdout-matches: "^plain"`, false},
	{`stderr-matches: "re:^checked"`, true},
	{`stderr-matches: "^failed"`, false},
	// A pattern matches the stream, or the stream without the line
	// ending it ends with: ^…$ matches the whole text a hook prints and
	// ends with a newline.
	{`stderr-matches: "^checked the call$"`, true},
	{`stderr-matches: "^checked the call\\n$"`, true},
	{`stderr-matches: "^checked$"`, false},
	{"json: {hookSpecificOutput.permissionDecision: deny, n: 3}", true},
	{"json: {hookSpecificOutput.permissionDecision: allow}", false},
	{"json: {hookSpecificOutput.missing: 1}", false},
	{"no-egress: true", false},
	{`egress-only: ["*.example.test", "*.evil.test"]`, true},
	{`egress-only: ["api.example.test"]`, false},
	{`no-write: ["**/.ssh/**"]`, true},
	{`no-write: ["re:^\\.git/"]`, false},
	{"no-write: true", false},
	{`wrote-only: [notes.txt, ".git/**"]`, true},
	{`wrote-only: [notes.txt]`, false},
	{"max-duration: 1s", true},
	{"max-duration: 100ms", false},
}

func testRepo(t *testing.T, checks string) string {
	t.Helper()
	return makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "guard"}`,
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo guard"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]}}`,
		".vigiles.yml": checks,
	})
}

func TestEveryExpectationKind(t *testing.T) {
	for _, tc := range expectCases {
		t.Run(tc.yaml, func(t *testing.T) {
			cfg := "checks:\n  - name: c\n    hook: guard\n    event: PreToolUse\n    tool: Bash\n    expect:\n      " + tc.yaml + "\n"
			dir := testRepo(t, cfg)
			ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) { return cannedResult(), nil }}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != 1 {
				t.Fatalf("runs = %d", len(rep.Runs))
			}
			var fails []report.Finding
			for _, f := range rep.Findings {
				if strings.HasPrefix(f.Rule, RuleExpectPrefix) {
					fails = append(fails, f)
				}
			}
			if tc.pass {
				if len(fails) != 0 || rep.Verdict != report.VerdictPass {
					t.Fatalf("want a pass, got %s with %+v", rep.Verdict, fails)
				}
				return
			}
			if len(fails) == 0 || rep.Verdict != report.VerdictFail {
				t.Fatalf("want a failure, got %s with %+v", rep.Verdict, rep.Findings)
			}
			f := fails[0]
			if f.Location.File != ".vigiles.yml" || f.Location.Line != 7 || (f.Location.Column != 7 && f.Rule != RuleExpectPrefix+ExpJSON) {
				t.Errorf("finding at %+v, want .vigiles.yml:7:7 (the expectation; json points at its path)", f.Location)
			}
			if f.Severity != report.SeverityError || f.Hook != rep.Runs[0].ID || f.Message == "" {
				t.Errorf("finding %+v", f)
			}
		})
	}
}

func TestNotRecordedIsAnError(t *testing.T) {
	for _, kind := range []string{"no-egress: true", `egress-only: ["x.test"]`, "no-write: true", "wrote-only: [a]"} {
		t.Run(kind, func(t *testing.T) {
			cfg := "checks:\n  - name: c\n    hook: guard\n    expect:\n      " + kind + "\n"
			dir := testRepo(t, cfg)
			ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierDirect}, nil // nil Writes and Egress
			}}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict != report.VerdictFail || len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleNotRecorded {
				t.Fatalf("want one %s finding and a fail, got %s %+v", RuleNotRecorded, rep.Verdict, rep.Findings)
			}
			if !strings.Contains(rep.Findings[0].Message, "not recorded") {
				t.Errorf("message: %s", rep.Findings[0].Message)
			}
		})
	}
}

func TestCheckSpecAndPayload(t *testing.T) {
	cfg := `defaults:
  sandbox: strict
  timeout: 7s
  linger: 3s
  egress: record
checks:
  - name: rm
    hook: guard
    tool: Bash
    input: {command: "rm -rf /"}
    payload: {permission_mode: bypassPermissions}
    expect: {exit-code: 0}
  - name: stop
    hook: guard
    event: Stop
    expect: {exit-code: 0}
  - name: adhoc
    command: "echo ${CLAUDE_PROJECT_DIR}"
    event: UserPromptSubmit
    payload: {prompt: "hello"}
    timeout: 2s
    expect: {exit-code: 0}
`
	dir := testRepo(t, cfg)
	ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictPass {
		t.Fatalf("verdict %s: %+v", rep.Verdict, rep.Findings)
	}
	type seen struct {
		Cmd     string
		Env     []string
		Timeout string
		Linger  string
		Mode    sandbox.Mode
		Egress  string
		Payload map[string]any
	}
	var got []seen
	for i, s := range ex.Specs {
		var p map[string]any
		if err := json.Unmarshal(ex.Stdin[i], &p); err != nil {
			t.Fatal(err)
		}
		// CLAUDE_CODE_SESSION_ID is the payload's session_id, as Claude
		// Code sets it.
		var env []string
		for _, e := range s.Env {
			if v, ok := strings.CutPrefix(e, "CLAUDE_CODE_SESSION_ID="); ok {
				if v != p["session_id"] {
					t.Errorf("CLAUDE_CODE_SESSION_ID=%s, payload session_id %v", v, p["session_id"])
				}
				continue
			}
			env = append(env, e)
		}
		delete(p, "session_id")
		delete(p, "prompt_id")
		delete(p, "transcript_path")
		delete(p, "tool_use_id")
		got = append(got, seen{strings.Join(hookArgv(t, s), " "), env, s.Timeout.String(), s.Linger.String(), s.Mode, s.Egress.Mode, p})
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Cmd < got[j].Cmd })
	want := []seen{
		{"/bin/sh -c echo " + dir, []string{"CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code_2-1-296_harness", "PYTHONDONTWRITEBYTECODE=1", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0", "CLAUDECODE=1", "CLAUDE_CODE_CHILD_SESSION=1", "CLAUDE_PROJECT_DIR=" + dir, "CLAUDE_PLUGIN_ROOT=" + dir}, "2s", "3s", sandbox.ModeStrict, "record",
			map[string]any{"cwd": dir, "hook_event_name": "UserPromptSubmit", "permission_mode": "default", "prompt": "hello"}},
		{"/bin/sh -c echo guard", []string{"CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code_2-1-296_harness", "PYTHONDONTWRITEBYTECODE=1", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0", "CLAUDECODE=1", "CLAUDE_CODE_CHILD_SESSION=1", "CLAUDE_EFFORT=high", "CLAUDE_PROJECT_DIR=" + dir, "CLAUDE_PLUGIN_ROOT=" + dir}, "7s", "3s", sandbox.ModeStrict, "record",
			map[string]any{"cwd": dir, "hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions", "effort": map[string]any{"level": "high"}, "tool_name": "Bash",
				"tool_input": map[string]any{"command": "rm -rf /"}}},
		{"/bin/sh -c echo stop", []string{"CLAUDE_CODE_ENTRYPOINT=cli", "AI_AGENT=claude-code_2-1-296_harness", "PYTHONDONTWRITEBYTECODE=1", "BUN_RUNTIME_TRANSPILER_CACHE_PATH=0", "CLAUDECODE=1", "CLAUDE_CODE_CHILD_SESSION=1", "CLAUDE_EFFORT=high", "CLAUDE_PROJECT_DIR=" + dir, "CLAUDE_PLUGIN_ROOT=" + dir}, "7s", "3s", sandbox.ModeStrict, "record",
			map[string]any{"cwd": dir, "hook_event_name": "Stop", "permission_mode": "default", "effort": map[string]any{"level": "high"}, "stop_hook_active": false,
				"last_assistant_message": "I added the test and it passes.", "background_tasks": []any{}, "session_crons": []any{}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("specs (-want +got):\n%s", diff)
	}
}

func TestCheckSelectsNoHook(t *testing.T) {
	cfg := `checks:
  - name: wrong plugin
    hook: nobody
    expect: {blocked: true}
  - name: wrong tool
    hook: guard
    tool: Write
    expect: {blocked: true}
`
	dir := testRepo(t, cfg)
	ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) { return cannedResult(), nil }}
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, fmt.Sprintf("%s %d:%d", f.Rule, f.Location.Line, f.Location.Column))
	}
	want := []string{"check/no-hook 3:11", "check/no-hook 5:5"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s\n%+v", diff, rep.Findings)
	}
	if rep.Verdict != report.VerdictFail || len(ex.Specs) != 0 {
		t.Errorf("verdict %s, %d runs", rep.Verdict, len(ex.Specs))
	}
}

func TestConfigErrorsBecomeFindings(t *testing.T) {
	dir := testRepo(t, "checks:\n  - name: c\n    hook: guard\n    expect:\n      blockd: true\n")
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: runnertest.Direct{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictFail || len(rep.Findings) == 0 || rep.Findings[0].Rule != RuleConfig ||
		rep.Findings[0].Location != (report.Location{File: ".vigiles.yml", Line: 5, Column: 7}) {
		t.Fatalf("%s %+v", rep.Verdict, rep.Findings)
	}
	// A missing policy file is an error for test.
	os.Remove(filepath.Join(dir, ".vigiles.yml"))
	if _, err := Test(context.Background(), Options{Dir: dir}); err == nil {
		t.Fatal("Test without .vigiles.yml succeeded")
	}
}

func TestRunsReallyRun(t *testing.T) {
	// The direct fake runs bash for real: stdin, env and exit status.
	cfg := `checks:
  - name: sees payload
    command: 'python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"tool_input\"][\"command\"])"; echo "$CLAUDE_PROJECT_DIR" >&2; exit 2'
    tool: Bash
    input: {command: "rm -rf /"}
    expect: {blocked: true, exit-code: 2, stdout-contains: "rm -rf /"}
  - name: timeout
    command: sleep 5
    timeout: 200ms
    expect: {outcome: error}
`
	dir := testRepo(t, cfg)
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: runnertest.Direct{}})
	if err != nil {
		t.Fatal(err)
	}
	var errs []report.Finding
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			errs = append(errs, f)
		}
	}
	if len(errs) != 0 {
		t.Fatalf("findings: %+v", errs)
	}
	if !strings.Contains(rep.Runs[0].Stderr, dir) {
		t.Errorf("CLAUDE_PROJECT_DIR not set: %q", rep.Runs[0].Stderr)
	}
	if !rep.Runs[1].TimedOut {
		t.Errorf("timeout not honoured: %+v", rep.Runs[1])
	}
}

func TestBinaryOutputIsText(t *testing.T) {
	if got := outputText(nil, "aGk=", "base64"); got != "hi" {
		t.Errorf("base64 output = %q", got)
	}
	if got := outputText([]byte("a\xffb"), "", ""); got != "a\uFFFDb" {
		t.Errorf("raw output = %q", got)
	}
	if got := outputText(nil, "plain", ""); got != "plain" {
		t.Errorf("plain output = %q", got)
	}
}

// TestPolicyWithoutChecksFails: a policy that declares no check would make
// vigiles test run nothing and pass; it is a config error at the file (at
// checks: when the key is there). Audit, which needs no check, accepts it.
func TestPolicyWithoutChecksFails(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		line, col  int
	}{
		{"empty", "", 0, 0},
		{"comment only", "# checks come later\n", 0, 0},
		{"null document", "~\n", 0, 0},
		{"defaults only", "defaults:\n  timeout: 5s\n", 0, 0},
		{"empty list", "version: 1\nchecks: []\n", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testRepo(t, tc.yaml)
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: runnertest.Direct{}})
			if err != nil {
				t.Fatal(err)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleConfig {
					got = append(got, f)
				}
			}
			if rep.Verdict != report.VerdictFail || len(got) != 1 {
				t.Fatalf("verdict %s, config findings %+v", rep.Verdict, got)
			}
			f := got[0]
			if f.Severity != report.SeverityError || f.Location != (report.Location{File: ".vigiles.yml", Line: tc.line, Column: tc.col}) ||
				!strings.Contains(f.Message, "add a check under checks:") || !strings.Contains(f.Message, "examples/README.md") {
				t.Errorf("finding %s: %s", findingLine(f), f.Message)
			}
			rep, err = Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range rep.Findings {
				if f.Rule == RuleConfig {
					t.Errorf("audit reports a policy without checks: %s", f.Message)
				}
			}
		})
	}
	// Checks that are all broken are reported as such, not as missing.
	dir := testRepo(t, "checks: [nothing]\n")
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: runnertest.Direct{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "no checks") {
			t.Errorf("a broken check reported as no checks: %s", f.Message)
		}
	}
}

// TestJSONClaudeCodeDoesNotReadPassesNothing: a json expectation is about
// the JSON Claude Code reads. JSON that fails its output schema (a
// permissionDecision without hookEventName: a non-blocking error, the call
// goes on) or that is no object (an array is text to it) says nothing to
// Claude Code, and a field in it passed: a guard's "deny" the agent never
// saw. Now the expectation fails, saying why.
func TestJSONClaudeCodeDoesNotReadPassesNothing(t *testing.T) {
	for _, tc := range []struct {
		stdout, json, says string
	}{
		{`{"hookSpecificOutput":{"permissionDecision":"deny"}}`, "{hookSpecificOutput.permissionDecision: deny}", "fails Claude Code's output schema"},
		{`[{"decision":"block"}]`, `{"0.decision": block}`, "is no JSON object"},
		{`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "{hookSpecificOutput.permissionDecision: deny}", ""},
	} {
		t.Run(tc.stdout, func(t *testing.T) {
			dir := testRepo(t, "checks:\n  - name: c\n    hook: guard\n    tool: Bash\n    expect:\n      json: "+tc.json+"\n")
			ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, Stdout: tc.stdout, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			}}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
			if err != nil {
				t.Fatal(err)
			}
			if tc.says == "" {
				if rep.Verdict != report.VerdictPass {
					t.Errorf("JSON Claude Code reads: verdict %s:\n%s", rep.Verdict, findingLines(rep.Findings))
				}
				return
			}
			if rep.Verdict != report.VerdictFail || len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleExpectPrefix+ExpJSON || !strings.Contains(rep.Findings[0].Message, tc.says) {
				t.Errorf("verdict %s, want one expect/json saying %q:\n%s", rep.Verdict, tc.says, findingLines(rep.Findings))
			}
		})
	}
}
