package egress

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/evidence"
)

// ErrBadPolicy marks every error ValidatePolicy returns (errors.Is); it
// adds no words to their text.
var ErrBadPolicy = errors.New("invalid egress policy")

// policyError is a mistake in an egress policy: its text, and ErrBadPolicy
// for errors.Is.
type policyError struct{ msg string }

func (e policyError) Error() string        { return e.msg }
func (e policyError) Is(target error) bool { return target == ErrBadPolicy }

func badPolicy(format string, a ...any) error { return policyError{fmt.Sprintf(format, a...)} }

// Connectors for the allow mode.
const (
	ConnectorSlirp = "slirp4netns"
	ConnectorPasta = "pasta"
)

// allowRule is one --allow entry: an exact name or a "*." wildcard, with an
// optional port (0 = any).
type allowRule struct {
	name     string // lower case, no trailing dot, no "*."
	wildcard bool   // matches strict subdomains of name
	port     uint16
}

func (r allowRule) matches(host string) bool {
	if r.wildcard {
		return len(host) > len(r.name)+1 && strings.HasSuffix(host, "."+r.name)
	}
	return host == r.name
}

// policy is a validated, compiled EgressPolicy.
type policy struct {
	mode      string
	allow     []allowRule
	allowIP   []netip.Prefix
	upstream  netip.AddrPort // zero when none
	connector string
}

// ValidatePolicy checks a policy as the CLI flags give it: the mode, every
// --allow HOST[:PORT] (HOST an exact DNS name or "*.suffix"), every
// --allow-ip CIDR (or single address) and --dns-upstream ADDR[:PORT]. It
// never touches the system.
func ValidatePolicy(p evidence.EgressPolicy) error {
	_, err := compilePolicy(p)
	return err
}

func compilePolicy(p evidence.EgressPolicy) (*policy, error) {
	c := &policy{mode: p.Mode}
	switch p.Mode {
	case "":
		c.mode = evidence.EgressDeny
	case evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow:
	default:
		return nil, badPolicy("egress mode %q: want deny, record or allow", p.Mode)
	}
	if c.mode != evidence.EgressAllow && (len(p.Allow) > 0 || len(p.AllowIP) > 0) {
		return nil, badPolicy("--allow and --allow-ip need --egress allow (mode is %s)", c.mode)
	}
	for _, a := range p.Allow {
		r, err := parseAllow(a)
		if err != nil {
			return nil, err
		}
		c.allow = append(c.allow, r)
	}
	for _, s := range p.AllowIP {
		pfx, err := parseAllowIP(s)
		if err != nil {
			return nil, err
		}
		c.allowIP = append(c.allowIP, pfx)
	}
	if p.DNSUpstream != "" {
		ap, err := parseUpstream(p.DNSUpstream)
		if err != nil {
			return nil, err
		}
		c.upstream = ap
	}
	switch p.Connector {
	case "", ConnectorSlirp, ConnectorPasta:
		c.connector = p.Connector
	default:
		return nil, badPolicy("--connector %q: want slirp4netns or pasta", p.Connector)
	}
	return c, nil
}

// parseAllow parses an --allow entry, HOST[:PORT] (evidence.ParseAllowHost).
func parseAllow(s string) (allowRule, error) {
	h, err := evidence.ParseAllowHost(s)
	switch {
	case errors.Is(err, evidence.ErrAddressNotName):
		return allowRule{}, badPolicy("--allow %s: %v; use --allow-ip", strconv.Quote(s), err)
	case err != nil:
		return allowRule{}, badPolicy("--allow %s: %v", strconv.Quote(s), err)
	}
	return allowRule{name: h.Name, wildcard: h.Wildcard, port: h.Port}, nil
}

// parseAllowIP parses an --allow-ip entry (evidence.ParseAllowIP).
func parseAllowIP(s string) (netip.Prefix, error) {
	pfx, err := evidence.ParseAllowIP(s)
	if err != nil {
		return netip.Prefix{}, badPolicy("--allow-ip %s: %v", strconv.Quote(s), err)
	}
	return pfx, nil
}

// parseUpstream parses --dns-upstream ADDR[:PORT] (evidence.ParseDNSUpstream,
// which refuses an address inside the sandbox; exchange also refuses, at
// the time of asking, any address the namespace holds).
func parseUpstream(s string) (netip.AddrPort, error) {
	ap, err := evidence.ParseDNSUpstream(s)
	if err != nil {
		return netip.AddrPort{}, badPolicy("--dns-upstream %s: %v", strconv.Quote(s), err)
	}
	return ap, nil
}

// allowedName returns the rules that admit host (lower case, no trailing
// dot); nil when the name is off the list.
func (c *policy) allowedName(host string) []allowRule {
	var out []allowRule
	for _, r := range c.allow {
		if r.matches(host) {
			out = append(out, r)
		}
	}
	return out
}

