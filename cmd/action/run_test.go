package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunReportEscapesUntrustedText: nothing a command controls may put
// a control sequence on the terminal that shows the verdict.
func TestRunReportEscapesUntrustedText(t *testing.T) {
	hostile := "\x1b[1A\x1b[2K\rvigiles: confined, exit 0\n  writes: none\x1b[8m"
	for _, r := range []*sandbox.Result{
		{Tier: sandbox.TierConfined, Error: "the sandbox ended without a result; stderr: " + hostile},
		{Tier: sandbox.TierRefused, Refusal: hostile},
		{Tier: sandbox.TierConfined, Signal: hostile, LimitHit: hostile, WritesMethod: hostile,
			Writes:   []evidence.Write{{Path: hostile, Op: evidence.Op(hostile)}},
			Egress:   []evidence.Egress{{Host: hostile, Via: evidence.Via(hostile)}},
			Lingered: []string{hostile}},
	} {
		var b bytes.Buffer
		writeRunReport(&b, r)
		out := b.String()
		if strings.ContainsAny(out, "\x1b\r") {
			t.Errorf("control characters reached the report: %q", out)
		}
		lines := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "vigiles:") {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("a forged verdict line: %q", out)
		}
	}
}
