package escape

import (
	"encoding/json"
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
