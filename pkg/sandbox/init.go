package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/exact"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// initArg is the argv[1] that selects the init's role in the binary (the
// reaper's command line is reaper.Argv0).
const initArg = "__vigiles-init"

// initProtocol numbers the broker–init–reaper protocol (the config and
// result documents and the fds). Bump it on any change: a broker and an
// in-sandbox binary from different builds must refuse each other.
const initProtocol = 16

// initConfig is what the broker tells the init, as JSON on fdConfig.
type initConfig struct {
	Protocol int `json:"protocol"`
	// Paths, the command and its environment are bytes, which JSON
	// strings hold only when they are UTF-8: exact carries them as they are.
	Workdir exact.String  `json:"workdir"`
	Cwd     exact.String  `json:"cwd"`
	Command exact.Strings `json:"command"`
	Env     exact.Strings `json:"env"`
	Timeout time.Duration `json:"timeout"`
	Linger  time.Duration `json:"linger"`
	Limits  Limits        `json:"limits"`
	// ScratchInodes bounds the files and directories of the scratch
	// tmpfs (0: the kernel's default, half the host's pages); the broker
	// sets it for every run (runCgroup.scratch), since their inodes are
	// memory the scratch's size does not count.
	ScratchInodes uint64                `json:"scratchInodes,omitempty"`
	WritesMethod  string                `json:"writesMethod"`
	Network       bool                  `json:"network"`
	Egress        evidence.EgressPolicy `json:"egress"`
	WaitGo        bool                  `json:"waitGo"`
	// HostAddrs are the host's own addresses, and the ranges its routing
	// tables deliver locally, listed by the broker in allow mode
	// (NetSession.HostAddrs).
	HostAddrs []netip.Prefix `json:"hostAddrs,omitempty"`
	// PidsByCgroup is set when a pids cgroup bounds the command's
	// processes: fdCgroup then holds the file through which the reaper's
	// forking thread joins it (runCgroup.migrate), and the command needs
	// no RLIMIT_NPROC, and no shell to set it.
	PidsByCgroup bool `json:"pidsByCgroup"`
	// UserCounts bound the kernel objects counted per user in the
	// sandbox's user namespace, by name (userCountsFor): the broker
	// shares the host's limits among the runs under way at once.
	UserCounts map[string]int `json:"userCounts,omitempty"`
	// TreeByFD: the work tree comes id-mapped over the control socket
	// (handTree), not bound by bubblewrap.
	TreeByFD bool `json:"treeByFd,omitempty"`
	// SendNS: the init first sends its user and network namespaces over
	// the control socket (sendNamespaces).
	SendNS bool `json:"sendNs,omitempty"`
	// MaskDirs are the tmpfs masks over the caller's own secrets
	// (plan.MaskDirs), which the reaper makes read-only like the fixed ones.
	MaskDirs exact.Strings `json:"maskDirs,omitempty"`
	// EnvFile is Spec.EnvFile: relative to HOME, checked by the broker.
	EnvFile exact.String `json:"envFile,omitempty"`
	// ReaperByFD: fdReaper holds vigiles-reaper, the lean reaper binary;
	// otherwise the reaper runs from the init's own binary.
	ReaperByFD bool `json:"reaperByFd,omitempty"`
	// HomeDirs is Spec.HomeDirs: relative to HOME, checked by the broker.
	HomeDirs exact.Strings `json:"homeDirs,omitempty"`
	// HomeFiles is Spec.HomeFiles: relative to HOME, checked by the broker.
	HomeFiles exact.Files `json:"homeFiles,omitempty"`
	// CallerHome is the caller's own HOME, absolute and with its links
	// followed, where the run hides it (a mask over it or over a directory
	// that holds it: shownCallerHome); "" otherwise. The init binds the
	// command's throwaway HOME there too (callerHomeMountPoint).
	CallerHome exact.String `json:"callerHome,omitempty"`
	// NestedGits are the checkouts nested in the work tree, relative to
	// it (gitTreesUnder), whose configs the init scrubs like the tree's.
	NestedGits exact.Strings `json:"nestedGits,omitempty"`
	// CredentialFiles are the files in the work tree, relative to it,
	// that the caller's environment names as credentials
	// (envCredentialFiles), and its dotenv files (.env, .envrc, …, found
	// beside the tree's git configs): the init shows them empty, in the
	// layer above the tree.
	CredentialFiles exact.Strings `json:"credentialFiles,omitempty"`
	// ToolCaches are the runner's tool caches the caller's environment
	// names (chooseToolCaches): absolute, links followed, each a directory the
	// run shows and its uid may write, outside the work tree. The init
	// covers each with an overlay of the scratch (mountToolCaches).
	ToolCaches exact.Strings `json:"toolCaches,omitempty"`
	// RunAreas are the host's /run/lock and the caller's /run/user/UID
	// where the host has each and the caller may write it (hostRunAreas):
	// the init shows a throwaway of its scratch at each, recorded by its
	// path (mountRunAreas), and a non-root caller's runtime directory at
	// /run/user/0 too (mountRuntimeDirAlias).
	RunAreas exact.Strings `json:"runAreas,omitempty"`
}

// maxResult bounds the init's result, in bytes of JSON: the broker reads no
// more than that.
const maxResult = 64 << 20

// initResult is what the init tells the broker, as JSON on fdResult.
// WritesCount and WritesBytes are how many entries Writes has and the
// bytes of their paths, link targets and renamed-from paths, written
// before it: the broker makes its list at that size (readResult).
type initResult struct {
	OK            bool              `json:"ok"`
	Error         string            `json:"error,omitempty"`
	Refusal       string            `json:"refusal,omitempty"` // a layer could not be applied
	ExitCode      int               `json:"exitCode"`
	Signal        string            `json:"signal"`
	TimedOut      bool              `json:"timedOut"`
	LimitHit      string            `json:"limitHit,omitempty"`
	DurationNs    int64             `json:"durationNs"`
	WritesCount   int               `json:"writesCount,omitempty"`
	WritesBytes   int               `json:"writesBytes,omitempty"`
	Writes        []evidence.Write  `json:"writes"`
	WritesMethod  string            `json:"writesMethod"`
	Egress        []evidence.Egress `json:"egress"`
	EgressDropped *evidence.Dropped `json:"egressDropped,omitempty"`
	Lingered      []reaper.Process  `json:"lingered,omitempty"`
	EnvFile       *evidence.EnvFile `json:"envFile,omitempty"`
}

// MaybeInit runs the in-sandbox roles of the vigiles binary and exits when
// os.Args selects one; otherwise it returns at once. Call it first thing
// in main (and in TestMain of tests that run the engine).
func MaybeInit() {
	if reaper.Is(os.Args) {
		os.Exit(reaper.Main())
	}
	if len(os.Args) > 1 && os.Args[1] == initArg {
		os.Exit(initMain())
	}
}

func initMain() int {
	// The reaper is started from this thread with Pdeathsig, which the
	// kernel ties to the thread: keep it for the init's whole life.
	runtime.LockOSThread()
	fsx.CloexecFrom(3) // the reaper, and so the command, inherits none of these
	// Non-blocking, so that the file is the runtime poller's and
	// dieWithBroker waits in it, holding no thread.
	pollable := unix.SetNonblock(fdReady, true) == nil
	ready := os.NewFile(fdReady, "ready")
	ready.Write([]byte("r"))
	if pollable {
		go dieWithBroker(ready)
	}
	defer ready.Close()
	res := os.NewFile(fdResult, "result")
	send := func(r initResult) int {
		r.WritesCount, r.WritesBytes = len(r.Writes), 0
		for _, w := range r.Writes {
			r.WritesBytes += len(w.Path) + len(w.Target) + len(w.From)
		}
		b, err := json.Marshal(r)
		if err == nil && len(b) > maxResult {
			// A command can make its record as large as it likes
			// (many writes under long paths): past what the broker
			// reads, it is reported as too large, never cut short, so
			// the run fails instead of passing on part of its record.
			n := len(r.Writes)
			r.OK, r.Writes, r.WritesCount, r.WritesBytes = false, nil, 0, 0
			r.Error = fmt.Sprintf("the write record is too large to report: %d writes, %d MiB of JSON (at most %d MiB); nothing the command wrote is reported", n, len(b)>>20, maxResult>>20)
			if b, err = json.Marshal(r); err == nil && len(b) > maxResult {
				r.Egress, r.EgressDropped = nil, nil
				r.Error += "; nor is its egress"
				b, err = json.Marshal(r)
			}
		}
		if err != nil {
			return 126
		}
		if _, err := res.Write(append(b, '\n')); err != nil {
			return 126
		}
		return 0
	}
	cfgFile := os.NewFile(fdConfig, "config")
	var cfg initConfig
	if err := json.NewDecoder(cfgFile).Decode(&cfg); err != nil {
		return send(initResult{Error: fmt.Sprintf("init: reading config: %v", err)})
	}
	cfgFile.Close()
	if cfg.Protocol != initProtocol {
		return send(initResult{Error: fmt.Sprintf("the in-sandbox binary (protocol %d) and vigiles (protocol %d) come from different builds: rebuild both (make build)", initProtocol, cfg.Protocol)})
	}
	r := runInit(cfg, func() { ready.Write([]byte("d")) })
	return send(r)
}

