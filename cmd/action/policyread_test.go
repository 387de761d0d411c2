package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyFileTheCallerMayNotRead: a policy file there but not readable
// by the user vigiles runs as is bad usage that says so and the fix (its
// owner, or its mode), where it was told to name another file with
// --config or write one. Root reads every file: as root, vigiles runs as
// nobody (setpriv).
func TestPolicyFileTheCallerMayNotRead(t *testing.T) {
	base := nobodysDir(t, "vigiles-policy-")
	repo := filepath.Join(base, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(repo, ".vigiles.yml")
	if err := os.WriteFile(policy, []byte("version: 1\nchecks:\n  - name: a\n    command: \"true\"\n    expect:\n      exit-code: 0\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	uid := os.Geteuid()
	if uid == 0 {
		uid = 65534
	}
	for _, cmd := range []string{"test", "audit"} {
		code, out, errs := unprivileged(t, base, cmd, "--dir", repo)
		want := fmt.Sprintf("vigiles: %s: the policy file %q may not be read by this user (uid %d); run vigiles as a user who may read it (its owner), or make it readable\n", cmd, policy, uid)
		if code != 2 || out != "" || errs != want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join([]string{cmd, "--dir", repo}, " "), code, out, errs, want)
		}
	}
}
