package egress

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/internal/tapkeep"
	"github.com/vigiles/action/pkg/evidence"
)

// ErrNoConnector means neither slirp4netns nor pasta can be found.
var ErrNoConnector = errors.New("no network connector")

const (
	attachTimeout = 15 * time.Second
	slirpTap      = "tap0"
)

// ConnectorOpenFiles is the open-files limit, soft and hard, a connector
// runs under once it is ready (or the one it started with, where that is
// lower): twice the default limit of each of the command's processes
// (reaper.Defaults' OpenFiles, 4,096), since pasta holds two descriptors
// for each TCP connection (its socket and a timer) where slirp4netns
// holds one, so that one process of the command at its own limit gets all
// its connections through either connector. Without it the connector ran
// under the caller's limits (slirp4netns its soft one, pasta the hard one,
// to which it raises its own: 1,048,576 on many hosts), a host descriptor
// and buffers for every connection a hook opened, whatever it opened.
const ConnectorOpenFiles = 8192

// limitConnector sets the open-files limit, soft and hard, of the
// connector pid to ConnectorOpenFiles, or keeps its hard limit where that
// is lower. It runs once the connector is ready, before the command
// starts: pasta raises its own soft limit to its hard one as it starts,
// and would undo a lower soft limit set before. Lowering a limit needs no
// privilege; the connector runs as the caller (a root caller's pasta as
// root), so the caller may set it.
func limitConnector(name string, pid int) error {
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		return fmt.Errorf("egress allow: reading %s's open-files limit: %w", name, err)
	}
	lim := min(old.Max, ConnectorOpenFiles)
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: lim, Max: lim}, nil); err != nil {
		return fmt.Errorf("egress allow: setting %s's open-files limit to %d: %w", name, lim, err)
	}
	return nil
}

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// Connector names the connector Attach starts for p: "" in deny and
// record mode; in allow mode p.Connector, or slirp4netns when it is on
// PATH and pasta otherwise. It fails, naming the fix, when that connector
// cannot be started here (not installed, /dev/net/tun unusable). The
// broker calls it before the sandbox starts and hands the name to the
// init (in the policy), which configures slirp4netns's tap itself (see
// Session.Connected). early reports whether Attach may run while
// bubblewrap still sets the namespace up: slirp4netns (without
// --configure) touches no link there but its own tap; pasta always brings
// lo up, which races bubblewrap's own set-up of lo (bubblewrap then fails,
// RTM_NEWADDR), so it must wait until bubblewrap is done.
func (l *Layer) Connector(p evidence.EgressPolicy) (name string, early bool, err error) {
	pol, err := compilePolicy(p)
	if err != nil {
		return "", false, err
	}
	if pol.mode != evidence.EgressAllow {
		return "", false, nil
	}
	name, _, err = usableConnector(pol.connector)
	if err != nil {
		return "", false, err
	}
	return name, name == ConnectorSlirp, nil
}

func usableConnector(want string) (string, string, error) {
	name, path, err := chooseConnector(want)
	if err != nil {
		return "", "", err
	}
	if err := unix.Access("/dev/net/tun", unix.R_OK|unix.W_OK); err != nil {
		return "", "", fmt.Errorf("egress allow: %s needs /dev/net/tun readable and writable by uid %d "+
			"(make it mode 0666, the usual default, or run as root): %w", name, os.Getuid(), err)
	}
	return name, path, nil
}

