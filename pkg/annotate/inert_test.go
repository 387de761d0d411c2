package annotate

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// hostileLines are lines the runner would take as workflow commands.
var hostileLines = []string{
	"::error::forged", "   ::warning file=x::y", "\u00a0::add-mask::secret",
	"e##[stop-commands]x", "b##[error]FORGED-FILE", "##[set-output name=verdict;]pass",
	"plain ##[group]inside a line",
}

func TestInertText(t *testing.T) {
	in := strings.Join(hostileLines, "\n") + "\r::notice::after a CR\r\nlast"
	out := InertText(in)
	if cmds := annotatetest.Commands(out); len(cmds) != 0 {
		t.Errorf("InertText left commands: %+v\n%s", cmds, out)
	}
	if strings.Count(out, "\n")+strings.Count(out, "\r") != strings.Count(in, "\n")+strings.Count(in, "\r") {
		t.Errorf("line ends changed: %q", out)
	}
	if got := InertText("a plain line\nand: another\n"); got != "a plain line\nand: another\n" {
		t.Errorf("plain text changed: %q", got)
	}
}

func TestInertJSONKeepsTheData(t *testing.T) {
	v := map[string]any{"detail": strings.Join(hostileLines, "\n"), "path": "b##[error]x", "n": 1.0}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	out := InertJSON(b)
	if cmds := annotatetest.Commands(string(out)); len(cmds) != 0 {
		t.Errorf("InertJSON left commands: %+v\n%s", cmds, out)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, v) {
		t.Errorf("the data changed: %v %v", err, back)
	}
}

// TestPathsOutsideTheTreeAnchorNowhere: an absolute path, one that climbs
// out of the tree, or one whose first segment reads as a URI scheme never
// reaches an annotation's file, a check-run path or a SARIF uri as is.
func TestPathsOutsideTheTreeAnchorNowhere(t *testing.T) {
	r := &report.Report{Findings: []report.Finding{
		{Rule: "r1", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "/etc/passwd", Line: 3}},
		{Rule: "r2", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "a/../../../x.json", Line: 3}},
		{Rule: "r3", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "https:/.claude-plugin/plugin.json", Line: 2}},
		{Rule: "r4", Severity: report.SeverityError, Message: "zw\u200bname and safe\u202eexe.txt"},
		// Inside the tree once cleaned, but "//evil.example/x" (a
		// network-path reference) and "/evil.example/x" once "./" is
		// trimmed from what was checked.
		{Rule: "r5", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "././//evil.example/x", Line: 1}},
		{Rule: "r6", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "././/evil.example/x", Line: 1}},
	}}
	var b strings.Builder
	WriteAnnotations(&b, r.Findings)
	for _, c := range annotatetest.Commands(b.String()) {
		if f := c.Props["file"]; strings.HasPrefix(f, "/") || strings.Contains(f, "..") || strings.Contains(f, "//") {
			t.Errorf("annotation file %q", f)
		}
		if strings.ContainsAny(c.Data, "\u200b\u202e") {
			t.Errorf("format characters reached an annotation: %q", c.Data)
		}
	}
	for _, a := range checkAnnotations(r.Findings, ".vigiles.yml") {
		if p := a.GetPath(); strings.HasPrefix(p, "/") || strings.Contains(p, "..") || strings.Contains(p, "//") {
			t.Errorf("check-run annotation path %q", p)
		}
	}
	var uris []string
	for _, res := range SARIF(r, SARIFOptions{}).Runs[0].Results {
		uris = append(uris, res.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	for _, u := range uris {
		if strings.HasPrefix(u, "/") || strings.Contains(u, "..") || strings.HasPrefix(u, "https:") || strings.Contains(u, "//") {
			t.Errorf("SARIF uri %q", u)
		}
	}
	if !strings.Contains(strings.Join(uris, " "), "./https:/.claude-plugin/plugin.json") {
		t.Errorf("uris %q: want the scheme-like path kept as ./https:/…", uris)
	}
}
