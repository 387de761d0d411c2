package egress

// What the record counts, tested against the real rule set in namespaces
// the test creates. The allow mode's "outside" is a peer network namespace
// the probe itself makes, joined to the sandbox's by a veth pair:
// 192.0.2.0/24 and 2001:db8:1::/64, with 2001:db8::/32 and 198.51.100.0/24
// routed to the peer. No packet leaves the test's namespaces.

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/nftables"

	"github.com/vigiles/action/pkg/evidence"
)

// peerPrelude (a bash script, with the work directory to fill in) makes a
// network namespace for the peer, joins it to the probe's namespace with a
// veth pair, starts peer.py there (when the directory holds one) and waits
// until it listens. Everything it starts ends with the script.
const peerPrelude = `set -e
d=%s
unshare -n sleep 300 </dev/null >/dev/null 2>&1 &
peer=$!
srv=
trap 'kill $peer $srv 2>/dev/null || true' EXIT
self=$(readlink /proc/self/ns/net)
until [ "$(readlink /proc/$peer/ns/net)" != "$self" ]; do sleep 0.01; done
ip link add vgc0 type veth peer name vgc1 netns $peer
ip addr add 192.0.2.1/24 dev vgc0
ip -6 addr add 2001:db8:1::1/64 dev vgc0 nodad
ip link set vgc0 up
ip route add 198.51.100.0/24 via 192.0.2.2
ip -6 route add 2001:db8::/32 via 2001:db8:1::2
nsenter -t $peer -n sh -ec 'ip link set lo up; ip addr add 192.0.2.2/24 dev vgc1; ip -6 addr add 2001:db8:1::2/64 dev vgc1 nodad; ip link set vgc1 up'
if [ -e $d/peer.py ]; then
	nsenter -t $peer -n python3 $d/peer.py $d/ready </dev/null >$d/peer.log 2>&1 &
	srv=$!
	until [ -e $d/ready ]; do kill -0 $srv || { cat $d/peer.log; exit 1; }; sleep 0.01; done
fi
`

// peerServer answers UDP port 7 with 4 bytes per datagram, drains UDP
// port 9, and sends 1,000,000 bytes to each connection on TCP port 8.
const peerServer = `import socket, sys, threading

def v6(typ, port):
    s = socket.socket(socket.AF_INET6, typ)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", port))
    return s

echo, sink, tcp = v6(socket.SOCK_DGRAM, 7), v6(socket.SOCK_DGRAM, 9), v6(socket.SOCK_STREAM, 8)
tcp.listen(4)

def serve_echo():
    while True:
        _, peer = echo.recvfrom(2048)
        echo.sendto(b"abcd", peer)

def serve_sink():
    while True:
        sink.recv(65536)

def serve_tcp():
    while True:
        c, _ = tcp.accept()
        c.sendall(b"z" * 1000000)
        c.close()

for f in (serve_echo, serve_sink, serve_tcp):
    threading.Thread(target=f, daemon=True).start()
open(sys.argv[1], "w").close()
threading.Event().wait()
`

// needTools skips (or fails under CI=true) without the programs the probes
// use.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	needNamespaces(t)
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool)
		}
	}
}

// probeDir writes the named scripts into a fresh directory the namespaced
// child can read and returns it.
func probeDir(t *testing.T, files map[string]string) string {
	t.Helper()
	d := t.TempDir()
	for name, body := range files {
		writeFileT(t, d, name, body)
	}
	return d
}

// runPeered runs the sandbox child in allow mode (no connector: the probe's
// peer is its only outside) with the given --allow-ip ranges and one probe,
// the peer prelude followed by script.
func runPeered(t *testing.T, dir string, allowIP []string, script string) childResult {
	t.Helper()
	needTools(t, "python3", "unshare", "nsenter", "ip")
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: allowIP}
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:" + fmt.Sprintf(peerPrelude, dir) + script}}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	if res.Probes[0].Code != 0 {
		t.Fatalf("probe failed (%d): %s", res.Probes[0].Code, res.Probes[0].Output)
	}
	return res
}

// runDenied runs the sandbox child in deny mode with one probe.
func runDenied(t *testing.T, script string) childResult {
	t.Helper()
	needTools(t, "python3")
	res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny}, Probes: []string{"sh:" + script}}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	return res
}

func connectEntryFor(es []evidence.Egress, ip string, port int, proto string) (evidence.Egress, bool) {
	e, _, ok := find(es, func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == ip && e.Port == port && e.Proto == proto
	})
	return e, ok
}

func dumpOnFailure(t *testing.T, res childResult) {
	t.Helper()
	if t.Failed() {
		t.Logf("probes: %+v\nrecord: %+v\nruleset:\n%s", res.Probes, res.Egress, res.Ruleset)
	}
}

// countClient sends one 1-byte datagram to the peer's UDP echo over IPv4
// and over IPv6, reads each 4-byte answer, then downloads 1,000,000 bytes
// over TCP.
const countClient = `import socket
for fam, host in ((socket.AF_INET, "192.0.2.2"), (socket.AF_INET6, "2001:db8:1::2")):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(10)
    s.connect((host, 7))
    s.send(b"x")
    print("udp", host, s.recv(64).decode())
    s.close()
c = socket.create_connection(("192.0.2.2", 8), timeout=10)
n = 0
while True:
    b = c.recv(1 << 16)
    if not b:
        break
    n += len(b)
print("tcp", n)
`

