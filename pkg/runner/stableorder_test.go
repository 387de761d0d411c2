package runner

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestEgressOrderIsTheHooksNotTheRecords audits one hook twice, its
// record listing the same attempts in another order each time (the
// record's order is that of first attempts: a hook that asks one host for
// /a and /b in either order, or connects to a name's two addresses in
// either order): the reports list them alike.
func TestEgressOrderIsTheHooksNotTheRecords(t *testing.T) {
	dir := auditRepo(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	entries := []evidence.Egress{
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "GET /alpha"},
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 2, Detail: "GET /beta"},
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "POST /alpha"},
		{Host: "a.example.test", IP: "192.0.2.7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
		{Host: "a.example.test", IP: "2001:db8::7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
		{Host: "a.example.test", IP: "192.0.2.8", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		{Host: "a.example.test", IP: "192.0.2.8", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
	}
	audit := func(order []evidence.Egress) map[string][]evidence.Egress {
		t.Helper()
		exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: slices.Clone(order), DurationMs: 5}, nil
		}}
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]evidence.Egress{}
		for _, r := range rep.Runs {
			out[r.ID] = r.Egress
		}
		return out
	}
	want := audit(entries)
	reversed := slices.Clone(entries)
	slices.Reverse(reversed)
	rotated := append(slices.Clone(entries[3:]), entries[:3]...)
	for _, order := range [][]evidence.Egress{reversed, rotated} {
		if diff := cmp.Diff(want, audit(order)); diff != "" {
			t.Errorf("the same attempts in another order make another report (-first +then):\n%s", diff)
		}
	}
}
