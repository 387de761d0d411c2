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

// movedEngineFiles are the files of container engines whose configs move
// their state out of /var/lib (a runner machine's data disk), by their
// absolute paths, that TestRedteam22MovedEngineStateIsHidden adds, each
// root's with a token, under the roots movedEngineSetup's configs name.
var movedEngineFiles = []string{
	// Docker's, at its daemon.json's data-root: a container's config
	// (its environment whole), its log, a named volume's data (world-
	// readable, as a container left it).
	"/opt/vdocker-test/containers/0123456789ab/config.v2.json",
	"/opt/vdocker-test/containers/0123456789ab/0123456789ab-json.log",
	"/opt/vdocker-test/volumes/org-private-repo_db/_data/secret.txt",
	// Docker's running state, at daemon.json's exec-root: a running
	// container's runtime state.
	"/opt/vdocker-run-test/runtime-runc/moby/0123456789ab/state.json",
	// containerd's, at its config.toml's root: its metadata (every
	// container's spec).
	"/opt/vcontainerd-test/io.containerd.metadata.v1.bolt/meta.db",
	// rootful Podman's, at storage.conf's graphroot: a container's
	// config.
	"/opt/vstorage-test/overlay-containers/89abcdef/userdata/config.json",
	// and its images, at the imagestore a drop-in of storage.conf names.
	"/opt/vimages-test/overlay-images/images.json",
	// Docker's again, at the --data-root a systemd drop-in gives dockerd,
	// and the Docker snap's, at its own data root, and a registry's
	// client key in the snap's certs.d.
	"/opt/vdocker-flag-test/containers/fedcba987654/config.v2.json",
	"/var/snap/docker/common/var-lib-docker/containers/13579bdf/config.v2.json",
	"/var/snap/docker/common/etc/certs.d/registry.example.test:5000/client.key",
	// containerd's, at the --root a drop-in of its unit gives it, and
	// CRI-O's, at crio.conf's root.
	"/opt/vcontainerd-flag-test/io.containerd.metadata.v1.bolt/meta.db",
	"/opt/vcrio-test/overlay-containers/2468ace0/userdata/config.json",
}

// movedEngineSetup is TestRedteam22MovedEngineStateIsHidden's set-up, run
// as root in a mount namespace of the test's own: /etc, /opt and /var
// become overlays (their upper layers on tmpfs at $OV, $OV2 and $OV3, so
// the host's own are never written), each of $FILES a root-only file
// with the token, and the engines' configs (daemon.json, a drop-in's
// dockerd --data-root, containerd's config.toml and a drop-in's
// containerd --root, storage.conf and a drop-in of it, crio.conf) name
// their roots in /opt (the Docker snap's is its own,
// in /var/snap), with the
// modes the engines give them (Docker's older 0711 data root, which lets
// every user in, 0701 volumes, a volume's data 0755).
const movedEngineSetup = `for d in /etc /opt /var; do
	ov=$OV; [ "$d" = /opt ] && ov=$OV2; [ "$d" = /var ] && ov=$OV3
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h122-tenant-token $f" > "$f"
	chmod 0600 "$f"
done
mkdir -p /etc/docker /etc/containerd /etc/containers
cat > /etc/docker/daemon.json <<'END'
{
	"data-root": "/opt/vdocker-test",
	"exec-root": "/opt/vdocker-run-test",
	"log-driver": "json-file"
}
END
cat > /etc/containerd/config.toml <<'END'
version = 2
# root = "/var/lib/containerd"
root = "/opt/vcontainerd-test"
state = "/run/containerd"

[grpc]
  address = "/run/containerd/containerd.sock"
END
cat > /etc/containers/storage.conf <<'END'
[storage]
driver = "overlay"
runroot = "/run/containers/storage"
graphroot = "/opt/vstorage-test"
END
mkdir -p /etc/containers/storage.conf.d
cat > /etc/containers/storage.conf.d/10-images.conf <<'END'
[storage]
imagestore = "/opt/vimages-test"
END
mkdir -p /etc/systemd/system/containerd.service.d /etc/crio
cat > /etc/systemd/system/containerd.service.d/root.conf <<'END'
[Service]
ExecStart=
ExecStart=/usr/bin/containerd --root /opt/vcontainerd-flag-test
END
cat > /etc/crio/crio.conf <<'END'
[crio]
root = "/opt/vcrio-test"
runroot = "/run/containers/storage"
END
mkdir -p /etc/systemd/system/docker.service.d
cat > /etc/systemd/system/docker.service.d/data-root.conf <<'END'
[Service]
ExecStart=
ExecStart=/usr/bin/dockerd -H fd:// --containerd=/run/containerd/containerd.sock --data-root=/opt/vdocker-flag-test
END
chmod 0644 /etc/docker/daemon.json /etc/containerd/config.toml /etc/containers/storage.conf /etc/containers/storage.conf.d/10-images.conf /etc/systemd/system/docker.service.d/data-root.conf \
	/etc/systemd/system/containerd.service.d/root.conf /etc/crio/crio.conf
chmod 0711 /opt/vdocker-test /opt/vcontainerd-test /opt/vdocker-flag-test /var/snap/docker/common/var-lib-docker
chmod 0710 /opt/vdocker-test/containers /opt/vdocker-flag-test/containers /var/snap/docker/common/var-lib-docker/containers
chmod 0701 /opt/vdocker-test/volumes
chmod 0755 /opt/vdocker-test/volumes/org-private-repo_db /opt/vdocker-test/volumes/org-private-repo_db/_data
chmod 0644 /opt/vdocker-test/volumes/org-private-repo_db/_data/secret.txt
chmod 0700 /opt/vstorage-test /opt/vdocker-run-test /opt/vimages-test /opt/vcontainerd-flag-test /opt/vcrio-test
`

