package egress

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/tapkeep"
	"github.com/vigiles/action/pkg/evidence"
)

func allowPolicy(connector string) evidence.EgressPolicy {
	return evidence.EgressPolicy{
		Mode: evidence.EgressAllow,
		Allow: []string{"allowed.example.test", "rot.example.test", "*.wild.example.test", "port.example.test:7000",
			"meta.example.test", "meta6.example.test", "loop.example.test", "priv.example.test", "privok.example.test", "v6.example.test"},
		AllowIP:     []string{"10.0.0.6"},
		DNSUpstream: testDNS,
		Connector:   connector,
	}
}

// bypassQuery is a real DNS question for bypass.example.test sent straight
// to the upstream, around the stub.
func bypassQuery() string {
	q, _ := dnsmessage.NewName("bypass.example.test.")
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: 7, RecursionDesired: true})
	_ = b.StartQuestions()
	_ = b.Question(dnsmessage.Question{Name: q, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET})
	out, _ := b.Finish()
	return hex.EncodeToString(out)
}

// mdnsQuery is a multicast DNS question for unicast-mdns.local (ID 0, no
// flags, as RFC 6762 has them) whose class has its top bit set: QU, a
// unicast answer wanted.
func mdnsQuery() []byte {
	q := buildQuery(0, 1, []byte("unicast-mdns"), []byte("local"))
	binary.BigEndian.PutUint16(q[2:], 0)
	binary.BigEndian.PutUint16(q[len(q)-2:], 0x8001)
	return q
}

func TestAllow(t *testing.T) {
	for _, connector := range []string{ConnectorSlirp, ConnectorPasta} {
		t.Run(connector, func(t *testing.T) {
			if _, err := exec.LookPath(connector); err != nil {
				missing(t, connector)
			}
			needNamespaces(t)
			hosts := newTestHosts(t)
			testAllow(t, hosts, connector)
		})
	}
}

