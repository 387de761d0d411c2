package sandbox

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// TestDocClaimReaperStatusIsOneDocument shows the second half of
// docs/security.md's row "Forge the exit status through the reaper's
// status pipe": the init takes the reaper's status only as one document
// of the fields it knows. A status with a field it does not know, or with
// anything but white space after the document (a second status, a
// forged one, other bytes, a stray } or ]), is malformed, and the run fails on it; a status as the reaper
// writes it is read whole. (The first half, that the hook never holds the
// pipe, is TestEscapeProcessesAndKernel's "forge the record through pid
// 1's status pipe" and "through an inherited status pipe".)
func TestDocClaimReaperStatusIsOneDocument(t *testing.T) {
	good := `{"protocol":` + strconv.Itoa(reaper.Protocol) + `,"exitCode":3,"signal":"","durationNs":5}`
	st, err := decodeStatus([]byte(good + "\n"))
	if err != nil || st.ExitCode != 3 || st.Protocol != reaper.Protocol {
		t.Fatalf("the reaper's own status: %+v, %v; want exit 3 read whole", st, err)
	}
	for name, data := range map[string]string{
		"an unknown field":     `{"protocol":` + strconv.Itoa(reaper.Protocol) + `,"exitCode":0,"forged":true}`,
		"a second status":      good + `{"protocol":` + strconv.Itoa(reaper.Protocol) + `,"exitCode":0}`,
		"a second status line": good + "\n" + `{"exitCode":0}` + "\n",
		"bytes after it":       good + " x",
		"a number after it":    good + " 0",
		"a } after it":         good + "}",
		"a ] after it":         good + "\n]",
		"]]] and bytes":        good + "]]]garbage",
	} {
		if _, err := decodeStatus([]byte(data)); err == nil || !strings.Contains(err.Error(), "the reaper's status is malformed") {
			t.Errorf("%s (%q): %v, want the status refused as malformed", name, data, err)
		}
	}
}