// dieWithBroker ends the init, and with it the sandbox, once no process
// holds the ready pipe's read end: the broker closes it when it ends the
// run (a cancel) or returns, and never before the init is done otherwise.
// bubblewrap's --die-with-parent does not cover a sandbox whose bubblewrap
// was killed while it set up (bubblewrap issue #633): its child lives on,
// execs the init, and without this a cancelled run's command would run on
// to its deadline where no cgroup of the run ends it (a non-root caller).
// The reaper dies with the init (Pdeathsig), and the command with the
// reaper, pid 1 of its pid namespace.
func dieWithBroker(ready *os.File) {
	rc, err := ready.SyscallConn()
	if err != nil {
		return
	}
	// The write end of a pipe is never readable: the runtime's poller
	// wakes a reader of it on EPOLLERR (or EPOLLHUP) alone, which the
	// kernel signals once no process holds the read end. A goroutine
	// parked there costs nothing; one blocked in poll(2) held a thread
	// and woke the runtime's sysmon, 2 ms of an allow-mode run here.
	gone := false
	rc.Read(func(fd uintptr) bool {
		fds := []unix.PollFd{{Fd: int32(fd)}} // POLLERR is always reported
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
			gone = true
		}
		return gone
	})
	if gone { // else: closed, the init is returning
		os.Exit(125)
	}
}

// refusal marks an error as a layer that could not be applied: the run
// refuses rather than running weaker.
type refusal struct{ err error }

func (r refusal) Error() string { return r.err.Error() }
func (r refusal) Unwrap() error { return r.err }

func refuse(format string, a ...any) error { return refusal{fmt.Errorf(format, a...)} }

func failResult(err error) initResult {
	var rf refusal
	if errors.As(err, &rf) {
		// The init inherits vigiles' open-files limit: a set-up that
		// ran out of descriptors says so, and names the fix.
		if msg, ok := outOfFilesReason(err); ok {
			return initResult{Refusal: msg}
		}
		return initResult{Refusal: err.Error()}
	}
	return initResult{Error: err.Error()}
}

