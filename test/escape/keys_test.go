package escape

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKeyDescriptionsAreHidden: the key ring's system calls are denied, but
// /proc/keys lists the description, owner and size of every key the
// reader may view, of every uid its user namespace maps: a non-root
// caller's own keys, and, for a root caller, those of the work tree's
// owner, whose uid the sandbox runs as (a CI runner user's). The test
// gives the unprivileged user a key; no caller's hook sees it, nor any key
// at all, in /proc/keys or /proc/key-users.
func TestKeyDescriptionsAreHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "giving the unprivileged user a key needs root")
	rs := runners(t)
	if len(rs) < 2 {
		t.Fatal("no unprivileged user to give a key to")
	}
	desc := fmt.Sprintf("vigiles-escape-key-%d", time.Now().UnixNano())
	// add_key(2) and keyctl(KEYCTL_REVOKE) as that user, in its user
	// keyring (KEY_SPEC_USER_KEYRING, -4).
	keyctl := func(script string) string {
		cmd := exec.Command("/usr/bin/env", "python3", "-c", `import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
`+script, desc)
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: rs[1].cred}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	id := keyctl(`r = l.syscall(248, b"user", sys.argv[1].encode(), b"vigiles-canary", 14, -4)
if r < 0: sys.exit("add_key: errno %d" % ctypes.get_errno())
print(r)`)
	t.Cleanup(func() { keyctl(`l.syscall(250, 3, ` + id + `)`) })
	listed := keyctl(`print(sys.argv[1] in open("/proc/keys").read())`)
	if listed != "True" {
		t.Fatalf("the key is not in its owner's /proc/keys (%s): the test shows nothing", listed)
	}
	for _, r := range rs {
		t.Run(r.name, func(t *testing.T) {
			res := vigiles(t, r, workTree(t), nil, "--", "sh", "-c", "cat /proc/keys /proc/key-users")
			if res.ExitCode != 0 || res.Stdout != "" {
				t.Errorf("the hook read the key lists: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
			}
			if strings.Contains(res.Stdout, desc) {
				t.Errorf("the hook read the description of %s's key", rs[1].name)
			}
		})
	}
}
