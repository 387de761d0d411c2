package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
)

var (
	probeMu     sync.Mutex // held while a probe runs
	probeResult Capability // the probe's answer, once probed
	probed      atomic.Bool
)

// assumedCapability is what Run decides with: the probe's answer once it
// has run, and otherwise "available" when bwrap is installed (and where:
// Capability.bwrap, which the run then starts). The first
// confined run is itself the probe: if bubblewrap cannot make the
// sandbox, nothing has run, and Run then probes to name the fix and
// refuses. This spares every run an extra bwrap start.
func assumedCapability() Capability {
	if probed.Load() {
		return probeResult
	}
	bwrap, err := hostprog.Find("bwrap")
	if err != nil {
		return Capability{Confine: Unsupported, Why: "bubblewrap: " + err.Error(), Fix: hostprog.FixFor(err, "install bubblewrap (apt-get install bubblewrap)")}
	}
	return Capability{Confine: Available, bwrap: bwrap}
}

// ProbeConfinement finds out whether this host can confine: it runs
// bubblewrap for real with every namespace and capability a confined run
// uses, and answers available, unsupported (with the fix) or
// inconclusive. An answer is kept for the process; an inconclusive one (a
// bubblewrap that did not answer within its 10 s on a starved machine) is
// not, so the next call probes again, where a long audit named that
// starved moment as the cause of every later sandbox that failed.
func ProbeConfinement(ctx context.Context) Capability {
	if probed.Load() {
		return probeResult
	}
	probeMu.Lock()
	defer probeMu.Unlock()
	if probed.Load() {
		return probeResult
	}
	c := probeConfinement(ctx)
	if c.Confine != Inconclusive {
		probeResult = c
		probed.Store(true)
	}
	return c
}

func probeConfinement(ctx context.Context) Capability {
	bwrap, err := hostprog.Find("bwrap")
	if err != nil {
		return Capability{Confine: Unsupported, Why: "bubblewrap: " + err.Error(), Fix: hostprog.FixFor(err, "install bubblewrap (apt-get install bubblewrap)")}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// runBwrap starts again when a host mount vanished under bwrap: that
	// fails one start, not the host's ability to confine. The command in
	// the sandbox is bubblewrap itself (--version), the one program this
	// host surely has: a missing `true` on PATH is no answer about
	// namespaces.
	out, err := runBwrap(ctx, []string{bwrap,
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup",
		"--uid", "0", "--gid", "0", "--die-with-parent",
		"--cap-drop", "ALL", "--cap-add", "CAP_SYS_ADMIN",
		"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run", bwrap, "--version"}, nil)
	switch {
	case err == nil:
		return Capability{Confine: Available}
	case ctx.Err() != nil:
		return Capability{Confine: Inconclusive, Why: "bubblewrap did not answer within 10s"}
	}
	msg := strings.TrimSpace(string(out))
	why := fmt.Sprintf("bubblewrap cannot create the sandbox's namespaces: %s", msg)
	return Capability{Confine: Unsupported, Why: why, Fix: namespaceFix(usernsFix, out)}
}

func unixSignalName(s syscall.Signal) string { return unix.SignalName(s) }
