package escape

import (
	"strings"
	"testing"
)

// mailSpools is vigilesInMountNS's set-up for
// TestRedteam19MailSpoolsAreMasked: /var becomes an overlay (its upper
// layer on a tmpfs at $OV), which the host's /var never sees, and its
// mail directory holds the spools of nobody (mode 0660, as a mail
// delivery agent makes them) and root (0600), each with a token: what
// cron mails a user, the output of its jobs.
const mailSpools = `mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV/u,workdir=$OV/w" /var
mkdir -p /var/mail
chmod 1777 /var/mail
printf 'From cron\nSubject: backup\n\naws s3 cp --token h112-mail-token-nobody\n' > /var/mail/nobody
chown nobody /var/mail/nobody
chmod 0660 /var/mail/nobody
printf 'From cron\nSubject: renew\n\nAuthorization: Bearer h112-mail-token-root\n' > /var/mail/root
chmod 0600 /var/mail/root
`

// TestRedteam19MailSpoolsAreMasked: the nineteenth round's first attempt
// (scripts/redteam19mail.py), for every caller and a --root-sandbox
// run: a user's mail spool, /var/mail/USER, is private to that user as
// its HOME is, and holds what cron mailed it (its jobs' output: a token a
// script printed, a failed login's URL), but /var/mail was shown as the
// host has it: the sandbox's uid, the caller's (nobody), the tree
// owner's (root on a tree nobody owns) or the host's root (a
// --root-sandbox run), read its own spool whole. The run now masks
// /var/mail and /var/spool/mail as it masks /home.
func TestRedteam19MailSpoolsAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts mail spools in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, mailSpools, []string{"OV=" + t.TempDir()},
				c.withArgs([]string{"--", "python3", "redteam19mail.py"})...)
			checkScriptRan(t, res, 4)
		})
	}
}

// hostLogs is vigilesInMountNS's set-up for
// TestRedteam19HostLogsAreHidden: /var becomes an overlay (its upper
// layer on a tmpfs at $OV), which the host's /var never sees, holding a
// journal and auth logs, each with a token: the system's journal (root,
// 0640, which the groups adm and systemd-journal read), nobody's own
// journal (journald lets a user read its user-UID.journal by an ACL; here
// nobody owns it, as the test has no setfacl), and the auth logs, where
// sudo logs each command it runs with its arguments (auth.log and its
// rotation of group nogroup, 0640, standing for adm, which a hosted
// runner's user is in; Red Hat's secure, root's); a second into the run,
// the auth log is rotated as logrotate does it (renamed to auth.log.0, a
// new auth.log made), which a cover of the file's path does not follow.
const hostLogs = `mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV/u,workdir=$OV/w" /var
j=/var/log/journal/0123456789abcdef0123456789abcdef
mkdir -p "$j"
chmod 0755 /var/log/journal "$j"
echo 'LPKSHHRH sudo[1]: runner : COMMAND=/usr/bin/docker login -p h112-log-token-system' > "$j/system.journal"
chmod 0640 "$j/system.journal"
echo 'LPKSHHRH Runner.Listener[2]: job h112-log-token-user' > "$j/user-65534.journal"
chown nobody "$j/user-65534.journal"
chmod 0640 "$j/user-65534.journal"
for f in auth.log auth.log.1; do
	echo 'sudo: runner : COMMAND=/usr/bin/vault login h112-log-token-auth' > "/var/log/$f"
	chgrp "$(id -g nobody)" "/var/log/$f"
	chmod 0640 "/var/log/$f"
done
echo 'sudo: runner : COMMAND=/usr/bin/vault login h112-log-token-secure' > /var/log/secure
chmod 0600 /var/log/secure
(sleep 1; mv /var/log/auth.log /var/log/auth.log.0
	echo 'sudo: runner : COMMAND=/usr/bin/vault login h112-log-token-rotated' > /var/log/auth.log
	chgrp "$(id -g nobody)" /var/log/auth.log /var/log/auth.log.0; chmod 0640 /var/log/auth.log /var/log/auth.log.0
	sleep 120) &
bg=$!
`

// TestRedteam19HostLogsAreHidden: the round's second attempt
// (scripts/redteam19logs.py), for every caller and a --root-sandbox run:
// the journal and the auth log hold what other processes logged, sudo's
// command lines among them (a `sudo docker login -p TOKEN` of an earlier
// step), and were shown as the host has them: nobody read its own
// journal, which journald lets each user read (no group needed), and the
// auth log through its group (adm on a hosted runner, nogroup here), and
// a --root-sandbox run read all of them; a cover of the auth log's path
// alone (/dev/null over the file) did not follow its rotation, and the
// new auth.log a second into the run was read whole. The run now masks
// /var/log whole.
func TestRedteam19HostLogsAreHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts logs in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, hostLogs, []string{"OV=" + t.TempDir()},
				c.withArgs([]string{"--", "python3", "redteam19logs.py"})...)
			checkScriptRan(t, res, 6)
		})
	}
}