// runInit sets the sandbox up, runs the command and records what it did.
// done is called once the command and everything it left running have
// ended, before the records are read: the route out is not needed any
// more (see the broker).
func runInit(cfg initConfig, done func()) (res initResult) {
	workdir, envFile := string(cfg.Workdir), string(cfg.EnvFile)
	// Before anything starts: no realtime policy and no nice value below
	// 0 for the reaper and the command, whatever the caller may take.
	if err := dropSchedulingLimits(); err != nil {
		return failResult(refuse("%w", err))
	}
	// And the kernel objects counted per user, which the command's host
	// uid shares with the caller's programs, the signals queued among
	// them (ucounts.go).
	if err := boundUserCounts(cfg.UserCounts); err != nil {
		return failResult(refuse("%w", err))
	}
	if err := boundSignalQueue(); err != nil {
		return failResult(refuse("%w", err))
	}
	if cfg.SendNS {
		// First: the broker makes the id-mapped tree through them, or
		// attaches the connector, while the scratch is mounted.
		if err := sendNamespaces(); err != nil {
			return failResult(refuse("sending the sandbox's namespaces: %w", err))
		}
	}
	// The egress wall is set up beside the mounts and the reaper's start:
	// it is kernel work (lo, the nft batch, the stub's sockets) that needs
	// nothing they make, and the reaper waits for what it decides.
	// Until the command is handed to the reaper (rp.run, which waits for
	// the reaper and reads the egress record), a run that ends kills the
	// reaper and finishes the egress session.
	handed := false
	setup := startNetSetup(cfg)
	defer func() {
		if !handed {
			setup.discard()
		}
	}()
	// The reaper starts now, so that its own start-up (a Go runtime)
	// overlaps the mounts and the egress set-up. It starts in a copy of
	// this mount namespace made while these mounts are shared, and makes
	// its own slaves of them first thing: the init's mounts below show up
	// in it, and nothing goes back; given its config, it makes its own
	// private. (bwrap's namespace is owned by the sandbox's user
	// namespace, so the host's mounts are masters of these, never peers:
	// nothing mounted here reaches the host.)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SHARED, ""); err != nil {
		return failResult(refuse("sharing the sandbox's mounts with the reaper: %w", err))
	}
	rp, err := spawnReaper(cfg.ReaperByFD, cfg.PidsByCgroup)
	if err != nil {
		return failResult(err)
	}
	defer func() {
		if !handed {
			rp.abort()
		}
	}()
	scratch := cfg.Limits.ScratchBytes
	if scratch == 0 {
		scratch = reaper.Defaults.ScratchBytes
	}
	// The scratch tmpfs holds the overlay's upper dir, HOME and TMPDIR: all
	// the command can write, bounded in size, gone with the namespace.
	opts := fmt.Sprintf("size=%d,mode=0755", scratch)
	if cfg.ScratchInodes > 0 {
		opts += fmt.Sprintf(",nr_inodes=%d", cfg.ScratchInodes)
	}
	if err := fsx.SafeMount("tmpfs", scratchDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return failResult(refuse("mounting scratch tmpfs: %w", err))
	}
	// Private: its directories are bound below (TMPDIR, HOME, /dev/shm)
	// as mounts that are then the reaper's peers, not the scratch's, so
	// that a mount on them (the work tree's overlay, where it lies in
	// TMPDIR) does not show up inside the scratch, in the record's walk.
	if err := unix.Mount("", scratchDir, "", unix.MS_PRIVATE, ""); err != nil {
		return failResult(refuse("making the scratch tmpfs private: %w", err))
	}
	upper, ovlWork := scratchDir+"/upper", scratchDir+"/ovlwork"
	// A layer for the tree's git configs without their credentials, and
	// where it and the tree are mounted for the record (made now: the
	// command may fill the scratch).
	credsLayer, before := scratchDir+"/gitcreds", scratchDir+"/before"
	home, tmp, shm, varTmp := scratchDir+"/home", scratchDir+"/tmp", scratchDir+"/shm", scratchDir+"/vartmp"
	for _, d := range []string{upper, ovlWork, credsLayer, before, home, tmp, shm, varTmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return failResult(refuse("preparing scratch: %w", err))
		}
	}
	// HOME is uid 0's, as /root is (0700), whose it is in the sandbox.
	if err := os.Chmod(home, 0o700); err != nil {
		return failResult(refuse("preparing scratch: %w", err))
	}
	for _, d := range []string{tmp, shm, varTmp} {
		if err := os.Chmod(d, 0o777|os.ModeSticky); err != nil {
			return failResult(refuse("preparing scratch: %w", err))
		}
	}
	if err := os.MkdirAll(sandboxShm, 0o777|os.ModeSticky); err != nil {
		return failResult(refuse("preparing /dev/shm: %w", err))
	}
	if err := bindMount(shm, sandboxShm); err != nil {
		return failResult(refuse("mounting /dev/shm: %w", err))
	}
	varTmpAt, err := varTmpMountPoint()
	if err != nil {
		return failResult(refuse("preparing /var/tmp: %w", err))
	}
	if varTmpAt != "" {
		if err := bindMount(varTmp, varTmpAt); err != nil {
			return failResult(refuse("mounting /var/tmp: %w", err))
		}
	}
	// /run/lock and the caller's /run/user/UID, where the host has them:
	// under Claude Code a write there stays until reboot or logout, where
	// the run's read-only /run failed it unrecorded.
	runAreas, err := mountRunAreas(cfg.RunAreas)
	if err != nil {
		return failResult(refuse("%w", err))
	}
	runAt := runAreaPaths(runAreas)
	if err := bindMount(tmp, sandboxTmp); err != nil {
		return failResult(refuse("mounting TMPDIR: %w", err))
	}
	if err := bindMount(home, homeMountPoint()); err != nil {
		return failResult(refuse("mounting HOME: %w", err))
	}
	// The same HOME at the caller's own HOME's path, so that a write
	// there by that path (/home/runner/.bashrc, where the command's HOME
	// is /root), which the host keeps under Claude Code, is recorded as
	// HOME's, where the mask failed it unrecorded. The directories made
	// for it (in the fresh /tmp or /var/tmp) are no write of the command's.
	callerHomeAt := callerHomeMountPoint(string(cfg.CallerHome), append([]string{varTmpAt}, runAt...)...)
	made := madeDirs{}
	if callerHomeAt != "" {
		made = missingDirs(callerHomeAt)
		if err := os.MkdirAll(callerHomeAt, 0o700); err != nil {
			return failResult(refuse("preparing the caller's HOME path %s: %w", callerHomeAt, err))
		}
		if err := bindMount(home, callerHomeAt); err != nil {
			return failResult(refuse("mounting HOME at the caller's HOME path %s: %w", callerHomeAt, err))
		}
	}
	// The work tree's mount point may now lie inside the fresh /tmp or
	// HOME; recreate it there (the walk leaves these parents out).
	maps.Copy(made, missingDirs(workdir))
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		return failResult(refuse("preparing work tree mount point: %w", err))
	}
	// The env file's directories and HomeDirs, as the caller makes them
	// before a hook runs: not the command's writes.
	homeDirs := cfg.HomeDirs
	if envFile != "" {
		homeDirs = append(slices.Clip(homeDirs), filepath.Dir(envFile))
	}
	for _, rel := range homeDirs {
		dir := filepath.Join(sandboxHome, rel)
		for d := range missingDirs(dir) {
			made[d] = fileID{}
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return failResult(refuse("preparing the directory ~/%s: %w", rel, err))
		}
	}
	// HomeFiles, as the caller has them before a hook runs (a session's
	// transcript): neither they nor their directories are the command's
	// writes, unless it changed them.
	files := madeFiles{}
	for _, rel := range slices.Sorted(maps.Keys(cfg.HomeFiles)) {
		p := filepath.Join(sandboxHome, rel)
		for d := range missingDirs(filepath.Dir(p)) {
			made[d] = fileID{}
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return failResult(refuse("preparing the file ~/%s: %w", rel, err))
		}
		st, err := makeHomeFile(p, cfg.HomeFiles[rel])
		if err != nil {
			return failResult(refuse("preparing the file ~/%s: %w", rel, err))
		}
		files[rel] = st
	}
	// The tool caches the init covers: bound by bubblewrap, or, with an
	// id-mapped tree, handed id-mapped after it ("" for one the broker
	// could not id-map, which stays as the host's root shows it).
	tcPaths := []string(cfg.ToolCaches)
	if cfg.TreeByFD {
		if err := receiveTree(lowerDir); err != nil {
			return failResult(refuse("%w", err))
		}
		tcPaths = slices.Clone(tcPaths)
		for i := range tcPaths {
			handed, err := receiveToolCache(toolCacheLower(i))
			if err != nil {
				return failResult(refuse("%w", err))
			}
			if !handed {
				tcPaths[i] = ""
			}
		}
	}
	method := cfg.WritesMethod
	var snap snapshot
	var upperRoot *rootState // the overlay's upper root before the run
	scrubbed := false        // the overlay has credsLayer above the tree
	switch method {
	case "", "overlay":
		// The merged root shows the upper's mode, owner and times: give
		// it the tree root's, so the command sees the root as it is and
		// a change it makes to the root is told apart.
		var err error
		if upperRoot, err = prepareUpper(upper, lowerDir); err != nil {
			return failResult(refuse("preparing the overlay's upper directory: %w", err))
		}
		// The tree's git configs without the credentials a checkout
		// left there, in a layer above it (see gitcreds.go).
		if scrubbed, err = credentialLayer(lowerDir, workdir, credsLayer, cfg.NestedGits, cfg.CredentialFiles); err != nil {
			return failResult(refuse("%w", credentialsError(err)))
		}
		lowers := lowerDir
		if scrubbed {
			lowers = credsLayer + ":" + lowerDir
		}
		err = mountOverlay(lowers, upper, ovlWork, workdir)
		if err == nil {
			method = "overlay"
			break
		}
		if method == "overlay" {
			return failResult(refuse("mounting overlay over the work tree: %w%s; fix: record writes by copy (--writes copy, which the default falls back to)", err, overlayStackHint(lowerDir, "the work tree", "a tree")))
		}
		method = "copy"
		fallthrough
	case "copy":
		method = "copy"
		copyDir := scratchDir + "/copy"
		if err := copyTree(lowerDir, copyDir); err != nil {
			// Chosen (--writes copy; the broker, for a tree with file
			// systems mounted inside it) or fallen back to.
			why := "overlay unavailable"
			if cfg.WritesMethod == "copy" {
				why = "writes recorded by copy"
			}
			if errors.Is(err, unix.EACCES) {
				err = fmt.Errorf("%w; fix: every file of the tree must be readable by the sandbox's uid (the caller's; a root caller's sandbox runs as the tree's owner)", err)
			}
			return failResult(refuse("copying the work tree (%s): %w", why, err))
		}
		shown, err := scrubInPlace(copyDir, lowerDir, workdir, cfg.NestedGits, cfg.CredentialFiles)
		if err != nil {
			return failResult(refuse("%w", credentialsError(err)))
		}
		if snap, err = takeSnapshot(copyDir); err != nil {
			return failResult(refuse("snapshotting the work tree: %w", err))
		}
		snap.scrubbed = shown
		if err := bindMount(copyDir, workdir); err != nil {
			return failResult(refuse("mounting the work tree copy: %w", err))
		}
	default:
		return failResult(fmt.Errorf("unknown writes method %q", method))
	}

	// The runner's tool caches, each an overlay of the scratch: a write
	// there, which under Claude Code every later step of the job runs, is
	// recorded by its path and thrown away. The mount point of one in the
	// caller's HOME is made in the HOME shown there: not the command's.
	for _, p := range tcPaths {
		if p != "" {
			maps.Copy(made, missingDirs(p))
		}
	}
	tcs, err := mountToolCaches(tcPaths)
	if err != nil {
		return failResult(refuse("%w", err))
	}
	// The caller's runtime directory again at /run/user/0, the one of the
	// uid the command runs as, where the caller's uid is not 0: a hook's
	// /run/user/$(id -u)/x is the caller's /run/user/UID/x under Claude
	// Code, recorded by that path. A recursive bind, made once the rest
	// is mounted: what lies inside the runtime directory (the work tree's
	// overlay, where the tree lies there) shows at both.
	runAlias, err := mountRuntimeDirAlias(runtimeDirAlias(runAt))
	if err != nil {
		return failResult(refuse("%w", err))
	}

	// The made directories' identities, the work tree's own being its
	// mount's root now (whose changes the tree's record holds: its "."),
	// so its mode is not compared.
	// Those made in HOME at the caller's HOME path (the work tree's
	// parents, in GitHub's /home/runner/work/…) are HOME's too, whose
	// record names them from /root: by that path each is the directory
	// itself, the work tree's mount point among them, not the overlay.
	made.alias(callerHomeAt, sandboxHome)
	made.stamp(append([]string{workdir, callerHomeAt}, toolCachePaths(tcs)...)...)
	// HOME's and TMPDIR's own state: a change the command makes to HOME
	// itself (chmod 777 ~, a default ACL on it) is one the caller's home
	// would keep, as the tree's root keeps one; so is one to TMPDIR, which
	// is the user's own and 0700 where a session has a private one (macOS);
	// and to /dev/shm, the host's, which a command run in the open as root
	// would change for every process of the host.
	// In the record's order: /dev/shm, /var/tmp, /run/lock and
	// /run/user/UID before the tool caches, HOME and TMPDIR after.
	early := []scratchArea{{dir: shm, name: sandboxShm, at: sandboxShm}}
	if varTmpAt != "" {
		early = append(early, scratchArea{dir: varTmp, name: sandboxVarTmp, at: varTmpAt})
	}
	early = append(early, runAreas...)
	late := []scratchArea{{dir: home, name: "~", at: sandboxHome, files: files}, {dir: tmp, name: "$TMPDIR", at: sandboxTmp}}
	for _, areas := range [][]scratchArea{early, late} {
		for i := range areas {
			if areas[i].root, err = dirState(areas[i].dir, copyXattrSet); err != nil {
				return failResult(refuse("preparing scratch: %w", err))
			}
		}
	}

	// The mounts are made: the reaper gets its config now and confines
	// itself beside the egress set-up. The command, with what the set-up
	// decides (the proxy variables, resolv.conf's text), follows once the
	// wall is up, to a reaper with nothing left to do but start it.
	rc := reaper.Config{Protocol: reaper.Protocol, Cwd: cfg.Cwd, Limits: cfg.Limits, Linger: cfg.Linger, PidsByCgroup: cfg.PidsByCgroup,
		RunDir: runDir, ReadOnly: readOnlyMounts(cfg.MaskDirs, varTmpAt, callerHomeAt), Writable: writableDirs(workdir, slices.Concat([]string{varTmpAt, callerHomeAt, runAlias}, runAt, toolCachePaths(tcs))...)}
	var resolv *os.File
	if setup != nil {
		var bind bool
		if resolv, bind, err = makeResolvConf(); err != nil {
			return failResult(refuse("placing resolv.conf: %w", err))
		}
		defer resolv.Close()
		if bind {
			rc.ResolvConfFile = exact.String(resolv.Name())
		}
	}
	rp.configure(rc)
	sess, err := setup.take()
	if err != nil {
		return failResult(refuse("setting up the egress wall: %w", err))
	}
	cmd := reaper.CommandDoc{Command: cfg.Command, Env: cfg.Env}
	if sess != nil {
		sess.HostAddrs(cfg.HostAddrs)
		cmd.Env = append(slices.Clip(cmd.Env), sess.Env()...)
		if err := fillResolvConf(resolv, sess.ResolvConf()); err != nil {
			return failResult(refuse("placing resolv.conf: %w", err))
		}
	}
	if cfg.WaitGo {
		ctl := os.NewFile(fdControl, "control")
		buf := make([]byte, 3)
		n, _ := io.ReadFull(ctl, buf)
		ctl.Close()
		if string(buf[:n]) != "go\n" {
			return failResult(errors.New(`init: the broker never said "go" (the connector failed, or the prepared run was aborted)`))
		}
	}
	if sess != nil {
		if err := sess.Connected(); err != nil {
			return failResult(refuse("%w", err))
		}
	}

	handed = true
	scratchMet := watchScratch(scratchDir)
	st, timedOut, settle, err := rp.run(cfg, cmd)
	scratchHit := scratchMet()
	// The record is made while the reaper's exit completes; it is sent
	// only once that exit is over and the status proved well formed.
	defer func() {
		if serr := settle(); serr != nil && res.OK {
			res.OK, res.Error = false, serr.Error()
		}
	}()
	done()
	// The egress record is read beside the write record: the one waits
	// on sockets, the other reads the scratch.
	type egressRecord struct {
		eg      []evidence.Egress
		dropped *evidence.Dropped
		err     error
	}
	var egressCh chan egressRecord
	if sess != nil {
		egressCh = make(chan egressRecord, 1)
		go func() {
			eg, dropped, ferr := sess.Finish()
			egressCh <- egressRecord{eg, dropped, ferr}
		}()
	}
	// The command is gone: what it left in System V IPC would hold its
	// memory (in the run's memory cgroup) while the record is made. If
	// it cannot be removed, the record is made beside it, and a cgroup
	// it fills ends the run as a memory limit, never as a pass.
	removeSysVIPC()
	r := initResult{OK: err == nil, WritesMethod: method, TimedOut: timedOut}
	if err != nil {
		r = failResult(err)
		r.WritesMethod = method
	} else {
		r.ExitCode, r.Signal = st.ExitCode, st.Signal
		r.Lingered = st.Lingered
		r.LimitHit = st.LimitHit
		r.DurationNs = st.DurationNs
		if st.Refusal != "" {
			r.OK, r.Refusal = false, st.Refusal
		} else if st.Error != "" {
			r.OK, r.Error = false, st.Error
		}
	}
	// The record: what the command left in the work tree, HOME and TMPDIR.
	var writes []evidence.Write
	var werr error
	// Whether the command wrote a file up to the file-size limit
	// (fileSizeHit), and one place's.
	fileLimit := fileSizeLimit(cfg.Limits.WithDefaults().FileBytes)
	var atLimit, hit bool
	if method == "overlay" {
		// Against what the command saw: the tree under the scrubbed
		// configs, so that leaving one as it was is no write.
		lower := lowerDir
		if scrubbed {
			lower = before
			werr = mountLowers(credsLayer+":"+lowerDir, before)
		}
		if werr == nil {
			writes, atLimit, werr = readUpperSized(upper, lower, "", upperRoot, fileLimit)
		}
	} else {
		writes, atLimit, werr = snap.diffSized(scratchDir+"/copy", fileLimit)
	}
	if werr == nil {
		var ew, cw, lw []evidence.Write
		ew, atLimit, werr = recordAreas(early, made, fileLimit, atLimit)
		if werr == nil && len(tcs) > 0 {
			cw, hit, werr = toolCacheWrites(tcs, fileLimit)
			atLimit = atLimit || hit
		}
		if werr == nil {
			lw, atLimit, werr = recordAreas(late, made, fileLimit, atLimit)
		}
		writes = slices.Concat(writes, ew, cw, lw)
	}
	if egressCh != nil {
		e := <-egressCh
		switch {
		case e.err != nil:
			// Only a whole record is ever reported, even beside an error.
			if r.OK {
				r.OK, r.Error = false, fmt.Sprintf("reading the egress record: %v", e.err)
			}
		case e.eg == nil:
			r.Egress, r.EgressDropped = []evidence.Egress{}, e.dropped
		default:
			r.Egress, r.EgressDropped = e.eg, e.dropped
		}
	}
	if werr != nil {
		r.OK, r.Error = false, fmt.Sprintf("reading the write record: %v", werr)
		return r
	}
	if writes == nil {
		writes = []evidence.Write{}
	}
	r.Writes = writes
	if envFile != "" {
		ef, err := readEnvFile(home, envFile)
		if err != nil {
			r.OK, r.Error = false, fmt.Sprintf("reading the env file: %v", err)
			return r
		}
		r.EnvFile = ef
	}
	if r.LimitHit == "" {
		r.LimitHit = scratchFull(scratchDir)
	}
	if r.LimitHit == "" {
		r.LimitHit = scratchHit
	}
	if r.LimitHit == "" {
		r.LimitHit = fileSizeHit(atLimit)
	}
	return r
}

