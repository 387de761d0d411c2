package escape

import (
	"strings"
	"testing"
)

// cloudAgentFiles are the root-only files of the cloud guest agents
// and of cloud-init's configuration, by their absolute paths, that
// TestRedteam20CloudAgentsStateIsCovered adds, each with a token, with
// rootOnlyCopiesSetup (mode 0600 root).
var cloudAgentFiles = []string{
	// Azure's agent: the provisioning document (the VM's CustomData,
	// the admin's SSH keys; the agent strips the password), the
	// transport key and a certificate's private key, the goal state's
	// extensions config (the status blob's SAS URL, the protected
	// settings), an extension's settings and the script it downloaded.
	"/var/lib/waagent/ovf-env.xml", "/var/lib/waagent/TransportPrivate.pem", "/var/lib/waagent/0A1B2C3D4E5F.prv",
	"/var/lib/waagent/ExtensionsConfig.1.xml",
	"/var/lib/waagent/Microsoft.Azure.Extensions.CustomScript-2.1.10/config/0.settings",
	"/var/lib/waagent/custom-script/download/0/script.sh",
	// AWS's SSM agent: a hybrid activation's registration key, a Run
	// Command script as it ran.
	"/var/lib/amazon/ssm/Vault/Store/RegistrationKey",
	"/var/lib/amazon/ssm/i-0123456789abcdef0/document/orchestration/0f1e/awsrunShellScript/0.awsrunShellScript/_script.sh",
	// GCE's guest agent's state (its plugins' among it).
	"/var/lib/google-guest-agent/agent_state/plugins/ops-agent-plugin/state.json",
	// ECS's agent: the registry credentials of ecs.config
	// (ECS_ENGINE_AUTH_DATA), its tasks' state (their environments).
	"/etc/ecs/ecs.config", "/var/lib/ecs/data/agent.db",
	// cloud-init's datasource credentials (MAAS's OAuth keys) and the
	// Ubuntu installer's copy of its answers (the user's password hash).
	"/etc/cloud/cloud.cfg.d/90_dpkg_maas.cfg", "/etc/cloud/cloud.cfg.d/99-installer.cfg",
	// The sudoers drop-ins (/etc/sudoers is covered), the cloud images'
	// among them.
	"/etc/sudoers.d/90-cloud-init-users", "/etc/sudoers.d/google_sudoers",
	// Hyper-V's key-value pools, where hv_kvp_daemon keeps what the host
	// pushed to the VM (pool 0: an administrator's Set-VMKeyValuePair;
	// pool 3: Azure's host's name, the VM's name and id), each 0644
	// (kvpPools), which every user reads.
	"/var/lib/hyperv/.kvp_pool_0", "/var/lib/hyperv/.kvp_pool_3",
}

// kvpPools follows rootOnlyCopiesSetup in
// TestRedteam20CloudAgentsStateIsCovered: Hyper-V's pools get the mode
// hv_kvp_daemon makes them with, 0644.
const kvpPools = `chmod 0644 /var/lib/hyperv/.kvp_pool_*
`

// TestRedteam20CloudAgentsStateIsCovered: the twentieth round's first
// attempt (scripts/redteam19rootonly.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root: a runner on a
// cloud VM (GitHub's hosted runners are Azure VMs, self-hosted ones
// often EC2 or GCE instances) has the guest agents' state beside it,
// root's alone: Azure's /var/lib/waagent (ovf-env.xml with the VM's
// CustomData and the admin's SSH keys, the certificates' private
// keys, the extensions' settings and the scripts they ran), the SSM
// agent's /var/lib/amazon/ssm (a hybrid activation's registration key,
// the Run Command scripts), GCE's guest agent's state, ECS's agent's
// registry credentials and task state, cloud-init's datasource
// credentials in /etc/cloud/cloud.cfg.d and the sudoers drop-ins: the
// run read each whole; and every caller read Hyper-V's key-value pools
// (/var/lib/hyperv, world-readable: what the host pushed to the VM).
// Each is now covered with /dev/null, or its directory masked, where
// the run could read it.
func TestRedteam20CloudAgentsStateIsCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, cloudAgentFiles, kvpPools, cloudAgentFiles)
}

