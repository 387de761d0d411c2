package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestTimeoutNamesBlockedHosts: a hook that timed out after trying a host
// the egress policy blocked is told so, with the way to audit it with the
// host reachable (a package runner retries its registry until its time is
// out); one that tried nothing, or only what was allowed, is not.
func TestTimeoutNamesBlockedHosts(t *testing.T) {
	const reason = "timed out after 60000 ms; the agent cancels the hook and carries on"
	for _, tc := range []struct {
		name   string
		egress []evidence.Egress
		want   string
	}{
		{"none tried", []evidence.Egress{}, "h: " + reason},
		{"not recorded", nil, "h: " + reason},
		{"allowed only", []evidence.Egress{{Host: "ok.example.test", Proto: "dns", Via: evidence.ViaDNS, Allowed: true, Attempts: 1}}, "h: " + reason},
		{"blocked", []evidence.Egress{
			{Host: "ok.example.test", Proto: "dns", Via: evidence.ViaDNS, Allowed: true, Attempts: 1},
			{Host: "registry.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 6},
		}, "h: " + reason + "; it tried to reach registry.example.test, which the egress policy blocked: a hook that waits on the network (a package runner retrying its registry) runs out its time so, as it would where Claude Code runs offline; to run it with the host reachable, allow it (--egress allow --allow HOST, or defaults.egress {mode: allow, allow: [HOST]} in the policy)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := executed{run: report.HookRun{ID: "h", Tier: "confined", Outcome: report.OutcomeError, TimedOut: true, Reason: reason, Egress: tc.egress}}
			fs := runFailure(e)
			if len(fs) != 1 || fs[0].Rule != RuleRunTimeout {
				t.Fatalf("findings %+v, want one %s", fs, RuleRunTimeout)
			}
			if fs[0].Message != tc.want {
				t.Errorf("message:\n got %s\nwant %s", fs[0].Message, tc.want)
			}
			if strings.ContainsAny(fs[0].Message, "\r\n") {
				t.Errorf("message carries a line break: %q", fs[0].Message)
			}
		})
	}
}
