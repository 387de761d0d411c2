package runner

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The egress layer (pkg/egress) refuses every run whose policy it cannot
// compile. The runner may not import it (it brings nftables; see
// docs/architecture.md), so these mirror its parsers of an allow entry, an
// allow-ip entry and dns-upstream, and .vigiles.yml is refused at the key
// instead, in the policy's own words. TestEgressChecksAgreeWithTheLayer
// and FuzzEgressChecks hold them to egress.ValidatePolicy.

// egressDenySource is the address the deny and record modes give the
// sandbox's lo (egress.denySource): a resolver there would be inside.
var egressDenySource = netip.MustParseAddr("10.254.254.1")

// checkAllowHost checks an egress allow entry: HOST[:PORT], HOST an exact
// DNS name or "*.suffix" with at least two labels after the "*.".
func checkAllowHost(s string) error {
	host := s
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		port, err := strconv.ParseUint(s[i+1:], 10, 16)
		if err != nil || port == 0 {
			return fmt.Errorf("%q: the port must be 1-65535", s)
		}
		host = s[:i]
	}
	if _, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return fmt.Errorf("%q is an address, not a name: list it under allow-ip", s)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	wildcard := strings.HasPrefix(host, "*.")
	if wildcard {
		host = host[2:]
	}
	if err := checkHostName(host); err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	if wildcard && !strings.Contains(host, ".") {
		return fmt.Errorf("%q: a wildcard needs at least two labels after \"*.\"", s)
	}
	return nil
}

// checkHostName accepts an LDH host name (letters, digits, '-', '_' inside
// labels), at most 253 characters, labels of 1-63.
func checkHostName(h string) error {
	if h == "" {
		return errors.New("empty host name")
	}
	if len(h) > 253 {
		return errors.New("host name longer than 253 characters")
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return errors.New("host name labels must be 1-63 characters")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("host name labels must not start or end with '-'")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Errorf("host name has character %q (only letters, digits, '-', '_' and '.' allowed; '*' only as a leading \"*.\")", c)
			}
		}
	}
	return nil
}

// checkAllowIP checks an allow-ip entry: a CIDR or a single address.
func checkAllowIP(s string) error {
	if _, err := netip.ParseAddr(s); err == nil {
		return nil
	}
	pfx, err := netip.ParsePrefix(s)
	if err != nil {
		return fmt.Errorf("%q: want a CIDR such as 192.0.2.0/24 or 2001:db8::/32, or one address", s)
	}
	if pfx.Addr().Is4In6() {
		return fmt.Errorf("%q: write an IPv4-mapped range as IPv4", s)
	}
	return nil
}

// checkDNSUpstream checks dns-upstream: ADDR[:PORT] (an IPv6 address in
// brackets when a port follows; port 53 by default), not an address the
// sandbox itself holds, where the command could answer.
func checkDNSUpstream(s string) error {
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(s); err == nil {
		if ap.Port() == 0 {
			return fmt.Errorf("%q: port 0", s)
		}
		a = ap.Addr().Unmap()
	} else if addr, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil && addr.Zone() == "" {
		a = addr.Unmap()
	} else {
		return fmt.Errorf("%q: want ADDR or ADDR:PORT with an IP address, such as 192.0.2.53 or [2001:db8::53]:53", s)
	}
	if a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() || a == egressDenySource {
		return fmt.Errorf("%q is an address inside the sandbox, where the command could answer: give the resolver's address as the host reaches it", s)
	}
	return nil
}
