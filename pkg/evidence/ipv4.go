package evidence

import (
	"net/netip"
	"strconv"
	"strings"
)

// LooseIPv4 reads s as the IPv4 address that inet_aton and URL parsers
// read in the forms netip does not take: one to four parts, each decimal,
// octal (a leading 0) or hexadecimal (0x), the last filling the bytes the
// others leave (3221225992 is 192.0.2.8, 192.0.521 is 192.0.2.9). A name
// with a part that is no such number is no address. The recording proxy
// records a host so written as its address; an allowlist entry so written
// is refused as the address it is (ParseAllowHost), and so is an
// egress-only pattern, which no record names.
func LooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	var vals []uint64
	for _, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" && base != 16 {
			return netip.Addr{}, false
		}
		v := uint64(0)
		if digits != "" {
			n, err := strconv.ParseUint(digits, base, 32)
			if err != nil { // ParseUint takes no sign, nor '_' in a base it is given
				return netip.Addr{}, false
			}
			v = n
		}
		vals = append(vals, v)
	}
	var a uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 255 {
			return netip.Addr{}, false
		}
		a |= v << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	a |= last
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)}), true
}
