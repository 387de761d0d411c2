package escape

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitBinaryOthersMayRewriteIsRefused: the in-sandbox binary runs in
// every sandbox as its init, with the sandbox's capabilities, and writes
// the record; one that another user may rewrite (anyone's write bit) is
// refused, naming the fix, and nothing runs. The check is on the file
// handed in, not on its path.
func TestInitBinaryOthersMayRewriteIsRefused(t *testing.T) {
	requireBwrap(t)
	bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o777, "vigiles-reaper": 0o755})
	dir := workTree(t)
	r := runFrom(t, bin, dir, nil, "sh", "-c", "echo x > made")
	if r.Tier != "refused" || r.ExitCode != 125 || !strings.Contains(r.Refusal, "chmod go-w "+filepath.Join(bin, "vigiles-sandbox")) {
		t.Errorf("a world-writable vigiles-sandbox: tier %s exit %d refusal %q error %q; want a refusal naming chmod go-w", r.Tier, r.ExitCode, r.Refusal, r.Error)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the command ran in the host's tree")
	}
}
