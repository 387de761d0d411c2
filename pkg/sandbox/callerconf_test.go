package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallerSeccompReadsItsStatus: a process under a seccomp filter
// (Seccomp: 2) is known as one, and the namespace and sandbox refusals
// then name the filter first; one under none (0, or an older kernel's
// status with no such line) is not, and the refusals are left as they
// were, but for the note that the host's settings allow user namespaces
// where they do.
func TestCallerSeccompReadsItsStatus(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		status string
		under  bool
	}{
		{"Name:\tvigiles\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n", true},
		{"Name:\tvigiles\nNoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n", false},
		{"Name:\tvigiles\n", false},
	} {
		p := filepath.Join(dir, "status")
		if err := os.WriteFile(p, []byte(c.status), 0o644); err != nil {
			t.Fatal(err)
		}
		old := procStatusSeccomp
		procStatusSeccomp = p
		got := callerSeccomp()
		fix := namespaceFix("GENERIC", nil)
		refusal := callerRefusal("installing seccomp filter: operation not permitted")
		other := callerRefusal("the command is empty")
		procStatusSeccomp = old
		if got != c.under {
			t.Errorf("status %q: under a filter %v, want %v", c.status, got, c.under)
		}
		if c.under != strings.HasPrefix(fix, callerSeccompFix) || !strings.HasSuffix(fix, "GENERIC") {
			t.Errorf("status %q: the namespace fix %q", c.status, fix)
		}
		if c.under != strings.Contains(refusal, callerSeccompFix) || other != "the command is empty" {
			t.Errorf("status %q: the sandbox's refusals read %q and %q", c.status, refusal, other)
		}
		if refusing, unread := usernsRestrictions(); !c.under && len(refusing)+len(unread) == 0 && !strings.Contains(fix, "this host's settings allow user namespaces") {
			t.Errorf("status %q on a host whose settings allow user namespaces: the fix %q does not say so", c.status, fix)
		}
	}
}

// TestNamespaceFixOfNamespacesAllInUse: bubblewrap's ENOSPC (every user
// namespace the host allows is in use) is named as that, with the
// setting that bounds them, not as a host that refuses them or a
// confinement vigiles was started in.
func TestNamespaceFixOfNamespacesAllInUse(t *testing.T) {
	fix := namespaceFix("GENERIC", []byte("bwrap: Creating new namespace failed: No space left on device\n"))
	if !strings.Contains(fix, "every user namespace this host allows is in use (user.max_user_namespaces=") ||
		strings.Contains(fix, "GENERIC") || strings.Contains(fix, "Landlock") {
		t.Errorf("the fix for namespaces all in use: %q", fix)
	}
}