// TestCountRepliesOnce: in allow mode every packet of a flow counts once,
// whichever way it goes. The input chain looked a reply up in the flows set
// (and the kernel updates the counter of an element a lookup finds), then
// updated it: each reply counted twice.
func TestCountRepliesOnce(t *testing.T) {
	dir := probeDir(t, map[string]string{"peer.py": peerServer, "client.py": countClient})
	res := runPeered(t, dir, []string{"192.0.2.0/24", "2001:db8:1::/64"}, "python3 "+dir+"/client.py")
	defer dumpOnFailure(t, res)
	out := res.Probes[0].Output
	for _, want := range []string{"udp 192.0.2.2 abcd", "udp 2001:db8:1::2 abcd", "tcp 1000000"} {
		if !strings.Contains(out, want) {
			t.Fatalf("probe output %q lacks %q", out, want)
		}
	}
	for _, c := range []struct {
		ip    string
		bytes uint64
	}{
		// 1 byte and 4 back, with IPv4 (20) or IPv6 (40) and UDP (8)
		// headers.
		{"192.0.2.2", 29 + 32},
		{"2001:db8:1::2", 49 + 52},
	} {
		e, ok := connectEntryFor(res.Egress, c.ip, 7, "udp")
		if !ok {
			t.Errorf("no udp entry for %s port 7", c.ip)
			continue
		}
		if !e.Allowed || e.Attempts != 1 || e.Packets != 2 || e.Bytes != c.bytes {
			t.Errorf("udp %s: %d attempts, %d packets, %d bytes; want 1 attempt, 2 packets, %d bytes (allowed %v)",
				c.ip, e.Attempts, e.Packets, e.Bytes, c.bytes, e.Allowed)
		}
	}
	// The download's bytes are its payload plus headers (how many depends
	// on segmentation offloads), far below twice the payload.
	e, ok := connectEntryFor(res.Egress, "192.0.2.2", 8, "tcp")
	if !ok {
		t.Fatal("no tcp entry for 192.0.2.2 port 8")
	}
	if e.Attempts != 1 || e.Bytes < 1000000 || e.Bytes >= 1500000 {
		t.Errorf("tcp download of 1,000,000 bytes: %d attempts, %d packets, %d bytes; want 1 attempt and bytes in [1000000, 1500000)",
			e.Attempts, e.Packets, e.Bytes)
	}
}

// freebindClient connects and sends from addresses the namespace does not
// hold (IPV6_FREEBIND) to argv[1]; with argv[2] "local", also to the
// namespace's own ::1, so the kernel's reset and port unreachable answer
// the made-up sources. Then it connects from the namespace's own addresses
// to argv[3] and argv[4], to see those refused at once.
const freebindClient = `import socket, sys
IPV6_FREEBIND = 78

def made_up(typ, src, port):
    s = socket.socket(socket.AF_INET6, typ)
    s.setsockopt(socket.IPPROTO_IPV6, IPV6_FREEBIND, 1)
    s.bind((src, port))
    s.settimeout(0.5)
    return s

def attempt(what, f):
    try:
        f()
        print(what, "done")
    except OSError as e:
        print(what, type(e).__name__)

dst = sys.argv[1]
t = made_up(socket.SOCK_STREAM, "2001:db8:ffff::250", 31338)
attempt("tcp made-up", lambda: t.connect((dst, 443)))
u = made_up(socket.SOCK_DGRAM, "2001:db8:feed::1", 31339)
attempt("udp made-up", lambda: u.sendto(b"x", (dst, 53)))
if sys.argv[2] == "local":
    t = made_up(socket.SOCK_STREAM, "2001:db8:feed::2", 31340)
    attempt("tcp made-up to ::1", lambda: t.connect(("::1", 9)))
    u = made_up(socket.SOCK_DGRAM, "2001:db8:feed::3", 31341)
    attempt("udp made-up to ::1", lambda: u.sendto(b"x", ("::1", 9)))
for host in sys.argv[3:]:
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    c = socket.socket(fam, socket.SOCK_STREAM)
    c.settimeout(10)
    attempt("tcp " + host, lambda: c.connect((host, 80)))
`

// TestCountMadeUpSourceAnswers: a command that binds an address its
// namespace does not hold (IPV6_FREEBIND) and connects or sends from it
// plants no entry for that address. The wall's reset or port unreachable
// went to the made-up address and was logged as an attempt there (in allow
// mode, with the address allowed, even let out); such packets sent to the
// namespace's own address are dropped before they arrive, so the kernel
// has nothing to answer. The attempt at the real destination is recorded;
// connects from the namespace's own addresses are still refused at once.
func TestCountMadeUpSourceAnswers(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": freebindClient})
	madeUp := func(e evidence.Egress) bool {
		return strings.HasPrefix(e.IP, "2001:db8:ffff:") || strings.HasPrefix(e.IP, "2001:db8:feed:")
	}
	check := func(t *testing.T, res childResult, dst string) {
		t.Helper()
		for _, e := range res.Egress {
			if madeUp(e) || e.Proto == "icmp" {
				t.Errorf("entry for an address the command never tried: %+v", e)
			}
		}
		for _, c := range []struct {
			port  int
			proto string
		}{{443, "tcp"}, {53, "udp"}} {
			e, ok := connectEntryFor(res.Egress, dst, c.port, c.proto)
			if !ok || e.Allowed || e.Attempts < 1 {
				t.Errorf("%s %s port %d: %+v (found %v), want refused attempts", c.proto, dst, c.port, e, ok)
			}
		}
	}
	t.Run("deny", func(t *testing.T) {
		res := runDenied(t, "python3 "+dir+"/client.py 2001:db8::1 local 203.0.113.9 2001:db8::9")
		defer dumpOnFailure(t, res)
		check(t, res, "2001:db8::1")
		out := res.Probes[0].Output
		for _, want := range []string{"tcp 203.0.113.9 ConnectionRefusedError", "tcp 2001:db8::9 ConnectionRefusedError"} {
			if !strings.Contains(out, want) {
				t.Errorf("probe output %q lacks %q: a connect from the namespace's own address is no longer refused at once", out, want)
			}
		}
	})
	t.Run("allow", func(t *testing.T) {
		// The made-up sources are allowed; the destination is not. The
		// peer, the way out, notes every packet from a made-up source
		// that reaches it: the wall refuses them as any other, so none
		// may (a refusal that let them out was recorded as refused).
		pdir := probeDir(t, map[string]string{"client.py": freebindClient, "peer.py": madeUpSniffer})
		res := runPeered(t, pdir, []string{"2001:db8:ffff::/48", "2001:db8:feed::/48", "2001:db8:99::1"},
			"python3 "+pdir+"/client.py 2001:db8:2::1 remote\n"+
				`python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b"m", ("2001:db8:99::1", 9))'`+"\n"+
				"timeout 20 sh -c 'until grep -q marker "+pdir+"/got; do sleep 0.01; done'\n")
		defer dumpOnFailure(t, res)
		check(t, res, "2001:db8:2::1")
		got, err := os.ReadFile(filepath.Join(pdir, "got"))
		if err != nil {
			t.Fatal(err)
		}
		rest := strings.Replace(string(got), "marker\n", "", 1)
		if len(rest) == len(got) {
			t.Fatalf("the peer saw no marker after the probe's packets: %q", got)
		}
		if rest != "" {
			t.Errorf("packets from made-up sources left the sandbox for the peer:\n%s", rest)
		}
	})
}

