package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/exact"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// MinPids is the smallest process limit a confined run accepts: under
// RLIMIT_NPROC (no pids cgroup) bwrap, the init and the reaper count
// against it too.
const MinPids = 32

// scratchInodeBytes is what one file or directory of the scratch costs in
// kernel memory (inode and dentry, about 750 bytes measured here), rounded
// up.
const scratchInodeBytes = 1 << 10

// scratchBytesPerInode is how much of a scratch without a memory cgroup
// each of its files and directories takes from its count: their inodes
// then take at most half as much of the host's memory again as the
// scratch's size (a million files for the default 2 GiB, as a run with a
// memory cgroup of the default 4 GiB gets), which the size alone does not
// bound.
const scratchBytesPerInode = 2 * scratchInodeBytes

// MinRunMemory is the smallest whole-run memory limit a run accepts: the
// sandbox's own processes (bubblewrap, the init and the reaper, with the
// kernel memory charged for them) take some 30 MiB before the command
// starts, and a limit below that would end the run, not the command.
const MinRunMemory = 64 << 20

// ErrRefused is wrapped by the error Run returns when policy or a missing
// layer refuses the run.
var ErrRefused = errors.New("run refused")

// Run carries out one run of spec and returns its result, which is never
// nil. The error is non-nil only when vigiles refused or failed; the
// command's own exit status is in the result.
func Run(ctx context.Context, spec Spec) (*Result, error) {
	return runGated(ctx, spec, nil)
}

// Pending is a run made ready ahead of its turn by Prepare: its sandbox
// is built, and its command waits for Wait. Every Pending must end with
// Wait or Abort.
type Pending struct {
	gate   turnGate
	cancel context.CancelFunc
	done   chan struct{}
	res    *Result
	err    error
}

// turnGate holds a prepared run's command until its turn (open is
// closed), and tells when it is over: ended is closed once the command
// and all it left running have ended, before the record is made.
type turnGate struct {
	open, ended         chan struct{}
	openOnce, endedOnce sync.Once
}

func (g *turnGate) letStart() { g.openOnce.Do(func() { close(g.open) }) }
func (g *turnGate) end()      { g.endedOnce.Do(func() { close(g.ended) }) }

// Prepare starts building the sandbox of a run in the background:
// bubblewrap, the init, the mounts, the egress wall, the network
// connector and the reaper's start, all that comes before the command.
// The command itself does not start, and its deadline does not begin,
// until Wait is called; a run that is never waited for must be aborted.
// An audit prepares the next hooks' sandboxes while the current ones
// run, so that their start-up leaves the hooks' critical path.
func Prepare(ctx context.Context, spec Spec) *Pending {
	ctx, cancel := context.WithCancel(ctx)
	p := &Pending{gate: turnGate{open: make(chan struct{}), ended: make(chan struct{})}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer p.gate.end()
		p.res, p.err = runGated(ctx, spec, &p.gate)
	}()
	return p
}

// Wait lets the command start (once its sandbox is ready) and returns
// the run's result, as Run does.
func (p *Pending) Wait() (*Result, error) {
	p.gate.letStart()
	<-p.done
	p.cancel()
	return p.res, p.err
}

// CommandEnded is closed once the run's command, and everything it left
// running, has ended: nothing of the hook runs any more, though its
// record may still be in the making (Wait returns with it). A run that
// ends without a command to wait for (refused, aborted, failed) closes
// it when it ends. An audit starts the next hook's command here rather
// than after the record.
func (p *Pending) CommandEnded() <-chan struct{} { return p.gate.ended }

// Abort ends a run whose command has not been let start: its sandbox is
// torn down, and nothing of the command runs.
func (p *Pending) Abort() {
	p.cancel()
	<-p.done
}

// runGated is Run whose command, given a gate, waits until the gate is closed
// (see Prepare); everything before it is done meanwhile.
func runGated(ctx context.Context, spec Spec, gate *turnGate) (*Result, error) {
	defer reapStrays()
	// The host's runners, which a confined run masks (runView): a look at
	// every process, a millisecond or more on a busy host; and the
	// system-wide files it empties where they hold a credential, a
	// millisecond or two of expressions: both once a process, made beside
	// the first run's checks and probes before its view is needed.
	go hostRunnerRoots()
	go checkSystemCredentialFiles()
	res := &Result{Schema: ResultSchema}
	fail := func(tier Tier, err error) (*Result, error) { return failed(res, tier, err) }
	if len(spec.Command) == 0 {
		return fail(TierRefused, errors.New("no command to run"))
	}
	if err := checkEnvFile(spec.EnvFile, spec.EnvFileVar); err != nil {
		return fail(TierRefused, err)
	}
	if err := checkHomeDirs(spec.HomeDirs); err != nil {
		return fail(TierRefused, err)
	}
	if err := HomeFilesFit(spec); err != nil {
		return fail(TierRefused, err)
	}
	if spec.Limits.Pids != 0 && spec.Limits.Pids < MinPids {
		return fail(TierRefused, fmt.Errorf("process limit %d is below the %d the sandbox itself needs", spec.Limits.Pids, MinPids))
	}
	if spec.Limits.RunMemoryBytes != 0 && spec.Limits.RunMemoryBytes < MinRunMemory {
		return fail(TierRefused, fmt.Errorf("run memory limit %d bytes is below the %d MiB the sandbox itself needs (bubblewrap, vigiles' init and reaper)",
			spec.Limits.RunMemoryBytes, MinRunMemory>>20))
	}
	dir := spec.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return fail(TierRefused, fmt.Errorf("finding the work tree: %w", err))
		}
	}
	dir, err := filepath.Abs(dir)
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return fail(TierRefused, fmt.Errorf("work tree: %w", err))
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fail(TierRefused, fmt.Errorf("work tree %s is not a directory", dir))
	}
	spec.Dir = dir
	cwd := dir
	if spec.Cwd != "" {
		cwd = filepath.Join(dir, spec.Cwd)
		if !fsx.Under(cwd, dir) {
			return fail(TierRefused, fmt.Errorf("working directory %q is outside the work tree", spec.Cwd))
		}
	}
	mode := spec.Mode
	if mode == "" {
		mode = ModeAuto
	}
	c := assumedCapability()
	d := Decide(spec.Trusted, mode, c)
	switch d.Tier {
	case TierRefused:
		return fail(TierRefused, fmt.Errorf("%w: %s", ErrRefused, d.Reason))
	case TierDirect:
		if gate != nil {
			select {
			case <-gate.open:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				return fail(TierDirect, ctx.Err())
			}
		}
		return runDirect(ctx, spec, cwd, res)
	}
	// bubblewrap binds the host's mounts recursively, and a mount that
	// vanishes meanwhile (a container or a network namespace torn down
	// on a busy host) makes it fail before anything of the sandbox runs.
	// Such a start is tried again, when stdin can be given again too.
	if f, ok := spec.Stdin.(*os.File); ok {
		r, err := stdinPipe(f)
		if err != nil {
			return fail(TierConfined, fmt.Errorf("passing stdin on: %w", err))
		}
		defer r.Close()
		spec.Stdin = r
	}
	replay := stdinReplay(spec.Stdin)
	for attempt := 1; ; attempt++ {
		r, err := runConfined(ctx, spec, c.bwrap, cwd, gate, &Result{Schema: ResultSchema})
		var vm vanishedMount
		if !errors.As(err, &vm) {
			return r, err
		}
		if ctx.Err() != nil {
			return failed(r, TierConfined, ctx.Err())
		}
		if attempt == maxStarts || replay == nil || replay() != nil {
			return failed(r, TierConfined, fmt.Errorf("bubblewrap could not make the sandbox (%d attempts; a host mount vanished while it was bound): %s", attempt, vm.stderr))
		}
	}
}

// recordGrace is how long past the run's deadline (Spec.Timeout and
// Spec.Linger) the broker waits for the sandbox's result before it kills
// the sandbox: the write record is made after the command ends (a walk
// of what it wrote, about 20 µs an entry), so a command that leaves a
// million files just before its deadline has no record, and its run
// fails. A variable for the test that shows it (TestRecordPastTheGrace).
var recordGrace = 15 * time.Second

// leftoverOutput is how long a direct run's output is read after its
// command and what it left running are ended; orphanedOutput how long a confined run's is after
// bubblewrap exits (exec.Cmd.WaitDelay).
const (
	leftoverOutput = 250 * time.Millisecond
	orphanedOutput = 2 * time.Second
)

// maxStarts is how often a start that met a vanishing host mount is made.
// Each failed start costs about one bwrap start; the churn test (a mount
// made and removed without pause, on a loaded machine) met three failed
// starts in a row in about one run in 100.
const maxStarts = 8

// vanishedMount is a sandbox that bubblewrap could not make because a host
// mount vanished while it bound the tree; nothing of the sandbox ran.
type vanishedMount struct{ stderr string }

func (v vanishedMount) Error() string {
	return "a host mount vanished while bubblewrap bound it: " + v.stderr
}

// isVanishedMount reports whether bubblewrap's stderr is that race: it
// could not bind the tree, or apply the flags of one of its mounts, which
// the kernel says no longer exists (ENOENT) or is no longer mounted there
// (EINVAL), or whose new mount it no longer finds in the mount table (a
// host socket the broker covers with /dev/null, removed by its owner
// meanwhile: the kernel takes the mount off the removed file); or it
// could not make, or mount on, the mount point of a mask, which the
// broker asks for only where a directory or a file was (a caller's HOME,
// or a host socket, removed meanwhile), in the read-only root.
func isVanishedMount(stderr []byte) bool {
	has := func(s string) bool { return bytes.Contains(stderr, []byte(s)) }
	return has("Can't bind mount") &&
		(has("No such file or directory") || has("Unable to apply mount flags") && has("Invalid argument") || has("in mount table")) ||
		(has("Can't mkdir") || has("Can't create file at")) && has("Read-only file system") ||
		has("Can't mount tmpfs on") && has("No such file or directory")
}

