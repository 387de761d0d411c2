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

// TestTaskCompletedContinueFalseStopsATeammate: a TaskCompleted hook's
// {"continue": false} is ignored where the TaskUpdate tool triggered the
// event (vigiles' payload, no teammate_name), and stops the teammate
// where a teammate's unfinished task did: a check whose payload names a
// teammate. It was ignored (allowed, "no teammate_name") for both.
func TestTaskCompletedContinueFalseStopsATeammate(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": "gate"}]}]}}`,
		".vigiles.yml": "checks:\n" +
			"  - {name: by TaskUpdate, hook: project, event: TaskCompleted, expect: {outcome: allowed}}\n" +
			"  - {name: by a teammate, hook: project, event: TaskCompleted, payload: {teammate_name: researcher, team_name: t}, expect: {outcome: blocked}}\n",
	})
	ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5,
			Stdout: `{"continue": false, "stopReason": "tests failing"}`}, nil
	}}
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	if len(rep.Runs) != 2 {
		t.Fatalf("%d runs, want 2", len(rep.Runs))
	}
}

// TestTeammateTaskCompletedKeepsItsEvent: a check whose payload names a
// teammate is decided by TaskCompleted's own rules but continue: false:
// Claude Code ignores onFailure on TaskCompleted hooks there too, and a
// hookSpecificOutput naming TaskCompleted is its own event's. (A made-up
// event name for the teammate's case read onFailure block as a block,
// and failed that output's schema.)
func TestTeammateTaskCompletedKeepsItsEvent(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": "gate", "onFailure": "block"}]}]}}`,
		".vigiles.yml": "checks:\n" +
			"  - {name: a teammate's, hook: project, event: TaskCompleted, payload: {teammate_name: researcher}, expect: {outcome: allowed}}\n",
	})
	for _, out := range []struct {
		stdout string
		exit   int
	}{{"", 1}, {`{"hookSpecificOutput": {"hookEventName": "TaskCompleted"}}`, 0}} {
		ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5,
				Stdout: out.stdout, ExitCode: out.exit}, nil
		}}
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Severity == report.SeverityError {
				t.Errorf("exit %d, stdout %q: %s: %s", out.exit, out.stdout, f.Rule, f.Message)
			}
		}
	}
}

// TestTeammateNameIsAString: a check's payload teammate_name that is no
// name (a number, a list, empty) is refused: Claude Code sends a string,
// and any other value was read as no teammate, silently.
func TestTeammateNameIsAString(t *testing.T) {
	for _, v := range []string{"42", "[x]", `""`, "null", "true"} {
		dir := makeTree(t, map[string]string{
			".claude/settings.json": `{"hooks": {"TaskCompleted": [{"hooks": [{"type": "command", "command": "gate"}]}]}}`,
			".vigiles.yml":          "checks:\n  - {name: c, hook: project, event: TaskCompleted, payload: {teammate_name: " + v + "}, expect: {outcome: blocked}}\n",
		})
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if msgs := messagesOf(rep.Findings, RuleConfig); len(msgs) != 1 || !strings.Contains(msgs[0], "payload teammate_name: want a teammate's name") {
			t.Errorf("teammate_name %s: config findings %q", v, msgs)
		}
	}
}