func testAllow(t *testing.T, hosts *testHosts, connector string) {
	p := allowPolicy(connector)
	curl := "curl -sS -m 8 --noproxy '*' "
	probes := []string{
		/* 0 */ "sh:" + curl + "http://allowed.example.test/",
		/* 1 */ "sh:" + curl + "http://rot.example.test/ && " + curl + "http://rot.example.test/",
		/* 2 */ "sh:" + curl + "http://a.wild.example.test/",
		/* 3 */ "sh:" + curl + "http://wild.example.test/",
		/* 4 */ "sh:" + curl + "http://off.example.test/",
		/* 5 */ "sh:echo > /dev/tcp/198.18.0.8/80",
		/* 6 */ "sh:for i in 1 2 3; do exec 3<>/dev/tcp/port.example.test/7000 && echo ping >&3 && head -c4 <&3 && exec 3<&-; done",
		/* 7 */ "sh:echo > /dev/tcp/port.example.test/80",
		/* 8 */ "sh:getent ahostsv4 meta.example.test; getent ahostsv4 loop.example.test; getent ahostsv4 priv.example.test; getent ahosts meta6.example.test; true",
		/* 9 */ "sh:getent ahostsv4 privok.example.test",
		/* 10 */ "dnsto:" + testDNS + ":53/" + bypassQuery(),
		// slirp4netns configures IPv6 by router advertisement: wait for it,
		// up to 30 s, where 5 s could end before the kernel's next router
		// solicitation (4 s apart) once a starved slirp4netns missed one.
		/* 11 */ "sh:for i in $(seq 300); do ip -6 route show default | grep -v 'dev lo' | grep -q . && break; sleep 0.1; done; " + curl + "-6 http://v6.example.test/",
		/* 12 */ `sh:command -v node >/dev/null || { echo no node; exit 0; }; node -e 'fetch("http://a.wild.example.test/node").then(r=>r.text()).then(t=>console.log(t.slice(0,20)),e=>{console.log(String(e));process.exit(3)})'`,
		/* 13 */ "sh:" + curl + "-k https://allowed.example.test/tls",
		/* 14 */ "dns:" + hex.EncodeToString(buildQuery(0x4243, 1, append(hostileLabels()[:4], []byte("wild"), []byte("example"), []byte("test"))...)),
		/* 15 */ "sh:exec 4>/dev/udp/allowed.example.test/7001 && echo a >&4 && echo b >&4 && echo c >&4",
		// A question straight to an allowed address (the test host,
		// which probe 0's lookup allowed), its name longer than a
		// 128-byte snapshot holds.
		/* 16 */ "dnsto:198.18.0.3:53/" + hex.EncodeToString(buildQuery(0x4244, 1, longQuestion()...)),
		// The same over TCP, in the SYN (TCP Fast Open).
		/* 17 */ "sh:python3 - " + hex.EncodeToString(buildQuery(0x4245, 1, []byte("syn"), []byte("example"), []byte("test"))) + " 198.18.0.3 <<'PY'\n" + fastOpenQuestionClient + "\nPY\n",
		// A multicast DNS question sent unicast to mDNS's port of
		// the same allowed address, with the QU bit of its class set.
		/* 18 */ "dnsto:198.18.0.3:5353/" + hex.EncodeToString(mdnsQuery()),
		// A connect to the address probe 8's refused answer for
		// priv.example.test named: refused, and named by that name.
		/* 19 */ "sh:echo > /dev/tcp/10.0.0.5/80",
		// A ported allow is TCP's and UDP's (docs/egress.md): a
		// datagram to port.example.test:7000 goes out.
		/* 20 */ "sh:exec 5>/dev/udp/port.example.test/7000 && echo u >&5",
	}
	l := &Layer{}
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: probes}, func(pid int) (io.Closer, error) {
		start := time.Now()
		c, err := l.Attach(context.Background(), p, pid, nil, nil, nil)
		t.Logf("attach with %s took %s", connector, time.Since(start).Round(10*time.Microsecond))
		return c, err
	})
	t.Logf("setup %s, finish %s", res.SetupTime.Round(10*time.Microsecond), res.FinishTime.Round(10*time.Microsecond))
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	log := hosts.serverLog(t)
	out := func(i int) string { return res.Probes[i].Output }

	t.Run("allowed host reached, bytes counted", func(t *testing.T) {
		if !strings.Contains(out(0), "hello from test host") {
			t.Fatalf("curl to an allowed host: %s", out(0))
		}
		e, _ := mustFind(t, res.Egress, "allowed.example.test:80", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.3" && e.Port == 80 && e.Proto == "tcp"
		})
		if !e.Allowed || e.Host != "allowed.example.test" || e.Attempts != 1 || e.Packets < 4 || e.Bytes < 2000 {
			t.Errorf("allowed entry %+v: want allowed, named, 1 attempt, packets and reply bytes counted", e)
		}
		mustFind(t, res.Egress, "the allowed name", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "allowed.example.test" && e.Allowed
		})
	})
	t.Run("https", func(t *testing.T) {
		if !strings.Contains(out(13), "hello from test host") {
			t.Fatalf("https to an allowed host: %q", out(13))
		}
		e, _ := mustFind(t, res.Egress, "allowed.example.test:443", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.3" && e.Port == 443 && e.Proto == "tcp"
		})
		if !e.Allowed || e.Host != "allowed.example.test" || e.Bytes < 2000 {
			t.Errorf("https entry %+v", e)
		}
	})
	t.Run("hostile name", func(t *testing.T) {
		// Under an allowed wildcard, but not a host name: answered here,
		// never forwarded, never near the rule set, printable in the record.
		if ans := out(14); len(ans) < 8 || ans[:4] != "4243" || ans[7] != '3' {
			t.Errorf("hostile query answer %s, want NXDOMAIN", ans)
		}
		if strings.Contains(log, "flush") {
			t.Errorf("the hostile name reached the upstream:\n%s", log)
		}
		if strings.Contains(res.Ruleset, "flush") || strings.Contains(res.Ruleset, "example") {
			t.Errorf("a name reached the rule set:\n%s", res.Ruleset)
		}
		h, _ := mustFind(t, res.Egress, "the hostile name", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && strings.Contains(e.Host, "flush") && !e.Allowed
		})
		if len(h.Host) < 300 || strings.ContainsAny(h.Host, "\n\"' ") {
			t.Errorf("hostile name recorded as %q", h.Host)
		}
	})
	t.Run("node fetch", func(t *testing.T) {
		if strings.TrimSpace(out(12)) == "no node" {
			missing(t, "node")
		}
		if !strings.Contains(out(12), "hello from test host") || !strings.Contains(log, "http a.wild.example.test /node") {
			t.Errorf("node fetch to an allowed wildcard host: %q", out(12))
		}
	})
	t.Run("dns rotation", func(t *testing.T) {
		if strings.Count(out(1), "hello from test host") != 2 {
			t.Fatalf("both rotated answers should be reachable: %s", out(1))
		}
		for _, ip := range []string{"198.18.0.6", "198.18.0.7"} {
			e, _ := mustFind(t, res.Egress, "rotated "+ip, func(e evidence.Egress) bool {
				return e.Via == evidence.ViaConnect && e.IP == ip && e.Port == 80
			})
			if !e.Allowed || e.Host != "rot.example.test" || e.Bytes == 0 {
				t.Errorf("rotation entry %+v", e)
			}
		}
	})
	t.Run("wildcard", func(t *testing.T) {
		if !strings.Contains(out(2), "hello from test host") {
			t.Errorf("a.wild.example.test: %s", out(2))
		}
		if strings.Contains(out(3), "hello") {
			t.Errorf("the wildcard's own apex must not match: %s", out(3))
		}
		mustFind(t, res.Egress, "wild apex refused", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "wild.example.test" && !e.Allowed
		})
	})
	t.Run("off-list host dropped and named, never forwarded", func(t *testing.T) {
		if strings.Contains(out(4), "hello") {
			t.Errorf("off-list name answered: %s", out(4))
		}
		if strings.Contains(log, "off.example.test") || strings.Contains(log, "wild.example.test. ") && !strings.Contains(log, "a.wild") {
			t.Errorf("an off-list name reached the upstream:\n%s", log)
		}
		mustFind(t, res.Egress, "off-list name", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "off.example.test" && !e.Allowed
		})
		mustFind(t, res.Egress, "raw connect to an off-list address", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.8" && e.Port == 80 && !e.Allowed
		})
		e, _ := mustFind(t, res.Egress, "allowed name on a port off the list", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.5" && e.Port == 80
		})
		if e.Allowed || e.Host != "port.example.test" {
			t.Errorf("port 80 of port.example.test: %+v, want dropped and named from the dns log", e)
		}
		if !strings.Contains(out(6), "ping") {
			t.Errorf("port.example.test:7000 (allowed port, raw tcp): %q", out(6))
		}
		e, _ = mustFind(t, res.Egress, "allowed port", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.5" && e.Port == 7000 && e.Proto == "tcp"
		})
		if !e.Allowed || e.Bytes == 0 || e.Attempts != 3 {
			t.Errorf("port 7000 entry %+v, want allowed, bytes counted, 3 attempts (one per connection)", e)
		}
		e, _ = mustFind(t, res.Egress, "allowed port over udp", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.5" && e.Port == 7000 && e.Proto == "udp"
		})
		if !e.Allowed || e.Host != "port.example.test" || e.Packets == 0 {
			t.Errorf("udp to port.example.test:7000: %+v, want allowed, named, its packet counted", e)
		}
		if res.Dropped == nil || res.Dropped.Packets == 0 || res.Dropped.Bytes == 0 {
			t.Errorf("dropped = %+v, want counts", res.Dropped)
		}
	})
	t.Run("one attempt per connection", func(t *testing.T) {
		// Three datagrams from one UDP socket are one connection: one
		// attempt, three packets (no reply comes).
		e, _ := mustFind(t, res.Egress, "allowed.example.test udp/7001", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "198.18.0.3" && e.Port == 7001 && e.Proto == "udp"
		})
		if !e.Allowed || e.Host != "allowed.example.test" || e.Attempts != 1 || e.Packets != 3 {
			t.Errorf("udp entry %+v: want allowed, named, 1 attempt, 3 packets", e)
		}
	})
	t.Run("rebinding refused", func(t *testing.T) {
		if strings.TrimSpace(out(8)) != "" {
			t.Errorf("a rebinding name resolved: %q", out(8))
		}
		for _, c := range []struct{ host, ip, why string }{
			{"meta.example.test", "169.254.169.254", "link-local"},
			{"meta6.example.test", "2002:a9fe:a9fe::1", "link-local"},
			{"loop.example.test", "127.0.0.1", "loopback"},
			{"priv.example.test", "10.0.0.5", "private"},
		} {
			e, _ := mustFind(t, res.Egress, c.host+" refusal", func(e evidence.Egress) bool {
				return e.Via == evidence.ViaDNS && e.Host == c.host && e.IP == c.ip
			})
			if e.Allowed || !strings.Contains(e.Detail, c.why) {
				t.Errorf("%s: %+v, want refused as %s", c.host, e, c.why)
			}
			// test and audit report the record too, and have no
			// --allow-ip: the detail names the policy's key as well;
			// a loopback address, which no allow admits, neither.
			if c.why == "loopback" {
				if strings.Contains(e.Detail, "--allow-ip") {
					t.Errorf("%s: detail %q advises an allow that refuses the loopback", c.host, e.Detail)
				}
			} else if !strings.Contains(e.Detail, "--allow-ip") || !strings.Contains(e.Detail, "defaults.egress.allow-ip") {
				t.Errorf("%s: detail %q, want it to name both --allow-ip (vigiles run) and defaults.egress.allow-ip (test, audit)", c.host, e.Detail)
			}
		}
		// The name is known where the answer was refused: a connect to
		// its address is recorded under it, refused.
		e, _ := mustFind(t, res.Egress, "connect to priv.example.test's refused address", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "10.0.0.5" && e.Port == 80 && e.Proto == "tcp"
		})
		if e.Allowed || e.Host != "priv.example.test" {
			t.Errorf("connect to 10.0.0.5: %+v, want refused and named priv.example.test", e)
		}
		if !strings.Contains(out(9), "10.0.0.6") {
			t.Errorf("privok.example.test is covered by --allow-ip and should resolve: %q", out(9))
		}
	})
	t.Run("a question asked of an allowed address is named", func(t *testing.T) {
		e, _ := mustFind(t, res.Egress, "the question's name", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == longQuestionName
		})
		if !e.Allowed || !strings.Contains(e.Detail, "asked of 198.18.0.3 port 53 directly") || !strings.Contains(e.Detail, "went out") {
			t.Errorf("question asked of an allowed address recorded as %+v", e)
		}
		if !strings.Contains(out(17), "sent 1") {
			t.Fatalf("tcp fast open client: %s", out(17))
		}
		e, _ = mustFind(t, res.Egress, "the name in the SYN", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "syn.example.test"
		})
		if !e.Allowed || !strings.Contains(e.Detail, "asked of 198.18.0.3 port 53 directly") {
			t.Errorf("question in a SYN to an allowed address recorded as %+v", e)
		}
		e, _ = mustFind(t, res.Egress, "the name asked by mDNS", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "unicast-mdns.local"
		})
		if want := "asked by multicast DNS (mDNS) of 198.18.0.3 port 5353, not of the sandbox's DNS stub: the question went out"; !e.Allowed || !strings.HasPrefix(e.Detail, want) {
			t.Errorf("mDNS question to an allowed address recorded as %+v, want allowed and a detail starting %q", e, want)
		}
	})
	t.Run("direct dns around the stub is dropped", func(t *testing.T) {
		if strings.Contains(log, "bypass.example.test") {
			t.Errorf("a direct query reached the upstream:\n%s", log)
		}
		mustFind(t, res.Egress, "direct udp to the upstream", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == testDNS && e.Port == 53 && e.Proto == "udp" && !e.Allowed
		})
		mustFind(t, res.Egress, "the name asked of the upstream directly", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaDNS && e.Host == "bypass.example.test" && !e.Allowed &&
				strings.Contains(e.Detail, "asked of "+testDNS+" port 53 directly")
		})
	})
	t.Run("ipv6", func(t *testing.T) {
		if !strings.Contains(out(11), "hello from test host") {
			var v6 []evidence.Egress
			for _, e := range res.Egress {
				if strings.Contains(e.IP, ":") || e.Host == "v6.example.test" {
					v6 = append(v6, e)
				}
			}
			missing(t, fmt.Sprintf("IPv6 through %s to the test host (%q); entries: %+v", connector, out(11), v6))
		}
		e, _ := mustFind(t, res.Egress, "v6 host", func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.IP == "2001:db8:76::3" && e.Port == 80
		})
		if !e.Allowed || e.Host != "v6.example.test" || e.Bytes == 0 {
			t.Errorf("v6 entry %+v", e)
		}
	})
	if t.Failed() {
		t.Logf("probes: %+v\nruleset:\n%s\nserver log:\n%s", res.Probes, res.Ruleset, log)
	}
	checkJSONRoundTrip(t, res.Egress)
}

