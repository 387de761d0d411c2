package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// Fixed paths inside the sandbox.
const (
	runDir      = "/run/overlay"      // bwrap tmpfs; hidden from the command by the reaper (a name that is no vigiles')
	lowerDir    = runDir + "/lower"   // the host work tree, read-only: the overlay's lower
	scratchDir  = runDir + "/scratch" // size-bounded tmpfs mounted by the init
	sandboxHome = "/root"             // the command's throwaway HOME: uid 0's, which the command is
	sandboxTmp  = "/tmp"              // the command's throwaway TMPDIR
	sandboxShm  = "/dev/shm"          // POSIX shared memory, recorded like TMPDIR
	// The host's /var/tmp, which every user may write and which a reboot
	// keeps: a throwaway directory recorded as "/var/tmp/…", where a
	// write under Claude Code stays on the host.
	sandboxVarTmp = "/var/tmp"
)

// Fds the broker hands the init (bwrap passes inherited fds through).
const (
	fdConfig  = 3  // init reads its JSON config
	fdResult  = 4  // init writes its JSON result
	fdControl = 5  // a socket: for a sandbox of another uid the init sends its namespaces, the broker the id-mapped tree; then "go" once the network is attached
	fdInfo    = 6  // bwrap writes its info JSON (child pid)
	fdReady   = 7  // init writes "r" once running (bwrap's own setup is over), "d" once the command is done; its read end closed, the init ends (dieWithBroker)
	fdExe     = 8  // the in-sandbox binary, which bwrap execs as /proc/self/fd/8
	fdReaper  = 9  // vigiles-reaper, which the init execs as /proc/self/fd/9 (initConfig.ReaperByFD); else closed
	fdCgroup  = 10 // the command's pids cgroup's tasks (v1) or cgroup.procs (v2), for the reaper (initConfig.PidsByCgroup); else closed
	fdData    = 11 // the first of plan.DataFiles' contents, one fd each, which bwrap reads and closes
)

// initBinary is the path bwrap execs the init by: the binary the broker
// opened, reached through its descriptor rather than its path, which a
// sandbox run as another uid (the work tree's owner, SandboxUID) may not be
// allowed to walk (a test binary's 0700 build directory, /root).
var initBinary = "/proc/self/fd/" + strconv.Itoa(fdExe)

// maskedDirs are replaced by empty tmpfs in every confined run: they hold
// the caller's secrets, credentials and sockets (the callers' HOMEs with
// ~/.ssh, ~/.aws, ~/.config/gh, ~/.netrc, ~/.npmrc, ~/.docker, ~/.kube,
// ~/.gnupg; /root; /var/tmp; /var/run where it is a directory; mounted
// media; a GitHub container job's /__w, whose _temp holds the rendered step
// scripts and file commands, and /github, its HOME; the mail spools,
// /var/mail and /var/spool/mail, each user's private as its HOME is,
// with what cron mailed it of its jobs' output; the host's logs,
// /var/log: what every process logged, sudo's command lines with their
// arguments among it (auth.log, secure), which the group adm reads (a
// hosted runner's user is in it), the journal, whose user-UID.journal
// journald lets that user read, failed logins (btmp); masked whole, as
// logrotate makes new files there that a cover of a file's path would
// not hide; the kernel's debugging file systems, where the host mounts them,
// root's alone: debugfs, whose scheduler dump names every task of the
// host, tracefs and pstore, the kernel logs of earlier boots; the crash
// stores, apport's /var/crash and systemd-coredump's cores, where the
// memory and environment of a crashed process of the caller's uid is
// that uid's to read; the firmware's tables and variables under
// /sys/firmware, which no hook needs: ACPI's (MSDM holds the machine's
// Windows product key), the SMBIOS table whole (every serial number of
// the machine), the EFI variables, which efivarfs lets every user read
// (efi-pstore's copies of the kernel's oops logs among them), QEMU's
// fw_cfg entries (systemd's credentials handed to a VM, Ignition's
// configs); /sys/firmware/devicetree, whose model a hook may read,
// stays; securityfs's root-only stores: efi_secret's secrets of a
// confidential VM, IMA's measurement lists, every file the host's root
// ran by path (at integrity/ima, or ima on older kernels); its lsm, which
// every user reads, stays). /tmp and /run (with
// /run/secrets, docker.sock) are always replaced too, and so are the
// caller's own HOME and runner directories wherever they are
// (callerSecrets).
var maskedDirs = []string{"/home", "/root", "/var/tmp", "/var/run", "/mnt", "/media", "/srv", "/__w", "/github", "/var/mail", "/var/spool/mail", "/var/log",
	"/sys/kernel/debug", "/sys/kernel/tracing", "/sys/fs/pstore", "/var/crash", "/var/lib/systemd/coredump",
	"/sys/firmware/acpi/tables", "/sys/firmware/dmi", "/sys/firmware/efi", "/sys/firmware/qemu_fw_cfg",
	"/sys/kernel/security/secrets", "/sys/kernel/security/integrity", "/sys/kernel/security/ima"}

