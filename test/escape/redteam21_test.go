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

// machineFiles are the files of the system containers and virtual
// machines a host runs beside its runners, by their absolute paths,
// that TestRedteam21MachinesStateIsHidden adds, each root's with a
// token, with the modes machineStateSetup gives their directories.
var machineFiles = []string{
	// LXC's containers: a container's config and a file of its root
	// file system.
	"/var/lib/lxc/tenant-c1/config", "/var/lib/lxc/tenant-c1/rootfs/etc/app.env",
	// LXD's (the snap's): its server's key, a container's file.
	"/var/snap/lxd/common/lxd/server.key",
	"/var/snap/lxd/common/lxd/storage-pools/default/containers/tenant-c2/rootfs/etc/app.env",
	// systemd-nspawn's machines.
	"/var/lib/machines/tenant-m1/etc/app.env",
	// libvirt's: a VM's disk, its domain's definition (a VNC or SPICE
	// password), a secret's value (a disk's LUKS passphrase, a Ceph
	// key).
	"/var/lib/libvirt/images/tenant-vm.qcow2", "/etc/libvirt/qemu/tenant-vm.xml",
	"/etc/libvirt/secrets/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0.base64",
}

// machineStateSetup follows rootOnlyCopiesSetup in
// TestRedteam21MachinesStateIsHidden: the directories get the modes
// their programs make them with: LXC's 0755 above a container's 0770,
// LXD's 0711, nspawn's 0700, libvirt's images 0711, its secrets 0700.
const machineStateSetup = `chmod 0755 /var/lib/lxc
chmod 0770 /var/lib/lxc/tenant-c1
chmod 0711 /var/snap/lxd/common/lxd /var/lib/libvirt/images
chmod 0700 /var/lib/machines /etc/libvirt/secrets
`

// TestRedteam21MachinesStateIsHidden: the round's third attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root: a machine that runs system
// containers or virtual machines beside its runners (another tenant's,
// or a job's) keeps them under /var, root's: LXC's containers' configs
// and root file systems, LXD's server key and containers, nspawn's
// machines, libvirt's disk images, its domains' definitions (a console's
// password) and its secrets' values; a --root-sandbox run read each, and
// listed the containers. Each directory is now masked whole where the
// run could enter it, and each domain's definition covered.
func TestRedteam21MachinesStateIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts system containers' and VMs' state in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := tenantStateRun(t, c, machineStateSetup, machineFiles, "/var/lib/lxc", "/var/lib/machines")
			checkScriptRan(t, res, len(machineFiles)+2)
		})
	}
}

// spoolFiles are the scheduled jobs of cron and at, by their absolute
// paths, that TestRedteam21ScheduledJobsAreCovered adds, each root's
// (mode 0600, an at job 0700) with a token.
var spoolFiles = []string{
	// Debian's and Ubuntu's: root's crontab, root's at job; another
	// user's crontab, that user's file (uid 1999, spoolSetup), which
	// no run but that user's reads.
	"/var/spool/cron/crontabs/root", "/var/spool/cron/atjobs/a00001019a2b3c", "/var/spool/cron/crontabs/runner2",
	// Red Hat's: a user's crontab (root's file, named for the user), an
	// at job.
	"/var/spool/cron/deploy", "/var/spool/at/a00002019a2b3c",
}

// spoolSetup follows rootOnlyCopiesSetup in
// TestRedteam21ScheduledJobsAreCovered: the spools' directories get
// their modes (Debian's crontabs 1730, atjobs 1770; Red Hat's at 0700),
// an at job its 0700, a user's crontab its owner.
const spoolSetup = `chown 1999:1999 /var/spool/cron/crontabs/runner2
chmod 1730 /var/spool/cron/crontabs
chmod 1770 /var/spool/cron/atjobs
chmod 0700 /var/spool/at /var/spool/cron/atjobs/a00001019a2b3c /var/spool/at/a00002019a2b3c
`

// TestRedteam21ScheduledJobsAreCovered: the round's fourth attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root: the scheduled jobs of a shared
// machine are scripts with what they need, root's alone: root's crontab
// (an administrator's maintenance, a registry's or a cloud's token in
// its command lines), Red Hat's users' crontabs (root's files), and the
// at jobs, each of which holds the whole environment of the one who made
// it (at writes each variable into the job); a --root-sandbox run read
// each. Each is now covered with /dev/null where the run could read it.
func TestRedteam21ScheduledJobsAreCovered(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts scheduled jobs in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := tenantStateRun(t, c, spoolSetup, spoolFiles)
			checkScriptRan(t, res, len(spoolFiles))
		})
	}
}

