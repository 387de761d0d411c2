package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// cpuMeter measures the CPU time of everything vbench starts, namespaces
// and daemonized helpers included, through a cgroup vbench moves itself
// into. rusage cannot: the CPU used inside a bubblewrap pid namespace never
// reaches the outer process's rusage (bwrap --unshare-pid … sh -c 'busy
// loop' reports 0 user time).
type cpuMeter struct {
	read    func() (time.Duration, error)
	cleanup func()
}

// newCPUMeter moves this process into a fresh cgroup: cgroup v1's cpuacct
// hierarchy where it is mounted, else a cgroup v2 parent with a leaf for
// vbench (the vigiles broker, as root, makes its pids cgroup next to its
// own, so the parent's cpu.stat covers the sandbox too). It returns nil
// and the reason when neither can be made.
func newCPUMeter() (*cpuMeter, error) {
	name := fmt.Sprintf("vbench-%d", os.Getpid())
	if acct := "/sys/fs/cgroup/cpuacct"; isDir(acct) {
		orig, err := selfCgroupV1("cpuacct")
		if err != nil {
			return nil, err
		}
		dir := filepath.Join(acct, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("making a cpuacct cgroup: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			os.Remove(dir)
			return nil, fmt.Errorf("joining the cpuacct cgroup: %w", err)
		}
		return &cpuMeter{
			read: func() (time.Duration, error) {
				b, err := os.ReadFile(filepath.Join(dir, "cpuacct.usage"))
				if err != nil {
					return 0, err
				}
				ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
				return time.Duration(ns), err
			},
			cleanup: func() {
				os.WriteFile(filepath.Join(acct, orig, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644)
				removeSoon(dir)
			},
		}, nil
	}
	root := "/sys/fs/cgroup"
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err != nil {
		return nil, fmt.Errorf("neither cgroup v1 cpuacct nor cgroup v2 is mounted at %s", root)
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	orig := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(self)), "0::"))
	parent := filepath.Join(root, orig, name)
	leaf := filepath.Join(parent, "vbench")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		return nil, fmt.Errorf("making a cgroup: %w", err)
	}
	undo := func() { removeSoon(leaf); removeSoon(parent) }
	// The broker (as root) needs the pids controller next to its cgroup.
	os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids"), 0o644)
	if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		undo()
		return nil, fmt.Errorf("joining the cgroup: %w", err)
	}
	return &cpuMeter{
		read: func() (time.Duration, error) {
			b, err := os.ReadFile(filepath.Join(parent, "cpu.stat"))
			if err != nil {
				return 0, err
			}
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) == 2 && f[0] == "usage_usec" {
					us, err := strconv.ParseInt(f[1], 10, 64)
					return time.Duration(us) * time.Microsecond, err
				}
			}
			return 0, fmt.Errorf("no usage_usec in %s/cpu.stat", parent)
		},
		cleanup: func() {
			os.WriteFile(filepath.Join(root, orig, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644)
			undo()
		},
	}, nil
}

func selfCgroupV1(controller string) (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.SplitN(l, ":", 3)
		if len(f) == 3 {
			for _, c := range strings.Split(f[1], ",") {
				if c == controller {
					return f[2], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no %s cgroup in /proc/self/cgroup", controller)
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// removeSoon removes a cgroup directory, waiting up to 2s for the
// processes of an interrupted case to leave it.
func removeSoon(dir string) {
	for i := 0; i < 100; i++ {
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
