package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/nftables"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

func TestValidatePolicy(t *testing.T) {
	allow := func(a ...string) evidence.EgressPolicy {
		return evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: a}
	}
	tests := []struct {
		name string
		p    evidence.EgressPolicy
		ok   bool
	}{
		{"zero value is deny", evidence.EgressPolicy{}, true},
		{"record", evidence.EgressPolicy{Mode: evidence.EgressRecord}, true},
		{"unknown mode", evidence.EgressPolicy{Mode: "open"}, false},
		{"allow list in deny", evidence.EgressPolicy{Allow: []string{"a.example.test"}}, false},
		{"allow-ip in record", evidence.EgressPolicy{Mode: evidence.EgressRecord, AllowIP: []string{"192.0.2.0/24"}}, false},
		{"exact name", allow("api.example.test"), true},
		{"name with port", allow("api.example.test:443"), true},
		{"trailing dot and upper case", allow("API.Example.Test."), true},
		{"wildcard", allow("*.example.test"), true},
		{"wildcard on a single label", allow("*.test"), false},
		{"wildcard in the middle", allow("a.*.example.test"), false},
		{"bare star", allow("*"), false},
		{"port zero", allow("a.example.test:0"), false},
		{"port too big", allow("a.example.test:65536"), false},
		{"empty port", allow("a.example.test:"), false},
		{"ip literal", allow("192.0.2.1"), false},
		{"ipv6 literal", allow("[2001:db8::1]:443"), false},
		{"quote", allow(`a".example.test`), false},
		{"newline", allow("a\n.example.test"), false},
		{"space", allow("a .example.test"), false},
		{"empty label", allow("a..example.test"), false},
		{"label too long", allow(strings.Repeat("a", 64) + ".test"), false},
		{"name too long", allow(strings.Repeat("a.", 127) + "test"), false},
		{"leading hyphen", allow("-a.example.test"), false},
		{"empty", allow(""), false},
		{"allow-ip cidr and address", evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"192.0.2.0/24", "2001:db8::1", "10.0.0.1"}}, true},
		{"allow-ip garbage", evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"10.0.0.0/33"}}, false},
		{"allow-ip mapped", evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"::ffff:10.0.0.0/104"}}, false},
		{"upstream address", evidence.EgressPolicy{DNSUpstream: "192.0.2.53"}, true},
		{"upstream with port", evidence.EgressPolicy{DNSUpstream: "192.0.2.53:5353"}, true},
		{"upstream ipv6", evidence.EgressPolicy{DNSUpstream: "[2001:db8::53]:53"}, true},
		{"upstream bare ipv6", evidence.EgressPolicy{DNSUpstream: "2001:db8::53"}, true},
		{"upstream name", evidence.EgressPolicy{DNSUpstream: "dns.example.test"}, false},
		{"upstream port zero", evidence.EgressPolicy{DNSUpstream: "192.0.2.53:0"}, false},
		{"upstream loopback", evidence.EgressPolicy{DNSUpstream: "127.0.0.1:5353"}, false},
		{"upstream loopback v6", evidence.EgressPolicy{DNSUpstream: "[::1]:53"}, false},
		{"upstream mapped loopback", evidence.EgressPolicy{DNSUpstream: "[::ffff:127.0.0.53]:53"}, false},
		{"upstream unspecified", evidence.EgressPolicy{DNSUpstream: "0.0.0.0"}, false},
		{"upstream deny-mode source", evidence.EgressPolicy{DNSUpstream: "10.254.254.1:5353"}, false},
		{"connector pasta", evidence.EgressPolicy{Mode: evidence.EgressAllow, Connector: "pasta"}, true},
		{"connector unknown", evidence.EgressPolicy{Mode: evidence.EgressAllow, Connector: "vpn"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidatePolicy(tt.p)
			if (err == nil) != tt.ok {
				t.Fatalf("ValidatePolicy(%+v) = %v, want ok=%v", tt.p, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrBadPolicy) {
				t.Errorf("error %v does not wrap ErrBadPolicy", err)
			}
		})
	}
}

// TestParseAllowNamesAURL: a URL given as --allow is called one (as the
// policy file's parser does), not blamed on a port it does not have.
func TestParseAllowNamesAURL(t *testing.T) {
	for _, s := range []string{"http://x.test", "https://api.example.test:443/v1", "x.test/path"} {
		_, err := parseAllow(s)
		if err == nil || !strings.Contains(err.Error(), "not a URL") || strings.Contains(err.Error(), "port") {
			t.Errorf("parseAllow(%q) = %v, want it to say it is a URL, not a bad port", s, err)
		}
		if !errors.Is(err, ErrBadPolicy) {
			t.Errorf("parseAllow(%q) = %v: does not wrap ErrBadPolicy", s, err)
		}
	}
}

func TestAllowMatching(t *testing.T) {
	pol, err := compilePolicy(evidence.EgressPolicy{Mode: evidence.EgressAllow,
		Allow: []string{"api.example.test", "*.cdn.example.test:443"}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host string
		want []allowRule
	}{
		{"api.example.test", []allowRule{{name: "api.example.test"}}},
		{"x.api.example.test", nil},
		{"cdn.example.test", nil},
		{"a.cdn.example.test", []allowRule{{name: "cdn.example.test", wildcard: true, port: 443}}},
		{"a.b.cdn.example.test", []allowRule{{name: "cdn.example.test", wildcard: true, port: 443}}},
		{"xcdn.example.test", nil},
		// A wildcard holds strict subdomains, split at a dot: not a name
		// that ends in the suffix's text, nor the suffix under an empty
		// label.
		{"evilcdn.example.test", nil},
		{"a.evilcdn.example.test", nil},
		{".cdn.example.test", nil},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, pol.allowedName(tt.host), cmp.AllowUnexported(allowRule{})); d != "" {
			t.Errorf("allowedName(%q) (-want +got):\n%s", tt.host, d)
		}
	}
}

