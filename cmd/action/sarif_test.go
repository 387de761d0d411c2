package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

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
	if err := renderSARIF(r, &b); err != nil {
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