// maskedDirsAt are the directories a run masks for maskedDirs (lookup and
// resolve as plan's Lookup and Resolve): each that is a directory, and
// each that is a link at the directory it leads to on the host (ostree's
// /home -> var/home, /root -> var/roothome, /mnt -> var/mnt, /srv ->
// var/srv, where every user's home was shown at /var/home), each once;
// not where that is / or a system directory (maskableLinkTarget), /var
// itself, or a path in /tmp or /run (/var/run -> ../run, /media ->
// run/media), which every run masks whole. A link costs a resolution
// and an lstat of where it leads, a directory nothing beside its lstat.
func maskedDirsAt(lookup func(string) (string, string), resolve func(string) (string, error)) []string {
	out := make([]string, 0, len(maskedDirs))
	for _, d := range maskedDirs {
		switch kind, _ := lookup(d); kind {
		case "dir":
		case "link":
			r := maskableLinkTarget(d, resolve)
			if r == "" || r == "/var" || fsx.Under(r, "/tmp") || fsx.Under(r, "/run") {
				continue
			}
			if kind, _ := lookup(r); kind != "dir" {
				continue
			}
			d = r
		default:
			continue
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// strictFSDirs are the system directories a --strict-fs run sees (besides
// the work tree, /dev, /proc and the throwaway HOME and TMPDIR).
var strictFSDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"}

// hostEnv is the part of the caller's environment every confined command
// sees (the allowlist); LC_* are added by prefix. SHELL and SHLVL pass as
// Claude Code hands its hooks the environment it was started with: a hook
// that finds neither, where the caller's shell set both, could tell it
// runs under vigiles; each passes only with a value of its shape
// (shapeOK).
var hostEnv = []string{"PATH", "LANG", "TERM", "SHELL", "SHLVL"}

// ownUserEnv are the variables that name the caller's user: the command
// is uid 0, root, so each holds "root", and only where the caller's
// environment has it, as a hook under Claude Code has it where Claude
// Code's has (a container started as root has neither; a login has both).
var ownUserEnv = []string{"USER", "LOGNAME"}

// plan is everything the bwrap argv depends on. It is built by the broker
// and turned into arguments by bwrapArgs, a pure function.
type plan struct {
	Bwrap   string
	Workdir string // absolute, symlinks resolved
	// Hostname is the sandbox's host name: the host's own, so that a
	// command cannot tell a sandbox by a name of vigiles' ("localhost"
	// where it is empty or not a host name).
	Hostname string
	StrictFS bool
	// TreeByFD leaves the overlay's lower dir empty: the init mounts the
	// id-mapped work tree the broker hands it there (see handTree).
	TreeByFD bool
	// Lookup says what a path of maskedDirs/strictFSDirs is on the host:
	// "dir", "link" (with its target) or "" when missing (bwrap fails on a
	// missing source). nil means every one is a directory.
	Lookup func(string) (kind, target string)
	// Resolve is the path a maskedDirs entry that is a link leads to on
	// the host, its links resolved (maskedDirsAt); nil means
	// filepath.EvalSymlinks.
	Resolve  func(string) (string, error)
	InitArgs []string
	// MaskDirs are host directories replaced by an empty tmpfs besides
	// maskedDirs: the caller's HOME and a CI runner's own (callerSecrets).
	MaskDirs []string
	// MaskFiles are host files covered with /dev/null, which the command
	// cannot open (bubblewrap's binds are nodev): secrets that
	// uid 0 could read (/etc/shadow, SSH host keys), a runner's
	// credentials.
	MaskFiles []string
	// DataFiles are host files bubblewrap covers with a read-only copy of
	// other content, read from fdData+i for DataFiles[i]: git configs
	// with credentials outside the work tree, scrubbed (outsideGitConfigs).
	DataFiles []string
	// ToolCaches are the runner's tool caches the init covers with an
	// overlay (chooseToolCaches): bubblewrap binds each, read-only, at
	// toolCacheLower(i), from the host's view, which shows one in the
	// caller's HOME that the masks hide from the init's; with TreeByFD it
	// makes the directory there, and the broker hands each id-mapped.
	ToolCaches []string
	// Env is NAME=VALUE set for the init and the reaper besides PATH and
	// GOMAXPROCS (the command gets its own environment).
	Env []string
}

// toolCacheLower is where plan.ToolCaches[i] is bound: the overlay's
// lower layer over it.
func toolCacheLower(i int) string { return runDir + "/toolcache" + strconv.Itoa(i) }

// secretFiles are covered with /dev/null wherever they exist; globs
// are expanded by the broker.
var secretFiles = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
	"/etc/sudoers", "/etc/security/opasswd", "/etc/ssh/ssh_host_*_key", "/etc/ssl/private/*",
	// The host's Kerberos keys, apt's repositories' passwords, IPsec's
	// and PPP's secrets, a cluster's kubeconfigs (each with a client
	// key: admin.conf is the cluster's administrator), k3s's.
	"/etc/krb5.keytab", "/etc/apt/auth.conf", "/etc/ipsec.secrets", "/etc/ppp/chap-secrets", "/etc/ppp/pap-secrets",
	"/etc/kubernetes/*.conf", "/etc/rancher/k3s/k3s.yaml",
	// Other CI agents' registration tokens (GitLab's runner, Buildkite's
	// agent), and the client keys Docker and Podman present to a
	// registry.
	"/etc/gitlab-runner/config.toml", "/etc/buildkite-agent/buildkite-agent.cfg",
	"/etc/docker/certs.d/*/*.key", "/etc/containers/certs.d/*/*.key",
	// The copies of shadow and gshadow Debian's and Ubuntu's passwd
	// package keeps each day, and the host key that decrypts systemd's
	// encrypted credentials.
	"/var/backups/shadow.bak", "/var/backups/gshadow.bak", "/var/lib/systemd/credential.secret",
	// Services' passwords and keys, each root's (or its service group's)
	// alone: MySQL's and MariaDB's maintenance login, the SMTP relay's
	// of postfix and exim, netplan's, wpa_supplicant's and networkd's
	// Wi-Fi passwords and WireGuard keys, Ceph's keyrings, davfs2's and
	// ddclient's passwords, rsync's daemon's, Chef's client key, the
	// Docker daemon's own key, containerd's registry client keys.
	"/etc/mysql/debian.cnf", "/etc/postfix/sasl_passwd", "/etc/postfix/sasl_passwd.db", "/etc/postfix/sasl_passwd.lmdb",
	"/etc/exim4/passwd.client", "/etc/netplan/*.yaml", "/etc/wpa_supplicant/*.conf", "/etc/systemd/network/*.netdev",
	"/etc/ceph/*.keyring", "/etc/davfs2/secrets", "/etc/ddclient.conf", "/etc/rsyncd.secrets", "/etc/chef/client.pem",
	"/etc/docker/key.json", "/etc/containerd/certs.d/*/*.key",
	// debconf's store of the passwords package installs asked for (a
	// database's root password, slapd's).
	"/var/cache/debconf/passwords.dat",
	// A directory-joined host's: SSSD's config (its LDAP bind password),
	// the LDAP bind passwords of libnss-ldap, pam_ldap and nslcd.
	"/etc/sssd/sssd.conf", "/etc/sssd/conf.d/*.conf", "/etc/ldap.secret", "/etc/libnss-ldap.secret",
	"/etc/pam_ldap.secret", "/etc/nslcd.conf",
	// ECS's agent's config (ECS_ENGINE_AUTH_DATA: registries'
	// passwords).
	"/etc/ecs/ecs.config",
	// The host's memory and boot secrets on disk: swap files (what the
	// host paged out, a hibernation image) at the places installers
	// and guides put them, initramfs images (0600 where they hold a LUKS
	// keyfile; Debian's initrd.img-*, SUSE's initrd-*, Red Hat's and
	// Arch's initramfs-*.img: one glob, one read of /boot), the LUKS
	// keyfile of Arch's and Calamares' guides, and the seeds the next
	// boot's random numbers start from (systemd's, Debian's older one,
	// systemd-boot's on the ESP).
	"/swapfile", "/swap.img", "/swap/swapfile", "/var/swap",
	"/boot/initr*", "/crypto_keyfile.bin",
	"/var/lib/systemd/random-seed", "/var/lib/urandom/random-seed",
	"/boot/efi/loader/random-seed", "/efi/loader/random-seed", "/boot/loader/random-seed",
	// The DMI identity's root-only values (an Azure VM's id is its
	// product_uuid); those every user reads stay (a cloud's SDK tells
	// its cloud by sys_vendor or product_name).
	"/sys/devices/virtual/dmi/id/product_serial", "/sys/devices/virtual/dmi/id/product_uuid",
	"/sys/devices/virtual/dmi/id/board_serial", "/sys/devices/virtual/dmi/id/chassis_serial",
	// snapd's state: the device's store session, the macaroons of a
	// user who ran snap login.
	"/var/lib/snapd/state.json",
	// An AKS node's cloud provider config: the cluster's service
	// principal's secret.
	"/etc/kubernetes/azure.json",
	// libvirt's domains' definitions, root's: a VM's console password.
	"/etc/libvirt/qemu/*.xml",
	// The scheduled jobs, root's: root's crontab and Red Hat's users'
	// (root's files), the at jobs of Debian and of Red Hat, each with
	// the whole environment of the one who made it.
	"/var/spool/cron/crontabs/*", "/var/spool/cron/*", "/var/spool/cron/atjobs/*", "/var/spool/at/*"}

// secretDirs hold secret files only, or the state of other tenants of
// the machine that no hook needs (their containers, agents, machines),
// and are masked whole (an empty tmpfs) where the run may enter them:
// their files may not be listable by the one who could open them
// (secretFiles' glob). A tree inside one is shown at its path in the
// mask, as one in a masked HOME is. Besides TLS keys
// (Debian's and Red Hat's places, certbot's): apt's passwords, WireGuard's
// and NetworkManager's connections (private keys, Wi-Fi and VPN
// passwords), a cluster's keys.
var secretDirs = []string{"/etc/ssl/private", "/etc/pki/tls/private", "/etc/letsencrypt/archive", "/etc/letsencrypt/keys",
	"/etc/apt/auth.conf.d", "/etc/wireguard", "/etc/NetworkManager/system-connections", "/etc/kubernetes/pki",
	// systemd's credential stores, which a unit's LoadCredential= reads;
	// OpenVPN's keys and configs, Salt's and Puppet's agents' keys,
	// Tailscale's node key; cloud-init's copies of the instance's
	// user data (where a self-hosted runner's registration token, or a
	// machine's passwords, are handed to it) and k3s's server's token,
	// credentials and CA keys.
	"/etc/credstore", "/etc/credstore.encrypted", "/etc/openvpn", "/etc/salt/pki",
	"/etc/puppetlabs/puppet/ssl/private_keys", "/var/lib/tailscale", "/var/lib/cloud", "/var/lib/rancher/k3s/server",
	// SSSD's caches (the directory's users' password hashes) and
	// secrets, Samba's private store (a domain member's machine
	// password).
	"/var/lib/sss/db", "/var/lib/sss/secrets", "/var/lib/samba/private",
	// The cloud guest agents' state: Azure's (ovf-env.xml with the VM's
	// CustomData and the admin's SSH keys, the certificates' private
	// keys, the extensions' protected settings and the scripts they
	// ran), AWS's SSM agent's (a hybrid activation's registration
	// key, Run Command's scripts), GCE's, ECS's agent's (its tasks'
	// environments); Hyper-V's key-value pools, which hv_kvp_daemon
	// makes 0644: what the host pushed to the VM (an administrator's
	// values, Azure's host's name and the VM's id), which every user
	// reads; cloud-init's drop-ins, where a datasource's credentials
	// are written (MAAS's OAuth keys) and Ubuntu's installer leaves the
	// user's password hash; the sudoers drop-ins (/etc/sudoers is
	// covered).
	"/var/lib/waagent", "/var/lib/amazon/ssm", "/var/lib/google-guest-agent", "/var/lib/ecs/data", "/var/lib/hyperv",
	"/etc/cloud/cloud.cfg.d", "/etc/sudoers.d",
	// systemd-cryptsetup's LUKS keyfiles.
	"/etc/cryptsetup-keys.d",
	// snapd's device key, with which it asks the store for its serial.
	"/var/lib/snapd/device",
	// A Kubernetes node's agents': the kubelet's client key and
	// kubeconfigs, every pod's secret volumes (under pods/), k3s's
	// agent's keys and kubeconfigs.
	"/var/lib/kubelet", "/var/lib/rancher/k3s/agent",
	// systemd's state of services with DynamicUser= (0700 root):
	// NixOS's github-runner module keeps each runner's credentials there.
	"/var/lib/private",
	// The container engines' state, root's (Docker's older mode, 0711,
	// lets every user in, and into a volume's data by its name): each
	// container's config with its environment whole, its log, its
	// layers, its volumes; containerd's and rootful Podman's the same.
	"/var/lib/docker", "/var/lib/containerd", "/var/lib/containers",
	// Other CI agents' homes beside the runner, outside /home, which
	// their umask leaves to every user: Jenkins' (its credentials and
	// the keys that decrypt them, every job's workspace and build log),
	// Buildkite's agent's (every pipeline's checkout, its SSH key); and
	// BuildKit's daemon's state, every build's context.
	"/var/lib/jenkins", "/var/lib/buildkite-agent", "/var/lib/buildkit",
	// The system containers' and VMs' state, root's: LXC's containers
	// (configs, root file systems; their names, which /var/lib/lxc,
	// 0755, lists to every user), the LXD snap's (its server's key, its
	// containers), nspawn's machines, libvirt's disk images and its
	// secrets' values (a disk's passphrase, a Ceph key).
	"/var/lib/lxc", "/var/snap/lxd/common/lxd", "/var/lib/machines", "/var/lib/libvirt", "/etc/libvirt/secrets",
	// A cluster's stores on its control plane's node: etcd's data
	// (every Secret, unencrypted by default), MicroK8s' whole (the
	// admin's kubeconfig and tokens, of the group a runner's user joins
	// to run kubectl; the CA's key; its dqlite store).
	"/var/lib/etcd", "/var/snap/microk8s"}

// bwrapArgs builds the bubblewrap argv for a plan. The namespaces are
// listed one by one (not --unshare-all) so that a missing one is an error,
// never a silent downgrade. The init keeps every capability, inside the
// sandbox's own user namespace only: overlayfs records its mounter's
// credentials and uses them for every copy-up (CAP_DAC_OVERRIDE, CAP_CHOWN,
// CAP_FOWNER, CAP_MKNOD for whiteouts), the egress wall needs
// CAP_NET_ADMIN and the DNS stub CAP_NET_BIND_SERVICE. The reaper drops
// every one of them (bounding set included) before the command starts.
func bwrapArgs(p plan) []string {
	lookup := p.Lookup
	if lookup == nil {
		lookup = func(string) (string, string) { return "dir", "" }
	}
	a := []string{p.Bwrap,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup",
		"--uid", "0", "--gid", "0",
		"--hostname", hostnameOr(p.Hostname),
		"--die-with-parent", "--new-session",
	}
	a = append(a, initCaps...)
	a = append(a, "--clearenv")
	if p.StrictFS {
		for _, d := range strictFSDirs {
			switch kind, target := lookup(d); kind {
			case "dir":
				a = append(a, "--ro-bind", d, d)
			case "link": // merged /usr: /bin -> usr/bin, /lib64 -> usr/lib64
				a = append(a, "--symlink", target, d)
			}
		}
	} else {
		a = append(a, "--ro-bind", "/", "/")
		resolve := p.Resolve
		if resolve == nil {
			resolve = filepath.EvalSymlinks
		}
		for _, d := range maskedDirsAt(lookup, resolve) {
			a = append(a, "--tmpfs", d)
		}
	}
	for _, d := range p.MaskDirs {
		a = append(a, "--tmpfs", d)
	}
	for _, f := range p.MaskFiles {
		a = append(a, "--ro-bind", "/dev/null", f)
	}
	for i, f := range p.DataFiles {
		a = append(a, "--perms", "0444", "--ro-bind-data", strconv.Itoa(fdData+i), f)
	}
	a = append(a,
		"--dev", "/dev",
		"--proc", "/proc",
		"--tmpfs", "/tmp",
		"--tmpfs", "/run",
		"--dir", sandboxHome,
	)
	if p.TreeByFD {
		a = append(a, "--dir", lowerDir)
	} else {
		a = append(a, "--ro-bind", p.Workdir, lowerDir)
	}
	for i, tc := range p.ToolCaches {
		if p.TreeByFD {
			a = append(a, "--dir", toolCacheLower(i)) // handed id-mapped, as the tree is
		} else {
			a = append(a, "--ro-bind", tc, toolCacheLower(i))
		}
	}
	a = append(a, "--dir", scratchDir)
	// The work tree's own mount point: the init mounts the overlay there.
	// --dir creates it (and its parents) inside the tmpfs dirs above when
	// the work tree lives under a masked directory.
	a = append(a, "--dir", p.Workdir)
	a = append(a, "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	// The init and the reaper mostly wait; one P spares each Go start
	// about a millisecond of CPU (per-P caches, threads). The command gets
	// its own environment, not this one.
	a = append(a, "--setenv", "GOMAXPROCS", "1")
	for _, kv := range p.Env {
		k, v, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", k, v)
	}
	a = append(a, "--info-fd", strconv.Itoa(fdInfo))
	a = append(a, "--chdir", "/")
	a = append(a, initBinary)
	a = append(a, p.InitArgs...)
	return a
}

// hookEnv builds the command's environment: the allowlist taken from the
// caller, the fixed HOME/TMPDIR, USER and LOGNAME where the caller has
// them (ownUserEnv), then extra NAME=VALUE pairs (later ones win). It is
// sorted for determinism.
func hookEnv(getenv func(string) (string, bool), environ []string, extra []string) []string {
	m := map[string]string{
		"HOME":   sandboxHome,
		"TMPDIR": sandboxTmp,
		"PATH":   "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	}
	for _, k := range ownUserEnv {
		if _, ok := getenv(k); ok {
			m[k] = "root"
		}
	}
	for _, k := range hostEnv {
		if v, ok := getenv(k); ok && shapeOK(k, v) {
			m[k] = v
		}
	}
	for _, kv := range environ {
		if len(kv) > 3 && kv[:3] == "LC_" {
			if k, v, ok := cut(kv); ok && localeCategories[k] && isLocaleName(v) {
				m[k] = v
			}
		}
	}
	for _, kv := range extra {
		if k, v, ok := cut(kv); ok {
			m[k] = v
		}
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// shapeOK says whether the caller's value of hostEnv's k may pass: LANG
// only with a locale's name, TERM only with the name of a terminfo entry
// the host has, SHELL only with a login shell the host's /etc/shells
// lists, SHLVL only as a number (a value a CI system or a user put a token
// in does not pass), PATH as it is.
func shapeOK(k, v string) bool {
	switch k {
	case "LANG":
		return isLocaleName(v)
	case "TERM":
		return isTerminal(v)
	case "SHELL":
		return isLoginShell(v)
	case "SHLVL":
		return isShellLevel(v)
	}
	return true
}

// shellsFile lists the host's login shells; the sandbox sees the host's.
var shellsFile = "/etc/shells"

// isLoginShell says whether v is an absolute path /etc/shells lists on a
// line of its own ("/bin/bash", "/usr/bin/zsh"): the shells' own list,
// which holds no secret, where a token or a command put in SHELL is not.
func isLoginShell(v string) bool {
	if len(v) < 2 || v[0] != '/' || len(v) > 256 {
		return false
	}
	b, err := os.ReadFile(shellsFile)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == v {
			return true
		}
	}
	return false
}

// isShellLevel says whether v is a shell's nesting level: a decimal
// number of at most four digits ("1", "2"), as the shells set it.
func isShellLevel(v string) bool {
	if v == "" || len(v) > 4 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return false
		}
	}
	return true
}

// terminfoDirs are where ncurses looks for terminfo entries (each in a
// directory named by its first letter); the sandbox sees the host's.
var terminfoDirs = []string{"/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo", "/usr/lib/terminfo"}

// isTerminal says whether v names a terminfo entry: "xterm-256color",
// "screen.xterm-256color", "dumb" (letters, digits and . _ + -, at most
// 64, and a file of that name in terminfoDirs).
func isTerminal(v string) bool {
	if !termName().MatchString(v) {
		return false
	}
	for _, d := range terminfoDirs {
		if fi, err := os.Stat(filepath.Join(d, v[:1], v)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

var termName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$`)
})

// localeCategories are the LC_ variables the C library reads: only these
// pass, and only with a value a locale can have (isLocaleName). Any LC_*
// used to pass whose name did not look secret, and ssh's AcceptEnv LC_*
// makes the prefix a known way to carry other values.
var localeCategories = map[string]bool{
	"LC_ALL": true, "LC_CTYPE": true, "LC_COLLATE": true, "LC_MESSAGES": true, "LC_MONETARY": true,
	"LC_NUMERIC": true, "LC_TIME": true, "LC_ADDRESS": true, "LC_IDENTIFICATION": true,
	"LC_MEASUREMENT": true, "LC_NAME": true, "LC_PAPER": true, "LC_TELEPHONE": true,
}

// isLocaleName says whether v has a locale name's shape,
// language[_territory][.codeset][@modifier] ("C", "POSIX", "C.UTF-8",
// "en_US.UTF-8", "de_DE@euro"), or is empty: a key or a token does not.
func isLocaleName(v string) bool {
	return v == "" || localeName().MatchString(v)
}

var localeName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z]{1,8}(_[A-Za-z]{2,3})?(\.[A-Za-z0-9-]{1,12})?(@[A-Za-z]{1,12})?$`)
})

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], i > 0
		}
	}
	return "", "", false
}