// stdinPipe returns the read end of a pipe that f's bytes are copied into,
// to give a confined command instead of f: the caller's own descriptor
// would reach past the sandbox (a terminal the command could write escape
// sequences to and change the modes of, a directory whose host paths
// /proc/self/fd/0/… would walk past the masks, a file reopened for
// writing through /proc/self/fd/0 on a writable host mount). The copy
// ends at f's end or when the read end is closed and a write fails; a
// copy blocked reading a terminal that never ends is left to the process's
// exit.
func stdinPipe(f *os.File) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		io.Copy(w, f)
		w.Close()
	}()
	return r, nil
}

// stdinReplay returns what rewinds stdin for another start, or nil when
// it cannot be given again. A nil stdin and an *os.File (stdinPipe's,
// which bwrap passes on unread) need nothing; a seekable reader goes back
// to where it was.
func stdinReplay(r io.Reader) func() error {
	switch r := r.(type) {
	case nil, *os.File:
		return func() error { return nil }
	case io.Seeker:
		off, err := r.Seek(0, io.SeekCurrent)
		if err != nil {
			return nil
		}
		return func() error { _, err := r.Seek(off, io.SeekStart); return err }
	}
	return nil
}

// mountsInside lists the mount points strictly inside dir among mounts
// (the caller's mount namespace's), each once, and those of them that are
// the kernel's views of the host (kernelFS), which a copy must never take.
func mountsInside(dir string, mounts []fsx.Mount) (inside, kernel []string) {
	for _, m := range mounts {
		if m.Point == dir || !fsx.Under(m.Point, dir) {
			continue
		}
		if !slices.Contains(inside, m.Point) {
			inside = append(inside, m.Point)
		}
		if kernelFS[m.Type] && !slices.Contains(kernel, m.Point) {
			kernel = append(kernel, m.Point)
		}
	}
	return inside, kernel
}

// kernelFS are file systems that show the host's kernel state (a chroot's
// proc, sys and dev, mounted for a build): copied into the sandbox they
// would hand the command the host's processes (environments, command
// lines), devices and knobs, outside its own pid namespace, and reading
// them can take without end.
var kernelFS = map[string]bool{
	"proc": true, "sysfs": true, "devtmpfs": true, "devpts": true, "cgroup": true, "cgroup2": true,
	"debugfs": true, "tracefs": true, "securityfs": true, "bpf": true, "configfs": true, "pstore": true,
	"efivarfs": true, "binfmt_misc": true, "fusectl": true, "mqueue": true, "nsfs": true, "hugetlbfs": true,
	"autofs": true, "rpc_pipefs": true, "selinuxfs": true,
}

// mountList names the mounts inside dir for a refusal: relative to it,
// quoted, the first few.
func mountList(dir string, mounts []string) string {
	const shown = 4
	var names []string
	for i, m := range mounts {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(mounts)-shown))
			break
		}
		rel, _ := filepath.Rel(dir, m)
		names = append(names, strconv.Quote(rel))
	}
	return strings.Join(names, ", ")
}

// credWho says whose uid a root caller's sandbox runs as.
func credWho(treeByFD bool) string {
	if treeByFD {
		return "an unprivileged uid, since the work tree is root's"
	}
	return "the work tree's owner"
}

// failed ends a run that vigiles refused (err wraps ErrRefused: the tier
// becomes refused) or could not carry out: exit 125, no evidence.
func failed(res *Result, tier Tier, err error) (*Result, error) {
	// Out of descriptors (ulimit -n, or the host's table) wherever the
	// set-up hit it: a refusal that says so and names the fix.
	err = outOfFiles(err)
	res.Tier = tier
	if errors.Is(err, ErrRefused) {
		res.Tier = TierRefused
		res.Refusal = strings.TrimPrefix(err.Error(), ErrRefused.Error()+": ")
	} else if tier == TierRefused {
		// Refused before anything started (a limit below what the
		// sandbox needs, no command, no work tree): the reason is a
		// refusal, where result-format.md says it is.
		res.Refusal = err.Error()
	} else {
		res.Error = err.Error()
	}
	res.ExitCode = 125
	res.Writes, res.Egress, res.EgressDropped, res.WritesMethod = nil, nil, nil, ""
	return res, err
}

