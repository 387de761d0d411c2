package annotate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestWriteVerdictRefusesUnsafeValues: WriteVerdict, the output of a step
// that stops before it has a report, refuses anything but a verdict as
// the full outputs do (TestOutputsRefuseUnsafeValues), and writes nothing
// then: "pass\nfailed=0" would set a second output, "x<<EOF" open a
// multi-line value.
func TestWriteVerdictRefusesUnsafeValues(t *testing.T) {
	p := filepath.Join(t.TempDir(), "output")
	for _, v := range []string{"pass\nfailed=0", "pass\r\nverdict=pass", "x<<EOF", "", "passed"} {
		if err := WriteVerdict(p, v); !errors.Is(err, ErrUnsafeOutput) {
			t.Errorf("WriteVerdict(%q) = %v, want %v", v, err, ErrUnsafeOutput)
		}
	}
	if b, err := os.ReadFile(p); err == nil && len(b) > 0 {
		t.Errorf("refused verdicts wrote %q", b)
	}
	if err := WriteVerdict(p, report.VerdictError); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "verdict=error\n" {
		t.Errorf("GITHUB_OUTPUT holds %q (%v), want %q", b, err, "verdict=error\n")
	}
}
