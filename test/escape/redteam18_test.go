package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// systemGitConfig is what TestRedteam18SystemGitConfigIsScrubbed adds to
// /etc/gitconfig: what `git config --system` leaves there on
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
	etc := etcFiles(t, map[string]string{"gitconfig": systemGitConfig})
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesWithEtc(t, c.runner, dir, etc, c.withArgs([]string{"--", "python3", "redteam18gitconfig.py"})...)
			checkScriptRan(t, res, 5)
		})
	}
}

// TestRedteam18GitConfigSystemFileIsScrubbed: the first attempt against
// a system git config at the place the caller's GIT_CONFIG_SYSTEM names
// (/etc/ci/gitconfig here), which the host's git reads instead of
// /etc/gitconfig: the variable does not reach the command, but the file
// does, and the hook read every token in it by its path. The broker now
// scrubs it as it does /etc/gitconfig.
func TestRedteam18GitConfigSystemFileIsScrubbed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts a system git config in place in a mount namespace of its own")
	requireTools(t, "python3", "git", "unshare", "setpriv")
	etc := etcFiles(t, map[string]string{"ci/gitconfig": systemGitConfig})
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, etcOverlay, []string{"OV=" + t.TempDir(), "ETC=" + etc, "GIT_CONFIG_SYSTEM=/etc/ci/gitconfig"},
				c.withArgs([]string{"--", "python3", "redteam18gitconfig.py", "/etc/ci/gitconfig"})...)
			checkScriptRan(t, res, 5)
		})
	}
}

// TestRedteam18SystemCredentialFilesAreEmptied: the round's second
// attempt (scripts/redteam18syscreds.py), for every caller and a
// --root-sandbox run: the host's system-wide configuration files where an
// image or a self-hosted runner keeps a token or a password for every
// user (a proxy's credentials in /etc/environment, pip's index with a
// token in its URL, npm's global npmrc, boto's AWS keys, Maven's server
// password), each the system's counterpart of a file of HOME the run
// masks, were shown as the host has them: the hook read every token. Each
// that holds a credential now reads as empty (Maven's settings.xml as an
// empty settings element, an XML document Maven can parse); one that holds none
// (pip's other site-wide file) reads as it is.
func TestRedteam18SystemCredentialFilesAreEmptied(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system-wide configuration files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	etc := etcFiles(t, map[string]string{
		"environment":        "http_proxy=\"http://proxyuser:h107-proxy-token@proxy.example.test:3128\"\n",
		"pip.conf":           "[global]\nindex-url = https://__token__:h107-pip-token@pypi.example.test/simple\n",
		"npmrc":              "//npm.example.test/:_authToken=h107-npm-token\n",
		"boto.cfg":           "[Credentials]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = h107-boto-token\n",
		"maven/settings.xml": "<settings><servers><server><id>x</id><username>u</username><password>h107-maven-token</password></server></servers></settings>\n",
		"xdg/pip/pip.conf":   "[global]\ntimeout = 60\n# h107-control-kept\n",
	})
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesWithEtc(t, c.runner, dir, etc, c.withArgs([]string{"--", "python3", "redteam18syscreds.py"})...)
			checkScriptRan(t, res, 7)
		})
	}
}

// rootOnlySecrets are the well-known root-only secret files of /etc,
// by their paths there, that TestRedteam18RootOnlySecretsAreCovered
// adds: each holds its own token.
var rootOnlySecrets = []string{
	"krb5.keytab", "apt/auth.conf", "apt/auth.conf.d/private.conf", "ipsec.secrets", "ppp/chap-secrets",
	"kubernetes/admin.conf", "kubernetes/pki/ca.key", "rancher/k3s/k3s.yaml",
	"wireguard/wg0.conf", "NetworkManager/system-connections/office.nmconnection",
	"pki/tls/private/server.key", "letsencrypt/archive/example.test/privkey1.pem", "letsencrypt/keys/0000_key-certbot.pem",
	"gitlab-runner/config.toml", "buildkite-agent/buildkite-agent.cfg",
	"docker/certs.d/registry.example.test/client.key", "containers/certs.d/registry.example.test/client.key",
}

