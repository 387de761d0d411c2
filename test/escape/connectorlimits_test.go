package escape

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAllowUnprivilegedConnectorOpenFiles: an unprivileged caller's
// slirp4netns, which runs as that caller in the sandbox's user namespace,
// gets the open-files limit a root caller's does (8,192, soft and hard,
// pkg/egress ConnectorOpenFiles), not the caller's: the broker may lower
// it, and does, before the command starts. vigiles runs as nobody with a
// hard limit above 8,192 and a tun node of its own (as in
// TestAllowUnprivilegedCaller); the test reads the connector's
// /proc/PID/limits while the hook sleeps.
func TestAllowUnprivilegedConnectorOpenFiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a bound on a hang, as runVigiles
	defer cancel()
	cmd, stdout, stderr := nobodyAllowRun(ctx, t, "ulimit -Hn 20000; ulimit -Sn 20000", "sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The last reading counts: the limit is set once slirp4netns is
	// ready, and the hook then sleeps for seconds.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var limits string
	var err error
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		case <-time.After(50 * time.Millisecond):
			if pid := descendantNamed(cmd.Process.Pid, "slirp4netns"); pid != 0 {
				if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid)); len(b) > 0 {
					limits = string(b)
				}
			}
		}
	}
	confinedAsNobody(t, err, stdout, stderr)
	if limits == "" {
		t.Fatal("as nobody: no slirp4netns seen while the hook ran")
	}
	m := regexp.MustCompile(`(?m)^Max open files +(\d+) +(\d+) +files`).FindStringSubmatch(limits)
	if m == nil || m[1] != "8192" || m[2] != "8192" {
		t.Errorf("as nobody: slirp4netns's limits, want 8192 open files soft and hard:\n%s", limits)
	}
}

// descendantNamed is the pid of a process below pid whose comm is name,
// or 0.
func descendantNamed(pid int, name string) int {
	kids := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		pp, _ := strconv.Atoi(f[1])
		kids[pp] = append(kids[pp], p)
	}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", k)); strings.TrimSpace(string(comm)) == name {
				return k
			}
			queue = append(queue, k)
		}
	}
	return 0
}