// clusterFiles are the stores of a Kubernetes cluster whose node is the
// runner's machine (a kubeadm control plane, MicroK8s), by their
// absolute paths, that TestRedteam21ClusterStoresAreHidden adds, each
// with a token, with the modes clusterSetup gives them.
var clusterFiles = []string{
	// etcd's data: every Secret of the cluster, unencrypted by default.
	"/var/lib/etcd/member/snap/db",
	// MicroK8s': the admin's kubeconfig and the tokens, the CA's key,
	// its dqlite store (every Secret).
	"/var/snap/microk8s/current/credentials/client.config",
	"/var/snap/microk8s/current/credentials/known_tokens.csv",
	"/var/snap/microk8s/current/certs/ca.key",
	"/var/snap/microk8s/current/var/kubernetes/backend/0000000000000001-0000000000000100",
}

// clusterSetup follows rootOnlyCopiesSetup in
// TestRedteam21ClusterStoresAreHidden: etcd's directory is 0700; MicroK8s'
// credentials are 0660 of the group microk8s, which a runner's user
// joins to run kubectl: the group of a non-root caller here (its own,
// as setpriv leaves it no other; a supplementary one stays in the
// sandbox as well), gid 1998 for root.
const clusterSetup = `chmod 0700 /var/lib/etcd
chgrp -R "${AS_GID:-1998}" /var/snap/microk8s/current/credentials
chmod 0770 /var/snap/microk8s/current/credentials
chmod 0660 /var/snap/microk8s/current/credentials/*
`

// TestRedteam21ClusterStoresAreHidden: the round's fifth attempt
// (scripts/redteam21state.py), for every caller and a --root-sandbox
// run: a runner on a Kubernetes node that is its own control plane
// (kubeadm's, a MicroK8s single node, where a scale set's runners run
// as pods) has the cluster's stores beside it: etcd's data (every
// Secret, unencrypted by default) and MicroK8s' credentials (the admin's
// kubeconfig and tokens), CA key and dqlite store; a --root-sandbox run
// read each, and a caller in MicroK8s' group its credentials. Each directory is now masked whole where the run could
// enter it.
func TestRedteam21ClusterStoresAreHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts a cluster's stores in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "chgrp")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			res := tenantStateRun(t, c, clusterSetup, clusterFiles)
			checkScriptRan(t, res, len(clusterFiles))
		})
	}
}

// TestRedteam21SharedKernelViews: what the round's look at the kernel's
// shared views found held (scripts/redteam21views.py), for every caller
// and a --root-sandbox run: the sandbox's /proc shows no binfmt_misc
// handler of the host's, and no cgroup.procs or tasks of the host's
// cgroup tree (every service's and container's cgroup, read-only) names
// a pid outside the sandbox's own. The tree's names and each cgroup's
// usage stay readable: see "What it learns of the other tenants of a
// shared machine" in docs/security.md.
func TestRedteam21SharedKernelViews(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "python3")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, c.runner, dir, nil, c.withArgs([]string{"--", "python3", "redteam21views.py"})...)
			checkScriptRan(t, res, 2)
		})
	}
}

// TestRedteam21TreeInAMaskedAgentHome: a run whose work tree lies in one
// of the directories the round masks whole, as a hook audited in a
// Jenkins job's workspace does (/var/lib/jenkins/workspace/JOB), as the
// home's owner (nobody here) and as root (the home then uid 1999's, as
// a jenkins user's is; the sandbox runs as it): the tree is shown at its path
// (the script runs from it) while Jenkins' credentials and another
// job's workspace beside it are not there (scripts/redteam21state.py).
func TestRedteam21TreeInAMaskedAgentHome(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test makes an agent's home in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Fatal(err)
	}
	const tree = "/var/lib/jenkins/workspace/org-repo"
	beside := []string{"/var/lib/jenkins/credentials.xml", "/var/lib/jenkins/secrets/master.key", "/var/lib/jenkins/workspace/other-repo/main.go"}
	sh := `set -e
mount -t tmpfs -o mode=0755 tmpfs "$OV2"
mkdir "$OV2/u" "$OV2/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV2/u,workdir=$OV2/w" /var
mkdir -p "$TREE"
cp -r "$SRC"/. "$TREE"
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h122-tenant-token $f" > "$f"
done
AS=
if [ -n "$AS_UID" ]; then
	chown -R "$AS_UID:$AS_GID" /var/lib/jenkins
	AS="setpriv --reuid $AS_UID --regid $AS_GID --clear-groups"
else
	chown -R 1999:1999 /var/lib/jenkins
fi
chmod 0700 /var/lib/jenkins/secrets
cd "$TREE"
exec $AS "$VIGILES" run --json --workdir "$TREE" -- python3 redteam21state.py $FILES
`
	for _, r := range runners(t) {
		if r.owner != nil && r.cred == nil {
			continue // the tree is the home's owner's, or root's
		}
		t.Run(r.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, unshare, "--mount", "--propagation", "private", "sh", "-c", sh)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "OV2=" + t.TempDir(), "SRC=" + workTree(t),
				"TREE=" + tree, "FILES=" + strings.Join(beside, " "), "VIGILES=" + vigilesBin}
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
