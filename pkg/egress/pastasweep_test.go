package egress

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/procwait"
)

// TestSweepPastaDirsUnbindsDeadBrokers: a directory a broker killed during
// pasta's start-up left, with the sandbox's namespaces still bound in it
// (mounts in the host's table that keep those namespaces for good), is
// unbound and removed by the next broker's sweep; a live broker's is left.
func TestSweepPastaDirsUnbindsDeadBrokers(t *testing.T) {
	if os.Geteuid() != 0 {
		missing(t, "root (to bind-mount namespaces)")
	}
	tmp := t.TempDir()
	ns, pp := procwait.SelfPidNS(), os.Getppid()
	dead := filepath.Join(tmp, fmt.Sprintf("vigiles-pasta-ns%d-999999999-5-123", ns))
	alive := filepath.Join(tmp, fmt.Sprintf("vigiles-pasta-ns%d-%d-%d-456", ns, pp, mustStart(t, pp)))
	for _, d := range []string{dead, alive} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"user", "net"} {
			p := filepath.Join(d, name)
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mount("/proc/self/ns/"+name, p, "", unix.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { unix.Unmount(p, unix.MNT_DETACH) })
		}
	}
	sweepPastaDirs(tmp)
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), dead+"/") {
		t.Errorf("a dead broker's namespaces are still bound:\n%s", mounts)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead broker's directory was left: %v", err)
	}
	if !strings.Contains(string(mounts), alive+"/net") {
		t.Errorf("a live broker's namespaces were unbound")
	}
}

func mustStart(t *testing.T, pid int) uint64 {
	t.Helper()
	s, err := procwait.StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
