package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestEgressOnlyHostInRecordedForm: an egress-only address is compared in
// the form the record names it (::1, 10.200.0.2), whichever form it is
// written in; one no record ever names (127.1, 0x7f.0.0.1, a zone, a
// wildcard over an address, a name not in ASCII) is refused with the form
// to write, its port kept (the form without it would allow every port).
// Before, "0:0:0:0:0:0:0:1" and "::ffff:10.200.0.2" were kept
// and failed every run that reached them, and "*.0.0.1" allowed any
// x.0.0.1.
func TestEgressOnlyHostInRecordedForm(t *testing.T) {
	for _, tc := range []struct {
		pat string
		e   evidence.Egress
	}{
		{"0:0:0:0:0:0:0:1", evidence.Egress{IP: "::1", Port: 80, Proto: "tcp", Via: evidence.ViaConnect}},
		{"::FFFF:10.200.0.2", evidence.Egress{IP: "10.200.0.2", Port: 80, Proto: "tcp", Via: evidence.ViaConnect}},
		{"[fd42:0:0:0::2]:443", evidence.Egress{IP: "fd42::2", Port: 443, Proto: "tcp", Via: evidence.ViaConnect}},
		{"10.200.0.2.", evidence.Egress{IP: "10.200.0.2", Port: 80, Proto: "tcp", Via: evidence.ViaConnect}},
		{"xn--bcher-kva.test", evidence.Egress{Host: "xn--bcher-kva.test", Proto: "dns", Via: evidence.ViaDNS}},
	} {
		p, err := ParseHostPattern(tc.pat)
		if err != nil {
			t.Errorf("%q: %v", tc.pat, err)
			continue
		}
		if !anyHost([]HostPattern{p}, tc.e) {
			t.Errorf("egress-only [%s] does not take %+v", tc.pat, tc.e)
		}
	}
	for pat, want := range map[string]string{
		"127.1":           "write 127.0.0.1",
		"0x7f.0.0.1":      "write 127.0.0.1",
		"010.200.0.2":     "write 8.200.0.2",
		"2130706433":      "write 127.0.0.1 (a port goes after its host",
		"fe80::1%eth0":    "recorded without its zone: write fe80::1",
		"*.0.0.1":         "a wildcard matches host names, not addresses",
		"*.fd42::2":       "a wildcard matches host names, not addresses",
		"bücher.test":     "xn-- (punycode) form",
		"[::1%lo]:443":    "recorded without its zone: write [::1]:443",
		"0x7f.0.0.1:8080": "write 127.0.0.1:8080",
	} {
		if _, err := ParseHostPattern(pat); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want one that says %q", pat, err, want)
		}
	}
	// In a policy, at the entry.
	_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {egress-only: [api.example.test, \"127.1\"]}}\n")
	if !strings.HasPrefix(errs, `.vigiles.yml:2:68: egress-only: host "127.1"`) {
		t.Errorf("errors %q", errs)
	}
}
