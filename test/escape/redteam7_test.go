package escape

import (
	"encoding/json"
	"fmt"
	"testing"
)

// signedAndUncheckedClient tries ports nothing in the sandbox takes at its
// own addresses in two ways its kernel never answers: a SYN signed with
// TCP-MD5 (TCP_MD5SIG, which needs no privilege), which gets no reset
// where no socket holds its key (RFC 2385), and a UDP datagram over IPv6
// without a checksum (UDP_NO_CHECK6_TX, no privilege either), which is
// discarded where no socket takes one. Each connect is non-blocking and
// closed at once: one SYN. It pings deny mode's route address, which its
// kernel answers, and its loopback.
const signedAndUncheckedClient = `import socket, struct
A4, A6 = socket.AF_INET, socket.AF_INET6
def md5key(fam, host):
    if fam == A4:
        sa = struct.pack("=H", fam) + struct.pack("!H", 0) + socket.inet_pton(fam, host)
    else:
        sa = struct.pack("=H", fam) + struct.pack("!HI", 0, 0) + socket.inet_pton(fam, host) + struct.pack("=I", 0)
    key = b"vigiles!"
    return sa.ljust(128, b"\0") + struct.pack("=BBHi", 0, 0, len(key), 0) + key.ljust(80, b"\0")
def signed(fam, host, port):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_TCP, 14, md5key(fam, host))  # TCP_MD5SIG
    s.setblocking(False)
    print("signed", host, port, s.connect_ex((host, port)))
    s.close()
def unchecked(host, port):
    s = socket.socket(A6, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_UDP, 101, 1)  # UDP_NO_CHECK6_TX
    s.sendto(b"x", (host, port))
    print("unchecked", host, port)
    s.close()
def ping(fam, host):
    s = socket.socket(fam, socket.SOCK_DGRAM, socket.IPPROTO_ICMP if fam == A4 else socket.IPPROTO_ICMPV6)
    s.settimeout(1)
    try:
        s.sendto(bytes([8 if fam == A4 else 128]) + b"\0\0\0\0\0\0\1data", (host, 0))
        s.recv(100)
        print("ping answered", host)
    except OSError as e:
        print("ping", host, e)
    s.close()
ping(A4, "10.254.254.1")
ping(A4, "127.0.0.1")
ping(A6, "::1")
signed(A4, "127.0.0.1", 4000)
signed(A6, "::1", 4001)
signed(A4, "10.254.254.1", 4002)
unchecked("::1", 4003)
import time
time.sleep(0.3)
`

// TestSignedOrUncheckedLocalAttemptsAreRecorded: an attempt at the
// sandbox's own addresses that nothing there takes is recorded from the
// kernel's answer to it (a reset, a port unreachable). A SYN signed with
// TCP-MD5 and a UDP datagram over IPv6 without a checksum get no answer,
// so a hook that tried localhost:4000 so (under Claude Code the host's
// service) or 10.254.254.1 (another machine's address) left nothing in
// the record, and no-egress passed it. They are recorded as sent, each
// once, in every mode, for every caller. So is a ping of 10.254.254.1,
// which the sandbox's kernel answered, where under Claude Code it goes
// to another machine; a ping of the loopback is answered and no attempt.
func TestSignedOrUncheckedLocalAttemptsAreRecorded(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, r := range runners(t) {
		for _, mode := range egressModes(r, "192.0.2.0/24") {
			t.Run(r.name+"/"+mode[0]+connectorOf(mode), func(t *testing.T) {
				dir := workTree(t)
				res := vigiles(t, r, dir, nil, append([]string{"--egress"}, append(mode, "--", "python3", "-c", signedAndUncheckedClient)...)...)
				var got struct {
					Egress []egressEntry `json:"egress"`
				}
				if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
					t.Fatal(err)
				}
				want := map[string]int{
					"loopback 127.0.0.1 4000 tcp":   1,
					"loopback ::1 4001 tcp":         1,
					"connect 10.254.254.1 4002 tcp": 1,
					"loopback ::1 4003 udp":         1,
					"connect 10.254.254.1 0 icmp":   1,
				}
				for _, e := range got.Egress {
					k := fmt.Sprintf("%s %s %d %s", e.Via, e.IP, e.Port, e.Proto)
					n, ok := want[k]
					if !ok {
						if e.Proto == "icmp" {
							t.Errorf("%s: a ping of the loopback, which its kernel answers as the host's would, is no attempt", k)
						}
						continue
					}
					if e.Attempts != n || e.Allowed {
						t.Errorf("%s: %d attempts, allowed %v; want %d, not allowed", k, e.Attempts, e.Allowed, n)
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

// egressModes are the --egress arguments of a run in each mode r may run:
// deny and record, and allow through each connector (allowing allowIP),
// as root only: /dev/net/tun is 0600 on these machines
// (allowunpriv_test.go gives nobody a node of its own).
func egressModes(r runner, allowIP string) [][]string {
	modes := [][]string{{"deny"}, {"record"}}
	if r.cred == nil {
		for _, c := range []string{"slirp4netns", "pasta"} {
			modes = append(modes, []string{"allow", "--allow-ip", allowIP, "--connector", c})
		}
	}
	return modes
}

// connectorOf names the connector an allow-mode run's arguments choose,
// for a subtest's name ("" for deny and record).
func connectorOf(args []string) string {
	for i, a := range args {
		if a == "--connector" && i+1 < len(args) {
			return "-" + args[i+1]
		}
	}
	return ""
}