// TestRedteam22MovedEngineStateIsHidden: the twenty-second round's first
// attempt (scripts/redteam21state.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root: round twenty-one
// masked the container engines' state at /var/lib/docker,
// /var/lib/containerd and /var/lib/containers, but a runner machine very
// often moves it to a data disk (Docker's data-root, containerd's root,
// Podman's graphroot): there a --root-sandbox run read each container's
// config.v2.json (its environment whole), its log, containerd's metadata
// and a Podman container's config (and, where a drop-in gives dockerd
// --data-root, or the Docker snap keeps its state in /var/snap, each
// container's config there), and listed every container's id, and
// every caller read a named volume's data, where the data root has
// Docker's older mode, 0711. Each root the engines' own configs name is
// now masked whole where the run could enter it (engineDataRoots).
func TestRedteam22MovedEngineStateIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test moves the container engines' state in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			args := append(append([]string{"--", "python3", "redteam21state.py"}, movedEngineFiles...), "--list", "/opt/vdocker-test/containers")
			res := vigilesInMountNS(t, c.runner, dir, movedEngineSetup,
				[]string{"OV=" + t.TempDir(), "OV2=" + t.TempDir(), "OV3=" + t.TempDir(), "FILES=" + strings.Join(movedEngineFiles, " ")},
				c.withArgs(args)...)
			checkScriptRan(t, res, len(movedEngineFiles)+1)
		})
	}
}

// volumeBindSetup is TestRedteam22VolumeBoundIntoTheTreeIsRefused's set-up,
// run as root in a mount namespace of the test's own: /var becomes an
// overlay (its upper layer on a tmpfs at $OV2), Docker's state there
// holds a named volume's data (world-readable, as a container left it,
// under the modes Docker gives its directories), and that volume is
// bind-mounted into the work tree ($TREE/data), as a checkout that
// shares a volume with a job's service has it.
const volumeBindSetup = `mount -t tmpfs -o mode=0755 tmpfs "$OV2"
mkdir "$OV2/u" "$OV2/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV2/u,workdir=$OV2/w" /var
v=/var/lib/docker/volumes/org-private-repo_db/_data
mkdir -p "$v"
echo "h122-tenant-token $v/secret.txt" > "$v/secret.txt"
chmod 0711 /var/lib/docker
chmod 0701 /var/lib/docker/volumes
chmod 0755 /var/lib/docker/volumes/org-private-repo_db "$v"
chmod 0644 "$v/secret.txt"
mkdir "$TREE/data"
mount --bind "$v" "$TREE/data"
`

