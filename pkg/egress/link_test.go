package egress

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// childLoopback sets up lo for the deny mode twice in a fresh network
// namespace (where lo starts down) and reports the routes the first call
// made and the error of the second.
func childLoopback() int {
	if err := setupLoopback(false); err != nil {
		return emit(childResult{SetupErr: "first: " + err.Error()})
	}
	var routes strings.Builder
	for _, fam := range []string{"-4", "-6"} {
		out, err := exec.Command("ip", fam, "route", "show", "default").CombinedOutput()
		if err != nil {
			return emit(childResult{SetupErr: "ip route: " + err.Error() + ": " + string(out)})
		}
		routes.Write(out)
	}
	res := childResult{Ruleset: routes.String()}
	if err := setupLoopback(false); err != nil {
		res.FinishErr = err.Error()
	}
	return emit(res)
}

// TestLoopbackBatch: the rtnetlink batch brings lo up, routes both
// families through it, and names the request the kernel refused.
func TestLoopbackBatch(t *testing.T) {
	needNamespaces(t)
	if _, err := exec.LookPath("ip"); err != nil {
		missing(t, "the ip binary (iproute2), to read the routes back")
	}
	res := runChild(t, "loopback", childSpec{}, nil)
	if res.SetupErr != "" {
		t.Fatal(res.SetupErr)
	}
	for _, want := range []string{"default dev lo", "src " + denySource.String()} {
		if !strings.Contains(res.Ruleset, want) {
			t.Errorf("routes %q lack %q", res.Ruleset, want)
		}
	}
	if strings.Contains(res.Ruleset, "metric 4294967295") {
		t.Errorf("deny mode's routes %q carry allow mode's fallback metric", res.Ruleset)
	}
	if want := "adding " + denySource.String() + " to lo: file exists"; res.FinishErr != want {
		t.Errorf("second setup: error %q, want %q", res.FinishErr, want)
	}
}

// childLoopbackAllowNoIPv6 turns IPv6 off on lo, as a host's settings can
// for a new namespace, and sets lo up for allow mode.
func childLoopbackAllowNoIPv6() int {
	if err := os.WriteFile("/proc/sys/net/ipv6/conf/lo/disable_ipv6", []byte("1"), 0); err != nil {
		return emit(childResult{SetupErr: "skip: " + err.Error()})
	}
	if err := setupLoopback(true); err != nil {
		return emit(childResult{SetupErr: err.Error()})
	}
	out, err := exec.Command("ip", "-4", "route", "show", "default").CombinedOutput()
	if err != nil {
		return emit(childResult{SetupErr: "ip route: " + err.Error() + ": " + string(out)})
	}
	return emit(childResult{Ruleset: string(out)})
}

// TestAllowLoopbackWithIPv6Off: where lo has IPv6 turned off, the kernel
// refuses an IPv6 route through it; allow mode's fallback route is then
// left out for IPv6 (as it was before there was one) instead of refusing
// the run, and IPv4's is still made.
func TestAllowLoopbackWithIPv6Off(t *testing.T) {
	needNamespaces(t)
	if _, err := os.Stat("/proc/net/if_inet6"); err != nil {
		missing(t, "IPv6 (/proc/net/if_inet6)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		missing(t, "the ip binary (iproute2), to read the routes back")
	}
	res := runChild(t, "loopback-allow-noipv6", childSpec{}, nil)
	if strings.HasPrefix(res.SetupErr, "skip: ") {
		missing(t, "a writable net.ipv6.conf.lo.disable_ipv6 in a fresh namespace ("+res.SetupErr+")")
	}
	if res.SetupErr != "" {
		t.Fatalf("allow mode's set-up with IPv6 off on lo: %s", res.SetupErr)
	}
	if !strings.Contains(res.Ruleset, "default dev lo") {
		t.Errorf("routes %q lack IPv4's fallback through lo", res.Ruleset)
	}
}
