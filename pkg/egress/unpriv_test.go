package egress

import (
	"os"
	"os/exec"
	"os/user"
	"testing"

	"github.com/vigiles/action/internal/testbin"
)

// TestUnprivileged re-runs the deny, record and fail-closed tests as the
// unprivileged user named by VIGILES_TEST_UNPRIVILEGED_USER (the test must
// run as root to switch to it). Allow mode is not included: its test hosts
// need root, and slirp4netns needs /dev/net/tun usable by that user.
func TestUnprivileged(t *testing.T) {
	name := os.Getenv("VIGILES_TEST_UNPRIVILEGED_USER")
	if name == "" && os.Geteuid() == 0 && os.Getenv("VIGILES_TEST_UNPRIVILEGED_CHILD") == "" {
		name = "nobody" // GitHub's hosted runners run vigiles as a non-root user
	}
	if name == "" {
		t.Skip("not root and no VIGILES_TEST_UNPRIVILEGED_USER: nobody to switch to")
	}
	if os.Geteuid() != 0 {
		missing(t, "root (to switch to "+name+")")
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("looking up %s: %v", name, err)
	}
	if u.Uid == "0" {
		t.Fatalf("%s is root", name)
	}
	runuser, err := exec.LookPath("runuser")
	if err != nil {
		missing(t, "runuser")
	}
	// The test binary lives in a directory only root can read: copy it.
	dir, err := os.MkdirTemp("", "vigiles-egress-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := testbin.Copy(t, dir, "egress.test")
	cmd := exec.Command(runuser, "-u", name, "--", bin, "-test.count=1", "-test.v",
		"-test.run", "^(TestDenyRecordsEveryAttempt|TestRecordProxy|TestSetupFailsClosed|TestRulesetGolden|TestDNSStubRecordsMalformedQueries)$")
	cmd.Env = append(os.Environ(), "CI=true", "VIGILES_TEST_UNPRIVILEGED_USER=", "VIGILES_TEST_UNPRIVILEGED_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as %s: %v\n%s", name, err, out)
	}
	t.Logf("as %s:\n%s", name, out)
}