func TestRefusedAnswer(t *testing.T) {
	tests := map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "169.254.169.254": "link-local", "fe80::1": "link-local",
		"10.1.2.3": "private", "172.16.0.1": "private", "192.168.1.1": "private", "fd00::1": "private",
		"0.0.0.0": "unspecified", "::": "unspecified", "::ffff:127.0.0.1": "loopback", "::ffff:169.254.169.254": "link-local",
		"100.64.0.1": "reserved", "224.0.0.1": "link-local", "239.1.2.3": "multicast", "255.255.255.255": "broadcast",
		"198.18.0.3": "", "203.0.113.7": "", "2001:db8::1": "",
		// Azure's WireServer, a public address only the VM's host answers.
		"168.63.129.16": "cloud platform", "::ffff:168.63.129.16": "cloud platform", "64:ff9b::a83f:8110": "cloud platform",
		"168.63.129.17": "",
		// NAT64 (RFC 6052): the well-known prefix is judged by the IPv4
		// address a gateway takes it to; the local-use one is reserved.
		"64:ff9b::a9fe:a9fe": "link-local", "64:ff9b::7f00:1": "loopback", "64:ff9b::a00:5": "private",
		"64:ff9b::": "unspecified", "64:ff9b::cb00:7107": "", "64:ff9b:1::cb00:7107": "reserved",
		// 6to4 (RFC 3056): the IPv4 address in bits 16–47, where a host's
		// 6to4 tunnel sends it.
		"2002:a9fe:a9fe::1": "link-local", "2002:a00:5::1": "private", "2002:7f00:1::": "loopback",
		"2002:a83f:8110::1": "cloud platform", "2002:cb00:7107::1": "",
		// IPv4-compatible (RFC 4291, which Linux's sit0 tunnels) and
		// IPv4-translated (RFC 2765): the last 32 bits.
		"::a9fe:a9fe": "link-local", "::c0a8:101": "private", "::cb00:7107": "", "::2": "reserved",
		"::ffff:0:a9fe:a9fe": "link-local", "::ffff:0:cb00:7107": "",
		// Teredo (RFC 4380): the server's IPv4 address in bits 32–63, the
		// client's inverted in the last 32; either refused refuses it.
		"2001:0:cb00:7107:8000:ffff:5601:5601": "link-local", "2001:0:a00:1::34ff:8ef7": "private",
		"2001:0:cb00:7107::34ff:8ef7": "",
	}
	for a, want := range tests {
		if got := (&dnsStub{pol: &policy{}}).answerRefusal(netip.MustParseAddr(a)); got != want {
			t.Errorf("answerRefusal(%s) without host addresses or --allow-ip = %q, want %q", a, got, want)
		}
	}
}

// TestAnswerRefusal: the stub's filter of an allowlisted name's answer
// refuses, besides refusedAddr's ranges, the host's own addresses
// (through the connector a connection to one comes from the host itself),
// NAT64 and 6to4 ones leading there too, unless --allow-ip covers the
// address or the IPv4 address it leads to; and
// before the init hands the host's addresses over, only the ranges.
func TestAnswerRefusal(t *testing.T) {
	pol, err := compilePolicy(evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"a.example.test"},
		AllowIP: []string{"203.0.113.9", "2001:db8:9::/48", "10.0.0.6"}})
	if err != nil {
		t.Fatal(err)
	}
	var host []netip.Prefix
	for _, a := range []string{"203.0.113.5", "2001:db8:5::1", "203.0.113.9", "2001:db8:9::1", "127.0.0.1", "::ffff:198.51.100.5"} {
		host = append(host, netip.PrefixFrom(netip.MustParseAddr(a), netip.MustParseAddr(a).BitLen()))
	}
	// Ranges the host's routing tables deliver locally (ip route add
	// local 192.0.2.0/24 dev lo): every address of them is the host's.
	host = append(host, netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("2001:db8:77::/64"),
		netip.MustParsePrefix("::ffff:198.51.101.0/120"))
	for _, tt := range []struct {
		addr string
		host bool // the host's addresses handed over
		want string
	}{
		{"203.0.113.5", true, "host"},
		{"::ffff:203.0.113.5", true, "host"},
		{"2001:db8:5::1", true, "host"},
		{"198.51.100.5", true, "host"}, // handed over IPv4-mapped
		{"64:ff9b::cb00:7105", true, "host"},
		{"203.0.113.9", true, ""},   // covered by --allow-ip
		{"2001:db8:9::1", true, ""}, // covered by --allow-ip
		{"203.0.113.6", true, ""},
		{"127.0.0.1", true, "loopback"}, // its own range first
		{"10.0.0.6", true, ""},          // private, covered by --allow-ip
		{"64:ff9b::a9fe:a9fe", true, "link-local"},
		{"203.0.113.5", false, ""},
		{"192.0.2.77", true, "host"},        // in a local route's range
		{"2001:db8:77::9", true, "host"},    // in a local route's range
		{"198.51.101.9", true, "host"},      // in one handed over IPv4-mapped
		{"64:ff9b::c000:24d", true, "host"}, // NAT64 of 192.0.2.77
		{"2002:cb00:7105::1", true, "host"}, // 6to4 of 203.0.113.5
		{"2002:a00:6::1", true, ""},         // 6to4 of 10.0.0.6, covered by --allow-ip
		{"2002:a00:7::1", true, "private"},  // 6to4 of 10.0.0.7
		{"2001:db8:9::a00:7", true, ""},     // covered itself by --allow-ip
		{"::ffff:0:cb00:7109", true, ""},    // IPv4-translated 203.0.113.9, covered by --allow-ip
		{"192.0.3.1", true, ""},
	} {
		s := &dnsStub{pol: pol}
		if tt.host {
			s.setHost(host)
		}
		if got := s.answerRefusal(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("answerRefusal(%s) with the host's addresses %v = %q, want %q", tt.addr, tt.host, got, tt.want)
		}
	}
}

func TestUpstreamFromResolvConf(t *testing.T) {
	tests := []struct{ conf, want string }{
		{"nameserver 127.0.0.53\noptions edns0\n", ""},
		{"# c\nnameserver 127.0.0.53\nnameserver 192.0.2.53\n", "192.0.2.53:53"},
		{"nameserver ::1\nnameserver 2001:db8::53\n", "[2001:db8::53]:53"},
		{"nameserver fe80::1%eth0\nnameserver 0.0.0.0\n", ""},
		{"search example.test\n", ""},
	}
	for _, tt := range tests {
		if got := upstreamFromResolvConf([]byte(tt.conf)); got != tt.want {
			t.Errorf("upstreamFromResolvConf(%q) = %q, want %q", tt.conf, got, tt.want)
		}
	}
}