// Home is the command's HOME inside the sandbox (a throwaway directory,
// recorded as "~/").
const Home = sandboxHome

// Throwaway are the command's directories inside the sandbox that each
// run starts empty and that hold nothing of the host's: its HOME, its
// TMPDIR and /dev/shm (/var/tmp starts empty too, but hides the host's:
// what a hook finds missing there is hidden, as under the other masks).
func Throwaway() []string { return []string{sandboxHome, sandboxTmp, sandboxShm} }

// Hidden are the host's directories a confined command never sees
// (maskedDirs, and where those that are links lead: maskedDirsAt, /var/home
// where /home -> var/home): an empty directory stands in their place. The
// caller's own HOME and runner directories, wherever they are, are hidden
// too. Each call looks the links up anew (an lstat per maskedDirs entry).
func Hidden() []string {
	return slices.Concat(maskedDirs, slices.DeleteFunc(maskedDirsAt(lookupHostPath, filepath.EvalSymlinks),
		func(d string) bool { return slices.Contains(maskedDirs, d) }))
}

// hostnameOr is h where it is a host name (letters, digits, '-', '_'
// and '.', at most 64 bytes), else "localhost".
func hostnameOr(h string) string {
	if h == "" || len(h) > 64 {
		return "localhost"
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return "localhost"
		}
	}
	return h
}
