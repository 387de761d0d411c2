package egress

// Loss tests: whatever the command sends the DNS stub (over TCP too) and
// the recording proxy is recorded, or Finish says the record is not whole
// (ErrIncomplete). Each drives a real session in a namespaced child (the
// harness in harness_test.go) with a Python client that floods, pipelines
// or holds connections idle and then exits at once, as a hostile command
// would; only loopback and names under .example are used.

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// pyPrelude is the Python the probes share: the descriptor limit raised to
// its hard limit, DNS queries (tcpq frames one for TCP) and the proxy's
// address.
const pyPrelude = `
import os, socket, struct, resource
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def dnsq(i, name):
    wire = b"".join(bytes([len(l)]) + l for l in name.encode().split(b".")) + b"\x00"
    return struct.pack(">HHHHHH", i & 0xffff, 0x100, 1, 0, 0, 0) + wire + b"\x00\x01\x00\x01"
def tcpq(i, name):
    m = dnsq(i, name)
    return struct.pack(">H", len(m)) + m
def proxy():
    return ("127.0.0.1", int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1]))
`

// pyProbe runs script (after pyPrelude) as a probe.
func pyProbe(script string) string {
	return "sh:python3 - <<'PY'\n" + pyPrelude + script + "\nPY\n"
}

// lossRun runs probes in a sandbox child of the given mode and fails on a
// setup error.
func lossRun(t *testing.T, mode string, probes ...string) childResult {
	t.Helper()
	for _, p := range probes {
		if strings.HasPrefix(p, "sh:python3 ") {
			needTools(t, "python3")
		}
	}
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: mode}, Probes: probes}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	for i, p := range res.Probes {
		if p.Code != 0 {
			t.Fatalf("probe %d failed (%d): %s", i, p.Code, p.Output)
		}
	}
	return res
}

// attempts sums the attempts of the entries seen via via for host.
func attempts(es []evidence.Egress, via evidence.Via, host string) int {
	n := 0
	for _, e := range es {
		if e.Via == via && e.Host == host {
			n += e.Attempts
		}
	}
	return n
}

// incomplete reports whether the child's Finish said the record is not
// whole (the error crossed a process boundary as text).
func incomplete(res childResult) bool {
	return strings.Contains(res.FinishErr, ErrIncomplete.Error())
}

// wantWhole fails unless Finish returned no error and every name in want
// has its count of attempts via via.
func wantWhole(t *testing.T, res childResult, via evidence.Via, want map[string]int) {
	t.Helper()
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	var wrong []string
	for host, n := range want {
		if got := attempts(res.Egress, via, host); got != n {
			wrong = append(wrong, fmt.Sprintf("%s: %d attempts, want %d", host, got, n))
		}
	}
	sort.Strings(wrong)
	if len(wrong) > 0 {
		t.Errorf("%d of %d hosts not recorded as sent via %s: %s", len(wrong), len(want), via, strings.Join(wrong[:min(len(wrong), 8)], "; "))
	}
}

// TestDNSOverTCPFloodIsRecorded: 64 connections held idle, then 1,500
// connections each sending one question, then the secret, then an exit
// without reading an answer. Every question is recorded: the stub reads
// the connections still queued and open once the command is gone.
func TestDNSOverTCPFloodIsRecorded(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, pyProbe(`
keep = [socket.create_connection(("127.0.0.1", 53)) for _ in range(64)]
for i in range(1500):
    s = socket.create_connection(("127.0.0.1", 53))
    s.sendall(tcpq(i, "junk.example"))
    keep.append(s)
s = socket.create_connection(("127.0.0.1", 53))
s.sendall(tcpq(0, "secret-exfil.example"))
os._exit(0)
`))
	wantWhole(t, res, evidence.ViaDNS, map[string]int{"junk.example": 1500, "secret-exfil.example": 1})
}

