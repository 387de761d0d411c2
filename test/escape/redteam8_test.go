package escape

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// oddDestinationsClient tries destinations a hook may reach for past a
// plain connect, each once, as the command starts: the limited broadcast
// address, a question to each of mDNS's and LLMNR's multicast groups over
// IPv4 and IPv6 (the IPv4 mDNS one with the top bit of its class set, QU,
// as mDNS may), a global IPv6 multicast group, an IPv4 address written as IPv4-mapped IPv6, the unspecified
// addresses (which the kernel takes for the loopback), a QUIC-sized UDP
// datagram, a DNS question with an EDNS option of its own to another
// resolver, a question sent in the SYN of an MPTCP connection (TCP Fast
// Open without a cookie), and names that the C library builds from the
// environment (HOSTALIASES, LOCALDOMAIN) before it asks the stub. It says
// what each did.
const oddDestinationsClient = `import errno, os, socket, struct, subprocess, time
def q(name, qclass=1):
    h = struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
    return h + b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0" + struct.pack("!HH", 1, qclass)
def edns(name):
    m = bytearray(q(name)); m[11] = 1
    return bytes(m) + b"\0" + struct.pack("!HHIH", 41, 4096, 0, 12) + struct.pack("!HH", 65001, 8) + b"SECRETXX"
def udp(fam, addr, data, broadcast=False):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if broadcast:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    s.sendto(data, addr)
    s.close()
def tcp(fam, addr):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect(addr)
    finally:
        s.close()
def mptcp_question(addr, name):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)  # IPPROTO_MPTCP
    except OSError:
        print("mptcp unavailable")
        return
    s.settimeout(2)
    s.setsockopt(socket.IPPROTO_TCP, 34, 1)  # TCP_FASTOPEN_NO_COOKIE
    m = q(name)
    try:
        s.sendto(struct.pack("!H", len(m)) + m, socket.MSG_FASTOPEN, addr)
    finally:
        s.close()
A4, A6 = socket.AF_INET, socket.AF_INET6
tries = [
    ("broadcast", lambda: udp(A4, ("255.255.255.255", 9991), b"x", True)),
    ("mdns", lambda: udp(A4, ("224.0.0.251", 5353), q("mdns-name.local", 0x8001))),
    ("llmnr", lambda: udp(A4, ("224.0.0.252", 5355), q("llmnr-name"))),
    ("mdns6", lambda: udp(A6, ("ff02::fb", 5353, 0, 0), q("mdns6-name.local"))),
    ("llmnr6", lambda: udp(A6, ("ff02::1:3", 5355, 0, 0), q("llmnr6-name"))),
    ("mcast6", lambda: udp(A6, ("ff0e::1234", 9994, 0, 0), b"x")),
    ("mapped", lambda: tcp(A6, ("::ffff:192.0.2.31", 443, 0, 0))),
    ("any4", lambda: tcp(A4, ("0.0.0.0", 4000))),
    ("any6", lambda: tcp(A6, ("::", 4001, 0, 0))),
    ("quic", lambda: udp(A4, ("192.0.2.58", 443), b"\xc0" + bytes(1199))),
    ("edns", lambda: udp(A4, ("192.0.2.54", 53), edns("edns.leak.test"))),
    ("mptcp", lambda: mptcp_question(("192.0.2.73", 53), "mptcp.leak.test")),
]
for name, f in tries:
    try:
        f()
        print(name, "sent")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
with open(os.environ["TMPDIR"] + "/aliases", "w") as f:
    f.write("alias1 aliased-name.leak.test\n")
subprocess.run(["getent", "hosts", "alias1"], env={"HOSTALIASES": os.environ["TMPDIR"] + "/aliases"})
subprocess.run(["getent", "ahostsv4", "short"], env={"LOCALDOMAIN": "search-domain.leak.test"})
time.sleep(0.3)
`

