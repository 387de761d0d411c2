package egress

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
)

// malformedCase is a message that is no query the stub can read, the
// detail of the entry that records it, and the answer's rcode ("none":
// no answer).
type malformedCase struct {
	name   string
	msg    []byte
	detail string
	rcode  string
}

func malformedCases() []malformedCase {
	var long [][]byte
	for i := range 5 {
		long = append(long, []byte(strings.Repeat(string(rune('a'+i)), 63)))
	}
	badLabel := buildQuery(2, 1, []byte("probe"))
	badLabel = append(badLabel[:12+1+len("probe")], 0x40, 't', 0, 0, 1, 0, 1)
	cut := buildQuery(3, 1, []byte("cut"), []byte("example"), []byte("test"))
	noq := buildQuery(4, 1, []byte("noq"), []byte("example"), []byte("test"))
	binary.BigEndian.PutUint16(noq[4:], 0)
	resp := buildQuery(5, 1, []byte("resp"), []byte("example"), []byte("test"))
	resp[2] |= 0x80
	two := buildQuery(6, 1, []byte("first"), []byte("example"), []byte("test"))
	binary.BigEndian.PutUint16(two[4:], 2)
	return []malformedCase{
		{"a name over 255 bytes", buildQuery(1, 1, long...),
			"malformed query: name longer than 255 bytes: " + strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63), "1"},
		{"a label that is none", badLabel, "malformed query: label type 0x40: probe", "1"},
		{"a question cut short", cut[:len(cut)-2], "malformed query: question truncated: cut.example.test", "1"},
		{"no question", noq, "malformed query: no question", "1"},
		{"shorter than a header", []byte{0, 7, 1, 0, 0}, "malformed query: 5 bytes, shorter than a header", "none"},
		{"a response", resp, "malformed query: a response, not a query", "none"},
		// Its first question is recorded and answered as any.
		{"two questions counted, one there", two, "malformed query: 1 of its 2 questions could not be read", "3"},
	}
}

// TestDNSStubRecordsMalformedQueries: a message sent to the DNS stub that
// is no query it can read (a name over 255 bytes, a label that is none, a
// question cut short, no question, fewer than a header's bytes, a
// response, a second question that is not there) is an attempt: recorded,
// over UDP and over TCP, in deny and record mode, as the proxy records a
// request line it cannot read (no host, a detail that says what was
// wrong), and answered FORMERR where it has a query's header. The stub
// recorded nothing for them.
func TestDNSStubRecordsMalformedQueries(t *testing.T) {
	needNamespaces(t)
	cases := malformedCases()
	var script strings.Builder
	script.WriteString("import binascii\ncases = [\n")
	for _, c := range cases {
		fmt.Fprintf(&script, "    (%q, binascii.unhexlify(%q)),\n", c.name, fmt.Sprintf("%x", c.msg))
	}
	script.WriteString(`]
def rcode(b):
    return str(b[3] & 0x0f) if len(b) >= 12 else "none"
for name, m in cases:
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(2)
    u.sendto(m, ("127.0.0.1", 53))
    try:
        got = rcode(u.recv(4096))
    except socket.timeout:
        got = "none"
    print("udp|%s|%s" % (name, got))
    s = socket.create_connection(("127.0.0.1", 53))
    s.sendall(struct.pack(">H", len(m)) + m)
    s.shutdown(socket.SHUT_WR)
    data = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        data += b
    print("tcp|%s|%s" % (name, rcode(data[2:]) if len(data) > 2 else "none"))
`)
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		t.Run(mode, func(t *testing.T) {
			res := lossRun(t, mode, pyProbe(script.String()))
			if res.FinishErr != "" {
				t.Errorf("finish: %s", res.FinishErr)
			}
			answers := map[string]string{}
			for _, l := range strings.Split(res.Probes[0].Output, "\n") {
				if f := strings.Split(l, "|"); len(f) == 3 {
					answers[f[0]+" "+f[1]] = f[2]
				}
			}
			for _, c := range cases {
				e, _, ok := find(res.Egress, func(e evidence.Egress) bool {
					return e.Via == evidence.ViaDNS && e.Detail == c.detail
				})
				if !ok {
					js, _ := json.MarshalIndent(res.Egress, "", "  ")
					t.Errorf("%s: no entry with detail %q in:\n%s", c.name, c.detail, js)
					continue
				}
				if e.Host != "" || e.IP != "" || e.Port != 0 || e.Proto != "dns" || e.Allowed || e.Attempts != 2 {
					t.Errorf("%s: entry %+v, want one of no host, proto dns, not allowed, 2 attempts (UDP and TCP)", c.name, e)
				}
				for _, proto := range []string{"udp", "tcp"} {
					if got := answers[proto+" "+c.name]; got != c.rcode {
						t.Errorf("%s over %s: answer rcode %q, want %q", c.name, proto, got, c.rcode)
					}
				}
			}
			if n := attempts(res.Egress, evidence.ViaDNS, "first.example.test"); n != 2 {
				t.Errorf("the question read from the message of two: %d attempts, want 2", n)
			}
		})
	}
}

// TestMalformedQueryIsAnAttempt: past the record's cap a malformed query
// is lumped with the other attempts, not left out as a DNS entry with a
// detail was (what came of questions counted elsewhere).
func TestMalformedQueryIsAnAttempt(t *testing.T) {
	t0 := time.Unix(100, 0)
	r := newRecorder()
	for i := range maxEntries {
		r.add(t0, evidence.Egress{Host: fmt.Sprintf("h%d.example.test", i), Via: evidence.ViaDNS, Proto: "dns"})
	}
	r.add(t0, malformedQuery(dnsQuestion{}, fmt.Errorf("no question: %w", ErrBadDNS)))
	all := r.list()
	if len(all) != maxEntries+1 || !all[maxEntries].Lumped() || all[maxEntries].Attempts != 1 {
		t.Errorf("a malformed query past the cap: %d entries, last %+v; want it lumped, 1 attempt", len(all), all[len(all)-1])
	}
}
