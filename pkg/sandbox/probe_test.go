package sandbox

import (
	"context"
	"testing"
)

// TestInconclusiveProbeIsNotKept: a probe that could not finish (here its
// context ended before bubblewrap answered, as a starved machine's 10 s
// run out) answers inconclusive and is not kept: the next probe runs
// bubblewrap again and answers for the host. The first answer was kept
// for the process, so every later sandbox of a long audit that failed was
// said to have failed for that one starved moment.
func TestInconclusiveProbeIsNotKept(t *testing.T) {
	requireConfinement(t)
	resetProbe()
	t.Cleanup(resetProbe)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if c := ProbeConfinement(ended); c.Confine != Inconclusive {
		t.Fatalf("a probe whose context had ended answered %v (%s)", c.Confine, c.Why)
	}
	if assumedCapability().Confine != Available {
		t.Errorf("after an inconclusive probe a run assumes %v, want the installed bubblewrap's available", assumedCapability().Confine)
	}
	if c := ProbeConfinement(context.Background()); c.Confine != Available {
		t.Fatalf("the probe after an inconclusive one answered %v (%s), want available", c.Confine, c.Why)
	}
	if !probed.Load() {
		t.Error("a conclusive answer was not kept")
	}
}