// madeUpSniffer (the peer's peer.py) writes a line to got beside its ready
// file for every IPv6 packet that reaches the peer's veth from an address
// freebindClient makes up, and "marker" for one to 2001:db8:99::1, which
// the probe sends last (allowed) to know the peer has seen what came before.
const madeUpSniffer = `import os, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x86dd))
s.bind(("vgc1", 0))
got = open(os.path.join(os.path.dirname(sys.argv[1]), "got"), "w", buffering=1)
open(sys.argv[1], "w").close()
while True:
    p = s.recv(2048)
    src = socket.inet_ntop(socket.AF_INET6, p[8:24])
    dst = socket.inet_ntop(socket.AF_INET6, p[24:40])
    if dst == "2001:db8:99::1":
        got.write("marker\n")
    elif src.startswith(("2001:db8:ffff:", "2001:db8:feed:")):
        got.write("%s to %s\n" % (src, dst))
`

// spoofClient sends the DNS stub a question from an address the namespace
// does not hold (IPV6_FREEBIND), as a command forging the answer of an
// upstream resolver on that address would send the stub's upstream socket,
// then a question from its own address.
const spoofClient = `import socket, struct
IPV6_FREEBIND = 78
def q(name):
    wire = b"".join(bytes([len(l)]) + l for l in name.encode().split(b".")) + b"\x00"
    return struct.pack(">HHHHHH", 7, 0x100, 1, 0, 0, 0) + wire + b"\x00\x01\x00\x01"
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, IPV6_FREEBIND, 1)
s.bind(("2001:db8:53::1", 5353))
try:
    s.sendto(q("spoofed.example"), ("::1", 53))
    print("spoofed sent")
except OSError as e:
    print("spoofed", type(e).__name__)
c = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
c.settimeout(3)
c.sendto(q("plain.example"), ("::1", 53))
print("plain answered", len(c.recv(512)))
`

// TestMadeUpSourceReachesNothingLocal: a packet from an address the
// namespace does not hold never reaches the namespace's own sockets. The
// stub's upstream socket took a datagram from the upstream's address and
// port, which IPV6_FREEBIND lets a command without privilege send from, as
// the upstream's answer (in allow mode: whatever addresses it named went
// into the wall's allow sets); here the stub's listening socket stands in
// for it: the question is not answered (the answer went to the made-up
// address, recorded as an attempt there) and not the stub's to record.
// The wall records it as sent, the attempt at [::1]:53 and its name asked
// of ::1 (under Claude Code a resolver of the host's there takes it).
func TestMadeUpSourceReachesNothingLocal(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": spoofClient})
	res := runDenied(t, "python3 "+dir+"/client.py")
	defer dumpOnFailure(t, res)
	if out := res.Probes[0].Output; !strings.Contains(out, "plain answered") {
		t.Fatalf("probe: %s", out)
	}
	const sent = "asked of ::1 port 53 directly, not of the sandbox's DNS stub"
	var wall int
	for _, e := range res.Egress {
		if e.Host == "spoofed.example" && e.Detail != sent || strings.HasPrefix(e.IP, "2001:db8:53:") {
			t.Errorf("entry %+v: a packet from a made-up source reached the stub", e)
		}
		if e.Host == "spoofed.example" || e.Via == evidence.ViaLoopback && e.IP == "::1" && e.Port == 53 {
			wall++
		}
	}
	if wall != 2 {
		t.Errorf("the wall's record of the made-up source's question is not its attempt at [::1]:53 and its name: %+v", res.Egress)
	}
	if attempts(res.Egress, evidence.ViaDNS, "plain.example") != 1 {
		t.Errorf("the question from the namespace's own address is not recorded once: %+v", res.Egress)
	}
}

// routedClient sends one UDP datagram per argument
// FAMILY/DESTINATION/PORT/HOP[,HOP...] with an IPv6 segment routing
// header (family 6), an IPv4 loose source route option (family 4) or an
// IPv4 strict source route option (family 4s) through the hops, first hop
// first.
const routedClient = `import socket, sys
IPV6_RTHDR = 57
for arg in sys.argv[1:]:
    fam, dst, port, hops = arg.split("/")
    hops = hops.split(",")
    if fam == "6":
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        # segments[0] is the destination (the kernel fills it in), the
        # last one the first hop.
        segs = [bytes(16)] + [socket.inet_pton(socket.AF_INET6, h) for h in reversed(hops)]
        n = len(segs)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RTHDR, bytes([0, 2 * n, 4, n - 1, n - 1, 0, 0, 0]) + b"".join(segs))
    else:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        route = b"".join(socket.inet_aton(h) for h in hops)
        opt = bytes([137 if fam == "4s" else 131, 3 + len(route), 4]) + route
        s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, opt + bytes(-len(opt) % 4))
    try:
        s.sendto(b"x", (dst, int(port)))
        print(dst, "sent")
    except OSError as e:
        print(dst, type(e).__name__)
`

