package escape

import (
	"strings"
	"testing"
)

// containerFiles are the files of the container engines' state, by their
// absolute paths, that TestRedteam21ContainersStateIsHidden adds, each
// with a token, under directories of the modes the engines give them
// (containerStateSetup).
var containerFiles = []string{
	// Docker: a container's config (Config.Env: its environment whole)
	// and host config, its log (json-file: what it printed), a file it
	// wrote in its layer, a named volume's data (a volume's _data keeps
	// the mode the container gave it: 0755 here).
	"/var/lib/docker/containers/0123456789ab/config.v2.json",
	"/var/lib/docker/containers/0123456789ab/hostconfig.json",
	"/var/lib/docker/containers/0123456789ab/0123456789ab-json.log",
	"/var/lib/docker/overlay2/4f5e6d7c/diff/app/.env",
	"/var/lib/docker/volumes/org-private-repo_db/_data/secret.txt",
	// containerd's metadata (every container's spec, its environment
	// among it), a rootful Podman container's config.
	"/var/lib/containerd/io.containerd.metadata.v1.bolt/meta.db",
	"/var/lib/containers/storage/overlay-containers/89abcdef/userdata/config.json",
}

// containerStateSetup follows rootOnlyCopiesSetup in
// TestRedteam21ContainersStateIsHidden: the directories get the modes
// the engines make them with (Docker's older 0711 for /var/lib/docker,
// which lets every user in; 0701 for volumes, 0710 for containers and
// overlay2), and a volume's data the mode a container gave it.
const containerStateSetup = `chmod 0711 /var/lib/docker /var/lib/containerd
chmod 0710 /var/lib/docker/containers /var/lib/docker/overlay2
chmod 0701 /var/lib/docker/volumes
chmod 0755 /var/lib/docker/volumes/org-private-repo_db /var/lib/docker/volumes/org-private-repo_db/_data
chmod 0644 /var/lib/docker/volumes/org-private-repo_db/_data/secret.txt
chmod 0700 /var/lib/containers
`

// TestRedteam21ContainersStateIsHidden: the twenty-first round's first
// attempt (scripts/redteam21state.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root: a runner machine
// that runs containers (a job's services, another tenant's containers)
// keeps their state in /var/lib/docker, root's: each container's
// config.v2.json holds its environment whole (the secrets it was
// started with), its log what it printed, its layer what it wrote; a
// --root-sandbox run read each, and listed every container's id; a named
// volume's data, which the container made world-readable, was read by
// every caller where /var/lib/docker has Docker's older mode, 0711.
// containerd's and rootful Podman's stores hold the same. Each directory
// is now masked whole where the run could enter it.
func TestRedteam21ContainersStateIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts the container engines' state in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := tenantStateRun(t, c, containerStateSetup, containerFiles, "/var/lib/docker/containers")
			checkScriptRan(t, res, len(containerFiles)+1)
		})
	}
}

// tenantStateRun runs scripts/redteam21state.py as c in a mount namespace
// whose /etc and /var are overlays (rootOnlyCopiesSetup) holding files,
// each a root-only file with the script's token, then the shell text
// setup (their directories' and files' modes), and returns the result:
// the script reads each file, then lists each of dirs.
func tenantStateRun(t *testing.T, c caller, setup string, files []string, dirs ...string) result {
	t.Helper()
	dir := workTree(t)
	args := append(append([]string{"--", "python3", "redteam21state.py"}, files...), "--list")
	return vigilesInMountNS(t, c.runner, dir, strings.ReplaceAll(rootOnlyCopiesSetup, "h112-root-only-token", "h122-tenant-token")+setup,
		[]string{"OV=" + t.TempDir(), "OV2=" + t.TempDir(), "FILES=" + strings.Join(files, " ")},
		c.withArgs(append(args, dirs...))...)
}

// agentFiles are the files of other CI agents and of BuildKit, by their
// absolute paths, that TestRedteam21OtherAgentsStateIsHidden adds, each
// with a token, with the owners and modes agentStateSetup gives them.
var agentFiles = []string{
	// Jenkins' home: its credentials (encrypted) and the keys that
	// decrypt them, a job's workspace (a private repository's
	// checkout) and a build's log.
	"/var/lib/jenkins/credentials.xml", "/var/lib/jenkins/secrets/master.key",
	"/var/lib/jenkins/secrets/hudson.util.Secret",
	"/var/lib/jenkins/workspace/org-private-repo/main.go",
	"/var/lib/jenkins/jobs/org-private-repo/builds/1/log",
	// Buildkite's agent's home: a pipeline's checkout and the SSH key
	// its checkouts use.
	"/var/lib/buildkite-agent/builds/host-1/org/private-pipeline/main.go",
	"/var/lib/buildkite-agent/.ssh/id_rsa",
	// BuildKit's daemon's snapshots: a build's context.
	"/var/lib/buildkit/runc-overlayfs/snapshots/snapshots/12/fs/src/main.go",
}

// agentStateSetup follows rootOnlyCopiesSetup in
// TestRedteam21OtherAgentsStateIsHidden: the agents' homes belong to
// their own user (uid 1999 here), their directories 0755 and files 0644
// as their umask leaves them, but the keys (0600, in 0700 directories);
// BuildKit's state is root's (0711, its snapshots 0700).
const agentStateSetup = `for d in /var/lib/jenkins /var/lib/buildkite-agent; do
	chown -R 1999:1999 "$d"
	find "$d" -type d -exec chmod 0755 {} +
	find "$d" -type f -exec chmod 0644 {} +
done
chmod 0700 /var/lib/jenkins/secrets /var/lib/buildkite-agent/.ssh
chmod 0600 /var/lib/jenkins/secrets/* /var/lib/buildkite-agent/.ssh/id_rsa
chmod 0711 /var/lib/buildkit
chmod 0700 /var/lib/buildkit/runc-overlayfs
`

// TestRedteam21OtherAgentsStateIsHidden: the round's second attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run: a machine shared by several CI systems keeps each one's agent
// beside the runner, in a home outside /home: Jenkins' (/var/lib/jenkins:
// credentials.xml, the keys in secrets/ that decrypt it, every job's
// workspace and build log) and Buildkite's (/var/lib/buildkite-agent:
// every pipeline's checkout, the SSH key they use), and BuildKit's
// daemon keeps every build's context (/var/lib/buildkit). Every caller
// read the workspaces, logs, checkouts and Jenkins' credentials, which
// their umask leaves to every user, and listed the jobs; a
// --root-sandbox run read the keys and BuildKit's snapshots too. Each
// directory is now masked whole where the run could enter it.
func TestRedteam21OtherAgentsStateIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts other agents' state in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "find")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := tenantStateRun(t, c, agentStateSetup, agentFiles, "/var/lib/jenkins/workspace", "/var/lib/buildkite-agent/builds/host-1/org")
			checkScriptRan(t, res, len(agentFiles)+2)
		})
	}
}
