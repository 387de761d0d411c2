package egress

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProxyNamesTheSiteAHostHeaderAsksFor: a request through the
// recording proxy whose absolute URI names one host and whose Host header
// another (curl -H 'Host: evil.test' http://front.test/) asks front.test's
// address for the site evil.test: without a proxy, as under Claude Code,
// the client connects to front.test and the server (a CDN that serves both
// from one address) answers as evil.test. The record named front.test
// alone, and a hook reached any site behind an address it was let reach
// with egress-only passing it; now the site the Host header asks for is an
// entry of its own, an attempt at that site through the URI's host and
// port, and each further Host header (which server takes which is its own
// choice) is named as well. A Host header that names the URI's host, or
// none, adds nothing; a CONNECT's Host header carries nothing to the server.
func TestProxyNamesTheSiteAHostHeaderAsksFor(t *testing.T) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{
		"GET http://front.test/p?k=s3cret HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://same.test:8080/ HTTP/1.1\r\nHost: SAME.test.:8080\r\n\r\n",
		"GET http://none.test/ HTTP/1.1\r\n\r\n",
		"POST http://front2.test/up HTTP/1.1\r\nHost: front2.test\r\nhost: second.test\r\nContent-Length: 3\r\n\r\nabc",
		"GET http://front3.test/ HTTP/1.1\r\nHost: [2001:db8::7]:8080\r\n\r\n",
		"GET http://front4.test/ HTTP/1.1\r\nHost: api.good.test (allowed), evil.test\r\n\r\n",
		"GET http://front5.test/ HTTP/1.1\r\nHost: x.test:99999\r\n\r\n",
		"CONNECT front6.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n",
		// A zone written as a URI writes it is read as an origin-form
		// request's Host header is.
		"GET http://front8.test/ HTTP/1.1\r\nHost: [fe80::1%25eth0]\r\n\r\n",
		// A Host header far longer than any name: its first
		// maxRecorded bytes are named, and no more is kept.
		"GET http://front7.test/ HTTP/1.1\r\nHost: front7.test\r\nHost: " + strings.Repeat("a", 20000) + ".test\r\n\r\n",
	} {
		c, err := net.Dial("tcp", p.addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(req))
		c.(*net.TCPConn).CloseWrite()
		bufio.NewReader(c).ReadString('\n')
		c.Close()
	}
	p.stop()
	var got []string
	for _, e := range rec.list() {
		got = append(got, fmt.Sprintf("host=%s ip=%s port=%d proto=%s detail=%s", e.Host, e.IP, e.Port, e.Proto, e.Detail))
	}
	want := []string{
		"host=front.test ip= port=80 proto=http detail=GET /p",
		"host=evil.test ip= port=80 proto=http detail=GET /p (asked for by its Host header of a request sent to front.test port 80)",
		"host=same.test ip= port=8080 proto=http detail=GET /",
		"host=none.test ip= port=80 proto=http detail=GET /",
		"host=front2.test ip= port=80 proto=http detail=POST /up",
		"host=second.test ip= port=80 proto=http detail=POST /up (asked for by its Host header of a request sent to front2.test port 80)",
		"host=front3.test ip= port=80 proto=http detail=GET /",
		"host= ip=2001:db8::7 port=80 proto=http detail=GET / (asked for by its Host header of a request sent to front3.test port 80)",
		"host=front4.test ip= port=80 proto=http detail=GET /",
		`host=api.good.test\032\040allowed\041\044\032evil.test ip= port=80 proto=http detail=GET / (asked for by its Host header of a request sent to front4.test port 80)`,
		"host=front5.test ip= port=80 proto=http detail=GET /",
		"host=x.test ip= port=80 proto=http detail=GET / (asked for by its Host header of a request sent to front5.test port 80)",
		"host=front6.test ip= port=443 proto=tcp detail=CONNECT",
		"host=front8.test ip= port=80 proto=http detail=GET /",
		"host= ip=fe80::1 port=80 proto=http detail=GET / (zone eth0) (asked for by its Host header of a request sent to front8.test port 80)",
		"host=front7.test ip= port=80 proto=http detail=GET /",
		"host=" + strings.Repeat("a", maxRecorded) + " ip= port=80 proto=http detail=GET / (asked for by its Host header of a request sent to front7.test port 80)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	for _, g := range got {
		if strings.Contains(g, "s3cret") {
			t.Errorf("the query string reached the record: %q", g)
		}
	}
}

// BenchmarkProxyRequestWithHostHeader is the recording proxy's cost of
// one absolute-form request with a Host header, from the dial to its
// answer (what naming the Host header's site adds to a request's path).
func BenchmarkProxyRequestWithHostHeader(b *testing.B) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, b.Logf)
	if err != nil {
		b.Fatal(err)
	}
	defer p.stop()
	req := []byte("GET http://front.test/p HTTP/1.1\r\nHost: front.test\r\nUser-Agent: bench\r\n\r\n")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := net.Dial("tcp", p.addr())
		if err != nil {
			b.Fatal(err)
		}
		c.Write(req)
		c.(*net.TCPConn).CloseWrite()
		bufio.NewReader(c).ReadString('\n')
		c.Close()
	}
}