// TestAllowUpstreamDown: when the upstream does not answer, the allowed
// name gets SERVFAIL and the record says the upstream failed.
func TestAllowUpstreamDown(t *testing.T) {
	res := runAllowedChild(t, evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"allowed.example.test"},
		DNSUpstream: testHostSide + ":5353"}, // nothing listens there
		"sh:getent ahostsv4 allowed.example.test")
	if res.Probes[0].Code == 0 {
		t.Errorf("the name resolved without an upstream: %s", res.Probes[0].Output)
	}
	mustFind(t, res.Egress, "upstream failure", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "allowed.example.test" && e.Detail == "upstream failed"
	})
}

// forgingResolver answers, from an address inside the sandbox, any DNS
// question with 198.51.100.7, and says so.
const forgingResolver = `import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.0.2.100", 5353))
s.settimeout(4)
try:
    q, peer = s.recvfrom(512)
except socket.timeout:
    raise SystemExit
print("QUERIED", flush=True)
end = 12
while q[end]:
    end += q[end] + 1
end += 5
answer = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04" + bytes([198, 51, 100, 7])
s.sendto(q[:2] + b"\x81\x80" + q[4:6] + b"\x00\x01\x00\x00\x00\x00" + q[12:end] + answer, peer)
`

// TestAllowUpstreamInsideTheSandbox: an upstream at an address the
// sandbox's namespace holds (here slirp4netns's guest address) is never
// asked: the command could answer there and open the wall to any address
// under an allowed name.
func TestAllowUpstreamInsideTheSandbox(t *testing.T) {
	res := runAllowedChild(t, evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"allowed.example.test"},
		DNSUpstream: "10.0.2.100:5353"},
		// The stub is asked once the resolver is bound (its socket in this
		// namespace's /proc/net/udp: 10.0.2.100:5353), not after a guessed
		// half second that a starved machine may not have spent binding it.
		"sh:python3 -c '"+forgingResolver+"' & for i in $(seq 1200); do grep -q ' 6402000A:14E9 ' /proc/net/udp && echo BOUND && break; sleep 0.05; done; getent ahostsv4 allowed.example.test; wait")
	out := res.Probes[0].Output
	if !strings.Contains(out, "BOUND") {
		t.Fatalf("the resolver inside the sandbox never bound its socket: %s", out)
	}
	if strings.Contains(out, "QUERIED") || strings.Contains(out, "198.51.100.7") {
		t.Errorf("the stub asked a resolver inside the sandbox: %s", out)
	}
	mustFind(t, res.Egress, "upstream failure", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "allowed.example.test" && e.Detail == "upstream failed"
	})
}

