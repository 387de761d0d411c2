package annotate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

func TestAnnotationsPerLevelCap(t *testing.T) {
	r := manyFindings(45) // 15 of each level
	var log bytes.Buffer
	hidden := WriteAnnotations(&log, r.Findings)
	if want := (Hidden{Errors: 5, Warnings: 5, Notices: 5}); hidden != want {
		t.Fatalf("hidden = %+v, want %+v", hidden, want)
	}
	counts := map[string]int{}
	var order []string
	for _, c := range runnerCommands(t, log.String()) {
		counts[c.Name]++
		if len(order) == 0 || order[len(order)-1] != c.Name {
			order = append(order, c.Name)
		}
	}
	if counts["error"] != MaxAnnotationsPerLevel || counts["warning"] != MaxAnnotationsPerLevel || counts["notice"] != MaxAnnotationsPerLevel {
		t.Errorf("counts = %v", counts)
	}
	if strings.Join(order, ",") != "error,warning,notice" {
		t.Errorf("order = %v, want most severe first", order)
	}
	sum := Summary(r, SummaryOptions{Hidden: hidden})
	if !strings.Contains(sum, "**15 more annotations not shown in the diff** (5 errors, 5 warnings, 5 notices)") {
		t.Errorf("summary does not count the hidden annotations:\n%s", sum)
	}
}

func TestMessageCut(t *testing.T) {
	f := report.Finding{Rule: "r", Severity: report.SeverityError, Message: strings.Repeat("é", 10000)}
	var log bytes.Buffer
	WriteAnnotations(&log, []report.Finding{f})
	cmds := runnerCommands(t, log.String())
	if len(cmds) != 1 {
		t.Fatalf("commands = %v", cmds)
	}
	if n := len([]rune(cmds[0].Data)); n > MaxMessageChars || n < MaxMessageChars-10 {
		t.Errorf("message has %d characters, want just under %d", n, MaxMessageChars)
	}
	if !strings.Contains(cmds[0].Data, "… (cut) …") {
		t.Errorf("cut message has no visible marker")
	}
	// A message is cut in its middle: one that starts with a path of
	// thousands of characters keeps what it says to do, and its evidence
	// keeps its place.
	f.Message, f.Evidence = "agents/"+strings.Repeat("d/", 3000)+"x.md is too deep: move it up", "exit 1"
	for name, got := range map[string]string{
		"annotation": findingMessage(f, MaxMessageChars),
		"sarif":      sarifMessage(f),
		"summary":    Summary(&report.Report{Findings: []report.Finding{f}}, SummaryOptions{}),
	} {
		if !strings.Contains(got, "move it up") || !strings.Contains(got, "exit 1") || !strings.Contains(got, "cut") {
			t.Errorf("%s: the cut message lost its end or its evidence: …%s", name, got[max(0, len(got)-300):])
		}
	}
	f.Evidence = ""
	// Log tags are neutralised before the cut, which still holds then:
	// "#·#[" is a character longer than what it replaces.
	f.Message, f.Title = strings.Repeat("##[", 5000), strings.Repeat("##[", 100)
	log.Reset()
	WriteAnnotations(&log, []report.Finding{f})
	cmds = runnerCommands(t, log.String())
	if len(cmds) != 1 {
		t.Fatalf("commands = %v", cmds)
	}
	if n := len([]rune(cmds[0].Data)); n > MaxMessageChars {
		t.Errorf("a message of log tags has %d characters, past %d", n, MaxMessageChars)
	}
	if n := len([]rune(cmds[0].Props["title"])); n > 200 {
		t.Errorf("a title of log tags has %d characters, past 200", n)
	}
	if strings.Contains(cmds[0].Data, "##[") || strings.Contains(cmds[0].Props["title"], "##[") {
		t.Errorf("a log tag survived the cut: %q", cmds[0].Data)
	}
}

func TestSummaryUnderLimit(t *testing.T) {
	r := manyFindings(5000)
	for i := range r.Findings {
		r.Findings[i].Message = strings.Repeat("<|>", 200) // each escapes to ~3 KB
	}
	s := Summary(r, SummaryOptions{})
	if len(s) > MaxStepSummaryBytes {
		t.Fatalf("summary is %d bytes, limit %d", len(s), MaxStepSummaryBytes)
	}
	if !strings.Contains(s, "more findings not shown**") {
		t.Errorf("summary does not say how many findings it left out")
	}
	checkSummarySafe(t, s)
}