// TestDNSOverTCPPipelineIsRecorded: 2,000 questions and then a secret on
// one connection, and an exit without reading the answers. The stub keeps
// reading when it cannot answer. Sent in one write, every question is
// recorded. Sent in one write each, the client's kernel holds the last
// ones back until the stub acknowledges those before (Nagle's algorithm),
// and throws them away when the exit resets the connection: every
// question is recorded, or the record is called incomplete.
func TestDNSOverTCPPipelineIsRecorded(t *testing.T) {
	needNamespaces(t)
	for _, each := range []bool{false, true} {
		var probes []string
		want := map[string]int{}
		for r := 0; r < 2; r++ {
			send := "s.sendall(b\"\".join(qs))"
			if each {
				send = "for q in qs: s.sendall(q)"
			}
			probes = append(probes, pyProbe(fmt.Sprintf(`
s = socket.create_connection(("127.0.0.1", 53))
qs = [tcpq(i, "n%%d.pipe%d.example" %% i) for i in range(2000)] + [tcpq(7, "secret.pipe%d.example")]
%s
os._exit(0)
`, r, r, send)))
			for i := 0; i < 2000; i++ {
				want[fmt.Sprintf("n%d.pipe%d.example", i, r)] = 1
			}
			want[fmt.Sprintf("secret.pipe%d.example", r)] = 1
		}
		res := lossRun(t, evidence.EgressDeny, probes...)
		if each && incomplete(res) {
			t.Logf("one write each: reported incomplete: %s", res.FinishErr)
			continue
		}
		wantWhole(t, res, evidence.ViaDNS, want)
	}
}

// TestDNSOverTCPReadsPastAMalformedMessage: a message that is not a
// query (here a response) is recorded as malformed and passed over, and
// the question behind it on the same connection recorded.
func TestDNSOverTCPReadsPastAMalformedMessage(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, pyProbe(`
s = socket.create_connection(("127.0.0.1", 53))
bad = bytearray(dnsq(1, "malformed.example"))
bad[2] |= 0x80
s.sendall(struct.pack(">H", len(bad)) + bytes(bad) + tcpq(2, "after-malformed.example"))
os._exit(0)
`))
	wantWhole(t, res, evidence.ViaDNS, map[string]int{"malformed.example": 0, "after-malformed.example": 1})
	if e, _ := mustFind(t, res.Egress, "the message that is no query", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Detail == "malformed query: a response, not a query"
	}); e.Attempts != 1 || e.Host != "" {
		t.Errorf("the message that is no query: %+v, want 1 attempt and no host", e)
	}
}

// TestDNSTCPOverflowIsReported: more connections than the stub serves and
// the kernel queues for it at once. Some connects never complete; every
// question a completed connection sent is recorded, or Finish says the
// record is incomplete.
func TestDNSTCPOverflowIsReported(t *testing.T) {
	needNamespaces(t)
	overflowIsReported(t, evidence.EgressDeny, evidence.ViaDNS, `("127.0.0.1", 53)`, `tcpq(0, "over.example")`, "questions")
}

// TestDNSEveryQuestionOfAMessage: a query with two questions has both
// recorded (the answer is for the first).
func TestDNSEveryQuestionOfAMessage(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, "dns:"+hex.EncodeToString(twoQuestions()))
	if len(res.Probes[0].Output) < 8 || res.Probes[0].Output[:4] != "4243" {
		t.Errorf("answer %s, want id 4243", res.Probes[0].Output)
	}
	wantWhole(t, res, evidence.ViaDNS, map[string]int{"first.example": 1, "second-secret.example": 1})
}

// TestDNSEveryQuestionOfALargeDatagram: a UDP query of about 50,000 bytes
// carrying 3,000 questions has every one recorded (the stub once read
// 4,096 bytes of a datagram, and the questions past them went unrecorded
// with the record called whole).
func TestDNSEveryQuestionOfALargeDatagram(t *testing.T) {
	needNamespaces(t)
	const n = 3000
	msg := buildQuery(0x4243, 1, []byte("q00000"), []byte("example"))
	binary.BigEndian.PutUint16(msg[4:], n)
	want := map[string]int{"q00000.example": 1}
	for i := 1; i < n; i++ {
		label := fmt.Sprintf("q%05d", i)
		msg = append(msg, byte(len(label)))
		msg = append(msg, label...)
		msg = append(msg, 0xc0, 12+7) // "example" of the first name
		msg = binary.BigEndian.AppendUint16(msg, 1)
		msg = binary.BigEndian.AppendUint16(msg, 1)
		want[label+".example"] = 1
	}
	if len(msg) < 8<<10 {
		t.Fatalf("the query is %d bytes, want a large one", len(msg))
	}
	res := lossRun(t, evidence.EgressDeny, "dns:"+hex.EncodeToString(msg))
	if len(res.Probes[0].Output) < 8 || res.Probes[0].Output[:4] != "4243" {
		t.Errorf("answer %s, want id 4243", res.Probes[0].Output)
	}
	wantWhole(t, res, evidence.ViaDNS, want)
}