// runAllowedChild runs the namespaced child with policy p (allow mode),
// slirp4netns attached, and the probes; setup must succeed.
func runAllowedChild(t *testing.T, p evidence.EgressPolicy, probes ...string) childResult {
	t.Helper()
	if _, err := exec.LookPath(ConnectorSlirp); err != nil {
		missing(t, ConnectorSlirp)
	}
	needNamespaces(t)
	newTestHosts(t)
	l := &Layer{}
	p.Connector = ConnectorSlirp // as the broker names it (Layer.Connector)
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: probes},
		func(pid int) (io.Closer, error) { return l.Attach(context.Background(), p, pid, nil, nil, nil) })
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	return res
}

// TestSlirpTapIsKeptAndSlirpReaped: once slirp4netns is up, its tap is
// persistent (tapkeep.Keep), so that its exit detaches from the tap rather than
// unregistering it (an RCU barrier, 20-40 ms here, in the exiting
// process); the sandbox's network namespace takes the tap with it. Close
// stops slirp4netns without waiting for its exit, a goroutine reaps it,
// and Layer.Stopped waits for that: once it returns, slirp4netns is gone,
// no zombie of it left.
func TestSlirpTapIsKeptAndSlirpReaped(t *testing.T) {
	if _, err := exec.LookPath(ConnectorSlirp); err != nil {
		missing(t, ConnectorSlirp)
	}
	needNamespaces(t)
	l := &Layer{}
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"192.0.2.1/32"}, Connector: ConnectorSlirp}
	pid, flags := 0, -1
	var keptErr error
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:true"}}, func(child int) (io.Closer, error) {
		c, err := l.Attach(context.Background(), p, child, nil, nil, nil)
		s, ok := c.(*slirp)
		if !ok {
			return c, err
		}
		pid = s.cmd.Process.Pid
		<-s.kept
		keptErr = s.keptErr
		if fd, err := tapkeep.Dup(pid); err == nil {
			var ifr [unix.IFNAMSIZ + 64]byte
			if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TUNGETIFF, uintptr(unsafe.Pointer(&ifr[0]))); e == 0 {
				flags = int(binary.NativeEndian.Uint16(ifr[unix.IFNAMSIZ:]))
			}
			unix.Close(fd)
		}
		return c, err
	})
	l.Stopped()
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if pid == 0 {
		t.Fatal("the connector attached was not slirp4netns")
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("slirp4netns (pid %d) is still there once Stopped returned: %s", pid, b)
	}
	if errors.Is(keptErr, unix.EPERM) || errors.Is(keptErr, unix.ENOSYS) {
		// A container's seccomp profile, or ptrace rules: tapkeep is
		// best effort there, and this test cannot show it.
		missing(t, fmt.Sprintf("pidfd_getfd on slirp4netns (refused here: %v)", keptErr))
	}
	if keptErr != nil {
		t.Fatalf("keeping the tap: %v", keptErr)
	}
	if flags < 0 {
		t.Fatal("could not read the tap's flags")
	}
	if flags&unix.IFF_PERSIST == 0 {
		t.Errorf("the tap's flags are %#x: not persistent", flags)
	}
}

