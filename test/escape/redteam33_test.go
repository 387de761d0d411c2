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
// The holes found and fixed:
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
//   - A tool cache in the caller's HOME is bound whole from the host, and
//     the run knows what HOME holds only as HOME, masked whole: a
//     variable naming one of HOME's dot-directories (RUNNER_TOOL_CACHE=
//     ~/.claude) showed Claude Code's login (.credentials.json) to the
//     hook. One that is or lies in a dot-directory of HOME is no longer
//     shown (TestRedteam33ToolCacheInAHomeDotDirIsNotShown).
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
func TestRedteam33ToolCacheInAHomeDotDirIsNotShown(t *testing.T) {
	requireBwrap(t)
	type place struct {
		r                 runner
		name, home, tools string
	}
	var places []place
	for _, r := range runners(t) {
		home := fmt.Sprintf("/home/vigiles-rt33d-%d", time.Now().UnixNano())
		places = append(places, place{r, r.name, home, filepath.Join(home, ".claude")})
	}
	if os.Geteuid() == 0 {
		// A root caller's HOME is /root, where the run's own HOME is:
		// its dot-directory (not root's own .claude, which the host may
		// have) holding the tool cache.
		places = append(places, place{runners(t)[0], "root-whose-home-is-/root", "/root", fmt.Sprintf("/root/.vigiles-rt33d-%d/_tool", time.Now().UnixNano())})
	}
	for _, pl := range places {
		t.Run(pl.name, func(t *testing.T) {
			made := pl.home
			if pl.home == "/root" {
				made = filepath.Dir(pl.tools)
			}
			t.Cleanup(func() { os.RemoveAll(made) })
			secret := filepath.Join(pl.tools, ".credentials.json")
			if err := os.MkdirAll(pl.tools, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(secret, []byte(`{"claudeAiOauth":"SECRET-rt33-claude"}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if pl.r.owner != nil && pl.home != "/root" {
				filepath.Walk(pl.home, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(pl.r.owner.Uid), int(pl.r.owner.Gid))
				})
			}
			res, _ := runVigiles(t, pl.r, redteam27Tree(t, nil), []string{"HOME=" + pl.home, "RUNNER_TOOL_CACHE=" + pl.tools}, "--", "sh", "-c", "cat "+secret+"; ls -a "+pl.tools+"; exit 0")
			if res.Tier != "confined" || res.Refusal != "" || res.Error != "" {
				t.Fatalf("tier %s, refusal %q, error %q\n%s", res.Tier, res.Refusal, res.Error, res.raw)
			}
			if strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "credentials") {
				t.Errorf("the hook read or listed the login in HOME's %s: %q", pl.tools, res.Stdout)
			}
		})
	}
}
