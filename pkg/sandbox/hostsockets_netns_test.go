package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestOtherNetNSUnixLists: a process in a network namespace of its own
// (unshare --net, as `ip netns exec` starts a service) has its namespace's
// list of unix sockets named once, and the caller's own namespace's is not
// named again beside /proc/net/unix.
func TestOtherNetNSUnixLists(t *testing.T) {
	requireRoot(t, "making a network namespace needs root")
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI has unshare: ", err)
		}
		t.Skip("no unshare here: ", err)
	}
	cmd := exec.Command(unshare, "--net", "sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	own, err := os.Stat("/proc/self/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	child := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/net/unix"
	var theirs os.FileInfo
	// unshare enters the namespace before it execs sleep: until then its
	// list is the caller's. The bound only ends a hang.
	for deadline := time.Now().Add(10 * time.Second); ; {
		fi, err := os.Stat(child)
		if err == nil && fileIno(fi) != fileIno(own) {
			theirs = fi
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still the caller's namespace's list (%v)", child, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	seen := map[uint64]string{}
	for _, p := range otherNetNSUnixLists("/proc") {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a process gone since
		}
		ino := fileIno(fi)
		if ino == fileIno(own) {
			t.Errorf("%s is the caller's own namespace's list, which /proc/net/unix already is", p)
		}
		if q, ok := seen[ino]; ok {
			t.Errorf("%s and %s are one namespace's list, named twice", q, p)
		}
		seen[ino] = p
	}
	if _, ok := seen[fileIno(theirs)]; !ok {
		t.Errorf("the list of the namespace of %s was not named: %v", child, seen)
	}
}

// BenchmarkOtherNetNSUnixLists is what looking for the other network
// namespaces costs each run: a read of /proc and a stat of each process's
// list.
func BenchmarkOtherNetNSUnixLists(b *testing.B) {
	for b.Loop() {
		otherNetNSUnixLists("/proc")
	}
}
