package evidence

import (
	"strings"
	"testing"
)

// TestDNSUpstreamInsideTheSandboxIsRefusedByPolicy shows the "by policy"
// half of docs/security.md's row "Answer the DNS stub's upstream
// questions itself (an upstream at an address inside the sandbox)":
// every address a resolver of the hook's could answer from (the
// sandbox's loopback, also written IPv4-mapped, the unspecified address,
// a multicast group, the address the deny and record modes give the
// sandbox's lo) is refused as a dns-upstream, with or without a port,
// saying why; an address the host reaches is taken.
func TestDNSUpstreamInsideTheSandboxIsRefusedByPolicy(t *testing.T) {
	for _, s := range []string{
		"127.0.0.53", "127.0.0.1:5353", "127.1.2.3", "::1", "[::1]:53", "::ffff:127.0.0.1", "[::ffff:127.0.0.53]:53",
		"0.0.0.0", "[::]:53", "224.0.0.251", "ff02::fb", DenySource.String(), DenySource.String() + ":53",
	} {
		if ap, err := ParseDNSUpstream(s); err == nil {
			t.Errorf("ParseDNSUpstream(%q) = %v, want it refused as inside the sandbox", s, ap)
		} else if !strings.Contains(err.Error(), "an address inside the sandbox") {
			t.Errorf("ParseDNSUpstream(%q): %v, want it to say the address is inside the sandbox", s, err)
		}
	}
	for _, s := range []string{"192.0.2.53", "[2001:db8::53]:5353", "10.254.254.2"} {
		if _, err := ParseDNSUpstream(s); err != nil {
			t.Errorf("ParseDNSUpstream(%q): %v, want it taken", s, err)
		}
	}
}
