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
	// Open to all: what keeps the file from the sandbox is its own mode.
	secret := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-secret-"), "token")
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
	bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o700})
	r := runFrom(t, bin, dir, nil, "true")
	if r.Tier != "refused" || r.ExitCode != 125 || !strings.Contains(r.Refusal, "chmod o+rx "+filepath.Join(bin, "vigiles-sandbox")) {
		t.Errorf("a 0700 in-sandbox binary: tier %s exit %d refusal %q, want a refusal naming chmod o+rx", r.Tier, r.ExitCode, r.Refusal)
	}
}

// openTempDir makes a directory every uid may enter in parent ("" for the
// temporary directory), removed when the test ends.
func openTempDir(t *testing.T, parent, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
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

// TestRootCallerWithoutPtrace runs vigiles as a root without
// CAP_SYS_PTRACE, as Docker starts a container's root: it may not open
// /proc/PID/ns/* of a sandbox that runs as another uid, so the sandbox
// sends its namespaces itself. A root-owned tree is still id-mapped, and
// allow mode still attaches slirp4netns and pasta.
func TestRootCallerWithoutPtrace(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "this is a root caller without one of root's capabilities")
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("setpriv (util-linux) is required in CI")
		}
		t.Skip("setpriv is not installed")
	}
	dir := workTree(t)
	for _, args := range [][]string{
		{"--", "sh", "-c", "echo x > made.txt; id -u"},
		{"--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", "slirp4netns", "--", "sh", "-c", "echo x > made.txt; ip -4 route show default"},
		{"--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", "pasta", "--", "sh", "-c", "echo x > made.txt; ip -4 route show default"},
	} {
		cmd := exec.Command(setpriv, append([]string{"--bounding-set", "-sys_ptrace", "--", vigilesBin, "run", "--json", "--workdir", dir}, args...)...)
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
		out, _ := cmd.Output()
		var r result
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("%v: no JSON result: %v: %s", args, err, out)
		}
		if r.Tier != "confined" || r.ExitCode != 0 || len(r.Writes) != 1 {
			t.Errorf("%v: tier %s exit %d refusal %q error %q writes %v stderr %q", args, r.Tier, r.ExitCode, r.Refusal, r.Error, r.Writes, r.Stderr)
		}
		if len(args) > 4 && !strings.Contains(r.Stdout, "default via") {
			t.Errorf("%v: no route out: %q", args, r.Stdout)
		}
	}
}

// TestStaleSandboxBinarySaysSo: an in-sandbox binary from another build
// (here a stand-in that answers as one does: "r", then its result) sends no
// namespaces; the run must report what that binary said (rebuild both),
// not a failed hand-over of the work tree.
func TestStaleSandboxBinarySaysSo(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the tree is handed over to a root caller's sandbox only")
	bin := openTempDir(t, "", "vigiles-escape-stale-")
	copyFile(t, vigilesBin, filepath.Join(bin, "vigiles"), 0o755)
	stale := "#!/bin/sh\nprintf r >&7\n" +
		`echo '{"ok":false,"error":"the in-sandbox binary (protocol 1) and vigiles (protocol 8) come from different builds: rebuild both (make build)"}' >&4` + "\n"
	if err := os.WriteFile(filepath.Join(bin, "vigiles-sandbox"), []byte(stale), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runFrom(t, bin, workTree(t), nil, "true")
	if r.ExitCode != 125 || !strings.Contains(r.Error, "rebuild both") {
		t.Errorf("tier %s exit %d error %q refusal %q: want the stale binary's own message", r.Tier, r.ExitCode, r.Error, r.Refusal)
	}
}