// TestCountRoutedPackets: a packet that names its route (an IPv6 segment
// routing header, an IPv4 loose or strict source route) is refused in every mode and
// recorded under its final destination and port. Its header holds the
// first hop: the record named that hop, lost the port behind a 7-segment
// header (the 128-byte snapshot ended first), and in allow mode a packet
// whose first hop was allowed went out; one whose first hop was the
// namespace's loopback (::1, 127.0.0.1) was taken for loopback traffic and
// left no entry, in every mode.
func TestCountRoutedPackets(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": routedClient})
	type sent struct {
		dst  string
		port int
		hop  string
	}
	check := func(t *testing.T, res childResult, want []sent) {
		t.Helper()
		for _, w := range want {
			e, ok := connectEntryFor(res.Egress, w.dst, w.port, "udp")
			if !ok || e.Allowed || e.Attempts != 1 {
				t.Errorf("udp %s port %d: %+v (found %v), want one refused attempt", w.dst, w.port, e, ok)
			}
			for _, e := range res.Egress {
				if e.IP == w.hop {
					t.Errorf("entry for the first hop %s: %+v", w.hop, e)
				}
			}
		}
	}
	arg := func(fam string, s sent, via ...string) string {
		return fmt.Sprintf(" %s/%s/%d/%s", fam, s.dst, s.port, strings.Join(append([]string{s.hop}, via...), ","))
	}
	more := []string{"2001:db8::c1", "2001:db8::c2", "2001:db8::c3", "2001:db8::c4", "2001:db8::c5"}
	// A first hop on the namespace's own loopback made the packet's
	// destination local: the loopback accept let it through, unrecorded.
	loop6 := sent{"2001:db8::40", 5303, "::1"}
	loop4 := sent{"198.51.100.40", 5304, "127.0.0.1"}
	// A strict source route's first hop must be on the link: the
	// loopback is, in every mode.
	loop4s := sent{"198.51.100.41", 5305, "127.0.0.1"}
	loops := arg("6", loop6) + arg("4", loop4) + arg("4s", loop4s)
	t.Run("deny", func(t *testing.T) {
		two := sent{"2001:db8::aaaa", 5300, "2001:db8::bbbb"}
		seven := sent{"2001:db8::aaab", 5301, "2001:db8::bbbc"}
		lsrr := sent{"198.51.100.10", 5302, "198.51.100.20"}
		res := runDenied(t, "python3 "+dir+"/client.py"+arg("6", two)+arg("6", seven, more...)+arg("4", lsrr)+loops)
		defer dumpOnFailure(t, res)
		check(t, res, []sent{two, seven, lsrr, loop6, loop4, loop4s})
	})
	t.Run("record", func(t *testing.T) {
		needTools(t, "python3")
		res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressRecord},
			Probes: []string{"sh:python3 " + dir + "/client.py" + loops}}, nil)
		if res.SetupErr != "" || res.FinishErr != "" {
			t.Fatalf("setup: %s, finish: %s", res.SetupErr, res.FinishErr)
		}
		defer dumpOnFailure(t, res)
		check(t, res, []sent{loop6, loop4, loop4s})
	})
	t.Run("allow", func(t *testing.T) {
		// The first hop (the peer) is allowed; the destinations are not.
		two := sent{"2001:db8:2::1", 5300, "2001:db8:1::2"}
		seven := sent{"2001:db8:2::2", 5301, "2001:db8:1::2"}
		lsrr := sent{"198.51.100.10", 5302, "192.0.2.2"}
		ssrr := sent{"198.51.100.11", 5306, "192.0.2.2"}
		res := runPeered(t, dir, []string{"192.0.2.0/24", "2001:db8:1::/64"},
			"python3 "+dir+"/client.py"+arg("6", two)+arg("6", seven, more...)+arg("4", lsrr)+arg("4s", ssrr)+loops)
		defer dumpOnFailure(t, res)
		check(t, res, []sent{two, seven, lsrr, ssrr, loop6, loop4, loop4s})
		if res.Dropped == nil || res.Dropped.Packets < 7 {
			t.Errorf("dropped = %+v, want the seven routed packets counted", res.Dropped)
		}
	})
}

// segmentClient sends 1,000 bytes to argv[1] port argv[2] in one send with
// UDP_SEGMENT 100: ten datagrams on the wire.
const segmentClient = `import socket, sys
UDP_SEGMENT = 103
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, UDP_SEGMENT, 100)
try:
    s.sendto(b"y" * 1000, (sys.argv[1], int(sys.argv[2])))
    print("sent")
except OSError as e:
    print(type(e).__name__)
`

// TestCountSegmentedSend pins what docs/egress.md says of a UDP_SEGMENT
// send: the kernel splits it into datagrams after the wall has seen it as
// one packet, so it counts one attempt in deny mode, and one packet with
// its headers once in allow mode. (No rule can count it otherwise: nftables
// sees no segment count.)
func TestCountSegmentedSend(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": segmentClient, "peer.py": peerServer})
	t.Run("deny", func(t *testing.T) {
		res := runDenied(t, "python3 "+dir+"/client.py 203.0.113.20 5400")
		defer dumpOnFailure(t, res)
		e, ok := connectEntryFor(res.Egress, "203.0.113.20", 5400, "udp")
		if !ok || e.Attempts != 1 {
			t.Errorf("udp 203.0.113.20 port 5400: %+v (found %v), want 1 attempt", e, ok)
		}
	})
	t.Run("allow", func(t *testing.T) {
		res := runPeered(t, dir, []string{"192.0.2.0/24"}, "python3 "+dir+"/client.py 192.0.2.2 9")
		defer dumpOnFailure(t, res)
		if !strings.Contains(res.Probes[0].Output, "sent") {
			t.Fatalf("the segmented send failed: %s", res.Probes[0].Output)
		}
		e, ok := connectEntryFor(res.Egress, "192.0.2.2", 9, "udp")
		if !ok || e.Attempts != 1 || e.Packets != 1 || e.Bytes != 20+8+1000 {
			t.Errorf("udp 192.0.2.2 port 9: %+v (found %v), want 1 attempt, 1 packet, 1028 bytes", e, ok)
		}
	})
}

