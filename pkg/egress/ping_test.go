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

// allowPingClient pings the peer from two ping sockets per family, three
// echo requests each, and reads every reply; then sends 17,000 echo
// requests of other sequence numbers from one more socket to an address
// routed to the peer that nobody holds (no reply).
const allowPingClient = `import socket
for fam, pr, typ, peer, away in ((socket.AF_INET, socket.IPPROTO_ICMP, 8, "192.0.2.2", "198.51.100.7"),
                                 (socket.AF_INET6, socket.IPPROTO_ICMPV6, 128, "2001:db8:1::2", "2001:db8:2::7")):
    for sock in range(2):
        p = socket.socket(fam, socket.SOCK_DGRAM, pr)
        p.settimeout(2)
        for seq in range(3):
            p.sendto(bytes([typ, 0, 0, 0, 0, 0, 0, seq]) + b"A" * 32, (peer, 0))
            p.recv(100)
        p.close()
    print("replies", peer)
    p = socket.socket(fam, socket.SOCK_DGRAM, pr)
    for seq in range(17000):
        p.sendto(bytes([typ, 0, 0, 0, 0, 0, seq >> 8, seq & 255]), (away, 0))
    print("sent", away)
`

// TestAllowPingIsOneAttemptPerSocket: in allow mode the wall keyed an
// echo request's flow and connection by its checksum (the two bytes where
// TCP and UDP have their destination port) and its type and code (where
// they have the source port). Each echo request was an attempt and a
// destination of its own in the sets: the replies, whose checksum is
// another, were never counted (3 echo requests and 3 replies were 3
// packets), and 16,383 echo requests to one address filled the sets, so
// that a long ping made the record incomplete. Now an echo request's
// destination is its address, as the record names it, and its connection
// the socket that sent it (the echo identifier, which the kernel sets to
// the ping socket's own): one attempt per socket and address, as one UDP
// socket's datagrams to one destination are, with its replies counted.
func TestAllowPingIsOneAttemptPerSocket(t *testing.T) {
	dir := probeDir(t, map[string]string{"client.py": allowPingClient})
	res := runPeered(t, dir, []string{"192.0.2.0/24", "198.51.100.0/24", "2001:db8::/32"}, "python3 "+dir+"/client.py")
	defer dumpOnFailure(t, res)
	for _, c := range []struct {
		peer, away string
		ipHdr      uint64
	}{
		{"192.0.2.2", "198.51.100.7", 20},
		{"2001:db8:1::2", "2001:db8:2::7", 40},
	} {
		if !strings.Contains(res.Probes[0].Output, "replies "+c.peer) || !strings.Contains(res.Probes[0].Output, "sent "+c.away) {
			t.Fatalf("the probe did not ping %s and %s: %s", c.peer, c.away, res.Probes[0].Output)
		}
		// 2 sockets, 6 echo requests of 40 bytes after the IP header,
		// 6 replies as long.
		e, ok := connectEntryFor(res.Egress, c.peer, 0, "icmp")
		if want := 12 * (c.ipHdr + 40); !ok || !e.Allowed || e.Attempts != 2 || e.Packets != 12 || e.Bytes != want {
			t.Errorf("pings of %s: entry %+v (found %v), want 2 attempts, 12 packets, %d bytes, allowed", c.peer, e, ok, want)
		}
		e, ok = connectEntryFor(res.Egress, c.away, 0, "icmp")
		if want := 17000 * (c.ipHdr + 8); !ok || !e.Allowed || e.Attempts != 1 || e.Packets != 17000 || e.Bytes != want {
			t.Errorf("17,000 echo requests to %s: entry %+v (found %v), want 1 attempt, 17000 packets, %d bytes, allowed", c.away, e, ok, want)
		}
	}
}
