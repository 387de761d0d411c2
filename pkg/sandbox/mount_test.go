package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMountTargetsDoNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	// A repository (or an earlier run) plants a link where a mount goes.
	if err := os.Symlink("/etc", filepath.Join(dir, "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "via")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "planted"), filepath.Join(dir, "via", "x"), filepath.Join(dir, "via")} {
		if fd, err := openMountTarget(p); err == nil {
			unix.Close(fd)
			t.Errorf("openMountTarget(%s) followed a symlink", p)
		} else if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOENT) {
			t.Errorf("openMountTarget(%s): %v", p, err)
		}
	}
	fd, err := openMountTarget(real)
	if err != nil {
		t.Fatalf("openMountTarget(real dir): %v", err)
	}
	unix.Close(fd)
}

func TestSweepCgroupsRemovesOnlyDeadBrokers(t *testing.T) {
	parent := t.TempDir()
	dead := filepath.Join(parent, "vigiles-999999999-1")
	alive := filepath.Join(parent, fmt.Sprintf("vigiles-%d-1", os.Getppid()))
	other := filepath.Join(parent, "someone-else")
	for _, d := range []string{dead, alive, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sweepCgroups(parent)
	if _, err := os.Stat(dead); err == nil {
		t.Error("a dead broker's cgroup was left")
	}
	for _, d := range []string{alive, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}

// TestCgroupFilesOptional: a control file the kernel lacks (memsw without
// swap accounting, for one) is skipped when optional and an error when
// not, on a real cgroup file system, which refuses creates with EACCES.
func TestCgroupFilesOptional(t *testing.T) {
	requireRoot(t, "making a cgroup needs root")
	dir, _, err := makeCgroup(v1MemoryRoot, fmt.Sprintf("vigiles-%d-test", os.Getpid()), nil)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no memory cgroup: %v", err)
		}
		t.Skipf("no cgroup v1 memory hierarchy here: %v", err)
	}
	defer os.Remove(dir)
	skipped, err := writeCgroupFiles(dir, []cgroupFile{{name: "memory.limit_in_bytes", value: "1073741824"}, {name: "memory.no-such-file", value: "1", optional: true}})
	if err != nil || len(skipped) != 1 || skipped[0] != "memory.no-such-file" {
		t.Errorf("an optional file the kernel lacks: skipped %v, err %v; want it skipped, and named", skipped, err)
	}
	if _, err := writeCgroupFiles(dir, []cgroupFile{{name: "memory.no-such-file", value: "1"}}); err == nil {
		t.Error("a required file the kernel lacks was accepted")
	}
}