// rootOnlyCopies are the root-only files, by their absolute paths, that
// TestRedteam19RootOnlyCopiesAreCovered adds, each with a token.
var rootOnlyCopies = []string{
	"/var/backups/shadow.bak", "/var/backups/gshadow.bak",
	"/etc/credstore/db.password", "/etc/credstore.encrypted/api.token",
	"/var/lib/systemd/credential.secret",
}

// rootOnlyCopiesSetup is vigilesInMountNS's set-up for
// TestRedteam19RootOnlyCopiesAreCovered: /etc and /var become overlays
// (their upper layers on tmpfs at $OV and $OV2), which the host's never
// see, holding rootOnlyCopies, each mode 0600 root in a directory of
// the mode its tool makes ($FILES lists them).
const rootOnlyCopiesSetup = `for d in /etc /var; do
	ov=$OV; [ "$d" = /var ] && ov=$OV2
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h112-root-only-token $f" > "$f"
	chmod 0600 "$f"
done
for d in /etc/credstore /etc/credstore.encrypted /etc/salt/pki /var/lib/tailscale; do
	if [ -d "$d" ]; then chmod 0700 "$d"; fi
done
`

// rootOnlyFilesAreCovered runs scripts/redteam19rootonly.py on read, for
// every caller and a --root-sandbox run, in a mount namespace whose /etc
// and /var are overlays holding files (rootOnlyCopiesSetup: each mode
// 0600 root, with a token) and what the shell text more adds; each file
// it reads must show no token.
func rootOnlyFilesAreCovered(t *testing.T, files []string, more string, read []string) {
	t.Helper()
	requireBwrap(t)
	requireRoot(t, "the test puts root-only files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, rootOnlyCopiesSetup+more, []string{"OV=" + t.TempDir(), "OV2=" + t.TempDir(), "FILES=" + strings.Join(files, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam19rootonly.py"}, read...))...)
			checkScriptRan(t, res, len(read))
		})
	}
}

// TestRedteam19RootOnlyCopiesAreCovered: the round's third attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root: /etc/shadow and /etc/gshadow are
// covered, but the copies Debian's and Ubuntu's passwd package keeps of
// them each day in /var/backups (shadow.bak, gshadow.bak, mode 0600
// root) were read whole, and so were systemd's credential stores
// (/etc/credstore, /etc/credstore.encrypted: the secrets a unit's
// LoadCredential= reads, mode 0700 root) and the host key that decrypts
// the encrypted ones (/var/lib/systemd/credential.secret). Each is now
// covered with /dev/null, or its directory masked, where the run could
// read it.
func TestRedteam19RootOnlyCopiesAreCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, rootOnlyCopies, "", rootOnlyCopies)
}

// moreRootOnlySecrets are the root-only files of services, by their
// absolute paths, that TestRedteam19ServicesRootOnlySecretsAreCovered
// adds, each with a token, as rootOnlyCopies are.
var moreRootOnlySecrets = []string{
	"/etc/mysql/debian.cnf", "/etc/postfix/sasl_passwd", "/etc/postfix/sasl_passwd.db", "/etc/exim4/passwd.client",
	"/etc/netplan/50-cloud-init.yaml", "/etc/wpa_supplicant/wpa_supplicant.conf", "/etc/systemd/network/wg0.netdev",
	"/etc/ceph/ceph.client.admin.keyring", "/etc/davfs2/secrets", "/etc/ddclient.conf", "/etc/rsyncd.secrets",
	"/etc/chef/client.pem", "/etc/docker/key.json", "/etc/openvpn/client/office.key", "/etc/salt/pki/minion/minion.pem",
	"/etc/puppetlabs/puppet/ssl/private_keys/agent.pem", "/var/lib/tailscale/tailscaled.state",
	"/var/lib/cloud/instance/user-data.txt", "/var/lib/cloud/instances/i-0123/user-data.txt.i",
	"/var/lib/rancher/k3s/server/token", "/var/lib/rancher/k3s/server/tls/server-ca.key",
	"/var/cache/debconf/passwords.dat", "/var/log/btmp", "/var/log/btmp.1",
	"/etc/sssd/sssd.conf", "/etc/sssd/conf.d/ad.conf", "/etc/ldap.secret", "/etc/libnss-ldap.secret", "/etc/pam_ldap.secret",
	"/etc/nslcd.conf", "/var/lib/sss/db/cache_corp.example.test.ldb", "/var/lib/sss/secrets/secrets.ldb",
	"/var/lib/samba/private/secrets.tdb", "/etc/containerd/certs.d/registry.example.test/client.key",
}

