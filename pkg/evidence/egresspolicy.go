package evidence

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// The parsers of an egress policy's values. pkg/egress compiles a policy
// with them, and pkg/runner checks .vigiles.yml with them, so that no
// policy passes the parser and then has every run refused. Their errors
// leave the value out: each caller names it in its own words (a flag, a
// key).

// DenySource is the address the deny and record modes give the sandbox's
// lo: a resolver there would be inside the sandbox.
var DenySource = netip.MustParseAddr("10.254.254.1")

// maxHostName is the longest host name an allow entry may give.
const maxHostName = 253

// ErrAddressNotName is ParseAllowHost's error for an address, or an
// address range (a CIDR), given where a name belongs; callers say where
// addresses go instead. errors.Is finds it in both; the text says which
// of the two was given.
var ErrAddressNotName = errors.New("an address, not a name")

// errRangeNotName is ErrAddressNotName for an address range.
var errRangeNotName = addressNotName("an address range, not a name")

// addressNotName is an ErrAddressNotName in words of its own.
type addressNotName string

func (e addressNotName) Error() string        { return string(e) }
func (e addressNotName) Is(target error) bool { return target == ErrAddressNotName }

// ErrLoopback is ParseAllowHost's and ParseAllowIP's error for the
// loopback (localhost, *.localhost; 127.0.0.0/8, ::1): inside the sandbox
// it is the sandbox's own, which its command reaches without an allow
// (not egress, docs/egress.md), and no allow reaches the host's, so such
// an entry would be taken and allow nothing. ParseDNSUpstream refuses a
// loopback resolver for the same reason. The text says what to do.
var ErrLoopback = errors.New("the sandbox's own loopback, not the host's")

// loopbackOf is an ErrLoopback in words of its own.
type loopbackOf string

func (e loopbackOf) Error() string        { return string(e) }
func (e loopbackOf) Is(target error) bool { return target == ErrLoopback }

// The two ErrLoopback errors: a name and an address of the loopback.
var (
	errLoopbackName = loopbackOf("a name of the loopback, which in the sandbox is its own, not the host's: " +
		"a hook reaches its own loopback without an allow, and no allow reaches the host's; " +
		"allow a host the hook reaches over a network, or leave it out")
	errLoopbackIP = loopbackOf("the loopback, which in the sandbox is its own, not the host's: " +
		"a hook reaches its own loopback without an allow, and no allow reaches the host's; " +
		"allow an address the hook reaches over a network (a service of the host's must listen on one), or leave it out")
)

// AllowHost is a parsed allow entry: Name, lower case without a trailing
// dot; Wildcard for "*.Name" (any name below Name, not Name itself); Port
// 0 for any port.
type AllowHost struct {
	Name     string
	Wildcard bool
	Port     uint16
}

// URLHostHint is what an error of a host entry written as a URL adds,
// the host to write instead: ": write its host, api.example.test" for
// https://api.example.test/v1 or api.example.test/v1 (with the port the
// URL gives, HOST:PORT); "" where s shows no host.
func URLHostHint(s string) string {
	if host := URLHost(s); host != "" {
		return ": write its host, " + host
	}
	return ""
}

// URLHost is the host (and port) of s, a URL or a host and a path
// ("https://api.example.test/v1", "api.example.test/v1"); "" where s
// shows no host.
func URLHost(s string) string {
	rest := s
	if _, after, ok := strings.Cut(s, "://"); ok {
		rest = after
	}
	host, _, _ := strings.Cut(rest, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:] // user:password@ is no part of it
	}
	if strings.ContainsAny(host, " \t?#") {
		return ""
	}
	return host
}

