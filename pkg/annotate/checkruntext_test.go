package annotate

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/report"
)

// TestCheckRunTextIsCutToItsLimits: the check run's title, and each
// annotation's message and raw_details, reach GitHub cut to their limits
// (MaxCheckRunTitleChars, MaxMessageChars, MaxCheckRunAnnotationDetailsBytes)
// with the visible marker of a cut, however long what a hook made them
// of: raw_details past 64 KB is refused by GitHub, and the title is one
// readable line. Each is measured in what was sent, over real HTTP.
func TestCheckRunTextIsCutToItsLimits(t *testing.T) {
	f := report.Finding{
		Rule: "expect/stdout-contains", Severity: report.SeverityError,
		Location: report.Location{File: ".vigiles.yml", Line: 3},
		Message:  strings.Repeat("m", 3*MaxMessageChars),
		Evidence: strings.Repeat("é", MaxCheckRunAnnotationDetailsBytes), // two bytes each: twice the limit
	}
	out := postedOutput(t, CheckRun{Conclusion: "failure", Title: strings.Repeat("t", 2*MaxCheckRunTitleChars), Summary: "s", Findings: []report.Finding{f}})
	title, _ := out["title"].(string)
	if n := utf8.RuneCountInString(title); n > MaxCheckRunTitleChars || !strings.Contains(title, "(cut)") {
		t.Errorf("title of %d characters (limit %d), cut visibly: %v", n, MaxCheckRunTitleChars, strings.Contains(title, "(cut)"))
	}
	anns, _ := out["annotations"].([]any)
	if len(anns) != 1 {
		t.Fatalf("%d annotations, want 1", len(anns))
	}
	a, _ := anns[0].(map[string]any)
	msg, _ := a["message"].(string)
	if n := utf8.RuneCountInString(msg); n > MaxMessageChars || !strings.Contains(msg, "(cut)") {
		t.Errorf("message of %d characters (limit %d), cut visibly: %v", n, MaxMessageChars, strings.Contains(msg, "(cut)"))
	}
	raw, _ := a["raw_details"].(string)
	if n := len(raw); n > MaxCheckRunAnnotationDetailsBytes || !utf8.ValidString(raw) || !strings.HasSuffix(raw, "(cut)") {
		t.Errorf("raw_details of %d bytes (limit %d), valid UTF-8: %v, cut visibly: %v", n, MaxCheckRunAnnotationDetailsBytes, utf8.ValidString(raw), strings.HasSuffix(raw, "(cut)"))
	}
}

// TestCheckRunSummaryOverItsLimitIsCut: a summary handed to PostCheckRun
// longer than GitHub takes (MaxCheckRunSummaryChars bytes) is cut to it
// on a character's boundary, with no annotation note to add: GitHub
// refuses a longer one with 422.
func TestCheckRunSummaryOverItsLimitIsCut(t *testing.T) {
	summary := strings.Repeat("ab꞉", MaxCheckRunSummaryChars/4) // 5 bytes each: 81,915 bytes
	out := postedOutput(t, CheckRun{Conclusion: "success", Title: "t", Summary: summary})
	s, _ := out["summary"].(string)
	if len(s) > MaxCheckRunSummaryChars || !utf8.ValidString(s) || !strings.HasSuffix(s, "(cut)") {
		t.Errorf("summary of %d bytes (limit %d), valid UTF-8: %v, cut visibly: %v", len(s), MaxCheckRunSummaryChars, utf8.ValidString(s), strings.HasSuffix(s, "(cut)"))
	}
}

// postedOutput posts run, as check run "vigiles test" of octo/plugins on
// headSHA, through PostCheckRun to a fake GitHub over real HTTP, and
// returns the output of the one request it sent.
func postedOutput(t *testing.T, run CheckRun) map[string]any {
	t.Helper()
	fake := &fakeGitHub{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	c, err := NewClient(srv.Client(), token, srv.URL+"/api/v3")
	if err != nil {
		t.Fatal(err)
	}
	run.Owner, run.Repo, run.Name, run.HeadSHA = "octo", "plugins", "vigiles test", headSHA
	if _, err := PostCheckRun(context.Background(), c, run); err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	out, _ := reqs[0].Body["output"].(map[string]any)
	return out
}

// TestSummaryNotesStayWithinMaxBytes: Summary holds the whole summary,
// the notes after its tables too, within MaxBytes, however many notes
// there are.
func TestSummaryNotesStayWithinMaxBytes(t *testing.T) {
	var notes []string
	for range 50 {
		notes = append(notes, strings.Repeat("n", 900))
	}
	const max = 4096
	r := &report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictPass, Runs: []report.HookRun{}, Findings: []report.Finding{}}
	s := Summary(r, SummaryOptions{MaxBytes: max, Notes: notes})
	if len(s) > max || !utf8.ValidString(s) {
		t.Errorf("summary of %d bytes, MaxBytes %d (valid UTF-8: %v)", len(s), max, utf8.ValidString(s))
	}
}