// TestRedteam22VolumeBoundIntoTheTreeIsRefused, the round's second
// attempt (scripts/redteam21state.py): a Docker volume (under
// /var/lib/docker, which round twenty-one masks) bind-mounted into the
// work tree, as a checkout that shares a volume with a job's service has
// it, would show the volume's data through the tree, where the tree is
// shown whole. The check of the mounts inside the tree
// (hiddenMountInTree) counts the directories of secrets and of the
// engines' state masked whole (secretDirsEntered), as it counts a HOME's
// and a runner's: every caller's run is refused, naming the mount and
// /var/lib/docker. Before, a --root-sandbox run, and every run whose
// writes are recorded by copy (nobody's, root's on a tree nobody owns),
// read the volume's data; a root caller's run on its own tree was refused
// for the mount alone (its id-mapped hand-over leaves mounts out).
func TestRedteam22VolumeBoundIntoTheTreeIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test binds a volume into the tree in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNSAny(t, c.runner, dir, volumeBindSetup, []string{"OV2=" + t.TempDir(), "TREE=" + dir},
				c.withArgs([]string{"--", "python3", "redteam21state.py", dir + "/data/secret.txt"})...)
			if strings.Contains(res.Stdout, "ESCAPE") {
				t.Errorf("stdout %q: the volume's data was read through the tree", res.Stdout)
			}
			if res.Tier != "refused" || !strings.Contains(res.Refusal, "mounted inside it") || !strings.Contains(res.Refusal, "lies in /var/lib/docker") {
				t.Fatalf("tier %s (refusal %q, error %q), stdout %q: want the run refused for the volume mounted inside the tree, whose source lies in /var/lib/docker", res.Tier, res.Refusal, res.Error, res.Stdout)
			}
		})
	}
}

// TestRedteam22TreeInAMovedDataRoot: a run whose work tree lies in an
// engine's data root that its config moved (a checkout kept in a Docker
// volume's data, /opt/vdocker-test/volumes/org-repo_src/_data), as the
// tree's owner (nobody here) and as root (the tree then uid 1999's; the
// sandbox runs as it): the tree is shown at its path (the script runs
// from it) while another volume's data beside it, world-readable under
// Docker's older 0711 root, is not there (scripts/redteam21state.py), as
// for a tree in a directory secretDirs masks
// (TestRedteam21TreeInAMaskedAgentHome). /etc and /opt are overlays on
// tmpfs in a mount namespace of the test's own.
func TestRedteam22TreeInAMovedDataRoot(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test moves Docker's data root in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal(err)
	}
	const tree = "/opt/vdocker-test/volumes/org-repo_src/_data"
	beside := []string{"/opt/vdocker-test/volumes/other_db/_data/secret.txt", "/opt/vdocker-test/containers/0123456789ab/config.v2.json"}
	sh := `set -e
for d in /etc /opt; do
	ov=$OV; [ "$d" = /opt ] && ov=$OV2
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
mkdir -p /etc/docker "$TREE"
echo '{"data-root": "/opt/vdocker-test"}' > /etc/docker/daemon.json
cp -r "$SRC"/. "$TREE"
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h122-tenant-token $f" > "$f"
done
chmod 0711 /opt/vdocker-test
chmod 0701 /opt/vdocker-test/volumes
chmod 0710 /opt/vdocker-test/containers
chmod 0600 /opt/vdocker-test/containers/0123456789ab/config.v2.json
chmod 0755 /opt/vdocker-test/volumes/other_db /opt/vdocker-test/volumes/other_db/_data /opt/vdocker-test/volumes/org-repo_src "$TREE"
AS=
if [ -n "$AS_UID" ]; then
	chown -R "$AS_UID:$AS_GID" "$TREE"
	AS="setpriv --reuid $AS_UID --regid $AS_GID --clear-groups"
else
	chown -R 1999:1999 "$TREE"
fi
cd "$TREE"
exec $AS "$VIGILES" run --json --workdir "$TREE" -- python3 redteam21state.py $FILES
`
	for _, r := range runners(t) {
		if r.owner != nil && r.cred == nil {
			continue // the tree is the caller's, or root's
		}
		t.Run(r.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, unshare, "--mount", "--propagation", "private", "sh", "-c", sh)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "OV=" + t.TempDir(), "OV2=" + t.TempDir(),
				"SRC=" + workTree(t), "TREE=" + tree, "FILES=" + strings.Join(beside, " "), "VIGILES=" + vigilesBin}
			if r.cred != nil {
				cmd.Env = append(cmd.Env, "AS_UID="+strconv.Itoa(int(r.cred.Uid)), "AS_GID="+strconv.Itoa(int(r.cred.Gid)))
				os.Chmod(filepath.Dir(vigilesBin), 0o755)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var res result
			if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil {
				t.Fatalf("vigiles as %s: %v; no JSON result (%v)\nstdout: %s\nstderr: %s", r.name, err, jerr, stdout.String(), stderr.String())
			}
			if res.Tier != "confined" {
				t.Fatalf("vigiles as %s: tier %s (refusal %q, error %q)", r.name, res.Tier, res.Refusal, res.Error)
			}
			checkScriptRan(t, res, len(beside))
		})
	}
}

