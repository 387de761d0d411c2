package egress

// Datagrams larger than the link's MTU, against the real rule set in
// namespaces the test creates (count_test.go's peer).

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// fragPeer echoes each datagram to UDP port 7 back whole.
const fragPeer = `import socket, sys, threading
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 7))
def serve():
    while True:
        b, peer = s.recvfrom(65535)
        s.sendto(b, peer)
threading.Thread(target=serve, daemon=True).start()
open(sys.argv[1], "w").close()
threading.Event().wait()
`

// fragClient sends one 3,000-byte datagram to argv[2] and to argv[3],
// port 7, and prints how many fragments the namespace's kernel made for
// each (Ip: FragCreates, Ip6FragCreates) and, with argv[1] "reply", the
// length of the answer.
const fragClient = `import socket, sys
def frags():
    with open("/proc/net/snmp") as f:
        ip = [l.split() for l in f if l.startswith("Ip:")]
    with open("/proc/net/snmp6") as f:
        ip6 = dict(l.split() for l in f if l.strip())
    return int(ip[1][ip[0].index("FragCreates")]) + int(ip6["Ip6FragCreates"])
for fam, host in ((socket.AF_INET, sys.argv[2]), (socket.AF_INET6, sys.argv[3])):
    before = frags()
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(10)
    s.connect((host, 7))
    try:
        s.send(b"f" * 3000)
    except OSError as e:
        print("send", host, type(e).__name__)
    if sys.argv[1] == "reply":
        print("reply", host, len(s.recv(65535)))
    print("fragments", host, frags() - before)
`

// fragLoopClient sends one datagram of 65,500 bytes to ::1 port 5999,
// where nothing listens, in fragments of at most 1,280 bytes (IPV6_MTU,
// which needs no privilege; the datagram is past the loopback's MTU of
// 65,536 anyway), and prints how many fragments its kernel made.
const fragLoopClient = `import socket, time
IPV6_MTU = 24
def frags():
    with open("/proc/net/snmp6") as f:
        return int(dict(l.split() for l in f if l.strip())["Ip6FragCreates"])
before = frags()
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IPV6, IPV6_MTU, 1280)
s.sendto(b"g" * 65500, ("::1", 5999))
time.sleep(0.2)
print("fragments ::1", frags() - before)
`