func TestSARIFLimitsAndShape(t *testing.T) {
	r := incompressibleFindings(300)
	r.Findings = append(r.Findings, report.Finding{Rule: "", Severity: "weird", Message: ""}) // no file, no rule
	log := SARIF(r, SARIFOptions{MaxBytes: 16 << 10})
	var b bytes.Buffer
	if _, err := WriteSARIF(&b, r, SARIFOptions{MaxBytes: 16 << 10}); err != nil {
		t.Fatal(err)
	}
	if n := gzipSize(b.Bytes()); n > 16<<10 {
		t.Errorf("sarif is %d bytes gzip-compressed, budget %d", n, 16<<10)
	}
	if log.Version != "2.1.0" || log.Schema == "" || len(log.Runs) != 1 {
		t.Fatalf("bad skeleton: %+v", log)
	}
	run := log.Runs[0]
	left, _ := run.Properties["vigilesResultsNotShown"].(int)
	if left == 0 || left+len(run.Results) != len(r.Findings) {
		t.Errorf("results %d + left out %d != findings %d", len(run.Results), left, len(r.Findings))
	}
	for _, res := range run.Results {
		if res.RuleID != run.Tool.Driver.Rules[res.RuleIndex].ID {
			t.Errorf("ruleIndex %d does not point at %q", res.RuleIndex, res.RuleID)
		}
		if len(res.Locations) != 1 || res.Locations[0].PhysicalLocation.Region.StartLine < 1 || res.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
			t.Errorf("bad location: %+v", res.Locations)
		}
		if res.Level != "error" && res.Level != "warning" && res.Level != "note" {
			t.Errorf("bad level %q", res.Level)
		}
		if res.Message.Text == "" {
			t.Errorf("empty message")
		}
	}
	// Required members of the schema are present in the JSON itself.
	var generic map[string]any
	if err := json.Unmarshal(b.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	run0 := generic["runs"].([]any)[0].(map[string]any)
	driver := run0["tool"].(map[string]any)["driver"].(map[string]any)
	for _, k := range []string{"name", "informationUri", "rules"} {
		if _, ok := driver[k]; !ok {
			t.Errorf("driver lacks %q", k)
		}
	}
	if _, ok := run0["results"]; !ok {
		t.Errorf("run lacks results")
	}
}

func TestSARIFFindingWithoutFile(t *testing.T) {
	r := &report.Report{Findings: []report.Finding{{Rule: "malformed", Severity: report.SeverityError, Message: "x"}}}
	got := SARIF(r, SARIFOptions{DefaultFile: "sub dir/.vigiles.yml"}).Runs[0].Results[0].Locations[0].PhysicalLocation
	if got.ArtifactLocation.URI != "sub%20dir/.vigiles.yml" || got.Region.StartLine != 1 {
		t.Errorf("location = %+v", got)
	}
}

// TestAnchorOutsideTheRepository: a policy read from outside the
// repository (an absolute config input) anchors file-less findings, but
// its path is no file of the repository: neither a SARIF uri nor a check
// run annotation's path may name it.
func TestAnchorOutsideTheRepository(t *testing.T) {
	r := &report.Report{Findings: []report.Finding{{Rule: "malformed", Severity: report.SeverityError, Message: "x"},
		{Rule: "malformed", Severity: report.SeverityError, Message: "y", Location: report.Location{File: "/tmp/outside.yml", Line: 3}}}}
	for _, def := range []string{"/tmp/outside.yml", "../outside.yml", "sub/../../outside.yml"} {
		for _, res := range SARIF(r, SARIFOptions{DefaultFile: def}).Runs[0].Results {
			if got := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != ".vigiles.yml" {
				t.Errorf("DefaultFile %q: SARIF uri %q, want .vigiles.yml", def, got)
			}
		}
		for _, a := range checkAnnotations(r.Findings, def) {
			if a.GetPath() != ".vigiles.yml" {
				t.Errorf("DefaultFile %q: check run annotation on %q, want .vigiles.yml", def, a.GetPath())
			}
		}
	}
	if anns := checkAnnotations(r.Findings, ""); len(anns) != 0 {
		t.Errorf("no DefaultFile: %d annotations, want the file-less findings in the summary only", len(anns))
	}
}

func TestFailLevel(t *testing.T) {
	r := &report.Report{Verdict: report.VerdictFail, Findings: []report.Finding{{Severity: report.SeverityWarning}}}
	for _, tc := range []struct {
		in   string
		code int
		err  bool
	}{
		{"", 0, false}, {"error", 0, false}, {"warning", 1, false}, {"notice", 1, false}, {"none", 0, false}, {"fatal", 0, true},
	} {
		l, err := ParseFailLevel(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseFailLevel(%q) error = %v", tc.in, err)
			continue
		}
		if err == nil {
			if got := ExitCode(r, l); got != tc.code {
				t.Errorf("ExitCode at %q = %d, want %d", tc.in, got, tc.code)
			}
		}
	}
	if ExitCode(&report.Report{Verdict: report.VerdictError}, FailError) != 1 {
		t.Errorf("an error verdict must fail at the default level")
	}
	if ExitCode(&report.Report{Verdict: report.VerdictError}, FailNone) != 0 {
		t.Errorf("fail-level none never fails")
	}
}

func TestLineURL(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		server, repo, sha, path string
		line                    int
		want                    string
	}{
		{"https://github.com", "o/r", sha, ".vigiles.yml", 3, "https://github.com/o/r/blob/" + sha + "/.vigiles.yml#L3"},
		{"https://ghes.example/", "o/r", sha, "a b/(x)&.json", 1, "https://ghes.example/o/r/blob/" + sha + "/a%20b/%28x%29%26.json#L1"},
		{"javascript:alert(1)", "o/r", sha, "f", 1, ""},
		// A host does not make another scheme a web page's: the scheme
		// is refused on its own.
		{"javascript://github.com/%0aalert(1)", "o/r", sha, "f", 1, ""},
		{"file://github.com", "o/r", sha, "f", 1, ""},
		{"https://github.com", "o/r)", sha, "f", 1, ""},
		{"https://github.com", "o/r", "HEAD", "f", 1, ""},
		{"https://github.com", "o/r", sha, "../etc/passwd", 1, ""},
	} {
		if got := LineURL(tc.server, tc.repo, tc.sha, tc.path, tc.line); got != tc.want {
			t.Errorf("LineURL(%q, %q, %q, %q) = %q, want %q", tc.server, tc.repo, tc.sha, tc.path, got, tc.want)
		}
	}
}