// TestSlirpConfinesItself: slirp4netns, which reads every packet the
// command sends and runs on the host as the caller, is started with its
// own seccomp filter and, for a root caller, its own sandbox, both in
// place before it says it is ready: a mount namespace whose root is an
// empty tmpfs, no capability but CAP_NET_BIND_SERVICE, a seccomp filter
// (an unprivileged caller's: TestAllowUnprivilegedCaller in test/escape). Without them a memory bug
// in libslirp's emulation, which the command feeds, had the caller's
// whole host (for a root caller, its capabilities) to work with.
func TestSlirpConfinesItself(t *testing.T) {
	if _, err := exec.LookPath(ConnectorSlirp); err != nil {
		missing(t, ConnectorSlirp)
	}
	needNamespaces(t)
	l := &Layer{}
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"192.0.2.1/32"}, Connector: ConnectorSlirp}
	var status string
	var rootErr error
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: []string{"sh:true"}}, func(child int) (io.Closer, error) {
		c, err := l.Attach(context.Background(), p, child, nil, nil, nil)
		s, ok := c.(*slirp)
		if !ok {
			return c, err
		}
		pid := s.cmd.Process.Pid
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		status = string(b)
		var host, its unix.Stat_t
		if rootErr = unix.Stat("/", &host); rootErr == nil {
			if rootErr = unix.Stat(fmt.Sprintf("/proc/%d/root/", pid), &its); rootErr == nil && host.Dev == its.Dev && host.Ino == its.Ino {
				rootErr = errors.New("its root is the host's /")
			}
		}
		return c, err
	})
	l.Stopped()
	if res.SetupErr != "" {
		t.Fatalf("setup: %s", res.SetupErr)
	}
	if status == "" {
		t.Fatal("the connector attached was not slirp4netns, or its status could not be read")
	}
	field := func(name string) string {
		for _, line := range strings.Split(status, "\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	if got := field("Seccomp"); got != "2" {
		t.Errorf("slirp4netns's Seccomp: %q, want 2 (a filter)", got)
	}
	// CAP_NET_BIND_SERVICE (bit 10) at most, in the namespace it runs in.
	if got := field("CapEff"); got != "0000000000000000" && got != "0000000000000400" {
		t.Errorf("slirp4netns's effective capabilities: %s, want none but CAP_NET_BIND_SERVICE", got)
	}
	if rootErr != nil && slirpSandboxed() {
		t.Errorf("slirp4netns's root: %v", rootErr)
	}
}