// runDirect runs the command in the open (tier B). Writes and Egress are
// not recorded: they stay nil. What the command leaves running is: its
// lingered list, as a confined run's, as far as a run in the open can see
// it (directleft.go).
func runDirect(ctx context.Context, spec Spec, cwd string, res *Result) (*Result, error) {
	res.Tier = TierDirect
	fsx.CloexecFrom(3)
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	env := hookEnv(os.LookupEnv, os.Environ(), spec.Env)
	env = replaceEnv(env, "HOME", os.Getenv("HOME"))
	for _, k := range ownUserEnv {
		if u, ok := os.LookupEnv(k); ok {
			env = replaceEnv(env, k, u)
		}
	}
	env = replaceEnv(env, "TMPDIR", os.TempDir())
	if spec.ParentPIDVar != "" {
		env = replaceEnv(env, spec.ParentPIDVar, strconv.Itoa(os.Getpid()))
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	if !strings.Contains(spec.Command[0], "/") {
		cmd.Path = reaper.LookPath(spec.Command[0], env)
		cmd.Err = nil
	}
	cmd.Dir, cmd.Env = cwd, env
	// A session of its own, as a confined command's (bubblewrap's
	// --new-session): what it leaves is told by its session id.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// A process the command left that the run cannot see (moved to
	// another session) may hold its stdout: the run ends with the
	// command and what it left, not with that process.
	cmd.WaitDelay = leftoverOutput
	// A direct run is an opt-out: its output passes through whole, as
	// its files are written unbounded.
	out := newCapture(spec, 0)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinOf(spec), out.stdout, out.stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		// Not found or not executable: the command's result (127, as a
		// shell says it), as in a confined run; not a failure of vigiles.
		fmt.Fprintf(out.stderr, "%s: %v\n", spec.Command[0], err)
		out.fill(res)
		res.ExitCode = 127
		return res, nil
	}
	pid := cmd.Process.Pid
	// Not reaped until what it left is listed and ended: its pid, the
	// session's id, stays its own meanwhile.
	exited := make(chan struct{})
	go func() { exitedNoReap(pid); close(exited) }()
	var left []reaper.Process
	select {
	case <-exited:
		res.DurationMs = ms(time.Since(start))
		// What it left gets the linger from its exit, as in a confined
		// run; whatever is left then is listed, and ended.
		left = lingerDirect(ctx, pid, time.Now(), spec.Linger)
	case <-time.After(timeout):
		// What ran beside it at the deadline: Claude Code ends the
		// hook's process then and lets those run on (survivors).
		res.TimedOut = true
		res.DurationMs = ms(time.Since(start))
		left, _ = directLeft(pid)
	case <-ctx.Done():
		res.DurationMs = ms(time.Since(start))
	}
	if ctx.Err() == nil {
		res.Lingered = shownLingered(left)
	}
	// Whatever the command left in its session goes with it; and what
	// of it was left to this process (a subreaper once a confined run
	// has started) is reaped, not left a zombie for as long as the
	// audit runs: before the command itself, whose pid, the group's id,
	// is its own until then. Where it exited and left nothing running,
	// a kill of its group ends what is there: no scan of every
	// process's stat (endDirect's); reapGroup reads this process's
	// children alone.
	if left == nil && !res.TimedOut && ctx.Err() == nil {
		syscall.Kill(-pid, syscall.SIGKILL)
	} else {
		endDirect(pid)
	}
	reapGroup(pid)
	cmd.Wait()
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		res.ExitCode, res.Signal = 128+int(ws.Signal()), signalName(ws.Signal())
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	out.fill(res)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// socketsFound is hostSocketMasks' answer, from the goroutine runConfined
// starts it in.
type socketsFound struct {
	dirs, files []string
	err         error
}

// scrubbedConfigs is configsToScrub's answer: the configs bubblewrap
// covers with scrubbed copies, or the run's refusal.
type scrubbedConfigs struct {
	configs []scrubbedConfig
	err     error
}

// configsToScrub finds the configs around the tree dir that hold a
// credential and that a run of view could read, each once: those of the
// checkouts the tree is in or lies beside in a CI workspace the command
// sees (outsideGitConfigs), the host's system git configs
// (systemGitConfigs) and its system-wide files that hold a token
// (systemCredentialFiles). Each error is the run's refusal, with its
// fix.
func configsToScrub(dir string, view hostView) scrubbedConfigs {
	fail := func(err error) scrubbedConfigs { return scrubbedConfigs{err: fmt.Errorf("%w: %w", ErrRefused, err)} }
	// Checkouts beside the tree, in a CI workspace the command sees: their
	// configs are bubblewrap's to cover, so they are searched for now.
	var beside []string
	if ws := gitSearchRoot(dir, view, os.Getenv); ws != dir {
		var err error
		if beside, err = gitTreesUnder(ws, dir); err != nil {
			return fail(fmt.Errorf("searching the workspace for checkouts whose git credentials to hide: %w; fix: give a smaller work tree (%s)", err, workTreeFlags))
		}
	}
	gits, err := outsideGitConfigs(dir, beside, view)
	if err != nil {
		return fail(fmt.Errorf("hiding the git credentials around the work tree: %w; fix: %s", err, credentialsFix))
	}
	// The host's system git config, which every git reads, whatever
	// repository it is in.
	sys, err := systemGitConfigs(view, os.Getenv)
	if err != nil {
		return fail(fmt.Errorf("hiding the git credentials of the host's system git config: %w; fix: %s", err, systemCredentialsFix))
	}
	// The host's system-wide files where an image keeps a token or a
	// password for every user (a proxy's, a package index's), empty.
	sysFiles, err := systemCredentialFiles(view)
	if err != nil {
		return fail(fmt.Errorf("hiding the credentials of the host's system-wide configuration: %w; fix: %s", err, systemFilesFix))
	}
	for _, g := range append(sys, sysFiles...) {
		if !slices.ContainsFunc(gits, func(c scrubbedConfig) bool { return c.path == g.path }) {
			gits = append(gits, g)
		}
	}
	return scrubbedConfigs{configs: gits}
}

// runConfined runs spec in a sandbox bubblewrap (at bwrap; "" to look it
// up) makes.
func runConfined(ctx context.Context, spec Spec, bwrap, cwd string, gate *turnGate, res *Result) (*Result, error) {
	res.Tier = TierConfined
	fsx.CloexecFrom(3) // only what is handed on purpose crosses into the sandbox
	fail := func(err error) (*Result, error) { return failed(res, TierConfined, err) }
	// The host's other network and mount namespaces (a stat and a
	// readlink of each process's, some 10 µs a process) are looked for
	// beside the rest of the set-up, for hostSocketMasks.
	otherNS := make(chan otherNamespaces, 1)
	go func() { otherNS <- findOtherNamespaces("/proc") }()
	if err := normalScheduling(); err != nil {
		return fail(fmt.Errorf("%w: giving vigiles' processes normal scheduling: %v; fix: start vigiles without a realtime policy (chrt) or a negative nice value", ErrRefused, err))
	}
	if bwrap == "" {
		var err error
		if bwrap, err = hostprog.Find("bwrap"); err != nil {
			return fail(fmt.Errorf("%w: bubblewrap: %v; fix: %s", ErrRefused, err, hostprog.FixFor(err, DefaultFix)))
		}
	}
	exe, err := sandboxExecutable()
	if err != nil {
		return fail(fmt.Errorf("finding the vigiles binary: %w", err))
	}
	timeout := spec.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cfg := initConfig{
		Protocol:     initProtocol,
		Workdir:      exact.String(spec.Dir),
		Cwd:          exact.String(cwd),
		Command:      spec.Command,
		Env:          hookEnv(os.LookupEnv, os.Environ(), spec.Env),
		Timeout:      timeout,
		Linger:       spec.Linger,
		Limits:       spec.Limits.WithDefaults(),
		WritesMethod: spec.WritesMethod,
		Network:      network != nil,
		Egress:       spec.Egress,
		EnvFile:      exact.String(spec.EnvFile),
		HomeDirs:     spec.HomeDirs,
		HomeFiles:    spec.HomeFiles,
	}
	if spec.EnvFile != "" {
		cfg.Env = replaceEnv(cfg.Env, spec.EnvFileVar, sandboxHome+"/"+spec.EnvFile)
	}
	if spec.ParentPIDVar != "" {
		cfg.Env = replaceEnv(cfg.Env, spec.ParentPIDVar, "1") // the reaper starts the command
	}
	if cfg.Egress.Mode == "" {
		cfg.Egress.Mode = evidence.EgressDeny
	}
	needAttach := network != nil && cfg.Egress.Mode == evidence.EgressAllow
	attachEarly := false
	if needAttach {
		// Chosen here, before anything starts: the init must know it
		// (it configures slirp4netns's tap), and a host that cannot
		// connect is refused without starting a sandbox.
		name, early, err := network.Connector(cfg.Egress)
		if err != nil {
			return fail(fmt.Errorf("%w: choosing the network connector: %w", ErrRefused, err))
		}
		cfg.Egress.Connector, attachEarly = name, early
		// Through the connector a connection to the host's own address
		// comes from the host itself: the init's DNS stub refuses them
		// as answers, and only the broker, in the host's network
		// namespace, can list them.
		if cfg.HostAddrs, err = hostAddrs(); err != nil {
			return fail(fmt.Errorf("%w: listing the host's addresses (for allow mode to refuse them): %w", ErrRefused, err))
		}
	}
	// A root caller never runs the sandbox as the host's root unless told
	// to (RootSandbox): it runs it as the work tree's owner when that is
	// not root, and as SandboxUID, with the tree id-mapped, when it is.
	// The command can then change the tree it was given, the process
	// limit holds (RLIMIT_NPROC does not for uid 0), and files only root
	// may read stay unreadable.
	var cred *syscall.Credential
	treeByFD := false
	if os.Geteuid() == 0 {
		var st syscall.Stat_t
		if err := syscall.Stat(spec.Dir, &st); err != nil {
			return fail(fmt.Errorf("the work tree: %w", err))
		}
		switch {
		case st.Uid != 0:
			cred = &syscall.Credential{Uid: st.Uid, Gid: ownerGid(st.Uid, st.Gid), Groups: []uint32{}}
		case !spec.RootSandbox:
			if id, file := unmappedSandboxID(); file != "" {
				return fail(fmt.Errorf("%w: %s", ErrRefused, unmappedRefusal(spec.Dir, id, file)))
			}
			uid, err := sandboxUIDs.take()
			if err != nil {
				return fail(err)
			}
			defer sandboxUIDs.release(uid)
			cred = &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}
			treeByFD = true
		}
	}
	// What the run sees of the host: the fixed masks, a CI runner's
	// secrets and the caller's HOME (masked too), and, for another uid,
	// what that uid may reach.
	view, maskDirs, maskFiles := runView(spec.StrictFS, cred, os.Getenv)
	// The directories of secrets and of the other tenants' state masked
	// whole: a tree that holds one, or a mount inside the tree from one
	// (a Docker volume bound into a checkout), is refused as for the
	// masks above.
	secretMasks := secretDirsEntered(view)
	// What needs only the view is looked for beside the checks that
	// follow, each waited for where its masks join bubblewrap's: the
	// host's unix sockets (which wait for findOtherNamespaces), and the
	// git and system-wide configs to scrub (which wait, in a process's
	// first run, for checkSystemCredentialFiles). Called in line, each
	// held back the checks below while it waited.
	socketsCh := make(chan socketsFound, 1)
	go func() {
		var s socketsFound
		s.dirs, s.files, s.err = hostSocketMasks(spec.Dir, view, <-otherNS)
		socketsCh <- s
	}()
	configsCh := make(chan scrubbedConfigs, 1)
	go func() { configsCh <- configsToScrub(spec.Dir, view) }()
	if claude := sandboxHome + "/.claude"; fsx.Under(spec.Dir, claude) {
		// The init makes the env file's and the plugin data's
		// directories there in the command's HOME, and reads the env
		// file from it; the tree's overlay mounted over them would hide
		// both from the hook and the env file from the record.
		return fail(fmt.Errorf("%w: the work tree %s lies in %s, where a confined run keeps the command's Claude Code files (its CLAUDE_ENV_FILE, its plugins' data) in its HOME; fix: copy the tree elsewhere (cp -r %s /tmp/tree) and run there", ErrRefused, spec.Dir, claude, spec.Dir))
	}
	if h := hiddenInTree(spec.Dir, view, slices.Concat(maskFiles, secretMasks)); h != "" {
		if envNamesDir(os.Getenv("TMPDIR"), h) {
			// A project's TMPDIR=$PWD/.tmp: another directory would hold
			// it as well.
			return fail(fmt.Errorf("%w: the work tree %s holds the caller's TMPDIR=%s, which a confined run hides from the command (another tool's files and sockets there), and the tree is shown whole; fix: point TMPDIR outside the work tree for vigiles (TMPDIR=/tmp vigiles …)", ErrRefused, spec.Dir, h))
		}
		if home := os.Getenv("HOME"); envNamesDir(home, h) {
			// HOME=. in the tree: any directory given would be HOME. An
			// absolute one too (a container's -w /work -e HOME=/work):
			// the tree given holds only the project, and HOME with it.
			named, other := home, ""
			if home != h {
				named += " (" + h + ")"
			}
			if ownHomeIsTree(home, spec.Dir) {
				// vigiles run from ~ itself: HOME is the caller's own,
				// and the tree is the wrong one.
				return fail(fmt.Errorf("%w: the work tree %s is the caller's home directory (HOME=%s), which a confined run hides from the command (its credentials); fix: run vigiles in the project's own directory (cd into it, or name it: %s)", ErrRefused, spec.Dir, home, workTreeFlags))
			}
			if filepath.IsAbs(home) {
				other = ", or give a work tree that does not hold it (" + workTreeFlags + ")"
			}
			return fail(fmt.Errorf("%w: the work tree %s holds the caller's HOME=%s, which a confined run hides from the command (its credentials), and the tree is shown whole; fix: set HOME outside the work tree for vigiles (HOME=/home/$USER vigiles …; in a container, -e HOME=/root)%s", ErrRefused, spec.Dir, named, other))
		}
		// A project's GNUPGHOME=$PWD/.gnupg (a test suite's signing
		// keys), a runtime dir in it, an XDG_CONFIG_HOME=$PWD/.config or
		// a CI job's XDG_CACHE_HOME in its workspace: a TMPDIR given to
		// vigiles alone would leave the keys, sockets and logins in the
		// tree, shown whole.
		for _, d := range []struct{ name, what string }{
			{"GNUPGHOME", "private keys and its agent's sockets"},
			{"XDG_RUNTIME_DIR", "its agents' and services' sockets, which answer as the caller"},
			{"XDG_CONFIG_HOME", "its tools' logins and tokens"},
			{"XDG_DATA_HOME", "its keyrings, password stores and browser profiles"},
			{"XDG_STATE_HOME", "its shell history and tools' state"},
			{"XDG_CACHE_HOME", "tokens and sessions its tools keep there"},
			{"PASSWORD_STORE_DIR", "its passwords"},
		} {
			if envNamesDir(os.Getenv(d.name), h) {
				return fail(fmt.Errorf("%w: the work tree %s holds the caller's %s=%s (%s), which a confined run hides from the command (%s), and the tree is shown whole; fix: move %s out of the work tree (in a workflow's env, %s: ${{ runner.temp }}/%s), or give a work tree that does not hold it (%s)", ErrRefused, spec.Dir, d.name, os.Getenv(d.name), h, d.what, d.name, d.name, strings.ToLower(d.name), workTreeFlags))
			}
		}
		return fail(fmt.Errorf("%w: the work tree %s holds %s, which a confined run hides from the command (a HOME, a TMPDIR, a runner's files, secrets), and the tree is shown whole; fix: give a directory that holds only the project (cd into it, or name it: %s)", ErrRefused, spec.Dir, h, workTreeFlags))
	}
	// A mount inside the tree is shown with it: one of a hidden path (the
	// caller's HOME bind-mounted at TREE/h) would show what the mask
	// hides at its own path.
	mounts, err := fsx.Mounts()
	if err != nil {
		return fail(fmt.Errorf("%w: listing the file systems mounted inside the work tree: %w", ErrRefused, err))
	}
	if m, h, how := hiddenMountInTree(spec.Dir, view, slices.Concat(maskFiles, secretMasks), mounts); m != "" {
		return fail(fmt.Errorf("%w: the work tree %s has a file system mounted inside it (%s) whose source %s %s, which a confined run hides from the command (a HOME, a TMPDIR, a runner's files, secrets), and the tree is shown whole; fix: unmount it, or give a directory that holds only the project (cd into it, or name it: %s)", ErrRefused, spec.Dir, mountList(spec.Dir, []string{m}), how, h, workTreeFlags))
	}
	// Credential files the caller's environment names: in the tree the
	// init shows them empty (in its layer above the tree); elsewhere,
	// where the run would read them, bubblewrap covers them with
	// /dev/null, as a runner's own credentials.
	for _, f := range envCredentialFiles(os.Getenv) {
		switch {
		case fsx.Under(f, spec.Dir):
			rel, _ := filepath.Rel(spec.Dir, f)
			cfg.CredentialFiles = append(cfg.CredentialFiles, rel)
		case view.reads(f, 0o4):
			maskFiles = append(maskFiles, f)
		}
	}
	// The agents and engines it names sockets of (SSH_AUTH_SOCK,
	// DOCKER_HOST): covered with /dev/null where the run could connect
	// (a connect needs write permission, which a read-only mount does
	// not take away).
	for _, s := range envCredentialSockets(os.Getenv) {
		if !fsx.Under(s, spec.Dir) && view.reads(s, 0o2) {
			maskFiles = append(maskFiles, s)
		}
	}
	// Other CI systems' temporary directories, where a job's secret files
	// are (GitLab's <CI_PROJECT_DIR>.tmp, Azure Pipelines', Jenkins'),
	// masked after the host's sockets (below).
	ciDirs, ciHeld := ciTempDirs(os.Getenv, spec.Dir, view)
	if len(ciHeld) > 0 {
		return fail(fmt.Errorf("%w: the work tree %s holds the CI job's temporary directory %s, where its secret files are, which a confined run hides from the command, and the tree is shown whole; fix: give the project's own directory as the work tree (%s)", ErrRefused, spec.Dir, ciHeld[0], workTreeFlags))
	}
	// The checkouts nested in the tree, whose configs the init scrubs,
	// are searched for beside bubblewrap's start: the init needs them
	// with its config, not before.
	nestedCh := make(chan nestedGits, 1)
	go func() {
		dirs, dotenv, err := scanTree(spec.Dir, "")
		nestedCh <- nestedGits{dirs, dotenv, err}
	}()
	if cred != nil {
		// bubblewrap, as that uid, walks the host's path to the tree (to
		// bind it, or to make its mount point) and execs the binary.
		who := credWho(treeByFD)
		if problem, fix := unreachable(spec.Dir, exe, cred.Uid, cred.Gid, !treeByFD, view); problem != "" {
			if treeByFD {
				fix += "; or accept a sandbox whose uid 0 is the host's root with --root-sandbox"
			}
			return fail(fmt.Errorf("%w: the sandbox runs as uid %d (%s), which %s; fix: %s", ErrRefused, cred.Uid, who, problem, fix))
		}
	}
	// File systems mounted inside the tree (a tmpfs or a bind mount at
	// node_modules): the id-mapped hand-over takes the tree's own mount
	// alone, and overlayfs refuses a lower layer that holds mounts the
	// sandbox's user namespace did not make (locked with it: EINVAL). So
	// such a tree is recorded by copy, which walks into them, or refused
	// where even the copy could not see them: never shown with empty
	// directories in their place, against which a hook's writes would be
	// recorded as if the host had nothing there.
	inside, kernel := mountsInside(spec.Dir, mounts)
	if len(inside) > 0 {
		switch {
		case len(kernel) > 0:
			return fail(fmt.Errorf("%w: the work tree %s has the host kernel's own file systems mounted inside it (%s, as a chroot has its proc, sys and dev for a build), which a copy of the tree would hand the command; fix: unmount them, or give a directory that holds only the project (%s)",
				ErrRefused, spec.Dir, mountList(spec.Dir, kernel), workTreeFlags))
		case treeByFD:
			return fail(fmt.Errorf("%w: the work tree %s has file systems mounted inside it (%s), which the root-owned tree's id-mapped hand-over to an unprivileged sandbox leaves out (the command would see empty directories there); fix: unmount them, give the work tree a non-root owner (the sandbox then runs as that owner and records writes by copy), or accept a sandbox whose uid 0 is the host's root with --root-sandbox (config: defaults.root-sandbox: true)",
				ErrRefused, spec.Dir, mountList(spec.Dir, inside)))
		case spec.WritesMethod == "overlay":
			return fail(fmt.Errorf("%w: the work tree %s has file systems mounted inside it (%s), and overlayfs in the sandbox cannot take a lower layer with mounts inside it; fix: record writes by copy (--writes copy, which the default falls back to), or unmount them",
				ErrRefused, spec.Dir, mountList(spec.Dir, inside)))
		}
		cfg.WritesMethod = "copy"
	}
	cfg.TreeByFD = treeByFD
	// A sandbox of another uid sends its namespaces: the tree is mapped
	// through its user namespace, and a connector may need both.
	cfg.SendNS = treeByFD || (needAttach && cred != nil)
	hostRoot := cred == nil && os.Geteuid() == 0 // the sandbox's uid 0 is the host's root
	if network != nil {
		network.Sweep() // as newRunCgroup sweeps cgroups
	}
	cg, err := newRunCgroup(os.Geteuid() == 0, hostRoot, cred != nil, cfg.Limits)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrRefused, err))
	}
	defer cg.remove()
	if spec.Limits.RunMemoryBytes != 0 && !cg.holdsMemory() {
		// Asked for (--limit-run-memory, limits.run-memory) and not
		// held: the run would be weaker than the caller was told.
		return fail(fmt.Errorf("%w: %v", ErrRefused, runMemoryRefusal(spec.Limits.RunMemoryBytes, os.Geteuid() == 0, cred != nil)))
	}
	cfg.Limits.ScratchBytes, cfg.ScratchInodes = cg.scratch(cfg.Limits)
	// The command waits for the connector, or for its turn (Prepare).
	cfg.WaitGo = needAttach || gate != nil
	cfg.PidsByCgroup = cg.bindsPids()
	// The objects the kernel counts per user are the sandbox's host
	// uid's too, which the other lanes' sandboxes and a non-root
	// caller's own programs share (ucounts.go).
	cfg.UserCounts = userCountsFor(spec.Lanes, hostUserCount)
	// A non-root caller's command shares the caller's own process limit
	// with vigiles and the other lanes' commands (the kernel counts the
	// uid's processes and threads together): its limit is its lane's
	// share of it less pidsReserve for vigiles, and the reaper's count
	// of the command's tasks, which names limitHit "pids", is checked
	// against the lowered limit, as is the caller's hard limit
	// (rlimitsFit). A root caller is not bounded by its RLIMIT_NPROC.
	if !cfg.PidsByCgroup && os.Geteuid() != 0 {
		var np unix.Rlimit
		if err := unix.Getrlimit(unix.RLIMIT_NPROC, &np); err != nil {
			return fail(fmt.Errorf("%w: reading this process's process limit: %w", ErrRefused, err))
		}
		if cfg.Limits.Pids, err = pidsUnder(cfg.Limits.Pids, np.Cur, spec.Lanes); err != nil {
			return fail(fmt.Errorf("%w: %w", ErrRefused, err))
		}
	}
	if err := rlimitsFit(cfg.Limits, !cfg.PidsByCgroup); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrRefused, err))
	}

	host, _ := os.Hostname()
	p := plan{Bwrap: bwrap, Workdir: spec.Dir, Hostname: host, StrictFS: spec.StrictFS, TreeByFD: treeByFD, Lookup: lookupHostPath, InitArgs: []string{initArg}}
	// The git credentials a checkout left around the tree (those in it
	// the init hides; see gitcreds.go), and the host's system-wide
	// configs that hold one (configsToScrub).
	sc := <-configsCh
	if sc.err != nil {
		return fail(sc.err)
	}
	gits := sc.configs
	for _, g := range gits {
		p.DataFiles = append(p.DataFiles, g.path)
	}
	// And every other socket a daemon of the host listens on outside the
	// masks (a container engine's or LXD's under /var/lib or /var/snap,
	// one of a daemon in a network namespace of its own), which answers
	// whoever may write it, the caller's groups counted.
	sockets := <-socketsCh
	if sockets.err != nil {
		return fail(fmt.Errorf("%w: %w", ErrRefused, sockets.err))
	}
	for _, s := range sockets.files {
		if !slices.Contains(maskFiles, s) {
			maskFiles = append(maskFiles, s)
		}
	}
	for _, d := range slices.Concat(sockets.dirs, ciDirs) {
		if !slices.Contains(maskDirs, d) {
			maskDirs = append(maskDirs, d)
		}
	}
	// uid 0 owns these; another uid is kept out by their modes, unless
	// its group or an ACL lets it in (a non-root caller in group shadow),
	// so what the run may read is covered.
	for _, f := range existingSecretFiles() {
		if view.mayRead(f, 0o4) {
			p.MaskFiles = append(p.MaskFiles, f)
		}
	}
	// The directories of secrets masked whole (secretDirsEntered): the
	// files found in them are under the mask.
	for _, d := range secretMasks {
		maskDirs = append(maskDirs, d)
		p.MaskFiles = slices.DeleteFunc(p.MaskFiles, func(f string) bool { return fsx.Under(f, d) })
	}
	// A CI runner's secrets, the caller's, and those named above.
	p.MaskDirs, p.MaskFiles = maskDirs, append(p.MaskFiles, maskFiles...)
	cfg.MaskDirs = maskDirs
	cfg.CallerHome = exact.String(shownCallerHome(os.Getenv("HOME"), view, maskDirs))
	// /run/lock and the caller's /run/user/UID, where the host has them
	// and the caller may write them (the uid the hook runs as under Claude
	// Code: this process's, also where a root caller's sandbox runs as a
	// uid of its own), are shown as throwaways of the scratch, recorded.
	cfg.RunAreas = hostRunAreas(os.Getuid(), os.Lstat, callerMayWrite)
	// The caller's XDG_RUNTIME_DIR where it names the runtime directory
	// the run shows, as a hook under Claude Code has it: $XDG_RUNTIME_DIR/x
	// is then recorded, where without it the hook wrote to "/x" and failed.
	// It is passed as the caller has it, also where it names the directory
	// by another spelling (/run/user/1000/, with a trailing slash, as
	// pam_systemd's never is but a user's profile may set it).
	if x, ok := os.LookupEnv("XDG_RUNTIME_DIR"); ok && filepath.IsAbs(x) && filepath.Clean(x) != runLock && slices.Contains(cfg.RunAreas, filepath.Clean(x)) {
		cfg.Env = replaceEnv(cfg.Env, "XDG_RUNTIME_DIR", x)
	}
	// With an id-mapped tree the tool caches are handed id-mapped too
	// (handTree; chooseToolCaches asks the caller's permissions then, and
	// passes over one that holds a secret the run hides). The clone is
	// not recursive, and a tool cache with a file system mounted inside
	// it is refused by the init, whose mountinfo lists the host's mounts
	// there even under a mask (mountToolCaches).
	secrets := func() []string {
		return slices.Concat(p.MaskFiles, secretMasks, envCredentialFiles(os.Getenv), envCredentialSockets(os.Getenv))
	}
	var tcChoices [len(toolCacheVars)]toolCacheChoice
	chooseToolCaches(&tcChoices, os.Getenv, spec.Dir, &view, treeByFD, maskDirs, string(cfg.CallerHome), secrets)
	cfg.ToolCaches = coveredToolCaches(&tcChoices)
	p.ToolCaches = cfg.ToolCaches
	if raceBuild {
		// The race runtime's exit sleep (a second, in the init and in the
		// reaper) would count against the command's deadline.
		p.Env = append(p.Env, "GORACE=atexit_sleep_ms=0")
	}
	argv := bwrapArgs(p)
	// On cgroup v2 a shell moves itself into the run's cgroup and execs
	// bwrap; on v1 cg.start forks bwrap inside (see runCgroup.start).
	argv = append(cg.shellPrefix(), argv...)

	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	// Four pipes: the config, the result, bubblewrap's info and the
	// ready signal. Out of descriptors (a low ulimit -n) is a failure of
	// the run, said as one.
	var pipes [4][2]*os.File
	for i := range pipes {
		r, w, err := os.Pipe()
		if err != nil {
			return fail(fmt.Errorf("making the sandbox's pipes: %w", err)) // outOfFiles names the fix
		}
		closers = append(closers, r, w)
		pipes[i] = [2]*os.File{r, w}
	}
	cfgR, cfgW := pipes[0][0], pipes[0][1]
	resR, resW := pipes[1][0], pipes[1][1]
	infoR, infoW := pipes[2][0], pipes[2][1]
	readyR, readyW := pipes[3][0], pipes[3][1]
	// The control channel is a socket: besides "go" it carries the
	// id-mapped work tree's descriptor. The broker's end is a
	// net.UnixConn, read and written in the runtime's poller: a goroutine
	// blocked in recvmsg for the whole start of the sandbox would keep a
	// P, and the runtime's sysmon waking (see internal/procwait). The
	// init's end stays a blocking descriptor.
	ctl, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail(fmt.Errorf("making the control socket: %w", err))
	}
	ctlR, ctlF := os.NewFile(uintptr(ctl[1]), "control"), os.NewFile(uintptr(ctl[0]), "control")
	closers = append(closers, ctlR)
	ctlConn, err := net.FileConn(ctlF) // a non-blocking duplicate
	ctlF.Close()
	if err != nil {
		return fail(fmt.Errorf("making the control socket: %w", err))
	}
	ctlW := ctlConn.(*net.UnixConn)
	closers = append(closers, ctlW)
	exeFile, err := os.Open(exe)
	if err != nil {
		return fail(fmt.Errorf("opening the in-sandbox binary: %w", err))
	}
	closers = append(closers, exeFile)
	// Checked on the descriptor handed in: the init runs from it with
	// every capability of the sandbox's user namespace, and writes the
	// record.
	var exeSt unix.Stat_t
	if err := unix.Fstat(int(exeFile.Fd()), &exeSt); err != nil {
		return fail(fmt.Errorf("the in-sandbox binary: %w", err))
	}
	if othersMayRewrite(&exeSt) {
		return fail(fmt.Errorf("%w: the in-sandbox binary %s may be rewritten by another user (mode %o, owner uid %d, group %d), and it runs in every sandbox as its init; fix: chmod go-w %s, owned by root or by you",
			ErrRefused, exe, exeSt.Mode&0o7777, exeSt.Uid, exeSt.Gid, exe))
	}
	// The reaper starts from vigiles-reaper where it lies beside the
	// in-sandbox binary and may be used (see reaperExecutable); else from
	// the init's own binary, which carries every role. nil: fdReaper is
	// closed in bwrap.
	reaperFile := reaperExecutable(exe, cred)
	if reaperFile != nil {
		closers = append(closers, reaperFile)
	}
	cfg.ReaperByFD = reaperFile != nil
	// The command's pids cgroup, which the reaper's forking thread joins
	// (runCgroup.migrate). nil: fdCgroup is closed in bwrap.
	migrate, err := cg.migrate()
	if err != nil {
		return fail(fmt.Errorf("%w: opening the command's pids cgroup: %w", ErrRefused, err))
	}
	if migrate != nil {
		closers = append(closers, migrate)
	}
	extra := []*os.File{cfgR, resW, ctlR, infoW, readyW, exeFile, reaperFile, migrate}
	for _, g := range gits {
		f, err := dataFile("vigiles-gitconfig", g.clean)
		if err != nil {
			return fail(fmt.Errorf("%w: hiding the git credentials around the work tree: %w; fix: %s", ErrRefused, err, credentialsFix))
		}
		closers = append(closers, f)
		extra = append(extra, f)
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = hostprog.Env()
	// Once bubblewrap is gone its sandbox is too (its pid 1 takes the
	// namespace with it), and with it every writer of these pipes, except
	// a sandbox bubblewrap orphaned: killed before its pid 1 asked to die
	// with its parent, it lives on with them. Where the run has a cgroup
	// the kill ends it too (runCgroup.kill); elsewhere Wait must not wait
	// for it (a cancelled audit hung on one); returning closes the control
	// socket, on which its init then reads the end.
	cmd.WaitDelay = orphanedOutput
	out := newCapture(spec, spec.Limits.WithDefaults().FileBytes)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinOf(spec), out.stdout, out.stderr
	cmd.ExtraFiles = extra // fdConfig, fdResult, fdControl, fdInfo, fdReady, fdExe, fdReaper, fdCgroup, then fdData and on
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: cred}
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return fail(err) // cancelled while it was being planned: start nothing
	}
	becomeSubreaper()
	if err := cg.start(cmd); err != nil {
		// Only the exec's own failure: the cgroup's set-up around it
		// (cgroup v1) fails with EPERM and EINVAL of its own files.
		var pe *fs.PathError
		if cred != nil && errors.As(err, &pe) && pe.Op == "fork/exec" && (errors.Is(pe.Err, syscall.EINVAL) || errors.Is(pe.Err, syscall.EPERM)) {
			// The kernel would not let bubblewrap's child take the
			// sandbox's uid and gid (one outside this user namespace's
			// maps, a setgroups it denies): nothing started.
			fix := "a work tree whose owner and its primary group (in /etc/passwd) this namespace maps (chown it to such a user)"
			if treeByFD {
				// Only a root-owned tree's sandbox uid is vigiles'
				// choice; another tree's is its owner's.
				fix += ", or accept a sandbox whose uid 0 is the host's root with --root-sandbox"
			}
			return fail(fmt.Errorf("%w: starting bubblewrap as uid %d, gid %d (%s): %w: the kernel refused that uid or gid (one outside this user namespace's maps, /proc/self/uid_map and /proc/self/gid_map?); fix: %s", ErrRefused, cred.Uid, cred.Gid, credWho(treeByFD), err, fix))
		}
		return fail(fmt.Errorf("starting bubblewrap: %w", err))
	}
	// Before the init has its config, so before the command can run.
	giveStdio(cmd.Process.Pid, cred)
	// bubblewrap gives its child's pid right after making the namespaces
	// (0: it wrote none). Its child, pid 1 of the sandbox's pid namespace,
	// is reaped here once bubblewrap has gone (reapOrphan).
	infoCh := make(chan int, 1)
	go func() {
		var info struct {
			ChildPid int `json:"child-pid"`
		}
		_ = json.NewDecoder(infoR).Decode(&info)
		infoCh <- info.ChildPid
	}()
	childPid := sync.OnceValue(func() int { return <-infoCh })
	defer reapOrphan(childPid) // bubblewrap is gone by then: every path out waits for it
	// Decoding the init's result and encoding the report are made ready
	// while the sandbox runs, not after it.
	go warmBrokerJSON()
	cfgR.Close()
	resW.Close()
	ctlR.Close()
	infoW.Close()
	readyW.Close()
	exeFile.Close()
	reaperFile.Close()
	migrate.Close() // the sandbox holds it: a root-opened cgroup file no longer than needed
	waitDone := make(chan error, 1)
	go func() { procwait.Exited(cmd.Process.Pid); waitDone <- cmd.Wait() }()
	kill := func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cg.kill() // and a child bubblewrap orphaned, outside its group
	}
	// cancel is kill for a cancelled run, which reads nothing more of the
	// sandbox: the ready pipe's read end is closed too, so that an init
	// a child bubblewrap orphaned runs (where no cgroup of the run holds
	// it: a non-root caller's) ends at once (dieWithBroker), and its
	// sandbox with it, not once this returns, after Wait waited out
	// orphanedOutput for its output pipes.
	cancel := func() {
		kill()
		readyR.Close()
	}

	// The init's result arrives on its own pipe, read concurrently.
	// Its write record is decoded as it comes (readResult).
	resultCh := make(chan rawResult, 1)
	go func() {
		r, tooLarge := readResult(resR)
		if tooLarge {
			// The run fails.
			r.doc = []byte(fmt.Sprintf(`{"ok":false,"error":"the sandbox's result is larger than the %d MiB vigiles reads; nothing it recorded is reported"}`, maxResult>>20))
		}
		resultCh <- r
	}()
	// startFailed reports a sandbox that ended before its init took over:
	// bubblewrap's own message says why (no user namespaces, a host mount
	// that vanished under it), and nothing of the command ran.
	startFailed := func() (*Result, error) {
		kill()
		<-waitDone
		if isVanishedMount(out.stderrBytes()) {
			return res, vanishedMount{tail(out.stderrBytes())}
		}
		return fail(bwrapFailed(ctx, out.stderrBytes(), cred))
	}
	if err := nestedGitsFor(&cfg, <-nestedCh, spec.Dir, gits, view); err != nil {
		kill()
		<-waitDone
		return fail(err)
	}
	if err := json.NewEncoder(cfgW).Encode(cfg); err != nil {
		// A broken pipe: bubblewrap ended before the init read its
		// config (it can end before this write as well as after it).
		return startFailed()
	}
	cfgW.Close()

	// The init writes "r" on the ready pipe first thing, and "d" once the
	// command and all it left running have ended. One goroutine reads
	// both (in the runtime's poller), so that the start and the command's
	// end can be waited for apart; a prepared run tells its caller at the
	// "d", before the record is made.
	started := make(chan bool, 1)
	over := make(chan struct{}) // closed once "d" came or the pipe ended
	var commandDone atomic.Bool // "d" came
	go func() {
		r := readByte(readyR)
		started <- r
		if r && readByte(readyR) {
			commandDone.Store(true)
			if gate != nil {
				gate.end()
			}
		}
		close(over)
	}()
	// initRuns reports whether the init started: it wrote "r", or the
	// pipe ended without it.
	initStarted, asked := false, false
	initRuns := func() bool {
		if !asked {
			initStarted, asked = <-started, true
		}
		return initStarted
	}
	if needAttach && childPid() == 0 {
		return startFailed()
	}
	// The init sends its namespaces first thing (cfg.SendNS); they are
	// read once, by whichever needs them first.
	nsCh := make(chan sandboxNS, 1)
	var nsOnce sync.Once
	var sandboxNamespaces sandboxNS
	namespaces := func() sandboxNS {
		nsOnce.Do(func() { sandboxNamespaces = <-nsCh })
		return sandboxNamespaces
	}
	if cfg.SendNS {
		go func() { nsCh <- receiveNamespaces(ctlW) }()
		// The sandbox is gone by the time this runs: the read is over.
		defer func() { namespaces().close() }()
	}
	// The id-mapped tree is made once the init's namespaces arrive, beside
	// the connector's attach, and sent back before the init's overlay;
	// "go" may follow it only. handed is closed when that is over, with
	// treeErr set; every return waits for it before the descriptors it
	// uses are closed (the sandbox is gone by then, so it is over).
	handed := make(chan struct{})
	var treeErr error
	if treeByFD {
		defer func() { <-handed }()
		go func() {
			defer close(handed)
			ns := namespaces()
			treeErr = ns.err
			if treeErr == nil {
				treeErr = handTree(ctlW, spec.Dir, cfg.ToolCaches, cred.Uid, ns.user)
			}
			if treeErr != nil {
				kill()
			}
		}()
	} else {
		close(handed)
	}
	// handOverFailed reports a sandbox whose namespaces or tree could not
	// be handed over. Where the init ended first, its own result says why
	// (a refusal, or an in-sandbox binary from another build), else
	// bubblewrap's message does.
	handOverFailed := func(err error) (*Result, error) {
		if errors.Is(err, errNoIDMap) {
			kill()
			<-waitDone
			return fail(fmt.Errorf("%w: %v; fix: %s", ErrRefused, err, idmapFix))
		}
		if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
			// The broker ran out of descriptors (the sandbox's
			// namespaces cut, the tree not cloned): not the sandbox's
			// failure, nor bubblewrap's.
			kill()
			<-waitDone
			return fail(fmt.Errorf("handing the work tree to the sandbox: %w", err))
		}
		if !initRuns() {
			return startFailed() // bubblewrap's own failure says why
		}
		kill()
		<-waitDone
		var ir initResult
		if raw := <-resultCh; raw.decode(&ir) == nil {
			switch {
			case ir.Refusal != "":
				return fail(fmt.Errorf("%w: %s", ErrRefused, callerRefusal(ir.Refusal)))
			case ir.Error != "":
				return fail(errors.New(ir.Error))
			}
		}
		return fail(fmt.Errorf("handing the work tree to the sandbox: %w; bubblewrap: %s", err, tail(out.stderrBytes())))
	}
	// awaitTree waits for the hand-over (at once where there is none) or
	// the run's end, and says whether the run is over, with its result.
	awaitTree := func() (over bool, r *Result, err error) {
		select {
		case <-handed:
			if treeErr == nil {
				return false, nil, nil
			}
			r, err = handOverFailed(treeErr)
		case <-ctx.Done():
			cancel()
			<-waitDone
			out.fill(res)
			r, err = fail(ctx.Err())
		}
		return true, r, err
	}

	if needAttach {
		// A connector that touches no link of the namespace but its own
		// (slirp4netns) starts now, while bubblewrap mounts and the init
		// starts, and is ready by the time they are; one that brings lo
		// up (pasta) would race bubblewrap's own set-up of lo, and starts
		// once the init runs (bubblewrap is done).
		//
		// A sandbox of another uid: the broker opens its namespaces if
		// it may (CAP_SYS_PTRACE), else takes the init's, once it runs.
		var userns, netns *os.File
		if cred != nil {
			u, err1 := os.Open(fmt.Sprintf("/proc/%d/ns/user", childPid()))
			n, err2 := os.Open(fmt.Sprintf("/proc/%d/ns/net", childPid()))
			if err1 == nil && err2 == nil {
				userns, netns = u, n
				closers = append(closers, u, n)
			} else {
				for _, f := range []*os.File{u, n} {
					if f != nil {
						f.Close()
					}
				}
				if !initRuns() {
					return startFailed()
				}
				ns := namespaces()
				if ns.err != nil {
					return handOverFailed(ns.err)
				}
				userns, netns = ns.user, ns.net
			}
		}
		if !attachEarly && !initRuns() {
			return startFailed()
		}
		c, err := network.Attach(ctx, cfg.Egress, childPid(), userns, netns, cg.startConnector)
		if err != nil {
			if !initRuns() {
				// The sandbox ended under the connector: its own
				// failure is the one to report.
				return startFailed()
			}
			kill()
			<-waitDone
			return fail(fmt.Errorf("%w: attaching the network: %w", ErrRefused, err))
		}
		closers = append(closers, c)
		if !initRuns() {
			return startFailed()
		}
		// Once the command is done (or the init gone) the connector is
		// stopped, while the init still reads its records; the run does
		// not wait for it to be gone: the network layer reaps it, and the
		// broker waits for that before it exits (quick where the layer
		// could keep its tap; else its teardown ends in an RCU barrier,
		// 20–40 ms here).
		go func() {
			<-over
			c.Close()
		}()
	}
	if cfg.WaitGo {
		ended := false // the sandbox ended while it waited for its turn
		if gate != nil {
			select {
			case <-gate.open:
			case err := <-waitDone:
				waitDone <- err // read again below, with the result
				ended = true
			case <-ctx.Done():
			}
			if ctx.Err() != nil { // cancelled, even if the turn came too
				cancel()
				<-waitDone
				out.fill(res)
				return fail(ctx.Err())
			}
			// The command's time starts with its turn, whatever the
			// result reports when it has no duration of its own.
			start = time.Now()
		}
		if !ended {
			if over, r, err := awaitTree(); over {
				return r, err
			}
			// A failed write means the init (its only reader) is gone
			// already: its result, or bwrap's message, says why below.
			_, _ = ctlW.Write([]byte("go\n"))
		}
	}
	if over, r, err := awaitTree(); over {
		return r, err
	}
	if !cfg.SendNS {
		// Else it is closed once the goroutine reading the init's
		// namespaces from it is over (the deferred namespaces()).
		ctlW.Close()
	}

	// A backstop in case the init itself hangs: it enforces the deadline,
	// so this only fires on a broken init, or on one still making the
	// record (the walk of the writes, after the command's end) recordGrace
	// past it.
	backstop := time.NewTimer(sumDurations(timeout, spec.Linger, recordGrace))
	defer backstop.Stop()
	var waitErr error
	select {
	case waitErr = <-waitDone:
	case <-backstop.C:
		kill()
		<-waitDone
		out.fill(res)
		if cg.hit() == "memory" {
			res.LimitHit = "memory"
			return fail(errors.New("the run reached its memory limit (--limit-run-memory) and the sandbox's own processes could get no memory to finish: it was killed after its deadline and nothing it did is reported"))
		}
		if commandDone.Load() {
			// The command is over: what the sandbox did not end is the
			// record (a command that left a great many files).
			return fail(fmt.Errorf("the command ended, but the sandbox had not made its record %v after the deadline (--timeout, and --linger); it was killed and nothing the command did is reported", recordGrace))
		}
		return fail(errors.New("the sandbox did not end after its deadline; it was killed and nothing it did is reported"))
	case <-ctx.Done():
		cancel()
		<-waitDone
		out.fill(res)
		return fail(ctx.Err())
	}
	wall := time.Since(start)
	// bubblewrap is gone, and with it every writer of the ready pipe: its
	// reader is done (and a prepared run's caller told) before the result.
	<-over
	raw := <-resultCh
	out.fill(res)
	var ir initResult
	if len(bytes.TrimSpace(raw.doc)) == 0 && !initRuns() && isVanishedMount(out.stderrBytes()) {
		return res, vanishedMount{tail(out.stderrBytes())}
	}
	if len(bytes.TrimSpace(raw.doc)) == 0 && cg.hit() == "memory" {
		// The OOM killer chose one of vigiles' own processes (the
		// command's memory can sit in files no process maps).
		res.LimitHit = "memory"
		return fail(fmt.Errorf("the run reached its memory limit (--limit-run-memory) and the kernel ended the sandbox's own processes with the command's: nothing was recorded (bubblewrap: %v)", waitErr))
	}
	if len(bytes.TrimSpace(raw.doc)) == 0 {
		if c := ProbeConfinement(ctx); c.Confine != Available {
			return fail(bwrapFailed(ctx, out.stderrBytes(), cred))
		}
		return fail(fmt.Errorf("the sandbox ended without a result (bubblewrap: %v); stderr: %s", waitErr, tail(out.stderrBytes())))
	}
	if err := raw.decode(&ir); err != nil {
		return fail(fmt.Errorf("the sandbox's result is malformed: %w", err))
	}
	if strings.HasPrefix(ir.Refusal, reaper.VanishedMount) {
		return res, vanishedMount{ir.Refusal}
	}
	if ir.Refusal != "" {
		return fail(fmt.Errorf("%w: %s", ErrRefused, callerRefusal(ir.Refusal)))
	}
	res.WritesMethod = ir.WritesMethod
	res.Writes = ir.Writes
	res.Egress = ir.Egress
	res.EgressDropped = ir.EgressDropped
	res.Lingered = shownLingered(ir.Lingered)
	res.EnvFile = ir.EnvFile
	res.TimedOut = ir.TimedOut
	res.LimitHit = ir.LimitHit
	if hit := cg.hit(); hit != "" {
		res.LimitHit = hit
	}
	if res.TimedOut && res.LimitHit == "" {
		res.LimitHit = "wall-time"
	}
	res.ExitCode, res.Signal = ir.ExitCode, ir.Signal
	if ir.DurationNs > 0 {
		res.DurationMs = float64(ir.DurationNs) / 1e6
	} else {
		res.DurationMs = ms(wall)
	}
	if !ir.OK {
		// The sandbox failed once set up: its pid 1 died (a command can
		// try to bring that about), or a record could not be read. The
		// run is failed, and keeps each record the init still completed:
		// a command that ends its own sandbox does not erase what it did.
		// (A command that cannot be found or run is not this: it is
		// exit 127 or 126, as a shell says it.)
		r, err := fail(errors.New(ir.Error))
		if ir.Writes != nil {
			r.Writes, r.WritesMethod = ir.Writes, ir.WritesMethod
		}
		r.Egress, r.EgressDropped = ir.Egress, ir.EgressDropped
		return r, err
	}
	if res.Writes == nil {
		return fail(errors.New("the sandbox's result has no write record"))
	}
	if network != nil && res.Egress == nil {
		return fail(errors.New("the sandbox's result has no egress record"))
	}
	return res, nil
}

