package egress

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// nflogMessage is the body of an NFULNL_MSG_PACKET as the kernel sends it
// for a packet the wall logged with prefix: the nfgenmsg header, then the
// prefix and the packet's snapshot as attributes.
func nflogMessage(t *testing.T, prefix string, packet []byte) []byte {
	t.Helper()
	ab, err := netlink.MarshalAttributes([]netlink.Attribute{
		{Type: nfulaPrefix, Data: append([]byte(prefix), 0)},
		{Type: nfulaPayload, Data: packet},
	})
	if err != nil {
		t.Fatal(err)
	}
	return append([]byte{unix.AF_INET, 0, 0, 0}, ab...)
}

// udpPacket is a UDP datagram from a local address to dst port with
// payload msg, IPv4 or IPv6 after dst.
func udpPacket(dst netip.Addr, port uint16, msg []byte) []byte {
	udp := make([]byte, 8, 8+len(msg))
	binary.BigEndian.PutUint16(udp[0:], 40000)
	binary.BigEndian.PutUint16(udp[2:], port)
	binary.BigEndian.PutUint16(udp[4:], uint16(8+len(msg)))
	udp = append(udp, msg...)
	if dst.Is4() {
		ip := make([]byte, 20, 20+len(udp))
		ip[0], ip[8], ip[9] = 0x45, 1, unix.IPPROTO_UDP
		binary.BigEndian.PutUint16(ip[2:], uint16(20+len(udp)))
		copy(ip[12:16], []byte{10, 254, 254, 1})
		copy(ip[16:20], dst.AsSlice())
		return append(ip, udp...)
	}
	ip := make([]byte, 40, 40+len(udp))
	ip[0], ip[6], ip[7] = 0x60, unix.IPPROTO_UDP, 255
	binary.BigEndian.PutUint16(ip[4:], uint16(len(udp)))
	copy(ip[8:24], netip.MustParseAddr("fe80::1").AsSlice())
	copy(ip[24:40], dst.AsSlice())
	return append(ip, udp...)
}

// TestLoggedMulticastQuestionsAreNamed: a refused datagram to mDNS's port
// (5353) or LLMNR's (5355), as the wall logs it, has each question it
// holds named as a dns entry beside its connect entry, whose detail says
// which protocol asked and of what; an mDNS question with the top bit of
// its class set (QU, "unicast response wanted", class 0x8001) is named as
// any other. An mDNS announcement (a response: answers, no question) and
// a query to a port no name-resolution protocol uses leave the connect
// entry alone.
func TestLoggedMulticastQuestionsAreNamed(t *testing.T) {
	// An mDNS query of two questions: Secret-Leak.local (type ANY,
	// class IN with the QU bit) and a compressed _ipp._tcp.local.
	mdns := buildQuery(0, 255, []byte("Secret-Leak"), []byte("local"))
	binary.BigEndian.PutUint16(mdns[2:], 0) // mDNS queries have ID 0 and no flags
	binary.BigEndian.PutUint16(mdns[len(mdns)-2:], 0x8001)
	mdns[5] = 2
	mdns = append(mdns, 4, '_', 'i', 'p', 'p', 4, '_', 't', 'c', 'p', 0xc0, 12+12, 0, 12, 0x80, 1)
	llmnr := buildQuery(7, 1, []byte("llmnr-leak"))
	// An announcement: QR and AA set, no question, one answer whose
	// owner name is one the command chose.
	announce := []byte{0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0}
	announce = append(announce, 8, 'a', 'n', 'n', 'o', 'u', 'n', 'c', 'e', 5, 'l', 'o', 'c', 'a', 'l', 0)
	announce = append(announce, 0, 1, 0x80, 1, 0, 0, 0, 120, 0, 4, 192, 0, 2, 1)

	connect := func(ip string, port int) evidence.Egress {
		return evidence.Egress{IP: ip, Port: port, Proto: "udp", Via: evidence.ViaConnect, Attempts: 1}
	}
	question := func(name, detail string) evidence.Egress {
		return evidence.Egress{Host: name, Proto: "dns", Via: evidence.ViaDNS, Attempts: 1, Detail: detail}
	}
	for _, tt := range []struct {
		name string
		dst  string
		port uint16
		msg  []byte
		want []evidence.Egress
	}{
		{"mdns ipv4 multicast", "224.0.0.251", 5353, mdns, []evidence.Egress{
			connect("224.0.0.251", 5353),
			question("secret-leak.local", "asked by multicast DNS (mDNS) of 224.0.0.251 port 5353, not of the sandbox's DNS stub"),
			question("_ipp._tcp.local", "asked by multicast DNS (mDNS) of 224.0.0.251 port 5353, not of the sandbox's DNS stub"),
		}},
		{"mdns ipv6 multicast", "ff02::fb", 5353, mdns, []evidence.Egress{
			connect("ff02::fb", 5353),
			question("secret-leak.local", "asked by multicast DNS (mDNS) of ff02::fb port 5353, not of the sandbox's DNS stub"),
			question("_ipp._tcp.local", "asked by multicast DNS (mDNS) of ff02::fb port 5353, not of the sandbox's DNS stub"),
		}},
		{"mdns unicast", "192.0.2.5", 5353, mdns, []evidence.Egress{
			connect("192.0.2.5", 5353),
			question("secret-leak.local", "asked by multicast DNS (mDNS) of 192.0.2.5 port 5353, not of the sandbox's DNS stub"),
			question("_ipp._tcp.local", "asked by multicast DNS (mDNS) of 192.0.2.5 port 5353, not of the sandbox's DNS stub"),
		}},
		{"llmnr ipv4 multicast", "224.0.0.252", 5355, llmnr, []evidence.Egress{
			connect("224.0.0.252", 5355),
			question("llmnr-leak", "asked by Link-Local Multicast Name Resolution (LLMNR) of 224.0.0.252 port 5355, not of the sandbox's DNS stub"),
		}},
		{"llmnr ipv6 multicast", "ff02::1:3", 5355, llmnr, []evidence.Egress{
			connect("ff02::1:3", 5355),
			question("llmnr-leak", "asked by Link-Local Multicast Name Resolution (LLMNR) of ff02::1:3 port 5355, not of the sandbox's DNS stub"),
		}},
		{"mdns announcement", "224.0.0.251", 5353, announce, []evidence.Egress{connect("224.0.0.251", 5353)}},
		{"query to another port", "224.0.0.251", 5354, mdns, []evidence.Egress{connect("224.0.0.251", 5354)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, ok := parseNFLOGPacket(nflogMessage(t, logPrefixDrop, udpPacket(netip.MustParseAddr(tt.dst), tt.port, tt.msg)))
			if !ok {
				t.Fatal("the logged datagram was not parsed")
			}
			if ev.unread != 0 {
				t.Errorf("%d questions unread, want 0", ev.unread)
			}
			ev.at = time.Unix(100, 0)
			r := newRecorder()
			r.addPacket(ev)
			if d := cmp.Diff(tt.want, r.list()); d != "" {
				t.Errorf("entries (-want +got):\n%s", d)
			}
		})
	}
}

