package main

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// TestActionHugeReportKeepsGitHubLimits: a step whose report is far more
// than GitHub takes (1200 findings, each with a long title and a message
// of several KiB) reports it within each limit of GitHub's, through the
// fake API on loopback: every check-run request has at most 50
// annotations and a summary and text of at most 65535 characters, the
// check run at most 1000 annotations in all, the job summary is under
// 1 MiB and says what it leaves out; with a token GitHub refuses (a
// fork's), the workflow commands keep to 10 per level.
func TestActionHugeReportKeepsGitHubLimits(t *testing.T) {
	huge := func() *report.Report {
		rep := cannedReport("test", 600, 400, 200)
		for i := range rep.Findings {
			f := &rep.Findings[i]
			f.Title = strings.Repeat("t", 300) + fmt.Sprint(i)
			f.Message = fmt.Sprintf("finding %d: %s", i, strings.Repeat("long message ", 300))
			f.Evidence = strings.Repeat("evidence line\n", 100)
		}
		return rep
	}
	t.Run("check run", func(t *testing.T) {
		s := newStep(t, map[string]string{"command": "test", "github-token": testToken})
		s.runCanned(t, huge(), nil)
		if s.exitCode != 1 {
			t.Fatalf("exit %d, want 1\n%s", s.exitCode, s.stderr.String())
		}
		total := 0
		for _, r := range s.api.Requests() {
			if r.Method != http.MethodPost && r.Method != http.MethodPatch {
				continue
			}
			out, _ := r.Body["output"].(map[string]any)
			if out == nil {
				continue
			}
			title, _ := out["title"].(string)
			summary, _ := out["summary"].(string)
			text, _ := out["text"].(string)
			anns, _ := out["annotations"].([]any)
			total += len(anns)
			if n := utf8.RuneCountInString(summary); n > annotate.MaxCheckRunSummaryChars {
				t.Errorf("%s %s: summary of %d characters", r.Method, r.Path, n)
			}
			if n := utf8.RuneCountInString(text); n > annotate.MaxCheckRunSummaryChars {
				t.Errorf("%s %s: text of %d characters", r.Method, r.Path, n)
			}
			if n := utf8.RuneCountInString(title); n > annotate.MaxCheckRunTitleChars {
				t.Errorf("%s %s: title of %d characters", r.Method, r.Path, n)
			}
			if len(anns) > annotate.MaxCheckRunAnnotationsPerRequest {
				t.Errorf("%s %s: %d annotations in one request", r.Method, r.Path, len(anns))
			}
		}
		if total == 0 || total > annotate.MaxCheckRunAnnotations {
			t.Errorf("%d annotations in the check run, want 1 to %d", total, annotate.MaxCheckRunAnnotations)
		}
		sum := s.file(t, "GITHUB_STEP_SUMMARY")
		if len(sum) > annotate.MaxStepSummaryBytes {
			t.Errorf("job summary of %d bytes", len(sum))
		}
		if !strings.Contains(sum, "more findings not shown") {
			t.Errorf("the job summary (%d bytes) does not say what it leaves out:\n%s", len(sum), lastLines(sum, 8))
		}
	})
	t.Run("fork token", func(t *testing.T) {
		s := newStep(t, map[string]string{"command": "test", "github-token": testToken})
		s.api.Status = http.StatusForbidden
		s.runCanned(t, huge(), nil)
		if s.exitCode != 1 {
			t.Fatalf("exit %d, want 1\n%s", s.exitCode, s.stderr.String())
		}
		per := map[string]int{}
		for _, c := range annotatetest.Commands(s.stdout.String()) {
			per[c.Name]++
		}
		for _, level := range []string{"error", "warning", "notice"} {
			if per[level] == 0 || per[level] > annotate.MaxAnnotationsPerLevel {
				t.Errorf("%d ::%s commands, want 1 to %d", per[level], level, annotate.MaxAnnotationsPerLevel)
			}
		}
		if sum := s.file(t, "GITHUB_STEP_SUMMARY"); len(sum) > annotate.MaxStepSummaryBytes {
			t.Errorf("job summary of %d bytes", len(sum))
		}
	})
}