// fileSizeHit names the file-size limit where the command wrote a file
// of the limit's size (RLIMIT_FSIZE; atLimit, record.atLimit): a write
// that crosses the limit is cut there, and the next fails with EFBIG. The kernel's
// SIGXFSZ, by which the reaper names the limit, ends only a command that
// keeps the signal's default action; Python and Go ignore it, so that a
// hook in either (or one that ignores or blocks the signal itself) meets
// the limit with no more than an error it may catch, and goes on: a hook
// that writes a large file and, where that succeeds, reaches a host left
// a record that passed for whole, where Claude Code, which imposes no
// such limit, would have seen the host reached.
// A file larger than the limit names nothing: the command cannot have
// written it, only moved or linked one of the tree's.
func fileSizeHit(atLimit bool) string {
	if atLimit {
		return "file-size"
	}
	return ""
}

// fileSizeLimit is the file-size limit of limit bytes as a file's size, 0
// for none (RLIM_INFINITY, or past what a file's size holds).
func fileSizeLimit(limit uint64) int64 {
	if limit == 0 || limit > math.MaxInt64 {
		return 0
	}
	return int64(limit)
}

// changed says whether the directory dir changed from the state before:
// its mode, owner, user xattrs or ACLs. Its mtime alone is not compared:
// a temporary file made and removed again in TMPDIR or HOME (a shell's
// here-document) is no change the caller's directory keeps.
func (before *rootState) changed(dir string) (bool, error) {
	now, err := dirState(dir, copyXattrSet)
	if err != nil {
		return false, err
	}
	return dirChanged(before.meta, now.meta, func() bool { return !maps.Equal(before.xattrs, now.xattrs) }, 1), nil
}

