package evidence

import (
	"errors"
	"strings"
	"testing"
)

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

// TestAllowHostSaysAddressOrRange: an address or an address range (a
// CIDR) given as a host is ErrAddressNotName, so that callers say where
// addresses go; a range is called one, not a URL (it has a '/'). A URL
// is still called a URL.
func TestAllowHostSaysAddressOrRange(t *testing.T) {
	for s, want := range map[string]string{
		"10.0.0.1": "an address, not a name", "[2001:db8::1]:443": "an address, not a name",
		"10.0.0.0/8": "an address range, not a name", "2001:db8::/32": "an address range, not a name",
	} {
		_, err := ParseAllowHost(s)
		if !errors.Is(err, ErrAddressNotName) || err.Error() != want {
			t.Errorf("ParseAllowHost(%q) = %v; want %q, an ErrAddressNotName", s, err, want)
		}
	}
	if _, err := ParseAllowHost("https://x.test/"); err == nil || errors.Is(err, ErrAddressNotName) || !strings.Contains(err.Error(), "not a URL") {
		t.Errorf("a URL: %v; want it called a URL", err)
	}
}