// TestCountFragmentedDatagram: the kernel fragments a datagram larger
// than the link's MTU after the output hook, so the wall sees, logs and
// counts it whole, with its port: one attempt, and no entry of a fragment
// past the first (which holds no ports; nflog.go records such a packet
// without one, TestParseFragments). The probe's peer (a veth pair, MTU
// 1,500) echoes a 3,000-byte datagram over IPv4 and IPv6; the probe reads
// how many fragments its namespace's kernel made.
//
// What comes back is counted as the input hook sees it: an IPv4 reply
// whole (the kernel puts its fragments together before that hook), an
// IPv6 reply by its first fragment alone (the input hook sees IPv6
// fragments before they are put together, and those past the first have
// no ports to find the flow by). docs/egress.md names that limit.
func TestCountFragmentedDatagram(t *testing.T) {
	dir := probeDir(t, map[string]string{"peer.py": fragPeer, "client.py": fragClient, "loop.py": fragLoopClient})
	hosts := []string{"192.0.2.2", "2001:db8:1::2"}
	// only checks that e is the one entry of its address.
	only := func(t *testing.T, res childResult, ip string) evidence.Egress {
		t.Helper()
		var got []evidence.Egress
		for _, e := range res.Egress {
			if e.IP == ip {
				got = append(got, e)
			}
		}
		if len(got) != 1 || got[0].Via != evidence.ViaConnect || got[0].Proto != "udp" || got[0].Port != 7 || got[0].Attempts != 1 {
			t.Errorf("entries of %s: %+v, want one: udp port 7, 1 attempt", ip, got)
			return evidence.Egress{}
		}
		return got[0]
	}
	fragments := func(t *testing.T, out, host string) int {
		t.Helper()
		var n int
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, "fragments "+host+" "); ok {
				if _, err := fmt.Sscan(rest, &n); err == nil {
					return n
				}
			}
		}
		t.Fatalf("probe output %q says no fragment count for %s", out, host)
		return 0
	}
	t.Run("allow", func(t *testing.T) {
		res := runPeered(t, dir, []string{"192.0.2.0/24", "2001:db8:1::/64"}, "python3 "+dir+"/client.py reply "+strings.Join(hosts, " "))
		defer dumpOnFailure(t, res)
		out := res.Probes[0].Output
		for _, c := range []struct {
			ip    string
			bytes uint64
		}{
			// 3,000 bytes out and back with IPv4 (20) and UDP (8)
			// headers, each whole.
			{hosts[0], 2 * 3028},
			// 3,000 bytes out, with IPv6 (40) and UDP (8) headers,
			// whole; of the reply its first fragment: IPv6 and
			// fragment headers (48) and 1,448 bytes, a multiple of 8
			// that fits the link's 1,500.
			{hosts[1], 3048 + 48 + 1448},
		} {
			if !strings.Contains(out, "reply "+c.ip+" 3000") {
				t.Fatalf("probe output %q: the peer at %s did not echo the datagram whole", out, c.ip)
			}
			if n := fragments(t, out, c.ip); n < 2 {
				t.Errorf("%s: the namespace's kernel made %d fragments of the datagram, want it sent in fragments", c.ip, n)
			}
			if e := only(t, res, c.ip); e.Attempts == 1 && (!e.Allowed || e.Packets != 2 || e.Bytes != c.bytes) {
				t.Errorf("udp %s port 7: %+v, want allowed, 2 packets, %d bytes", c.ip, e, c.bytes)
			}
		}
	})
	t.Run("loopback", func(t *testing.T) {
		res := runDenied(t, "python3 "+dir+"/loop.py")
		defer dumpOnFailure(t, res)
		out := res.Probes[0].Output
		if n := fragments(t, out, "::1"); n < 2 {
			t.Errorf("the namespace's kernel made %d fragments of the datagram to ::1, want it sent in fragments", n)
		}
		var got []evidence.Egress
		for _, e := range res.Egress {
			if e.IP == "::1" {
				got = append(got, e)
			}
		}
		if len(got) != 1 || got[0].Via != evidence.ViaLoopback || got[0].Proto != "udp" || got[0].Port != 5999 || got[0].Attempts != 1 {
			t.Errorf("entries of ::1: %+v, want one: loopback, udp port 5999, 1 attempt", got)
		}
	})
	t.Run("deny", func(t *testing.T) {
		// The same route out through the veth pair: the wall refuses
		// the datagram before the kernel would fragment it.
		needTools(t, "python3", "unshare", "nsenter", "ip")
		res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: evidence.EgressDeny},
			Probes: []string{"sh:" + fmt.Sprintf(peerPrelude, dir) + "python3 " + dir + "/client.py none " + strings.Join(hosts, " ")}}, nil)
		if res.SetupErr != "" || res.FinishErr != "" {
			t.Fatalf("setup: %s, finish: %s", res.SetupErr, res.FinishErr)
		}
		defer dumpOnFailure(t, res)
		out := res.Probes[0].Output
		if res.Probes[0].Code != 0 {
			t.Fatalf("probe failed (%d): %s", res.Probes[0].Code, out)
		}
		for _, ip := range hosts {
			if n := fragments(t, out, ip); n != 0 {
				t.Errorf("%s: the namespace's kernel made %d fragments of a datagram the wall refused", ip, n)
			}
			if e := only(t, res, ip); e.Attempts == 1 && e.Allowed {
				t.Errorf("udp %s port 7: %+v, want refused", ip, e)
			}
		}
	})
}
