package egress

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"unicode"
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
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(got), got)
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
	if got[0].IP != "fe80::1" || got[1].IP != "::1" {
		t.Errorf("addresses %q, %q; want them without their zones", got[0].IP, got[1].IP)
	}
}