// boundRootFiles are the files of Docker's state that
// TestRedteam22BoundDataRootIsHidden reads at the data disk's own path,
// whose directory boundRootSetup binds on /var/lib/docker.
var boundRootFiles = []string{
	"/opt/vdisk-test/docker/containers/0123456789ab/config.v2.json",
	"/opt/vdisk-test/docker/volumes/org-private-repo_db/_data/secret.txt",
}

// dockerStateAt is the set-up boundRootSetup and linkedRootSetup share,
// run as root in a mount namespace of the test's own: /opt and /var become
// overlays (on tmpfs at $OV2 and $OV3), and Docker's state is made in d
// (set as $d for what follows) with Docker's modes (its older 0711 root,
// 0701 volumes, a volume's data world-readable), the files $FILES in it.
func dockerStateAt(d string) string {
	return `for d in /opt /var; do
	ov=$OV2; [ "$d" = /var ] && ov=$OV3
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h122-tenant-token $f" > "$f"
	chmod 0600 "$f"
done
d=` + d + `
chmod 0711 "$d"
chmod 0710 "$d/containers"
chmod 0701 "$d/volumes"
chmod 0755 "$d/volumes/org-private-repo_db" "$d/volumes/org-private-repo_db/_data"
chmod 0644 "$d/volumes/org-private-repo_db/_data/secret.txt"
`
}

// boundRootSetup is TestRedteam22BoundDataRootIsHidden's set-up: Docker's
// state in /opt/vdisk-test/docker (dockerStateAt), bound on
// /var/lib/docker, as an fstab line binding a data disk's directory there
// does; no config names it.
var boundRootSetup = dockerStateAt("/opt/vdisk-test/docker") + `mkdir -p /var/lib/docker
mount --bind "$d" /var/lib/docker
`

// TestRedteam22BoundDataRootIsHidden: the round's third attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run: a runner machine's data disk often holds Docker's state in a
// directory of its own, bound on /var/lib/docker (an fstab bind) with no
// config naming it. /var/lib/docker was masked, but the same directory
// at the disk's own path (/opt/vdisk-test/docker here) was not: a
// --root-sandbox run read a container's config.v2.json there and listed
// the containers, and every caller read a volume's data. The other paths
// a mount on an engine's root shows it at are now masked as well
// (boundElsewhere).
func TestRedteam22BoundDataRootIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test binds Docker's state on /var/lib/docker in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			args := append(append([]string{"--", "python3", "redteam21state.py"}, boundRootFiles...), "--list", "/opt/vdisk-test/docker/containers")
			res := vigilesInMountNS(t, c.runner, dir, boundRootSetup,
				[]string{"OV2=" + t.TempDir(), "OV3=" + t.TempDir(), "FILES=" + strings.Join(boundRootFiles, " ")},
				c.withArgs(args)...)
			checkScriptRan(t, res, len(boundRootFiles)+1)
		})
	}
}