// TestAllowAttemptWithoutRouteIsRecorded: in allow mode a destination the
// connector does not (yet) route - IPv6 before slirp4netns's router
// advertisement arrives, a second or so into the run - gets setupLoopback's
// fallback route through lo, so the attempt is a packet: recorded and
// refused at once. Without it connect() failed with ENETUNREACH before any
// packet existed, and the attempt was in no record.
func TestAllowAttemptWithoutRouteIsRecorded(t *testing.T) {
	if _, err := os.Stat("/proc/net/if_inet6"); err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	res := runAllowedChild(t, evidence.EgressPolicy{Mode: evidence.EgressAllow, AllowIP: []string{"2001:db8:76::9"}},
		`sh:python3 -c '
import socket
for a, p in (("2001:db8:9::1", 81), ("2001:db8:76::9", 82)):
    s = socket.socket(socket.AF_INET6)
    s.settimeout(2)
    try:
        s.connect((a, p))
    except OSError as e:
        print(a, e.errno)
'`)
	out := res.Probes[0].Output
	if strings.Contains(out, " 110") {
		t.Errorf("a connect through the fallback route waited for its timeout instead of being refused: %s", out)
	}
	for _, port := range []int{81, 82} {
		mustFind(t, res.Egress, fmt.Sprintf("the IPv6 attempt on port %d (probe said %q)", port, out), func(e evidence.Egress) bool {
			return e.Via == evidence.ViaConnect && e.Port == port && strings.HasPrefix(e.IP, "2001:db8:")
		})
	}
}