// Attach runs in the broker once the sandbox's network namespace exists
// (pid is a process inside it): for slirp4netns at once, while bubblewrap
// may still be setting the sandbox up; for pasta once bubblewrap is done
// (see Connector). In allow mode it starts slirp4netns (or pasta,
// when p.Connector asks for it or slirp4netns is missing) attached to
// that namespace and returns once the connector is ready; the Closer
// stops it. slirp4netns only creates its tap there: the init brings it up
// and routes through it (Session.Connected) before the command starts.
// In deny and record mode Attach does nothing. Failure is an error naming
// the fix; the run must be refused.
//
// userns and netns, when set, are the sandbox's user and network
// namespaces, opened by the broker or sent by the sandbox's init: a root
// broker without CAP_SYS_PTRACE may not open /proc/PID/ns/* of a sandbox
// that runs as another uid, and neither may a connector it starts. When
// they are nil the connector opens /proc/PID/ns/* itself.
//
// start starts the connector's process in place of cmd.Start (nil:
// cmd.Start): the sandbox's broker starts it inside the run's memory
// cgroup. reaped, which start returns, is called once that process is
// reaped, in the reaping the Layer's Stopped waits for.
func (l *Layer) Attach(ctx context.Context, p evidence.EgressPolicy, pid int, userns, netns *os.File, start func(*exec.Cmd) (reaped func(), err error)) (io.Closer, error) {
	if start == nil {
		start = startPlain
	}
	pol, err := compilePolicy(p)
	if err != nil {
		return nil, err
	}
	if pol.mode != evidence.EgressAllow {
		return nopCloser{}, nil
	}
	if pid <= 0 {
		return nil, fmt.Errorf("egress attach: bad pid %d", pid)
	}
	name, path, err := usableConnector(pol.connector)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	if name == ConnectorPasta {
		return startPasta(ctx, path, pid, userns, netns, &l.stopping, start)
	}
	return startSlirp(ctx, path, pid, userns, netns, &l.stopping, start)
}

// startPlain starts a connector with nothing around it.
func startPlain(cmd *exec.Cmd) (func(), error) { return func() {}, cmd.Start() }

func chooseConnector(want string) (string, string, error) {
	order := []string{ConnectorSlirp, ConnectorPasta}
	if want != "" {
		order = []string{want}
	}
	var whys []string
	for _, n := range order {
		p, err := hostprog.Find(n)
		if err == nil {
			return n, p, nil
		}
		whys = append(whys, err.Error())
	}
	return "", "", fmt.Errorf("egress allow needs %s (Debian/Ubuntu: apt-get install slirp4netns, or passt for pasta): %s: %w",
		strings.Join(order, " or "), strings.Join(whys, "; "), ErrNoConnector)
}

// nsArgs says whether the connector must join the sandbox's user namespace
// first: it must when that namespace is not ours (an unprivileged broker
// holds CAP_NET_ADMIN only there).
func foreignUserns(pid int) (string, bool) {
	theirs := fmt.Sprintf("/proc/%d/ns/user", pid)
	a, err1 := os.Readlink(theirs)
	b, err2 := os.Readlink("/proc/self/ns/user")
	return theirs, err1 == nil && err2 == nil && a != b
}

type slirp struct {
	cmd      *exec.Cmd
	exitW    *os.File
	once     sync.Once
	stopping *sync.WaitGroup // the Layer's: done once this one is reaped
	reaped   chan struct{}   // closed once it is reaped
	kept     chan struct{}   // closed once the tap keeping is over (nil: not tried)
	keptErr  error           // tapkeep.Keep's outcome, once kept is closed
	gone     func()          // what its start returned, called once it is reaped
}

