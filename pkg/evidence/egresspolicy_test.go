package evidence

import "testing"

// TestZonesAreRefused: an address with a zone names a host interface the
// sandbox's namespace does not have; allow-ip and dns-upstream refuse it
// (fuzzing found "::%\x7f" taken as an allow-ip).
func TestZonesAreRefused(t *testing.T) {
	for _, s := range []string{"fe80::1%eth0", "::%\x7f"} {
		if p, err := ParseAllowIP(s); err == nil {
			t.Errorf("ParseAllowIP(%q) = %v, want an error", s, p)
		}
	}
	for _, s := range []string{"[fe80::1%eth0]:53", "fe80::1%eth0", "[2001:db8::53%x]:5353"} {
		if ap, err := ParseDNSUpstream(s); err == nil {
			t.Errorf("ParseDNSUpstream(%q) = %v, want an error", s, ap)
		}
	}
	if _, err := ParseDNSUpstream("[2001:db8::53]:5353"); err != nil {
		t.Errorf("a resolver without a zone: %v", err)
	}
}