// SandboxBinary is the lean binary of the in-sandbox roles (the init, and
// the reaper where ReaperBinary is not beside it). When it lies beside the
// running executable, sandboxes run it instead of the running executable
// itself: it starts in a fraction of the full CLI's time. Both must come
// from the same build.
const SandboxBinary = "vigiles-sandbox"

// normalScheduling is reaper.NormalScheduling for this process, once:
// vigiles' own processes leave a realtime policy, a nice value below 0 or
// the realtime I/O class that whoever started vigiles gave it, before
// bubblewrap and the init are forked from this one. What they do for the
// command's output and traffic (the init's DNS stub, proxy and record)
// the command drives, and at SCHED_FIFO a command that floods them would
// hold the host's CPUs through them. Once is enough: a thread Go starts
// later is cloned from one put back, so an audit's later runs need not
// read every thread again. The reaper does the same for itself and the
// command.
var normalScheduling = sync.OnceValue(reaper.NormalScheduling)

func sandboxExecutable() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return "", err
	}
	lean := filepath.Join(filepath.Dir(exe), SandboxBinary)
	if fi, err := os.Stat(lean); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return lean, nil
	}
	return exe, nil
}

// ReaperBinary is the reaper's own lean binary: pkg/sandbox/reaper alone,
// nothing of the egress layer, so that it starts in about the time of a
// minimal Go program (the init's binary, which links the egress layer,
// takes nearly twice that). When it lies beside the in-sandbox binary,
// the init starts the reaper from it. All three must come from the same
// build (the init and the reaper check their protocol numbers).
const ReaperBinary = "vigiles-reaper"