func startSlirp(ctx context.Context, bin string, pid int, userns, netns *os.File, stopping *sync.WaitGroup, start func(*exec.Cmd) (func(), error)) (io.Closer, error) {
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer readyR.Close()
	exitR, exitW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return nil, err
	}
	// Only where the namespace has IPv6: a fresh one has it where this
	// one does, when its own /proc/PID/net may not be read.
	v6 := fmt.Sprintf("/proc/%d/net/if_inet6", pid)
	if _, err := os.Stat(v6); errors.Is(err, os.ErrPermission) {
		v6 = "/proc/self/net/if_inet6"
	}
	_, err = os.Stat(v6)
	ipv6 := err == nil
	files := []*os.File{readyW, exitR}
	var ns []string
	if netns != nil {
		// slirp4netns opens its own descriptors by /proc/self/fd.
		files = append(files, userns, netns)
		ns = []string{"--userns-path=/proc/self/fd/5", "--netns-type=path", "/proc/self/fd/6"}
	} else {
		if u, ok := foreignUserns(pid); ok {
			ns = append(ns, "--userns-path="+u)
		}
		ns = append(ns, "--netns-type=path", fmt.Sprintf("/proc/%d/ns/net", pid))
	}
	cmd := exec.Command(bin, slirpArgs(ipv6, ns)...)
	cmd.Env = hostprog.Env() // nothing of the caller's: its secrets, an LD_PRELOAD
	stderr := &limitWriter{w: &bytes.Buffer{}, n: 8 << 10}
	cmd.Stderr = stderr
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	gone, err := start(cmd)
	if err != nil {
		readyW.Close()
		exitR.Close()
		exitW.Close()
		return nil, fmt.Errorf("egress allow: starting slirp4netns: %w", err)
	}
	readyW.Close()
	exitR.Close()
	s := &slirp{cmd: cmd, exitW: exitW, stopping: stopping, reaped: make(chan struct{}), gone: gone}

	ready := make(chan error, 1)
	go func() {
		b := make([]byte, 1)
		_, err := readyR.Read(b)
		ready <- err
	}()
	select {
	case err := <-ready:
		if err != nil {
			s.closeAndWait() // its stderr is all read once it is reaped
			if fix := hostprog.SlirpFix([]byte(stderr.String())); fix != "" {
				return nil, fmt.Errorf("egress allow: slirp4netns did not come up: %s (%s): %w", fix, stderr.String(), err)
			}
			return nil, fmt.Errorf("egress allow: slirp4netns did not come up (%s): %w", stderr.String(), err)
		}
	case <-ctx.Done():
		s.closeAndWait()
		return nil, fmt.Errorf("egress allow: slirp4netns not ready (%s): %w", stderr.String(), ctx.Err())
	}
	if err := limitConnector(ConnectorSlirp, cmd.Process.Pid); err != nil {
		s.closeAndWait()
		return nil, err
	}
	// Its tap is made persistent (tapkeep), so that its exit only
	// detaches from it, where it unregistered it: a wait of 20-40 ms here
	// that came on a run's path or, since slirp4netns is reaped in the
	// background, on the process's before it exits. The kept tap is no
	// door out of the sandbox: the connector is closed only once nothing
	// of the command is left (the init's "d", or the init gone), the
	// sandbox's /dev has no net/tun to attach with, and a tap leads only
	// into the namespace it is in. (Its having no owner means anyone there
	// could attach; nobody is left to.) Best effort: where it cannot be
	// done, slirp4netns exits as before, and vigiles doctor says so.
	// docs/performance.md, item 22.
	s.kept = make(chan struct{})
	go func() { s.keptErr = tapkeep.Keep(cmd.Process.Pid); close(s.kept) }()
	return s, nil
}

// Close stops slirp4netns by closing its exit fd, and returns without
// waiting for it to be gone. A goroutine reaps it, killing it if it
// lingers; Layer.Stopped waits for the reaping. Where tapkeep could not
// make its tap persistent, its exit unregisters the tap, which ends in
// an RCU barrier (netdev_run_todo), 13–40 ms here, that nothing of the
// run's result depends on.
func (s *slirp) Close() error {
	s.once.Do(func() {
		stopConnector(s.kept, s.exitW, s.stopping, func() {
			procwait.Exited(s.cmd.Process.Pid)
			_ = s.cmd.Wait()
			s.gone()
			close(s.reaped)
		}, func() { _ = s.cmd.Process.Kill() })
	})
	return nil
}

// stopConnector stops a connector: once its tap keeping is over (kept;
// nil: not tried), it closes stop, the pipe whose end the connector (or
// its guard) takes for the signal to quit, and a goroutine counted in
// stopping (the Layer's) waits for it to be reaped (reap), killing it
// (kill) if it lingers past 2 s.
func stopConnector(kept <-chan struct{}, stop *os.File, stopping *sync.WaitGroup, reap, kill func()) {
	if kept != nil {
		<-kept // the tap made persistent first, or given up on
	}
	stop.Close()
	stopping.Add(1)
	go func() {
		defer stopping.Done()
		t := time.AfterFunc(2*time.Second, kill)
		reap()
		t.Stop()
	}()
}