// newRootSetup is the start of a vigilesInMountNS set-up that needs
// files at the top of the host's tree, which the host's / never sees:
// the mount namespace's root becomes a tmpfs (at $NR) holding each
// entry of the host's / (a directory bound there whole, its mounts with
// it, a link copied), /boot and /efi become tmpfs of their own, and /etc
// and /var overlays (their upper layers on tmpfs at $OV and $OV2).
const newRootSetup = `mount -t tmpfs -o mode=0755 tmpfs "$NR"
for e in /*; do
	n=${e#/}
	if [ -L "$e" ]; then cp -P "$e" "$NR/$n"
	elif [ -d "$e" ]; then mkdir "$NR/$n"; mount --rbind "$e" "$NR/$n"
	else touch "$NR/$n"; mount --bind "$e" "$NR/$n"; fi
done
cd "$NR"
mkdir .old
pivot_root . .old
cd /
umount -l /.old
rmdir /.old
for d in /boot /efi; do
	mkdir -p "$d"
	mount -t tmpfs -o mode=0755 tmpfs "$d"
done
for d in /etc /var; do
	ov=$OV; [ "$d" = /var ] && ov=$OV2
	mount -t tmpfs -o mode=0755 tmpfs "$ov"
	mkdir "$ov/u" "$ov/w"
	mount -t overlay overlay -o "lowerdir=$d,upperdir=$ov/u,workdir=$ov/w" "$d"
done
`

// hostMemoryFiles are the root-only files of the host's memory and boot
// secrets on disk, by their absolute paths, that
// TestRedteam20HostMemoryOnDiskIsCovered adds, each with a token.
var hostMemoryFiles = []string{
	// Swap files, where the host's memory is paged out (and a
	// hibernation image written): Ubuntu's installer's, the common
	// name, btrfs's, Raspberry Pi OS's dphys-swapfile's.
	"/swapfile", "/swap.img", "/swap/swapfile", "/var/swap",
	// initramfs images (one that holds a LUKS keyfile is 0600):
	// Debian's and Ubuntu's, Red Hat's and Arch's.
	"/boot/initrd.img-6.8.0-1017-azure", "/boot/initramfs-6.8.0-1017.img",
	// LUKS keyfiles: Arch's and Calamares' at /, systemd-cryptsetup's
	// place for them.
	"/crypto_keyfile.bin", "/etc/cryptsetup-keys.d/data.key",
	// The seeds of the next boot's random numbers: systemd's, Debian's
	// older one's, systemd-boot's on the ESP (at /boot/efi or /efi).
	"/var/lib/systemd/random-seed", "/var/lib/urandom/random-seed",
	"/boot/efi/loader/random-seed", "/efi/loader/random-seed",
}

// TestRedteam20HostMemoryOnDiskIsCovered: the round's second attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run: what the host keeps of its memory and its boot secrets on disk,
// root's alone (mode 0600), was read whole by a --root-sandbox run: a
// swap file (/swapfile, /swap.img, ...: whatever the host paged out,
// a job's tokens among it, and a hibernation image), the initramfs
// images (Debian's cryptsetup makes them 0600 where they hold a LUKS
// keyfile), the LUKS keyfiles at their usual places, and the random
// seeds the next boot starts its random numbers from. Each is now
// covered with /dev/null where the run could read it. The test makes
// them in a root of its own (newRootSetup), which the host's never sees.
func TestRedteam20HostMemoryOnDiskIsCovered(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts root-only files at the top of a root of its own, in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv", "pivot_root")
	setup := newRootSetup + `for f in $FILES; do
	mkdir -p "/${f%/*}"
	echo "h112-root-only-token $f" > "$f"
	chmod 0600 "$f"
done
`
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"NR=" + t.TempDir(), "OV=" + t.TempDir(), "OV2=" + t.TempDir(), "FILES=" + strings.Join(hostMemoryFiles, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam19rootonly.py"}, hostMemoryFiles...))...)
			checkScriptRan(t, res, len(hostMemoryFiles))
		})
	}
}