// TestMembershipGroupsAreRead: the groups an IGMP or MLD report names are
// read from the packet the wall logged, as far as its snapshot holds them:
// IGMPv2's report and leave, IGMPv3's and MLDv2's records (with sources and
// auxiliary data to step over, each source named for its group), MLDv1's
// report and done; the kernel's own
// groups (all-hosts, all-nodes, solicited-node) are left out, a record cut
// short is not read, and a query (type 0x11, 130) names none.
func TestMembershipGroupsAreRead(t *testing.T) {
	a4 := func(s string) []byte { return netip.MustParseAddr(s).AsSlice() }
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	igmp3 := cat([]byte{0x22, 0, 0, 0, 0, 0, 0, 3},
		[]byte{4, 0, 0, 2}, a4("239.26.0.1"), a4("192.0.2.1"), a4("192.0.2.2"), // two sources
		[]byte{4, 1, 0, 0}, a4("239.26.0.2"), []byte{9, 9, 9, 9}, // a word of aux data
		[]byte{4, 0, 0, 0}, a4("224.0.0.1"))
	mld2 := cat([]byte{143, 0, 0, 0, 0, 0, 0, 4},
		[]byte{4, 0, 0, 1}, a4("ff0e::26:1"), a4("2001:db8::1"),
		[]byte{4, 0, 0, 0}, a4("ff02::1:ff12:3456"),
		[]byte{4, 0, 0, 0}, a4("ff05::26:2"),
		[]byte{4, 0, 0, 0}, a4("ff0e::26:3")[:8]) // cut short
	for _, c := range []struct {
		name  string
		proto byte
		l4    []byte
		want  []string
	}{
		{"igmp2 report", 2, cat([]byte{0x16, 0, 0, 0}, a4("239.26.0.9")), []string{"239.26.0.9"}},
		{"igmp2 leave", 2, cat([]byte{0x17, 0, 0, 0}, a4("239.26.0.9")), []string{"239.26.0.9"}},
		{"igmp query", 2, cat([]byte{0x11, 0, 0, 0}, a4("239.26.0.9")), nil},
		{"igmp3 report", 2, igmp3, []string{"239.26.0.1", "192.0.2.1 for 239.26.0.1", "192.0.2.2 for 239.26.0.1", "239.26.0.2"}},
		{"mld1 report", 58, cat([]byte{131, 0, 0, 0, 0, 0, 0, 0}, a4("ff0e::26:9")), []string{"ff0e::26:9"}},
		{"mld1 done", 58, cat([]byte{132, 0, 0, 0, 0, 0, 0, 0}, a4("ff0e::26:9")), []string{"ff0e::26:9"}},
		{"mld query", 58, cat([]byte{130, 0, 0, 0, 0, 0, 0, 0}, a4("ff0e::26:9")), nil},
		{"mld2 report", 58, mld2, []string{"ff0e::26:1", "2001:db8::1 for ff0e::26:1", "ff05::26:2"}},
		{"echo request", 58, cat([]byte{128, 0, 0, 0, 0, 0, 0, 0}, a4("ff0e::26:9")), nil},
	} {
		var got []string
		for _, m := range membershipGroups(c.proto, c.l4) {
			if m.source.IsValid() {
				got = append(got, m.source.String()+" for "+m.group.String())
				continue
			}
			got = append(got, m.group.String())
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s: groups (-want +got):\n%s", c.name, d)
		}
	}
}

// TestGroupEntriesPastTheCap: past the entries a record names one by one,
// a group read from a report the wall refused is left out (the report's
// own entry, or the lump, counts the attempt), and one read from an MLD
// report the wall let through, the attempt itself, is lumped with the
// other attempts, never lost.
func TestGroupEntriesPastTheCap(t *testing.T) {
	r := newRecorder()
	t0 := time.Now()
	for i := range maxEntries {
		r.addPacket(packetEvent{at: t0, dropped: true, dst: netip.AddrFrom4([4]byte{198, 18, byte(i >> 8), byte(i)}), proto: "udp", port: 9})
	}
	r.addPacket(packetEvent{at: t0, dropped: true, dst: netip.MustParseAddr("ff02::16"), proto: "icmp",
		groups: []member{{group: netip.MustParseAddr("ff0e::26:1")}}})
	r.addPacket(packetEvent{at: t0, groupsOnly: true, dst: netip.MustParseAddr("ff02::16"), proto: "icmp",
		groups: []member{{group: netip.MustParseAddr("ff0e::26:2")}}})
	all := r.list()
	if len(all) != maxEntries+1 {
		t.Fatalf("%d entries, want %d and a lump", len(all), maxEntries)
	}
	if l := all[maxEntries]; !l.Lumped() || l.Attempts != 2 {
		t.Errorf("lump %+v, want the refused report and the group that went out: 2 attempts", l)
	}
}