// ParseAllowHost parses an allow entry, HOST[:PORT], HOST an exact DNS name
// or "*.suffix" with at least two labels after the "*.". localhost and
// the names below it (RFC 6761: they resolve to the loopback) are
// refused, ErrLoopback.
func ParseAllowHost(s string) (AllowHost, error) {
	var h AllowHost
	host := s
	if _, err := netip.ParsePrefix(s); err == nil {
		// 10.0.0.0/8: its '/' is no URL's, and it is no name either;
		// the loopback's is said as such, since allow-ip, where addresses
		// go, refuses it too.
		if _, err := ParseAllowIP(s); errors.Is(err, ErrLoopback) {
			return h, errLoopbackIP
		}
		return h, errRangeNotName
	}
	if strings.Contains(s, "/") {
		// http://x.test or x.test/path: the colon of a scheme is not a
		// port, and saying so would hide the mistake.
		return h, errors.New("want a host name (HOST, *.SUFFIX or HOST:PORT), not a URL" + URLHostHint(s))
	}
	// An address whole, before a port is looked for: ::1, [2001:db8::1],
	// ::ffff:127.0.0.1 end in a colon's group, no port.
	if a := strings.Trim(s, "[]"); isAddr(a) {
		return h, addressErr(a)
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		port, err := strconv.ParseUint(s[i+1:], 10, 16)
		if err != nil || port == 0 {
			return h, errors.New("the port must be 1-65535")
		}
		h.Port = uint16(port)
		host = s[:i]
	}
	if a := strings.Trim(host, "[]"); isAddr(a) {
		return h, addressErr(a)
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if strings.HasPrefix(host, "*.") {
		h.Wildcard = true
		host = host[2:]
	}
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return h, errLoopbackName
	}
	// 127.1, 10.1.2, 0x7f000001: the forms the system's resolver reads as
	// addresses (inet_aton), which no allow by name could match.
	if a, ok := LooseIPv4(host); ok {
		if a.IsLoopback() {
			return h, errLoopbackIP
		}
		if host == a.String() {
			return h, ErrAddressNotName
		}
		return h, addressNotName(fmt.Sprintf("an address (the system's resolver reads %s as %s), not a name", host, a))
	}
	// 1.2.3.256, 08, example.123: a number for a last label is no name
	// (no top-level domain is one), and no address the resolver reads.
	labels := strings.Split(host, ".")
	if last := labels[len(labels)-1]; last != "" && (strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") && strings.Trim(last[2:], "0123456789abcdef") == "") {
		return h, fmt.Errorf("%s is no address the system's resolver reads, and no name: a name's last label is not a number", host)
	}
	if err := checkHostName(host); err != nil {
		return h, err
	}
	if h.Wildcard && !strings.Contains(host, ".") {
		return h, errors.New(`a wildcard needs at least two labels after "*."`)
	}
	h.Name = host
	return h, nil
}

// addressErr is ParseAllowHost's error for the address a given where a
// name belongs: the loopback's said as such, since allow-ip, where
// addresses go, refuses it too.
func addressErr(a string) error {
	if _, err := ParseAllowIP(a); errors.Is(err, ErrLoopback) {
		return errLoopbackIP
	}
	return ErrAddressNotName
}

// isAddr says whether s is an IP address.
func isAddr(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// checkHostName accepts an LDH host name (letters, digits, '-', '_' inside
// labels), at most maxHostName characters, labels of 1-63.
func checkHostName(h string) error {
	if h == "" {
		return errors.New("an empty host name: want HOST, HOST:PORT or *.SUFFIX")
	}
	if len(h) > maxHostName {
		return fmt.Errorf("host name longer than %d characters", maxHostName)
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

// ParseAllowIP parses an allow-ip entry: a CIDR (masked) or one address.
// One of the loopback, or a range inside it (127.0.0.0/8 or narrower,
// ::1), is refused, ErrLoopback; a wider range that holds it (0.0.0.0/0)
// is taken.
func ParseAllowIP(s string) (netip.Prefix, error) {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			// fe80::1%eth0: a zone names a host interface, which the
			// sandbox's namespace does not have.
			return netip.Prefix{}, errors.New("an address with a zone: write it without one")
		}
		a = a.Unmap()
		if a.IsLoopback() {
			return netip.Prefix{}, errLoopbackIP
		}
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	pfx, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, errors.New("want a CIDR such as 192.0.2.0/24 or 2001:db8::/32, or one address")
	}
	if pfx.Addr().Is4In6() {
		return netip.Prefix{}, errors.New("write an IPv4-mapped range as IPv4")
	}
	pfx = pfx.Masked()
	// IsLoopback of the masked address: 127.0.0.0/8's, and ::1/128's
	// (::/127 holds :: too, and is no range of the loopback alone).
	if pfx.Addr().IsLoopback() && pfx.Bits() >= 8 {
		return netip.Prefix{}, errLoopbackIP
	}
	return pfx, nil
}

// ParseDNSUpstream parses a resolver, ADDR[:PORT]: an IPv4 or IPv6 address
// (bracketed when a port follows), port 53 by default. An address the
// sandbox itself holds (loopback, DenySource) is refused: inside the
// sandbox's namespace the command could answer there, forge the answers
// and so open the wall to any address.
func ParseDNSUpstream(s string) (netip.AddrPort, error) {
	var ap netip.AddrPort
	if p, err := netip.ParseAddrPort(s); err == nil && p.Addr().Zone() == "" {
		if p.Port() == 0 {
			return netip.AddrPort{}, errors.New("port 0")
		}
		ap = netip.AddrPortFrom(p.Addr().Unmap(), p.Port())
	} else if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil && a.Zone() == "" {
		ap = netip.AddrPortFrom(a.Unmap(), 53)
	} else {
		return netip.AddrPort{}, errors.New("want ADDR or ADDR:PORT with an IP address, such as 192.0.2.53 or [2001:db8::53]:53")
	}
	if a := ap.Addr(); a.IsLoopback() || a.IsUnspecified() || a.IsMulticast() || a == DenySource {
		return netip.AddrPort{}, errors.New("an address inside the sandbox, where the command could answer: give the resolver's address as the host reaches it")
	}
	return ap, nil
}