// closeAndWait stops slirp4netns and waits until it is reaped, and so
// until all it wrote to its stderr has been read.
func (s *slirp) closeAndWait() {
	s.Close()
	<-s.reaped
}

// slirpArgs is slirp4netns's command line: ipv6 where the namespace has
// IPv6, ns the options that name the sandbox's namespaces.
//
// No --configure: it would also bring lo up, racing bubblewrap's own
// set-up of lo (which then fails: RTM_NEWADDR), and it would keep
// slirp4netns from attaching before that set-up is over.
//
// --disable-dns: slirp4netns otherwise forwards DNS sent to its 10.0.2.3
// (and fd00::3 with IPv6) to the host's resolver, a way around the stub
// for any name, off the list too, where --allow-ip covers the address.
// With it both are plain addresses: 10.0.2.3 is asked of the host's
// network as any other, and fd00::3, in slirp4netns's own prefix, is
// refused with the host's loopback (--disable-host-loopback). A
// slirp4netns without it (before 1.1.0) does not start: the run is
// refused (startSlirp names the fix).
//
// --enable-seccomp and --enable-sandbox: slirp4netns reads every packet
// the command sends, on the host, as the caller. With them, before it
// says it is ready, it filters its system calls and, for a root caller,
// moves into a mount namespace whose root is an empty tmpfs and drops
// every capability but CAP_NET_BIND_SERVICE, so that a memory bug in
// libslirp's emulation, which the command feeds, finds little of the
// host to work with. An unprivileged caller's slirp4netns has no
// capability to drop, and cannot make a mount namespace of its own (its
// sandbox wants root in the user namespace it joins, which the sandbox's
// does not map): it runs with its filter alone. A slirp4netns that
// cannot do what it is told does not start: the run is refused
// (startSlirp names the fix).
func slirpArgs(ipv6 bool, ns []string) []string {
	args := []string{"--mtu=" + strconv.Itoa(slirpMTU), "--disable-host-loopback", "--disable-dns", "--enable-seccomp"}
	if slirpSandboxed() {
		args = append(args, "--enable-sandbox")
	}
	args = append(args, "--ready-fd=3", "--exit-fd=4")
	if ipv6 {
		args = append(args, "--enable-ipv6")
	}
	return append(append(args, ns...), slirpTap)
}

type pasta struct {
	cmd      *exec.Cmd
	lifeW    *os.File        // while open, pasta runs (hostprog.PastaGuard)
	reaped   chan struct{}   // closed once the guard, and pasta, are reaped
	stopping *sync.WaitGroup // the Layer's: done once this one is reaped
	once     sync.Once
	kept     chan struct{} // closed once the tap keeping is over (nil: not tried)
}

