package annotate

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// errorFindings are n error findings and two warnings.
func errorFindings(n int) *report.Report {
	r := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictFail}
	for i := 0; i < n; i++ {
		r.Findings = append(r.Findings, report.Finding{Rule: "baseline/host", Severity: report.SeverityError, Message: "new host",
			Location: report.Location{File: "plugins/p/hooks/hooks.json", Line: i + 1}})
	}
	for i := 0; i < 2; i++ {
		r.Findings = append(r.Findings, report.Finding{Rule: "egress-only", Severity: report.SeverityWarning, Message: "w",
			Location: report.Location{File: "plugins/p/hooks/hooks.json", Line: 100 + i}})
	}
	return r
}

func countCommands(log string) map[string]int {
	n := map[string]int{}
	for _, c := range annotatetest.Commands(log) {
		n[c.Name]++
	}
	return n
}

// TestPublishKeepsAnErrorForVigiles: GitHub shows 10 error annotations a
// step; when the step fails for an error of vigiles' own (it did not
// complete, or it could not write the summary or outputs), the findings
// get 9 of them, so that the caller's ::error saying why is the 10th and
// shown; the summary counts the finding held back, and says why.
func TestPublishKeepsAnErrorForVigiles(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		badOutput bool
		errors    int // findings' error annotations
	}{
		{"complete", nil, false, MaxAnnotationsPerLevel},
		{"did not complete", errors.New("audit interrupted: terminated"), false, MaxAnnotationsPerLevel - 1},
		{"outputs not written", nil, true, MaxAnnotationsPerLevel - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := prEnv(t, "")
			if tc.badOutput {
				env["GITHUB_OUTPUT"] = t.TempDir() // a directory: it cannot be appended to
			}
			r := errorFindings(12)
			var log bytes.Buffer
			res, err := Publish(context.Background(), r, Options{
				Log: &log, Getenv: func(k string) string { return env[k] }, FailLevel: FailError, Err: tc.err,
			})
			if tc.badOutput != (err != nil) {
				t.Fatalf("Publish error %v", err)
			}
			cmds := countCommands(log.String())
			if cmds["error"] != tc.errors || cmds["warning"] != 2 {
				t.Errorf("%d error and %d warning annotations, want %d and 2:\n%s", cmds["error"], cmds["warning"], tc.errors, log.String())
			}
			if want := 12 - tc.errors; res.Hidden.Errors != want {
				t.Errorf("hidden %+v, want %d errors", res.Hidden, want)
			}
			sum, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
			kept := strings.Contains(string(sum), "kept for vigiles' own error")
			if !strings.Contains(string(sum), "more annotations not shown in the diff** ("+strconv.Itoa(12-tc.errors)+" errors") || kept != (tc.errors < MaxAnnotationsPerLevel) {
				t.Errorf("the summary does not count the hidden errors (%d) or say why one is kept:\n%s", 12-tc.errors, sum)
			}
		})
	}
}

// TestNotesSayWhereTheFindingsAre: where a surface cannot hold every
// finding, its note sends the reader only where they are: the job
// summary's table as far as it has room, and the JSON report, which is
// the report output's file and is gone with the job unless uploaded; never
// "the job summary has every finding", nor the log for more than GitHub
// shows of it.
func TestNotesSayWhereTheFindingsAre(t *testing.T) {
	overclaims := []string{"the job summary and the JSON report have every", "the job summary and the JSON report have them"}
	check := func(t *testing.T, what, s string, want ...string) {
		t.Helper()
		for _, w := range append([]string{"report output", "until the job ends", "upload"}, want...) {
			if !strings.Contains(s, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, s)
			}
		}
		for _, o := range overclaims {
			if strings.Contains(s, o) {
				t.Errorf("%s says %q:\n%s", what, o, s)
			}
		}
	}
	t.Run("check run annotations cut", func(t *testing.T) {
		fake := &fakeGitHub{}
		publishTo(t, fake, manyFindings(MaxCheckRunAnnotations+130))
		reqs := fake.Requests()
		s := reqs[len(reqs)-1].Body["output"].(map[string]any)["summary"].(string)
		check(t, "the check run's summary", s[strings.Index(s, "**130 more annotations not posted**"):], "as many findings as it has room for")
	})
	t.Run("check run update refused", func(t *testing.T) {
		fake := &fakeGitHub{failPatch: 1, failStatus: 403, message: "secondary rate limit"}
		publishTo(t, fake, manyFindings(60))
		reqs := fake.Requests()
		s := reqs[len(reqs)-1].Body["output"].(map[string]any)["summary"].(string)
		check(t, "the completed check run's summary", s[strings.Index(s, "**Not every annotation"):], "at most 10 per level", "as many findings as it has room for")
	})
	t.Run("summary table cut", func(t *testing.T) {
		s := Summary(manyFindings(3000), SummaryOptions{MaxBytes: MaxCheckRunSummaryChars, Hidden: Hidden{Errors: 990}})
		i := strings.Index(s, "more findings not shown**")
		check(t, "the summary's not-shown line", s[i:], "the findings table above could not hold them all")
	})
}