// TestOddDestinationsAreRecorded: each destination oddDestinationsClient
// tries is in the record, in every mode, for every caller (allow mode as
// root, through each connector, with an --allow-ip range nothing here
// sends to), with the name where the attempt carries one: a broadcast,
// multicast or IPv4-mapped destination is a connect entry of the address
// it reached; the names mDNS and LLMNR asked, over IPv4 and IPv6, are
// named beside their connect entries, each with a detail that says which
// protocol asked and of what address; a connect to 0.0.0.0 or :: is the
// loopback's; the EDNS question and the one in the MPTCP SYN are named
// beside their connect entries; the C library's aliased and searched
// names are the stub's.
func TestOddDestinationsAreRecorded(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3", "getent")
	for _, r := range runners(t) {
		for _, mode := range egressModes(r, "198.51.100.250/32") {
			t.Run(r.name+"/"+mode[0]+connectorOf(mode), func(t *testing.T) {
				dir := workTree(t)
				res := vigiles(t, r, dir, nil, append([]string{"--egress"}, append(mode, "--", "python3", "-c", oddDestinationsClient)...)...)
				var got struct {
					Egress []egressEntry `json:"egress"`
				}
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]int{
					"connect 255.255.255.255 9991 udp":  1,
					"connect 224.0.0.251 5353 udp":      1,
					"connect 224.0.0.252 5355 udp":      1,
					"connect ff02::fb 5353 udp":         1,
					"connect ff02::1:3 5355 udp":        1,
					"dns mdns-name.local":               1,
					"dns llmnr-name":                    1,
					"dns mdns6-name.local":              1,
					"dns llmnr6-name":                   1,
					"connect ff0e::1234 9994 udp":       1,
					"connect 192.0.2.31 443 tcp":        1,
					"loopback 127.0.0.1 4000 tcp":       1,
					"loopback ::1 4001 tcp":             1,
					"connect 192.0.2.58 443 udp":        1,
					"connect 192.0.2.54 53 udp":         1,
					"dns edns.leak.test":                1,
					"dns aliased-name.leak.test":        1,
					"dns short.search-domain.leak.test": 1,
				}
				const stub = ", not of the sandbox's DNS stub"
				details := map[string]string{
					"dns edns.leak.test":   "asked of 192.0.2.54 port 53 directly" + stub,
					"dns mdns-name.local":  "asked by multicast DNS (mDNS) of 224.0.0.251 port 5353" + stub,
					"dns mdns6-name.local": "asked by multicast DNS (mDNS) of ff02::fb port 5353" + stub,
					"dns llmnr-name":       "asked by Link-Local Multicast Name Resolution (LLMNR) of 224.0.0.252 port 5355" + stub,
					"dns llmnr6-name":      "asked by Link-Local Multicast Name Resolution (LLMNR) of ff02::1:3 port 5355" + stub,
				}
				if !strings.Contains(res.Stdout, "mptcp unavailable") {
					// The kernel follows the refused SYN with data with
					// a plain one (docs/egress.md).
					want["connect 192.0.2.73 53 tcp"] = 2
					want["dns mptcp.leak.test"] = 1
				}
				for _, e := range got.Egress {
					k := fmt.Sprintf("%s %s %d %s", e.Via, e.IP, e.Port, e.Proto)
					if e.Via == "dns" {
						k = "dns " + e.Host
					}
					n, ok := want[k]
					if !ok {
						continue
					}
					// getent hosts asks the stub for IPv6 and IPv4: one
					// question or two.
					both := k == "dns aliased-name.leak.test"
					if e.Attempts != n && !(both && e.Attempts == 2) || e.Allowed {
						t.Errorf("%s: %d attempts, allowed %v; want %d, not allowed", k, e.Attempts, e.Allowed, n)
					}
					if d, ok := details[k]; ok && e.Detail != d {
						t.Errorf("%s: detail %q, want %q", k, e.Detail, d)
					}
					delete(want, k)
				}
				for k := range want {
					t.Errorf("no entry %q\nstdout: %s\nstderr: %s\nrecord: %+v", k, res.Stdout, res.Stderr, got.Egress)
				}
			})
		}
	}
}