// makeResolvConf makes the file the command will read as /etc/resolv.conf,
// empty until the egress set-up decides its text: where /etc/resolv.conf
// links into the sandbox's /run (a tmpfs the init and the reaper share),
// the link's target; otherwise a file in runDir that the reaper binds
// over /etc/resolv.conf (bind).
func makeResolvConf() (f *os.File, bind bool, err error) {
	return resolvConfFile("/etc/resolv.conf", "/run", runDir)
}

// resolvConfFile is makeResolvConf for the resolv.conf at path, the
// sandbox's run directory run and the init's own directory own (under
// run). A link anywhere but into run (outside own, which the reaper
// hides) is refused: the command would read the host's resolver
// configuration, or none, and not the recording stub's.
func resolvConfFile(path, run, own string) (f *os.File, bind bool, err error) {
	if target, err := os.Readlink(path); err == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		if !fsx.Under(target, run) || fsx.Under(target, own) {
			return nil, false, fmt.Errorf("%s links to %s, not into the sandbox's own %s, where the stub's can be placed", path, target, run)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return nil, false, err
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		return f, false, err
	}
	f, err = os.OpenFile(own+"/resolv.conf", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	return f, true, err
}

// fillResolvConf writes the wall's resolv.conf into the file made for it:
// an empty one would leave the command with no resolver, or the host's.
func fillResolvConf(f *os.File, text []byte) error {
	if len(text) == 0 {
		return errors.New("the egress layer gave no resolv.conf")
	}
	_, err := f.Write(text)
	return err
}

func bindMount(src, dst string) error {
	return fsx.SafeMount(src, dst, "", unix.MS_BIND|unix.MS_REC, "")
}

func mountOverlay(lower, upper, work, target string) error {
	return overlayMount(target, unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work))
}

// mountLowers mounts a read-only overlay of lower layers (no upper) on
// target.
func mountLowers(lowers, target string) error {
	return overlayMount(target, unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, "lowerdir="+lowers)
}

// overlayMount mounts an overlay with options opts. userxattr keeps
// overlay's own metadata (opaque dirs) in user.* xattrs, which a user
// namespace may write; a kernel that lacks it gets the mount without.
func overlayMount(target string, flags uintptr, opts string) error {
	err := fsx.SafeMount("overlay", target, "overlay", flags, opts+",userxattr")
	if err != nil {
		err = fsx.SafeMount("overlay", target, "overlay", flags, opts)
	}
	return err
}

// credentialsError names the fix when the tree's git credentials cannot be
// hidden: the run is refused rather than run with them readable.
func credentialsError(err error) error {
	return fmt.Errorf("hiding the git credentials in the work tree: %w; fix: %s", err, credentialsFix)
}

// maxStatusBytes bounds the reaper's status document (its lingered list
// is bounded well below this).
const maxStatusBytes = 4 << 20

// reaperProc is a started reaper waiting for its config.
type reaperProc struct {
	pid      int
	cfW, stR *os.File
	// exR reads the reaper's notice that the command's main process
	// exited (reaper.FdExited).
	exR *os.File
	// sendErr is the first failed write on cfW: the reaper stopped
	// reading (one from another build reads its config, says so in its
	// status and exits); run then takes what it said as the reason.
	sendErr error
}

// configure sends the reaper its Config, once the mounts are made.
func (rp *reaperProc) configure(rc reaper.Config) {
	rp.sendErr = json.NewEncoder(rp.cfW).Encode(rc)
}

// varTmpMountPoint is where the init binds the run's throwaway /var/tmp:
// the host's /var/tmp (or where its links lead, as for HOME), masked by
// bwrap and read-only to the command before, so that a write there failed
// and was in no record, where under Claude Code it stays on the host. ""
// where there is none to cover: a host without /var/tmp, or one whose
// /var/tmp is a link that cannot be masked (to /tmp: a write through it
// lands in the run's TMPDIR, and is recorded there). Made where missing
// and the root is writable (--strict-fs's tmpfs root).
func varTmpMountPoint() (string, error) {
	mp := mountPointOf(sandboxVarTmp)
	fi, err := os.Lstat(mp)
	switch {
	case err == nil && fi.IsDir():
		return mp, nil
	case err == nil:
		return "", nil // a link left as it is
	case !errors.Is(err, os.ErrNotExist):
		return "", err
	}
	if err := os.MkdirAll(mp, 0o777|os.ModeSticky); err != nil {
		if errors.Is(err, unix.EROFS) {
			return "", nil // the host has none, and its root is read-only
		}
		return "", err
	}
	return mp, nil
}

// scratchArea is one of the run's throwaway places, empty at its start
// and recorded from its directory of the scratch: HOME, TMPDIR, /dev/shm,
// /var/tmp.
type scratchArea struct {
	dir  string // its directory in the scratch, which the record walks
	name string // how the record names it: "~", "$TMPDIR", "/dev/shm", "/var/tmp"
	at   string // where the command sees it, which the made directories are named by
	// files are the files the init made there before the command (HOME's
	// HomeFiles), in no record unless the command changed them.
	files madeFiles
	root  *rootState // its own directory's state before the command
}

// recordAreas reads the record of each area in turn, until an error:
// what the command left there, but for the files and directories the init
// made (made, a.files), and its own directory where the command changed
// it (chmod 777 ~), named by itself. atLimit is whether a file of an
// earlier place reached the file-size limit, and is returned with those
// of areas.
func recordAreas(areas []scratchArea, made madeDirs, fileLimit int64, atLimit bool) ([]evidence.Write, bool, error) {
	var out []evidence.Write
	for _, a := range areas {
		ws, hit, err := upperWritesSized(a.dir, a.name+"/", fileLimit)
		atLimit = atLimit || hit
		if err != nil {
			return nil, atLimit, err
		}
		// The made files first: one the command removed is a delete
		// beneath its made directories, which drop then places.
		if a.files != nil {
			ws = a.files.drop(ws, a.name+"/", a.at)
		}
		ws = made.drop(ws, a.name+"/", a.at)
		changed, err := a.root.changed(a.dir)
		if err != nil {
			return nil, atLimit, err
		}
		if changed {
			out = append(out, evidence.Write{Path: a.name, Op: evidence.OpModify, Kind: "dir"})
		}
		out = append(out, ws...)
	}
	return out, atLimit, nil
}

// writableDirs are the places the command may write, each recorded: the
// work tree, HOME, TMPDIR, /dev/shm and, where each is bound, /var/tmp,
// HOME at the caller's HOME path, /run/lock, /run/user/UID (and at
// /run/user/0 too for a non-root caller: mountRuntimeDirAlias) and the
// runner's tool caches (own: "" where not).
func writableDirs(workdir string, own ...string) []string {
	w := []string{workdir, sandboxHome, sandboxTmp, sandboxShm}
	for _, d := range own {
		if d != "" {
			w = append(w, d)
		}
	}
	return w
}

