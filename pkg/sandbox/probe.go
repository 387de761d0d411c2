package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

var (
	probeOnce   sync.Once
	probeResult Capability
	probed      atomic.Bool
)

// assumedCapability is what Run decides with: the probe's answer once it
// has run, and otherwise "available" when bwrap is installed. The first
// confined run is itself the probe: if bubblewrap cannot make the
// sandbox, nothing has run, and Run then probes to name the fix and
// refuses. This spares every run an extra bwrap start.
func assumedCapability() Capability {
	if probed.Load() {
		return probeResult
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		return Capability{Confine: Unsupported, Why: "bubblewrap (bwrap) is not installed", Fix: "install bubblewrap (apt-get install bubblewrap)"}
	}
	return Capability{Confine: Available}
}

// ProbeConfinement finds out, once per process, whether this host can
// confine: it runs bubblewrap for real with every namespace and capability
// a confined run uses, and answers available, unsupported (with the fix)
// or inconclusive.
func ProbeConfinement(ctx context.Context) Capability {
	probeOnce.Do(func() {
		probeResult = probeConfinement(ctx)
		probed.Store(true)
	})
	return probeResult
}

func probeConfinement(ctx context.Context) Capability {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return Capability{Confine: Unsupported, Why: "bubblewrap (bwrap) is not installed", Fix: "install bubblewrap (apt-get install bubblewrap)"}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// runBwrap starts again when a host mount vanished under bwrap: that
	// fails one start, not the host's ability to confine.
	out, err := runBwrap(ctx, []string{bwrap,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup",
		"--uid", "0", "--gid", "0", "--die-with-parent",
		"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run", "true"}, nil)
	switch {
	case err == nil:
		return Capability{Confine: Available}
	case ctx.Err() != nil:
		return Capability{Confine: Inconclusive, Why: "bubblewrap did not answer within 10s"}
	}
	msg := strings.TrimSpace(string(out))
	why := fmt.Sprintf("bubblewrap cannot create the sandbox's namespaces: %s", msg)
	fix := "allow unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0; " +
		"on Ubuntu 24.04: sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; in a container: run it with " +
		"--security-opt seccomp=unconfined --security-opt apparmor=unconfined --cap-add SYS_ADMIN"
	return Capability{Confine: Unsupported, Why: why, Fix: fix}
}

// pidsCgroup bounds the number of processes of a run whose caller is root:
// RLIMIT_NPROC does not hold for uid 0, so a cgroup's pids.max does.
type pidsCgroup struct {
	dir string
	// perThread: cgroup v1, where one thread may join a cgroup alone
	// (its tasks file), so a child can be born inside without a shell.
	perThread bool
}

var cgroupSeq atomic.Int64

// newPidsCgroup returns nil when the sandbox does not run as root
// (RLIMIT_NPROC bounds the run), a fresh pids cgroup when it does, and an
// error naming the fix when it does and no pids cgroup can be made.
func newPidsCgroup(root bool, max int) (*pidsCgroup, error) {
	if !root {
		return nil, nil
	}
	name := fmt.Sprintf("vigiles-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	var candidates []string
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		// cgroup v2: the pids controller must be enabled in our parent.
		self, _ := os.ReadFile("/proc/self/cgroup")
		for _, line := range strings.Split(string(self), "\n") {
			if strings.HasPrefix(line, "0::") {
				parent := filepath.Join("/sys/fs/cgroup", strings.TrimPrefix(line, "0::"))
				candidates = append(candidates, filepath.Dir(parent), parent)
			}
		}
	} else {
		candidates = append(candidates, v1PidsRoot)
	}
	var errs []error
	for _, parent := range candidates {
		sweepCgroups(parent)
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o644); err != nil {
			os.Remove(dir)
			errs = append(errs, err)
			continue
		}
		return &pidsCgroup{dir: dir, perThread: parent == v1PidsRoot}, nil
	}
	return nil, fmt.Errorf("running as root, the process limit needs a writable pids cgroup, and none could be made (%v); "+
		"fix: run vigiles as a non-root user, or give it a writable cgroup (in a container: --cgroupns=private with a writable /sys/fs/cgroup)",
		errors.Join(errs...))
}

