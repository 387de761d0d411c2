package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// hangOnSleep runs a command that holds "sleep" until its context is
// cancelled, cancelling it (as a SIGTERM would) once it has started; any
// other command ends at once, allowed.
func hangOnSleep(cancel context.CancelFunc) runner.ExecutorFunc {
	return func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}
}

const slowStop = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 86400"}]}]}}`

// TestInterruptedAuditWritesItsReport: an audit (or test) interrupted by
// SIGINT or SIGTERM still writes the report in the format asked for, to
// --output: the finished runs as they ran, the one running marked
// interrupted, verdict error; it exits 125, and the progress names the
// run that was running.
func TestInterruptedAuditWritesItsReport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"plugins/b-slow/hooks/hooks.json": slowStop,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: a-fast, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: b, hook: b-slow, event: Stop, expect: {allowed: true}}\n",
	})
	for _, command := range []string{"audit", "test"} {
		for _, format := range []string{"json", "sarif", "text"} {
			t.Run(command+"/"+format, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				withExecutor(t, hangOnSleep(cancel))
				out := filepath.Join(t.TempDir(), "report."+format)
				args := []string{command, "--dir", dir, "--jobs", "1", "--format", format, "-o", out}
				if command == "audit" {
					args = append(args, "--baseline", "")
				}
				var stdout, stderr bytes.Buffer
				err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
				code := exitCode(err, &stderr, false)
				if code != 125 {
					t.Errorf("exit %d; want 125 (interrupted)\n%s", code, stderr.String())
				}
				if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "plugins/b-slow/hooks/hooks.json") {
					t.Errorf("stderr does not name the run that was running:\n%s", stderr.String())
				}
				b, rerr := os.ReadFile(out)
				if rerr != nil {
					t.Fatalf("no report written: %v", rerr)
				}
				text := string(b)
				switch format {
				case "json":
					var rep report.Report
					if err := json.Unmarshal(b, &rep); err != nil {
						t.Fatal(err)
					}
					if rep.Verdict != report.VerdictError || len(rep.Runs) != 2 {
						t.Errorf("verdict %s, %d runs; want error and both runs", rep.Verdict, len(rep.Runs))
					}
					for _, r := range rep.Runs {
						if r.Plugin == "b-slow" && (r.Outcome != report.OutcomeError || !strings.Contains(r.Reason, "interrupted")) {
							t.Errorf("the interrupted run: %s (%s)", r.Outcome, r.Reason)
						}
						if r.Plugin == "a-fast" && r.Outcome != report.OutcomeAllowed {
							t.Errorf("the finished run: %s (%s); want as it ran", r.Outcome, r.Reason)
						}
					}
				case "sarif":
					if !strings.Contains(text, runner.RuleRunInterrupted) || !strings.Contains(text, "b-slow") {
						t.Errorf("the SARIF does not hold the interruption:\n%s", text)
					}
				default:
					if !strings.Contains(text, "ERROR") || !strings.Contains(text, runner.RuleRunInterrupted) {
						t.Errorf("the text report does not say the interruption:\n%s", text)
					}
				}
			})
		}
	}
}

// TestInterruptedActionReports: the action, interrupted, still writes its
// JSON report, the SARIF, the job summary and the step outputs (verdict
// error), and exits 125.
func TestInterruptedActionReports(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "sarif": "vigiles.sarif", "check-run": "false"})
	slow := filepath.Join(s.env["GITHUB_WORKSPACE"], "plugins/slow/hooks/hooks.json")
	if err := os.MkdirAll(filepath.Dir(slow), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(slow, []byte(slowStop), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: hangOnSleep(cancel), httpClient: s.srv.Client()}
	err := runActionWith(ctx, nil, getenv, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 125 {
		t.Errorf("exit %d; want 125\n%s%s", code, s.stdout.String(), s.stderr.String())
	}
	outs := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	if outs["verdict"] != report.VerdictError || outs["report"] == "" {
		t.Errorf("outputs %v; want verdict error and the report", outs)
	}
	b, err := os.ReadFile(outs["report"])
	if err != nil || !strings.Contains(string(b), runner.RuleRunInterrupted) {
		t.Errorf("the JSON report (%v) does not hold the interruption", err)
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "interrupted") {
		t.Errorf("the job summary does not say the interruption:\n%s", sum)
	}
	if b, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "vigiles.sarif")); err != nil || !strings.Contains(string(b), runner.RuleRunInterrupted) {
		t.Errorf("the SARIF (%v) does not hold the interruption", err)
	}
	if !strings.Contains(s.stderr.String(), "plugins/slow/hooks/hooks.json") {
		t.Errorf("the log does not name the run that was running:\n%s", s.stderr.String())
	}
}

// TestAuditUnreadablePolicyExits2: vigiles audit without --config refuses
// a .vigiles.yml it cannot read, as vigiles test does: exit 2 with the
// reason.
func TestAuditUnreadablePolicyExits2(t *testing.T) {
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	if err := os.Mkdir(filepath.Join(dir, ".vigiles.yml"), 0o755); err != nil {
		t.Fatal(err)
	}
	withExecutor(t, fixedHooks())
	for _, command := range []string{"audit", "test"} {
		code, _, stderr := runCLI(t, command, "--dir", dir, "-q")
		if code != 2 || !strings.Contains(stderr, ".vigiles.yml") || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, %q; want 2 and the reason", command, code, stderr)
		}
	}
}

// TestMaxRunsFlag: --max-runs bounds the runs; over it nothing runs and
// the report says plan/too-many-runs (exit 125); it must be at least 1.
func TestMaxRunsFlag(t *testing.T) {
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}, {"type": "command", "command": "true x"}]}]}}`})
	withExecutor(t, fixedHooks())
	code, stdout, stderr := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--max-runs", "1", "-q")
	if code != 125 || !strings.Contains(stdout, runner.RuleTooManyRuns) || !strings.Contains(stdout, "--max-runs") {
		t.Errorf("over --max-runs: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runCLI(t, "audit", "--dir", dir, "--baseline", "", "--max-runs", "2", "-q"); code != 0 {
		t.Errorf("within --max-runs: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, "audit", "--dir", dir, "--max-runs", "0"); code != 2 || !strings.Contains(stderr, "--max-runs") {
		t.Errorf("--max-runs 0: exit %d %q; want 2", code, stderr)
	}
}
