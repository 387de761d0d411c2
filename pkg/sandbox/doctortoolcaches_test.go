package sandbox

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestToolCachesProbeSaysWhatARunCovers: vigiles doctor's tool-caches
// check, on real directories, says for each variable set whether a run
// covers the tool cache it names and, where not, why and what to do:
// as root (the run's sandbox of its own uid, the tool caches handed
// id-mapped) a root-owned tool cache is covered and one holding a
// root-only KUBECONFIG the environment names is not, nor is one on a
// ramfs, which cannot be id-mapped; as nobody (a
// non-root runner) its own tool cache is covered and root's is not, as
// nobody may not write there. Nothing set is said as none named, and is
// no failure.
func TestToolCachesProbeSaysWhatARunCovers(t *testing.T) {
	if os.Getenv("VIGILES_TEST_TC_AS_NOBODY") == "1" {
		own, roots := os.Getenv("VIGILES_TEST_TC_OWN"), os.Getenv("VIGILES_TEST_TC_ROOTS")
		t.Setenv("RUNNER_TOOL_CACHE", own)
		t.Setenv("AGENT_TOOLSDIRECTORY", roots)
		p := toolCachesProbe(t.Context(), t.TempDir(), os.Getenv)
		wantProbe(t, p, Unsupported,
			[]string{"RUNNER_TOOL_CACHE=" + own + ": covered: writes recorded by absolute path",
				"AGENT_TOOLSDIRECTORY=" + roots + ": not covered: the sandbox's uid " + strconv.Itoa(os.Geteuid()) + " may not write into it",
				"so a hook's write there fails and is in no record"},
			"AGENT_TOOLSDIRECTORY: give the tool cache to the user the run's sandbox runs as")
		return
	}
	requireRoot(t, "makes tool caches in /opt, root's and nobody's, as a runner's are, and runs the check as each")
	u, err := user.Lookup("nobody")
	if err != nil {
		missing(t, fmt.Sprintf("a user nobody to run as (%v)", err))
	}
	nobody, _ := strconv.Atoi(u.Uid)
	nogroup, _ := strconv.Atoi(u.Gid)
	base := fmt.Sprintf("/opt/vigiles-test-toolcaches-%d", time.Now().UnixNano())
	t.Cleanup(func() { os.RemoveAll(base) })
	dir := func(n string) string {
		p := filepath.Join(base, n)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	roots, kube, own := dir("root/tools"), dir("root/kube-tools"), dir("nobody/tools")
	if err := os.Chown(own, nobody, nogroup); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(kube, "config")
	if err := os.WriteFile(kubeconfig, []byte("token: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := t.TempDir() // root's: the run's sandbox is a uid of its own, the tree id-mapped

	t.Setenv("RUNNER_TOOL_CACHE", "")
	t.Setenv("AGENT_TOOLSDIRECTORY", "")
	wantProbe(t, toolCachesProbe(t.Context(), tree, os.Getenv), Available,
		[]string{"none is named: neither RUNNER_TOOL_CACHE nor AGENT_TOOLSDIRECTORY is set"}, "")

	t.Setenv("RUNNER_TOOL_CACHE", roots)
	t.Setenv("AGENT_TOOLSDIRECTORY", kube)
	t.Setenv("KUBECONFIG", kubeconfig)
	wantProbe(t, toolCachesProbe(t.Context(), tree, os.Getenv), Unsupported,
		[]string{"RUNNER_TOOL_CACHE=" + roots + ": covered: writes recorded by absolute path",
			"AGENT_TOOLSDIRECTORY=" + kube + ": not covered: handed id-mapped to the root caller's sandbox of its own uid, where root's files are that uid 0's to read, it holds " + kubeconfig + ", which the run hides",
			"so a hook's write there fails and is in no record"},
		"AGENT_TOOLSDIRECTORY: move that secret out of the tool cache")

	// A ramfs cannot be id-mapped: the run leaves it as the read-only
	// root shows it (handTree's noToolCacheByte), and the check says so.
	ram := dir("root/ram-tools")
	if err := syscall.Mount("ramfs", ram, "ramfs", 0, "mode=755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(ram, syscall.MNT_DETACH) })
	t.Setenv("RUNNER_TOOL_CACHE", ram)
	t.Setenv("AGENT_TOOLSDIRECTORY", "")
	wantProbe(t, toolCachesProbe(t.Context(), tree, os.Getenv), Unsupported,
		[]string{"RUNNER_TOOL_CACHE=" + ram + ": not covered: its file system cannot be id-mapped for the root caller's sandbox of its own uid",
			"so a hook's write there fails and is in no record"},
		"RUNNER_TOOL_CACHE: keep the tool cache on a file system that can be id-mapped")

	t.Setenv("VIGILES_TEST_TC_AS_NOBODY", "1")
	t.Setenv("VIGILES_TEST_TC_OWN", own)
	t.Setenv("VIGILES_TEST_TC_ROOTS", roots)
	asNobody(t, t.Name())
}

// wantProbe fails unless p has availability a, a detail holding each of
// details and a fix holding fix ("" for none).
func wantProbe(t *testing.T, p Probe, a Availability, details []string, fix string) {
	t.Helper()
	if p.Availability != a {
		t.Errorf("availability %v, want %v: %s", p.Availability, a, p.Detail)
	}
	for _, d := range details {
		if !strings.Contains(p.Detail, d) {
			t.Errorf("detail %q\nlacks %q", p.Detail, d)
		}
	}
	if fix == "" && p.Fix != "" || !strings.Contains(p.Fix, fix) {
		t.Errorf("fix %q, want %q", p.Fix, fix)
	}
}