// reaperExecutable opens ReaperBinary beside exe where it is a regular
// file that the sandbox's uid (cred's, else the caller's) may execute and
// that only its owner, root or the caller, may write (a group's write
// only for root's or the caller's group); nil when it is not, and the
// reaper runs from the init's binary. The checks are made on the file
// opened, which is the one handed in: a file swapped in at the path
// after them is never used, nor is one that another user could rewrite
// between runs (it runs as the command's pid 1, before every layer).
func reaperExecutable(exe string, cred *syscall.Credential) *os.File {
	// O_NONBLOCK: a fifo at the path must not hang the run.
	f, err := os.OpenFile(filepath.Join(filepath.Dir(exe), ReaperBinary), os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil
	}
	uid, gid := uint32(os.Geteuid()), uint32(os.Getegid())
	if cred != nil {
		uid, gid = cred.Uid, cred.Gid
	}
	if othersMayRewrite(&st) || !mayUse(&st, uid, gid, 0o1) {
		f.Close()
		return nil
	}
	return f
}

// othersMayRewrite says whether a user other than root and the caller may
// write the file st describes: its owner is neither, anyone may, or the
// members of a group other than root's and the caller's may.
func othersMayRewrite(st *unix.Stat_t) bool { return hostprog.MayRewrite(st) }

