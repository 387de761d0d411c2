package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// sameReadReport fails t unless the report file holding doc reads lean
// (decodeLean, as readReport reads it) as the document decoded whole
// reads: the same report, null records and [] ones apart, or the same
// error.
func sameReadReport(t testing.TB, doc []byte) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readReportFile(p, true)
	want, wantErr := readReportFile(p, false)
	switch {
	case (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()):
		t.Fatalf("%.3000q:\nread lean: %v\nread whole: %v", doc, err, wantErr)
	case !reflect.DeepEqual(got, want):
		t.Fatalf("%.3000q:\nread lean: %#v\nread whole: %#v", doc, got, want)
	}
	if got != nil {
		for i := range got.Runs {
			if (got.Runs[i].Writes == nil) != (want.Runs[i].Writes == nil) {
				t.Fatalf("%.3000q: run %d's writes: nil %v, read whole nil %v", doc, i, got.Runs[i].Writes == nil, want.Runs[i].Writes == nil)
			}
		}
	}
}

// readReportDocs are report files as merge may be given them: as vigiles
// writes them and as a hand edits them.
var readReportDocs = []string{
	// Keys given twice: the last list of runs and of writes counts, and
	// a run of the second list is decoded over the first's.
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"id":"a","writes":[{"path":"x","op":"create"}]},{"id":"b"}],"runs":[{"id":"c"}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"id":"a","writes":[{"path":"x","op":"create"}]}],"runs":[{"id":"c","writes":null}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"id":"a","writes":[{"path":"x","op":"create"}],"writes":[]},{"writes":[{"path":"y"}],"Writes":[{"path":"z","op":"delete"}]}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","RUNS":[{"WRITES":[{"PATH":"x","op":"create"},null,{}]}],"findings":[]}`,
	// What is no report, about its records and elsewhere: the errors of
	// the whole document, where it stands.
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"writes":"x"}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"writes":[{"path":7}]}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","runs":[{"writes":[1]}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","command":"test","runs":{"writes":[]},"findings":[]}`,
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"é😀\",\"op\":\"create\"}],\"durationMs\":\"7\"}],\"findings\":[]}",
	"{\"schema\":\"vigiles.report/v1\",\n\"runs\":[{\"writes\":[\n{\"path\":\"é😀\",\"op\":\"create\"}\n],\"exitCode\":\"7\"}],\"findings\":5}",
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"é😀\",\"op\":\"create\"}]}],\"findings\":[]} x",
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"é😀\",\"op\":\"create\"}]}],\"findings\":[]} {}",
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"é😀\",\"op\":\"create\"}]}],\"findings\":[]",
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"é😀\",\"op\":\"create\"}]}],\"findings\":[x]}",
	"\ufeff{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"a\",\"op\":\"create\"}]}],\"findings\":[]}",
	"{\"schema\":\"vigiles.report/v1\",\"runs\":[{\"writes\":[{\"path\":\"a\xff\",\"op\":\"create\"}]}],\"findings\":[]}",
	`{"schema":"vigiles.report/v1","runs":[{"writes":[{"path":"a","op":"create"}]}],"findings":[],"verdict":{}}`,
	`{"schema":"vigiles.report/v1","runs":[{"writes":[{"path":"a","op":"create"}]}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","runs":[{"writes":[]},{"writes":null},{},{"writes":[ ]}],"findings":[]}`,
	`{"schema":"vigiles.report/v1","runs":[{"writes":[{"path":"a","op":"create"}]}]}`,
	`{"version":"2.1.0","runs":[{"writes":[{"path":"a","op":"create"}]}]}`,
	`{"runs":[{"writes":[{"path":"a","op":"create"}]}],"findings":[]}`,
	" null\n", "[]", "{}", "", "x", `{"schema":"vigiles.report/v1","runs":null,"findings":[]}`,
}

// TestReadReportAsTheWholeDocument: merge reads a report file, its write
// records decoded by evidence.UnmarshalWrites, as it read the document
// decoded whole: for
// reports vigiles wrote of runs of odd names (not UTF-8, controls,
// characters past U+FFFF, '<', escapes that stdout's copy has), records
// not made (null) beside records of nothing ([]), and for files edited
// by hand, whose errors are those of the whole document, at the same
// line and column.
func TestReadReportAsTheWholeDocument(t *testing.T) {
	for _, doc := range readReportDocs {
		sameReadReport(t, []byte(doc))
	}
	run := func(id string, writes []evidence.Write) report.HookRun {
		return report.HookRun{ID: id, Plugin: "p\U0001F600", Event: "Stop", Type: "command", Stdout: "\n      \"writes\": [\n", Writes: writes, Egress: []evidence.Egress{}}
	}
	many := make([]evidence.Write, 2000)
	for i := range many {
		many[i] = hostile[i%len(hostile)]
	}
	rep := &report.Report{
		Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "x<y>"}, Command: "test", Verdict: report.VerdictFail, Shard: "1/2", Plan: "sha256:0",
		Runs:     []report.HookRun{run("none", nil), run("hostile", hostile), run("empty", []evidence.Write{}), run("many", many), {ID: "listed", Type: "http"}},
		Findings: []report.Finding{{Rule: "expect/no-write", Message: "\n      \"writes\": null", Evidence: "a:b ##[c]"}},
	}
	for _, escapeHTML := range []bool{false, true} {
		d, err := reportJSON(rep, escapeHTML)
		if err != nil {
			t.Fatal(err)
		}
		for _, inert := range []bool{false, true} {
			var doc bytes.Buffer
			if err := d.write(&doc, inert); err != nil {
				t.Fatal(err)
			}
			sameReadReport(t, doc.Bytes())
			// Read lean, not whole.
			var r report.Report
			if !decodeLean(doc.Bytes(), &r) || len(r.Runs[3].Writes) != len(many) {
				t.Fatalf("escapeHTML %v, inert %v: not read lean", escapeHTML, inert)
			}
			// Read whole, for its error, where a run is not a report's.
			odd := bytes.Replace(doc.Bytes(), []byte(`"id": "listed"`), []byte(`"id": 5`), 1)
			if decodeLean(odd, &r) {
				t.Fatalf("escapeHTML %v, inert %v: a run's id of 5 read lean", escapeHTML, inert)
			}
			sameReadReport(t, odd)
			// And cut short, or with more after it.
			sameReadReport(t, doc.Bytes()[:doc.Len()/2])
			sameReadReport(t, append(doc.Bytes(), "{}"...))
			sameReadReport(t, []byte(strings.Replace(doc.String(), `"id": "empty"`, `"id": "empty", "writes": [{"path": "\u00e9", "op": "create"}]`, 1)))
		}
	}
}

