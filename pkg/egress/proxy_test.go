package egress

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
)

// TestProxyRecordsOnlyPrintableBoundedText: what the command sends the
// recording proxy (an IPv6 zone, a malformed request line with a query)
// reaches the record as printable, bounded text, without the query.
func TestProxyRecordsOnlyPrintableBoundedText(t *testing.T) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	zone := "\x1bc\r\x08\x00\xffapi.github.com" + strings.Repeat("A", 30000)
	for _, req := range []string{
		"CONNECT [fe80::1%" + zone + "]:443 HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: [::1%\x1b(0\x07evil]:80\r\n\r\n",
		"GET http://h.test/p?token=s3cret HTTP/1.0 x\r\n\r\n",
		// A host name far longer than any DNS name: its first
		// maxRecorded bytes are kept.
		"CONNECT " + strings.Repeat("a", 20000) + ".test:443 HTTP/1.1\r\n\r\n",
	} {
		c, err := net.Dial("tcp", p.addr())
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(req))
		bufio.NewReader(c).ReadString('\n')
		c.Close()
	}
	p.stop()
	got := rec.list()
	if len(got) != 4 {
		t.Fatalf("%d entries, want 4: %+v", len(got), got)
	}
	for _, e := range got {
		for _, s := range []string{e.Host, e.IP, e.Detail} {
			if len(s) > maxRecorded+64 || strings.IndexFunc(s, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsPrint(r) }) >= 0 {
				t.Errorf("unsafe text in the record (%d bytes): %.80q", len(s), s)
			}
			if strings.Contains(s, "s3cret") {
				t.Errorf("the query string reached the record: %q", s)
			}
		}
	}
	if h := got[3].Host; len(h) != maxRecorded || strings.Trim(h, "a") != "" {
		t.Errorf("long host recorded as %d bytes (%.40q), want its first %d", len(h), h, maxRecorded)
	}
	if got[0].IP != "fe80::1" || got[1].IP != "::1" {
		t.Errorf("addresses %q, %q; want them without their zones", got[0].IP, got[1].IP)
	}
}

// TestProxyNamesHostsAsTheOtherWaysDo: a destination a request names is
// recorded as a CONNECT, a packet or a DNS question would name it: a Host
// header's bracketed IPv6 literal as an address, an IPv4-mapped address
// as the IPv4 one, a name without its final dot; a Host header whose port
// is not one, and a second Host header, make a malformed request, not a
// host.
func TestProxyNamesHostsAsTheOtherWaysDo(t *testing.T) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: [2001:db8::1]\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a.test:99999\r\n\r\n",
		"GET HTTP://I.TEST./ HTTP/1.1\r\n\r\n",
		"GET http://[::ffff:192.0.2.1]:8080/ HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: b.test\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: j.test:\r\n\r\n",
		"GET http://192.0.2.9./x HTTP/1.1\r\n\r\n",
		"CONNECT .:443 HTTP/1.1\r\n\r\n",
		// A Host header behind more headers than the proxy looks at
		// for a body's framing (it was left unread: "(no host)").
		"GET / HTTP/1.1\r\n" + strings.Repeat("X-Pad: 1\r\n", proxyMaxHeaders) + "Host: late.test\r\n\r\n",
		// A last header line the end of the connection cuts short (it
		// was left unread too).
		"GET / HTTP/1.1\r\nHost: cut.test",
		// IPv4 as inet_aton and URL parsers read it, not names.
		"GET http://3221225992/ HTTP/1.1\r\n\r\n",
		"GET http://0xc0.0.2.9/ HTTP/1.1\r\n\r\n",
		"CONNECT 0300.0.2.10:443 HTTP/1.1\r\n\r\n",
		"GET http://192.0.521/ HTTP/1.1\r\n\r\n",
		"GET http://1.2.3.256.test/ HTTP/1.1\r\n\r\n",
		// Two Host headers: which one a server takes is its own
		// choice; the first was recorded, the other not at all.
		"GET /two HTTP/1.1\r\nHost: allowed.test\r\nhost: evil.test\r\n\r\n",
		"GET /far HTTP/1.1\r\nHost: d.test\r\n" + strings.Repeat("X-Pad: 1\r\n", proxyMaxHeaders) + "Host: d.test\r\n\r\n",
		// An absolute URI names the host it is sent to; its Host
		// headers name the sites it asks that host for, each an entry
		// of its own (TestProxyNamesTheSiteAHostHeaderAsksFor).
		"GET http://abs.test/ HTTP/1.1\r\nHost: x.test\r\nHost: y.test\r\n\r\n",
		// An IPv6 zone written as in a URI (RFC 6874), in each place a
		// request names its host: zone eth0 (a CONNECT's and a Host
		// header's were 25eth0).
		"GET http://[fe80::1%25eth0]/z HTTP/1.1\r\n\r\n",
		"CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n",
		"GET /z HTTP/1.1\r\nHost: [fe80::1%25eth0]\r\n\r\n",
		"CONNECT [fe80::1%25e%74h1]:443 HTTP/1.1\r\n\r\n",
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
		got = append(got, fmt.Sprintf("host=%s ip=%s port=%d detail=%s", e.Host, e.IP, e.Port, e.Detail))
	}
	want := []string{
		"host= ip=2001:db8::1 port=80 detail=GET /",
		"host= ip= port=0 detail=malformed request: GET / HTTP/1.1",
		"host=i.test ip= port=80 detail=GET /",
		"host= ip=192.0.2.1 port=8080 detail=GET /",
		"host=b.test ip= port=80 detail=GET /",
		"host=j.test ip= port=80 detail=GET /", // an empty port is the default's
		"host= ip=192.0.2.9 port=80 detail=GET /x",
		"host= ip= port=0 detail=malformed request: CONNECT .:443 HTTP/1.1",
		"host=late.test ip= port=80 detail=GET /",
		"host=cut.test ip= port=80 detail=GET /",
		"host= ip=192.0.2.8 port=80 detail=GET / (written 3221225992)",
		"host= ip=192.0.2.9 port=80 detail=GET / (written 0xc0.0.2.9)",
		"host= ip=192.0.2.10 port=443 detail=CONNECT (written 0300.0.2.10)",
		"host= ip=192.0.2.9 port=80 detail=GET / (written 192.0.521)",
		"host=1.2.3.256.test ip= port=80 detail=GET /",
		"host= ip= port=0 detail=malformed request: GET /two HTTP/1.1",
		"host= ip= port=0 detail=malformed request: GET /far HTTP/1.1",
		"host=abs.test ip= port=80 detail=GET /",
		"host=x.test ip= port=80 detail=GET / (asked for by its Host header of a request sent to abs.test port 80)",
		"host=y.test ip= port=80 detail=GET / (asked for by its Host header of a request sent to abs.test port 80)",
		"host= ip=fe80::1 port=80 detail=GET /z (zone eth0)",
		"host= ip=fe80::1 port=443 detail=CONNECT (zone eth0)",
		"host= ip=fe80::1 port=443 detail=CONNECT (zone eth1)",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
}

