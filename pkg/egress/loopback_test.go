package egress

import (
	"fmt"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// loopbackClient tries the sandbox's own addresses on ports nothing there
// takes (TCP and UDP, IPv4 and IPv6), its own servers (listen, then
// connect), the DNS stub over UDP and TCP (one question's answer to a
// socket already closed), and remote addresses the wall refuses.
const loopbackClient = `import socket, sys
A4, A6 = socket.AF_INET, socket.AF_INET6
def tcp(fam, host, port):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, port))
        print("tcp connected", host, port)
    except OSError as e:
        print("tcp", host, port, e)
    s.close()
def udp(fam, host, port, n=1):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    for _ in range(n):
        try:
            s.sendto(b"x", (host, port))
        except OSError as e:
            print("udp", host, port, e)
    s.close()
tcp(A4, "127.0.0.1", 4000)
tcp(A4, "127.0.0.1", 4000)
tcp(A6, "::1", 4001)
tcp(A4, "127.3.4.5", 4002)
tcp(A4, "10.254.254.1", 4003)
udp(A4, "127.0.0.1", 8125, 3)
udp(A6, "::1", 8126)
for fam, host in ((A4, "127.0.0.1"), (A6, "::1")):
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.bind((host, 0))
    ls.listen()
    tcp(fam, host, ls.getsockname()[1])
    us = socket.socket(fam, socket.SOCK_DGRAM)
    us.bind((host, 0))
    udp(fam, host, us.getsockname()[1])
    us.settimeout(3)
    print("own udp", len(us.recv(10)))
q = bytes.fromhex("%s")
for fam, host in ((A4, "127.0.0.1"), (A6, "::1")):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.sendto(q, (host, 53))
    s.close()
    tcp(fam, host, 53)
tcp(A4, "203.0.113.9", 443)
udp(A4, "203.0.113.9", 5353)
udp(A6, "2001:db8::9", 5353)
import time
time.sleep(0.3)
`

// TestLoopbackAttemptsAreRecorded: an attempt at one of the sandbox's own
// addresses that nothing there answers is what, under Claude Code, reaches
// a service of the host's (a hook's POST to localhost:4000): it is
// recorded as a loopback entry, in every mode, once per attempt, by the
// address and port tried; at another address of the sandbox's own (deny
// mode's route address) it is a connect that did not get through. The hook's own servers, the DNS stub and the
// wall's refusals of remote addresses leave no such entry. Before, such
// attempts left nothing at all: loopback was "not egress".
func TestLoopbackAttemptsAreRecorded(t *testing.T) {
	needTools(t, "python3")
	q := fmt.Sprintf("%x", buildQuery(0x1234, 1, []byte("gone"), []byte("test")))
	script := "python3 -c '" + fmt.Sprintf(loopbackClient, q) + "'"
	for _, p := range []evidence.EgressPolicy{
		{Mode: evidence.EgressDeny},
		{Mode: evidence.EgressRecord},
		{Mode: evidence.EgressAllow, AllowIP: []string{"192.0.2.0/24"}},
	} {
		t.Run(p.Mode, func(t *testing.T) {
			res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:" + script}}, nil)
			if res.SetupErr != "" {
				t.Fatalf("setup: %s", res.SetupErr)
			}
			defer dumpOnFailure(t, res)
			if res.FinishErr != "" {
				t.Errorf("finish: %s", res.FinishErr)
			}
			want := map[string]int{
				"127.0.0.1 4000 tcp": 2,
				"::1 4001 tcp":       1,
				"127.3.4.5 4002 tcp": 1,
				"127.0.0.1 8125 udp": 3,
				"::1 8126 udp":       1,
			}
			for _, e := range res.Egress {
				if e.Via != evidence.ViaLoopback {
					continue
				}
				k := fmt.Sprintf("%s %d %s", e.IP, e.Port, e.Proto)
				n, ok := want[k]
				switch {
				case !ok:
					t.Errorf("unexpected loopback entry %+v (own servers, the stub and the wall's refusals leave none)", e)
				case e.Attempts != n:
					t.Errorf("%s: %d attempts, want %d", k, e.Attempts, n)
				}
				if e.Allowed || e.Host != "" || e.Packets != 0 {
					t.Errorf("loopback entry %+v allowed, named or counted", e)
				}
				delete(want, k)
			}
			for k := range want {
				t.Errorf("no loopback entry for %s", k)
			}
			for _, r := range []struct {
				ip    string
				port  int
				proto string
			}{{"203.0.113.9", 443, "tcp"}, {"203.0.113.9", 5353, "udp"}, {"2001:db8::9", 5353, "udp"},
				// The sandbox's own route address, not its loopback:
				// under Claude Code another machine's, so a connect
				// that did not get through, not the host's loopback.
				{"10.254.254.1", 4003, "tcp"}} {
				if _, ok := connectEntryFor(res.Egress, r.ip, r.port, r.proto); !ok {
					t.Errorf("no connect entry for %s %d %s", r.ip, r.port, r.proto)
				}
			}
		})
	}
}