// linkedRootFiles are the files of Docker's state that
// TestRedteam22LinkedDataRootIsHidden adds where linkedRootSetup's link
// /var/lib/docker leads.
var linkedRootFiles = []string{
	"/opt/vlink-test/docker/containers/0123456789ab/config.v2.json",
	"/opt/vlink-test/docker/volumes/org-private-repo_db/_data/secret.txt",
}

// linkedRootSetup is TestRedteam22LinkedDataRootIsHidden's set-up:
// Docker's state in /opt/vlink-test/docker (dockerStateAt), and
// /var/lib/docker a link to it, the other usual way to move it to a data
// disk.
var linkedRootSetup = dockerStateAt("/opt/vlink-test/docker") + `rm -rf /var/lib/docker
ln -s "$d" /var/lib/docker
`

// TestRedteam22LinkedDataRootIsHidden: the round's fourth attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run: a host whose /var/lib/docker is a link to a data disk
// (/var/lib/docker -> /opt/vlink-test/docker here). Every confined run
// failed there ("bwrap: Can't mount tmpfs on /newroot/var/lib/docker: No
// such file or directory": bubblewrap makes its masks from a root of its
// own, where the link's absolute target is not). The mask is now made at
// the path the link leads to (secretDirsToMask): the run goes on, and
// the state is hidden at both names.
func TestRedteam22LinkedDataRootIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test links /var/lib/docker in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			read := append(slices.Clone(linkedRootFiles), "/var/lib/docker/volumes/org-private-repo_db/_data/secret.txt")
			args := append(append([]string{"--", "python3", "redteam21state.py"}, read...), "--list", "/opt/vlink-test/docker/containers", "/var/lib/docker/containers")
			res := vigilesInMountNS(t, c.runner, dir, linkedRootSetup,
				[]string{"OV2=" + t.TempDir(), "OV3=" + t.TempDir(), "FILES=" + strings.Join(linkedRootFiles, " ")},
				c.withArgs(args)...)
			if res.Error != "" {
				t.Fatalf("the run failed: %s", res.Error)
			}
			checkScriptRan(t, res, len(read)+2)
		})
	}
}

// TestRedteam22TreeHoldingMovedEngineStateIsRefused: a run whose work
// tree holds an engine's data root that its config moved there (--workdir
// /opt, with daemon.json's data-root /opt/vdocker-test), as root on its
// own tree and with --root-sandbox, is refused, naming the root: the tree
// is shown whole, beside the masks, so a mask inside it would hide
// nothing. Before, such a tree was shown whole, the containers' configs
// in it. /etc and /opt are overlays on tmpfs in a mount namespace of the
// test's own.
func TestRedteam22TreeHoldingMovedEngineStateIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test moves Docker's data root in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	const setup = `for d in /etc /opt; do
	ov=$OV; [ "$d" = /opt ] && ov=$OV2
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
mkdir -p /etc/docker /opt/vdocker-test/containers/0123456789ab
echo '{"data-root": "/opt/vdocker-test"}' > /etc/docker/daemon.json
echo h122-tenant-token > /opt/vdocker-test/containers/0123456789ab/config.v2.json
chmod 0711 /opt/vdocker-test
`
	for _, c := range callers(t) {
		if c.runner.cred != nil || c.runner.owner != nil {
			continue // the tree is root's own
		}
		t.Run(c.name(), func(t *testing.T) {
			res := vigilesInMountNSAny(t, c.runner, "/opt", setup, []string{"OV=" + t.TempDir(), "OV2=" + t.TempDir()},
				c.withArgs([]string{"--", "cat", "/opt/vdocker-test/containers/0123456789ab/config.v2.json"})...)
			if strings.Contains(res.Stdout, "h122-tenant-token") {
				t.Errorf("stdout %q: a container's config was read in the tree", res.Stdout)
			}
			if res.Tier != "refused" || !strings.Contains(res.Refusal, "holds /opt/vdocker-test") {
				t.Fatalf("tier %s (refusal %q, error %q), stdout %q: want the run refused for the tree holding the moved data root", res.Tier, res.Refusal, res.Error, res.Stdout)
			}
		})
	}
}