// TestPublishKeepsToTheJobsAnnotations: GitHub shows at most 50
// workflow-command annotations in a job, over all its steps, and drops
// the rest without a word. Two vigiles steps of one job (test, then
// audit, as github-action.md's workflow has them) that both fall back to
// annotations could make 60: the second keeps to what the first left
// (their count is kept in RUNNER_TEMP, which is the job's), still keeps
// one error for its own, and its summary counts what it held back and
// says why. A notice the step made before Publish (Options.Made) counts
// against its level's 10 too.
func TestPublishKeepsToTheJobsAnnotations(t *testing.T) {
	temp := t.TempDir()
	step := func(t *testing.T, err error, made Made) (map[string]int, Result, string) {
		t.Helper()
		env := prEnv(t, "")
		env["RUNNER_TEMP"] = temp
		var log bytes.Buffer
		r := manyFindings(45) // 15 of each level
		res, perr := Publish(context.Background(), r, Options{
			Log: &log, Getenv: func(k string) string { return env[k] }, FailLevel: FailError, Err: err, Made: made,
		})
		if perr != nil {
			t.Fatal(perr)
		}
		sum, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
		return countCommands(log.String()), res, string(sum)
	}
	first, _, _ := step(t, nil, Made{Notices: 1})
	if first["error"] != 10 || first["warning"] != 10 || first["notice"] != 9 {
		t.Errorf("first step: %v, want 10 errors, 10 warnings and 9 notices (one notice made before)", first)
	}
	// 30 made by the first step; the second, which fails for an error of
	// its own, has 20 left and keeps one of them for that error.
	second, res, sum := step(t, errors.New("audit interrupted: terminated"), Made{})
	total := second["error"] + second["warning"] + second["notice"]
	if total != MaxAnnotationsPerJob-30-1 || second["error"] != MaxAnnotationsPerLevel-1 {
		t.Errorf("second step: %v (%d), want %d annotations, 9 of them errors", second, total, MaxAnnotationsPerJob-30-1)
	}
	if res.Hidden.Total() != 45-total {
		t.Errorf("hidden %+v, want %d", res.Hidden, 45-total)
	}
	if !strings.Contains(sum, "at most 50 per job") {
		t.Errorf("the summary does not say the job's limit:\n%s", sum)
	}
	third, _, _ := step(t, nil, Made{})
	if n := third["error"] + third["warning"] + third["notice"]; n != 0 {
		t.Errorf("third step made %d annotations after the job's 50", n)
	}
}

// TestVerdictLineSaysTheFailLevelsFail: a report that passes but has a
// warning fails the step at fail-level warning, and its summary's header
// says fail, not pass.
func TestVerdictLineSaysTheFailLevelsFail(t *testing.T) {
	r := &report.Report{Command: "test", Verdict: report.VerdictPass, Findings: []report.Finding{{Rule: "x", Severity: report.SeverityWarning, Message: "m"}}}
	for l, want := range map[FailLevel]string{
		FailWarning: "## ❌ vigiles test: fail — 1 finding",
		FailNotice:  "## ❌ vigiles test: fail — 1 finding",
		FailError:   "## ✅ vigiles test: pass — 1 finding",
	} {
		if got := verdictLine(r, SummaryOptions{FailLevel: l}); !strings.HasPrefix(got, want) {
			t.Errorf("fail-level %s: %q, want it to start %q", l, got, want)
		}
	}
}
