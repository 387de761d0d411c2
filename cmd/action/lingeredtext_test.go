package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunReportListsLingeredOnePerLine: vigiles run's text report lists
// each process that outlived the command on a line of its own, as the
// sandbox shows it: a plain command line as it is, one the sandbox quoted
// (bytes that are not UTF-8) quoted once, not again, and an entry that is
// not one line quoted, so that it cannot start a line of its own.
func TestRunReportListsLingeredOnePerLine(t *testing.T) {
	var rep bytes.Buffer
	writeRunReport(&rep, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay", Writes: nil,
		Lingered: []string{"8 sleep 1000", `9 "a\xfe" 1000`, "10 x\n::error::forged", "… and up to 3 more, not listed"}})
	got := rep.String()
	want := "  outlived the command (ended):\n" +
		"    8 sleep 1000\n" +
		`    9 "a\xfe" 1000` + "\n" +
		`    "10 x\n` + annotate.NoMatch("::error::forged") + `"` + "\n" +
		"    … and up to 3 more, not listed\n"
	if !strings.HasSuffix(got, want) {
		t.Errorf("report:\n%s\nwant it to end with:\n%s", got, want)
	}
}
