package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestIDRangeMapped(t *testing.T) {
	const pad = "         0          0 "
	for _, c := range []struct {
		name, text string
		first, n   uint32
		ok         bool
		missing    uint32
	}{
		{"the init namespace's", pad + "4294967295\n", SandboxUID, SandboxUIDs, true, 0},
		// A rootless container: its root and 65536 ids.
		{"a rootless container's", pad + "     65536\n", SandboxUID, SandboxUIDs, false, SandboxUID},
		{"one line holds it", "0 0 1\n2000000000 100000 65536\n", SandboxUID, SandboxUIDs, true, 0},
		{"two lines hold it", "2000000000 0 100\n2000000100 5000 65436\n", SandboxUID, SandboxUIDs, true, 0},
		{"a gap", "2000000000 0 100\n2000000101 5000 65435\n", SandboxUID, SandboxUIDs, false, SandboxUID + 100},
		{"the end missing", "2000000000 0 65535\n", SandboxUID, SandboxUIDs, false, SandboxUID + 65535},
		{"nothing", "", SandboxUID, SandboxUIDs, false, SandboxUID},
		{"a line not a map's", "x y z\n0 0 65536\n", SandboxUID, 1, false, SandboxUID},
		{"a low range", "0 0 65536\n", 1000, 1, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			missing, ok := idRangeMapped(c.text, c.first, c.n)
			if ok != c.ok || (!ok && missing != c.missing) {
				t.Errorf("idRangeMapped = %d, %v; want %d, %v", missing, ok, c.missing, c.ok)
			}
		})
	}
}

// inRootlessUserns runs the test named in a user namespace that maps only
// 0..65535, as a rootless container does, with env added, and fails
// unless it passes there; it reports whether this is that run.
func inRootlessUserns(t *testing.T, env ...string) bool {
	t.Helper()
	if os.Getenv("VIGILES_TEST_ROOTLESS_USERNS") == "1" {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(append(os.Environ(), "VIGILES_TEST_ROOTLESS_USERNS=1"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 65536}}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("in a user namespace mapping 0..65535: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("the test did not run in the user namespace:\n%s", out)
	}
	return false
}

// A root caller whose user namespace maps only its own ids (a rootless
// container: 0..65535) has no SandboxUID: a root-owned work tree's run is
// refused naming the map and the fixes, not failed at bubblewrap's
// fork/exec with EINVAL.
func TestRootOwnedTreeWithoutSandboxUIDInUsernsIsRefused(t *testing.T) {
	requireRoot(t, "only a root caller runs a root-owned tree as SandboxUID")
	requireConfinement(t)
	if os.Getenv("VIGILES_TEST_ROOTLESS_USERNS") != "1" {
		tree := makeTree(t, map[string]string{"a.txt": "a"})
		inRootlessUserns(t, "VIGILES_TEST_TREE="+tree)
		return
	}
	res, err := Run(context.Background(), Spec{Dir: os.Getenv("VIGILES_TEST_TREE"), Mode: ModeStrict, Timeout: 30 * time.Second, Command: []string{"id"}})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused {
		t.Fatalf("tier %s, err %v, error %q; want refused", res.Tier, err, res.Error)
	}
	for _, want := range []string{"uid 2000000000 is not in this user namespace's uid map", "/proc/self/uid_map", "non-root user", "--root-sandbox"} {
		if !strings.Contains(res.Refusal, want) {
			t.Errorf("refusal %q lacks %q", res.Refusal, want)
		}
	}
}

// A credential the kernel will not give bubblewrap's child (here the
// primary gid the passwd file names for the tree's owner, which this user
// namespace does not map) refuses the run naming the uid and gid tried,
// rather than failing at fork/exec.
func TestStartingBwrapAsUnmappedGidIsRefused(t *testing.T) {
	requireRoot(t, "only a root caller runs the sandbox as the work tree's owner")
	requireConfinement(t)
	if os.Getenv("VIGILES_TEST_ROOTLESS_USERNS") != "1" {
		tree := makeTree(t, map[string]string{"a.txt": "a"})
		if err := os.Chown(tree, 1000, 1000); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Dir(tree), 0o711); err != nil { // for the owner to reach it
			t.Fatal(err)
		}
		inRootlessUserns(t, "VIGILES_TEST_TREE="+tree)
		return
	}
	fakePasswd(t, "owner:x:1000:70000::/nonexistent:/bin/sh")
	res, err := Run(context.Background(), Spec{Dir: os.Getenv("VIGILES_TEST_TREE"), Mode: ModeStrict, Timeout: 30 * time.Second, Command: []string{"id"}})
	if !errors.Is(err, ErrRefused) || res.Tier != TierRefused {
		t.Fatalf("tier %s, err %v, error %q; want refused", res.Tier, err, res.Error)
	}
	for _, want := range []string{"starting bubblewrap as uid 1000, gid 70000 (the work tree's owner)", "chown it to such a user", "/proc/self/uid_map"} {
		if !strings.Contains(res.Refusal, want) {
			t.Errorf("refusal %q lacks %q", res.Refusal, want)
		}
	}
	// A tree not root's runs as its owner whatever --root-sandbox says:
	// the refusal does not offer it.
	if strings.Contains(res.Refusal, "--root-sandbox") {
		t.Errorf("refusal %q offers --root-sandbox, which does not change the uid of a tree not root's", res.Refusal)
	}
}