func TestAllowIPElements(t *testing.T) {
	got := allowIPElements([]netip.Prefix{
		netip.MustParsePrefix("203.0.113.7/32"), netip.MustParsePrefix("203.0.113.0/24"),
		netip.MustParsePrefix("255.255.255.0/24"), netip.MustParsePrefix("2001:db8::/32"),
	})
	keys := func(name string) []string {
		var out []string
		for _, e := range got[name] {
			a, _ := netip.AddrFromSlice(e.Key)
			s := a.String()
			if e.IntervalEnd {
				s = "end " + s
			}
			out = append(out, s)
		}
		return out
	}
	if d := cmp.Diff([]string{"203.0.113.0", "end 203.0.114.0", "255.255.255.0"}, keys(setAllowIP4)); d != "" {
		t.Errorf("ipv4 elements (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"2001:db8::", "end 2001:db9::"}, keys(setAllowIP6)); d != "" {
		t.Errorf("ipv6 elements (-want +got):\n%s", d)
	}
}

func TestParseRequestLine(t *testing.T) {
	tests := []struct {
		line string
		want proxyRequest
		ok   bool
	}{
		{"GET http://api.example.test/a/b?secret=1 HTTP/1.1", proxyRequest{"GET", "api.example.test", 80, "/a/b"}, true},
		{"POST https://API.example.test:8443/x#f HTTP/1.1", proxyRequest{"POST", "api.example.test", 8443, "/x"}, true},
		{"GET http://api.example.test HTTP/1.0", proxyRequest{"GET", "api.example.test", 80, "/"}, true},
		{"GET http://user:pw@api.example.test/ HTTP/1.1", proxyRequest{"GET", "api.example.test", 80, "/"}, true},
		{"GET http://[2001:db8::1]:8080/p HTTP/1.1", proxyRequest{"GET", "2001:db8::1", 8080, "/p"}, true},
		{"GET ws://api.example.test/socket HTTP/1.1", proxyRequest{"GET", "api.example.test", 80, "/socket"}, true},
		{"CONNECT api.example.test:443 HTTP/1.1", proxyRequest{"CONNECT", "api.example.test", 443, ""}, true},
		{"CONNECT [2001:DB8::5]:8443 HTTP/1.1", proxyRequest{"CONNECT", "2001:db8::5", 8443, ""}, true},
		{"CONNECT 203.0.113.7:22 HTTP/1.1", proxyRequest{"CONNECT", "203.0.113.7", 22, ""}, true},
		{"GET /only/path?x HTTP/1.1", proxyRequest{"GET", "", 0, "/only/path"}, true},
		{"CONNECT api.example.test HTTP/1.1", proxyRequest{}, false},
		{"CONNECT api.example.test:0 HTTP/1.1", proxyRequest{}, false},
		{"CONNECT :443 HTTP/1.1", proxyRequest{}, false},
		{"GET http://api.example.test:99999/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://api.example.test:0/ HTTP/1.1", proxyRequest{}, false},
		// A colon outside brackets: no host a client reaches (it was
		// read as host 2001:db8: port 1, host a.test:80 port 81).
		{"GET http://2001:db8::1/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://a.test:80:81/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://::1:80/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://[a.test]/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://[fe80::1%25eth0]/ HTTP/1.1", proxyRequest{"GET", "fe80::1%eth0", 80, "/"}, true},
		{"GET gopher://api.example.test/ HTTP/1.1", proxyRequest{}, false},
		{"GET http://api.example.test/ HTTP/2", proxyRequest{}, false},
		{"GET  http://api.example.test/ HTTP/1.1", proxyRequest{}, false},
		{"G(T http://api.example.test/ HTTP/1.1", proxyRequest{}, false},
		{"GET", proxyRequest{}, false},
		{"", proxyRequest{}, false},
	}
	for _, tt := range tests {
		got, err := parseRequestLine(tt.line)
		if (err == nil) != tt.ok {
			t.Errorf("parseRequestLine(%q) error %v, want ok=%v", tt.line, err, tt.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Errorf("error %v does not wrap ErrBadRequest", err)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("parseRequestLine(%q) = %+v, want %+v", tt.line, got, tt.want)
		}
	}
}

func TestParseQuery(t *testing.T) {
	plain := buildQuery(7, 1, []byte("API"), []byte("example"), []byte("test"))
	q, err := parseQuery(plain)
	if err != nil {
		t.Fatal(err)
	}
	want := dnsQuestion{ID: 7, Flags: 0x0100, Name: "api.example.test", LDH: true, Type: 1, Class: 1, Raw: plain[12:]}
	if d := cmp.Diff(want, q); d != "" {
		t.Errorf("plain query (-want +got):\n%s", d)
	}
	q, err = parseQuery(buildQuery(8, 28, []byte("a.b"), []byte("x\"y\n"), []byte("test")))
	if err != nil {
		t.Fatal(err)
	}
	if q.Name != `a\046b.x\034y\010.test` || q.LDH {
		t.Errorf("escaped name = %q (ldh %v)", q.Name, q.LDH)
	}
	// The root is named ".", never an empty host, and matches no rule.
	if q, err := parseQuery(buildQuery(9, 2)); err != nil || q.Name != "." || q.LDH {
		t.Errorf("root query = %q (ldh %v), %v; want \".\", not LDH", q.Name, q.LDH, err)
	}
	// A pointer loop, a pointer past the end, a response, no question,
	// a truncated question.
	loop := append(plain[:12:12], 0xc0, 12, 0, 1, 0, 1)
	past := append(plain[:12:12], 0xc0, 200, 0, 1, 0, 1)
	resp := append([]byte{}, plain...)
	resp[2] |= 0x80
	noq := append([]byte{}, plain...)
	binary.BigEndian.PutUint16(noq[4:], 0)
	for name, b := range map[string][]byte{"loop": loop, "past": past, "response": resp, "no question": noq,
		"truncated": plain[:len(plain)-2], "short": plain[:5], "long label": append(plain[:12:12], 0x40)} {
		if _, err := parseQuery(b); !errors.Is(err, ErrBadDNS) {
			t.Errorf("%s: err = %v, want ErrBadDNS", name, err)
		}
	}
	// A compressed name pointing back into the header region (to the ID's
	// first byte, 0: the root) still parses, but is not echoed: Raw,
	// which answers copy, is only a name written out in full.
	ptr := append(plain[:12:12], 0xc0, 0, 0, 1, 0, 1)
	if q, err := parseQuery(ptr); err != nil || q.Name != "." || q.Raw != nil {
		t.Errorf("a name that points into the header: %q (raw %q), %v; want \".\", parsed, no raw question", q.Name, q.Raw, err)
	}
}

func TestRcodeOnly(t *testing.T) {
	q, err := parseQuery(buildQuery(0xbeef, 1, []byte("x"), []byte("test")))
	if err != nil {
		t.Fatal(err)
	}
	out := rcodeOnly(q, 3)
	if binary.BigEndian.Uint16(out[0:]) != 0xbeef || out[3]&0x0f != 3 || out[2]&0x80 == 0 || binary.BigEndian.Uint16(out[4:]) != 1 {
		t.Errorf("answer header % x", out[:12])
	}
	if string(out[12:]) != string(q.Raw) {
		t.Errorf("question not echoed")
	}
}

func TestParseIPPacket(t *testing.T) {
	v4 := make([]byte, 24)
	v4[0], v4[9] = 0x45, 6
	binary.BigEndian.PutUint16(v4[2:], 60)
	copy(v4[16:20], []byte{203, 0, 113, 7})
	binary.BigEndian.PutUint16(v4[22:], 443)
	v6 := make([]byte, 48)
	v6[0], v6[6] = 0x60, 0 // hop-by-hop, then UDP
	binary.BigEndian.PutUint16(v6[4:], 8)
	copy(v6[24:40], netip.MustParseAddr("2001:db8::7").AsSlice())
	v6[40], v6[41] = 17, 0
	v6 = append(v6, 0, 0, 0, 53, 0, 0, 0, 0)
	binary.BigEndian.PutUint16(v6[48+2:], 53)
	// A first fragment: the fragment header (8 bytes), then TCP.
	frag := make([]byte, 48, 48+20)
	frag[0], frag[6] = 0x60, 44
	binary.BigEndian.PutUint16(frag[4:], 8+20)
	copy(frag[24:40], netip.MustParseAddr("2001:db8::7").AsSlice())
	frag[40] = unix.IPPROTO_TCP
	frag = append(frag, make([]byte, 20)...)
	binary.BigEndian.PutUint16(frag[48+2:], 443)
	lite := append([]byte{}, v4...)
	lite[9] = unix.IPPROTO_UDPLITE
	icmp := append([]byte{}, v4...)
	icmp[9] = unix.IPPROTO_ICMP
	// A question to port 53, as the wall logs it: whole, with two
	// questions; cut short inside the first name (a snapshot without
	// room for it); a response.
	query := buildQuery(9, 1, []byte("Leak"), []byte("example"), []byte("test"))
	query[5] = 2
	query = append(query, 0xc0, 17, 0, 28, 0, 1) // example.test, compressed
	dnsPacket := func(msg []byte) []byte {
		p := make([]byte, 28, 28+len(msg))
		p[0], p[9] = 0x45, unix.IPPROTO_UDP
		binary.BigEndian.PutUint16(p[2:], uint16(28+len(msg)))
		copy(p[16:20], []byte{192, 0, 2, 53})
		binary.BigEndian.PutUint16(p[22:], 53)
		return append(p, msg...)
	}
	resp := append([]byte{}, query...)
	resp[2] |= 0x80
	// A SYN to port 53 with a question in it (TCP Fast Open): a TCP
	// header with 20 bytes of options, the message's length, the message.
	tfoPacket := func(msg []byte) []byte {
		p := make([]byte, 20+40, 20+40+2+len(msg))
		p[0], p[9] = 0x45, unix.IPPROTO_TCP
		binary.BigEndian.PutUint16(p[2:], uint16(len(p)+2+len(msg)))
		copy(p[16:20], []byte{192, 0, 2, 53})
		binary.BigEndian.PutUint16(p[22:], 53)
		p[32], p[33] = 10<<4, 0x02 // data offset 40, SYN
		p = binary.BigEndian.AppendUint16(p, uint16(len(msg)))
		return append(p, msg...)
	}
	tfoEvent := func(length int, qs ...string) packetEvent {
		return packetEvent{dst: netip.MustParseAddr("192.0.2.53"), proto: "tcp", port: 53, length: length, questions: qs}
	}
	dnsEvent := func(length int, qs ...string) packetEvent {
		return packetEvent{dst: netip.MustParseAddr("192.0.2.53"), proto: "udp", port: 53, length: length, questions: qs}
	}
	tests := []struct {
		name string
		p    []byte
		want packetEvent
		ok   bool
	}{
		{"ipv4 tcp", v4, packetEvent{dst: netip.MustParseAddr("203.0.113.7"), proto: "tcp", port: 443, length: 60}, true},
		{"ipv4 udp-lite", lite, packetEvent{dst: netip.MustParseAddr("203.0.113.7"), proto: "udplite", port: 443, length: 60}, true},
		{"ipv4 icmp", icmp, packetEvent{dst: netip.MustParseAddr("203.0.113.7"), proto: "icmp", length: 60}, true},
		{"ipv6 hop-by-hop then udp", v6, packetEvent{dst: netip.MustParseAddr("2001:db8::7"), proto: "udp", port: 53, length: 48}, true},
		{"ipv6 fragment then tcp", frag, packetEvent{dst: netip.MustParseAddr("2001:db8::7"), proto: "tcp", port: 443, length: 68}, true},
		{"ipv4 dns question", dnsPacket(query), dnsEvent(28+len(query), "leak.example.test", "example.test"), true},
		{"ipv4 dns question cut short", dnsPacket(query)[:28+16], dnsEvent(28 + len(query)), true},
		{"ipv4 dns response", dnsPacket(resp), dnsEvent(28 + len(resp)), true},
		{"ipv4 dns questions past the snapshot", dnsPacket(query)[:28+len(query)-6], func() packetEvent {
			ev := dnsEvent(28+len(query), "leak.example.test")
			ev.unread = 1
			return ev
		}(), true},
		{"ipv4 dns question in a syn", tfoPacket(query), tfoEvent(62+len(query), "leak.example.test", "example.test"), true},
		{"ipv4 syn to port 53 without data", tfoPacket(nil)[:60], tfoEvent(62), true},
		{"short", v4[:10], packetEvent{}, false},
		{"version 5", []byte{0x50, 1, 2}, packetEvent{}, false},
	}
	for _, tt := range tests {
		var ev packetEvent
		ok := parseIPPacket(tt.p, &ev)
		if ok != tt.ok || ok && !reflect.DeepEqual(ev, tt.want) {
			t.Errorf("%s: got %+v %v, want %+v %v", tt.name, ev, ok, tt.want, tt.ok)
		}
	}
}

// TestParseFragments: a fragment past the first (IPv4 fragment offset, or
// an IPv6 fragment header's, not 0) holds no transport header: its bytes
// are the middle of a datagram, and the parser read ports and a DNS
// question from them. It is recorded with its address and protocol, no
// port and no question; a first fragment (offset 0, more fragments to
// come) holds the header, and its ports are read.
func TestParseFragments(t *testing.T) {
	dst4, dst6 := netip.MustParseAddr("192.0.2.53"), netip.MustParseAddr("2001:db8::53")
	// What looks like a UDP header to port 53 and a question, as a
	// datagram's middle may.
	query := buildQuery(9, 1, []byte("leak"), []byte("example"), []byte("test"))
	udp53 := append([]byte{0x9c, 0x40, 0, 53, 0, byte(8 + len(query)), 0, 0}, query...)
	v4 := func(fragField uint16, options ...byte) []byte {
		ihl := 20 + len(options)
		p := make([]byte, ihl, ihl+len(udp53))
		p[0], p[9] = 0x40|byte(ihl/4), unix.IPPROTO_UDP
		binary.BigEndian.PutUint16(p[2:], uint16(ihl+len(udp53)))
		binary.BigEndian.PutUint16(p[6:], fragField)
		copy(p[16:20], dst4.AsSlice())
		copy(p[20:], options)
		return append(p, udp53...)
	}
	// v6 is an IPv6 packet with the given extension headers (each
	// starting with its next header, which this fills in), then udp53.
	v6 := func(hdrs ...[]byte) []byte {
		p := make([]byte, 40)
		p[0] = 0x60
		copy(p[24:40], dst6.AsSlice())
		next := &p[6]
		for _, h := range hdrs {
			switch len(h) {
			case 8:
				*next = unix.IPPROTO_FRAGMENT
			default:
				*next = unix.IPPROTO_ROUTING
			}
			p = append(p, h...)
			next = &p[len(p)-len(h)]
		}
		*next = unix.IPPROTO_UDP
		p = append(p, udp53...)
		binary.BigEndian.PutUint16(p[4:], uint16(len(p)-40))
		return p
	}
	frag6 := func(offset uint16, more bool) []byte {
		h := make([]byte, 8)
		v := offset << 3
		if more {
			v |= 1
		}
		binary.BigEndian.PutUint16(h[2:], v)
		binary.BigEndian.PutUint32(h[4:], 0x76690001)
		return h
	}
	// A segment routing header with one segment left, whose first
	// segment is the final destination.
	final := netip.MustParseAddr("2001:db8::aaaa")
	srh := append([]byte{0, 2, 4, 1, 0, 0, 0, 0}, final.AsSlice()...)
	lsrr := append([]byte{1, 131, 7, 4}, netip.MustParseAddr("198.51.100.10").AsSlice()...)
	destOpts := v6(frag6(185, false))
	destOpts[40] = 60 // the fragmentable part starts with destination options
	named := func(dst netip.Addr, p []byte, qs ...string) packetEvent {
		return packetEvent{dst: dst, proto: "udp", port: 53, length: len(p), questions: qs}
	}
	bare := func(dst netip.Addr, proto string, p []byte) packetEvent {
		return packetEvent{dst: dst, proto: proto, length: len(p)}
	}
	for _, tt := range []struct {
		name string
		p    []byte
		want packetEvent
	}{
		{"ipv4 unfragmented", v4(0), named(dst4, v4(0), "leak.example.test")},
		{"ipv4 don't fragment", v4(0x4000), named(dst4, v4(0x4000), "leak.example.test")},
		{"ipv4 first fragment", v4(0x2000), named(dst4, v4(0x2000), "leak.example.test")},
		{"ipv4 middle fragment", v4(0x2000 | 185), bare(dst4, "udp", v4(0x2000|185))},
		{"ipv4 last fragment", v4(370), bare(dst4, "udp", v4(370))},
		{"ipv4 last fragment, offset 8 bytes", v4(1), bare(dst4, "udp", v4(1))},
		{"ipv4 fragment with a source route", v4(185, lsrr...), bare(netip.MustParseAddr("198.51.100.10"), "udp", v4(185, lsrr...))},
		{"ipv6 first fragment", v6(frag6(0, true)), named(dst6, v6(frag6(0, true)), "leak.example.test")},
		{"ipv6 middle fragment", v6(frag6(185, true)), bare(dst6, "udp", v6(frag6(185, true)))},
		{"ipv6 last fragment", v6(frag6(1, false)), bare(dst6, "udp", v6(frag6(1, false)))},
		{"ipv6 routed fragment", v6(srh, frag6(185, false)), bare(final, "udp", v6(srh, frag6(185, false)))},
		// The fragment header names the first header of the datagram's
		// fragmentable part, which this fragment does not start with.
		{"ipv6 fragment of destination options", destOpts, bare(dst6, "ip-proto-60", destOpts)},
	} {
		var ev packetEvent
		if !parseIPPacket(tt.p, &ev) || !reflect.DeepEqual(ev, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, ev, tt.want)
		}
	}
}

// TestDecodeFlowsPorts: a flow of a protocol with ports keeps its port, as
// the logged packet that named it does (an entry with packets counted must
// be the entry of its attempts); ICMP's two bytes there are no port.
func TestDecodeFlowsPorts(t *testing.T) {
	key := func(proto byte, port uint16) []byte { return elemKey(netip.MustParseAddr("203.0.113.7"), proto, port) }
	got := decodeFlows([]nftables.SetElement{
		{Key: key(unix.IPPROTO_UDPLITE, 4444)}, {Key: key(unix.IPPROTO_ICMP, 0xbeef)}, {Key: key(unix.IPPROTO_TCP, 443)}})
	want := []string{"udplite 4444", "icmp 0", "tcp 443"}
	for i, f := range got {
		if s := fmt.Sprintf("%s %d", f.proto, f.port); i >= len(want) || s != want[i] {
			t.Errorf("flow %d: %s, want %v", i, s, want)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d flows, want %d", len(got), len(want))
	}
}

func TestRecorderDedupAndOrder(t *testing.T) {
	r := newRecorder()
	t0 := time.Unix(100, 0)
	r.add(t0.Add(2*time.Second), evidence.Egress{Host: "b.example.test", Via: evidence.ViaDNS, Proto: "dns"})
	r.add(t0, evidence.Egress{Host: "a.example.test", Via: evidence.ViaDNS, Proto: "dns"})
	r.add(t0.Add(3*time.Second), evidence.Egress{Host: "b.example.test", Via: evidence.ViaDNS, Proto: "dns"})
	r.nameAddr(netip.MustParseAddr("198.18.0.3"), "a.example.test", nil)
	r.addPacket(packetEvent{at: t0.Add(time.Second), dropped: false, dst: netip.MustParseAddr("198.18.0.3"), proto: "tcp", port: 443})
	r.addFlows([]flowCount{{addr: netip.MustParseAddr("198.18.0.3"), proto: "tcp", port: 443, packets: 5, bytes: 900}})
	// The same destination refused is an entry of its own: an attempt let
	// through and one refused are never counted as one.
	r.addPacket(packetEvent{at: t0.Add(4 * time.Second), dropped: true, dst: netip.MustParseAddr("198.18.0.3"), proto: "tcp", port: 443})
	got := r.list()
	want := []evidence.Egress{
		{Host: "a.example.test", Via: evidence.ViaDNS, Proto: "dns", Attempts: 1},
		{Host: "a.example.test", IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Packets: 5, Bytes: 900},
		{Host: "b.example.test", Via: evidence.ViaDNS, Proto: "dns", Attempts: 2},
		{Host: "a.example.test", IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	big := newRecorder()
	for i := 0; i < maxEntries+50; i++ {
		big.add(t0, evidence.Egress{Host: fmt.Sprintf("h%d.example.test", i), Via: evidence.ViaDNS, Proto: "dns"})
	}
	// What came of questions (a failed upstream, a refused answer) is no
	// attempt: past the cap it is not lumped with them (the lump counted
	// the questions twice).
	big.add(t0, evidence.Egress{Host: "h0.example.test", Via: evidence.ViaDNS, Proto: "dns", Allowed: true, Detail: "upstream failed"})
	big.add(t0, evidence.Egress{Host: "h1.example.test", IP: "127.0.0.1", Via: evidence.ViaDNS, Proto: "dns", Detail: refusedDetail("loopback")})
	// An attempt let through past the cap is lumped apart from those
	// refused: the lump says which way its attempts went.
	big.add(t0, evidence.Egress{Host: "allowed.example.test", Via: evidence.ViaDNS, Proto: "dns", Allowed: true})
	all := big.list()
	if len(all) != maxEntries+2 || !all[maxEntries].Lumped() || all[maxEntries].Attempts != 50 || all[maxEntries].Allowed ||
		!all[maxEntries+1].Lumped() || all[maxEntries+1].Attempts != 1 || !all[maxEntries+1].Allowed {
		t.Errorf("overflow: %d entries, last two %+v", len(all), all[max(len(all)-2, 0):])
	}
	if empty := newRecorder().list(); empty == nil || len(empty) != 0 {
		t.Errorf("an empty record must be [] not nil: %#v", empty)
	}
}

// TestRecorderNamesFlowsAtTheirFirstPacket: a flow's counts go to the
// entry its first accepted packet went to, named as the address was then.
// A connection by address made before any lookup, then a lookup of an
// allowlisted name resolving to that address, made two entries: one with
// the attempt and no bytes, one with no attempts and all the bytes under a
// name the connection never used.
func TestRecorderNamesFlowsAtTheirFirstPacket(t *testing.T) {
	t0 := time.Unix(100, 0)
	a := netip.MustParseAddr("198.18.0.3")
	dnsEntry := evidence.Egress{Host: "a.example.test", Via: evidence.ViaDNS, Proto: "dns", Allowed: true}
	for _, tt := range []struct {
		name  string
		steps func(r *recorder)
		want  []evidence.Egress
	}{
		{"connect, then the name resolves there", func(r *recorder) {
			r.addPacket(packetEvent{at: t0, dst: a, proto: "tcp", port: 443})
			r.add(t0.Add(time.Second), dnsEntry)
			r.nameAddr(a, "a.example.test", nil)
		}, []evidence.Egress{
			{IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Packets: 7, Bytes: 900},
			{Host: "a.example.test", Via: evidence.ViaDNS, Proto: "dns", Allowed: true, Attempts: 1},
		}},
		{"then a second connection by name", func(r *recorder) {
			r.addPacket(packetEvent{at: t0, dst: a, proto: "tcp", port: 443})
			r.nameAddr(a, "a.example.test", nil)
			r.addPacket(packetEvent{at: t0.Add(time.Second), dst: a, proto: "tcp", port: 443})
		}, []evidence.Egress{
			// One flow, one counter: its counts stay with the first.
			{IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Packets: 7, Bytes: 900},
			{Host: "a.example.test", IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		}},
		{"a dropped packet first", func(r *recorder) {
			r.addPacket(packetEvent{at: t0, dropped: true, dst: a, proto: "tcp", port: 443})
			r.nameAddr(a, "a.example.test", nil)
			r.addPacket(packetEvent{at: t0.Add(time.Second), dst: a, proto: "tcp", port: 443})
		}, []evidence.Egress{
			{IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
			{Host: "a.example.test", IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Packets: 7, Bytes: 900},
		}},
		{"no packet logged: named at Finish", func(r *recorder) {
			r.nameAddr(a, "a.example.test", nil)
		}, []evidence.Egress{
			{Host: "a.example.test", IP: "198.18.0.3", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Packets: 7, Bytes: 900},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecorder()
			tt.steps(r)
			r.addFlows([]flowCount{{addr: a, proto: "tcp", port: 443, packets: 7, bytes: 900}})
			if d := cmp.Diff(tt.want, r.list()); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
		})
	}
}

func FuzzParseRequestLine(f *testing.F) {
	for _, s := range []string{
		"GET http://api.example.test/a?b HTTP/1.1", "CONNECT [2001:db8::1]:443 HTTP/1.1",
		"CONNECT a:1 HTTP/1.0", "GET /p HTTP/1.1", "POST https://x:0/ HTTP/1.1", "GET http://[::1%25eth0]/ HTTP/1.1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRequestLine(line)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error %v does not wrap ErrBadRequest", err)
			}
			return
		}
		if r.Method == "" || r.Port < 0 || r.Port > 65535 || (r.Host != "" && (r.Port == 0)) {
			t.Fatalf("inconsistent request %+v from %q", r, line)
		}
		if strings.ContainsAny(r.Path, "?#") {
			t.Fatalf("path keeps a query: %q", r.Path)
		}
		if c := clip(r.Host); !utf8.ValidString(c) || strings.ContainsAny(c, "\n\r\x00") {
			t.Fatalf("clip let a raw byte through: %q", c)
		}
	})
}

func FuzzParseQuery(f *testing.F) {
	f.Add(buildQuery(1, 1, []byte("api"), []byte("example"), []byte("test")))
	f.Add(buildQuery(2, 28, hostileLabels()...))
	f.Add(append(buildQuery(3, 1)[:12], 0xc0, 12, 0, 1, 0, 1))
	f.Fuzz(func(t *testing.T, b []byte) {
		q, err := parseQuery(b)
		if err != nil {
			if !errors.Is(err, ErrBadDNS) {
				t.Fatalf("error %v does not wrap ErrBadDNS", err)
			}
			// The record of a malformed query is printable, bounded, and
			// never names a host.
			e := malformedQuery(q, err)
			for i := 0; i < len(e.Detail); i++ {
				if c := e.Detail[i]; c < 0x20 || c > 0x7e {
					t.Fatalf("detail %q holds a raw byte %#x", e.Detail, c)
				}
			}
			if len(e.Detail) > len("malformed query: ")+100+2+maxRecorded || e.Host != "" {
				t.Fatalf("malformed query recorded as %+v", e)
			}
			return
		}
		for i := 0; i < len(q.Name); i++ {
			if c := q.Name[i]; c < 0x21 || c > 0x7e {
				t.Fatalf("name %q holds a raw byte %#x", q.Name, c)
			}
		}
		if len(q.Name) > 255*4 {
			t.Fatalf("name of %d characters", len(q.Name))
		}
		if q.LDH && strings.Trim(q.Name, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
			t.Fatalf("LDH name %q holds other characters", q.Name)
		}
		if q.Raw != nil {
			out := rcodeOnly(q, 3)
			back, err := parseQuery(append(append([]byte{}, out[:2]...), append([]byte{0, 0}, out[4:]...)...))
			if err != nil || back.Name != q.Name {
				t.Fatalf("echoed question does not parse back: %v", err)
			}
		}
	})
}

// FuzzParseIPPacket: the logged packets are built by the command, so
// their headers are hostile too.
func FuzzParseIPPacket(f *testing.F) {
	f.Add([]byte{0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6, 0, 0, 10, 0, 0, 1, 203, 0, 113, 7, 0x1f, 0x90, 1, 187})
	f.Add(append([]byte{0x60, 0, 0, 0, 0, 8, 0, 64}, make([]byte, 48)...))
	f.Add([]byte{0x4f})
	q := buildQuery(5, 1, []byte("a"), []byte("test"))
	f.Add(append([]byte{0x45, 0, 0, byte(28 + len(q)), 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 192, 0, 2, 53, 0x9c, 0x40, 0, 53, 0, byte(8 + len(q)), 0, 0}, q...))
	// The same bytes as a fragment past the first (offset 1480), over
	// IPv4 and behind an IPv6 fragment header.
	f.Add(append([]byte{0x45, 0, 0, byte(28 + len(q)), 0, 0, 0, 185, 64, 17, 0, 0, 10, 0, 0, 1, 192, 0, 2, 53, 0x9c, 0x40, 0, 53, 0, byte(8 + len(q)), 0, 0}, q...))
	f.Add(append(append(append([]byte{0x60, 0, 0, 0, 0, byte(16 + len(q)), 44, 64}, make([]byte, 32)...),
		17, 0, 0x05, 0xc9, 0, 0, 0, 1, 0x9c, 0x40, 0, 53, 0, byte(8+len(q)), 0, 0), q...))
	// An IGMPv3 report (router alert option) and an MLDv2 report (behind
	// a hop-by-hop header), each a record with a source.
	f.Add([]byte{0x46, 0, 0, 44, 0, 0, 0, 0, 1, 2, 0, 0, 10, 0, 0, 1, 224, 0, 0, 22, 148, 4, 0, 0,
		0x22, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 1, 239, 26, 0, 1, 192, 0, 2, 1})
	mld := append([]byte{0x60, 0, 0, 0, 0, 52, 0, 1}, make([]byte, 16)...)
	mld = append(mld, 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16)
	mld = append(mld, 58, 0, 5, 2, 0, 0, 1, 0, 143, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 1)
	mld = append(mld, netip.MustParseAddr("ff0e::26:1").AsSlice()...)
	f.Add(append(mld, netip.MustParseAddr("2001:db8::1").AsSlice()...))
	f.Fuzz(func(t *testing.T, p []byte) {
		var ev packetEvent
		if parseIPPacket(p, &ev) && !ev.dst.IsValid() {
			t.Fatalf("parsed without a destination: %+v", ev)
		}
		// Groups are read from membership reports alone, and each is
		// a multicast group of the command's (not the kernel's own).
		if len(ev.groups) > 0 && ev.proto != "ip-proto-2" && ev.proto != "icmp" {
			t.Fatalf("groups read from a %s packet: %+v", ev.proto, ev)
		}
		for _, m := range ev.groups {
			if !m.group.IsMulticast() || ownGroup(m.group) || m.source.IsValid() && m.source.Is4() != m.group.Is4() {
				t.Fatalf("member %+v", m)
			}
		}
		// A fragment past the first holds no transport header: no port,
		// no question (an IPv6 fragment header checked where it comes
		// first; the walk past others is the parser's own).
		if len(p) >= 20 && p[0]>>4 == 4 && binary.BigEndian.Uint16(p[6:8])&0x1fff != 0 ||
			len(p) >= 48 && p[0]>>4 == 6 && p[6] == unix.IPPROTO_FRAGMENT && binary.BigEndian.Uint16(p[42:44])&0xfff8 != 0 {
			if ev.port != 0 || len(ev.questions) > 0 || ev.unread != 0 {
				t.Fatalf("a fragment past the first read as if it held ports: %+v", ev)
			}
		}
		if len(ev.questions) > 0 && !(ev.proto == "udp" && slices.Contains(questionPorts, ev.port) || ev.proto == "tcp" && ev.port == 53) {
			t.Fatalf("questions read from a packet that is no datagram to port 53, 5353 or 5355 or segment to port 53: %+v", ev)
		}
		for _, n := range ev.questions {
			// A name the record holds is printable ASCII, as the
			// stub writes it (hostText).
			if n == "" || strings.ContainsFunc(n, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
				t.Fatalf("question name %q", n)
			}
		}
		_, _ = parseNFLOGPacket(p)
	})
}

// TestRecorderSaysWhenItNamesNoMore: past maxNames resolved addresses an
// allowed connect to an address with no name says its name may be one
// vigiles did not keep (the review found such connects listed bare, as if
// no name had led there); a refused one, which no answer admitted, does not.
func TestRecorderSaysWhenItNamesNoMore(t *testing.T) {
	r := newRecorder()
	base := netip.MustParseAddr("198.18.0.0").As4()
	for i := range maxNames + 1 {
		b := base
		b[2], b[3] = byte(i>>8), byte(i)
		if i == maxNames {
			b[1] = 19
		}
		r.nameAddr(netip.AddrFrom4(b), "many.test", nil)
	}
	t0 := time.Unix(100, 0)
	first, last := netip.MustParseAddr("198.18.0.5"), netip.MustParseAddr("198.19.0.0")
	r.addPacket(packetEvent{at: t0, dst: first, proto: "tcp", port: 80})
	r.addPacket(packetEvent{at: t0.Add(time.Second), dst: last, proto: "tcp", port: 80})
	r.addPacket(packetEvent{at: t0.Add(2 * time.Second), dropped: true, dst: last, proto: "tcp", port: 81})
	want := []evidence.Egress{
		{Host: "many.test", IP: "198.18.0.5", Port: 80, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		{IP: "198.19.0.0", Port: 80, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Detail: unnamedDetail},
		{IP: "198.19.0.0", Port: 81, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
	}
	if d := cmp.Diff(want, r.list()); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

// TestRecorderNamesAConnectByTheRuleThatAdmitsIt: two allowed names on one
// address, good.test on 443 alone and shared.test on any port. A connect
// to port 80 went through by shared.test's rule, and was named good.test,
// the first name seen, which reads as good.test allowed on 80; it is
// shared.test's. A connect to 443 keeps the first name; a refused one,
// which no rule admitted, too.
func TestRecorderNamesAConnectByTheRuleThatAdmitsIt(t *testing.T) {
	r := newRecorder()
	a := netip.MustParseAddr("198.18.0.7")
	r.nameAddr(a, "good.test", []allowRule{{name: "good.test", port: 443}})
	r.nameAddr(a, "shared.test", []allowRule{{name: "shared.test"}})
	r.nameAddr(a, "good.test", nil) // seen again: no second entry
	t0 := time.Unix(100, 0)
	r.addPacket(packetEvent{at: t0, dst: a, proto: "tcp", port: 80})
	r.addPacket(packetEvent{at: t0.Add(time.Second), dst: a, proto: "tcp", port: 443})
	r.addPacket(packetEvent{at: t0.Add(2 * time.Second), dropped: true, dst: a, proto: "tcp", port: 22})
	want := []evidence.Egress{
		{Host: "shared.test", IP: "198.18.0.7", Port: 80, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		{Host: "good.test", IP: "198.18.0.7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		{Host: "good.test", IP: "198.18.0.7", Port: 22, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
	}
	if d := cmp.Diff(want, r.list()); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	if r.named != 2 {
		t.Errorf("names kept: %d, want 2", r.named)
	}
}

// TestRecorderBoundsNamesPerAddress: names of one address are kept up to
// maxNamesPerAddr (each new one was compared with all before it: a
// wildcard zone resolving every name to one address made the stub's path
// quadratic); a connect is named by one of them.
func TestRecorderBoundsNamesPerAddress(t *testing.T) {
	r := newRecorder()
	a := netip.MustParseAddr("198.18.0.9")
	for i := range 1000 {
		r.nameAddr(a, fmt.Sprintf("n%d.wild.test", i), []allowRule{{name: "wild.test", wildcard: true}})
	}
	if len(r.names[a]) != maxNamesPerAddr || r.named != maxNamesPerAddr {
		t.Errorf("%d names kept for one address (%d in all), want %d", len(r.names[a]), r.named, maxNamesPerAddr)
	}
	if e := r.connectLocked(a, "tcp", 443, true); e.Host != "n0.wild.test" {
		t.Errorf("connect named %q, want the first name", e.Host)
	}
}
