package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRecordPastTheGrace: the write record is made after the command
// ends, and a command that leaves more files than the sandbox can walk
// before recordGrace past the deadline has none: the run ends then, failed,
// its writes null (never a part of them passed off as whole, nor []), and
// the error says the record was not made, not that the command overran.
// The grace is cut to 100 ms here (15 s in a run); the command makes
// 50,000 files and ends just before its deadline, or is ended at it: the
// walk comes after either way.
func TestRecordPastTheGrace(t *testing.T) {
	requireConfinement(t)
	defer func(g time.Duration) { recordGrace = g }(recordGrace)
	recordGrace = 100 * time.Millisecond
	script := `import os, time
start = time.monotonic()
for i in range(50):
    d = "out/%d" % i
    os.makedirs(d)
    for j in range(1000):
        open("%s/%d" % (d, j), "w").close()
time.sleep(max(0, 3.8 - (time.monotonic() - start)))
`
	dir := makeTree(t, map[string]string{"mk.py": script})
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 4 * time.Second, Command: []string{"python3", "mk.py"}})
	if err == nil || !strings.Contains(res.Error, "had not made its record") {
		t.Fatalf("err %v, error %q: want the run failed for its record", err, res.Error)
	}
	if res.Writes != nil || res.Egress != nil {
		t.Errorf("writes (%d) or egress %v reported beside the error: want null, nothing recorded", len(res.Writes), res.Egress)
	}
}
