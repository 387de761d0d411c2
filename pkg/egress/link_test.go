package egress

import (
	"os/exec"
	"strings"
	"testing"
)

// childLoopback sets up lo for the deny mode twice in a fresh network
// namespace (where lo starts down) and reports the routes the first call
// made and the error of the second.
func childLoopback() int {
	if err := setupLoopback(true); err != nil {
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
	if err := setupLoopback(true); err != nil {
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
	if want := "adding " + denySource.String() + " to lo: file exists"; res.FinishErr != want {
		t.Errorf("second setup: error %q, want %q", res.FinishErr, want)
	}
}
