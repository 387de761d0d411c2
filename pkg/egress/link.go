package egress

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// denySource is the address the deny and record modes give lo, as the
// source of their default route through lo: connects to any address then
// get a route (so the packet exists and reaches the nft output hook, where
// it is logged and refused) instead of failing with ENETUNREACH before any
// packet is made. It never leaves the namespace.
var denySource = evidence.DenySource

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

// link is an interface the batch configures, by name (for messages) and
// index.
type link struct {
	name  string
	index int
}

// linkUp sets IFF_UP on the interface and, when mtu > 0, its MTU.
func (b *rtnlBatch) linkUp(l link, mtu int) {
	body := make([]byte, unix.SizeofIfInfomsg)
	body[0] = unix.AF_UNSPEC
	binary.NativeEndian.PutUint32(body[4:8], uint32(l.index))
	binary.NativeEndian.PutUint32(body[8:12], unix.IFF_UP)
	binary.NativeEndian.PutUint32(body[12:16], unix.IFF_UP)
	var attrs []rtattr
	if mtu > 0 {
		attrs = append(attrs, rtattr{unix.IFLA_MTU, binary.NativeEndian.AppendUint32(nil, uint32(mtu))})
	}
	b.add("bringing "+l.name+" up", unix.RTM_NEWLINK, 0, body, attrs...)
}

// addAddr adds an address with its prefix length to the interface.
func (b *rtnlBatch) addAddr(l link, p netip.Prefix) {
	a := p.Addr()
	fam := byte(unix.AF_INET)
	if a.Is6() {
		fam = unix.AF_INET6
	}
	body := make([]byte, unix.SizeofIfAddrmsg)
	body[0] = fam
	body[1] = byte(p.Bits())
	body[3] = unix.RT_SCOPE_UNIVERSE
	binary.NativeEndian.PutUint32(body[4:8], uint32(l.index))
	what := p.String()
	if p.IsSingleIP() {
		what = a.String()
	}
	b.add("adding "+what+" to "+l.name, unix.RTM_NEWADDR, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body,
		rtattr{unix.IFA_LOCAL, a.AsSlice()}, rtattr{unix.IFA_ADDRESS, a.AsSlice()})
}

// addDefaultRoute adds a default route out of the interface for the
// family of src (IPv4: with src as preferred source; IPv6: src ignored),
// through gw when it is valid, else straight onto the link, with metric
// (0: the kernel's default).
func (b *rtnlBatch) addDefaultRoute(l link, v6 bool, src, gw netip.Addr, metric uint32) {
	body := make([]byte, unix.SizeofRtMsg)
	body[0] = unix.AF_INET
	body[6] = unix.RT_SCOPE_LINK
	what := "adding the IPv4 default route through " + l.name
	if v6 {
		body[0] = unix.AF_INET6
		body[6] = unix.RT_SCOPE_UNIVERSE
		what = "adding the IPv6 default route through " + l.name
	}
	body[4] = unix.RT_TABLE_MAIN
	body[5] = unix.RTPROT_STATIC
	body[7] = unix.RTN_UNICAST
	oif := make([]byte, 4)
	binary.NativeEndian.PutUint32(oif, uint32(l.index))
	attrs := []rtattr{{unix.RTA_OIF, oif}}
	if !v6 && src.IsValid() {
		attrs = append(attrs, rtattr{unix.RTA_PREFSRC, src.AsSlice()})
	}
	if gw.IsValid() {
		body[6] = unix.RT_SCOPE_UNIVERSE
		attrs = append(attrs, rtattr{unix.RTA_GATEWAY, gw.AsSlice()})
	}
	if metric != 0 {
		what += " (fallback)"
		attrs = append(attrs, rtattr{unix.RTA_PRIORITY, binary.NativeEndian.AppendUint32(nil, metric)})
	}
	b.add(what, unix.RTM_NEWROUTE, unix.NLM_F_CREATE|unix.NLM_F_EXCL, body, attrs...)
}

// fallbackMetric is the metric of the allow mode's default routes through
// lo: the worst there is, so that any route the connector brings (slirp4netns's
// through its tap, IPv6's by router advertisement, pasta's copies of the
// host's) is taken first.
const fallbackMetric = 0xffffffff

