package egress

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// denySource is the address the deny and record modes give lo, as the
// source of their default route through lo: connects to any address then
// get a route (so the packet exists and reaches the nft output hook, where
// it is logged and refused) instead of failing with ENETUNREACH before any
// packet is made. It never leaves the namespace.
var denySource = netip.MustParseAddr("10.254.254.1")

// rtnlBatch is the few rtnetlink requests Setup needs, sent over a plain
// blocking socket in one sendmsg and acknowledged one by one. (A
// netpoller-driven connection costs a wake-up per request, and these
// requests sit on the path to the command's start.)
type rtnlBatch struct {
	buf  []byte
	what []string // per request, by sequence number - 1
}

// rtattr is one attribute of a request.
type rtattr struct {
	typ  uint16
	data []byte
}

// add appends one request: header, fixed-size body, attributes.
func (b *rtnlBatch) add(what string, typ, flags uint16, body []byte, attrs ...rtattr) {
	msg := make([]byte, unix.NLMSG_HDRLEN, 64)
	msg = append(msg, body...)
	for _, a := range attrs {
		// rtattr: length, type, data, padded to 4 bytes.
		l := unix.SizeofRtAttr + len(a.data)
		msg = binary.NativeEndian.AppendUint16(msg, uint16(l))
		msg = binary.NativeEndian.AppendUint16(msg, a.typ)
		msg = append(msg, a.data...)
		msg = append(msg, make([]byte, (4-l%4)%4)...)
	}
	b.what = append(b.what, what)
	binary.NativeEndian.PutUint32(msg[0:4], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:6], typ)
	binary.NativeEndian.PutUint16(msg[6:8], flags|unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	binary.NativeEndian.PutUint32(msg[8:12], uint32(len(b.what))) // sequence number
	b.buf = append(b.buf, msg...)
}

// send sends the batch and returns the first request the kernel refused.
func (b *rtnlBatch) send() error {
	if len(b.what) == 0 {
		return nil
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("opening rtnetlink: %w", err)
	}
	defer unix.Close(fd)
	// rtnetlink answers at once; the timeout only keeps a kernel that
	// never does from hanging the run.
	tv := unix.NsecToTimeval(int64(5 * time.Second))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return fmt.Errorf("opening rtnetlink: %w", err)
	}
	kernel := &unix.SockaddrNetlink{Family: unix.AF_NETLINK}
	if err := unix.Sendto(fd, b.buf, 0, kernel); err != nil {
		return fmt.Errorf("sending to rtnetlink: %w", err)
	}
	var first error
	rb := make([]byte, 16<<10)
	for acked := 0; acked < len(b.what); {
		n, _, err := unix.Recvfrom(fd, rb, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading rtnetlink: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(rb[:n])
		if err != nil {
			return fmt.Errorf("reading rtnetlink: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Type != unix.NLMSG_ERROR || len(m.Data) < 4 {
				continue
			}
			acked++
			errno := -int32(binary.NativeEndian.Uint32(m.Data[0:4]))
			seq := int(m.Header.Seq)
			if errno != 0 && first == nil && seq >= 1 && seq <= len(b.what) {
				first = fmt.Errorf("%s: %w", b.what[seq-1], syscall.Errno(errno))
			}
		}
	}
	return first
}

// linkUp sets IFF_UP on the interface.
func (b *rtnlBatch) linkUp(index int) {
	body := make([]byte, unix.SizeofIfInfomsg)
	body[0] = unix.AF_UNSPEC
	binary.NativeEndian.PutUint32(body[4:8], uint32(index))
	binary.NativeEndian.PutUint32(body[8:12], unix.IFF_UP)
	binary.NativeEndian.PutUint32(body[12:16], unix.IFF_UP)
	b.add("bringing lo up", unix.RTM_NEWLINK, 0, body)
}

// addAddr adds a host address (full prefix length) to the interface.
func (b *rtnlBatch) addAddr(index int, a netip.Addr) {
	fam := byte(unix.AF_INET)
	if a.Is6() {
		fam = unix.AF_INET6
	}
	body := make([]byte, unix.SizeofIfAddrmsg)
	body[0] = fam
	body[1] = byte(a.BitLen())
	body[3] = unix.RT_SCOPE_UNIVERSE
	binary.NativeEndian.PutUint32(body[4:8], uint32(index))
	b.add("adding "+a.String()+" to lo", unix.RTM_NEWADDR, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body,
		rtattr{unix.IFA_LOCAL, a.AsSlice()}, rtattr{unix.IFA_ADDRESS, a.AsSlice()})
}

// addDefaultRoute adds a default route through the interface for the
// family of src (IPv4: with src as preferred source; IPv6: src ignored).
func (b *rtnlBatch) addDefaultRoute(index int, v6 bool, src netip.Addr) {
	body := make([]byte, unix.SizeofRtMsg)
	body[0] = unix.AF_INET
	body[6] = unix.RT_SCOPE_LINK
	what := "adding the IPv4 default route through lo"
	if v6 {
		body[0] = unix.AF_INET6
		body[6] = unix.RT_SCOPE_UNIVERSE
		what = "adding the IPv6 default route through lo"
	}
	body[4] = unix.RT_TABLE_MAIN
	body[5] = unix.RTPROT_STATIC
	body[7] = unix.RTN_UNICAST
	oif := make([]byte, 4)
	binary.NativeEndian.PutUint32(oif, uint32(index))
	attrs := []rtattr{{unix.RTA_OIF, oif}}
	if !v6 && src.IsValid() {
		attrs = append(attrs, rtattr{unix.RTA_PREFSRC, src.AsSlice()})
	}
	b.add(what, unix.RTM_NEWROUTE, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body, attrs...)
}

// setupLoopback brings lo up and, for the deny and record modes, gives
// every destination a route through it.
func setupLoopback(routeAll bool) error {
	// Two ioctls instead of net.InterfaceByName's dump of every link and
	// address; bubblewrap has usually brought lo up already.
	index, up, err := loopbackState()
	if err != nil {
		return fmt.Errorf("finding lo: %w", err)
	}
	var b rtnlBatch
	if !up {
		b.linkUp(index)
	}
	if routeAll {
		b.addAddr(index, denySource)
		b.addDefaultRoute(index, false, denySource)
		if ipv6Available() { // without IPv6 in this namespace there is nothing to route
			b.addDefaultRoute(index, true, netip.Addr{})
		}
	}
	return b.send()
}

// loopbackState returns lo's index and whether it is up.
func loopbackState() (int, bool, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, false, err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return 0, false, err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return 0, false, err
	}
	index := int(ifr.Uint32())
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return 0, false, err
	}
	return index, ifr.Uint16()&unix.IFF_UP != 0, nil
}

// ipv6Available reports whether the namespace has IPv6 at all (the kernel
// may be built or booted without it).
func ipv6Available() bool {
	_, err := os.Stat("/proc/net/if_inet6")
	return err == nil
}
