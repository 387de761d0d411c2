package main

import (
	"bytes"
	"strings"
	"testing"

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
