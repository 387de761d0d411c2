package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAsyncResponseThenTimeoutIsBackgrounded: a hook whose first line is
// an async response ({"async": true}) and that then outlives its timeout
// was an error, "the agent cancels the hook". Claude Code backgrounds it
// as that line comes, which clears its timeout, and no asyncTimeout ends
// it after (not even one of another type than a number, which its first
// line's check does not read): the call went on, allowed, and the hook
// ran on. vigiles ends it at its timeout all the same: the run says so,
// is still timed out, and its run/timeout warning says what came after
// is not recorded. A hook that prints no async response and outlives its
// timeout stays an error. The timeout is 5 s, not 1: the deadline runs
// from the command's start, and a starved machine (0.2 core) had not
// printed the first line in 1 s, which made the run one that printed
// nothing and was cancelled.
func TestAsyncResponseThenTimeoutIsBackgrounded(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	hook := func(first string) string {
		return `{"type": "command", "timeout": 5, "command": "echo '` + first + `'; echo 'rm is not allowed' >&2; sleep 30; exit 2"}`
	}
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [` + hook(`{\"async\": true}`) + `]},
  {"matcher": "Write", "hooks": [` + hook(`{\"async\": true, \"asyncTimeout\": \"soon\"}`) + `]},
  {"matcher": "Read", "hooks": [` + hook(`{\"continue\": true}`) + `]}
]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	warned := map[string]string{}
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleRunTimeout:
			warned[f.Hook] = f.Message
		case RuleRunFailed:
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	seen := map[string]bool{}
	for _, r := range rep.Runs {
		seen[r.Tool] = true
		if r.Tier != "confined" {
			t.Fatalf("run %s: tier %q, want confined", r.ID, r.Tier)
		}
		if !r.TimedOut {
			t.Errorf("run %s: not timed out; the hook sleeps past its timeout", r.ID)
		}
		if warned[r.ID] == "" {
			t.Errorf("run %s: no %s warning", r.ID, RuleRunTimeout)
		}
		switch r.Tool {
		case "Bash", "Write":
			if r.Outcome != report.OutcomeAllowed {
				t.Errorf("run %s: outcome %s, want allowed: %s", r.ID, r.Outcome, r.Reason)
			}
			for _, want := range []string{"async response", "vigiles ended it after", "would have let it run on", "not in the record"} {
				if !strings.Contains(r.Reason, want) {
					t.Errorf("run %s: reason %q, want it to say %q", r.ID, r.Reason, want)
				}
			}
			if strings.Contains(r.Reason, "cancels the hook") {
				t.Errorf("run %s: reason %q says Claude Code cancels a hook it backgrounded", r.ID, r.Reason)
			}
		case "Read":
			if r.Outcome != report.OutcomeError || !strings.Contains(r.Reason, "the agent cancels the hook") {
				t.Errorf("run %s: %s (%s), want error, the agent cancelling the hook", r.ID, r.Outcome, r.Reason)
			}
		}
	}
	for _, tool := range []string{"Bash", "Write", "Read"} {
		if !seen[tool] {
			t.Errorf("no run for %s: %v", tool, findingLines(rep.Findings))
		}
	}
}

// TestAsyncHookOutlivingItsTimeoutRunsOn: Claude Code does not enforce
// the timeout of an async command hook (the settings reference's "timeout"
// field; execCommandHook backgrounds it, which clears its timeout), so
// one that outlives it was not cancelled, as vigiles said (an error,
// "the agent cancels the hook"): it is allowed, still timed out, the
// reason saying that vigiles ended it and what came after is not
// recorded. An asyncRewake hook keeps its timeout in Claude Code, and its
// run stays an error.
func TestAsyncHookOutlivingItsTimeoutRunsOn(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "async": true, "timeout": 1, "command": "sleep 5"}]},
  {"matcher": "Write", "hooks": [{"type": "command", "asyncRewake": true, "timeout": 1, "command": "sleep 5"}]}
]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rep.Runs {
		seen[r.Tool] = true
		if r.Tier != "confined" || !r.TimedOut {
			t.Fatalf("run %s: tier %q, timed out %v; want confined, timed out", r.ID, r.Tier, r.TimedOut)
		}
		switch r.Tool {
		case "Bash":
			if r.Outcome != report.OutcomeAllowed || !strings.Contains(r.Reason, "Claude Code does not enforce an async hook's timeout") || !strings.Contains(r.Reason, "not in the record") {
				t.Errorf("async run %s: %s (%s), want allowed, its timeout not Claude Code's to enforce", r.ID, r.Outcome, r.Reason)
			}
		case "Write":
			if r.Outcome != report.OutcomeError || !strings.Contains(r.Reason, "the agent cancels the hook") {
				t.Errorf("asyncRewake run %s: %s (%s), want error, cancelled", r.ID, r.Outcome, r.Reason)
			}
		}
	}
	if !seen["Bash"] || !seen["Write"] {
		t.Errorf("runs for %v, want Bash and Write: %v", seen, findingLines(rep.Findings))
	}
}

// TestBackgroundedHookCutShortPassesNothing: an async hook (the handler's
// async, or an async response on its first line) that vigiles ended at
// its timeout would have run on in Claude Code, which times no hook it
// has backgrounded: what it did after (here a write) is not in the
// record, so no-write cannot pass on the record's nothing: it fails as
// not recorded. The hook whose first line is async has 5 s, not 1, to
// print it before its deadline, as in
// TestAsyncResponseThenTimeoutIsBackgrounded.
func TestBackgroundedHookCutShortPassesNothing(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {
  "SubagentStop": [{"hooks": [{"type": "command", "async": true, "timeout": 1, "command": "sleep 3; touch late"}]}],
  "Stop": [{"hooks": [{"type": "command", "timeout": 5, "command": "echo '{\"async\": true}'; exec sleep 30"}]}]
}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: handler async, hook: p, event: SubagentStop, expect: {no-write: true}}\n" +
			"  - {name: async response, hook: p, event: Stop, expect: {no-write: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict == report.VerdictPass {
		t.Errorf("verdict pass on records cut short: %v", findingLines(rep.Findings))
	}
	cut := map[string]int{}
	for _, f := range rep.Findings {
		if f.Rule == RuleNotRecorded && strings.Contains(f.Message, "times no hook it has backgrounded") {
			cut[f.Hook]++
		}
	}
	if len(cut) != 2 {
		t.Errorf("%d runs had expectations failed as cut short, want 2: %v", len(cut), findingLines(rep.Findings))
	}
	for run, n := range cut {
		if n != 1 {
			t.Errorf("run %s: %d expectations failed as cut short, want 1: %v", run, n, findingLines(rep.Findings))
		}
	}
}
