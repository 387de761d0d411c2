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
		// Whole, before a port is looked for.
		"2001:db8::1": "an address, not a name", "[2001:db8::1]": "an address, not a name",
		"10.1":       "an address (the system's resolver reads 10.1 as 10.0.0.1), not a name",
		"10.1.2:80":  "an address (the system's resolver reads 10.1.2 as 10.1.0.2), not a name",
		"0x0a000001": "an address (the system's resolver reads 0x0a000001 as 10.0.0.1), not a name",
		"1.2.3.4.":   "an address, not a name",
	} {
		_, err := ParseAllowHost(s)
		if !errors.Is(err, ErrAddressNotName) || err.Error() != want {
			t.Errorf("ParseAllowHost(%q) = %v; want %q, an ErrAddressNotName", s, err, want)
		}
	}
	// Mistyped addresses are neither addresses the resolver reads nor
	// names: refused, not taken for a name no allow could match.
	for _, s := range []string{"1.2.3.256", "1.2.3.4.5", "192.168.1.08", "08", "4294967296", "0x100000000", "1.16777216", "example.123", "x.0x"} {
		if _, err := ParseAllowHost(s); err == nil || !strings.Contains(err.Error(), "no address the system's resolver reads, and no name") {
			t.Errorf("ParseAllowHost(%q) = %v; want it refused as neither", s, err)
		}
	}
	if _, err := ParseAllowHost("https://x.test/"); err == nil || errors.Is(err, ErrAddressNotName) || !strings.Contains(err.Error(), "not a URL") {
		t.Errorf("a URL: %v; want it called a URL", err)
	}
	// And its host named, to write instead (with the URL's port).
	for s, want := range map[string]string{
		"https://x.test/v1":           "not a URL: write its host, x.test",
		"x.test/v1":                   "not a URL: write its host, x.test",
		"http://user:pw@x.test:8080/": "not a URL: write its host, x.test:8080",
	} {
		if _, err := ParseAllowHost(s); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("ParseAllowHost(%q) = %v; want it to end %q", s, err, want)
		}
	}
}

// TestLoopbackIsRefused: the loopback inside the sandbox is the sandbox's
// own (a hook reaches it without an allow), and no allow reaches the
// host's, so an allow or allow-ip of it would be taken and allow nothing:
// ErrLoopback, with what to do, as a loopback dns-upstream is refused. A
// range that holds more than the loopback is taken.
func TestLoopbackIsRefused(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		refused bool
	}{
		{"127.0.0.1", true}, {"127.1.2.3", true}, {"127.0.0.0/8", true}, {"127.0.0.0/24", true},
		{"::1", true}, {"::1/128", true}, {"::ffff:127.0.0.1", true},
		{"0.0.0.0/0", false}, {"126.0.0.0/7", false}, {"::/0", false}, {"::/127", false}, {"192.0.2.1", false}, {"2001:db8::1", false},
	} {
		_, err := ParseAllowIP(tc.ip)
		if refused := errors.Is(err, ErrLoopback); refused != tc.refused || !tc.refused && err != nil {
			t.Errorf("ParseAllowIP(%q) = %v; want refused as the loopback: %v", tc.ip, err, tc.refused)
		} else if tc.refused && !strings.Contains(err.Error(), "in the sandbox is its own, not the host's") {
			t.Errorf("ParseAllowIP(%q): %v, want it to say whose loopback", tc.ip, err)
		}
	}
	for _, tc := range []struct {
		host    string
		refused bool
	}{
		{"localhost", true}, {"LOCALHOST.", true}, {"localhost:8080", true}, {"api.localhost", true}, {"*.localhost", true}, {"*.dev.localhost", true},
		{"localhost.example.test", false}, {"mylocalhost", false}, {"*.example.test", false},
		// An address of the loopback is said as the loopback, not as an
		// address for allow-ip, which refuses it too.
		{"127.0.0.1", true}, {"127.0.0.1:8080", true}, {"[::1]:443", true}, {"127.0.0.0/8", true}, {"127.1.2.3/32", true},
		{"::1", true}, {"[::1]", true}, {"::ffff:127.0.0.1", true}, {"127.1", true},
		{"0x7f000001", true}, {"0x7f.1", true}, {"2130706433", true}, {"017700000001", true},
		// Names, not addresses: a number's label beside letters.
		{"1.example", false}, {"123.com", false}, {"0xdead.example", false}, {"0x.example", false}, {"1.2.3.4.example", false},
	} {
		_, err := ParseAllowHost(tc.host)
		if refused := errors.Is(err, ErrLoopback); refused != tc.refused || !tc.refused && err != nil {
			t.Errorf("ParseAllowHost(%q) = %v; want refused as the loopback: %v", tc.host, err, tc.refused)
		} else if tc.refused && (errors.Is(err, ErrAddressNotName) || !strings.Contains(err.Error(), "reaches over a network") || !strings.Contains(err.Error(), "or leave it out")) {
			t.Errorf("ParseAllowHost(%q): %v, want it to say what to do", tc.host, err)
		}
	}
}
