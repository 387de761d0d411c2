package annotate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestSummaryOfTenThousandKeepsItsMiB gives the summary an audit of
// 10,000 findings and 10,000 runs, each run's record naming 1,000
// destinations: it stays within GitHub's MiB for a step, its findings
// table shows as many rows as fit and counts the rest, and its runs
// table, for which no room is left, counts every run as not shown. The
// rows past the budget are no longer rendered at all
// (BenchmarkRenderScale); what the reader sees is the same.
func TestSummaryOfTenThousandKeepsItsMiB(t *testing.T) {
	const n = 10000
	r := manyFindings(n)
	eg := make([]evidence.Egress, 1000)
	for i := range eg {
		eg[i] = evidence.Egress{Host: fmt.Sprintf("h%d.example.test", i), Port: 443, Proto: "tcp", Via: evidence.ViaDNS, Attempts: 1}
	}
	for i := 0; i < n; i++ {
		r.Runs = append(r.Runs, report.HookRun{ID: fmt.Sprintf("hooks.json#hooks.Stop[0].hooks[%d]", i), Plugin: "p", Event: "Stop", Type: "command",
			Tier: "confined", Outcome: report.OutcomeAllowed, Egress: eg, Writes: []evidence.Write{}})
	}
	s := Summary(r, SummaryOptions{})
	if len(s) > MaxStepSummaryBytes {
		t.Fatalf("summary is %d bytes, limit %d", len(s), MaxStepSummaryBytes)
	}
	m := regexp.MustCompile(`\*\*(\d+) more findings not shown\*\*`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("summary does not say how many findings it left out")
	}
	left, _ := strconv.Atoi(m[1])
	if shown := strings.Count(s, " | egress-only | "); shown+left != n || shown == 0 {
		t.Errorf("%d findings shown and %d counted as not shown, want %d in all", shown, left, n)
	}
	if !strings.Contains(s, fmt.Sprintf("**%d more hook runs not shown**", n)) {
		t.Errorf("summary does not count every run as not shown")
	}
	checkSummarySafe(t, s)
}