// TestParseRoutedPacket: the logged-packet parser names the final
// destination of a packet with an IPv6 routing header (types 0, 2 and 4)
// or an IPv4 source route option, and finds the ports behind them.
func TestParseRoutedPacket(t *testing.T) {
	a := func(s string) []byte { return netip.MustParseAddr(s).AsSlice() }
	v6 := func(rh []byte) []byte {
		p := make([]byte, 40)
		p[0], p[6] = 0x60, 43
		binary.BigEndian.PutUint16(p[4:], uint16(len(rh)+8))
		copy(p[24:], a("2001:db8::bbbb"))
		p = append(p, rh...)
		return append(p, 0x80, 0x00, 0x14, 0xb4, 0, 9, 0, 0) // UDP to port 5300
	}
	rh := func(typ byte, addrs ...string) []byte {
		h := []byte{17, byte(2 * len(addrs)), typ, byte(len(addrs) - 1), byte(len(addrs) - 1), 0, 0, 0}
		for _, s := range addrs {
			h = append(h, a(s)...)
		}
		return h
	}
	left := func(h []byte, n byte) []byte { h[3] = n; return h }
	segs := []string{"2001:db8::aaaa"}
	for i := 0; i < 6; i++ {
		segs = append(segs, fmt.Sprintf("2001:db8::c%d", i))
	}
	v4 := make([]byte, 28)
	v4[0], v4[9] = 0x47, 17 // 28-byte header: an 8-byte LSRR option
	copy(v4[16:], a("198.51.100.20"))
	copy(v4[20:], []byte{1, 131, 7, 8})
	copy(v4[24:], a("198.51.100.10"))
	v4 = append(v4, 0x80, 0x00, 0x14, 0xb6, 0, 9, 0, 0)
	binary.BigEndian.PutUint16(v4[2:], uint16(len(v4)))
	for _, tt := range []struct {
		name string
		p    []byte
		dst  string
		port uint16
	}{
		{"segment routing", v6(rh(4, "2001:db8::aaaa", "2001:db8::bbbb")), "2001:db8::aaaa", 5300},
		{"segment routing, 7 segments", v6(rh(4, segs...)), "2001:db8::aaaa", 5300},
		{"type 0", v6(rh(0, "2001:db8::c1", "2001:db8::aaaa")), "2001:db8::aaaa", 5300},
		{"type 2", v6(left(rh(2, "2001:db8::aaaa"), 1)), "2001:db8::aaaa", 5300}, // the kernel takes no other segments left
		{"type 3: first hop", v6(rh(3, "2001:db8::aaaa")), "2001:db8::bbbb", 5300},
		// No segment left: the packet ends at the header's destination,
		// and the address in segments[0] is never reached.
		{"segment routing, none left", v6(left(rh(4, "2001:db8::aaaa", "2001:db8::c1"), 0)), "2001:db8::bbbb", 5300},
		{"type 0, none left", v6(left(rh(0, "2001:db8::c1", "2001:db8::aaaa"), 0)), "2001:db8::bbbb", 5300},
		{"ipv4 loose source route", v4, "198.51.100.10", 5302},
	} {
		var ev packetEvent
		if !parseIPPacket(tt.p, &ev) || ev.dst != netip.MustParseAddr(tt.dst) || ev.proto != "udp" || ev.port != tt.port {
			t.Errorf("%s: got %s to %s port %d, want udp to %s port %d", tt.name, ev.proto, ev.dst, ev.port, tt.dst, tt.port)
		}
	}
}

// TestFullSetsMakeTheRecordIncomplete: the sets that count traffic and
// connections hold dynSetSize elements. A run past that was let through
// uncounted (flows) or counted one attempt per packet (conns), so Finish
// must call the record incomplete, naming the set, rather than hand back
// counts that look exact. The probe sends one datagram to each of
// dynSetSize ports of the peer and one more to a second address of it:
// one destination, and one connection, more than a set holds.
func TestFullSetsMakeTheRecordIncomplete(t *testing.T) {
	needTools(t, "python3", "unshare", "nsenter", "ip")
	dir := probeDir(t, nil)
	script := fmt.Sprintf(`nsenter -t $peer -n ip addr add 192.0.2.3/24 dev vgc1
python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for p in range(1, %d):
    s.sendto(b"x", ("192.0.2.2", p))
s.sendto(b"x", ("192.0.2.3", 9))
'`, dynSetSize+1)
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"192.0.2.0/24"}}
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:" + fmt.Sprintf(peerPrelude, dir) + script}}, nil)
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.Probes[0].Code != 0 {
		t.Fatalf("probe failed (%d): %s", res.Probes[0].Code, res.Probes[0].Output)
	}
	for _, set := range []string{"flows4", "conns4"} {
		if !strings.Contains(res.FinishErr, "the "+set+" set") {
			t.Errorf("Finish did not say that %s filled up: %q", set, res.FinishErr)
		}
	}
	if !strings.Contains(res.FinishErr, ErrIncomplete.Error()) {
		t.Errorf("Finish did not call the record incomplete: %q", res.FinishErr)
	}
}

