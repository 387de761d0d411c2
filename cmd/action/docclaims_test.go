package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestDocClaimFailLevelDecidesTheStepNotTheVerdict shows what
// docs/github-action.md says of fail-level and the outputs: the step fails
// (exit 1) when a finding is at or above fail-level, and the verdict
// output is the report's own verdict whatever fail-level says, so that a
// step failed at fail-level warning by warnings alone reads pass, and
// failed counts the findings at or above fail-level. A repository whose
// plugin starts an MCP server (a discovery/mcp-server warning, no error)
// is audited at each level: warning and notice fail the step, error and
// none do not, and every step says verdict pass.
func TestDocClaimFailLevelDecidesTheStepNotTheVerdict(t *testing.T) {
	mcp := map[string]string{"plugins/guard/.mcp.json": `{"db": {"command": "db-server"}}`}
	rank := map[report.Severity]int{report.SeverityNotice: 1, report.SeverityWarning: 2, report.SeverityError: 3}
	for _, tc := range []struct {
		level string
		floor int // the least rank that fails; 0: none does
		code  int
	}{{"notice", 1, 1}, {"warning", 2, 1}, {"error", 3, 0}, {"none", 0, 0}} {
		t.Run(tc.level, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "fail-level": tc.level})
			s.runIdleHooks(t, mcp)
			if s.exitCode != tc.code {
				t.Fatalf("fail-level %s: exit %d, want %d\n%s%s", tc.level, s.exitCode, tc.code, s.stdout.String(), s.stderr.String())
			}
			out := outputs(t, s.file(t, "GITHUB_OUTPUT"))
			if out["verdict"] != "pass" {
				t.Errorf("fail-level %s: verdict output %q, want the report's own, pass", tc.level, out["verdict"])
			}
			rep := reportOut(t, out)
			warnings, failed := 0, 0
			for _, f := range rep.Findings {
				if f.Severity == report.SeverityError {
					t.Fatalf("an error finding, so the test shows nothing of warnings alone: %+v", f)
				}
				if f.Severity == report.SeverityWarning {
					warnings++
				}
				if tc.floor > 0 && rank[f.Severity] >= tc.floor {
					failed++
				}
			}
			if warnings == 0 {
				t.Fatalf("no warning in the report: %+v", rep.Findings)
			}
			if out["failed"] != strconv.Itoa(failed) || out["findings"] != strconv.Itoa(len(rep.Findings)) {
				t.Errorf("fail-level %s: outputs failed %q findings %q, want %d and %d", tc.level, out["failed"], out["findings"], failed, len(rep.Findings))
			}
		})
	}
}

// TestDocClaimActionRefusedRunFailsAsAnyErrorFinding shows
// docs/github-action.md's "A hook that could not be run confined is not a
// failure of vigiles but an error finding (verdict error): it fails the
// step with exit 1 like any error finding, and not at all with fail-level:
// none", where `vigiles test` and `audit` exit 125 for it
// (TestRefusedRunExitsAsItsHelpSays) and `update-baseline` does too
// (TestActionUpdateBaselineOfARefusedRun): at each level the run/refused
// finding is in the log and the verdict output is error, and the step's
// status is what fail-level makes of an error finding.
func TestDocClaimActionRefusedRunFailsAsAnyErrorFinding(t *testing.T) {
	refused := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}, nil
	}}
	for _, tc := range []struct {
		level string
		code  int
	}{{"error", 1}, {"warning", 1}, {"none", 0}} {
		t.Run(tc.level, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "fail-level": tc.level})
			getenv := func(k string) string { return s.env[k] }
			deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: refused, httpClient: s.srv.Client()}
			s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
			if s.exitCode != tc.code {
				t.Errorf("fail-level %s: exit %d, want %d\n%s%s", tc.level, s.exitCode, tc.code, s.stdout.String(), s.stderr.String())
			}
			if !strings.Contains(s.stdout.String(), runner.RuleRunRefused) {
				t.Errorf("fail-level %s: no %s finding in the log:\n%s", tc.level, runner.RuleRunRefused, s.stdout.String())
			}
			if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); out["verdict"] != "error" {
				t.Errorf("fail-level %s: verdict output %q, want error", tc.level, out["verdict"])
			}
		})
	}
}
