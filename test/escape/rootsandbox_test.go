package escape

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootCallerReadsNoRootOnlyFile runs the vigiles binary as root on a
// root-owned work tree: a file only root may read, outside vigiles' masks,
// stays unreadable by default, and --root-sandbox (the explicit opt-out)
// gives it back. An in-sandbox binary that the sandbox's uid may not
// execute is refused, naming the fix.
func TestRootCallerReadsNoRootOnlyFile(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the sandbox's uid is chosen for root callers only")
	secretDir, err := os.MkdirTemp("/var/lib", "vigiles-escape-secret-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(secretDir) })
	secret := filepath.Join(secretDir, "token")
	if err := os.WriteFile(secret, []byte("root-only-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := workTree(t)
	read := "cat " + secret + "; exit 0"

	res := vigiles(t, runner{name: "root"}, dir, nil, "--", "sh", "-c", read)
	if strings.Contains(res.Stdout, "root-only-token") || !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("default: stdout %q stderr %q, want the root-only file unreadable", res.Stdout, res.Stderr)
	}
	res = vigiles(t, runner{name: "root"}, dir, nil, "--root-sandbox", "--", "sh", "-c", read)
	if res.Stdout != "root-only-token\n" {
		t.Errorf("--root-sandbox: stdout %q stderr %q, want the host's root (what the opt-out gives up)", res.Stdout, res.Stderr)
	}

	// The binaries copied beside each other, the in-sandbox one 0700.
	bin, err := os.MkdirTemp("", "vigiles-escape-bin-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	os.Chmod(bin, 0o755)
	for name, mode := range map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o700} {
		copyFile(t, filepath.Join(filepath.Dir(vigilesBin), name), filepath.Join(bin, name), mode)
	}
	cmd := exec.Command(filepath.Join(bin, "vigiles"), "run", "--json", "--workdir", dir, "--", "true")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	out, _ := cmd.Output()
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("no JSON result: %v: %s", err, out)
	}
	if r.Tier != "refused" || r.ExitCode != 125 || !strings.Contains(r.Refusal, "chmod o+rx "+filepath.Join(bin, "vigiles-sandbox")) {
		t.Errorf("a 0700 in-sandbox binary: tier %s exit %d refusal %q, want a refusal naming chmod o+rx", r.Tier, r.ExitCode, r.Refusal)
	}
}

func copyFile(t *testing.T, src, dst string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dst, mode)
}