// twoQuestions is a query for first.example and second-secret.example (the
// second name's "example" label by compression pointer).
func twoQuestions() []byte {
	b := buildQuery(0x4243, 1, []byte("first"), []byte("example"))
	binary.BigEndian.PutUint16(b[4:], 2)
	b = append(b, 13)
	b = append(b, "second-secret"...)
	b = append(b, 0xc0, 12+6) // "example" of the first name
	b = binary.BigEndian.AppendUint16(b, 1)
	return binary.BigEndian.AppendUint16(b, 1)
}

func TestParseQueryEveryQuestion(t *testing.T) {
	names := func(b []byte) []string {
		q, err := parseQuery(b)
		if err != nil {
			t.Fatal(err)
		}
		ns := []string{q.Name}
		for o := range moreQuestions(b) {
			ns = append(ns, o.Name)
			if !o.LDH || o.Type != 1 || o.Class != 1 {
				t.Errorf("second question %+v", o)
			}
		}
		return ns
	}
	if got := names(twoQuestions()); !slices.Equal(got, []string{"first.example", "second-secret.example"}) {
		t.Errorf("questions %q, want first.example then second-secret.example", got)
	}
	// A second question cut short is not one; the first still is.
	cut := twoQuestions()
	if got := names(cut[:len(cut)-3]); !slices.Equal(got, []string{"first.example"}) {
		t.Errorf("with the second question cut short: %q, want first.example", got)
	}
}

// TestProxyFloodIsRecorded: 64 connections held idle, then 1,500 CONNECTs
// on connections of their own, then the secret, then an exit without
// reading an answer; and 2,500 requests on connections closed at once.
// Every request is recorded. (4,000 left the listener's queue, 4,096 in a
// fresh namespace, too little room where the proxy's goroutines waited
// for a CPU that a CI run's other packages held: a run refused one
// connection and, rightly, called its record incomplete. A flood past
// the queue is TestProxyOverflowIsReported's.)
func TestProxyFloodIsRecorded(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressRecord, pyProbe(`
keep = [socket.create_connection(proxy()) for _ in range(64)]
for i in range(1500):
    s = socket.create_connection(proxy())
    s.sendall(b"CONNECT junk.example:443 HTTP/1.1\r\n\r\n")
    keep.append(s)
s = socket.create_connection(proxy())
s.sendall(b"CONNECT secret-exfil.example:443 HTTP/1.1\r\n\r\n")
os._exit(0)
`), pyProbe(`
for i in range(2500):
    s = socket.create_connection(proxy())
    s.sendall(b"GET http://flood.example/%d HTTP/1.1\r\nHost: flood.example\r\n\r\n" % i)
    s.close()
os._exit(0)
`))
	wantWhole(t, res, evidence.ViaProxy, map[string]int{"junk.example": 1500, "secret-exfil.example": 1, "flood.example": 2500})
}

// TestProxyOverflowIsReported: as TestDNSTCPOverflowIsReported, for the
// proxy.
func TestProxyOverflowIsReported(t *testing.T) {
	needNamespaces(t)
	overflowIsReported(t, evidence.EgressRecord, evidence.ViaProxy, `proxy()`, `b"CONNECT over.example:443 HTTP/1.1\r\n\r\n"`, "requests")
}

// overflowIsReported opens 6,000 connections to addr (a Python address)
// at once, more than the listener serves and the kernel queues for it,
// and sends payload (a Python bytes expression asking for over.example)
// on each whose connect completed; every one sent is recorded via via, or
// Finish says the record is incomplete. what names what was sent.
func overflowIsReported(t *testing.T, mode string, via evidence.Via, addr, payload, what string) {
	t.Helper()
	res := lossRun(t, mode, pyProbe(`
keep, sent = [], 0
for i in range(6000):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(`+addr+`)
    keep.append(s)
for s in keep:
    try:
        s.send(`+payload+`)
        sent += 1
    except OSError:
        pass
print("SENT", sent)
os._exit(0)
`))
	sent := overflowSent(t, res.Probes[0].Output)
	got := attempts(res.Egress, via, "over.example")
	t.Logf("%d %s sent, %d recorded, finish error %q", sent, what, got, res.FinishErr)
	if got != sent && !incomplete(res) {
		t.Errorf("%d %s sent, %d recorded, and the record is not called incomplete", sent, what, got)
	}
}

