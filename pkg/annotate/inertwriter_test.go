package annotate

import (
	"bytes"
	"strings"
	"testing"
)

// TestInertWriter: whatever the chunking, a command's output passed
// through holds no line the runner would run, and ordinary output comes
// out unchanged.
func TestInertWriter(t *testing.T) {
	plain := "building...\nok: 3 tests\n\tindented: a::b c#[d]\r\nlast line without end"
	hostileText := strings.Join(hostile, "\n") + "\n" + strings.Repeat(" ", inertMaxLine+10) + "::error::after a long run of spaces\n" +
		strings.Repeat("x", inertMaxLine-1) + "##[error]across the cut\n" +
		// A space rune (U+00A0, U+3000) cut by the 64 KiB cut.
		strings.Repeat(" ", inertMaxLine) + "\u00a0::error::after a cut rune\n" +
		strings.Repeat(" ", inertMaxLine-1) + "\u3000::error::after a cut rune\n" +
		"::warning::no end"
	for _, tc := range []struct {
		name, in string
		same     bool
	}{{"plain", plain, true}, {"hostile", hostileText, false}} {
		for _, size := range []int{1, 2, 3, 7, 64, 4096, len(tc.in)} {
			var b bytes.Buffer
			w := NewInertWriter(&b)
			for s := tc.in; len(s) > 0; {
				n := min(size, len(s))
				if _, err := w.Write([]byte(s[:n])); err != nil {
					t.Fatal(err)
				}
				s = s[n:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if tc.same && out != tc.in {
				t.Errorf("%s in chunks of %d: output changed: %.200q", tc.name, size, out)
			}
			for _, c := range runnerCommands(t, out) {
				t.Errorf("%s in chunks of %d: the runner would run %s (%.80q)", tc.name, size, c.Name, c.Data)
			}
			if strings.Contains(out, "##[") {
				t.Errorf("%s in chunks of %d: a legacy command is left", tc.name, size)
			}
			if !tc.same && strings.Count(out, "\n") != strings.Count(tc.in, "\n") {
				t.Errorf("%s in chunks of %d: %d lines, want %d", tc.name, size, strings.Count(out, "\n"), strings.Count(tc.in, "\n"))
			}
		}
	}
}
