package egress

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestLoopbackResolversAreTheStub: a command that names a host's loopback
// resolver itself (systemd-resolved's 127.0.0.53 and 127.0.0.54, 127.0.1.1)
// instead of the one resolv.conf names met no listener, and its question
// left nothing in the record. The stub listens there too: each question
// is answered (NXDOMAIN off the list) and recorded, over UDP and TCP.
func TestLoopbackResolversAreTheStub(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, pyProbe(`
for i, (addr, name) in enumerate((("127.0.0.53", "a.resolved.example"), ("127.0.0.54", "b.resolved.example"), ("127.0.1.1", "c.resolved.example"))):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(3)
    u.sendto(dnsq(i, name), (addr, 53))
    a, src = u.recvfrom(512)
    print("udp", addr, "rcode", a[3] & 15, "from", src[0])
t = socket.create_connection(("127.0.0.53", 53), timeout=3)
t.sendall(tcpq(9, "d.resolved.example"))
print("tcp rcode", t.recv(512)[5] & 15)
`))
	defer dumpOnFailure(t, res)
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	out := res.Probes[0].Output
	for _, want := range []string{"udp 127.0.0.53 rcode 3 from 127.0.0.53", "udp 127.0.0.54 rcode 3 from 127.0.0.54",
		"udp 127.0.1.1 rcode 3 from 127.0.1.1", "tcp rcode 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("probe output lacks %q: %s", want, out)
		}
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if n := attempts(res.Egress, evidence.ViaDNS, name+".resolved.example"); n != 1 {
			t.Errorf("%s.resolved.example: %d attempts, want 1", name, n)
		}
	}
}