// readByte reports whether one byte arrived before EOF.
func readByte(r io.Reader) bool {
	n, _ := r.Read(make([]byte, 1))
	return n == 1
}

// secretDirsEntered are the directories of secretDirsToMask that are
// there and that the run (v) may enter. A directory of secrets whose
// files are named by a glob may be one a group may enter and not list
// (/etc/ssl/private, 0710 root:ssl-cert): the glob found nothing there,
// and the run could still open a key by its name. So each is masked
// whole (at the path its links lead to), as is each container engine's
// state that its config moved elsewhere.
func secretDirsEntered(v hostView) []string {
	var out []string
	for _, d := range secretDirsToMask() {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && v.mayRead(d, 0o1) {
			out = append(out, d)
		}
	}
	return out
}

// existingSecretFiles expands secretFiles on this host, and adds the
// secret files its configuration names elsewhere (namedSecretFiles), each
// once (regular files only).
func existingSecretFiles() []string {
	var out []string
	g := newHostGlob()
	for _, p := range slices.Concat(secretFiles, namedSecretFiles()) {
		ms := []string{p}
		if strings.ContainsAny(p, "*?[") {
			ms = g.glob(p)
		}
		for _, m := range ms {
			var st unix.Stat_t
			if unix.Lstat(m, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}
	return out
}

// bwrapFailed turns a sandbox that bubblewrap could not make into a
// refusal that names the fix (from the real probe) and quotes bwrap.
//
// cred is the uid bwrap ran as, when not the caller's: a root caller's probe
// runs as root, so it cannot tell that uid's user namespaces are refused.
func bwrapFailed(ctx context.Context, stderr []byte, cred *syscall.Credential) error {
	c := ProbeConfinement(ctx)
	if c.Confine == Available {
		c = Capability{Confine: Inconclusive, Why: "bubblewrap did not start the sandbox: " + tail(stderr)}
		if cred != nil {
			c.Why = fmt.Sprintf("bubblewrap did not start the sandbox as uid %d (a root caller's sandbox is not root): %s", cred.Uid, tail(stderr))
			// The probe runs as root, so it cannot tell whether that
			// uid may make user namespaces; bubblewrap's own message can.
			c.Fix = fmt.Sprintf("bubblewrap's message above names what uid %d could not do there (a host path it names must exist and be reachable by that uid)", cred.Uid)
			if namespaceRefused(stderr) {
				c.Fix = namespaceFix(usernsFix, stderr)
			}
			c.Fix += "; or, for a root-owned work tree, accept a sandbox whose uid 0 is the host's root with --root-sandbox"
		}
	}
	return fmt.Errorf("%w: %s", ErrRefused, Decide(false, ModeStrict, c).Reason)
}

// namespaceRefused says whether bubblewrap's stderr is about making its
// namespaces or their id maps, which a host's user-namespace settings
// decide, rather than about a path.
func namespaceRefused(stderr []byte) bool {
	for _, s := range []string{"namespace", "uid map", "gid map", "setgroups", "unshare"} {
		if bytes.Contains(stderr, []byte(s)) {
			return true
		}
	}
	return false
}

func lookupHostPath(p string) (string, string) {
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", ""
	case fi.IsDir():
		return "dir", ""
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return "", ""
		}
		return "link", t
	}
	return "", ""
}

