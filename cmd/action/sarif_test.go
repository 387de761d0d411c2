package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/report"
)

func TestRenderSARIFWired(t *testing.T) {
	if renderSARIF == nil {
		t.Fatal("renderSARIF is not set")
	}
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Findings: []report.Finding{
		{Rule: "expect/blocked", Severity: report.SeverityError, Message: "m", Location: report.Location{File: ".vigiles.yml", Line: 4}},
	}}
	var b bytes.Buffer
	if _, err := renderSARIF(r, &b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2.1.0" || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 1 || doc.Runs[0].Results[0].RuleID != "expect/blocked" {
		t.Errorf("sarif = %s", b.String())
	}
}

// The action's SARIF file places findings without a file where the check
// run and the annotations place them: at the config under
// working-directory.
func TestActionSARIFFileAnchorsOnTheConfig(t *testing.T) {
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Findings: []report.Finding{
		{Rule: "run/failed", Severity: report.SeverityError, Message: "no location"},
	}}
	ws := t.TempDir()
	p := filepath.Join(ws, "v.sarif")
	if _, err := writeSARIFFile(ws, "v.sarif", r, "sub/dir/.vigiles.yml"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"uri": "sub/dir/.vigiles.yml"`)) {
		t.Errorf("the finding is not placed at the config:\n%s", b)
	}
}

// TestCLISARIFLeftOutIsSaid: `vigiles test|audit|merge --format sarif`
// says on stderr, in the action's words, how many findings the SARIF
// leaves out and where every finding is; code scanning never says it,
// and the CLI said nothing. Written to -o or to stdout; nothing is said
// of a SARIF that holds them all.
func TestCLISARIFLeftOutIsSaid(t *testing.T) {
	dir := t.TempDir()
	many := filepath.Join(dir, "many.json")
	few := filepath.Join(dir, "few.json")
	for p, rep := range map[string]*report.Report{
		many: cannedReport("test", 10, 10, annotate.SARIFMaxResultsPerRun-20+7),
		few:  cannedReport("test", 1, 1, 1),
	} {
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "v.sarif")
	left := fmt.Sprintf("SARIF: 7 of %d findings are not in ", annotate.SARIFMaxResultsPerRun+7)
	why := fmt.Sprintf(", so code scanning will not show them (the least severe were left out: 7 past the %d results code scanning takes in a run)",
		annotate.SARIFMaxResultsPerRun)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", many, "--format", "sarif", "-o", out}, "vigiles: " + left + out + why},
		{[]string{"merge", many, "--format", "sarif"}, "vigiles: " + left + "the SARIF on stdout" + why},
		{[]string{"merge", few, "--format", "sarif", "-o", out}, ""},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != 1 {
			t.Errorf("%q: exit %d; want 1 (the report fails)\n%s", tc.args, code, errs)
		}
		if tc.want == "" {
			if errs != "" {
				t.Errorf("%q: stderr %q; want nothing", tc.args, errs)
			}
			continue
		}
		if !strings.HasPrefix(errs, tc.want) || !strings.HasSuffix(errs, "; the JSON report (--format json) has every finding.\n") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: stderr %q; want one line %q… ending with where every finding is", tc.args, errs, tc.want)
		}
	}
	// What the action prints in the step's log is the same sentence.
	_, st, err := annotate.EncodeSARIF(cannedReport("test", 10, 10, annotate.SARIFMaxResultsPerRun-20+7), annotate.SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sarifNote(st, "v.sarif", "there"); !strings.HasPrefix(got, left+"v.sarif"+why) || !strings.HasSuffix(got, "; there.") {
		t.Errorf("sarifNote = %q", got)
	}
}

// TestWhyNotSARIF: the sarif input replaces a SARIF log vigiles wrote (or
// an empty file, or none), and nothing else.
func TestWhyNotSARIF(t *testing.T) {
	dir := t.TempDir()
	ours, _, err := annotate.EncodeSARIF(&report.Report{}, annotate.SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		data   string
		refuse bool
	}{
		"ours.sarif":  {string(ours), false},
		"empty.sarif": {"", false},
		"policy.yml":  {"version: 1\nchecks: []\n", true},
		"hooks.json":  {`{"hooks": {}}`, true},
		"other.sarif": {`{"version": "2.0.0", "runs": []}`, true},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if why := whyNotSARIF(p); (why != "") != tc.refuse {
			t.Errorf("%s: whyNotSARIF = %q, want refused %v", name, why, tc.refuse)
		}
	}
	if why := whyNotSARIF(filepath.Join(dir, "absent.sarif")); why != "" {
		t.Errorf("absent: whyNotSARIF = %q", why)
	}
}

// TestSARIFShapeOfReports: the SARIF of the annotate package's report
// fixtures (findings of every kind, some without a file, hostile text) is
// what code scanning takes (checkSARIFShape), each finding one result
// with a fingerprint of its own, as the action writes it.
func TestSARIFShapeOfReports(t *testing.T) {
	// And findings placed where no SARIF uri may point: outside the
	// repository, at a name with a line feed, nowhere, at line 0.
	at := func(file string, line, col int) report.Finding {
		return report.Finding{Rule: "run/failed", Severity: report.SeverityError, Location: report.Location{File: file, Line: line, Column: col},
			Title: "run failed", Message: "[x](https://x.example.test) {0} at " + file}
	}
	hostile, err := json.Marshal(&report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: "audit",
		Verdict: report.VerdictFail, Findings: []report.Finding{at("/etc/passwd", 3, 1), at("../outside/hooks.json", 2, 2),
			at("plugins/a\nb/hooks.json", 1, 1), at("", 0, 0), at("plugins/x/hooks.json", 0, 0), at("file:///etc/passwd", 1, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"report.json", "example-report.json", "hostile"} {
		t.Run(name, func(t *testing.T) {
			data := hostile
			if name != "hostile" {
				var err error
				if data, err = os.ReadFile(filepath.Join("..", "..", "pkg", "annotate", "testdata", name)); err != nil {
					t.Fatal(err)
				}
			}
			var r report.Report
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			if _, err := writeSARIFFile(ws, "v.sarif", &r, ".vigiles.yml"); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(ws, "v.sarif"))
			if err != nil {
				t.Fatal(err)
			}
			fps := checkSARIFShape(t, b)
			n := 0
			for _, c := range fps {
				n += c
				if c != 1 {
					t.Errorf("%d results share a fingerprint: %v", c, fps)
				}
			}
			if n != len(r.Findings) || n == 0 {
				t.Errorf("%d results for %d findings", n, len(r.Findings))
			}
		})
	}
}
