package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHostLookup: a root caller's run looks up, as its own uid, only
// what that uid may search, and no caller's run looks into what it masks
// (a TMPDIR outside /tmp, the home directories) or /tmp; a system
// directory it sees is looked up.
func TestHostLookup(t *testing.T) {
	requireRoot(t, "a root caller's run runs as another uid, whose search permissions are the point")
	// Outside /tmp and /var/tmp, which every run masks: a directory of
	// the host only root may enter, and one everyone may.
	base, err := os.MkdirTemp("/opt", "vigiles-lookup-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	shut, open, tmpdir := filepath.Join(base, "shut"), filepath.Join(base, "open"), filepath.Join(base, "tmpdir")
	for d, mode := range map[string]os.FileMode{shut: 0o700, open: 0o755, tmpdir: 0o755} {
		if err := os.Mkdir(d, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmpdir)
	lookable := HostLookup(t.TempDir()) // root's tree: the run is SandboxUID's
	for p, want := range map[string]bool{
		"/usr/bin/no-such-program": true,
		open + "/x":                true,
		shut + "/x":                false,
		tmpdir + "/x":              false,
		"/root/x":                  false,
		"/home/someone/.ssh":       false,
		"/tmp/x":                   false,
	} {
		if got := lookable(p); got != want {
			t.Errorf("HostLookup(…)(%s) = %v, want %v", p, got, want)
		}
	}
}
