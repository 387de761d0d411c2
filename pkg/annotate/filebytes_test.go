package annotate

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// bytesFindings are findings at p\xff/x and p\xfe/x, which JSON would both
// show as p\uFFFD/x, at p\uFFFD/x itself, and at a file whose name holds
// a newline, read back from the report's JSON as vigiles merge and the
// Action read it.
func bytesFindings(t *testing.T) *report.Report {
	t.Helper()
	r := &report.Report{}
	for i, f := range []string{"p\xff/x", "p\xfe/x", "p\uFFFD/x", "hooks/a\nb.json"} {
		r.Findings = append(r.Findings, report.Finding{Rule: "r", Severity: report.SeverityError, Message: "m",
			Location: report.Location{File: f, Line: i + 1, Column: 2}})
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

// TestSARIFURIOfAFileNotUTF8: a finding at a file whose name is not UTF-8
// is placed in SARIF at that file, each byte that is not UTF-8
// percent-encoded (p%FF/x), which names the file exactly: p\xff/x and
// p\xfe/x are two uris, and neither is p\uFFFD/x's. A file with a newline
// in its name is still placed at the config, as one without a file.
func TestSARIFURIOfAFileNotUTF8(t *testing.T) {
	log := SARIF(bytesFindings(t), SARIFOptions{})
	var got []string
	for _, res := range log.Runs[0].Results {
		l := res.Locations[0].PhysicalLocation
		got = append(got, l.ArtifactLocation.URI+" "+strings.Repeat("|", l.Region.StartLine))
		if u, err := url.PathUnescape(l.ArtifactLocation.URI); err != nil || !slices.ContainsFunc(bytesFindings(t).Findings, func(f report.Finding) bool { return f.Location.File == u }) && u != ".vigiles.yml" {
			t.Errorf("the uri %q reads as %q (%v), no finding's file", l.ArtifactLocation.URI, u, err)
		}
	}
	slices.Sort(got)
	want := []string{".vigiles.yml |", "p%EF%BF%BD/x |||", "p%FE/x ||", "p%FF/x |"}
	if !slices.Equal(got, want) {
		t.Errorf("uris and lines %q, want %q", got, want)
	}
}

// TestSummaryOfAFileNotUTF8: the job summary (and the check run's) shows
// a file whose name is not UTF-8 as evidence names it, quoted in Go
// syntax, so that p\xff/x, p\xfe/x and p\uFFFD/x read as three, and links
// only the last, which is a name GitHub can hold.
func TestSummaryOfAFileNotUTF8(t *testing.T) {
	o := SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"}
	for _, c := range []struct {
		file, shown string
		linked      bool
	}{
		{"p\xff/x", `"p\xff/x":1`, false},
		{"p\xfe/x", `"p\xfe/x":1`, false},
		{"p\uFFFD/x", "\"p\uFFFD/x\":1", true},
		{"p/x", "p/x:1", true},
	} {
		got := where(o, report.Location{File: c.file, Line: 1})
		if !strings.Contains(got, md(c.shown, cellChars)) || strings.Contains(got, "/blob/") != c.linked {
			t.Errorf("where(%q) = %q; want %q shown, linked: %v", c.file, got, md(c.shown, cellChars), c.linked)
		}
	}
}

// TestAnnotationOfAFileNotUTF8: a workflow command's file is text, which
// cannot hold a name that is not UTF-8: a finding at p\xff/x, read back
// from the report's JSON, is annotated as one without a file, never at
// p\uFFFD/x, another file, which is annotated at itself.
func TestAnnotationOfAFileNotUTF8(t *testing.T) {
	var b strings.Builder
	WriteAnnotations(&b, bytesFindings(t).Findings)
	var files []string
	for _, l := range strings.Split(b.String(), "\n") {
		if _, f, ok := strings.Cut(l, "file="); ok {
			f, _, _ = strings.Cut(f, ",")
			files = append(files, f)
		}
	}
	if want := []string{"p\uFFFD/x"}; !slices.Equal(files, want) {
		t.Errorf("annotated at %q, want %q:\n%s", files, want, b.String())
	}
}
