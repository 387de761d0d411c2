package egress

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"testing"

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