// TestRedteam18RootOnlySecretsAreCovered: the round's third attempt
// (scripts/redteam18rootonly.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root and reads every root-only file
// vigiles does not cover: the host's Kerberos keytab, apt's repository
// passwords, IPsec's and PPP's secrets, a cluster's kubeconfigs and keys,
// k3s's kubeconfig, WireGuard's and NetworkManager's connections (private
// keys, Wi-Fi passwords), TLS keys in Red Hat's and certbot's places,
// GitLab's runner's and Buildkite's agent's tokens, the client keys
// Docker and Podman present to a registry, each mode 0600 root, as their tools make them. Only /etc/shadow and its
// kind, SSH host keys and /etc/ssl/private were covered: the
// --root-sandbox run read every token. Each is now covered with /dev/null
// or its directory masked, where the run could read it.
func TestRedteam18RootOnlySecretsAreCovered(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts root-only files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	files := map[string]string{}
	for i, rel := range rootOnlySecrets {
		files[rel] = "h107-root-only-token-" + strconv.Itoa(i) + "\n"
	}
	etc := etcFiles(t, files, rootOnlySecrets...)
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesWithEtc(t, c.runner, dir, etc, c.withArgs(append([]string{"--", "python3", "redteam18rootonly.py"}, rootOnlySecrets...))...)
			checkScriptRan(t, res, len(rootOnlySecrets))
		})
	}
}