// TestProxyRecordsEveryRequestOfAConnection: a request line longer than
// the proxy reads is recorded (clipped, as malformed); every request on a
// connection is recorded, sent after the answer to the first or pipelined
// with it; a request's body is not taken for a request.
func TestProxyRecordsEveryRequestOfAConnection(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressRecord, pyProbe(`
s = socket.create_connection(proxy())
s.sendall(b"GET http://verylong.example/" + b"a" * 70000 + b" HTTP/1.1\r\nHost: verylong.example\r\n\r\n")
print(s.recv(100))
s.close()
s = socket.create_connection(proxy())
s.sendall(b"GET http://first.example/a HTTP/1.1\r\nHost: first.example\r\n\r\n")
print(s.recv(100))
try:
    s.sendall(b"GET http://second-secret.example/b HTTP/1.1\r\nHost: second-secret.example\r\n\r\n")
except OSError as e:
    print("second request:", e)
s.close()
s = socket.create_connection(proxy())
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\nCONNECT after-preface.example:443 HTTP/1.1\r\n\r\n")
s.close()
s = socket.create_connection(proxy())
s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" +
    b"\x00\x00\x0c\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64\x00\x04\x00\x00\x0a\x0d" +
    b"\x00\x00\x04\x08\x00\x00\x00\x00\x00\x00\x0a\x00\x01" +
    b"CONNECT after-frames.example:443 HTTP/1.1\r\n\r\n")
s.close()
s = socket.create_connection(proxy())
body = b"GET http://in-a-body.example/ HTTP/1.1\r\n\r\n"
s.sendall(b"POST http://post.example/ HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % len(body) + body +
    b"PUT http://chunked.example/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n" +
    b"CONNECT pipelined.example:443 HTTP/1.1\r\n\r\n")
s.close()
`))
	wantWhole(t, res, evidence.ViaProxy, map[string]int{"first.example": 1, "second-secret.example": 1,
		"post.example": 1, "chunked.example": 1, "pipelined.example": 1, "in-a-body.example": 0, "after-preface.example": 1, "after-frames.example": 1})
	// HTTP/2's preface is one attempt, recorded once, at its first line.
	var prefaces int
	for _, e := range res.Egress {
		if e.Via == evidence.ViaProxy && strings.HasPrefix(e.Detail, "malformed request: ") {
			d := strings.TrimPrefix(e.Detail, "malformed request: ")
			if strings.HasPrefix(d, "\\x00") {
				// A client sends its SETTINGS frame right after the
				// preface: binary, not a request of its own.
				t.Errorf("an HTTP/2 frame after the preface recorded as a request: %+v", e)
			}
			if d == "SM" || d == "PRI * HTTP/2.0" {
				prefaces += max(e.Attempts, 1)
				if d == "SM" {
					t.Errorf("the preface's second half recorded as a request: %+v", e)
				}
			}
		}
	}
	if prefaces != 2 {
		t.Errorf("HTTP/2's preface recorded %d times, want twice (once a connection)", prefaces)
	}
	long, _ := mustFind(t, res.Egress, "the long request line", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && strings.HasPrefix(e.Detail, "malformed request: GET http://verylong.example/aaaa")
	})
	if len(long.Detail) > maxRecorded+len("malformed request: ") {
		t.Errorf("the long request line recorded as %d characters, want it clipped", len(long.Detail))
	}
	if !strings.Contains(res.Probes[0].Output, "400") || !strings.Contains(res.Probes[0].Output, "403") {
		t.Errorf("answers: %s, want a 400 for the long line and a 403 for the first request", res.Probes[0].Output)
	}
}

