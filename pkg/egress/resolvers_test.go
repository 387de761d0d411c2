package egress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestLoopbackResolversAreTheStub: a command that names a resolver itself
// (systemd-resolved's 127.0.0.53 and 127.0.0.54, Debian's 127.0.1.1,
// Docker's 127.0.0.11, any other loopback address) instead of the one
// resolv.conf names met no listener, and its question left nothing in the
// record. The stub listens on the unspecified addresses: each question is
// answered from the address it was sent to (NXDOMAIN off the list) and
// recorded, over UDP and TCP, IPv4 and IPv6.
func TestLoopbackResolversAreTheStub(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, pyProbe(`
addrs = ("127.0.0.53", "127.0.0.54", "127.0.1.1", "127.0.0.11", "127.201.7.9", "127.0.0.1")
for i, addr in enumerate(addrs):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(3)
    u.sendto(dnsq(i, "u%d.resolved.example" % i), (addr, 53))
    a, src = u.recvfrom(512)
    print("udp", addr, "rcode", a[3] & 15, "from", src[0])
for i, addr in enumerate(("127.0.0.53", "127.0.0.11")):
    t = socket.create_connection((addr, 53), timeout=3)
    t.sendall(tcpq(9, "t%d.resolved.example" % i))
    print("tcp", addr, "rcode", t.recv(512)[5] & 15, "from", t.getpeername()[0])
if socket.has_ipv6:
    u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    u.settimeout(3)
    u.sendto(dnsq(7, "v6.resolved.example"), ("::1", 53))
    a, src = u.recvfrom(512)
    print("udp6 rcode", a[3] & 15, "from", src[0])
`))
	defer dumpOnFailure(t, res)
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	out := res.Probes[0].Output
	want := []string{"tcp 127.0.0.53 rcode 3 from 127.0.0.53", "tcp 127.0.0.11 rcode 3 from 127.0.0.11"}
	names := []string{"t0", "t1"}
	for i, a := range []string{"127.0.0.53", "127.0.0.54", "127.0.1.1", "127.0.0.11", "127.201.7.9", "127.0.0.1"} {
		want = append(want, "udp "+a+" rcode 3 from "+a)
		names = append(names, fmt.Sprintf("u%d", i))
	}
	if ipv6Available() {
		want = append(want, "udp6 rcode 3 from ::1")
		names = append(names, "v6")
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("probe output lacks %q: %s", w, out)
		}
	}
	for _, name := range names {
		if n := attempts(res.Egress, evidence.ViaDNS, name+".resolved.example"); n != 1 {
			t.Errorf("%s.resolved.example: %d attempts, want 1", name, n)
		}
	}
}