// etcFiles writes files (their paths relative to /etc) into a directory
// of the test's, for vigilesWithEtc, and returns it: each world-readable,
// but those named in private, which only their owner, root, may read.
func etcFiles(t *testing.T, files map[string]string, private ...string) string {
	t.Helper()
	d := t.TempDir()
	os.Chmod(d, 0o755)
	for rel, text := range files {
		p := filepath.Join(d, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if slices.Contains(private, rel) {
			mode = 0o600
		}
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	return d
}

// vigilesWithEtc runs `vigiles run --json --workdir dir ARGS` as r in a
// mount namespace of its own whose /etc is an overlay (its upper layer on
// a tmpfs of that namespace) with each file of the directory etc (from
// etcFiles) added to the file of /etc at its path, and returns the
// confined run's result.
func vigilesWithEtc(t *testing.T, r runner, dir, etc string, args ...string) result {
	t.Helper()
	return vigilesInMountNS(t, r, dir, etcOverlay, []string{"OV=" + t.TempDir(), "ETC=" + etc}, args...)
}

// etcOverlay is vigilesInMountNS's set-up that makes /etc an overlay
// (its upper layer on a tmpfs at $OV) and adds each file of the
// directory $ETC (from etcFiles) to the file of /etc at its path.
const etcOverlay = `mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$OV/u,workdir=$OV/w" /etc
(cd "$ETC" && for f in $(find . -type f); do
	mkdir -p "/etc/${f%/*}"
	cat "$f" >> "/etc/$f"
	chmod --reference="$f" "/etc/$f"
done)
`

// vigilesInMountNS runs `vigiles run --json --workdir dir ARGS` as r in a
// mount namespace of its own, made by root, after the shell text setup
// (run as root with env, $AS set to the setpriv arguments that drop to r,
// or empty; it may start a process in the background and keep its pid in
// $bg, which is ended after the run), and returns the confined run's
// result.
func vigilesInMountNS(t *testing.T, r runner, dir, setup string, env []string, args ...string) result {
	t.Helper()
	res := vigilesInMountNSAny(t, r, dir, setup, env, args...)
	if res.Tier != "confined" {
		t.Fatalf("vigiles %v as %s: tier %s (refusal %q, error %q)", args, r.name, res.Tier, res.Refusal, res.Error)
	}
	return res
}

// vigilesInMountNSAny is vigilesInMountNS with the result of any tier (a
// refusal too).
func vigilesInMountNSAny(t *testing.T, r runner, dir, setup string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := vigilesAs(ctx, r, dir, nil, append([]string{"run", "--json", "--workdir", dir}, args...)...)
	sh := `set -e
AS=
if [ -n "$AS_UID" ]; then
	AS="setpriv --reuid $AS_UID --regid $AS_GID --clear-groups"
fi
bg=
` + setup + `
set +e
$AS "$@"
st=$?
if [ -n "$bg" ]; then kill "$bg"; fi
exit $st
`
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(cmd.Env, env...)
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
	return res
}

// runnerFilesSh defines runner_files DIR, which makes at DIR what a
// self-hosted runner keeps there that a hook would want: its credentials
// (mode 0600, as the runner writes them), a worker's log and a job's step
// script, each with a token the attempts look for; and wait_exec.
const runnerFilesSh = `runner_files() {
	mkdir -p "$1/bin" "$1/_diag" "$1/_work/_temp"
	echo '{"d": "h107-runner-credential-token"}' > "$1/.credentials_rsaparams"
	chmod 0600 "$1/.credentials_rsaparams"
	echo 'job message h107-runner-diag-token' > "$1/_diag/Worker_20260101-000000-utc.log"
	echo 'curl -H "Authorization: Bearer h107-runner-step-token"' > "$1/_work/_temp/step.sh"
}
# wait_exec PID PROG waits until the process PID runs PROG (its exec, past
# setpriv's, done), for at most 2 minutes (a bound on a hang): vigiles
# looks for runners as it starts, and one still being started is not yet
# one.
wait_exec() {
	i=0
	while [ "$(readlink "/proc/$1/exe")" != "$2" ] && [ $i -lt 12000 ]; do sleep 0.01; i=$((i+1)); done
}
`

// TestRedteam18AnotherRunnersFilesAreMasked: the round's fourth attempt
// (scripts/redteam18runner.py), for every caller and a --root-sandbox
// run: a machine with several self-hosted runners (one for each
// repository or organization, each in its own directory, under one user)
// keeps each runner's credentials (.credentials_rsaparams, with which a
// process takes that runner's jobs), its logs (_diag, every job's whole
// message) and its work folder (_work, where the job it runs now has its
// step scripts, secrets filled in) in its directory. vigiles masked those
// of the runner it runs under alone, found among its ancestors: another
// runner's, running beside it in /opt, were read whole. The test starts
// such a runner (a program named Runner.Listener in its bin, as the
// caller) in /opt, on a tmpfs of a mount namespace of its own; the run now
// masks its directory whole.
func TestRedteam18AnotherRunnersFilesAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test starts a runner in /opt in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "sleep")
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		lacking(t, "a directory /opt")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	setup := runnerFilesSh + `mount -t tmpfs -o mode=0755 tmpfs /opt
r=/opt/runner-2
runner_files $r
cp "$SLEEP" $r/bin/Runner.Listener
if [ -n "$AS_UID" ]; then chown -R "$AS_UID:$AS_GID" $r; fi
$AS $r/bin/Runner.Listener 600 &
bg=$!
wait_exec $bg $r/bin/Runner.Listener
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"SLEEP=" + sleep}, c.withArgs([]string{"--", "python3", "redteam18runner.py"})...)
			checkScriptRan(t, res, 3)
		})
	}
}

// TestRedteam18AnInstalledRunnersFilesAreMasked: the fourth attempt
// against a runner installed as a service (svc.sh install) that is not
// running when the run starts (stopped, or between its restarts): no
// process tells its directory, but its systemd unit
// (actions.runner.*.service) names it as its WorkingDirectory, and its
// credentials and logs are there all the same. The test adds such a unit
// and runner in a mount namespace of its own (an overlay over /etc, a
// tmpfs over /opt); the run masks the runner's directory.
func TestRedteam18AnInstalledRunnersFilesAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test installs a runner in /opt and /etc in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		lacking(t, "a directory /opt")
	}
	etc := etcFiles(t, map[string]string{
		"systemd/system/actions.runner.example-repo.runner-2.service": "[Unit]\nDescription=GitHub Actions Runner (example-repo.runner-2)\n\n[Service]\nExecStart=/opt/runner-2/runsvc.sh\nUser=runner\nWorkingDirectory=/opt/runner-2\n",
		// A directory that may be missing, as systemd writes it.
		"systemd/system/actions.runner.example-org.runner-3.service": "[Service]\nExecStart=/opt/runner-3/runsvc.sh\nWorkingDirectory=-/opt/runner-3\n",
	})
	setup := etcOverlay + runnerFilesSh + `mount -t tmpfs -o mode=0755 tmpfs /opt
for r in /opt/runner-2 /opt/runner-3; do
	runner_files $r
	if [ -n "$AS_UID" ]; then chown -R "$AS_UID:$AS_GID" $r; fi
done
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"OV=" + t.TempDir(), "ETC=" + etc}, c.withArgs([]string{"--", "python3", "redteam18runner.py", "/opt/runner-2", "/opt/runner-3"})...)
			checkScriptRan(t, res, 6)
		})
	}
}

