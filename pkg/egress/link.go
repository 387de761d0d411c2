package egress

import (
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"

	"github.com/mdlayher/netlink"
	"golang.org/x/sys/unix"
)

// denySource is the address the deny and record modes give lo, as the
// source of their default route through lo: connects to any address then
// get a route (so the packet exists and reaches the nft output hook, where
// it is logged and refused) instead of failing with ENETUNREACH before any
// packet is made. It never leaves the namespace.
var denySource = netip.MustParseAddr("10.254.254.1")

// rtnl is a small rtnetlink client for the few calls Setup needs.
type rtnl struct{ c *netlink.Conn }

func dialRTNL() (*rtnl, error) {
	c, err := netlink.Dial(unix.NETLINK_ROUTE, nil)
	if err != nil {
		return nil, fmt.Errorf("opening rtnetlink: %w", err)
	}
	return &rtnl{c: c}, nil
}

func (r *rtnl) Close() error { return r.c.Close() }

func (r *rtnl) do(typ netlink.HeaderType, flags netlink.HeaderFlags, body []byte, attrs []netlink.Attribute) error {
	ab, err := netlink.MarshalAttributes(attrs)
	if err != nil {
		return err
	}
	_, err = r.c.Execute(netlink.Message{
		Header: netlink.Header{Type: typ, Flags: netlink.Request | netlink.Acknowledge | flags},
		Data:   append(body, ab...),
	})
	return err
}

// linkUp sets IFF_UP on the interface.
func (r *rtnl) linkUp(index int) error {
	b := make([]byte, unix.SizeofIfInfomsg)
	b[0] = unix.AF_UNSPEC
	binary.NativeEndian.PutUint32(b[4:8], uint32(index))
	binary.NativeEndian.PutUint32(b[8:12], unix.IFF_UP)
	binary.NativeEndian.PutUint32(b[12:16], unix.IFF_UP)
	return r.do(unix.RTM_NEWLINK, 0, b, nil)
}

// addAddr adds a host address (full prefix length) to the interface.
func (r *rtnl) addAddr(index int, a netip.Addr) error {
	fam := byte(unix.AF_INET)
	if a.Is6() {
		fam = unix.AF_INET6
	}
	b := make([]byte, unix.SizeofIfAddrmsg)
	b[0] = fam
	b[1] = byte(a.BitLen())
	b[3] = unix.RT_SCOPE_UNIVERSE
	binary.NativeEndian.PutUint32(b[4:8], uint32(index))
	return r.do(unix.RTM_NEWADDR, netlink.Create|netlink.Excl, b, []netlink.Attribute{
		{Type: unix.IFA_LOCAL, Data: a.AsSlice()},
		{Type: unix.IFA_ADDRESS, Data: a.AsSlice()},
	})
}

// addDefaultRoute adds a default route through the interface for the
// family of src (IPv4: with src as preferred source; IPv6: src ignored).
func (r *rtnl) addDefaultRoute(index int, v6 bool, src netip.Addr) error {
	b := make([]byte, unix.SizeofRtMsg)
	b[0] = unix.AF_INET
	if v6 {
		b[0] = unix.AF_INET6
	}
	b[4] = unix.RT_TABLE_MAIN
	b[5] = unix.RTPROT_STATIC
	b[6] = unix.RT_SCOPE_LINK
	b[7] = unix.RTN_UNICAST
	oif := make([]byte, 4)
	binary.NativeEndian.PutUint32(oif, uint32(index))
	attrs := []netlink.Attribute{{Type: unix.RTA_OIF, Data: oif}}
	if !v6 && src.IsValid() {
		attrs = append(attrs, netlink.Attribute{Type: unix.RTA_PREFSRC, Data: src.AsSlice()})
	}
	if v6 {
		b[6] = unix.RT_SCOPE_UNIVERSE
	}
	return r.do(unix.RTM_NEWROUTE, netlink.Create|netlink.Excl, b, attrs)
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
	if up && !routeAll {
		return nil
	}
	r, err := dialRTNL()
	if err != nil {
		return err
	}
	defer r.Close()
	if !up {
		if err := r.linkUp(index); err != nil {
			return fmt.Errorf("bringing lo up: %w", err)
		}
	}
	if !routeAll {
		return nil
	}
	if err := r.addAddr(index, denySource); err != nil {
		return fmt.Errorf("adding %s to lo: %w", denySource, err)
	}
	if err := r.addDefaultRoute(index, false, denySource); err != nil {
		return fmt.Errorf("adding the IPv4 default route through lo: %w", err)
	}
	if !ipv6Available() {
		return nil // no IPv6 in this namespace: nothing to route
	}
	if err := r.addDefaultRoute(index, true, netip.Addr{}); err != nil {
		return fmt.Errorf("adding the IPv6 default route through lo: %w", err)
	}
	return nil
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