// firmwareFiles are the files of the firmware's tables and variables
// and of the machine's identity that TestRedteam20FirmwareIsHidden
// adds under /sys (firmwareSetup), each with a token: mode 0400 root,
// as the kernel makes them, but an EFI variable, 0644 as efivarfs makes
// every one.
var firmwareFiles = []string{
	// ACPI's tables: MSDM holds the machine's Windows product key.
	"/sys/firmware/acpi/tables/MSDM",
	// The SMBIOS table whole, and an entry of it raw (the system's,
	// with its serial number and UUID).
	"/sys/firmware/dmi/tables/DMI", "/sys/firmware/dmi/entries/1-0/raw",
	// An EFI variable every user reads: efi-pstore's copy of a kernel
	// oops (the kernel's log, which pstore's mask and the syslog rule
	// keep from the command).
	"/sys/firmware/efi/efivars/dump-type0-1-1-1700000000-C-cfc8fc79-be2e-4ddc-97f0-9f98bfe298a0",
	// A QEMU fw_cfg entry: systemd's credentials handed to a VM
	// (opt/io.systemd.credentials/NAME), Ignition's configs.
	"/sys/firmware/qemu_fw_cfg/by_name/opt/io.systemd.credentials/deploy-token/raw",
	// The DMI identity's root-only values.
	"/sys/devices/virtual/dmi/id/product_serial", "/sys/devices/virtual/dmi/id/product_uuid",
	"/sys/devices/virtual/dmi/id/board_serial", "/sys/devices/virtual/dmi/id/chassis_serial",
}

// firmwareSetup is vigilesInMountNS's set-up for
// TestRedteam20FirmwareIsHidden: a tmpfs over /sys/firmware and one
// over /sys/devices/virtual/dmi (where there is none, /sys/devices/virtual
// becomes a tmpfs with each of its directories bound back), in the
// test's own mount namespace, holding firmwareFiles, and a world-readable
// sys_vendor, which stays.
const firmwareSetup = `mount -t tmpfs -o mode=0755 tmpfs /sys/firmware
mount -t tmpfs -o mode=0755 tmpfs "$OV"
if [ -d /sys/devices/virtual/dmi ]; then
	mount -t tmpfs -o mode=0755 tmpfs /sys/devices/virtual/dmi
else
	mkdir "$OV/v"
	mount --bind /sys/devices/virtual "$OV/v"
	mount -t tmpfs -o mode=0755 tmpfs /sys/devices/virtual
	for d in "$OV"/v/*; do
		mkdir "/sys/devices/virtual/${d##*/}"
		mount --rbind "$d" "/sys/devices/virtual/${d##*/}"
	done
	mkdir /sys/devices/virtual/dmi
fi
mkdir /sys/devices/virtual/dmi/id
echo 'Microsoft Corporation' > /sys/devices/virtual/dmi/id/sys_vendor
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h112-firmware-token $f" > "$f"
	chmod 0400 "$f"
done
chmod 0644 /sys/firmware/efi/efivars/dump-type0-*
`

// TestRedteam20FirmwareIsHidden: the round's third attempt
// (scripts/redteam20firmware.py), for every caller and a --root-sandbox
// run: the firmware's tables under /sys/firmware, root's alone (ACPI's
// MSDM with the machine's product key, the SMBIOS table with its serial
// numbers, QEMU's fw_cfg entries, where systemd's credentials are handed
// to a VM), were read by a --root-sandbox run, and so were the root-only
// DMI identity values (product_serial, product_uuid: an Azure VM's id,
// board_serial, chassis_serial); the EFI variables, which efivarfs
// makes 0644, were read by every caller: efi-pstore's copies of the
// kernel's oops logs among them. /sys/firmware/acpi/tables,
// /sys/firmware/dmi, /sys/firmware/efi and /sys/firmware/qemu_fw_cfg are
// now masked in every run, and the root-only DMI values covered with
// /dev/null where the run could read them; sys_vendor and the DMI
// values every user reads stay.
func TestRedteam20FirmwareIsHidden(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts firmware tables in place under /sys in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, firmwareSetup, []string{"OV=" + t.TempDir(), "FILES=" + strings.Join(firmwareFiles, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam20firmware.py"}, firmwareFiles...))...)
			checkScriptRan(t, res, len(firmwareFiles)+1)
		})
	}
}