// startPasta starts pasta under hostprog.PastaGuard, which runs it in
// the foreground until the broker closes its pipe or dies (with
// --no-netns-quit nothing else would end it), and returns once it has
// configured the namespace.
func startPasta(ctx context.Context, bin string, pid int, userns, netns *os.File, stopping *sync.WaitGroup, start func(*exec.Cmd) (func(), error)) (io.Closer, error) {
	if netns != nil {
		sweepPastaDirs(os.TempDir())
	}
	dir, err := os.MkdirTemp("", pastaDirPrefix())
	if err != nil {
		return nil, fmt.Errorf("egress allow: making pasta's directory in %s: %w; fix: point TMPDIR at a writable directory, or use --connector slirp4netns", os.TempDir(), err)
	}
	defer os.RemoveAll(dir)
	pidFile := filepath.Join(dir, "pid")
	var ns []string
	if netns != nil {
		// pasta drops CAP_SYS_PTRACE before it opens the namespaces, so
		// even as root it may not open /proc/PID/ns/* of a sandbox of
		// another uid; and from 2024_08_14 on it closes every inherited
		// descriptor first. The namespaces are bound onto files of a
		// directory only root may enter, for as long as pasta takes to
		// come up (as ip netns keeps one).
		unbind, err := bindNamespaces(dir, map[string]*os.File{"user": userns, "net": netns})
		if err != nil {
			return nil, fmt.Errorf("egress allow: handing the sandbox's namespaces to pasta: %w", err)
		}
		defer unbind()
		// pasta would quit once the bound file goes (it watches a
		// file-bound namespace); its guard ends it instead.
		ns = []string{"--no-netns-quit", "--userns", filepath.Join(dir, "user"), "--netns", filepath.Join(dir, "net")}
	} else {
		if u, ok := foreignUserns(pid); ok {
			ns = append(ns, "--userns", u)
		}
		ns = append(ns, "--netns", fmt.Sprintf("/proc/%d/ns/net", pid))
	}
	stderr := &limitWriter{w: &bytes.Buffer{}, n: 8 << 10}
	gone := func() {}
	cmd, lifeW, err := hostprog.StartPastaGuarded(bin, append(pastaArgs(os.Geteuid() == 0, pidFile, ns), "--foreground"), stderr,
		func(cmd *exec.Cmd) (err error) { gone, err = start(cmd); return err })
	if err != nil {
		return nil, fmt.Errorf("egress allow: starting pasta: %w", err)
	}
	p := &pasta{cmd: cmd, lifeW: lifeW, reaped: make(chan struct{}), stopping: stopping}
	go func() {
		// In the poller, as slirp4netns's reaping: the guard lives as
		// long as the run, and a goroutine blocked in waitid that long
		// wakes the runtime's sysmon (procwait).
		procwait.Exited(cmd.Process.Pid)
		_ = cmd.Wait()
		gone()
		close(p.reaped)
	}()
	// pasta writes its pid file once the namespace is configured, just
	// before it starts forwarding: the readiness signal.
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(pidFile); err == nil && bytes.HasSuffix(b, []byte("\n")) {
			// Its tap made persistent, as slirp4netns's is (item 22 of
			// docs/performance.md): pasta's exit then only detaches from
			// it, where it unregistered it in an RCU barrier (20-30 ms
			// here) that vigiles waited for before it exited. Best
			// effort: where it cannot be done, the exit is slow as before.
			ppid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || ppid <= 0 {
				p.Close()
				<-p.reaped
				return nil, fmt.Errorf("egress allow: pasta wrote no pid to its pid file (%q)", b)
			}
			if err := limitConnector(ConnectorPasta, ppid); err != nil {
				p.Close()
				<-p.reaped
				return nil, err
			}
			p.kept = make(chan struct{})
			go func() { _ = tapkeep.Keep(ppid); close(p.kept) }()
			return p, nil
		}
		select {
		case <-p.reaped:
			lifeW.Close()
			return nil, fmt.Errorf("egress allow: pasta did not come up (%s): %v", stderr.String(), cmd.ProcessState)
		case <-ctx.Done():
			p.Close()
			<-p.reaped
			return nil, fmt.Errorf("egress allow: pasta not ready (%s): %w", stderr.String(), ctx.Err())
		case <-tick.C:
		}
	}
}

// pastaArgs is pasta's command line: root when vigiles runs as root, ns
// the options that name the sandbox's namespaces.
//
// pasta forwards DNS sent to an address of its own to the host's resolver
// when --dns-forward names that address, or, by itself, when the host's
// resolver is a loopback one (systemd-resolved's 127.0.0.53), to its
// gateway: a way around the stub for any name. --no-map-gw turns the
// second off (and keeps the gateway from leading to the host's loopback);
// --dns none keeps pasta from reading the host's resolvers at all, so that
// no version of it can set such a forwarding up from them.
func pastaArgs(root bool, pidFile string, ns []string) []string {
	args := []string{"--config-net", "--quiet", "--no-map-gw", "--dns", "none",
		"-t", "none", "-u", "none", "-T", "none", "-U", "none", "--pid", pidFile}
	if root {
		// pasta otherwise drops to nobody, who may not open the
		// sandbox's namespaces.
		args = append(args, "--runas", "0:0")
	}
	return append(args, ns...)
}