// TestDiscardsAreCountedWhereTheyHappen: a client that exits with an
// answer unread has its kernel reset the connection and throw away what it
// had written and not yet sent. The client here holds its last write back
// itself (TCP_CORK): the listener never sees it, and counts the connection
// lost. In record mode the stub and the proxy listen side by side and share
// one watch of destroyed sockets (see TestOneDiscardWatchPerSession): such a
// write is counted lost by the listener it was sent to and by no other,
// sent to the stub, to the proxy, and to both in one run (their stops then
// wait for the watch at once). A reset with nothing held back loses
// nothing, and is not counted: the watch tells the two apart, where
// counting every reset (the fallback without a watch) would not.
func TestDiscardsAreCountedWhereTheyHappen(t *testing.T) {
	needNamespaces(t)
	const (
		stub = `(("127.0.0.1", 53), tcpq(1, "first.example"), tcpq(2, "held.example"))`
		// Docker's resolver: the stub's listener on 0.0.0.0 takes it.
		docker = `(("127.0.0.11", 53), tcpq(1, "first.example"), tcpq(2, "held.example"))`
		proxy  = `(proxy(), b"CONNECT first.example:443 HTTP/1.1\r\n\r\n", b"CONNECT held.example:443 HTTP/1.1\r\n\r\n")`
	)
	for _, tc := range []struct {
		name         string
		stub, proxy  bool
		destinations string
		hold         bool // the last write is held back, and thrown away
	}{
		{"stub", true, false, stub, true},
		{"stub, at another address", true, false, docker, true},
		{"proxy", false, true, proxy, true},
		{"both", true, true, stub + ", " + proxy, true},
		{"both, nothing held", true, true, stub + ", " + proxy, false},
	} {
		hold := "True"
		if !tc.hold {
			hold = "False"
		}
		res := lossRun(t, evidence.EgressRecord, pyProbe(`
import select
conns = []
for to, first, last in [`+tc.destinations+`]:
    s = socket.create_connection(to)
    s.sendall(first)
    conns.append((s, last))
for s, _ in conns:
    select.select([s], [], [], 10)  # the answer is there, and stays unread
for s, last in conns:
    if `+hold+`:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
        s.sendall(last)
os._exit(0)
`))
		t.Logf("%s: the stub counts %d connections lost, the proxy %d; finish error %q", tc.name, res.StubTCPLost, res.ProxyLost, res.FinishErr)
		for _, l := range []struct {
			name string
			sent bool
			via  evidence.Via
			lost int64
		}{
			{"the stub", tc.stub, evidence.ViaDNS, res.StubTCPLost},
			{"the proxy", tc.proxy, evidence.ViaProxy, res.ProxyLost},
		} {
			if l.sent && attempts(res.Egress, l.via, "first.example") != 1 {
				t.Errorf("%s: first.example not recorded via %s", tc.name, l.via)
			}
			want := int64(0)
			if l.sent && tc.hold {
				want = 1 // held.example, corked, is thrown away by the reset
				if attempts(res.Egress, l.via, "held.example") != 0 {
					t.Errorf("%s: held.example reached %s: the probe held nothing back, so this shows nothing", tc.name, l.name)
				}
			}
			if l.lost != want {
				t.Errorf("%s: %s counts %d connections lost, want %d", tc.name, l.name, l.lost, want)
			}
		}
		if l := slices.IndexFunc(res.Log, func(s string) bool { return strings.Contains(s, noticesUnread) }); l >= 0 {
			t.Errorf("%s: the watch was not waited for: %s", tc.name, res.Log[l])
		}
	}
}

// TestOneDiscardWatchPerSession: a session listens for the namespace's
// destroyed TCP sockets on one sock_diag socket, whichever of the stub's
// TCP listeners and the proxy the command talks to; not on one per
// listener, each reading every notice.
func TestOneDiscardWatchPerSession(t *testing.T) {
	needNamespaces(t)
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		// /proc/net/netlink: sk Eth Pid Groups ...; sock_diag is protocol
		// 4, and a socket that listens for notices has groups.
		res := lossRun(t, mode, `sh:awk 'NR > 1 && $2 == 4 && $4 != "00000000"' /proc/net/netlink`)
		n := strings.Count(res.Probes[0].Output, "\n")
		if n == 0 {
			missing(t, "sock_diag destroy notices (CONFIG_INET_DIAG)")
		}
		if n != 1 {
			t.Errorf("%s: sock_diag sockets listening for notices:\n%s\nwant one", mode, res.Probes[0].Output)
		}
	}
}

// overflowSent reads how many messages an overflow probe sent ("SENT N"),
// and fails when they were too few to overflow anything: the test would
// then pass without reaching what it checks.
func overflowSent(t *testing.T, out string) int {
	t.Helper()
	var sent int
	i := strings.Index(out, "SENT ")
	if i < 0 {
		t.Fatalf("the probe did not say what it sent: %s", out)
	}
	if _, err := fmt.Sscanf(out[i:], "SENT %d", &sent); err != nil {
		t.Fatalf("the probe's count: %v: %s", err, out[i:])
	}
	if sent <= streamMaxConns {
		t.Fatalf("the probe sent only %d; that overflows nothing (the stream serves %d at once)", sent, streamMaxConns)
	}
	return sent
}