// readOnlyMounts are the mounts bwrap made writable for the init's sake
// (the root in --strict-fs, the fresh /dev, the tmpfs masks, the caller's
// own masks among them): for the command they become read-only, so that
// every write it can make lands where it is recorded (the work tree, HOME,
// TMPDIR, /dev/shm, /var/tmp). varTmpAt and callerHomeAt are where the
// run's /var/tmp and HOME at the caller's HOME path are bound ("" where
// not), which stay writable as HOME's bind does: a remount of a mask at
// their path would take the bind above it.
func readOnlyMounts(maskDirs []string, varTmpAt, callerHomeAt string) []string {
	// Not the command's HOME, which the init's bind covers where a mask
	// lies at its path too (/root, or where its link leads; a caller
	// whose HOME it is).
	home := homeMountPoint()
	return slices.DeleteFunc(slices.Concat([]string{"/", "/dev", "/run"}, maskedDirs, maskedDirsAt(lookupHostPath, filepath.EvalSymlinks), maskDirs),
		func(d string) bool {
			return d == sandboxHome || d == home || varTmpAt != "" && (d == sandboxVarTmp || d == varTmpAt) || callerHomeAt != "" && d == callerHomeAt
		})
}

// callerHomeMountPoint is where the init binds the command's HOME a second
// time: the caller's own HOME's path (initConfig.CallerHome), or "" where
// there is none or where it would cover or lie in a place of the run's own
// (HOME=/ or /var, above /tmp, /var/tmp or a place of held, those of the
// run's /var/tmp and /run areas that are bound: "" for none; one in /root,
// /dev/shm or the run's directory). One in /tmp or /var/tmp is made in the
// run's own.
func callerHomeMountPoint(h string, held ...string) string {
	if h == "" || !filepath.IsAbs(h) || h != filepath.Clean(h) {
		return ""
	}
	for _, own := range []string{sandboxHome, homeMountPoint(), sandboxShm, runDir} {
		if fsx.Under(h, own) || fsx.Under(own, h) {
			return ""
		}
	}
	for _, own := range append([]string{sandboxTmp}, held...) {
		if own != "" && fsx.Under(own, h) {
			return ""
		}
	}
	return h
}

// homeMountPoint is where the init mounts the command's HOME: sandboxHome,
// or the path its links lead to where the host's /root is a link (ostree's
// /root -> var/roothome, which the run masks): the mount refuses a link
// in its destination, and every run was refused there. Read in the
// sandbox, before the command runs, on the host's read-only root.
func homeMountPoint() string { return mountPointOf(sandboxHome) }

// mountPointOf is p, or the path its links lead to where that may be
// masked (maskableLinkTarget): a link to / or a system directory is left
// as it is, and the mount at p then refuses the run rather than cover
// the root or /usr with HOME.
func mountPointOf(p string) string {
	if r := maskableLinkTarget(p, filepath.EvalSymlinks); r != "" {
		return r
	}
	return p
}

// netSetup is the egress wall's set-up, run in a goroutine of its own.
type netSetup struct {
	done chan struct{}
	sess NetSession
	err  error
}

// startNetSetup starts setting up the egress wall where the run has one
// (nil otherwise).
func startNetSetup(cfg initConfig) *netSetup {
	if !cfg.Network || network == nil {
		return nil
	}
	n := &netSetup{done: make(chan struct{})}
	go func() {
		defer close(n.done)
		n.sess, n.err = network.Setup(context.Background(), cfg.Egress)
	}()
	return n
}

// take waits for the set-up and gives its session: nil without a wall.
func (n *netSetup) take() (NetSession, error) {
	if n == nil {
		return nil, nil
	}
	<-n.done
	return n.sess, n.err
}

// discard finishes a session whose run ended before its command could
// start.
func (n *netSetup) discard() {
	if n == nil {
		return
	}
	<-n.done
	if n.err == nil {
		n.sess.Finish()
	}
}

// spawnReaper starts the reaper in a nested pid and mount namespace: from
// vigiles-reaper on fdReaper when byFD, else from the init's own binary.
// The calling goroutine must hold its OS thread for the reaper's lifetime:
// Pdeathsig is tied to the thread (golang/go#27505); initMain locks it.
// It forks with syscall.ForkExec, not os/exec, whose first start in a
// process probes pidfd support with an extra fork. cgroup: fdCgroup holds
// the command's pids cgroup, which goes to the reaper as reaper.FdCgroup.
func spawnReaper(byFD, cgroup bool) (*reaperProc, error) {
	stR, stW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cfR, cfW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	exR, exW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// A binary reached through a descriptor (the init's own, which bwrap
	// exec'd from one, or the broker's fdReaper): no path to it needs to
	// be walkable inside the sandbox. fdReaper is close-on-exec since
	// initMain's fsx.CloexecFrom, so the reaper does not inherit it.
	exe := "/proc/self/exe"
	if byFD {
		exe = "/proc/self/fd/" + strconv.Itoa(fdReaper)
	}
	files := make([]uintptr, max(reaper.FdConfig, reaper.FdStatus, reaper.FdExited, reaper.FdCgroup)+1)
	files[0], files[1], files[2] = 0, 1, 2
	files[reaper.FdConfig], files[reaper.FdStatus], files[reaper.FdExited] = cfR.Fd(), stW.Fd(), exW.Fd()
	files[reaper.FdCgroup] = ^uintptr(0) // closed in the reaper
	if cgroup {
		files[reaper.FdCgroup] = fdCgroup
	}
	pid, err := syscall.ForkExec(exe, []string{reaper.Argv0}, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: files,
		Sys: &syscall.SysProcAttr{
			Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWNS,
			Pdeathsig:  syscall.SIGKILL,
			// A session (and process group) of its own: kill(0, …) from
			// the command reaches the command's group, never the init's
			// or bwrap's, whatever the pid namespaces.
			Setsid: true,
		},
	})
	cfR.Close()
	stW.Close()
	exW.Close()
	if cgroup {
		unix.Close(fdCgroup) // the reaper's now, and the init's business no more
	}
	if err != nil {
		cfW.Close()
		stR.Close()
		exR.Close()
		return nil, reaperStartError(err)
	}
	return &reaperProc{pid: pid, cfW: cfW, stR: stR, exR: exR}, nil
}

// reaperStartError is the refusal for a reaper that could not be
// started. Its clone makes a pid and a mount namespace of its own, beside
// bubblewrap's: where the kernel's limits on them (user.max_pid_namespaces,
// user.max_mnt_namespaces, counted for the user against every user
// namespace up to the host's) leave room for bubblewrap's and not these,
// it fails with ENOSPC (EUSERS before Linux 4.9), which read as a full
// disk and named no fix.
func reaperStartError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EUSERS) {
		return refuse("starting the reaper: %w: the kernel's limit on pid or mount namespaces is reached (the reaper makes one of each, beside bubblewrap's), not a full disk; fix: raise user.max_pid_namespaces and user.max_mnt_namespaces (sysctl -w user.max_pid_namespaces=15000 user.max_mnt_namespaces=15000), or run fewer sandboxes at once", err)
	}
	return refuse("starting the reaper: %w", err)
}

// wait reaps the reaper.
func (rp *reaperProc) wait() unix.WaitStatus {
	var ws unix.WaitStatus
	for {
		_, err := unix.Wait4(rp.pid, &ws, 0, nil)
		if err != unix.EINTR {
			return ws
		}
	}
}

// abort ends a reaper that will not be given a command.
func (rp *reaperProc) abort() {
	unix.Kill(rp.pid, unix.SIGKILL)
	rp.wait()
	rp.cfW.Close()
	rp.stR.Close()
	rp.exR.Close()
}

