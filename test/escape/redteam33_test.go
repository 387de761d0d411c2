package escape

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Round thirty-three: the runner's tool cache as the sandbox shows it
// since it is bound from the host's view, shown in the caller's HOME and
// handed id-mapped to a root caller's sandbox of its own uid, attacked.
//
// The hole found and fixed:
//
//   - A root caller's tool cache handed id-mapped to a sandbox of its own
//     uid (a root-owned tree without --root-sandbox) made root's files
//     there the sandbox's uid 0's to read, and the masks are decided by
//     what that uid may read: a root-only credential file the caller's
//     environment names there (KUBECONFIG, mode 0600) and a root-only
//     directory it names there (XDG_CONFIG_HOME, 0700) were left
//     unmasked, and the hook read both. Such a tool cache now stays as
//     the read-only root shows it, another beside it is still handed
//     (TestRedteam33IDMappedToolCacheHidesWhatTheRunHides).
func TestRedteam33IDMappedToolCacheHidesWhatTheRunHides(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a sandbox of a uid of its own, to which root's tool cache is handed id-mapped, is a root caller's")
	stamp := time.Now().UnixNano()
	tools, clean := fmt.Sprintf("/opt/vigiles-rt33s-%d", stamp), fmt.Sprintf("/opt/vigiles-rt33c-%d", stamp)
	t.Cleanup(func() { os.RemoveAll(tools); os.RemoveAll(clean) })
	kube, config := filepath.Join(tools, "kube", "config"), filepath.Join(tools, "config")
	for _, d := range []string{filepath.Dir(kube), filepath.Join(config, "gh"), clean} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(config, 0o700); err != nil {
		t.Fatal(err)
	}
	for p, text := range map[string]string{kube: "client-key-data: SECRET-rt33-kube\n", filepath.Join(config, "gh", "hosts.yml"): "oauth_token: SECRET-rt33-gh\n"} {
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// root's tree: the sandbox runs as a uid of its own (SandboxUID).
	r := runners(t)[0]
	env := []string{"RUNNER_TOOL_CACHE=" + tools, "AGENT_TOOLSDIRECTORY=" + clean, "KUBECONFIG=" + kube, "XDG_CONFIG_HOME=" + config}
	hook := "cat " + kube + " " + config + "/gh/hosts.yml; echo x > " + clean + "/node; exit 0"
	res, _ := runVigiles(t, r, redteam27Tree(t, nil), env, "--", "sh", "-c", hook)
	if res.Tier != "confined" || res.Refusal != "" || res.Error != "" {
		t.Fatalf("tier %s, refusal %q, error %q\n%s", res.Tier, res.Refusal, res.Error, res.raw)
	}
	if strings.Contains(res.Stdout, "SECRET") {
		t.Errorf("the hook read a secret the run hides through the tool cache: %q", res.Stdout)
	}
	if got, want := res.writeLines(), []string{"create " + clean + "/node"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q: the tool cache without a secret still handed and recorded\n%s", got, want, res.raw)
	}
	if _, err := os.Lstat(filepath.Join(clean, "node")); err == nil {
		t.Errorf("%s/node appeared on the host", clean)
	}
}
