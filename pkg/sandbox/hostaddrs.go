package sandbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hostAddrs lists the addresses of the broker's network namespace, the
// host's: every interface's, loopback's too (the egress layer refuses
// those anyway), without IPv6 zones, and every range the namespace's
// local, main and default tables deliver locally (a route of type local
// or anycast: `ip route add local 192.0.2.0/24 dev lo` makes each address
// of the range the host's own, though no interface holds it). Other
// tables are left out: one that policy routing consults only for marked
// packets (a TPROXY set-up's `local 0.0.0.0/0`) would refuse every answer,
// and the connector's sockets are not marked.
func hostAddrs() ([]netip.Prefix, error) {
	as, err := net.InterfaceAddrs()
	if err != nil {
		return nil, err
	}
	var out []netip.Prefix
	for _, a := range as {
		if n, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(n.IP); ok {
				ip = ip.Unmap()
				out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
			}
		}
	}
	local, err := localRoutes()
	if err != nil {
		return nil, err
	}
	return append(out, local...), nil
}

// localRoutes dumps the routes of the caller's network namespace and
// returns the destinations of those of type local or anycast in the
// local, main and default tables, and in every table a policy rule
// consults for an unmarked packet (ruleTables): `ip -6 rule add to
// 2001:db8:77::/64 lookup 100` with a local route for that range in table
// 100 delivers it to the host's listeners as the main table's would.
func localRoutes() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, family := range []int{unix.AF_INET, unix.AF_INET6} {
		tables, err := ruleTables(family)
		if err != nil {
			if family == unix.AF_INET6 && errors.Is(err, unix.EAFNOSUPPORT) {
				continue
			}
			return nil, err
		}
		rib, err := syscall.NetlinkRIB(unix.RTM_GETROUTE, family)
		if err != nil {
			if family == unix.AF_INET6 && errors.Is(err, unix.EAFNOSUPPORT) {
				continue
			}
			return nil, fmt.Errorf("listing routes: %w", err)
		}
		msgs, err := syscall.ParseNetlinkMessage(rib)
		if err != nil {
			return nil, fmt.Errorf("reading routes: %w", err)
		}
		for _, m := range msgs {
			if m.Header.Type != unix.RTM_NEWROUTE || len(m.Data) < unix.SizeofRtMsg {
				continue
			}
			rt := (*unix.RtMsg)(unsafe.Pointer(&m.Data[0]))
			if rt.Type != unix.RTN_LOCAL && rt.Type != unix.RTN_ANYCAST {
				continue
			}
			attrs, err := syscall.ParseNetlinkRouteAttr(&m)
			if err != nil {
				return nil, fmt.Errorf("reading a route: %w", err)
			}
			var dst netip.Addr
			table := uint32(rt.Table)
			for _, a := range attrs {
				switch a.Attr.Type {
				case unix.RTA_DST:
					dst, _ = netip.AddrFromSlice(a.Value)
				case unix.RTA_TABLE:
					if len(a.Value) == 4 {
						table = binary.NativeEndian.Uint32(a.Value)
					}
				}
			}
			if table != unix.RT_TABLE_LOCAL && table != unix.RT_TABLE_MAIN && table != unix.RT_TABLE_DEFAULT && !tables[table] {
				continue
			}
			if !dst.IsValid() {
				// A default route of type local: every address.
				if rt.Family == unix.AF_INET {
					dst = netip.IPv4Unspecified()
				} else {
					dst = netip.IPv6Unspecified()
				}
			}
			if p, err := dst.Prefix(int(rt.Dst_len)); err == nil {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// ruleTables returns the tables the policy rules of family send a packet
// without a firewall mark to: every rule's whose action is a table lookup
// and whose fwmark selector (if any) an unmarked packet matches. The
// connector's sockets are not marked; a rule for marked packets only (a
// TPROXY set-up's `fwmark 1 lookup 100`) does not apply to them, but an
// inverted one (`not fwmark 1 lookup 100`) does.
func ruleTables(family int) (map[uint32]bool, error) {
	rib, err := syscall.NetlinkRIB(unix.RTM_GETRULE, family)
	if err != nil {
		return nil, fmt.Errorf("listing policy rules: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(rib)
	if err != nil {
		return nil, fmt.Errorf("reading policy rules: %w", err)
	}
	const hdrLen = 12 // struct fib_rule_hdr
	tables := map[uint32]bool{}
	for _, m := range msgs {
		if m.Header.Type != unix.RTM_NEWRULE || len(m.Data) < hdrLen {
			continue
		}
		if int(m.Data[0]) != family || m.Data[7] != unix.FR_ACT_TO_TBL {
			continue
		}
		table := uint32(m.Data[4])
		var mark, mask uint32
		hasMark, hasMask := false, false
		for b := m.Data[hdrLen:]; len(b) >= unix.SizeofRtAttr; {
			l := int(binary.NativeEndian.Uint16(b[0:2]))
			typ := binary.NativeEndian.Uint16(b[2:4]) & 0x3fff
			if l < unix.SizeofRtAttr || l > len(b) {
				break
			}
			v := b[unix.SizeofRtAttr:l]
			switch {
			case typ == unix.FRA_TABLE && len(v) == 4:
				table = binary.NativeEndian.Uint32(v)
			case typ == unix.FRA_FWMARK && len(v) == 4:
				mark, hasMark = binary.NativeEndian.Uint32(v), true
			case typ == unix.FRA_FWMASK && len(v) == 4:
				mask, hasMask = binary.NativeEndian.Uint32(v), true
			}
			al := (l + unix.RTA_ALIGNTO - 1) &^ (unix.RTA_ALIGNTO - 1)
			if al > len(b) {
				break
			}
			b = b[al:]
		}
		// An inverted rule (`not fwmark 1 lookup 100`, wg-quick's) takes
		// the packets its selectors do not match: an unmarked one, where
		// the mark is what it names.
		invert := binary.NativeEndian.Uint32(m.Data[8:12])&unix.FIB_RULE_INVERT != 0
		if hasMark && !invert {
			if !hasMask {
				mask = 0xffffffff
			}
			if mark&mask != 0 {
				continue // only a marked packet takes this rule
			}
		}
		tables[table] = true
	}
	return tables, nil
}
