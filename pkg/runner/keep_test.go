package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunsKeepNoMoreThanTheirReportNeeds: a run is kept to the end of an
// audit or test, and one that no check reads keeps of its result only
// what the report and its findings use, not the whole output (bytes and
// base64) nor that output parsed as JSON; a check's run keeps both, for
// its expectations (TestOutputExpectationsReadAllTheOutput), but its
// record only in its report entry.
func TestRunsKeepNoMoreThanTheirReportNeeds(t *testing.T) {
	// A JSON object of 64 KiB: what Decide parses, as a hook's answer.
	stdout := `{"systemMessage": "` + strings.Repeat("a", 64<<10) + `"}`
	stderr := strings.Repeat("b", 64<<10)
	s := &runSettings{jobs: 2, exec: ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, Stderr: stderr, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if strings.Contains(strings.Join(spec.Command, " "), "failed") {
			res.Error = "record failed"
		}
		return res, nil
	})}
	plan := []*plannedRun{
		{ID: "audited", Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: "c", Event: "Stop"}},
		{ID: "checked", Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: "c", Event: "Stop"}, Check: &Check{Name: "c", Expect: []*Expectation{{Kind: ExpStdoutContains, Str: "a"}}}},
		{ID: "failed", Hook: &Hook{Type: TypeCommand, Command: "failed", Expanded: "failed", Event: "Stop"}},
		{ID: "exit", Hook: &Hook{Type: TypeCommand, Command: "c", Expanded: "c", Event: "Stop"}, Check: &Check{Name: "e", Expect: []*Expectation{{Kind: ExpExitCode}, {Kind: ExpNoWrite}}}},
	}
	out := s.execute(context.Background(), plan)
	audited, checked, failed, exit := out[0], out[1], out[2], out[3]
	if audited.result == nil || audited.result.Stdout != "" || audited.result.Stderr != "" || audited.result.StdoutBytes() != nil {
		t.Errorf("a run no check reads kept its whole output: %d and %d bytes", len(audited.result.Stdout), len(audited.result.Stderr))
	}
	if audited.decision.Output != nil {
		t.Error("a run no check reads kept its output parsed as JSON")
	}
	// A check none of whose expectations reads the output (exit-code,
	// no-write) keeps it no more than an audit's run does: a test of many
	// checks of a hook that prints up to the cap held it for each.
	if exit.result == nil || exit.result.Stdout != "" || exit.result.Stderr != "" || exit.decision.Output != nil || exit.run.Writes == nil {
		t.Errorf("a check that reads no output kept it (%d and %d bytes), or its record left its report entry", len(exit.result.Stdout), len(exit.result.Stderr))
	}
	if failed.failure() != "record failed" {
		t.Errorf("failure %q, want the result's error", failed.failure())
	}
	if len(audited.run.Stdout) > reportOutputCap+100 || len(audited.run.Stderr) > reportOutputCap+100 || audited.run.Stdout[:10] != stdout[:10] {
		t.Errorf("the report's output is not its 8 KiB: %d and %d bytes", len(audited.run.Stdout), len(audited.run.Stderr))
	}
	if checked.result == nil || checked.result.Stdout != stdout || checked.result.Stderr != stderr || checked.decision.Output == nil {
		t.Error("a check's run did not keep its whole output and its JSON for its expectations")
	}
	// The record is the report entry's: a second copy in the result
	// would outlive maxKeptEvidence leaving it out.
	if checked.result != nil && (checked.result.Writes != nil || checked.result.Egress != nil) || checked.run.Writes == nil || checked.run.Egress == nil {
		t.Error("a check's run kept its record in its result, or not in its report entry")
	}
}