// run hands the reaper its command and waits for it within the command's
// deadline, and, once its main process has exited within that deadline,
// for the linger (plus lingerGrace) from that exit. It returns as soon as the reaper's status says
// that the command ended and left nothing running: nothing of it can
// write any more, and the reaper's own exit (its mount namespace's
// teardown waits for an RCU grace period before its status pipe reads
// EOF, 0.5–1 ms here) need not come before the record. settle waits for
// that exit and checks that nothing followed the status; the record is
// sent only once it returns.
func (rp *reaperProc) run(cfg initConfig, cmd reaper.CommandDoc) (st reaper.Status, timedOut bool, settle func() error, err error) {
	settle = func() error { return nil }
	stR := rp.stR
	// A reaper that stops reading its config (one from another build
	// reads it, says so in its status and exits) is waited for like any
	// other: what it said is the reason, not the broken pipe. The command
	// comes in a document of its own after the config (reaper.CommandDoc):
	// a reaper from before the protocol number reads only the first, finds
	// no command, and runs none.
	sendErr := rp.sendErr
	if sendErr == nil {
		sendErr = json.NewEncoder(rp.cfW).Encode(cmd)
	}
	rp.cfW.Close()
	// The init's result encoder is built while the reaper and the command
	// run (the init has one P, and waits for them), not after the
	// command; not before both documents are sent, which the reaper waits
	// for.
	go warmJSON(sampleInitResult())
	// The status is read while the reaper runs: a status larger than the
	// pipe holds must not block it until the deadline. Its first document
	// is decoded as it comes; all of it is kept for the checks below.
	type firstDoc struct {
		st  reaper.Status
		err error
	}
	first := make(chan firstDoc, 1)
	status := make(chan []byte, 1)
	go func() {
		var all bytes.Buffer
		r := io.TeeReader(io.LimitReader(stR, maxStatusBytes), &all)
		dec := json.NewDecoder(r)
		dec.DisallowUnknownFields()
		var d firstDoc
		d.err = dec.Decode(&d.st)
		first <- d
		_, _ = io.Copy(io.Discard, r)
		status <- all.Bytes()
	}()
	// The reaper's notice that the main process exited: the end of the
	// command's own time, and the start of its leftovers' linger.
	notice := make(chan struct{})
	go func() {
		defer rp.exR.Close()
		b := make([]byte, 1)
		if n, _ := rp.exR.Read(b); n == 1 && b[0] == reaper.ExitedByte {
			close(notice)
		}
	}()
	exited := (<-chan struct{})(notice)
	done := make(chan unix.WaitStatus, 1)
	go func() { done <- rp.wait() }()
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	// The deadline is the command's: --timeout from its start (from just
	// before, here), whatever --linger says. The linger is for what a
	// main process that exited in time leaves behind, and only then is
	// the deadline moved to the linger's end.
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var ws unix.WaitStatus
	var left []reaper.Process // what ran besides the main process at the deadline
	kill := func() {
		timedOut = true
		left = survivors(rp.pid, exited == nil)
		unix.Kill(rp.pid, unix.SIGKILL) // pid 1 of the nested namespace: the whole tree goes
		ws = <-done
	}
	linger := func() {
		exited = nil // it comes once
		timer.Reset(sumDurations(cfg.Linger, lingerGrace))
	}
	// ended says the reaper's status came, with the leftovers it ended at
	// the linger's end: the command ended in time. What the init waits
	// for then is the reaper's exit, which waits for the kernel to tear
	// its leftovers down (19 s for one that held 5.5 million epoll
	// watches): past the grace the reaper is killed, as at a deadline,
	// but the run did not time out.
	ended := false
wait:
	for {
		select {
		case ws = <-done:
			break wait
		case <-exited:
			linger()
		case <-timer.C:
			// An exit noticed in the same instant as the deadline
			// counts as in time: the notice was written first.
			select {
			case <-exited:
				linger()
				continue
			default:
			}
			if ended {
				unix.Kill(rp.pid, unix.SIGKILL)
				ws = <-done
				break wait
			}
			kill()
			break wait
		case d := <-first:
			first = nil
			// The reaper writes its status last, once the command has
			// ended and its leftovers have had their linger; with none
			// left, it is the only process of its pid namespace, and
			// nothing more can start there. Anything else waits for its
			// exit, which ends what is left, as before.
			ended = d.err == nil && sendErr == nil && d.st.Protocol == reaper.Protocol &&
				d.st.Error == "" && d.st.Refusal == ""
			if ended && len(d.st.Lingered) == 0 {
				return d.st, false, func() error {
					<-done
					data := <-status
					stR.Close()
					_, err := decodeStatus(data)
					return err
				}, nil
			}
		}
	}
	data := <-status
	stR.Close()
	if sendErr != nil {
		if json.Unmarshal(data, &st) == nil && (st.Error != "" || st.Refusal != "") {
			// What it said is the reason, if it is a reaper of this
			// build; one from before the protocol number stops reading
			// after the first document, and says so in a status that is
			// never a verdict.
			if st.Protocol != reaper.Protocol {
				return reaper.Status{}, false, settle, differentBuilds(st)
			}
			return st, false, settle, nil
		}
		return reaper.Status{}, false, settle, fmt.Errorf("sending the reaper its config: %w", sendErr)
	}
	if len(data) == 0 {
		if timedOut {
			return reaper.Status{ExitCode: 128 + int(syscall.SIGKILL), Signal: "SIGKILL", Lingered: left}, true, settle, nil
		}
		code, sig := reaper.ExitOf(ws)
		return st, false, settle, fmt.Errorf("the reaper ended without a status (exit %d %s)", code, sig)
	}
	if st, err = decodeStatus(data); err != nil {
		return st, timedOut, settle, err
	}
	// A status without this build's protocol is from a reaper of another
	// build (one from before the number ignores the config's paths and
	// applies fewer layers): never a verdict, whatever it says.
	if st.Protocol != reaper.Protocol {
		return reaper.Status{}, false, settle, differentBuilds(st)
	}
	if timedOut && len(st.Lingered) == 0 {
		st.Lingered = left
	}
	return st, timedOut, settle, nil
}

// lingerGrace is how long past the linger's end the init waits for the
// reaper's status before it kills the reaper and calls the run timed out:
// the reaper ends the leftovers itself when the linger is over (its exit
// ends them), and needs only to list them and write its status, a few
// milliseconds; the grace covers a loaded machine. The command's own
// deadline is not in it (its main process had exited), and its leftovers
// run into it only when the reaper is late. A status that came in time
// is the reaper's word that the command ended in time: a reaper whose
// exit then outlasts the grace (the kernel tearing down leftovers that
// held much) is killed, and the run is not said to have timed out.
const lingerGrace = time.Second

// sumDurations adds non-negative durations, stopping at the longest one
// time.Duration holds: a timeout and a linger from a caller that did not
// keep to MaxDuration must not wrap into a deadline already past.
func sumDurations(ds ...time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		if d > math.MaxInt64-sum {
			return math.MaxInt64
		}
		sum += d
	}
	return sum
}

// differentBuilds is the run's error for a status without this build's
// protocol number, with what the reaper said.
func differentBuilds(st reaper.Status) error {
	said := ""
	if e := st.Error + st.Refusal; e != "" {
		said = fmt.Sprintf(" (it said: %s)", e)
	}
	return fmt.Errorf("the reaper binary (protocol %d) and the init (protocol %d) come from different builds: rebuild both (make build)%s", st.Protocol, reaper.Protocol, said)
}

// decodeStatus decodes data, all the reaper wrote on its status pipe,
// which must be one status document and nothing more.
func decodeStatus(data []byte) (reaper.Status, error) {
	var st reaper.Status
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(&st)
	// Only white space may follow the one document: Decoder.More passes
	// a stray } or ] (it looks for the next value of an array or object).
	if err == nil && len(bytes.TrimSpace(data[dec.InputOffset():])) > 0 {
		err = errors.New("trailing data")
	}
	if err != nil {
		return st, fmt.Errorf("the reaper's status is malformed: %w", err)
	}
	return st, nil
}

// madeDirs are the directories the init made as the work tree's mount
// point inside the fresh /tmp, HOME or /dev/shm, with their identities.
type madeDirs map[string]fileID

// fileID is a made directory's identity, and the mode, user xattrs and
// POSIX ACLs it was made with (xattrs, as xattrState gives them).
type fileID struct {
	dev, ino uint64
	mode     uint32
	xattrs   string
}

// alias adds, for each made directory strictly inside from, the same
// directory's path inside to (from "" adds none): the two paths show one
// directory.
func (m madeDirs) alias(from, to string) {
	if from == "" {
		return
	}
	for d, id := range m {
		if rel, err := filepath.Rel(from, d); err == nil && d != from && fsx.Under(d, from) {
			m[filepath.Join(to, rel)] = id
		}
	}
}

