package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// systemGitConfig is what TestRedteam18SystemGitConfigIsScrubbed adds to
// the host's /etc/gitconfig: what `git config --system` leaves there on
// an image or a self-hosted runner set up to fetch private repositories
// (a job's token as an extraheader, in an insteadOf URL, in an inline
// credential helper), and a setting of no secret that git must still read.
const systemGitConfig = `
[user]
	name = kept-by-the-scrub
[http "https://github.com/"]
	extraheader = AUTHORIZATION: basic h107-extraheader-token
[url "https://x-access-token:h107-insteadof-token@github.com/"]
	insteadOf = https://github.com/
[credential "https://example.test"]
	helper = "!f() { echo username=x; echo password=h107-helper-token; }; f"
`

// TestRedteam18SystemGitConfigIsScrubbed: the eighteenth round's attempt
// (scripts/redteam18gitconfig.py), for every caller and a --root-sandbox
// run: the host's system git config (/etc/gitconfig, world-readable),
// where `git config --system` keeps a token as a checkout's .git/config
// does, was shown to the command whole, where the configs of the tree and
// around it are shown scrubbed: the hook read every token in it, by its
// path and through git. The broker now covers it with a scrubbed copy,
// as it does the configs around the tree: no token shows, and git still
// reads the rest. The config is put there in a mount namespace of the
// test's own (an overlay over /etc), which the host's /etc never sees.
func TestRedteam18SystemGitConfigIsScrubbed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts a system git config in place in a mount namespace of its own")
	requireTools(t, "python3", "git", "unshare", "setpriv")
	conf := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(conf, []byte(systemGitConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesWithSystemGitConfig(t, c.runner, dir, conf, c.withArgs([]string{"--", "python3", "redteam18gitconfig.py"})...)
			checkScriptRan(t, res, 5)
		})
	}
}

// vigilesWithSystemGitConfig runs `vigiles run --json --workdir dir ARGS`
// as r in a mount namespace of its own whose /etc is an overlay (its
// upper layer on a tmpfs of that namespace) and whose /etc/gitconfig has
// conf's text added, and returns the confined run's result.
func vigilesWithSystemGitConfig(t *testing.T, r runner, dir, conf string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := vigilesAs(ctx, r, dir, nil, append([]string{"run", "--json", "--workdir", dir}, args...)...)
	sh := `set -e
mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$OV/u,workdir=$OV/w" /etc
cat "$CONF" >> /etc/gitconfig
chmod 0644 /etc/gitconfig
if [ -n "$AS_UID" ]; then
	exec setpriv --reuid "$AS_UID" --regid "$AS_GID" --clear-groups "$@"
fi
exec "$@"
`
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, "OV="+t.TempDir(), "CONF="+conf)
	if r.cred != nil {
		cmd.Env = append(cmd.Env, "AS_UID="+strconv.Itoa(int(r.cred.Uid)), "AS_GID="+strconv.Itoa(int(r.cred.Gid)))
		os.Chmod(filepath.Dir(vigilesBin), 0o755)
	}
	cmd.SysProcAttr = nil // the namespace is root's to make; setpriv drops to r
	cmd.Path = unshare
	cmd.Args = append([]string{"unshare", "--mount", "--propagation", "private", "sh", "-c", sh, "sh"}, cmd.Args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.ExtraFiles = extra
	err = cmd.Run()
	var res result
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
		t.Fatalf("vigiles %v as %s: %v; no JSON result (%v)\nstdout: %s\nstderr: %s", args, r.name, err, jerr, stdout.String(), stderr.String())
	}
	if res.Tier != "confined" {
		t.Fatalf("vigiles %v as %s: tier %s (refusal %q, error %q)", args, r.name, res.Tier, res.Refusal, res.Error)
	}
	return res
}