func replaceEnv(env []string, k, v string) []string {
	for i, kv := range env {
		if strings.HasPrefix(kv, k+"=") {
			env[i] = k + "=" + v
			return env
		}
	}
	return append(env, k+"="+v)
}

// giveStdio hands the pipes that are the standard input, output and error
// of the process pid, and so of the command, to the uid the sandbox runs as
// (cred; nil: the caller's own, which has them already). The broker makes
// them, as root, mode 0600: the command reads and writes them through the
// descriptors it inherits, but a hook that opens /dev/stdin, /dev/stdout or
// /dev/stderr (echo msg > /dev/stderr, $(</dev/stdin)) opens them anew,
// through /proc/self/fd, which checks their owner and mode: as another
// uid, it got EACCES, where under Claude Code, whose user owns them, it
// works. Only pipes are given; what fails to be given leaves the run as
// it was.
func giveStdio(pid int, cred *syscall.Credential) {
	if cred == nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		p := fmt.Sprintf("/proc/%d/fd/%d", pid, fd)
		var st unix.Stat_t
		if unix.Stat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			continue
		}
		_ = unix.Chown(p, int(cred.Uid), int(cred.Gid))
	}
}

func stdinOf(spec Spec) io.Reader {
	if spec.Stdin == nil {
		return bytes.NewReader(nil)
	}
	return spec.Stdin
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func signalName(s syscall.Signal) string {
	return strings.ToUpper("SIG" + strings.TrimPrefix(unixSignalName(s), "SIG"))
}

func tail(b []byte) string {
	const n = 2000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// capture collects stdout and stderr up to a cap each, passing them
// through as they come when asked.
type capture struct {
	stdout, stderr *capped
}

// newCapture captures a run's output for spec; passMax, when above 0,
// bounds what each stream passes through (passCut).
func newCapture(spec Spec, passMax uint64) *capture {
	n := spec.OutputCap
	if n <= 0 {
		n = DefaultOutputCap
	}
	return &capture{
		stdout: &capped{max: n, pass: spec.PassStdout, passMax: passMax, name: "stdout"},
		stderr: &capped{max: n, pass: spec.PassStderr, passMax: passMax, name: "stderr"},
	}
}

func (c *capture) stderrBytes() []byte {
	c.stderr.mu.Lock()
	defer c.stderr.mu.Unlock()
	return append([]byte(nil), c.stderr.buf.Bytes()...)
}

// fill puts the captured output into the result: as text when it is
// UTF-8, as base64 (with the encoding named) when it is not.
func (c *capture) fill(r *Result) {
	r.stdoutRaw, r.StdoutTruncated = c.stdout.bytes()
	r.stderrRaw, r.StderrTruncated = c.stderr.bytes()
	r.stdoutRaw = cutRuneEnd(r.stdoutRaw, r.StdoutTruncated)
	r.stderrRaw = cutRuneEnd(r.stderrRaw, r.StderrTruncated)
	r.Stdout, r.StdoutEncoding = encodeOutput(r.stdoutRaw)
	r.Stderr, r.StderrEncoding = encodeOutput(r.stderrRaw)
}

// cutRuneEnd drops the first bytes of a UTF-8 character that the output
// cap cut (truncated), so that text stays text rather than turning to
// base64 for its last character.
func cutRuneEnd(b []byte, truncated bool) []byte {
	if !truncated {
		return b
	}
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

func encodeOutput(b []byte) (string, string) {
	if utf8.Valid(b) {
		return string(b), ""
	}
	return base64.StdEncoding.EncodeToString(b), "base64"
}

type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int
	truncated bool
	pass      io.Writer
	// passMax, when above 0, bounds the bytes passed through: a confined
	// command's output reaches the host through vigiles, where the caller
	// may have sent it to a file (vigiles run > log, a CI step's log),
	// which the command's own file-size limit does not bound. Past it
	// one line says so, naming the stream, and the rest is captured (up
	// to max) and not passed on.
	passMax uint64
	passed  uint64
	passCut bool   // past passMax, and said so
	name    string // "stdout" or "stderr", for that line
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pass != nil {
		c.passThrough(p)
	}
	room := c.max - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.truncated = true
	}
	return len(p), nil
}

// passThrough passes p on, up to passMax in all.
func (c *capped) passThrough(p []byte) {
	if c.passMax == 0 {
		c.pass.Write(p)
		return
	}
	if c.passCut {
		return
	}
	room := c.passMax - c.passed
	if uint64(len(p)) <= room {
		c.passed += uint64(len(p))
		c.pass.Write(p)
		return
	}
	c.pass.Write(p[:room])
	c.passed, c.passCut = c.passMax, true
	fmt.Fprintf(c.pass, "\nvigiles: the command's %s passed %d bytes, the run's largest file (--limit-file-size, limits.file-size); the rest is not passed on\n", c.name, c.passMax)
}

func (c *capped) bytes() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf.Bytes()...), c.truncated
}

