package egress

import (
	"fmt"
	"testing"

	"github.com/google/nftables"

	"github.com/vigiles/action/pkg/evidence"
)

// BenchmarkBuildRuleset times compiling a policy and queuing its whole
// rule set on a connection (no kernel: a non-lasting connection opens no
// socket before Flush, which is never called), for each
// golden policy and a large allowlist.
func BenchmarkBuildRuleset(b *testing.B) {
	big := evidence.EgressPolicy{Mode: evidence.EgressAllow, DNSUpstream: "198.18.0.2"}
	for i := 0; i < 200; i++ {
		big.Allow = append(big.Allow, fmt.Sprintf("host%d.example.test:443", i))
		big.AllowIP = append(big.AllowIP, fmt.Sprintf("203.0.%d.0/24", i))
	}
	pols := map[string]evidence.EgressPolicy{"allow-200-hosts-200-cidrs": big}
	for k, v := range goldenPolicies {
		pols[k] = v
	}
	for _, name := range []string{"deny", "record", "allow", "allow-v6-upstream", "allow-everything-ip", "allow-200-hosts-200-cidrs"} {
		p := pols[name]
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pol, err := compilePolicy(p)
				if err != nil {
					b.Fatal(err)
				}
				c, err := nftables.New()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := buildRuleset(c, pol); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