// TestRedteam18AnotherUsersRunnersFilesAreMasked: the fourth attempt
// against a runner of another user, started by hand (run.sh, in a
// terminal multiplexer or a supervisor of its own) rather than as a
// service: its directory is world-readable as the runner's tarball and
// its umask leave it, and so are its logs and the step script, secrets
// filled in, of the job it runs now. A caller may not read another
// user's /proc/PID/exe, so the look for the host's runners passed over
// it and the run read the script whole; its command line, which every
// user may read, names its program by its absolute path (run.sh and the
// service's RunnerService.js start it so). The test starts such a runner
// as another uid than the caller's (root for an unprivileged caller,
// nobody for root) in /opt, on a tmpfs of a mount namespace of its own;
// the run now masks its directory whole.
func TestRedteam18AnotherUsersRunnersFilesAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test starts a runner in /opt in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "sleep")
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		lacking(t, "a directory /opt")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	setup := runnerFilesSh + `mount -t tmpfs -o mode=0755 tmpfs /opt
r=/opt/runner-2
runner_files $r
cp "$SLEEP" $r/bin/Runner.Listener
chmod -R go+rX $r
chmod 0600 $r/.credentials_rsaparams
other=
if [ -z "$AS_UID" ]; then
	chown -R 65534:65534 $r
	other="setpriv --reuid 65534 --regid 65534 --clear-groups"
fi
$other $r/bin/Runner.Listener 600 &
bg=$!
wait_exec $bg $r/bin/Runner.Listener
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"SLEEP=" + sleep}, c.withArgs([]string{"--", "python3", "redteam18runner.py"})...)
			checkScriptRan(t, res, 3)
		})
	}
}

// TestRedteam18RunnerUnitsInOtherFormsAreMasked: the fourth attempt
// against runners installed as services whose units say their
// directories in forms systemd reads as svc.sh's own: a WorkingDirectory
// with spaces around its =, a unit that is a link to a file elsewhere
// (systemctl link), and a drop-in (systemctl edit: a .service.d/*.conf)
// that moves the directory. The look read only a line that starts
// "WorkingDirectory=" of a unit that is a regular file, and the run read
// each of these runners whole.
func TestRedteam18RunnerUnitsInOtherFormsAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test installs runners in /opt and /etc in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		lacking(t, "a directory /opt")
	}
	etc := etcFiles(t, map[string]string{
		"systemd/system/actions.runner.example-repo.runner-4.service":                 "[Service]\nExecStart=/opt/runner-4/runsvc.sh\nWorkingDirectory = /opt/runner-4\n",
		"systemd/system/actions.runner.example-repo.runner-6.service":                 "[Service]\nExecStart=/opt/runner-6/runsvc.sh\nWorkingDirectory=/opt/runner-moved\n",
		"systemd/system/actions.runner.example-repo.runner-6.service.d/override.conf": "[Service]\nWorkingDirectory=/opt/runner-6\n",
	})
	setup := etcOverlay + runnerFilesSh + `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir /opt/units
printf '[Service]\nExecStart=/opt/runner-5/runsvc.sh\nWorkingDirectory=/opt/runner-5\n' > /opt/units/actions.runner.example-repo.runner-5.service
ln -s /opt/units/actions.runner.example-repo.runner-5.service /etc/systemd/system/
for r in /opt/runner-4 /opt/runner-5 /opt/runner-6; do
	runner_files $r
	if [ -n "$AS_UID" ]; then chown -R "$AS_UID:$AS_GID" $r; fi
