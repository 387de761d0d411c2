package annotate

import (
	"fmt"
	"io"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// BenchmarkRenderScale renders every surface of a report of 100, 1,000
// and 10,000 runs with a finding for each run: the job summary (cut to
// its MiB), SARIF, the workflow-command annotations and the hook logs.
// Its time per finding should stay flat as the report grows.
func BenchmarkRenderScale(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		r := benchReport(n)
		r.Findings = r.Findings[:0]
		for i := range r.Runs {
			run := &r.Runs[i]
			r.Findings = append(r.Findings, report.Finding{
				Rule: "drift/host", Severity: report.SeverityError, Location: run.Location,
				Title: "new host", Message: fmt.Sprintf("hook %s now reaches telemetry.example.test:443", run.ID), Evidence: "telemetry.example.test", Hook: run.ID,
			})
		}
		so := SummaryOptions{ServerURL: "https://github.com", Repo: "o/r", SHA: "0123456789abcdef0123456789abcdef01234567"}
		each := func(name string, f func()) {
			b.Run(fmt.Sprintf("%s/findings=%d", name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					f()
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/1000, "µs/finding")
			})
		}
		each("summary", func() {
			if len(Summary(r, so)) > MaxStepSummaryBytes {
				b.Fatal("summary over its MiB")
			}
		})
		each("sarif", func() {
			if _, err := WriteSARIF(io.Discard, r, SARIFOptions{}); err != nil {
				b.Fatal(err)
			}
		})
		each("annotations", func() { WriteAnnotations(io.Discard, r.Findings) })
		each("hooklogs", func() {
			if err := WriteHookLogs(io.Discard, r.Runs); err != nil {
				b.Fatal(err)
			}
		})
	}
}