// missingDirs lists dir and those of its parents that do not exist yet.
func missingDirs(dir string) madeDirs {
	m := madeDirs{}
	for d := filepath.Clean(dir); d != "/"; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		m[d] = fileID{}
	}
	return m
}

// stamp records the identity of each directory once made; the mode of one
// that is a mount point now (the work tree's, HOME's at the caller's HOME
// path), seen through its mount as the record's look is, is left out of
// the comparison (anyMode).
func (m madeDirs) stamp(mounted ...string) {
	for d := range m {
		if id, ok := dirID(d); ok {
			if slices.Contains(mounted, d) {
				id.mode = anyMode
			}
			m[d] = id
		} else {
			delete(m, d)
		}
	}
}

// anyMode, as a made directory's mode, matches every mode (and its
// xattrs are not compared either).
const anyMode = ^uint32(0)

// unreadable is the xattr state of a directory whose xattrs could not be
// read: taken as changed.
const unreadable = "?"

// drop removes from a HOME, TMPDIR or /dev/shm record (paths under prefix,
// a view of mountedAt) the directories the init made, and only those: an
// entry whose path was moved away and made again by the command (another
// inode), or anything beneath the mount point, is the command's own write.
// A made directory whose mode the command changed, or that it replaced by
// another directory (empty or not), is a modify, listed before what lies
// beneath it (the record lists a made directory that holds entries by
// those entries only); one the command removed is a delete.
func (m madeDirs) drop(ws []evidence.Write, prefix, mountedAt string) []evidence.Write {
	out := ws[:0]
	listed := map[string]bool{}
	for _, w := range ws {
		abs := filepath.Join(mountedAt, strings.TrimPrefix(w.Path, prefix))
		if want, ok := m[abs]; ok {
			if same, modeChanged := want.now(abs); same {
				listed[abs] = true
				if !modeChanged {
					continue
				}
				w.Op, w.Kind = evidence.OpModify, "dir"
			} else if w.Op == evidence.OpCreate {
				// Replaced by a file or a link (rm -rf ~/.claude;
				// : > ~/.claude), or by another directory (rm -rf
				// ~/.claude; mkdir ~/.claude): the directory was there
				// before the command, as a tree's directory replaced so
				// is (a modify of a directory, which was one).
				listed[abs] = true
				w.Op = evidence.OpModify
				if w.Kind != "dir" {
					w.Was = "dir"
				}
			}
		}
		out = append(out, w)
	}
	// In path order, so that the record's order does not follow the map's
	// and a parent comes before a child when neither has an entry beneath.
	for _, d := range slices.Sorted(maps.Keys(m)) {
		want := m[d]
		rel, err := filepath.Rel(mountedAt, d)
		if listed[d] || err != nil || rel == "." || strings.HasPrefix(rel, "../") {
			continue
		}
		w := evidence.Write{Path: prefix + rel, Kind: "dir"}
		if !madeDirThere(mountedAt, rel) {
			// The command removed it (rm -rf ~/.claude): the caller
			// made it, so it was there before the command. A delete
			// has no kind; was says it was a directory, as for any
			// other directory deleted (wrote-only's x/** allows the
			// delete of x only so).
			w.Op, w.Kind, w.Was = evidence.OpDelete, "", "dir"
		} else if same, modeChanged := want.now(d); same && modeChanged {
			w.Op = evidence.OpModify
		} else if !same && want.mode != anyMode {
			// Replaced by another directory that holds entries
			// (rm -rf ~/.claude; mkdir -m 777 ~/.claude; mv the
			// transcript into it), which the record lists by them
			// only: the directory was there before the command, as
			// one replaced by an empty directory is (a modify).
			w.Op = evidence.OpModify
		} else {
			continue
		}
		// At its place in path order, which is before what lies
		// beneath it (the record is sorted: sortWrites).
		i, _ := slices.BinarySearchFunc(out, w.Path, func(x evidence.Write, p string) int { return strings.Compare(x.Path, p) })
		out = slices.Insert(out, i, w)
	}
	return out
}

// madeDirThere says whether rel, below the directory mountedAt, still
// names a directory, through no symbolic link: a made directory whose
// parent the command replaced by a file (ENOTDIR) or by a link (to where
// it moved the directories, say) is gone from its path as one removed is.
// A directory that cannot be searched is taken as there.
func madeDirThere(mountedAt, rel string) bool {
	fd, err := openDirBeneath(mountedAt, rel)
	if err != nil {
		return !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP)
	}
	unix.Close(fd)
	return true
}

// openDirBeneath opens the directory rel ("." for root itself) beneath the
// directory root, one component at a time, through no symbolic link: a
// component the command replaced by a link fails with ELOOP, one replaced
// by a file with ENOTDIR, one removed with ENOENT. It needs no openat2.
func openDirBeneath(root, rel string) (int, error) {
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if rel == "." || rel == "" {
		return dir, nil
	}
	for _, part := range strings.Split(rel, "/") {
		next, err := unix.Openat(dir, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(dir)
		if err != nil {
			return -1, err
		}
		dir = next
	}
	return dir, nil
}

// now says whether the directory at path is still the one made (same),
// and whether the command changed its mode since.
//
// A change of its user xattrs or ACLs counts as one of its mode: a
// default ACL on ~/.claude (umask no longer applies to what is made in
// it) is a change to a directory the caller had, as it is in the tree.
func (want fileID) now(path string) (same, modeChanged bool) {
	id, ok := dirID(path)
	if !ok || id.dev != want.dev || id.ino != want.ino {
		return false, false
	}
	if want.mode == anyMode {
		return true, false // the work tree's mount point: its record is the tree's "."
	}
	return true, id.mode != want.mode || id.xattrs != want.xattrs || id.xattrs == unreadable
}

func dirID(path string) (fileID, bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fileID{}, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), st.Ino, st.Mode &^ unix.S_IFMT, xattrState(fd)}, true
}

// xattrState is a directory's user xattrs and POSIX ACLs as one string,
// or unreadable.
func xattrState(fd int) string {
	x, err := xattrs(fd, copyXattrSet)
	if err != nil {
		return unreadable
	}
	return xattrString(x)
}

// xattrString is xattrState's form of the xattrs x.
func xattrString(x map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(x)) {
		fmt.Fprintf(&b, "%q=%q;", k, x[k])
	}
	return b.String()
}

// scratchSample is how often watchScratch looks at the scratch tmpfs.
const scratchSample = 25 * time.Millisecond

// watchScratch samples the scratch tmpfs while the command runs, until the
// returned func is called, which says whether it was ever (nearly) full: a
// command that filled it and freed it again before its end met the limit
// all the same (its writes failed with ENOSPC), which the look at the end
// alone would miss. Sampled: a fill undone within one interval can pass
// unseen (docs/result-format.md).
func watchScratch(dir string) func() string {
	stop, hit := make(chan struct{}), make(chan string, 1)
	go func() {
		t := time.NewTicker(scratchSample)
		defer t.Stop()
		for {
			select {
			case <-stop:
				hit <- ""
				return
			case <-t.C:
				if h := scratchFull(dir); h != "" {
					hit <- h
					<-stop
					return
				}
			}
		}
	}()
	return func() string {
		close(stop)
		return <-hit
	}
}

// scratchFull names the scratch limit when the tmpfs dir is (nearly) full.
// It asks through a raw system call, since it also samples while the
// command runs: a call the runtime sees (syscall.Syscall) that outlasts
// sysmon's tick hands the init's one P to another OS thread. When the init
// shared the command's pids cgroup, a fork bomb left the kernel unable to
// make one, which ended the init (the fork-bomb test met it); the limit now
// holds the command alone, and the raw call stays as the cheaper of the
// two all the same. statfs on a tmpfs does not block.
func scratchFull(dir string) string {
	p, err := unix.BytePtrFromString(dir)
	if err != nil {
		return ""
	}
	var s unix.Statfs_t
	if _, _, errno := unix.RawSyscall(unix.SYS_STATFS, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&s)), 0); errno != 0 {
		return ""
	}
	if s.Bavail*uint64(s.Bsize) < 64<<10 || (s.Files > 0 && s.Ffree < 16) {
		return "scratch"
	}
	return ""
}