done
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"OV=" + t.TempDir(), "ETC=" + etc}, c.withArgs([]string{"--", "python3", "redteam18runner.py", "/opt/runner-4", "/opt/runner-5", "/opt/runner-6"})...)
			checkScriptRan(t, res, 9)
		})
	}
}

// moreSystemCredentialFiles are the files, by their paths in /etc, that
// TestRedteam18MoreSystemCredentialFilesAreEmptied adds, each where its
// tool's documentation puts a proxy's or a package source's credentials
// for every user of an image, in that tool's form.
var moreSystemCredentialFiles = map[string]string{
	"security/pam_env.conf":           "HTTP_PROXY DEFAULT=http://proxyuser:h110-pamenv-token@proxy.example.test:3128\n",
	"profile.d/proxy.sh":              "export https_proxy=http://proxyuser:h110-profile-token@proxy.example.test:3128\n",
	"apt/apt.conf.d/95proxy":          "Acquire::http::Proxy \"http://proxyuser:h110-apt-token@proxy.example.test:3128/\";\n",
	"apt/sources.list.d/private.list": "deb https://aptuser:h110-sources-token@apt.example.test/ stable main\n",
	"wgetrc":                          "use_proxy = on\nproxy_user = proxyuser\nproxy_password = h110-wgetrc-token\n",
	"yum.repos.d/private.repo":        "[private]\nbaseurl=https://repo.example.test/el9\nusername=u\npassword=h110-yum-token\n",
	"dnf/dnf.conf":                    "[main]\nproxy=http://proxy.example.test:3128\nproxy_username=u\nproxy_password=h110-dnf-token\n",
	"systemd/system/docker.service.d/http-proxy.conf": "[Service]\nEnvironment=\"HTTPS_PROXY=http://proxyuser:h110-dropin-token@proxy.example.test:3128\"\n",
	"profile.d/h110-kept.sh":                          "export H110_CONTROL_KEPT=1\n",
}

// TestRedteam18MoreSystemCredentialFilesAreEmptied: the second attempt
// (scripts/redteam18syscreds2.py) against the system-wide files an image
// keeps a proxy's or a package source's credentials in besides those the
// round covered: pam_env's own config, a login script of /etc/profile.d,
// apt's proxy and a source's URL, wget's, yum's and dnf's, and a systemd
// drop-in (Docker's documented place for its proxy), each world-readable
// and read whole. Each that holds a credential now reads as empty; a
// login script with none reads as it is.
func TestRedteam18MoreSystemCredentialFilesAreEmptied(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system-wide configuration files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	etc := etcFiles(t, moreSystemCredentialFiles)
	args := []string{"--", "python3", "redteam18syscreds2.py"}
	for rel, text := range moreSystemCredentialFiles {
		token := "+" + strings.TrimSpace(text)
		if i := strings.Index(text, "h110-"); i >= 0 {
			token = text[i : i+strings.IndexAny(text[i:], "@\"\n")]
		}
		args = append(args, "/etc/"+rel+"="+token)
	}
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesWithEtc(t, c.runner, dir, etc, c.withArgs(args)...)
			checkScriptRan(t, res, len(moreSystemCredentialFiles))
		})
	}
}

