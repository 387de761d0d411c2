package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigiles/action/internal/procwait"
)

// TestSweepCgroupsRemovesOnlyDeadBrokers: a sweep removes the cgroups of
// brokers of its own pid namespace that are gone (no such pid, or another
// process that has the pid now), and leaves those of brokers alive, of
// other pid namespaces (whose pids mean nothing here: a broker in a
// container may have any pid), and everything else.
func TestSweepCgroupsRemovesOnlyDeadBrokers(t *testing.T) {
	parent := t.TempDir()
	ns, pp := procwait.SelfPidNS(), os.Getppid()
	ppStart, err := procwait.StartTime(pp)
	if ns == 0 || err != nil {
		t.Fatalf("no pid namespace inode in /proc/self/ns/pid, or no start time in /proc/PID/stat: %v", err)
	}
	dead := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-999999999-5-1", ns))
	reused := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-%d-%d-1", ns, pp, ppStart+1))
	alive := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-%d-%d-1", ns, pp, ppStart))
	elsewhere := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-999999999-5-1", ns+1))
	mine := filepath.Join(parent, cgroupName(7))
	unknown := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-999999999-0-1", ns)) // its broker's start time could not be read
	other := filepath.Join(parent, "someone-else")
	for _, d := range []string{dead, reused, alive, elsewhere, mine, unknown, other} {
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
	for _, d := range []string{dead, reused} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("a dead broker's cgroup was left: %s", d)
		}
	}
	for _, d := range []string{alive, elsewhere, mine, unknown, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}

// TestSweepEndsWhatADeadBrokersCgroupHolds: a dead broker's cgroup that
// still holds a process (bubblewrap's child, orphaned while it waited for
// bubblewrap, which the broker's death took along: it waits for good) has
// it ended, so that the cgroup can go; a live broker's cgroup is left as
// it is, with its processes.
func TestSweepEndsWhatADeadBrokersCgroupHolds(t *testing.T) {
	parent := t.TempDir()
	ns, pp := procwait.SelfPidNS(), os.Getppid()
	ppStart, err := procwait.StartTime(pp)
	if ns == 0 || err != nil {
		t.Fatalf("no pid namespace inode, or no start time: %v", err)
	}
	dead := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-999999999-5-1", ns))
	alive := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-%d-%d-1", ns, pp, ppStart))
	start := func() *exec.Cmd {
		c := exec.Command("sleep", "300")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	orphan, running := start(), start()
	// A cgroup's own files, as a plain directory holds them here: the
	// orphan in the dead broker's command cgroup, the other in the live one's.
	for dir, c := range map[string]*exec.Cmd{filepath.Join(dead, commandCgroup): orphan, alive: running} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprintf("%d\n", c.Process.Pid)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sweepCgroups(parent)
	ended := make(chan error, 1)
	go func() { ended <- orphan.Wait() }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second): // a bound on a hang, not a measure
		t.Fatal("the process in a dead broker's cgroup was left running (30 s after the sweep)")
	}
	if err := running.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the process in a live broker's cgroup was ended: %v", err)
	}
}

// TestSweepOutOfDescriptorsRemovesNothing: a sweep that cannot read a
// broker's /proc/PID/stat (out of descriptors) takes it for alive; it
// took it for gone, and removed a live run's empty cgroup.
func TestSweepOutOfDescriptorsRemovesNothing(t *testing.T) {
	parent := t.TempDir()
	// Another broker's cgroup: whether it is alive, /proc cannot say.
	other := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-%d-%d-1", procwait.SelfPidNS(), os.Getpid()+1, 12345))
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	old := brokerStart
	t.Cleanup(func() { brokerStart = old })
	brokerStart = func(pid int) (uint64, error) {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, syscall.EMFILE)
	}
	sweepCgroups(parent)
	if _, err := os.Stat(other); err != nil {
		t.Errorf("a broker's cgroup was swept by a sweep that could not read its /proc entry: %v", err)
	}
	// Where /proc says it is gone, it is swept.
	brokerStart = func(pid int) (uint64, error) {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, fs.ErrNotExist)
	}
	sweepCgroups(parent)
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("a gone broker's cgroup was not swept: %v", err)
	}
}

