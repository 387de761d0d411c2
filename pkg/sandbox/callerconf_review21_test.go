package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallerRefusalNamesTheFilterOnlyWhereItCanBe: under a seccomp filter
// of whoever started vigiles, a refusal the kernel answered EPERM, which
// is what a container runtime's profile answers, and which names no fix
// of its own, gets the filter's fix; one that names its own fix (the
// work tree's overlay: record writes by copy) is left with that one
// alone, and one answered EACCES (a file's mode, Landlock, an LSM, none
// of which a seccomp filter is) is left as it was.
func TestCallerRefusalNamesTheFilterOnlyWhereItCanBe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(p, []byte("Name:\tvigiles\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(old string) { procStatusSeccomp = old }(procStatusSeccomp)
	procStatusSeccomp = p
	for _, c := range []struct {
		refusal string
		named   bool
	}{
		{"installing seccomp filter: operation not permitted", true},
		{"applying Landlock: operation not permitted", true},
		{"mounting overlay over the work tree: operation not permitted; fix: record writes by copy (--writes copy, which the default falls back to)", false},
		{"preparing the file ~/.gitconfig: open /root/.gitconfig: permission denied", false},
		{"mounting TMPDIR: permission denied", false},
	} {
		got := callerRefusal(c.refusal)
		if named := strings.Contains(got, callerSeccompFix); named != c.named {
			t.Errorf("refusal %q under a filter reads %q; the filter's fix named: %v, want %v", c.refusal, got, named, c.named)
		}
		if !c.named && got != c.refusal {
			t.Errorf("refusal %q under a filter reads %q; want it as it was", c.refusal, got)
		}
	}
}
