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
// The grace is cut to 600 ms here (15 s in a run); the command makes up
// to 150,000 files and ends just before its deadline, or is ended at it:
// the walk comes after either way, and takes longer than the grace however
// loaded the machine (one that makes fewer files walks them slower). The
// broker's clock starts before the sandbox is set up and the command
// started, so the grace holds that too: at 100 ms a loaded machine's
// set-up took it all, and the run was said to overrun its deadline.
func TestRecordPastTheGrace(t *testing.T) {
	requireConfinement(t)
	defer func(g time.Duration) { recordGrace = g }(recordGrace)
	recordGrace = 600 * time.Millisecond
	script := `import os, time
start = time.monotonic()
for i in range(150):
    d = "out/%d" % i
    os.makedirs(d)
    for j in range(1000):
        open("%s/%d" % (d, j), "w").close()
time.sleep(max(0, 5.8 - (time.monotonic() - start)))
`
	dir := makeTree(t, map[string]string{"mk.py": script})
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 6 * time.Second, Command: []string{"python3", "mk.py"}})
	if err == nil || !strings.Contains(res.Error, "had not made its record") {
		t.Fatalf("err %v, error %q: want the run failed for its record (%d writes, %.0f ms, timed out %v)", err, res.Error, len(res.Writes), res.DurationMs, res.TimedOut)
	}
	if res.Writes != nil || res.Egress != nil {
		t.Errorf("writes (%d) or egress %v reported beside the error: want null, nothing recorded", len(res.Writes), res.Egress)
	}
}