// setupLoopback brings lo up and gives every destination a route through
// it: in the deny and record modes the only one; in allow mode a fallback
// behind the connector's, for what it does not route (IPv6 until
// slirp4netns's router advertisement arrives, a family pasta found no
// route for on the host). Without it a connect to such an address failed
// with ENETUNREACH before any packet existed, and the attempt was in no
// record.
func setupLoopback(allow bool) error {
	// Two ioctls instead of net.InterfaceByName's dump of every link and
	// address; bubblewrap has usually brought lo up already.
	lo, up, err := linkState("lo")
	if err != nil {
		return fmt.Errorf("finding lo: %w", err)
	}
	var b rtnlBatch
	if !up {
		b.linkUp(lo, 0)
	}
	metric := uint32(0)
	if allow {
		metric = fallbackMetric
	}
	b.addAddr(lo, netip.PrefixFrom(denySource, denySource.BitLen()))
	b.addDefaultRoute(lo, false, denySource, netip.Addr{}, metric)
	// Without IPv6 in this namespace there is nothing to route. In allow
	// mode the route is a fallback the run does without where lo has IPv6
	// turned off (disable_ipv6, which a host's settings can hand a new
	// namespace): the kernel refuses any IPv6 route through such a device
	// ("IPv6 is disabled on nexthop device"), and the run, which did
	// without the route before there was one, was refused.
	if ipv6Available() && (!allow || !ipv6DisabledOn("lo")) {
		b.addDefaultRoute(lo, true, netip.Addr{}, netip.Addr{}, metric)
	}
	return b.send()
}

// ipv6DisabledOn says whether IPv6 is turned off on the interface in the
// caller's network namespace (net.ipv6.conf.NAME.disable_ipv6).
func ipv6DisabledOn(name string) bool {
	b, err := os.ReadFile("/proc/sys/net/ipv6/conf/" + name + "/disable_ipv6")
	return err == nil && strings.TrimSpace(string(b)) == "1"
}

// slirp4netns's network, as it serves it (its defaults): the guest takes
// .100, the gateway (slirp4netns itself) is .2.
var (
	slirpGuest   = netip.MustParsePrefix("10.0.2.100/24")
	slirpGateway = netip.MustParseAddr("10.0.2.2")
)

const slirpMTU = 65520

// configureTap does for slirp4netns's tap what its --configure would:
// brings it up with the MTU slirp4netns was given, adds the guest address
// and routes everything through the gateway. (IPv6, where enabled, comes
// by slirp4netns's router advertisements, as with --configure.) It runs in
// the init, so slirp4netns itself never touches the namespace's links
// while bubblewrap may still be setting up lo.
func configureTap(name string) error {
	tap, _, err := linkState(name)
	if err != nil {
		return fmt.Errorf("finding %s: %w", name, err)
	}
	if err := noDAD(name); err != nil {
		return err
	}
	var b rtnlBatch
	b.linkUp(tap, slirpMTU)
	b.addAddr(tap, slirpGuest)
	b.addDefaultRoute(tap, false, netip.Addr{}, slirpGateway, 0)
	return b.send()
}

// noDAD turns duplicate address detection off on the interface before it
// comes up (net.ipv6.conf.NAME.accept_dad, per interface), so that its
// link-local address, and the one slirp4netns's router advertisement
// brings, are usable at once rather than tentative for the second or more
// the detection takes. While the link-local address was tentative, a
// datagram the command sent to a multicast address (ff02::fb, ff0e::1) or
// to a link-local one on the tap had no source address to leave with: it
// failed with EADDRNOTAVAIL before any packet existed, and the record held
// none of it, where the host's settled link sends it. The only other node
// of the link is slirp4netns, whose addresses (fe80::2, fd00::2) no address
// of the tap's can take. Without IPv6 there is nothing to turn off.
func noDAD(name string) error {
	f := "/proc/sys/net/ipv6/conf/" + name + "/accept_dad"
	if _, err := os.Stat(f); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err := os.WriteFile(f, []byte("0\n"), 0); err != nil {
		return fmt.Errorf("turning duplicate address detection off on %s, whose tentative address would leave IPv6 sends at the command's start unsent and unrecorded: %w", name, err)
	}
	return nil
}

// linkState returns the interface's index and whether it is up.
func linkState(name string) (link, bool, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return link{}, false, err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		return link{}, false, err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFINDEX, ifr); err != nil {
		return link{}, false, err
	}
	l := link{name: name, index: int(ifr.Uint32())}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return link{}, false, err
	}
	return l, ifr.Uint16()&unix.IFF_UP != 0, nil
}

// ipv6Available reports whether the namespace has IPv6 at all (the kernel
// may be built or booted without it).
func ipv6Available() bool {
	_, err := os.Stat("/proc/net/if_inet6")
	return err == nil
}