// snapdFiles are snapd's root-only files, by their absolute paths,
// that TestRedteam20SnapdCredentialsAreCovered adds, each with a token,
// with rootOnlyCopiesSetup (mode 0600 root): its state, which holds the
// device's store session and a logged-in user's macaroons, and the
// device's private key, with which it asks the store for its serial.
var snapdFiles = []string{
	"/var/lib/snapd/state.json",
	"/var/lib/snapd/device/private-keys-v1/8hIC9UcHEJ3rESkb5Ei6rxr5MqPw3pG3gC5E5hK0Q6c",
}

// TestRedteam20SnapdCredentialsAreCovered: the round's fourth attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run: Ubuntu's cloud images, GitHub's hosted runners' among them, run
// snapd, whose state (state.json, mode 0600: the device's store session
// and the macaroons of a user who ran `snap login`) and device key
// (/var/lib/snapd/device, 0700) are root's alone: a --root-sandbox run
// read both. The state is now covered with /dev/null and the device's
// directory masked where the run could read them (the sandbox has no
// snapd socket, /run being masked, and no capability snap-confine
// needs, so no snap ran in it before either).
func TestRedteam20SnapdCredentialsAreCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, snapdFiles, "", snapdFiles)
}

// securityFSFiles are the root-only files of securityfs, by their
// absolute paths, that TestRedteam20SecurityFSIsMasked adds under a
// tmpfs over /sys/kernel/security (securityFSSetup), each with a token.
var securityFSFiles = []string{
	// efi_secret's: the secrets a confidential VM's owner injected
	// (a disk's key), mode 0440 root.
	"/sys/kernel/security/secrets/coco/736870e5-84f0-4973-92ec-06879ce3da0b",
	// IMA's measurement lists (0440 root): every file the host's root
	// ran or read under its policy, by path and hash; at
	// integrity/ima on newer kernels (ima a link to it), at ima before.
	"/sys/kernel/security/integrity/ima/ascii_runtime_measurements",
	"/sys/kernel/security/ima/ascii_runtime_measurements",
}

// securityFSSetup is vigilesInMountNS's set-up for
// TestRedteam20SecurityFSIsMasked: a tmpfs over /sys/kernel/security in
// the test's own mount namespace, holding securityFSFiles (mode 0440
// root), and lsm, the list of the kernel's security modules, which every
// user reads and stays.
const securityFSSetup = `mount -t tmpfs -o mode=0755 tmpfs /sys/kernel/security
echo 'lockdown,capability,landlock,yama,apparmor' > /sys/kernel/security/lsm
for f in $FILES; do
	mkdir -p "${f%/*}"
	echo "h112-firmware-token $f" > "$f"
	chmod 0440 "$f"
done
`

// TestRedteam20SecurityFSIsMasked: the round's fifth attempt
// (scripts/redteam20securityfs.py), for every caller and a
// --root-sandbox run, whose uid 0 is the host's root: securityfs, which
// systemd mounts at /sys/kernel/security, holds efi_secret's secrets (a
// confidential VM's owner's, a disk's key among them) and IMA's
// measurement lists (every file the host's root ran, by path), root's
// alone: a --root-sandbox run read each. /sys/kernel/security/secrets,
// /sys/kernel/security/integrity and /sys/kernel/security/ima are now
// masked in every run; lsm, which every user reads, stays.
func TestRedteam20SecurityFSIsMasked(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test puts securityfs's files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, securityFSSetup, []string{"FILES=" + strings.Join(securityFSFiles, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam20securityfs.py"}, securityFSFiles...))...)
			checkScriptRan(t, res, len(securityFSFiles)+1)
		})
	}
}

// nodeAgentFiles are the root-only files of a Kubernetes node's agents,
// by their absolute paths, that TestRedteam20NodeAgentsStateIsCovered
// adds, each with a token, with rootOnlyCopiesSetup (mode 0600 root).
var nodeAgentFiles = []string{
	// The kubelet's: its client key, its kubeconfig, the bootstrap
	// kubeconfig (a bootstrap token) and a pod's secret volume, where
	// every pod of the node has its secrets.
	"/var/lib/kubelet/pki/kubelet-client-current.pem", "/var/lib/kubelet/kubeconfig",
	"/var/lib/kubelet/bootstrap-kubeconfig",
	"/var/lib/kubelet/pods/0f1e2d3c-4b5a-6978-8695-a4b3c2d1e0f9/volumes/kubernetes.io~secret/db/password",
	// k3s's agent's client keys and kubeconfigs.
	"/var/lib/rancher/k3s/agent/client-kubelet.key", "/var/lib/rancher/k3s/agent/kubelet.kubeconfig",
	// An AKS node's cloud provider config: the cluster's service
	// principal's secret (aadClientSecret).
	"/etc/kubernetes/azure.json",
}