// TestRedteam19ServicesRootOnlySecretsAreCovered: the round's fourth
// attempt (scripts/redteam19rootonly.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root: round eighteen
// covered the well-known root-only secrets of /etc it named, but not the
// passwords and keys services keep as root's alone beside them: MySQL's
// maintenance login (debian.cnf), postfix's and exim's SMTP relay
// passwords, netplan's, wpa_supplicant's and networkd's Wi-Fi passwords
// and WireGuard keys, Ceph's admin keyring, davfs2's, ddclient's and
// rsync's passwords, Chef's, Salt's and Puppet's agents' keys, the Docker
// daemon's key, OpenVPN's keys and Tailscale's node key, and the root-only
// files of /var/lib security.md named as not covered, cloud-init's copies
// of the instance's user data (a self-hosted runner's registration token
// where it is handed so) and k3s's server's token and CA keys; debconf's
// password store (what package installs asked for: a database's root
// password) and the failed logins' log (btmp, where a password typed as
// the user name is kept); a directory-joined host's SSSD config and
// caches, LDAP bind passwords and Samba's machine password: the run read
// each whole. Each is now covered with /dev/null, or its directory
// masked, where the run could read it.
func TestRedteam19ServicesRootOnlySecretsAreCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, moreRootOnlySecrets, "", moreRootOnlySecrets)
}

// kernelDebugFS is vigilesInMountNS's set-up for
// TestRedteam19KernelDebugFileSystemsAreMasked: the kernel's debugging
// file systems mounted where a host mounts them (Ubuntu's systemd mounts
// debugfs and tracefs at boot), in the test's own mount namespace, each
// where the host has not mounted it already (a second mount of tracefs
// where it is mounted is refused, "already mounted"; perf mounts it too),
// and a task of the host named h112hostjob (a copy of sleep, in $OV).
const kernelDebugFS = `mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
mountpoint -q /sys/fs/pstore || mount -t pstore none /sys/fs/pstore
mount -t tmpfs -o mode=0755 tmpfs "$OV"
cp "$(command -v sleep)" "$OV/h112hostjob"
"$OV/h112hostjob" 120 &
bg=$!
`

// TestRedteam19KernelDebugFileSystemsAreMasked: the round's fifth
// attempt (scripts/redteam19kernelfs.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root and enters the
// kernel's debugging file systems, root's alone: debugfs's scheduler
// dump (sched/debug) named every task of the host, h112hostjob among
// them, outside the pid namespace that hides them from /proc; tracefs
// (what the kernel traces) and pstore (the kernel logs of earlier boots,
// which the syslog rule keeps from the command) were entered too. They
// are now masked (an empty tmpfs over each) in every run.
func TestRedteam19KernelDebugFileSystemsAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test mounts the kernel's debugging file systems in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "sleep", "mountpoint")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, kernelDebugFS, []string{"OV=" + t.TempDir()},
				c.withArgs([]string{"--", "python3", "redteam19kernelfs.py"})...)
			checkScriptRan(t, res, 4)
		})
	}
}

// crashStores is vigilesInMountNS's set-up for
// TestRedteam19CrashStoresAreMasked: /var becomes an overlay (its upper
// layer on a tmpfs at $OV), which the host's /var never sees, holding a
// crash report of apport's and a core of systemd-coredump's for a process
// of nobody's that crashed with a token in its environment: apport's is
// nobody's own (mode 0640), systemd-coredump's root's with an ACL that
// lets nobody read it (here nobody owns it, as the test has no setfacl).
const crashStores = `mount -t tmpfs -o mode=0755 tmpfs "$OV"
mkdir "$OV/u" "$OV/w"
mount -t overlay overlay -o "lowerdir=/var,upperdir=$OV/u,workdir=$OV/w" /var
mkdir -p /var/crash /var/lib/systemd/coredump
chmod 1777 /var/crash
printf 'ProcEnviron:\n GITHUB_TOKEN=h112-crash-token-apport\nCoreDump: base64\n' > /var/crash/_usr_bin_node.65534.crash
chown nobody /var/crash/_usr_bin_node.65534.crash
chmod 0640 /var/crash/_usr_bin_node.65534.crash
c=/var/lib/systemd/coredump/core.node.65534.0123456789abcdef.4242.1700000000000000.zst
printf 'ELF core GITHUB_TOKEN=h112-crash-token-core\n' > "$c"
chown nobody "$c"
chmod 0640 "$c"
`

// TestRedteam19CrashStoresAreMasked: the round's sixth attempt
// (scripts/redteam19crash.py), for every caller and a --root-sandbox
// run: apport's crash reports (/var/crash, Ubuntu's default core
// handler: each crashed program's core dump and environment, owned by its
// user) and systemd-coredump's cores (/var/lib/systemd/coredump, each
// readable by the crashed process's user), the memory of a crashed
// process of the caller's uid (an earlier step's, with the job's token),
// were read whole by that uid (nobody, and root on a tree nobody owns)
// and by a --root-sandbox run. Both are now masked in every run.
func TestRedteam19CrashStoresAreMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts crash reports in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, crashStores, []string{"OV=" + t.TempDir()},
				c.withArgs([]string{"--", "python3", "redteam19crash.py"})...)
			checkScriptRan(t, res, 2)
		})
	}
}