// TestKeptEvidenceIsBounded: the writes and network attempts that an
// audit's runs keep for its report are bounded together
// (maxKeptEvidence, lowered here): a run whose record would pass the
// bound keeps none of it and fails, so the audit's verdict is error and
// never a pass on evidence left out; the runs within it keep theirs.
func TestKeptEvidenceIsBounded(t *testing.T) {
	defer func(n int) { maxKeptEvidence = n }(maxKeptEvidence)
	const perRun = 100
	name := strings.Repeat("n", 200)
	var one int // what one run's record costs
	for i := 0; i < perRun; i++ {
		one += keptWriteSize + len(fmt.Sprintf("%s-%d", name, i)) + keptEgressSize + len(fmt.Sprintf("h%d.example.test", i))
	}
	maxKeptEvidence = 2*one + one/2 // two runs' records fit, not three
	dir := makeTree(t, map[string]string{
		"plugins/many/.claude-plugin/plugin.json": `{"name": "many"}`,
		"plugins/many/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}, {"type": "command", "command": "c"}]}]}}`,
	})
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		for i := 0; i < perRun; i++ {
			res.Writes = append(res.Writes, evidence.Write{Path: fmt.Sprintf("%s-%d", name, i), Op: evidence.OpCreate, Kind: "file"})
			res.Egress = append(res.Egress, evidence.Egress{Host: fmt.Sprintf("h%d.example.test", i), Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1})
		}
		return res, nil
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(rep.Runs))
	}
	// Runs end in any order (each lane has a worker for the record
	// beside the one for the command): the one whose record comes past
	// the bound is the one that keeps none.
	var last report.HookRun
	lost := 0
	for _, r := range rep.Runs {
		switch {
		case r.Writes == nil && r.Egress == nil && r.Outcome == report.OutcomeError:
			lost++
			last = r
		case len(r.Writes) != perRun || len(r.Egress) != perRun || r.Outcome != report.OutcomeAllowed:
			t.Errorf("%s: %d writes, %d destinations, outcome %s; want its record whole, or none of it", r.ID, len(r.Writes), len(r.Egress), r.Outcome)
		}
	}
	if lost != 1 {
		t.Fatalf("%d runs kept no record; want the one past the bound", lost)
	}
	if rep.Verdict != report.VerdictError {
		t.Errorf("verdict %s, want error", rep.Verdict)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == RuleRunFailed && f.Hook == last.ID && f.Severity == report.SeverityError && strings.Contains(f.Message, "was not kept") {
			found = true
		}
	}
	if !found {
		t.Errorf("no %s error says the run's record was not kept: %+v", RuleRunFailed, rep.Findings)
	}
}

// TestKeptDecidesAreBounded: what a hook's output tells the agent to do
// (decides) holds its updatedInput whole, up to the output cap, and
// counts against maxKeptEvidence as writes do.
func TestKeptDecidesAreBounded(t *testing.T) {
	defer func(n int) { maxKeptEvidence = n }(maxKeptEvidence)
	stdout := `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "` + strings.Repeat("x", 10000) + `"}}}`
	maxKeptEvidence = 25000 // two runs' decides fit, not three
	dir := makeTree(t, map[string]string{
		"plugins/many/.claude-plugin/plugin.json": `{"name": "many"}`,
		"plugins/many/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}, {"type": "command", "command": "c"}]}]}}`,
	})
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(rep.Runs))
	}
	lost := 0
	for _, r := range rep.Runs {
		switch {
		case r.Decides == "" && r.Writes == nil && r.Outcome == report.OutcomeError:
			lost++
		case !strings.Contains(r.Decides, "updatedInput") || r.Outcome != report.OutcomeAllowed:
			t.Errorf("%s: decides %d bytes, outcome %s; want its decides whole, or none of its record", r.ID, len(r.Decides), r.Outcome)
		}
	}
	if lost != 1 {
		t.Errorf("%d runs kept no record; want the one past the bound", lost)
	}
	if rep.Verdict != report.VerdictError {
		t.Errorf("verdict %s, want error", rep.Verdict)
	}
}

// TestKeptEnvFileIsBounded: an env file's content counts against
// maxKeptEvidence, and the run whose record comes past the bound keeps
// none of it: its env file's content is null (not recorded), its path
// kept, where the content it had would read as recorded while its writes
// and egress were not.
func TestKeptEnvFileIsBounded(t *testing.T) {
	defer func(n int) { maxKeptEvidence = n }(maxKeptEvidence)
	content := "export A=" + strings.Repeat("x", 10000) + "\n"
	maxKeptEvidence = 25000 // two runs' env files fit, not three
	dir := makeTree(t, map[string]string{
		"plugins/many/.claude-plugin/plugin.json": `{"name": "many"}`,
		"plugins/many/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "b"}, {"type": "command", "command": "c"}]}]}}`,
	})
	const path = "~/.claude/session-env/s/sessionstart-hook-0.sh"
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		c := content
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{},
			EnvFile: &evidence.EnvFile{Path: path, Kind: "file", Size: int64(len(c)), Content: &c}}, nil
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(rep.Runs))
	}
	lost := 0
	for _, r := range rep.Runs {
		ef := r.EnvFile
		switch {
		case ef == nil:
			t.Errorf("%s: no env file", r.ID)
		case r.Writes == nil && r.Outcome == report.OutcomeError:
			lost++
			if ef.Content != nil || ef.Path != path || ef.Size != 0 || ef.Kind != "" {
				t.Errorf("%s kept no record, but its env file is %+v; want its path alone, content not recorded", r.ID, *ef)
			}
		case ef.Content == nil || *ef.Content != content || r.Outcome != report.OutcomeAllowed:
			t.Errorf("%s: env file %+v, outcome %s; want its content whole, or none of its record", r.ID, *ef, r.Outcome)
		}
	}
	if lost != 1 {
		t.Errorf("%d runs kept no record; want the one past the bound", lost)
	}
	if rep.Verdict != report.VerdictError {
		t.Errorf("verdict %s, want error", rep.Verdict)
	}
}
