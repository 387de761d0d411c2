package netwire

import (
	"errors"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestValidateEgressAllowModeRules: options of allow mode in another mode,
// and allow mode with nothing to allow, are refused, each mistake on its
// own line; a policy without them passes and gets its default mode.
func TestValidateEgressAllowModeRules(t *testing.T) {
	for _, tc := range []struct {
		p    evidence.EgressPolicy
		want []string
	}{
		{evidence.EgressPolicy{Mode: evidence.EgressAllow}, []string{"egress mode allow needs at least one host"}},
		{evidence.EgressPolicy{Allow: []string{"x.example.test"}}, []string{"hosts and address ranges to allow need egress mode allow (egress is deny)"}},
		{evidence.EgressPolicy{Mode: evidence.EgressRecord, AllowIP: []string{"192.0.2.0/24"}}, []string{"hosts and address ranges to allow need egress mode allow (egress is record)"}},
		{evidence.EgressPolicy{Mode: evidence.EgressRecord, Connector: "pasta", DNSUpstream: "192.0.2.53"},
			[]string{"--connector pasta: only with --egress allow (egress is record)", "--dns-upstream 192.0.2.53: only with --egress allow (egress is record)"}},
		{evidence.EgressPolicy{Mode: "open"}, []string{`--egress "open": want deny, record or allow`}},
		{evidence.EgressPolicy{Mode: "alow"}, []string{`--egress "alow": want deny, record or allow: did you mean allow?`}},
		{evidence.EgressPolicy{Mode: "Record"}, []string{`--egress "Record": want deny, record or allow: did you mean record?`}},
		{evidence.EgressPolicy{}, nil},
		{evidence.EgressPolicy{Mode: evidence.EgressRecord}, nil},
	} {
		p := tc.p
		errs := ValidateEgress(&p)
		var got []string
		for _, e := range errs {
			got = append(got, e.Error())
		}
		if len(got) != len(tc.want) {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], tc.want[i]) {
				t.Errorf("%+v: %q, want %q", tc.p, got[i], tc.want[i])
			}
		}
		if errs == nil && p.Mode == "" {
			t.Errorf("%+v: no mode filled in", tc.p)
		}
	}
}

// TestValidateEgressSentinels: the two mistakes a caller adds its own fix
// to are found with errors.Is, whatever their wording.
func TestValidateEgressSentinels(t *testing.T) {
	none := ValidateEgress(&evidence.EgressPolicy{Mode: evidence.EgressAllow})
	if len(none) != 1 || !errors.Is(none[0], ErrNothingAllowed) {
		t.Errorf("allow mode with nothing allowed: %v, want ErrNothingAllowed", none)
	}
	hosts := ValidateEgress(&evidence.EgressPolicy{Mode: evidence.EgressRecord, Allow: []string{"x.example.test"}})
	if len(hosts) != 1 || !errors.Is(hosts[0], ErrAllowNeedsAllowMode) {
		t.Errorf("hosts in record mode: %v, want ErrAllowNeedsAllowMode", hosts)
	}
}
