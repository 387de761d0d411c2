package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

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
	// A run's cgroup has its children (the command's, bwrap's leaf).
	for _, c := range []string{commandCgroup, sandboxCgroup} {
		if err := os.Mkdir(filepath.Join(dead, c), 0o755); err != nil {
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