// TestRedteam20NodeAgentsStateIsCovered: the round's sixth attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root: a runner on a Kubernetes node
// (a cloud's managed node, a k3s host) has the node's agents beside it,
// root's alone: the kubelet's client key and kubeconfigs, every pod's
// secret volumes under /var/lib/kubelet/pods, k3s's agent's keys, and
// an AKS node's /etc/kubernetes/azure.json with the cluster's service
// principal's secret (round eighteen covered /etc/kubernetes/*.conf and
// its pki, round nineteen k3s's server): the run read each whole. Each
// is now covered with /dev/null, or its directory masked, where the run
// could read it.
func TestRedteam20NodeAgentsStateIsCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, nodeAgentFiles, "", nodeAgentFiles)
}

// privateStateFiles are files of systemd's DynamicUser= services' state,
// by their absolute paths, that TestRedteam20PrivateServiceStateIsMasked
// adds, each with a token, with rootOnlyCopiesSetup (mode 0600 root,
// under /var/lib/private, which systemd makes 0700 root): a runner's
// credentials where NixOS's github-runner module keeps them
// (StateDirectory=github-runner/NAME under DynamicUser=).
var privateStateFiles = []string{
	"/var/lib/private/github-runner/nixos/.credentials_rsaparams",
	"/var/lib/private/github-runner/nixos/.runner",
}

// TestRedteam20PrivateServiceStateIsMasked: the round's seventh attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run, whose uid 0 is the host's root: systemd keeps the state of a
// service with DynamicUser= in /var/lib/private (0700 root), where
// NixOS's github-runner module keeps each runner's credentials: the run
// read them whole. /var/lib/private is now masked where the run may
// enter it.
func TestRedteam20PrivateServiceStateIsMasked(t *testing.T) {
	rootOnlyFilesAreCovered(t, privateStateFiles, "chmod 0700 /var/lib/private\n", privateStateFiles)
}

// namedKeyFiles are the LUKS key files at places of the host's own
// choosing that TestRedteam20NamedKeyFilesAreCovered adds, each with a
// token, and namedKeyCrypttab the /etc/crypttab that names them (one by
// a link, current.key, which leads to vault-2.key).
var namedKeyFiles = []string{"/etc/luks/vault.key", "/var/lib/keys/data.key", "/etc/luks/vault-2.key"}

const namedKeyCrypttab = `ln -s vault-2.key /etc/luks/current.key
cat > /etc/crypttab <<'END'
# <target name> <source device> <key file> <options>
vault UUID=0f1e-22 /etc/luks/vault.key luks,discard
data  /dev/sdb1    /var/lib/keys/data.key luks
next  /dev/sdc1    /etc/luks/current.key luks
swap  /dev/sda4    /dev/urandom swap
END
chmod 0644 /etc/crypttab
`

// TestRedteam20NamedKeyFilesAreCovered: the round's last attempt
// (scripts/redteam19rootonly.py), for every caller and a --root-sandbox
// run: a LUKS key file the host keeps where its /etc/crypttab names it,
// not at one of the usual places secretFiles lists, was read whole by a
// --root-sandbox run (the round's honest limit). Each key file crypttab
// names, and each swap file /proc/swaps lists, is now covered with
// /dev/null where the run could read it (namedSecretFiles), at the path
// its links lead to. A swap file cannot be added without adding swap to
// the host, so /proc/swaps' reading is TestSwapFiles'.
func TestRedteam20NamedKeyFilesAreCovered(t *testing.T) {
	rootOnlyFilesAreCovered(t, namedKeyFiles, namedKeyCrypttab, []string{"/etc/luks/vault.key", "/var/lib/keys/data.key", "/etc/luks/current.key"})
}