// TestProxyWritesHostsAsTheDNSStubDoes: a host a request names is written
// in the record as the DNS stub writes the same name asked of it (ASCII
// letters lowered, every byte outside [a-z0-9-_*.] as \DDD), not as the
// request spelled it: a Host header "api.good.test (allowed), evil.test"
// was recorded with its spaces, comma and parentheses, and a report that
// lists the hosts a run tried, each followed by its verdict, showed one
// blocked request as an allowed api.good.test and a blocked evil.test
// (review); a name with bytes past ASCII was recorded as \xHH there and
// \DDD by the stub, its capitals lowered as Unicode (invalid UTF-8 made
// U+FFFD, so that different names read as one).
func TestProxyWritesHostsAsTheDNSStubDoes(t *testing.T) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		req    string
		labels [][]byte // the name, as a DNS question would carry it
	}{
		{"GET / HTTP/1.1\r\nHost: api.good.test (allowed), evil.test\r\n\r\n",
			[][]byte{[]byte("api"), []byte("good"), []byte("test (allowed), evil"), []byte("test")}},
		{"CONNECT B\xc3\x9cCHER.Test:443 HTTP/1.1\r\n\r\n", [][]byte{[]byte("B\xc3\x9cCHER"), []byte("Test")}},
		{"GET http://b%C3%BCcher.test/ HTTP/1.1\r\n\r\n", [][]byte{[]byte("b\xc3\xbccher"), []byte("test")}},
		{"CONNECT a\xffb.test:443 HTTP/1.1\r\n\r\n", [][]byte{[]byte("a\xffb"), []byte("test")}},
		{"CONNECT a\xfeb.test:443 HTTP/1.1\r\n\r\n", [][]byte{[]byte("a\xfeb"), []byte("test")}},
		// A Host header that names the URI's host adds no entry (one
		// that names another site is one: redteam26_test.go).
		{"GET http://x_y-*.test/ HTTP/1.1\r\nHost: X_Y-*.Test\r\n\r\n", [][]byte{[]byte("x_y-*"), []byte("test")}},
	}
	for _, c := range cases {
		conn, err := net.Dial("tcp", p.addr())
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte(c.req))
		bufio.NewReader(conn).ReadString('\n')
		conn.Close()
	}
	p.stop()
	var got, want []string
	for _, e := range rec.list() {
		got = append(got, e.Host)
	}
	for _, c := range cases {
		q, err := parseQuery(buildQuery(1, 1, c.labels...))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, q.Name)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hosts (-as the dns stub writes them +as the proxy recorded them):\n%s", d)
	}
	for _, h := range got {
		if strings.ContainsAny(h, " ,()") {
			t.Errorf("host %q has a character no host name has", h)
		}
	}
}

// TestProxyRequestIsStampedWhenReadWhole: a request whose headers the
// command holds back while it fills the record's cap is stamped when it
// is read whole, so it is lumped, not listed ahead of the destinations
// that took its place (the review found it first in the record and
// listed, with 10,000 later ones listed after it and one of them lumped).
func TestProxyRequestIsStampedWhenReadWhole(t *testing.T) {
	rec := newRecorder()
	p, err := startProxy("127.0.0.1:0", rec, nil, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", p.addr())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET http://early.test/ HTTP/1.1\r\n"))
	time.Sleep(100 * time.Millisecond) // the proxy reads the line meanwhile
	for i := range maxEntries {
		rec.add(time.Now(), evidence.Egress{IP: "198.51.100.1", Port: 1 + i, Proto: "udp", Via: evidence.ViaConnect})
	}
	c.Write([]byte("Host: early.test\r\n\r\n"))
	bufio.NewReader(c).ReadString('\n')
	c.Close()
	p.stop()
	got := rec.list()
	if len(got) != maxEntries+1 || got[0].Host == "early.test" || !got[maxEntries].Lumped() || got[maxEntries].Via != evidence.ViaProxy {
		t.Errorf("%d entries, first %+v, last %+v; want the %d datagrams listed and the request lumped after them", len(got), got[0], got[len(got)-1], maxEntries)
	}
}
