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
	// Azure's agent: the provisioning document (the VM's CustomData, the
	// admin password's hash and SSH keys), the transport key and a
	// certificate's private key, the goal state's extensions config (the
	// status blob's SAS URL, the protected settings), an extension's
	// settings and the script it downloaded.
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
// CustomData and the admin's password hash, the certificates' private
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
	requireBwrap(t)
	requireRoot(t, "the test puts root-only files in place in a mount namespace of its own")
	requireTools(t, "python3", "unshare", "setpriv")
	for _, c := range callers(t) {
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, rootOnlyCopiesSetup+kvpPools, []string{"OV=" + t.TempDir(), "OV2=" + t.TempDir(), "FILES=" + strings.Join(cloudAgentFiles, " ")},
				c.withArgs(append([]string{"--", "python3", "redteam19rootonly.py"}, cloudAgentFiles...))...)
			checkScriptRan(t, res, len(cloudAgentFiles))
		})
	}
}