// TestUncounted: a connection whose destination has no element in the
// flows set is a destination the kernel could not count (the set full, or
// no memory for the element's counter as the packet passed); Finish calls
// the record incomplete for it. Keys are as the kernel gives them: each
// field padded to 32 bits.
func TestUncounted(t *testing.T) {
	pad := func(b ...byte) []byte { return append(b, make([]byte, (4-len(b)%4)%4)...) }
	port := func(p uint16) []byte { return pad(byte(p>>8), byte(p)) }
	dst4 := func(a string, p uint16) []byte {
		ip := netip.MustParseAddr(a).As4()
		return append(append(ip[:], pad(17)...), port(p)...)
	}
	dst6 := func(a string, p uint16) []byte {
		ip := netip.MustParseAddr(a).As16()
		return append(append(ip[:], pad(6)...), port(p)...)
	}
	src4 := netip.MustParseAddr("10.0.2.100").As4()
	src6 := netip.MustParseAddr("fd00::100").As16()
	conn4 := func(a string, p, sport uint16) nftables.SetElement {
		return nftables.SetElement{Key: append(append(dst4(a, p), src4[:]...), port(sport)...)}
	}
	conn6 := func(a string, p, sport uint16) nftables.SetElement {
		return nftables.SetElement{Key: append(append(dst6(a, p), src6[:]...), port(sport)...)}
	}
	flows := []nftables.SetElement{{Key: dst4("192.0.2.2", 1)}, {Key: dst6("2001:db8::2", 443)}}
	for _, c := range []struct {
		conns []nftables.SetElement
		want  int
	}{
		{nil, 0},
		{[]nftables.SetElement{conn4("192.0.2.2", 1, 40000), conn4("192.0.2.2", 1, 40001)}, 0},
		{[]nftables.SetElement{conn4("192.0.2.2", 1, 40000), conn4("192.0.2.2", 2, 40000), conn4("192.0.2.2", 2, 40001)}, 1},
		{[]nftables.SetElement{conn6("2001:db8::2", 443, 40000), conn6("2001:db8::3", 443, 40000), conn4("192.0.2.9", 9, 1)}, 2},
		// A key of no size the rule set makes: never taken as counted.
		{[]nftables.SetElement{{Key: []byte{192, 0, 2, 2}}}, 1},
	} {
		if got := uncounted(flows, c.conns); got != c.want {
			t.Errorf("uncounted(%d connections) = %d, want %d", len(c.conns), got, c.want)
		}
	}
	// The keys above have the sizes of the rule set's own sets, which
	// uncounted reads by size.
	pol, err := compilePolicy(goldenPolicies["allow"])
	if err != nil {
		t.Fatal(err)
	}
	c, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := buildRuleset(c, pol)
	if err != nil {
		t.Fatal(err)
	}
	for name, key := range map[string][]byte{
		setConns4: conn4("192.0.2.2", 1, 1).Key, setConns6: conn6("2001:db8::2", 1, 1).Key,
		setFlows4: dst4("192.0.2.2", 1), setFlows6: dst6("2001:db8::2", 1),
	} {
		if got := rs.sets[name].KeyType.Bytes; int(got) != len(key) {
			t.Errorf("%s keys are %d bytes; the test's (and uncounted's) are %d", name, got, len(key))
		}
	}
}

// closedPortClient sends a datagram to a closed port of the peer (its
// kernel answers port unreachable), then has the peer send one to a
// closed port of the probe's namespace over IPv4 and IPv6: that
// namespace's kernel answers port unreachable to the peer.
const closedPortClient = `import socket, subprocess, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(3)
s.connect(("192.0.2.2", 5999))
s.send(b"x")
try:
    s.recv(64)
    print("answered")
except ConnectionRefusedError:
    print("refused")
peer = sys.argv[1]
for fam, host in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8:1::1")):
    subprocess.run(["nsenter", "-t", peer, "-n", "python3", "-c",
        "import socket; socket.socket(%d, socket.SOCK_DGRAM).sendto(b'x', ('%s', 5998))" % (fam, host)], check=True)
time.sleep(0.3)
`

// TestCountNoKernelICMPErrors: an ICMP error the kernel sends in answer to
// a packet is no attempt of the command's, even to an allowed address.
// The allow sets came before the rule that drops such errors: the
// namespace's port unreachable to an allowed peer (that sent to a closed
// port, as a late reply does) went out and was logged as an icmp attempt.
func TestCountNoKernelICMPErrors(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": closedPortClient})
	res := runPeered(t, dir, []string{"192.0.2.0/24", "2001:db8:1::/64"}, "python3 "+dir+"/client.py $peer")
	defer dumpOnFailure(t, res)
	if out := res.Probes[0].Output; !strings.Contains(out, "refused") {
		t.Errorf("the peer's port unreachable did not reach the client: %q", out)
	}
	if e, ok := connectEntryFor(res.Egress, "192.0.2.2", 5999, "udp"); !ok || !e.Allowed || e.Attempts != 1 {
		t.Errorf("udp 192.0.2.2 port 5999: %+v (found %v), want one allowed attempt", e, ok)
	}
	for _, e := range res.Egress {
		if e.Proto == "icmp" {
			t.Errorf("the kernel's ICMP error recorded as an attempt: %+v", e)
		}
	}
	// In deny mode the wall drops them too, and the kernel's reset to a
	// SYN at a closed port: a peer's datagram and connect to the
	// namespace's closed ports leave no entry for the peer (IPv4 alone:
	// deny mode lets no neighbour discovery through).
	t.Run("deny", func(t *testing.T) {
		script := fmt.Sprintf(peerPrelude, dir) + "nsenter -t $peer -n python3 -c " +
			`"import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('192.0.2.1', 5998)); c = socket.socket(); c.settimeout(2)` + "\n" +
			`try: c.connect(('192.0.2.1', 5997)); print('peer connect done')` + "\n" +
			`except OSError as e: print('peer connect', type(e).__name__)"; sleep 0.3` + "\n"
		res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny}, Probes: []string{"sh:" + script}}, nil)
		defer dumpOnFailure(t, res)
		if res.SetupErr != "" || res.FinishErr != "" || res.Probes[0].Code != 0 {
			t.Fatalf("setup %q, finish %q, probe %d: %s", res.SetupErr, res.FinishErr, res.Probes[0].Code, res.Probes[0].Output)
		}
		for _, e := range res.Egress {
			if e.IP == "192.0.2.2" {
				t.Errorf("the kernel's answer to the peer recorded as an attempt: %+v", e)
			}
		}
	})
}