// v1PidsRoot is where a cgroup v1 host mounts the pids hierarchy.
const v1PidsRoot = "/sys/fs/cgroup/pids"

// start starts cmd so that it is born inside the cgroup, with every
// process it makes (moving a running process would leave the children it
// already has outside). On cgroup v1 the forking thread joins the cgroup
// alone, forks, and goes back; cmd.Path is started directly. Otherwise
// cmd must already be the shell of shellPrefix, which moves itself in and
// execs the rest.
func (c *pidsCgroup) start(cmd *exec.Cmd) error {
	if !c.perThread {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		// The fork happens on this thread, and so does Pdeathsig's
		// watch (golang/go#27505): the thread must outlive cmd unless
		// it could not leave the cgroup, when it ends with this
		// goroutine and takes its membership along (cmd then dies too).
		runtime.LockOSThread()
		home, err := threadPidsCgroup()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("reading this thread's pids cgroup: %w", err)
			return
		}
		tid := []byte(strconv.Itoa(unix.Gettid()))
		if err := os.WriteFile(filepath.Join(c.dir, "tasks"), tid, 0); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("entering the pids cgroup: %w", err)
			return
		}
		err = cmd.Start()
		if werr := os.WriteFile(filepath.Join(home, "tasks"), tid, 0); werr != nil {
			if err == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
			errc <- fmt.Errorf("leaving the pids cgroup: %w", werr)
			return // locked: the thread ends here
		}
		runtime.UnlockOSThread()
		errc <- err
	}()
	return <-errc
}

// shellPrefix is what goes before argv when a shell must move the sandbox
// into the cgroup (cgroup v2): nil on cgroup v1.
func (c *pidsCgroup) shellPrefix() []string {
	if c == nil || c.perThread {
		return nil
	}
	return []string{"/bin/sh", "-c", `echo $$ > "$0" && exec "$@"`, c.procsFile()}
}

// threadPidsCgroup is the cgroup v1 pids directory of the calling thread.
func threadPidsCgroup() (string, error) {
	b, err := os.ReadFile("/proc/thread-self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && f[1] == "pids" {
			return filepath.Join(v1PidsRoot, f[2]), nil
		}
	}
	return "", errors.New("no pids line in /proc/thread-self/cgroup")
}

// procsFile is the file a process writes its pid to, to enter the cgroup.
func (c *pidsCgroup) procsFile() string { return filepath.Join(c.dir, "cgroup.procs") }

// hit reports whether the cgroup refused a fork.
func (c *pidsCgroup) hit() bool {
	if c == nil {
		return false
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "pids.events"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	return len(f) == 2 && f[1] != "0"
}

// sweepCgroups removes the empty pids cgroups that brokers killed before
// they could clean up left behind (vigiles-PID-N with PID gone).
func sweepCgroups(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range ents {
		var pid, n int
		if _, err := fmt.Sscanf(e.Name(), "vigiles-%d-%d", &pid, &n); err != nil || !e.IsDir() {
			continue
		}
		if syscall.Kill(pid, 0) == nil || pid == os.Getpid() {
			continue // its broker still runs
		}
		os.Remove(filepath.Join(parent, e.Name())) // fails, harmlessly, when not empty
	}
}

func (c *pidsCgroup) remove() {
	if c == nil {
		return
	}
	// The sandbox's processes are usually gone by now, but the last of
	// them may still be exiting (one run in ten here): then the cgroup is
	// busy for a moment, so the first retries come soon.
	delay := 200 * time.Microsecond
	for deadline := time.Now().Add(500 * time.Millisecond); ; {
		err := unix.Rmdir(c.dir)
		if err == nil || errors.Is(err, unix.ENOENT) || time.Now().After(deadline) {
			return
		}
		// Kill what is left (a run ended by its deadline) and try again.
		b, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(delay)
		delay = min(2*delay, 10*time.Millisecond)
	}
}

func unixSignalName(s syscall.Signal) string { return unix.SignalName(s) }