// TestLocalSentQuestionIsNoDirectQuestion: a datagram the wall logs as an
// attempt at one of the namespace's own addresses that its kernel never
// answers (logPrefixLocalSent: IPv6 without a checksum, say) went to the
// stub's port, which takes none such, not to another resolver: the record
// holds the refused attempt at that address, and no question named as
// asked of another resolver (nflog.go).
func TestLocalSentQuestionIsNoDirectQuestion(t *testing.T) {
	q := buildQuery(7, 1, []byte("local-leak"), []byte("example"), []byte("test"))
	for _, dst := range []string{"10.0.2.100", "fd00::100"} {
		ev, ok := parseNFLOGPacket(nflogMessage(t, logPrefixLocalSent, udpPacket(netip.MustParseAddr(dst), 53, q)))
		if !ok {
			t.Fatalf("%s: the logged datagram was not parsed", dst)
		}
		ev.at = time.Unix(100, 0)
		r := newRecorder()
		r.addPacket(ev)
		want := []evidence.Egress{{IP: dst, Port: 53, Proto: "udp", Via: evidence.ViaConnect, Attempts: 1}}
		if d := cmp.Diff(want, r.list()); d != "" {
			t.Errorf("%s: entries (-want +got):\n%s", dst, d)
		}
	}
}

// TestLocalFromQuestionIsNamed: a datagram the wall logs as sent to one
// of the namespace's own addresses from an address it does not hold
// (logPrefixLocalFrom: IPV6_FREEBIND), which it drops, is the attempt at
// that address and port, and the question it holds is named as asked of
// that address: under Claude Code a resolver of the host's there takes
// it. At the loopback too, where an attempt the kernel answers names
// none.
func TestLocalFromQuestionIsNamed(t *testing.T) {
	q := buildQuery(7, 1, []byte("local-from"), []byte("example"), []byte("test"))
	for dst, via := range map[string]evidence.Via{"::1": evidence.ViaLoopback, "fd00::100": evidence.ViaConnect} {
		ev, ok := parseNFLOGPacket(nflogMessage(t, logPrefixLocalFrom, udpPacket(netip.MustParseAddr(dst), 53, q)))
		if !ok {
			t.Fatalf("%s: the logged datagram was not parsed", dst)
		}
		ev.at = time.Unix(100, 0)
		r := newRecorder()
		r.addPacket(ev)
		want := []evidence.Egress{
			{IP: dst, Port: 53, Proto: "udp", Via: via, Attempts: 1},
			{Host: "local-from.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1,
				Detail: "asked of " + dst + " port 53 directly, not of the sandbox's DNS stub"},
		}
		if d := cmp.Diff(want, r.list()); d != "" {
			t.Errorf("%s: entries (-want +got):\n%s", dst, d)
		}
	}
}