// peerResolver is a DNS server on the peer's port 53 (UDP and TCP): it
// answers every question with an A record 192.0.2.2 and writes each name
// it is asked to argv[2].
const peerResolver = `import socket, struct, sys, threading
log = open(sys.argv[2], "a", buffering=1)

def answer(q):
    end = 12
    while q[end]:
        end += q[end] + 1
    labels, i = [], 12
    while q[i]:
        labels.append(q[i + 1:i + 1 + q[i]].decode("ascii", "replace"))
        i += q[i] + 1
    log.write("Q " + ".".join(labels) + "\n")
    end += 5
    rr = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + socket.inet_aton("192.0.2.2")
    return q[:2] + b"\x81\x80" + q[4:6] + b"\x00\x01\x00\x00\x00\x00" + q[12:end] + rr

def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("192.0.2.2", 53))
    while True:
        q, peer = s.recvfrom(4096)
        s.sendto(answer(q), peer)

def tcp():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("192.0.2.2", 53))
    s.listen(8)
    while True:
        c, _ = s.accept()
        n = struct.unpack("!H", c.recv(2))[0]
        q = b""
        while len(q) < n:
            q += c.recv(n - len(q))
        a = answer(q)
        c.sendall(struct.pack("!H", len(a)) + a)
        c.close()

for f in (udp, tcp):
    threading.Thread(target=f, daemon=True).start()
open(sys.argv[1], "w").close()
threading.Event().wait()
`

// directClient asks the peer's resolver about argv[1] itself, over UDP and
// over TCP, around the stub.
const directClient = `import socket, struct, sys
q = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00"
for l in sys.argv[1].split("."):
    q += bytes([len(l)]) + l.encode()
q += b"\x00\x00\x10\x00\x01"
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
try:
    u.sendto(q, ("192.0.2.2", 53))
    print("udp answered", len(u.recv(4096)))
except OSError as e:
    print("udp", type(e).__name__)
try:
    t = socket.create_connection(("192.0.2.2", 53), timeout=2)
    t.sendall(struct.pack("!H", len(q)) + q)
    print("tcp answered", len(t.recv(4096)))
except OSError as e:
    print("tcp", type(e).__name__)
`

// TestAllowUpstreamAskedDirectlyIsRefused: the wall let the stub's marked
// questions to the upstream through, and nothing else of its own; but
// unmarked packets to the upstream's address and port fell through to the
// allow sets, which hold that address when an --allow-ip range covers it or
// an allowlisted name (without a port) resolves to it. The command then
// asked the upstream about names off the list, which left in its
// questions, and the record called it an allowed connect.
func TestAllowUpstreamAskedDirectlyIsRefused(t *testing.T) {
	needTools(t, "python3", "unshare", "nsenter", "ip")
	for _, c := range []struct {
		name           string
		allow, allowIP []string
		nat64          bool // also ask it at its NAT64 address, which allow-ip covers
	}{
		{"allow-ip covers the upstream", []string{"up.example.test"}, []string{"192.0.2.0/24"}, false},
		{"an allowed name resolves to the upstream", []string{"up.example.test"}, nil, false},
		{"allow-ip covers the upstream's NAT64 address", []string{"up.example.test"}, []string{"64:ff9b::/96"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := probeDir(t, map[string]string{"peer.py": peerResolver, "client.py": directClient})
			p := evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: c.allow, AllowIP: c.allowIP, DNSUpstream: "192.0.2.2"}
			// The peer's server takes the log's path after the ready file's.
			prelude := strings.Replace(fmt.Sprintf(peerPrelude, dir), "$d/peer.py $d/ready", "$d/peer.py $d/ready $d/dns.log", 1)
			script := prelude + "getent ahostsv4 up.example.test | head -1\npython3 " + dir + "/client.py secret.offlist.test\n"
			if c.nat64 {
				// Through a NAT64 gateway 64:ff9b::c000:202 is the
				// upstream; the peer stands in for the gateway's route.
				script += "ip -6 route add 64:ff9b::/96 via 2001:db8:1::2\n" +
					`python3 -c 'import socket; s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.sendto(b"\x00\x01\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x01x\x00\x00\x01\x00\x01", ("64:ff9b::c000:202", 53))'` + "\n"
			}
			res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:" + script}}, nil)
			if res.SetupErr != "" {
				t.Fatalf("setup: %s", res.SetupErr)
			}
			defer dumpOnFailure(t, res)
			if res.FinishErr != "" {
				t.Errorf("finish: %s", res.FinishErr)
			}
			out := res.Probes[0].Output
			if !strings.Contains(out, "192.0.2.2") {
				t.Fatalf("the allowed name did not resolve through the stub: %s", out)
			}
			log, _ := os.ReadFile(dir + "/dns.log")
			if !strings.Contains(string(log), "up.example.test") {
				t.Errorf("the stub's question never reached the upstream: %q", log)
			}
			if strings.Contains(string(log), "secret") || strings.Contains(out, "answered") {
				t.Errorf("the command asked the upstream directly: %s\nupstream's log: %s", out, log)
			}
			for _, proto := range []string{"udp", "tcp"} {
				e, ok := connectEntryFor(res.Egress, "192.0.2.2", 53, proto)
				if !ok || e.Allowed || e.Attempts < 1 || e.Packets != 0 {
					t.Errorf("%s to the upstream: %+v (found %v), want refused", proto, e, ok)
				}
			}
			if res.Dropped == nil || res.Dropped.Packets < 2 {
				t.Errorf("dropped = %+v, want the direct questions counted", res.Dropped)
			}
			if e, ok := connectEntryFor(res.Egress, "64:ff9b::c000:202", 53, "udp"); c.nat64 && (!ok || e.Allowed) {
				t.Errorf("udp to the upstream's NAT64 address: %+v (found %v), want refused", e, ok)
			}
		})
	}
}

