package escape

import (
	"encoding/json"
	"os"
	"os/exec"
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
	bin := openTempDir(t, "", "vigiles-escape-init-")
	for name, mode := range map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o777, "vigiles-reaper": 0o755} {
		copyFile(t, filepath.Join(filepath.Dir(vigilesBin), name), filepath.Join(bin, name), mode)
		os.Chmod(filepath.Join(bin, name), mode) // past the umask
	}
	dir := workTree(t)
	cmd := exec.Command(filepath.Join(bin, "vigiles"), "run", "--json", "--workdir", dir, "--", "sh", "-c", "echo x > made")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	out, _ := cmd.Output()
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("no JSON result: %v: %s", err, out)
	}
	if r.Tier != "refused" || r.ExitCode != 125 || !strings.Contains(r.Refusal, "chmod go-w "+filepath.Join(bin, "vigiles-sandbox")) {
		t.Errorf("a world-writable vigiles-sandbox: tier %s exit %d refusal %q error %q; want a refusal naming chmod go-w", r.Tier, r.ExitCode, r.Refusal, r.Error)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the command ran in the host's tree")
	}
}