// TestCgroupNamesKeepPidNamespacesApart: two brokers with one pid in two
// pid namespaces name their run cgroups apart, and so do two that follow
// each other as pid 1 of namespaces that get one inode number (given again
// once the first is gone). The test binary is started as pid 1 of a new
// pid namespace twice at once, then once more after both are gone.
func TestCgroupNamesKeepPidNamespacesApart(t *testing.T) {
	if os.Getenv("VIGILES_TEST_CGROUP_NAME") == "1" {
		fmt.Println(cgroupName(1))
		_, _ = io.Copy(io.Discard, os.Stdin) // alive until the test is done
		os.Exit(0)
	}
	if os.Getuid() != 0 {
		missing(t, "root, to make pid namespaces")
	}
	// vigiles before this name swept vigiles-PID-N where PID was gone from
	// its own namespace: it must not read a pid out of this name (it would
	// remove a cgroup in use the moment it was empty).
	var pid, n int
	if _, err := fmt.Sscanf(cgroupName(1), "vigiles-%d-%d", &pid, &n); err == nil {
		t.Errorf("%s reads as an older vigiles' cgroup of pid %d", cgroupName(1), pid)
	}
	// nameIn starts the test binary as pid 1 of a new pid namespace and
	// returns the name it gives, and a function that ends it.
	nameIn := func() (string, func()) {
		cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", os.Args[0], "-test.run=^TestCgroupNamesKeepPidNamespacesApart$")
		cmd.Env = append(os.Environ(), "VIGILES_TEST_CGROUP_NAME=1")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatalf("unshare: %v", err)
		}
		stop := func() {
			stdin.Close()
			_ = cmd.Wait()
		}
		t.Cleanup(stop)
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("reading the name: %v", err)
		}
		name := strings.TrimSpace(line)
		var ns, start uint64
		var pid, n int
		if _, err := fmt.Sscanf(name, "vigiles-ns%d-%d-%d-%d", &ns, &pid, &start, &n); err != nil || pid != 1 {
			t.Fatalf("the name %q: not that of pid 1 of its namespace (%v)", name, err)
		}
		return name, stop
	}
	names := map[string]bool{cgroupName(1): true}
	add := func(name string) {
		if names[name] {
			t.Errorf("two brokers share the cgroup name %s", name)
		}
		names[name] = true
	}
	a, stopA := nameIn()
	b, stopB := nameIn()
	add(a)
	add(b)
	stopA()
	stopB()
	time.Sleep(50 * time.Millisecond) // a start time is counted in clock ticks
	c, _ := nameIn()
	add(c)
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

// TestScratchFloorWithoutACgroup: without a memory cgroup (a non-root
// caller's run) the scratch is at least MinScratch too, the floor the CLI
// and the policy refuse to go below, and 0 stays the init's default; its
// files are counted, one for each scratchBytesPerInode of its size (of
// the default size for 0), at least 1024.
func TestScratchFloorWithoutACgroup(t *testing.T) {
	var c *runCgroup
	for _, tc := range []struct{ in, want, inodes uint64 }{
		{512 << 10, MinScratch, 1024},
		{MinScratch, MinScratch, 1024},
		{64 << 20, 64 << 20, 32768},
		{0, 0, 1 << 20},
	} {
		if got, inodes := c.scratch(Limits{ScratchBytes: tc.in}); got != tc.want || inodes != tc.inodes {
			t.Errorf("scratch(%d) without a cgroup = %d, %d; want %d, %d", tc.in, got, inodes, tc.want, tc.inodes)
		}
	}
}

// orphaningBwrap stands in for bubblewrap killed while it set up: its
// child leaves its process group (as --new-session does) and lives on
// with the output pipes, as bubblewrap's orphaned child does (bubblewrap
// issue #633); bubblewrap gives its pid, as its info does. The child
// writes to the output pipe until the pipe is closed under it, then says
// so in closed: only a Wait that gave up on the pipe (orphanedOutput)
// closes it while the child lives.
const orphaningBwrap = `#!/bin/sh
dir=$(dirname "$0")
setsid sh -c 'trap "" PIPE; : > "$0/started"; while echo x; do sleep 0.01; done; : > "$0/closed"' "$dir" &
echo "{\"child-pid\": $!}" >&6
exec sleep 300
`

