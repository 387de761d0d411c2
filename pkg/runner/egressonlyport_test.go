package runner

import (
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestEgressOnlyPortIsTheAttempts: an egress-only entry with a port takes
// an attempt at that port only. A packet's port is known, 0 and none
// included: a TCP connect to port 0, or an ICMP packet, to the address of
// "198.51.100.7:443" is no attempt at port 443, and fails the check. A
// DNS question, whose port no record can know, is taken by the name.
func TestEgressOnlyPortIsTheAttempts(t *testing.T) {
	p, err := ParseHostPattern("198.51.100.7:443")
	if err != nil {
		t.Fatal(err)
	}
	n, err := ParseHostPattern("api.example.test:443")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseHostPattern("localhost:4000")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		pat  HostPattern
		e    evidence.Egress
		want bool
	}{
		{"tcp 443", p, evidence.Egress{IP: "198.51.100.7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect}, true},
		{"tcp 80", p, evidence.Egress{IP: "198.51.100.7", Port: 80, Proto: "tcp", Via: evidence.ViaConnect}, false},
		{"tcp 0", p, evidence.Egress{IP: "198.51.100.7", Port: 0, Proto: "tcp", Via: evidence.ViaConnect}, false},
		{"udp 0", p, evidence.Egress{IP: "198.51.100.7", Port: 0, Proto: "udp", Via: evidence.ViaConnect}, false},
		{"icmp", p, evidence.Egress{IP: "198.51.100.7", Proto: "icmp", Via: evidence.ViaConnect}, false},
		{"ip-proto-253", p, evidence.Egress{IP: "198.51.100.7", Proto: "ip-proto-253", Via: evidence.ViaConnect}, false},
		{"dns question", n, evidence.Egress{Host: "api.example.test", Proto: "dns", Via: evidence.ViaDNS}, true},
		{"proxy 443", n, evidence.Egress{Host: "api.example.test", Port: 443, Proto: "http", Via: evidence.ViaProxy}, true},
		{"proxy 80", n, evidence.Egress{Host: "api.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy}, false},
		{"loopback 4000", l, evidence.Egress{IP: "127.0.0.1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback}, true},
		{"loopback 0", l, evidence.Egress{IP: "127.0.0.1", Port: 0, Proto: "tcp", Via: evidence.ViaLoopback}, false},
	}
	for _, tc := range tests {
		if got := anyHost([]HostPattern{tc.pat}, tc.e); got != tc.want {
			t.Errorf("%s: egress-only [%s] takes %+v = %v, want %v", tc.name, tc.pat.Src, tc.e, got, tc.want)
		}
	}
}
