package sandbox

import (
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostAddrsTakesLocalRoutes: a range the host's routing tables deliver
// locally (ip route add local 192.0.2.0/24 dev lo, AnyIP) is the host's own
// as an interface address is: through the connector a connection to any
// address of it comes from the host and reaches its services listening on
// all addresses. hostAddrs lists it, so the DNS stub refuses an allowlisted
// name's answer inside it.
func TestHostAddrsTakesLocalRoutes(t *testing.T) {
	got := hostAddrsWith(t, false,
		[]string{"route", "add", "local", "192.0.2.0/24", "dev", "lo", "table", "local"},
		[]string{"-6", "route", "add", "local", "2001:db8:77::/64", "dev", "lo"},
		[]string{"route", "add", "local", "0.0.0.0/0", "dev", "lo", "table", "100"})
	for _, want := range []string{"192.0.2.0/24", "2001:db8:77::/64", "127.0.0.0/8"} {
		if !slices.Contains(got, netip.MustParsePrefix(want)) {
			t.Errorf("hostAddrs() = %v, want %s among them", got, want)
		}
	}
	// A table policy routing consults for marked packets only (TPROXY's)
	// is not the host's own addresses.
	if slices.Contains(got, netip.MustParsePrefix("0.0.0.0/0")) {
		t.Errorf("hostAddrs() = %v: took table 100's local default route", got)
	}
}

// TestHostAddrsTakesRuleTables: a policy rule that sends unmarked packets
// to another table (ip -6 rule add to 2001:db8:78::/64 lookup 100) makes
// that table's local routes the host's own as the main table's are:
// through the connector, a connection to 2001:db8:78::9 reached the host's
// [::] listeners while hostAddrs left the range out. A table only marked
// packets reach (TPROXY's fwmark 1 lookup 101) is still left out; one
// `not fwmark 1` sends every unmarked packet to (wg-quick's form) is not.
func TestHostAddrsTakesRuleTables(t *testing.T) {
	got := hostAddrsWith(t, true,
		[]string{"-6", "rule", "add", "to", "2001:db8:78::/64", "lookup", "100", "pref", "100"},
		[]string{"-6", "route", "add", "local", "2001:db8:78::/64", "dev", "lo", "table", "100"},
		[]string{"rule", "add", "lookup", "102", "pref", "102"},
		[]string{"route", "add", "local", "198.51.100.0/24", "dev", "lo", "table", "102"},
		[]string{"-6", "rule", "add", "fwmark", "1", "lookup", "101", "pref", "101"},
		[]string{"-6", "route", "add", "local", "::/0", "dev", "lo", "table", "101"},
		[]string{"-6", "rule", "add", "not", "fwmark", "1", "lookup", "103", "pref", "103"},
		[]string{"-6", "route", "add", "local", "2001:db8:79::/64", "dev", "lo", "table", "103"})
	for _, want := range []string{"2001:db8:78::/64", "198.51.100.0/24", "2001:db8:79::/64"} {
		if !slices.Contains(got, netip.MustParsePrefix(want)) {
			t.Errorf("hostAddrs() = %v, want %s among them", got, want)
		}
	}
	if slices.Contains(got, netip.MustParsePrefix("::/0")) {
		t.Errorf("hostAddrs() = %v: took the marked packets' table 101", got)
	}
}

// hostAddrsWith is hostAddrs in a fresh network namespace whose lo is up,
// after the ip(8) commands given (v6: they need IPv6).
func hostAddrsWith(t *testing.T, v6 bool, cmds ...[]string) []netip.Prefix {
	t.Helper()
	requireRoot(t, "a network namespace of its own needs root")
	if _, err := exec.LookPath("ip"); err != nil {
		missing(t, "ip(8) (iproute2)")
	}
	if _, err := os.Stat("/proc/net/if_inet6"); v6 && err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	var got []netip.Prefix
	var gerr error
	inThreadOfItsOwn(func() {
		if gerr = unix.Unshare(unix.CLONE_NEWNET); gerr != nil {
			return
		}
		ns := "/proc/" + strconv.Itoa(os.Getpid()) + "/task/" + strconv.Itoa(unix.Gettid()) + "/ns/net"
		for _, args := range append([][]string{{"link", "set", "lo", "up"}}, cmds...) {
			cmd := exec.Command("nsenter", append([]string{"--net=" + ns, "ip"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("ip %v: %v: %s", args, err, out)
				return
			}
		}
		got, gerr = hostAddrs()
	})
	if gerr != nil {
		t.Fatal(gerr)
	}
	return got
}