// TestCancelEndsBubblewrapsOrphan: a run cancelled while bubblewrap sets
// up ends bubblewrap's orphaned child too (the run's cgroup holds it), so
// its output pipes close as it dies; Wait no longer waits them out.
func TestCancelEndsBubblewrapsOrphan(t *testing.T) {
	requireRoot(t, "only a root caller's run has a cgroup")
	if cg, err := newRunCgroup(true, true, false, Limits{Pids: 64}); cg == nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no run cgroup can be made: %v", err)
		}
		t.Skipf("this host cannot make a run's cgroup (%v), which is what ends the orphan", err)
	} else {
		cg.remove()
	}
	marks := t.TempDir()
	started, closed := filepath.Join(marks, "started"), filepath.Join(marks, "closed")
	bwrap := filepath.Join(marks, "bwrap")
	if err := os.WriteFile(bwrap, []byte(orphaningBwrap), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runConfined(ctx, Spec{Dir: makeTree(t, nil), Mode: ModeStrict, RootSandbox: true, Command: sh("true")}, bwrap, "", nil, &Result{Schema: ResultSchema})
		done <- err
	}()
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the run ended before the orphan started: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled run: %v", err)
	}
	if _, err := os.Stat(closed); err == nil {
		t.Error("the orphan's output pipe was closed under it: Wait waited out orphanedOutput for a child the cancel left running")
	}
}

// TestSweepEndsADeadBrokersConnector: a connector left in a dead broker's
// connector cgroup (below the run's memory cgroup, startConnector) is
// ended by the sweep too, so that the run's cgroup can go.
func TestSweepEndsADeadBrokersConnector(t *testing.T) {
	parent := t.TempDir()
	ns := procwait.SelfPidNS()
	if ns == 0 {
		t.Fatal("no pid namespace inode")
	}
	left := exec.Command("sleep", "300")
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { left.Process.Kill(); left.Wait() })
	// A cgroup's own files, as a plain directory holds them here.
	dir := filepath.Join(parent, fmt.Sprintf("vigiles-ns%d-999999999-5-1", ns), connectorCgroup)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprintf("%d\n", left.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	sweepCgroups(parent)
	ended := make(chan error, 1)
	go func() { ended <- left.Wait() }()
	select {
	case <-ended:
	case <-time.After(30 * time.Second): // a bound on a hang, not a measure
		t.Fatal("the connector in a dead broker's cgroup was left running (30 s after the sweep)")
	}
}

// TestCgroupsLeftToTheBackgroundAreWaitedFor: a run's cgroup still busy
// when remove gives up (a last process slower to leave, as one killed
// for memory under pressure is; here a cgroup below it, which keeps it
// busy the same way) is removed in the background, and WaitCgroups,
// which a broker calls before it exits, waits for that removal. It
// waited only for connectors' cgroups, so a `vigiles run` whose command
// was killed for memory on a loaded machine exited with the run's
// cgroups left behind, empty, until the next broker's sweep.
func TestCgroupsLeftToTheBackgroundAreWaitedFor(t *testing.T) {
	requireRoot(t, "only a root caller's runs get cgroups")
	cg, err := newRunCgroup(true, false, false, Limits{Pids: 64, RunMemoryBytes: 256 << 20})
	if cg == nil {
		missing(t, fmt.Sprintf("a cgroup a root caller's run can be born in (%v)", err))
	}
	dirs := cg.dirs()
	busy := filepath.Join(dirs[0], "busy")
	if err := os.Mkdir(busy, 0o755); err != nil {
		cg.remove()
		t.Fatal(err)
	}
	cg.remove() // gives up on dirs[0] after 500 ms: the rest is the background's
	if _, err := os.Stat(dirs[0]); err != nil {
		t.Fatalf("%s was removed with a cgroup below it: %v", dirs[0], err)
	}
	if err := os.Remove(busy); err != nil {
		t.Fatal(err)
	}
	WaitCgroups()
	for _, d := range dirs {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left once WaitCgroups returned (%v)", d, err)
		}
	}
}