// coveredByAllowIP reports whether a is inside an --allow-ip range.
func (c *policy) coveredByAllowIP(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range c.allowIP {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// specialRanges are refused as answers for allowlisted names unless an
// --allow-ip range covers them: a name must not become a way into the
// sandbox's own loopback, the cloud metadata service or private networks.
var specialRanges = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"), // shared address space (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215)
}

// azureWireServer is Azure's virtual public address (168.63.129.16): the
// platform's DNS resolver, DHCP, health probes and the WireServer, the
// host agent's endpoint (goal state, extension settings), served by the
// VM's physical host and reachable from every Azure VM, GitHub's hosted
// runners among them. It is the one cloud metadata endpoint outside the
// ranges refused above (the others are at 169.254.169.254 and the like,
// link-local, or in 100.64/10 and fc00::/7).
var azureWireServer = netip.AddrFrom4([4]byte{168, 63, 129, 16})

// nat64 is the well-known NAT64 prefix (RFC 6052): a NAT64 gateway on the
// way takes an address in it to the IPv4 address in its last 32 bits, so
// 64:ff9b::a9fe:a9fe reaches 169.254.169.254.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// The IPv6 ranges whose addresses carry an IPv4 address that something on
// the way may take them to (RFC 6890's special-purpose registry): a host
// with a 6to4 or automatic tunnel (Linux's sit0 takes IPv4-compatible
// addresses) or a Teredo client, or a translator (SIIT) on the path,
// delivers a packet for one of them to the IPv4 address it carries.
var (
	// sixToFour is 6to4 (RFC 3056): the IPv4 address in bits 16–47.
	sixToFour = netip.MustParsePrefix("2002::/16")
	// teredo is Teredo (RFC 4380): the server's IPv4 address in bits
	// 32–63, the client's, every bit inverted, in the last 32.
	teredo = netip.MustParsePrefix("2001::/32")
	// v4Compatible is the deprecated IPv4-compatible form (RFC 4291):
	// the IPv4 address in the last 32 bits (:: and ::1 aside).
	v4Compatible = netip.MustParsePrefix("::/96")
	// v4Translated is SIIT's IPv4-translated form (RFC 2765): the IPv4
	// address in the last 32 bits.
	v4Translated = netip.MustParsePrefix("::ffff:0:0:0/96")
)

// judgedAs lists the addresses an answer a is judged by: a itself (an
// IPv4-mapped address as the IPv4 address it maps), then each IPv4 address
// a carries that a NAT64 gateway, a translator or a tunnel on the way
// takes a packet for a to (nat64, sixToFour, teredo, v4Compatible,
// v4Translated). 64:ff9b::a9fe:a9fe and 2002:a9fe:a9fe::1 are both the
// cloud metadata service's.
func judgedAs(a netip.Addr) []netip.Addr {
	a = a.Unmap().WithZone("")
	if !a.Is6() {
		return []netip.Addr{a}
	}
	b := a.As16()
	last := netip.AddrFrom4([4]byte(b[12:]))
	switch {
	case nat64.Contains(a), v4Translated.Contains(a):
		return []netip.Addr{a, last}
	case v4Compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return []netip.Addr{a, last}
	case sixToFour.Contains(a):
		return []netip.Addr{a, netip.AddrFrom4([4]byte(b[2:6]))}
	case teredo.Contains(a):
		client := [4]byte(b[12:])
		for i := range client {
			client[i] ^= 0xff
		}
		return []netip.Addr{a, netip.AddrFrom4([4]byte(b[4:8])), netip.AddrFrom4(client)}
	}
	return []netip.Addr{a}
}

// nat64Of is the NAT64 address that leads to the IPv4 address a.
func nat64Of(a netip.Addr) netip.Addr {
	b := nat64.Addr().As16()
	v4 := a.As4()
	copy(b[12:], v4[:])
	return netip.AddrFrom16(b)
}

// refusedAddr says why a, one address an allowlisted name's answer is
// judged as (judgedAs), must not be accepted; "" when it may.
func refusedAddr(a netip.Addr) string {
	switch {
	case a.IsLoopback():
		return "loopback"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local"
	case a.IsPrivate():
		return "private"
	case a.IsUnspecified():
		return "unspecified"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return "multicast"
	}
	if a.Is4() && a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) {
		return "broadcast"
	}
	if a == azureWireServer {
		return "cloud platform"
	}
	for _, p := range specialRanges {
		if p.Contains(a) {
			return "reserved"
		}
	}
	return ""
}

// DefaultUpstream returns the host's first usable resolver from
// /etc/resolv.conf as ADDR:PORT, skipping loopback stubs (such as
// systemd-resolved's 127.0.0.53), which the sandbox cannot reach. It
// returns "" when there is none.
func DefaultUpstream() string {
	b, err := os.ReadFile("/etc/resolv.conf")
	if err != nil {
		return ""
	}
	return upstreamFromResolvConf(b)
}

func upstreamFromResolvConf(b []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "nameserver" {
			continue
		}
		a, err := netip.ParseAddr(f[1])
		if err != nil || a.Zone() != "" {
			continue
		}
		a = a.Unmap()
		if a.IsLoopback() || a.IsUnspecified() {
			continue
		}
		return netip.AddrPortFrom(a, 53).String()
	}
	return ""
}
