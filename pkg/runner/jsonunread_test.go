package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestJSONOfAnAsyncHookDecidesNothing: Claude Code does not wait for an
// async hook, so a decision in its JSON output (a permissionDecision deny,
// a decision block) acts on no call; only what it says to Claude
// (systemMessage, additionalContext) reaches Claude, on its next turn. A
// json expectation of such a decision passed on an async guard whose deny
// the agent never waited for; now it fails, saying why, and one of what
// reaches Claude still passes.
func TestJSONOfAnAsyncHookDecidesNothing(t *testing.T) {
	for _, async := range []bool{true, false} {
		handler := `{"type": "command", "command": "guard"`
		if async {
			handler += `, "async": true`
		}
		dir := makeTree(t, map[string]string{
			"plugins/g/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + handler + `}]}]}}`,
			".vigiles.yml": "version: 1\nplugins: {untrusted: [\"plugins/*\"]}\nchecks:\n" +
				"  - {name: c, hook: g, tool: Bash, expect: {json: {hookSpecificOutput.permissionDecision: deny, systemMessage: careful, hookSpecificOutput.additionalContext: ctx}}}\n",
		})
		ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{},
				Stdout: `{"systemMessage":"careful","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","additionalContext":"ctx"}}`}, nil
		}}
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
		if err != nil {
			t.Fatal(err)
		}
		if !async {
			if rep.Verdict != report.VerdictPass {
				t.Errorf("a hook Claude Code waits for: verdict %s:\n%s", rep.Verdict, findingLines(rep.Findings))
			}
			continue
		}
		var json []string
		for _, f := range rep.Findings {
			if f.Rule == RuleExpectPrefix+ExpJSON {
				json = append(json, f.Message)
			}
		}
		if rep.Verdict != report.VerdictFail || len(json) != 1 || !strings.Contains(json[0], "hookSpecificOutput.permissionDecision") || !strings.Contains(json[0], "async") {
			t.Errorf("async: verdict %s, want one expect/json of the permissionDecision alone, saying the hook is async:\n%s", rep.Verdict, findingLines(rep.Findings))
		}
	}
}

// TestJSONClaudeCodeSkipsOnExit2PassesNothing: on exit 2 an Elicitation
// or ElicitationResult hook declines, and Claude Code reads none of its
// JSON output: an "action": "accept" there answers nothing, and a json
// expectation of it passed. The decision now says it is unread, as for
// JSON that fails the schema.
func TestJSONClaudeCodeSkipsOnExit2PassesNothing(t *testing.T) {
	for _, ev := range []string{Elicitation, ElicitationResult} {
		res := confinedWith(`{"hookSpecificOutput":{"hookEventName":"` + ev + `","action":"accept"}}`)
		res.ExitCode, res.Stderr = 2, "no"
		d := Decide(ev, res, nil)
		if d.Outcome != report.OutcomeBlocked || !strings.Contains(d.Unread, "reads none") {
			t.Errorf("%s exit 2 with JSON: outcome %s, unread %q; want blocked and the JSON unread", ev, d.Outcome, d.Unread)
		}
		res.ExitCode = 0
		if d := Decide(ev, res, nil); d.Unread != "" {
			t.Errorf("%s exit 0: unread %q, want the JSON read", ev, d.Unread)
		}
	}
}
