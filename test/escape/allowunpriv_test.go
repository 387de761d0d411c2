package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAllowUnprivilegedCaller: an unprivileged caller (GitHub's hosted
// runners run vigiles as one, where /dev/net/tun is 0666) gets allow mode
// with slirp4netns: confined, its route out configured, an address off
// the allowlist refused and recorded. slirp4netns there filters its own
// system calls but cannot make a mount namespace of its own (its
// --enable-sandbox wants root in the sandbox's user namespace), and a run
// that asked for both was refused ("setegid(0)"), which no root test saw.
// The host's /dev/net/tun is 0600 here: the test gives vigiles a tun node
// of mode 0666 in a mount namespace of its own, and leaves the host's be.
func TestAllowUnprivilegedCaller(t *testing.T) {
	hook := `ip -4 -o addr show dev tap0; ip -4 route show default
		(echo hi > /dev/tcp/192.0.2.10/4444) 2>/dev/null
		exit 0`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound on a hang, as runVigiles
	defer cancel()
	cmd, stdout, stderr := nobodyAllowRun(ctx, t, "", "bash", "-c", hook)
	res := confinedAsNobody(t, cmd.Run(), stdout, stderr)
	if !strings.Contains(res.Stdout, "inet 10.0.2.100/24") || !strings.Contains(res.Stdout, "default via 10.0.2.2 dev tap0") {
		t.Errorf("as nobody: the command did not see slirp4netns's route configured:\n%s", res.Stdout)
	}
	var er egressResult
	if err := json.Unmarshal(stdout.Bytes(), &er); err != nil {
		t.Fatal(err)
	}
	refused := false
	for _, e := range er.Egress {
		refused = refused || e.IP == "192.0.2.10" && e.Port == 4444 && !e.Allowed
	}
	if !refused {
		t.Errorf("as nobody: the refused attempt at 192.0.2.10 is not in the record: %+v", er.Egress)
	}
}

// nobodyAllowRun is `vigiles run --json` in allow mode (slirp4netns,
// 192.0.2.1/32 allowed) of command, not started: as nobody, with a tun
// node of mode 0666 of its own in a mount namespace of its own (the
// host's /dev/net/tun is 0600 here, and stays as it is), after the shell
// lines pre (a ulimit). It skips, or fails in CI, where such a run cannot
// be made.
func nobodyAllowRun(ctx context.Context, t *testing.T, pre string, command ...string) (cmd *exec.Cmd, stdout, stderr *bytes.Buffer) {
	t.Helper()
	requireBwrap(t)
	requireRoot(t, "the test makes its own tun node, in a mount namespace of its own, and runs vigiles as nobody")
	requireTools(t, "slirp4netns", "setpriv", "unshare")
	rs := runners(t)
	if len(rs) < 2 {
		t.Skip("no unprivileged user to run vigiles as")
	}
	nobody := rs[1]
	dir := workTree(t)
	home := t.TempDir()
	for _, d := range []string{dir, home} {
		filepath.Walk(d, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(nobody.cred.Uid), int(nobody.cred.Gid))
		})
	}
	os.Chmod(home, 0o700)
	tun := filepath.Join(t.TempDir(), "tun")
	sh := `set -e
mknod "$TUN" c 10 200
chmod 0666 "$TUN"
mount --bind "$TUN" /dev/net/tun
` + pre + `
exec setpriv --reuid ` + strconv.Itoa(int(nobody.cred.Uid)) + ` --regid ` + strconv.Itoa(int(nobody.cred.Gid)) + ` --clear-groups "$@"
`
	args := append([]string{"--mount", "--propagation", "private", "sh", "-c", sh, "sh",
		vigilesBin, "run", "--json", "--workdir", dir, "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", "slirp4netns",
		"--"}, command...)
	cmd = exec.CommandContext(ctx, "unshare", args...)
	os.Chmod(filepath.Dir(vigilesBin), 0o755)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home, "TUN=" + tun}
	cmd.Dir = dir
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return cmd, stdout, stderr
}

// confinedAsNobody is the result of nobodyAllowRun's run, which ended
// with err: it fails the test unless the run was confined and its command
// exited 0.
func confinedAsNobody(t *testing.T, err error, stdout, stderr *bytes.Buffer) result {
	t.Helper()
	var res result
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("%v; no JSON result (%v)\nstdout: %s\nstderr: %s", err, jerr, stdout.String(), stderr.String())
	}
	if res.Tier != "confined" || res.ExitCode != 0 {
		t.Fatalf("as nobody: tier %s, exit %d (refusal %q, error %q)\nstderr: %s", res.Tier, res.ExitCode, res.Refusal, res.Error, stderr.String())
	}
	return res
}