// TestRedteam18SiteCondaAndPipFilesAreEmptied: the second attempt
// against the other system-wide places pip and conda read: pip's site
// config, sys.prefix/pip.conf (/usr/local/pip.conf in Python's images),
// and conda's condarc.d directories of /etc/conda and /var/lib/conda and
// its system condarc under /var/lib/conda, each read whole before. The
// test adds them in overlays over /etc, /usr/local and /var/lib of a
// mount namespace of its own; each now reads as empty.
func TestRedteam18SiteCondaAndPipFilesAreEmptied(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system-wide configuration files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, d := range []string{"/usr/local", "/var/lib"} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			lacking(t, "a directory "+d)
		}
	}
	etc := etcFiles(t, map[string]string{"conda/condarc.d/private.yml": "channels:\n  - https://conda.example.test/t/h110-condad-token/private\n"})
	setup := etcOverlay + `for d in /usr/local /var/lib; do
	o=$(mktemp -d -p "$OV")
	mkdir "$o/u" "$o/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/u,workdir=$o/w" $d
done
printf '[global]\nindex-url = https://__token__:h110-sitepip-token@pypi.example.test/simple\n' > /usr/local/pip.conf
mkdir -p /var/lib/conda/condarc.d
printf 'proxy_servers:\n  https: http://u:h110-varlib-token@proxy.example.test:3128\n' > /var/lib/conda/condarc
printf 'channels:\n  - https://conda.example.test/t/h110-varlibd-token/private\n' > /var/lib/conda/condarc.d/private.yaml
chmod -R go+rX /usr/local/pip.conf /var/lib/conda
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"OV=" + t.TempDir(), "ETC=" + etc}, c.withArgs([]string{"--", "python3", "redteam18syscreds2.py",
				"/etc/conda/condarc.d/private.yml=h110-condad-token", "/usr/local/pip.conf=h110-sitepip-token",
				"/var/lib/conda/condarc=h110-varlib-token", "/var/lib/conda/condarc.d/private.yaml=h110-varlibd-token"})...)
			checkScriptRan(t, res, 4)
		})
	}
}

// TestRedteam18OwnRunnerAsAnotherUserIsNotMaskedWhole: the look for
// another user's runner by its command line must not take the runner the
// run is under for another one where the step drops to another user
// (setpriv, sudo -u) to run vigiles, which then may not read its
// ancestors' /proc/PID/exe: its directory, the job's tool cache among
// it, stays in view. The test runs vigiles, as an unprivileged caller,
// from a process of root's named <root>/bin/Runner.Worker.
func TestRedteam18OwnRunnerAsAnotherUserIsNotMaskedWhole(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test starts a runner in /opt in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "sh")
	if fi, err := os.Stat("/opt"); err != nil || !fi.IsDir() {
		lacking(t, "a directory /opt")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	setup := `mount -t tmpfs -o mode=0755 tmpfs /opt
r=/opt/runner-2
mkdir -p $r/bin $r/_work/_tool/python
cp "$SH" $r/bin/Runner.Worker
echo h110-tool-kept > $r/_work/_tool/python/version
chmod -R go+rX $r
step() { $r/bin/Runner.Worker -c 'setpriv --reuid "$AS_UID" --regid "$AS_GID" --clear-groups "$@"; exit $?' sh "$@"; }
AS=step
`
	for _, c := range callers(t) {
		if c.runner.cred == nil {
			continue // root reads every /proc/PID/exe
		}
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"SH=" + sh}, c.withArgs([]string{"--", "python3", "redteam18ownrunner.py"})...)
			checkScriptRan(t, res, 1)
		})
	}
}

// TestRedteam18SystemCredentialFileWithAnotherNameIsRefused: the second
// attempt through a hard link of a system-wide file that holds a
// credential (/etc/pip.conf, and /etc/pip-copy.conf made by ln): the empty
// copy covers the one path it is put at, and the hook read the token by
// the other name. A run on a host with such a link is now refused, as
// one with a hard-linked git config is, naming the fix.
func TestRedteam18SystemCredentialFileWithAnotherNameIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system-wide configuration files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	etc := etcFiles(t, map[string]string{"pip.conf": "[global]\nindex-url = https://__token__:h110-link-token@pypi.example.test/simple\n"})
	setup := etcOverlay + `ln /etc/pip.conf /etc/pip-copy.conf
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNSAny(t, c.runner, dir, setup, []string{"OV=" + t.TempDir(), "ETC=" + etc}, c.withArgs([]string{"--", "python3", "redteam18syscreds2.py", "/etc/pip-copy.conf=h110-link-token"})...)
			if res.Tier == "confined" {
				t.Fatalf("the run was not refused: exit %d\nstdout: %s", res.ExitCode, res.Stdout)
			}
			t.Logf("refused: %s", res.Refusal)
			if !strings.Contains(res.Refusal, "/etc/pip.conf") || !strings.Contains(res.Refusal, "find / -xdev -samefile") {
				t.Errorf("refusal %q: want one that names the file and how to find its other names", res.Refusal)
			}
		})
	}
}