// FuzzReadReport: whatever a report file holds, merge reads it as the
// document decoded whole reads.
func FuzzReadReport(f *testing.F) {
	for _, doc := range readReportDocs {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		sameReadReport(t, doc)
	})
}

// BenchmarkReadReport reads the report file of one run of n created
// files as merge reads it (lean), and as the document decoded whole, and reports what reading it allocated
// (alloc-MiB) and what the report read holds (held-MiB).
func BenchmarkReadReport(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		writes := make([]evidence.Write, n)
		for i := range writes {
			writes[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		rep := &report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictPass, Runs: []report.HookRun{
			{ID: "check:c>p", Type: "command", Tier: "confined", Outcome: report.OutcomeAllowed, Writes: writes, Egress: []evidence.Egress{}},
		}, Findings: []report.Finding{}}
		d, err := reportJSON(rep, false)
		if err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(b.TempDir(), "r.json")
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.write(f, false); err != nil {
			b.Fatal(err)
		}
		f.Close()
		rep, writes, d = nil, nil, nil
		for _, lean := range []bool{true, false} {
			name := "lean"
			if !lean {
				name = "whole"
			}
			b.Run(fmt.Sprintf("%s/%d", name, n), func(b *testing.B) {
				allocs.Report(b, true, func() any {
					r, err := readReportFile(p, lean)
					if err != nil {
						b.Fatal(err)
					}
					return r
				})
			})
		}
	}
}
