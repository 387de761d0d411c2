package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunReportLingeredColonOnATerminal: a process that outlived the
// command can name itself with U+A789, the lookalike vigiles puts for its
// own ':' in text, which on a terminal outside a step log (ownText's
// colonWriter) becomes a ':' again. vigiles run's lingered list shows
// the process's own as \ua789, as the rest of its report does, so that
// "nc evil꞉443" never reads as "nc evil:443" there.
func TestRunReportLingeredColonOnATerminal(t *testing.T) {
	var out bytes.Buffer
	printRunReport(colonWriter{&out}, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay",
		Lingered: []string{"8 nc evil\ua789443"}})
	got := out.String()
	if strings.Contains(got, "evil:443") || !strings.Contains(got, `8 nc evil\ua789443`) {
		t.Errorf("on a terminal the lingered process reads:\n%s\nwant it as 8 nc evil\\ua789443", got)
	}
}

// TestTextLocationsReadApart: on a terminal outside a step log a ':' of a
// file's name shows as itself, so the file "a.json:7" at line 1 and the
// file "a.json" at line 7, column 1, would both read "a.json:7:1"; and
// with a backslash shown as itself, the file `p\xff` would read as the
// file p\xff, whose byte clean shows as \xff. The text report quotes
// such a name, so that each place reads as itself.
func TestTextLocationsReadApart(t *testing.T) {
	shown := map[string]report.Location{}
	for _, l := range []report.Location{
		{File: "a.json:7", Line: 1}, {File: "a.json", Line: 7, Column: 1},
		{File: `p\xff`, Line: 1}, {File: "p\xff", Line: 1},
		{File: `"a.json":1`}, {File: "a.json", Line: 1},
	} {
		var out bytes.Buffer
		writeTextReport(colonWriter{&out}, &report.Report{Command: "audit", Verdict: report.VerdictFail,
			Findings: []report.Finding{{Rule: "r", Severity: report.SeverityError, Message: "m", Location: l}}})
		line := ""
		for _, s := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(s, "  error ") {
				line = s
			}
		}
		if other, ok := shown[line]; ok {
			t.Errorf("%+v and %+v both read %q", other, l, line)
		}
		shown[line] = l
	}
}

// TestQuotedLocationsInAStepLog: a location the text report quotes, in a
// step log, is no bait for a problem matcher either.
func TestQuotedLocationsInAStepLog(t *testing.T) {
	var fs []report.Finding
	for _, f := range []string{"./main.go:1:1: approved", `x.go":1:1: safe`, "a.ts(1,1): error TS1: x", `p\x.go:1:1: ok`, "main.go:7"} {
		fs = append(fs, report.Finding{Rule: "r", Severity: report.SeverityError, Message: "m", Location: report.Location{File: f, Line: 1, Column: 1}})
	}
	var out bytes.Buffer
	writeTextReport(&out, &report.Report{Command: "audit", Verdict: report.VerdictFail, Findings: fs})
	if is := annotatetest.Issues(out.String()); len(is) > 0 {
		t.Errorf("the problem matchers annotate %+v of:\n%s", is, out.String())
	}
}