var subreaperOnce sync.Once

// becomeSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER): a process orphaned below it is reparented to
// it, not to the nearest subreaper above or pid 1. bubblewrap may exit
// before it has reaped its own child, the sandbox's pid 1 (it exits on
// the exit status that child sends it); that child then went to pid 1,
// where a pid 1 that never reaps (a container's `tail -f /dev/null`, as a
// CI job's container has) kept one zombie per run. Here reapOrphan reaps
// it. Best effort: without it the zombie goes where it went before.
func becomeSubreaper() {
	subreaperOnce.Do(func() { subreaper.Store(unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil) })
}

// subreaper is set once this process is a child subreaper: only then do
// orphans come to it (reapStrays).
var subreaper atomic.Bool

// reapOrphan reaps bubblewrap's child, pid (its info's child-pid; 0 when
// bubblewrap wrote none), where it was left to this process: called once
// bubblewrap has been reaped, when the reparenting is over, it finds
// either this process's own child (exiting then: bubblewrap exits on the
// status it sends just before), which it waits for in the poller and
// reaps, or none (ECHILD: bubblewrap reaped it). It waits here, not in the
// background, since a vigiles run that exits first hands the zombie on to
// pid 1 all the same: 0.1 ms as a rule. (Polling it every millisecond
// cost a millisecond in about one run of three.)
func reapOrphan(childPid func() int) {
	pid := childPid()
	if pid <= 0 {
		return
	}
	var ws unix.WaitStatus
	for {
		n, err := unix.Wait4(pid, &ws, unix.WNOHANG|unix.WALL, nil)
		switch {
		case err != nil && errors.Is(err, unix.EINTR):
			continue
		case n == 0:
			// This process's child, not yet exited: the wait below
			// cannot meet another's. Bounded, in case its exit is held
			// up (a process of its namespace stuck in the kernel): it
			// is then reaped in the background.
			reaped := make(chan struct{})
			go func() {
				defer close(reaped)
				procwait.Exited(pid)
				for {
					if _, err := unix.Wait4(pid, &ws, unix.WALL, nil); !errors.Is(err, unix.EINTR) {
						return
					}
				}
			}()
			select {
			case <-reaped:
			case <-time.After(2 * time.Second):
			}
		}
		return // reaped, or not this process's (ECHILD)
	}
}

// workTreeFlags names the flags that give each command its work tree, for
// a refusal that asks for another: the sandbox serves them all.
const workTreeFlags = "vigiles run --workdir DIR, vigiles test and audit --dir DIR"

// ownHomeIsTree reports whether the work tree tree is the caller's HOME
// itself and that HOME is the caller's own home directory, as the user
// database names it: vigiles started in ~, not a HOME set to a project
// (a container's -w /work -e HOME=/work).
func ownHomeIsTree(home, tree string) bool {
	if !envNamesDir(home, tree) {
		return false
	}
	u, err := user.Current()
	return err == nil && u.HomeDir != "" && envNamesDir(u.HomeDir, tree)
}

// envNamesDir reports whether v, the value of a variable of the caller's
// environment (a relative one against the working directory), names the
// directory dir, which has its symlinks resolved.
func envNamesDir(v, dir string) bool {
	r, err := callerPath(v)
	return err == nil && r == dir
}
