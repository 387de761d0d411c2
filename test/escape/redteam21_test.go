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
// attempt (scripts/redteam21containers.py), for every caller and a
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
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, strings.ReplaceAll(rootOnlyCopiesSetup, "h112-root-only-token", "h122-container-token")+containerStateSetup,
				[]string{"OV=" + t.TempDir(), "OV2=" + t.TempDir(), "FILES=" + strings.Join(containerFiles, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam21containers.py"}, containerFiles...))...)
			checkScriptRan(t, res, len(containerFiles)+1)
		})
	}
}
