package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The second red-team round: attempts on the record (leftover processes,
// overlay markers set by hand, directories the walk cannot read), on the
// host (namespaces, the mount API, other processes through /proc) and on
// the host's secrets (a git config's other names), each run for real
// through the vigiles binary, as root and as an unprivileged user.

// vigilesAny is vigiles without the demand that the run be confined: it
// returns the result and the exit status of a refused run too.
func vigilesAny(t *testing.T, r runner, dir string, args ...string) (result, int) {
	t.Helper()
	if r.owner != nil {
		filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
		})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, vigilesBin, append([]string{"run", "--json", "--workdir", dir}, args...)...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Dir = dir
	if r.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	var res result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("vigiles %v as %s: no JSON result (%v)\nstdout: %s\nstderr: %s", args, r.name, err, stdout.String(), stderr.String())
	}
	res.raw = stdout.String()
	return res, cmd.ProcessState.ExitCode()
}

// TestGitConfigHardLinkIsRefused: a checkout's .git/config with the
// job's token, given another name in the tree (a hard link: cp -al,
// rsync --link-dest) that the scan for configs does not find. The layer
// of scrubbed copies covers the config by its path; the other name showed
// the token whole. The run is refused, for every caller and both ways of
// recording writes, and the token is never printed.
func TestGitConfigHardLinkIsRefused(t *testing.T) {
	requireBwrap(t)
	const token = "vigiles-canary-linked-token"
	for _, r := range runners(t) {
		for _, method := range []string{"overlay", "copy"} {
			t.Run(r.name+"/"+method, func(t *testing.T) {
				dir := workTree(t)
				g := filepath.Join(dir, ".git")
				for _, d := range []string{"objects", "refs"} {
					if err := os.MkdirAll(filepath.Join(g, d), 0o755); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(g, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				conf := "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + token + "\n"
				if err := os.WriteFile(filepath.Join(g, "config"), []byte(conf), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(filepath.Join(g, "config"), filepath.Join(dir, "notes.txt")); err != nil {
					t.Fatal(err)
				}
				res, code := vigilesAny(t, r, dir, "--writes", method, "--", "cat", ".git/config", "notes.txt")
				if strings.Contains(res.raw, token) {
					t.Errorf("the hook read the token through the config's other name: %s", res.Stdout)
				}
				if code != 125 || res.Tier != "refused" || !strings.Contains(res.Refusal, "other name") {
					t.Errorf("exit %d, tier %s, refusal %q, error %q; want 125, refused, naming the other name", code, res.Tier, res.Refusal, res.Error)
				}
			})
		}
	}
}