// reusePeer answers each connection on TCP port 8 with one byte per byte
// it reads, until the client resets it.
const reusePeer = `import socket, sys, threading

tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
tcp.bind(("192.0.2.2", 8))
tcp.listen(4)

def serve(c):
    try:
        while c.recv(1):
            c.send(b"y")
    except OSError:
        pass
    c.close()

def accept():
    while True:
        c, _ = tcp.accept()
        threading.Thread(target=serve, args=(c,), daemon=True).start()

threading.Thread(target=accept, daemon=True).start()
open(sys.argv[1], "w").close()
threading.Event().wait()
`

// reuseClient makes three connections to the peer's port 8 from one
// source port, each reset by its close (SO_LINGER 0, so no TIME_WAIT
// holds the port), after a byte each way; then a connect to an address
// the peer routes nowhere, whose SYN the kernel sends again before the
// client gives up.
const reuseClient = `import socket, struct
for i in range(3):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.bind(("192.0.2.1", 40123))
    s.settimeout(10)
    s.connect(("192.0.2.2", 8))
    s.sendall(b"x")
    assert s.recv(1) == b"y"
    s.close()
print("reused", i + 1)
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.settimeout(2.5)
try:
    s.connect(("198.51.100.9", 8))
except OSError as e:
    print("unanswered", type(e).__name__)
`

// TestCountConnectionsFromAReusedSourcePort: in allow mode each TCP
// connection is one attempt, even one from the source port and to the
// destination of an earlier one (the kernel gives a port again once a
// reset freed it, as it does past the connector's limits): the set of
// connections held each address and port pair for the whole run, and
// counted three connections as one. A retransmitted SYN is still no
// attempt of its own.
func TestCountConnectionsFromAReusedSourcePort(t *testing.T) {
	dir := probeDir(t, map[string]string{"peer.py": reusePeer, "client.py": reuseClient})
	res := runPeered(t, dir, []string{"192.0.2.0/24", "198.51.100.0/24"}, "python3 "+dir+"/client.py")
	defer dumpOnFailure(t, res)
	out := res.Probes[0].Output
	for _, want := range []string{"reused 3", "unanswered"} {
		if !strings.Contains(out, want) {
			t.Fatalf("probe output %q lacks %q", out, want)
		}
	}
	if e, ok := connectEntryFor(res.Egress, "192.0.2.2", 8, "tcp"); !ok || e.Attempts != 3 {
		t.Errorf("three connections from one source port: entry %+v (found %v), want 3 attempts", e, ok)
	}
	if e, ok := connectEntryFor(res.Egress, "198.51.100.9", 8, "tcp"); !ok || e.Attempts != 1 || e.Packets < 2 {
		t.Errorf("one unanswered connect: entry %+v (found %v), want 1 attempt of 2 SYNs or more", e, ok)
	}
}

// udpAttemptsClient sends three datagrams from one socket to the peer's
// port 9; one datagram from each of three sockets bound in turn to source
// port 40124 to port 10; one from each of three sockets of their own
// source ports to port 11; and three from one socket to 198.51.100.9 port
// 12, an address the allowlist leaves out.
const udpAttemptsClient = `import socket
def send(s, dst):
    try:
        s.sendto(b"x", dst)
    except OSError:
        pass  # refused by the wall
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(3):
    send(s, ("192.0.2.2", 9))
for _ in range(3):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 40124))
    send(s, ("192.0.2.2", 10))
    s.close()
for _ in range(3):
    send(socket.socket(socket.AF_INET, socket.SOCK_DGRAM), ("192.0.2.2", 11))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(3):
    send(s, ("198.51.100.9", 12))
print("sent")
`

// TestCountUDPAttempts pins down what a UDP attempt is (docs/egress.md,
// the attempts field): a datagram the wall refuses is an attempt each, in
// every mode; one it lets through is an attempt when its source address
// and port, destination address and port are new to the run. UDP has no
// connection, and the wall sees datagrams, not sockets: one socket's
// datagrams to one destination are one attempt, and so are those of a
// later socket bound to the same source port.
func TestCountUDPAttempts(t *testing.T) {
	dir := probeDir(t, map[string]string{"peer.py": peerServer, "client.py": udpAttemptsClient})
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressAllow} {
		t.Run(mode, func(t *testing.T) {
			var res childResult
			if mode == evidence.EgressAllow {
				res = runPeered(t, dir, []string{"192.0.2.0/24"}, "python3 "+dir+"/client.py")
			} else {
				res = runDenied(t, "python3 "+dir+"/client.py")
			}
			defer dumpOnFailure(t, res)
			if !strings.Contains(res.Probes[0].Output, "sent") {
				t.Fatalf("the probe did not send: %s", res.Probes[0].Output)
			}
			allow := mode == evidence.EgressAllow
			for _, c := range []struct {
				ip       string
				port     int
				allowed  bool
				attempts int
			}{
				{"192.0.2.2", 9, allow, map[bool]int{true: 1, false: 3}[allow]},
				{"192.0.2.2", 10, allow, map[bool]int{true: 1, false: 3}[allow]},
				{"192.0.2.2", 11, allow, 3},
				{"198.51.100.9", 12, false, 3},
			} {
				e, ok := connectEntryFor(res.Egress, c.ip, c.port, "udp")
				if !ok || e.Allowed != c.allowed || e.Attempts != c.attempts {
					t.Errorf("udp to %s port %d: entry %+v (found %v), want %d attempts, allowed %v", c.ip, c.port, e, ok, c.attempts, c.allowed)
				}
				if allow && c.allowed && e.Packets != 3 {
					t.Errorf("udp to %s port %d: %d packets, want the 3 datagrams", c.ip, c.port, e.Packets)
				}
			}
		})
	}
}