// Close ends pasta (its guard's pipe closed: SIGTERM) and returns
// without waiting for it to be gone; a goroutine waits for the reaping,
// killing the guard's process group if it lingers, and Layer.Stopped
// waits for that. (Given /proc/PID/ns paths, pasta also quits on its own
// when the namespace goes.)
func (p *pasta) Close() error {
	p.once.Do(func() {
		stopConnector(p.kept, p.lifeW, p.stopping, func() { <-p.reaped },
			func() { _ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL) })
	})
	return nil
}

// limitWriter keeps the first n bytes written to it; safe for concurrent
// use.
type limitWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
	n  int
}

func (l *limitWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.TrimSpace(l.w.String())
}

func (l *limitWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(b)
	if len(b) > l.n {
		b = b[:l.n]
	}
	l.n -= len(b)
	_, err := l.w.Write(b)
	return n, err
}

// pastaDirName begins the name of a directory pasta's namespaces are
// bound in, before its broker's OwnerTag.
const pastaDirName = "vigiles-pasta-"

// pastaDirPrefix names the directory pasta's namespaces are bound in
// after this broker (its pid namespace, pid and start time), so that a
// later broker can tell one whose broker was killed during pasta's start
// (SIGKILL, the OOM killer: nothing unbound it) from one in use.
func pastaDirPrefix() string {
	return pastaDirName + procwait.OwnerTag()
}

// Sweep clears, once per TMPDIR, what brokers killed while pasta came up
// left there (sweepPastaDirs). The broker calls it before every run,
// whatever its network mode: a deny-mode or slirp4netns run's broker
// never starts pasta, whose own sweep kept the dead sandboxes'
// namespaces bound until a run that did.
func (l *Layer) Sweep() {
	tmp := os.TempDir()
	l.sweepMu.Lock()
	defer l.sweepMu.Unlock()
	if l.swept[tmp] {
		return
	}
	if l.swept == nil {
		l.swept = map[string]bool{}
	}
	l.swept[tmp] = true
	sweepPastaDirs(tmp)
}

// sweepPastaDirs unbinds and removes the directories in tmp that brokers
// of this pid namespace, killed while pasta came up, left with the
// sandbox's namespaces bound in them: mounts in the host's mount table
// that kept the dead sandbox's user and network namespaces for good. Only
// a directory of this user's, that no one else may enter (as MkdirTemp
// makes it), whose broker /proc says is gone, is touched; its mounts are
// detached without following a link.
func sweepPastaDirs(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !procwait.OwnerGone(e.Name(), pastaDirName, nil) {
			continue // not a broker's, or its broker still runs, or may
		}
		dir := filepath.Join(tmp, e.Name())
		var st unix.Stat_t
		if unix.Lstat(dir, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Uid != uint32(os.Geteuid()) || st.Mode&0o077 != 0 {
			continue
		}
		for _, name := range []string{"user", "net"} {
			unix.Unmount(filepath.Join(dir, name), unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW)
		}
		os.RemoveAll(dir)
	}
}

// bindNamespaces bind-mounts each namespace onto a file of its name in dir
// (a directory only the caller may enter); unbind detaches them.
func bindNamespaces(dir string, ns map[string]*os.File) (unbind func(), err error) {
	var bound []string
	unbind = func() {
		for _, p := range bound {
			unix.Unmount(p, unix.MNT_DETACH)
		}
	}
	for name, f := range ns {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			unbind()
			return nil, err
		}
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), p, "", unix.MS_BIND, ""); err != nil {
			unbind()
			return nil, fmt.Errorf("bind-mounting its %s namespace: %w", name, err)
		}
		bound = append(bound, p)
	}
	return unbind, nil
}

// slirpSandboxed says whether slirp4netns is given --enable-sandbox: for
// a root caller only (slirpArgs). A variable, for tests.
var slirpSandboxed = func() bool { return os.Geteuid() == 0 }
