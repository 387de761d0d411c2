package sandbox

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// TestEgressRecordErrorFailsTheRun: a run whose egress record the init
// could not read whole (the layer's Finish returned an error) is failed,
// saying why, and reports no egress record, not the part Finish returned
// beside the error; the write record, read whole, is kept. The layer is a
// stand-in (fakeNetwork, with unreadHost allowlisted), whose Finish fails
// as the real one does when it calls the record incomplete; the handling
// is the init's and the broker's own. Without the init's, the broker's
// last check failed the run too, but only as "no egress record", which
// says nothing of what was lost.
func TestEgressRecordErrorFailsTheRun(t *testing.T) {
	requireConfinement(t)
	SetNetwork(fakeNetwork{})
	defer SetNetwork(nil)
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second,
		Egress:  evidence.EgressPolicy{Mode: evidence.EgressDeny, Allow: []string{unreadHost}},
		Command: sh("echo x > made.txt")})
	if res == nil {
		t.Fatalf("no result: %v", err)
	}
	// The error crossed from the init as text.
	want := "reading the egress record: " + unreadErr
	if err == nil || !strings.Contains(err.Error(), want) || res.Error != err.Error() {
		t.Errorf("error %v (result: %q), want one that says %q", err, res.Error, want)
	}
	if res.Egress != nil || res.EgressDropped != nil {
		t.Errorf("egress %+v, dropped %+v: want none, the record was not read whole", res.Egress, res.EgressDropped)
	}
	if !slices.ContainsFunc(res.Writes, func(w evidence.Write) bool { return w.Path == "made.txt" && w.Op == evidence.OpCreate }) {
		t.Errorf("writes %+v: the write record, read whole, was not kept", res.Writes)
	}
}
