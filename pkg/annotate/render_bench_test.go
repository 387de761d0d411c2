package annotate

import (
	"fmt"
	"io"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// benchReport is an audit-like report: runs hooks, each with a few writes
// and hosts, and one finding per fifth run.
func benchReport(runs int) *report.Report {
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "bench"}, Command: "audit", Verdict: report.VerdictFail}
	for i := 0; i < runs; i++ {
		file := fmt.Sprintf("plugins/p%03d/hooks/hooks.json", i/10)
		id := fmt.Sprintf("%s#hooks.PreToolUse[0].hooks[%d]", file, i%10)
		r.Runs = append(r.Runs, report.HookRun{
			ID: id, Plugin: fmt.Sprintf("p%03d", i/10), Event: "PreToolUse", Matcher: "Bash", Tool: "Bash", Type: "command",
			Command: fmt.Sprintf("sh ${CLAUDE_PLUGIN_ROOT}/hooks/h%d.sh", i), Location: report.Location{File: file, Line: 8 + i%10, Column: 18},
			Tier: "confined", Outcome: report.OutcomeAllowed, DurationMs: 12.5,
			Stdout: "{\"continue\":true}", Stderr: "::error::not a command",
			Writes: []evidence.Write{{Path: "out/a.json", Op: evidence.OpCreate, Kind: "file"}, {Path: "~/.cache/x", Op: evidence.OpModify, Kind: "file"}},
			Egress: []evidence.Egress{
				{Host: "api.example.test", IP: "203.0.113.7", Port: 443, Proto: "tcp", Via: evidence.ViaDNS, Attempts: 2},
				{Host: "telemetry.example.test", Port: 443, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
			},
		})
		if i%5 == 0 {
			r.Findings = append(r.Findings, report.Finding{
				Rule: "drift/host", Severity: report.SeverityError, Location: report.Location{File: file, Line: 8 + i%10, Column: 18},
				Title: "new host", Message: fmt.Sprintf("hook %s now reaches telemetry.example.test:443", id), Evidence: "telemetry.example.test", Hook: id,
			})
		}
	}
	return r
}

// BenchmarkRender times every surface rendered from one report: the job
// summary, SARIF, the workflow-command annotations and the fenced hook
// logs.
func BenchmarkRender(b *testing.B) {
	for _, runs := range []int{200, 2000} {
		r := benchReport(runs)
		so := SummaryOptions{ServerURL: "https://github.com", Repo: "o/r", SHA: "0123456789abcdef0123456789abcdef01234567"}
		b.Run(fmt.Sprintf("summary/runs=%d", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Summary(r, so) == "" {
					b.Fatal("empty summary")
				}
			}
		})
		b.Run(fmt.Sprintf("sarif/runs=%d", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WriteSARIF(io.Discard, r, SARIFOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("annotations/runs=%d", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				WriteAnnotations(io.Discard, r.Findings)
			}
		})
		b.Run(fmt.Sprintf("hooklogs/runs=%d", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := WriteHookLogs(io.Discard, r.Runs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
