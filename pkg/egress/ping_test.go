package egress

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

const pingClient = `
import socket, time
for fam, proto, typ, host in ((socket.AF_INET, socket.IPPROTO_ICMP, 8, "203.0.113.9"),
                              (socket.AF_INET6, socket.IPPROTO_ICMPV6, 128, "2001:db8::9")):
    s = socket.socket(fam, socket.SOCK_DGRAM, proto)
    try:
        s.sendto(bytes([typ, 0, 0, 0, 0, 1, 0, 1]), (host, 0))
    except PermissionError:
        pass  # the wall refused it
    print("pinged", host)
# A ping socket sends echo requests alone: no ICMP error that the wall
# could take for one of the kernel.
for fam, proto, typ in ((socket.AF_INET, socket.IPPROTO_ICMP, 3), (socket.AF_INET6, socket.IPPROTO_ICMPV6, 1)):
    s = socket.socket(fam, socket.SOCK_DGRAM, proto)
    try:
        s.sendto(bytes([typ, 3 if typ == 3 else 4, 0, 0, 0, 1, 0, 1]), ("203.0.113.10" if fam == socket.AF_INET else "2001:db8::10", 0))
        print("sent an error", typ)
    except OSError as e:
        print("refused", typ, e.errno)
time.sleep(0.3)
`

// TestPingIsRecorded: a hook's ping (ping(8), or a ping socket of its
// own) failed at socket(2) in the sandbox, whose fresh network namespace
// had ping sockets off, before it named a destination: nothing was
// recorded, and no-egress passed a hook that pings a host under Claude
// Code, whose host mostly has them on. Now its echo requests are packets
// the wall logs and refuses, an icmp entry of each address, IPv4 and
// IPv6; and the socket sends nothing but echo requests.
func TestPingIsRecorded(t *testing.T) {
	needTools(t, "python3")
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		t.Run(mode, func(t *testing.T) {
			res := runChild(t, "sandbox", childSpec{Policy: evidence.EgressPolicy{Mode: mode}, Probes: []string{"sh:python3 -c '" + pingClient + "'"}}, nil)
			if res.SetupErr != "" {
				t.Fatalf("setup: %s", res.SetupErr)
			}
			defer dumpOnFailure(t, res)
			out := ""
			for _, p := range res.Probes {
				out += p.Output
			}
			for _, want := range []string{"pinged 203.0.113.9", "pinged 2001:db8::9", "refused 3 22", "refused 1 22"} {
				if !strings.Contains(out, want) {
					t.Errorf("the probe did not say %q: %s", want, out)
				}
			}
			for _, ip := range []string{"203.0.113.9", "2001:db8::9"} {
				e, ok := connectEntryFor(res.Egress, ip, 0, "icmp")
				if !ok || e.Allowed || e.Attempts != 1 {
					t.Errorf("ping of %s: entry %+v (found %v), want one icmp attempt, not allowed", ip, e, ok)
				}
			}
		})
	}
}
