package runner

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestEgressOptionReplacesThePolicysWholeEgress: --egress (the action's
// egress and allow inputs) takes the place of defaults.egress whole, as
// their help and action.yml say: the policy's hosts, address ranges,
// resolver and connector do not reach the run.
func TestEgressOptionReplacesThePolicysWholeEgress(t *testing.T) {
	cfg := `defaults:
  sandbox: strict
  egress:
    mode: allow
    allow: [a.example.test]
    allow-ip: [192.0.2.0/24]
    dns-upstream: 192.0.2.53
    connector: pasta
checks:
  - name: c
    hook: guard
    tool: Bash
    expect: {exit-code: 0}
`
	for _, tc := range []struct {
		name   string
		option *evidence.EgressPolicy
		want   evidence.EgressPolicy
	}{
		{"the policy's", nil, evidence.EgressPolicy{Mode: "allow", Allow: []string{"a.example.test"}, AllowIP: []string{"192.0.2.0/24"}, DNSUpstream: "192.0.2.53", Connector: "pasta"}},
		{"--egress record", &evidence.EgressPolicy{Mode: "record"}, evidence.EgressPolicy{Mode: "record"}},
		{"--egress allow --allow b.example.test", &evidence.EgressPolicy{Mode: "allow", Allow: []string{"b.example.test"}}, evidence.EgressPolicy{Mode: "allow", Allow: []string{"b.example.test"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			}}
			if _, err := Test(context.Background(), Options{Dir: testRepo(t, cfg), Executor: ex, Egress: tc.option, Jobs: 1}); err != nil {
				t.Fatal(err)
			}
			if len(ex.Specs) != 1 {
				t.Fatalf("%d runs, want 1", len(ex.Specs))
			}
			if diff := cmp.Diff(tc.want, ex.Specs[0].Egress); diff != "" {
				t.Errorf("the run's egress (-want +got):\n%s", diff)
			}
		})
	}
}
