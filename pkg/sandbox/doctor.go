package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/internal/tapkeep"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/landlock"
	"github.com/vigiles/action/pkg/sandbox/seccomp"
)

// Probe is the answer of one doctor check, found by running the real thing.
type Probe struct {
	// Name identifies the check ("bwrap-userns", "overlay-in-userns", …).
	Name string `json:"name"`
	// Availability is the three-valued answer; JSON carries its String.
	Availability Availability `json:"availability"`
	// Required says the tier this host gets depends on this check.
	Required bool `json:"required"`
	// Detail says what was run and what came back; a tool's stderr is
	// quoted in it.
	Detail string `json:"detail"`
	// Fix is what to do when the check is not available; empty when it is.
	Fix string `json:"fix,omitempty"`
	// DurationMs is how long the check took.
	DurationMs float64 `json:"durationMs"`
}

// MarshalJSON writes Availability as its name ("available", …).
func (p Probe) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name         string  `json:"name"`
		Availability string  `json:"availability"`
		Required     bool    `json:"required"`
		Detail       string  `json:"detail"`
		Fix          string  `json:"fix,omitempty"`
		DurationMs   float64 `json:"durationMs"`
	}{p.Name, p.Availability.String(), p.Required, p.Detail, p.Fix, p.DurationMs})
}

// DoctorReport is what vigiles doctor found out about this host.
type DoctorReport struct {
	// Probes are the checks, in a fixed order.
	Probes []Probe `json:"probes"`
	// Tier is what an untrusted hook gets here in auto mode: confined or
	// refused.
	Tier Tier `json:"tier"`
	// WritesMethod is how a confined run records writes here: "overlay",
	// or "copy" when overlayfs cannot be mounted in a user namespace.
	WritesMethod string `json:"writesMethod,omitempty"`
	// Summary says, in one sentence, why the tier is what it is.
	Summary string `json:"summary"`
	// Capability is the engine's own confinement check, usable with Decide.
	Capability Capability `json:"capability"`
}

// MarshalJSON writes the capability with lower-case names and its
// availability by name.
func (r DoctorReport) MarshalJSON() ([]byte, error) {
	type plain DoctorReport
	return json.Marshal(struct {
		Schema string `json:"schema"`
		plain
		Capability capabilityJSON `json:"capability"`
	}{DoctorSchema, plain(r), capabilityJSON{r.Capability.Confine.String(), r.Capability.Why, r.Capability.Fix}})
}

// DoctorSchema names the format of vigiles doctor --json, as the run
// result's and the report's schema fields name theirs, so that a script
// that reads it can tell a later format from this one.
const DoctorSchema = "vigiles.doctor/v1"

type capabilityJSON struct {
	Confine string `json:"confine"`
	Why     string `json:"why,omitempty"`
	Fix     string `json:"fix,omitempty"`
}

// Probe names.
const (
	ProbeBwrap          = "bwrap"
	ProbeConfine        = "confine"
	ProbeUserns         = "bwrap-userns"
	ProbeUsernsNobody   = "bwrap-userns-unprivileged"
	ProbeOverlay        = "overlay-in-userns"
	ProbeNftables       = "nftables-in-netns"
	ProbeSlirp4netns    = "slirp4netns"
	ProbePasta          = "pasta"
	ProbeSeccomp        = "seccomp"
	ProbeLandlock       = "landlock"
	ProbeAppArmorUserns = "sysctl-apparmor-userns"
	ProbeMaxUserns      = "sysctl-max-user-namespaces"
	ProbeGroups         = "caller-groups"
	ProbePidsCgroup     = "pids-cgroup"
	ProbeMemoryCgroup   = "memory-cgroup"
	ProbeBinaries       = "sandbox-binaries"
	ProbeIDMappedTree   = "idmapped-work-tree"
	ProbeCallerSeccomp  = "caller-seccomp"
)

// probeTimeout bounds each check; a check that runs out is inconclusive.
const probeTimeout = 15 * time.Second

// detailCap bounds the quoted tool output kept in a Detail.
const detailCap = 600

type probeFunc func(ctx context.Context, env *doctorEnv) Probe

type probeSpec struct {
	name     string
	required bool
	run      probeFunc
}

// doctorEnv is what every check shares.
type doctorEnv struct {
	bwrap    string // path, "" when absent
	bwrapErr error
}

func probes() []probeSpec {
	ps := []probeSpec{
		{ProbeBwrap, true, probeBwrap},
		{ProbeConfine, true, probeEngineConfine},
		{ProbeUserns, true, probeUserns},
		{ProbeBinaries, true, probeBinaries},
	}
	if os.Geteuid() != 0 {
		ps = append(ps, probeSpec{ProbeGroups, false, probeGroups})
	}
	if os.Geteuid() == 0 {
		ps = append(ps,
			probeSpec{ProbeUsernsNobody, false, probeUsernsNobody},
			// RLIMIT_NPROC does not bound uid 0: a --root-sandbox run
			// needs a pids cgroup and refuses without one; every other
			// root caller's run is bounded by it where it can be made.
			probeSpec{ProbePidsCgroup, false, probePidsCgroup},
			// Without a memory cgroup a run's memory is bounded per
			// process only, as a non-root caller's is.
			probeSpec{ProbeMemoryCgroup, false, probeMemoryCgroup},
			// A root-owned work tree reaches a sandbox run as SandboxUID
			// id-mapped; without that only --root-sandbox runs it.
			probeSpec{ProbeIDMappedTree, false, probeIDMappedTree})
	}
	return append(ps,
		probeSpec{ProbeOverlay, false, probeOverlay},
		// Every confined run of a binary with an egress layer sets up
		// its wall, deny mode too, and is refused without it.
		probeSpec{ProbeNftables, network != nil, probeNftables},
		probeSpec{ProbeSlirp4netns, false, probeSlirp4netns},
		probeSpec{ProbePasta, false, probePasta},
		probeSpec{ProbeSeccomp, true, probeSeccomp},
		probeSpec{ProbeLandlock, false, probeLandlock},
		probeSpec{ProbeAppArmorUserns, false, probeAppArmorSysctl},
		probeSpec{ProbeMaxUserns, false, probeMaxUserns},
		probeSpec{ProbeCallerSeccomp, false, probeCallerSeccomp},
		// What a run does with each runner tool cache: informative, a
		// tool cache passed over refuses no run.
		probeSpec{ProbeToolCaches, false, probeToolCaches},
	)
}

// Doctor runs every capability check concurrently, each bounded by a
// timeout, and says which tier this host gets. It caches nothing: every
// call runs the checks again.
//
// The tier is confined when the engine's own confinement check and the
// seccomp check pass (a run that cannot install its seccomp filter
// refuses); writes are then recorded by overlay, or by copy when overlayfs
// cannot be mounted in a user namespace. Otherwise it is refused.
// Networking checks (nftables, slirp4netns, pasta) do not change the tier:
// a run that needs them and lacks them refuses on its own.
//
// It first removes the temporary directories of doctors killed during
// their overlay or pasta check (sweepDoctorDirs). For a root caller, each
// check that makes a cgroup also sweeps those of killed doctors and runs
// (sweepCgroups), ending what their probes' sandboxes left.
func Doctor(ctx context.Context) DoctorReport {
	sweepDoctorDirs(os.TempDir())
	env := &doctorEnv{}
	env.bwrap, env.bwrapErr = hostprog.Find("bwrap")
	specs := probes()
	out := make([]Probe, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, probeTimeout)
			defer cancel()
			start := time.Now()
			p := s.run(pctx, env)
			if pctx.Err() != nil && p.Availability != Available {
				p.Availability = Inconclusive
				p.Detail = fmt.Sprintf("no answer within %s; %s", probeTimeout, p.Detail)
			}
			p.Name, p.Required = s.name, s.required
			p.DurationMs = float64(time.Since(start).Microseconds()) / 1000
			if p.Availability == Available {
				p.Fix = ""
			}
			out[i] = p
		}()
	}
	wg.Wait()
	return summarize(out)
}

// summarize derives the tier, the writes method and the capability.
func summarize(ps []Probe) DoctorReport {
	r := DoctorReport{Probes: ps}
	get := func(name string) (Probe, bool) {
		for _, p := range ps {
			if p.Name == name {
				return p, true
			}
		}
		return Probe{}, false
	}
	confine, _ := get(ProbeConfine)
	r.Capability = Capability{Confine: confine.Availability}
	if confine.Availability != Available {
		r.Capability.Why, r.Capability.Fix = confine.Detail, confine.Fix
	}
	sc, _ := get(ProbeSeccomp)
	bin, hasBin := get(ProbeBinaries)
	pids, needPids := get(ProbePidsCgroup)
	nft, _ := get(ProbeNftables)
	switch {
	case confine.Availability != Available:
		r.Tier = TierRefused
		r.Summary = "untrusted hooks are refused here: bubblewrap cannot create the sandbox's namespaces"
	case sc.Availability != Available:
		r.Tier = TierRefused
		r.Summary = "untrusted hooks are refused here: the seccomp filter cannot be installed, and a run never goes without it"
		r.Capability = Capability{Confine: sc.Availability, Why: "seccomp: " + sc.Detail, Fix: sc.Fix}
	case hasBin && bin.Availability != Available:
		r.Tier = TierRefused
		r.Summary = "untrusted hooks are refused here: the binary that runs inside every sandbox may be rewritten by another user"
		r.Capability = Capability{Confine: bin.Availability, Why: "sandbox binaries: " + bin.Detail, Fix: bin.Fix}
	case nft.Availability == Unsupported:
		// Inconclusive is also what a binary without an egress layer
		// gets: its runs set up no wall. An unsupported one refuses
		// every run, in every egress mode.
		r.Tier = TierRefused
		r.Summary = "untrusted hooks are refused here: the egress wall (nftables and NFLOG in the sandbox's network namespace) cannot be set up, and every run needs it, deny mode too"
		r.Capability = Capability{Confine: nft.Availability, Why: "egress wall: " + nft.Detail, Fix: nft.Fix}
	default:
		r.Tier = TierConfined
		if ov, _ := get(ProbeOverlay); ov.Availability == Available {
			r.WritesMethod = "overlay"
			r.Summary = "untrusted hooks run confined; writes are recorded from an overlay"
		} else {
			r.WritesMethod = "copy"
			r.Summary = "untrusted hooks run confined; overlayfs is not available in a user namespace, " +
				"so writes are recorded from a private copy of the work tree (slower on big trees)"
		}
		if needPids && pids.Availability != Available {
			// Only a sandbox whose uid 0 is the host's root needs one
			// (RLIMIT_NPROC bounds every other uid): the engine refuses
			// those runs alone.
			r.Summary += "; but --root-sandbox runs are refused: their uid 0 is the host's root, which RLIMIT_NPROC does not bound, and no pids cgroup can be made"
		}
		if idm, ok := get(ProbeIDMappedTree); ok && idm.Availability == Unsupported {
			// A root caller's run on a root-owned tree needs it, unless
			// --root-sandbox: the engine refuses those runs alone.
			r.Summary += "; but runs on a root-owned work tree are refused without --root-sandbox: " + idm.Detail
		}
	}
	return r
}

// WriteText prints one line per check and, under it, what to do about a
// check that is not available.
func (r DoctorReport) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "tier: %s", r.Tier)
	if r.WritesMethod != "" {
		fmt.Fprintf(bw, " (writes recorded by %s)", r.WritesMethod)
	}
	fmt.Fprintf(bw, "\n%s\n\n", clean(r.Summary))
	width := 0
	for _, p := range r.Probes {
		width = max(width, len(p.Name))
	}
	for _, p := range r.Probes {
		req := " "
		if p.Required {
			req = "*"
		}
		fmt.Fprintf(bw, "%-12s %s %-*s  %s\n", p.Availability, req, width, p.Name, clean(p.Detail))
		if p.Availability != Available && p.Fix != "" {
			fmt.Fprintf(bw, "%-12s   %-*s  fix: %s\n", "", width, "", clean(p.Fix))
		}
	}
	fmt.Fprintf(bw, "\n* the tier depends on this check\n")
	return bw.Flush()
}

// clean keeps a line on one line and free of terminal control sequences.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return '?'
		}
		return r
	}, s)
}

// quoteOutput quotes a tool's output for a Detail, bounded.
func quoteOutput(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > detailCap {
		b = append(b[:detailCap:detailCap], "…"...)
	}
	if len(b) == 0 {
		return "no output"
	}
	return strconv.Quote(string(b))
}

// runTool runs a command and returns its combined output. start starts
// it (cmd.Start, or a cgroup's start).
func runTool(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error) ([]byte, error) {
	if cmd.Env == nil {
		// Nothing of the caller's environment: bubblewrap finds what a
		// probe runs inside it (sh, mount) in the system's directories,
		// not on a PATH that may name the checkout's node_modules/.bin.
		cmd.Env = hostprog.Env()
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err := start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	return out.Bytes(), err
}

// runBwrap runs a bubblewrap probe, started again (as a run's sandbox is)
// while it fails because a host mount vanished as bwrap bound it.
func runBwrap(ctx context.Context, argv []string, setup func(*exec.Cmd)) (out []byte, err error) {
	for attempt := 1; ; attempt++ {
		out, err = runBwrapOnce(ctx, argv, setup)
		if err == nil || ctx.Err() != nil || attempt == maxStarts || !isVanishedMount(out) {
			return out, err
		}
	}
}

// probeLimits bound the cgroup a root caller's probe sandbox is born in:
// the probes run bubblewrap and a shell or two.
var probeLimits = Limits{Pids: 64, RunMemoryBytes: 256 << 20}

// runBwrapOnce is one try of runBwrap. A root caller's probe is born in a
// cgroup named as a run's (newRunCgroup; nil for other callers), which it
// removes once bwrap has exited, as the connector checks' sandbox is
// (startNetSandbox): a doctor killed outright (SIGKILL, the OOM killer)
// while bwrap set a probe up could leave bwrap's child waiting for good
// (bubblewrap issue #633), holding the probe's namespaces; listed in the
// dead doctor's cgroup, it is ended by the next root run's or doctor's
// sweep (sweepCgroups), with whatever else of the probe is left there. A probe that runs as
// another user (setup gives it a Credential) gets one on cgroup v1 only,
// as a run of the work tree's owner does: on v2 the shell that moves it
// in would run as that user, who may not write cgroup.procs. A non-root
// caller's probes have no cgroup, and what such a kill leaves stays
// (docs/security.md).
func runBwrapOnce(ctx context.Context, argv []string, setup func(*exec.Cmd)) ([]byte, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if setup != nil {
		setup(cmd)
	}
	other := cmd.SysProcAttr != nil && cmd.SysProcAttr.Credential != nil
	cg, _ := newRunCgroup(os.Geteuid() == 0, false, other, probeLimits)
	defer cg.remove()
	if prefix := cg.shellPrefix(); prefix != nil {
		cmd.Path, cmd.Args = prefix[0], append(prefix, cmd.Args...)
	}
	return runTool(ctx, cmd, cg.start)
}

// bwrapBase is the sandbox shape every namespace check starts from: a user
// namespace in which the caller is uid 0, the host's / read-only, a fresh
// /dev and /proc.
func bwrapBase(bwrap string, extra ...string) []string {
	args := []string{bwrap, "--unshare-all", "--unshare-user", "--uid", "0", "--gid", "0",
		"--die-with-parent", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}
	return append(args, extra...)
}

func noBwrap(env *doctorEnv) Probe {
	return Probe{Availability: Unsupported, Detail: "bubblewrap: " + env.bwrapErr.Error() + ", so this cannot be checked",
		Fix: hostprog.FixFor(env.bwrapErr, "install bubblewrap (apt-get install bubblewrap)")}
}

func probeBwrap(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	return Probe{Availability: Available, Detail: env.bwrap}
}

// probeEngineConfine runs the engine's own confinement check (uncached).
func probeEngineConfine(ctx context.Context, env *doctorEnv) Probe {
	c := probeConfinement(ctx)
	p := Probe{Availability: c.Confine, Detail: c.Why, Fix: c.Fix}
	if c.Confine == Available {
		p.Detail = "bubblewrap creates every namespace a confined run uses"
	}
	return p
}

// usernsFix is what a host may refuse the sandbox's namespaces by, for
// the engine's probe and doctor's alike (namespaceFix puts first what
// does here).
const usernsFix = "allow unprivileged user namespaces: sysctl -w user.max_user_namespaces=15000 " +
	"(and kernel.unprivileged_userns_clone=1 on older Debian kernels); on Ubuntu 23.10+: " +
	"sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; in a container: run it with " +
	"--security-opt seccomp=unconfined --security-opt apparmor=unconfined --cap-add SYS_ADMIN"

func probeUserns(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	return runUserns(ctx, env, nil, "as "+currentUser())
}

// probeUsernsNobody runs the same check as an unprivileged user, when the
// caller is root: GitHub's hosted runners run hooks as a non-root user.
func probeUsernsNobody(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	uid, gid, err := nobodyIDs()
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: err.Error()}
	}
	cred := &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
	p := runUserns(ctx, env, cred, fmt.Sprintf("as nobody (uid %d)", uid))
	if p.Availability != Available {
		p.Fix = "only needed when vigiles runs as a non-root user: " + p.Fix
	}
	return p
}

// nobodyIDs are the uid and gid of the user nobody, as whom a root
// caller's doctor checks what an unprivileged caller gets; an error, in
// the probe's words, where there is none or its ids are unusable (root's).
func nobodyIDs() (uid, gid uint32, err error) {
	u, err := user.Lookup("nobody")
	if err != nil {
		return 0, 0, fmt.Errorf("no unprivileged user to try with: %v", err)
	}
	id, err1 := strconv.ParseUint(u.Uid, 10, 32)
	g, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || id == 0 {
		return 0, 0, fmt.Errorf("user nobody has unusable ids %q:%q", u.Uid, u.Gid)
	}
	return uint32(id), uint32(g), nil
}

func runUserns(ctx context.Context, env *doctorEnv, cred *syscall.Credential, who string) Probe {
	argv := bwrapBase(env.bwrap, env.bwrap, "--version") // bwrap itself: the one program surely there
	out, err := runBwrap(ctx, argv, func(cmd *exec.Cmd) {
		cmd.Dir = "/"
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
	})
	if err != nil {
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("bwrap --unshare-all --unshare-user … bwrap --version %s failed (%v): %s", who, err, quoteOutput(out)),
			Fix:    namespaceFix(usernsFix, out)}
	}
	return Probe{Availability: Available, Detail: "bwrap --unshare-all --unshare-user … bwrap --version " + who + " works"}
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username + " (uid " + u.Uid + ")"
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

// probeOverlay mounts an overlay of temporary directories inside a user
// namespace, writes through it, and checks that the write landed in the
// upper directory and not in the lower one.
func probeOverlay(ctx context.Context, env *doctorEnv) Probe {
	return overlayProbe(ctx, env, nil)
}

// initCaps are the capabilities bubblewrap gives a run's init (bwrapArgs),
// and the overlay and egress-wall probes give theirs, so that each probe
// tries with what a run has. Overlayfs records its mounter's credentials
// for every copy-up and for the tmpfile check on the upper directory at
// mount time; with CAP_SYS_ADMIN alone a non-root caller's probe failed
// there ("upper fs does not support tmpfile") though a run mounts it.
var initCaps = []string{"--cap-add", "ALL"}

// overlayProbeArgv is the bubblewrap command of the overlay probe over the
// temporary directory dir.
func overlayProbeArgv(bwrap, dir string) []string {
	script := "mount -t overlay overlay -o lowerdir=/run/p/lower,upperdir=/run/p/upper,workdir=/run/p/work /run/p/merged && " +
		"echo ok > /run/p/merged/written"
	extra := append(append([]string{}, initCaps...), "--tmpfs", "/run", "--bind", dir, "/run/p", "sh", "-c", script)
	return bwrapBase(bwrap, extra...)
}

// overlayProbe runs the overlay probe as the caller, or as cred when it
// is not nil (its temporary directories are then given to cred).
func overlayProbe(ctx context.Context, env *doctorEnv, cred *syscall.Credential) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	if _, err := hostprog.Find("mount"); err != nil {
		return Probe{Availability: Inconclusive, Detail: "mount(8): " + err.Error() + ", so overlayfs cannot be tried",
			Fix: "install util-linux (mount) to let doctor check overlayfs"}
	}
	dir, err := os.MkdirTemp("", doctorDirPrefix("overlay"))
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("making a temporary directory: %v", err)}
	}
	defer removeAll(dir)
	for _, d := range []string{"", "lower", "upper", "work", "merged"} {
		p := filepath.Join(dir, d)
		if d != "" {
			err = os.Mkdir(p, 0o755)
		}
		if err == nil && cred != nil {
			err = os.Chown(p, int(cred.Uid), int(cred.Gid))
		}
		if err != nil {
			return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("making a temporary directory: %v", err)}
		}
	}
	out, err := runBwrap(ctx, overlayProbeArgv(env.bwrap, dir), func(cmd *exec.Cmd) {
		if cred != nil {
			cmd.Dir = "/"
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
	})
	fix := "overlayfs in a user namespace needs Linux 5.11 or later with overlay built in or loaded (modprobe overlay), " +
		"and a temporary directory that is not itself on overlayfs (set TMPDIR); without it runs record writes by copy"
	if err != nil {
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("mount -t overlay inside bwrap failed (%v): %s", err, quoteOutput(out)), Fix: fix}
	}
	if _, err := os.Stat(filepath.Join(dir, "upper", "written")); err != nil {
		return Probe{Availability: Unsupported, Detail: "the overlay mounted but a write did not reach its upper directory", Fix: fix}
	}
	if _, err := os.Stat(filepath.Join(dir, "lower", "written")); err == nil {
		return Probe{Availability: Unsupported, Detail: "a write through the overlay reached its lower directory", Fix: fix}
	}
	return Probe{Availability: Available, Detail: "mounted overlayfs in a user namespace; a write reached only the upper directory"}
}

// removeAll removes a probe's temporary tree, making directories that
// overlayfs left without permissions removable first.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// doctorNetArg makes the vigiles binary (or a test binary that wires the
// egress layer) play the nftables check's child, inside the probe's
// sandbox: it sets up the egress wall a deny-mode run gets, through the
// egress layer installed with SetNetwork (google/nftables, over netlink:
// no nft binary), takes it down, prints the verdict as JSON and exits.
// See DoctorChild.
const doctorNetArg = "__vigiles-doctor-netwall"

// netProbeTimeout bounds the child's set-up of the wall.
const netProbeTimeout = 10 * time.Second

// DoctorChild serves the doctor's check of the egress wall when this
// process is its child (the one argument doctorNetArg), and exits;
// otherwise it returns at once. Call it once the egress layer is
// installed (SetNetwork), before anything else runs: the check uses the
// layer as a run's init does.
func DoctorChild() {
	if len(os.Args) == 2 && os.Args[1] == doctorNetArg {
		json.NewEncoder(os.Stdout).Encode(netwallChild())
		os.Exit(0)
	}
}

// netwallChild sets up and takes down a deny-mode egress wall in the
// network namespace this process is in.
func netwallChild() seccompVerdict {
	if network == nil {
		return seccompVerdict{Detail: "this binary has no egress layer to set the wall up with"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), netProbeTimeout)
	defer cancel()
	sess, err := network.Setup(ctx, evidence.EgressPolicy{Mode: evidence.EgressDeny})
	if err != nil {
		return seccompVerdict{Detail: err.Error()}
	}
	if _, _, err := sess.Finish(); err != nil {
		return seccompVerdict{Detail: fmt.Sprintf("the wall was set up, but reading its record back failed: %v", err)}
	}
	return seccompVerdict{OK: true}
}

// probeNftables sets up, in a fresh network namespace of a sandbox such
// as a run's (a user namespace, every capability in it), the egress wall
// a deny-mode run gets, with the egress layer the engine uses (the
// library, over netlink, as a run's init does: there is no nft binary to
// need), and takes it down. It runs this binary again as the check's
// child (DoctorChild); a binary without the egress layer (the sandbox
// package's own tests) cannot tell.
func probeNftables(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	if network == nil {
		return Probe{Availability: Inconclusive, Detail: "this binary has no egress layer, so the wall cannot be tried"}
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("cannot find this program to re-run it: %v", err)}
	}
	// The capabilities a run's init holds (bwrapArgs): the wall needs
	// CAP_NET_ADMIN, the DNS stub CAP_NET_BIND_SERVICE.
	extra := append(append([]string{}, initCaps...), exe, doctorNetArg)
	out, err := runBwrap(ctx, bwrapBase(env.bwrap, extra...), func(cmd *exec.Cmd) {
		cmd.Dir = "/"
		cmd.Env = hostprog.Env()
	})
	v, ok := netwallVerdict(out)
	const fix = "the kernel needs nf_tables (CONFIG_NF_TABLES, modprobe nf_tables) and nfnetlink_log (modprobe nfnetlink_log); " +
		"every confined run needs them, deny mode too (nothing to install: vigiles talks to the kernel itself)"
	switch {
	case !ok:
		return Probe{Availability: Inconclusive,
			Detail: fmt.Sprintf("the check's child, %s %s in a fresh network namespace, gave no verdict (%v): %s", clean(exe), doctorNetArg, err, quoteOutput(out))}
	case !v.OK:
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("setting up a deny-mode egress wall in a fresh network namespace failed: %s", clean(v.Detail)), Fix: fix}
	}
	return Probe{Availability: Available,
		Detail: "set up a deny-mode run's egress wall (nftables rule set over netlink, NFLOG, the DNS stub) in a fresh network namespace, then took it down"}
}

// netwallVerdict finds the child's verdict, its last line of JSON, in
// its output (the egress layer may log lines of its own before it).
func netwallVerdict(out []byte) (seccompVerdict, bool) {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var v seccompVerdict
		if json.Unmarshal(lines[i], &v) == nil && (v.OK || v.Detail != "") {
			return v, true
		}
	}
	return seccompVerdict{}, false
}

// sandboxForNet starts a bwrap sandbox with its own user and network
// namespaces that waits until stop is called, and returns the pid of the
// process inside it.
func sandboxForNet(ctx context.Context, bwrap string) (pid int, stop func(), err error) {
	for attempt := 1; ; attempt++ {
		pid, stop, err = startNetSandbox(ctx, bwrap)
		var vm vanishedMount
		if err == nil || ctx.Err() != nil || attempt == maxStarts || !errors.As(err, &vm) {
			return pid, stop, err
		}
	}
}

// startNetSandbox is one try of sandboxForNet; a start that met a
// vanishing host mount is a vanishedMount error.
func startNetSandbox(ctx context.Context, bwrap string) (pid int, stop func(), err error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	defer infoR.Close()
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		infoW.Close()
		return 0, nil, err
	}
	// A root doctor's sandbox is born in a cgroup named as a run's is
	// (nil for other callers), which it removes when it stops. This
	// sandbox lives through the connectors' checks, most of the doctor's
	// time: a doctor killed outright (SIGKILL, the OOM killer) while
	// bwrap set it up left bwrap's child waiting for good (bubblewrap
	// issue #633), holding its namespaces; now the next root run's sweep
	// of a dead broker's cgroups (sweepCgroups) ends it.
	cg, _ := newRunCgroup(os.Geteuid() == 0, false, false, probeLimits)
	argv := append(cg.shellPrefix(), bwrapBase(bwrap, "--info-fd", "3", "sh", "-c", "read _ || true")...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = hostprog.Env()
	cmd.Stdin = stdinR
	cmd.ExtraFiles = []*os.File{infoW}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cg.start(cmd) // on its own locked thread, to which Pdeathsig is tied
	infoW.Close()
	stdinR.Close()
	if err != nil {
		stdinW.Close()
		cg.remove()
		return 0, nil, fmt.Errorf("starting bwrap: %w", err)
	}
	stop = func() {
		stdinW.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
		cg.remove()
	}
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if err := json.NewDecoder(infoR).Decode(&info); err != nil || info.ChildPid <= 0 {
		stop()
		if isVanishedMount(stderr.Bytes()) {
			return 0, nil, vanishedMount{tail(stderr.Bytes())}
		}
		return 0, nil, fmt.Errorf("reading bwrap's child pid (%v): %s", err, quoteOutput(stderr.Bytes()))
	}
	return info.ChildPid, stop, nil
}

// probeSlirp4netns attaches slirp4netns to a sandbox's network namespace,
// waits for its ready signal, and stops it.
func probeSlirp4netns(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	slirp, err := hostprog.Find("slirp4netns")
	if err != nil {
		return Probe{Availability: Unsupported, Detail: err.Error(),
			Fix: hostprog.FixFor(err, "install slirp4netns (apt-get install slirp4netns); it gives allowlisted egress a route out")}
	}
	pid, stop, err := sandboxForNet(ctx, env.bwrap)
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: "cannot start a sandbox to attach to: " + err.Error()}
	}
	defer stop()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: err.Error()}
	}
	defer readyR.Close()
	exitR, exitW, err := os.Pipe()
	if err != nil {
		readyW.Close()
		return Probe{Availability: Inconclusive, Detail: err.Error()}
	}
	// The options a run gives it (pkg/egress): --disable-dns, which an
	// old slirp4netns lacks, is what keeps DNS to the egress layer's stub;
	// --enable-seccomp, and for a root caller --enable-sandbox, confine
	// slirp4netns itself, which a host may not let it do.
	args := []string{"--configure", "--mtu=65520", "--disable-host-loopback", "--disable-dns", "--enable-seccomp"}
	if os.Geteuid() == 0 {
		args = append(args, "--enable-sandbox")
	}
	cmd := exec.CommandContext(ctx, slirp, append(args, "--ready-fd=3", "--exit-fd=4", strconv.Itoa(pid), "tap0")...)
	cmd.Env = hostprog.Env()
	cmd.ExtraFiles = []*os.File{readyW, exitR}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Start()
	readyW.Close()
	exitR.Close()
	if err != nil {
		exitW.Close()
		return Probe{Availability: Unsupported, Detail: fmt.Sprintf("starting slirp4netns: %v", err)}
	}
	ready := make(chan bool, 1)
	go func() {
		b := make([]byte, 1)
		n, _ := readyR.Read(b)
		ready <- n == 1 && b[0] == '1'
	}()
	var ok bool
	select {
	case ok = <-ready:
	case <-ctx.Done():
	}
	// What a run does once slirp4netns is up (the egress layer keeps
	// its tap, so that its exit is quick): whether this host lets it.
	// Before anything reaps it, so that its pid is still its own.
	var keepErr error
	if ok {
		keepErr = tapkeep.Keep(cmd.Process.Pid)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	exitW.Close() // tells slirp4netns to exit
	select {
	case <-waited:
	case <-time.After(2 * time.Second):
		cmd.Process.Kill()
		<-waited
	}
	if !ok {
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("slirp4netns did not become ready: %s", quoteOutput(out.Bytes())),
			Fix:    slirpFix(out.Bytes())}
	}
	return Probe{Availability: Available, Detail: "attached slirp4netns to a sandbox's network namespace (ready), then stopped it; " + keptTapDetail(keepErr)}
}

// keptTapDetail says whether slirp4netns's tap could be kept (tapkeep):
// where it cannot, every allow-mode run ends 20-40 ms later, waiting for
// slirp4netns's exit. Not a failure: the run is whole either way.
func keptTapDetail(err error) string {
	if err == nil {
		return "its tap was kept (pidfd_getfd, TUNSETPERSIST), so a run need not wait for its exit"
	}
	return fmt.Sprintf("its tap could not be kept (%v), so each allow-mode run waits 20-40 ms more for its exit; "+
		"a container's seccomp profile allows pidfd_getfd with CAP_SYS_PTRACE", err)
}

func slirpFix(out []byte) string {
	if fix := hostprog.SlirpFix(out); fix != "" {
		return fix
	}
	return "check slirp4netns's message above; it needs /dev/net/tun and the tun module"
}

// probePasta attaches pasta to a sandbox's network namespace. pasta runs
// in the foreground under hostprog.PastaGuard, as a run's does: its pid
// file, written once its interface is configured, is the readiness
// signal, and closing the guard's pipe stops it. Daemonized (pasta's
// default), it outlived a doctor killed between its fork and the stop, a
// root process holding the dead sandbox's namespaces for good: pasta
// does not quit when the process it was given a pid of exits.
func probePasta(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	pasta, err := hostprog.Find("pasta")
	if err != nil {
		return Probe{Availability: Unsupported, Detail: err.Error(),
			Fix: hostprog.FixFor(err, "install passt (apt-get install passt), which provides pasta")}
	}
	pid, stop, err := sandboxForNet(ctx, env.bwrap)
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: "cannot start a sandbox to attach to: " + err.Error()}
	}
	defer stop()
	dir, err := os.MkdirTemp("", doctorDirPrefix("pasta"))
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: err.Error()}
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777) // pasta may drop to another user before writing its pid file
	pidFile := filepath.Join(dir, "pid")
	args := []string{"--config-net", "--quiet", "--pid", pidFile}
	note := ""
	if os.Geteuid() == 0 {
		// As root pasta drops to nobody, who cannot join a namespace
		// owned by root; keep uid 0 for the check.
		args = append(args, "--runas", "0:0")
		note = " (as root, with --runas 0:0)"
	}
	args = append(args, "--foreground", strconv.Itoa(pid))
	out, err := runGuardedPasta(ctx, pasta, args, pidFile)
	out = dropSyslogNoise(out)
	if err != nil {
		fix := "check pasta's message above"
		if bytes.Contains(out, []byte("tun")) {
			fix = "pasta must open /dev/net/tun: make it usable (chmod 0666 /dev/net/tun) or load the tun module (modprobe tun)"
		}
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("pasta could not attach%s (%v): %s", note, err, quoteOutput(out)), Fix: fix}
	}
	return Probe{Availability: Available, Detail: "attached pasta to a sandbox's network namespace" + note + ", then stopped it"}
}

// holdAttachedPasta, when set, runs once pasta is attached and before it
// is stopped: a test's child sets it to block, so that it is killed with
// pasta attached rather than racing the check to its end. Nil otherwise.
var holdAttachedPasta func()

// runGuardedPasta runs pasta with args under hostprog.PastaGuard until it
// has written pidFile (it is attached), has exited, or ctx is done, then
// stops it and returns its output; the error is nil only when it was
// attached. The guard's pipe is this process's alone, so pasta ends with
// it however this process ends.
func runGuardedPasta(ctx context.Context, pasta string, args []string, pidFile string) ([]byte, error) {
	var out bytes.Buffer
	cmd, lifeW, err := hostprog.StartPastaGuarded(pasta, args, &out, nil)
	if err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var result error
	for done := false; !done; {
		if b, rerr := os.ReadFile(pidFile); rerr == nil && bytes.HasSuffix(b, []byte("\n")) {
			break
		}
		select {
		case werr := <-exited:
			// Gone before it was attached: whatever its status, it failed.
			lifeW.Close()
			if werr == nil {
				werr = errors.New("pasta exited before it wrote its pid file")
			}
			return out.Bytes(), werr
		case <-ctx.Done():
			result, done = ctx.Err(), true
		case <-tick.C:
		}
	}
	if result == nil && holdAttachedPasta != nil {
		holdAttachedPasta()
	}
	lifeW.Close() // the guard stops pasta (SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		// A pasta that does not end on SIGTERM: its process group, the
		// guard's, is this probe's alone.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	return out.Bytes(), result
}

// dropSyslogNoise removes pasta's complaints about a missing syslog.
func dropSyslogNoise(b []byte) []byte {
	var keep [][]byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("Failed to send ")) || !bytes.HasSuffix(bytes.TrimSpace(l), []byte("to syslog")) {
			keep = append(keep, l)
		}
	}
	return bytes.Join(keep, []byte("\n"))
}

// doctorSeccompArg makes the vigiles binary (or a test binary) play the
// seccomp check's child: install the filter, try denied and ordinary
// calls, print the verdict as JSON, exit. See init below.
const doctorSeccompArg = "__vigiles-doctor-seccomp"

type seccompVerdict struct {
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

func init() {
	// Handled here rather than in MaybeInit so that any binary that links
	// this package (vigiles, its tests) can serve the check. The role does
	// nothing but confine itself and report.
	if len(os.Args) == 2 && os.Args[1] == doctorSeccompArg {
		v := seccompChild()
		json.NewEncoder(os.Stdout).Encode(v)
		os.Exit(0)
	}
}

func seccompChild() seccompVerdict {
	runtime.LockOSThread()
	f, err := seccomp.Filter()
	if err != nil {
		return seccompVerdict{Detail: err.Error()}
	}
	if err := seccomp.Install(f); err != nil {
		return seccompVerdict{Detail: err.Error()}
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return seccompVerdict{Detail: err.Error()}
	}
	defer devnull.Close()
	var bad []string
	try := func(name string, nr, a0, a1 uintptr) {
		_, _, e := unix.Syscall(nr, a0, a1, 0)
		if e != unix.EPERM {
			bad = append(bad, fmt.Sprintf("%s gave %v, want EPERM", name, errnoOrOK(e)))
		}
	}
	try("unshare(CLONE_NEWUSER)", unix.SYS_UNSHARE, unix.CLONE_NEWUSER, 0)
	try("bpf", unix.SYS_BPF, 0xffff, 0)
	try("io_uring_setup", unix.SYS_IO_URING_SETUP, 1, 0)
	try("ioctl(TIOCSTI)", unix.SYS_IOCTL, devnull.Fd(), unix.TIOCSTI)
	if t, err := hostprog.Find("true"); err == nil {
		tc := exec.Command(t)
		tc.Env = hostprog.Env()
		if err := tc.Run(); err != nil {
			bad = append(bad, fmt.Sprintf("fork+exec of true failed under the filter: %v", err))
		}
	}
	if len(bad) > 0 {
		return seccompVerdict{Detail: strings.Join(bad, "; ")}
	}
	return seccompVerdict{OK: true, Detail: fmt.Sprintf("installed the filter (%d rules) in a child; denied calls gave EPERM, fork+exec still worked", len(seccomp.Denied()))}
}

func errnoOrOK(e syscall.Errno) string {
	if e == 0 {
		return "success"
	}
	return e.Error()
}

func probeSeccomp(ctx context.Context, env *doctorEnv) Probe {
	exe, err := os.Executable()
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("cannot find this program to re-run it: %v", err)}
	}
	cmd := exec.CommandContext(ctx, exe, doctorSeccompArg)
	cmd.Env = hostprog.Env()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var v seccompVerdict
	if derr := json.Unmarshal(stdout.Bytes(), &v); derr != nil {
		return Probe{Availability: Inconclusive,
			Detail: fmt.Sprintf("the check's child gave no verdict (%v, %v): %s", err, derr, quoteOutput(append(stdout.Bytes(), stderr.Bytes()...)))}
	}
	if !v.OK {
		return Probe{Availability: Unsupported, Detail: v.Detail,
			Fix: "the kernel needs CONFIG_SECCOMP_FILTER (every distribution kernel has it); in a container, do not run with a seccomp profile that forbids seccomp(2)"}
	}
	return Probe{Availability: Available, Detail: v.Detail}
}

// probeBinaries says which binaries a run starts inside the sandbox, the
// init's and the reaper's, and refuses, as a run does, an init binary
// that another user may rewrite.
func probeBinaries(ctx context.Context, env *doctorEnv) Probe {
	exe, err := sandboxExecutable()
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("finding the vigiles binary: %v", err)}
	}
	return binariesProbe(exe)
}

// binariesProbe is probeBinaries for the in-sandbox binary exe.
func binariesProbe(exe string) Probe {
	var st unix.Stat_t
	if err := unix.Stat(exe, &st); err != nil {
		return Probe{Availability: Inconclusive, Detail: clean(err.Error())}
	}
	if othersMayRewrite(&st) {
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("%s may be rewritten by another user (mode %o, owner uid %d, group %d), and every sandbox runs it as its init: runs are refused", clean(exe), st.Mode&0o7777, st.Uid, st.Gid),
			Fix:    "chmod go-w " + clean(exe) + ", owned by root or by you"}
	}
	initBin := "init: " + clean(exe)
	if filepath.Base(exe) != SandboxBinary {
		initBin += fmt.Sprintf(" itself (no %s beside it: each of a run's two starts inside costs about 5 ms more; make build puts it there)", SandboxBinary)
	}
	reaperBin := "reaper: " + clean(filepath.Join(filepath.Dir(exe), ReaperBinary))
	if f := reaperExecutable(exe, nil); f != nil {
		f.Close()
	} else {
		reaperBin = fmt.Sprintf("reaper: the init's binary (%s beside it is missing, not executable, or may be rewritten by another user: its start costs about 4 ms more; make build puts it there)", ReaperBinary)
	}
	return Probe{Availability: Available, Detail: initBin + "; " + reaperBin}
}

func probeLandlock(ctx context.Context, env *doctorEnv) Probe {
	abi, err := landlock.ABI()
	switch {
	case err == nil:
		return Probe{Availability: Available, Detail: fmt.Sprintf("Landlock ABI %d", abi)}
	case errors.Is(err, errors.ErrUnsupported):
		return Probe{Availability: Unsupported, Detail: err.Error(),
			Fix: "Linux 5.13+ with landlock in the lsm= boot parameter; an extra layer, not required today"}
	}
	return Probe{Availability: Inconclusive, Detail: err.Error()}
}

// probePidsCgroup makes (and removes) the pids cgroup a root caller's run
// is put in, the way the engine does.
func probePidsCgroup(ctx context.Context, env *doctorEnv) Probe {
	cg, err := newRunCgroup(os.Geteuid() == 0, true, false, Limits{Pids: 64, RunMemoryBytes: 64 << 20})
	if err != nil {
		// Only --root-sandbox runs need it; the others are bounded by
		// RLIMIT_NPROC as their own uid.
		return Probe{Availability: Unsupported, Detail: "--root-sandbox runs are refused here (a root-owned tree that cannot be id-mapped too): " + err.Error(),
			Fix: "run vigiles as a non-root user, or give it a writable cgroup v2 with the pids controller " +
				"(in a container: --cgroupns=private with a writable /sys/fs/cgroup)"}
	}
	if cg == nil {
		return Probe{Availability: Available, Detail: "not running as root: RLIMIT_NPROC bounds processes"}
	}
	dir := cg.pids
	cg.remove()
	return Probe{Availability: Available, Detail: "made and removed a pids cgroup at " + dir}
}

// probeMemoryCgroup makes (and removes) the memory cgroup that bounds a
// root caller's whole run, the way the engine does.
func probeMemoryCgroup(ctx context.Context, env *doctorEnv) Probe {
	// The shape of an ordinary run: its sandbox another uid than the
	// host's root (on cgroup v2 such a run gets no cgroup).
	cg, _ := newRunCgroup(os.Geteuid() == 0, false, true, Limits{RunMemoryBytes: 64 << 20})
	if !cg.holdsMemory() {
		cg.remove()
		detail := "no memory cgroup could be made"
		if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil && os.Geteuid() == 0 {
			detail = "on cgroup v2 only a --root-sandbox run on a root-owned tree gets a memory cgroup"
		}
		return Probe{Availability: Unsupported,
			Detail: detail + ": a run's memory is bounded per process (RLIMIT_AS, --limit-memory) only, " +
				"a run of many processes can press on the host's memory until its deadline, and a run with --limit-run-memory or limits.run-memory is refused",
			Fix: "give vigiles a writable cgroup with the memory controller (cgroup v2: memory in the parent's " +
				"cgroup.subtree_control; in a container: --cgroupns=private with a writable /sys/fs/cgroup)"}
	}
	dir, swap := cg.mem, cg.swapBound
	cg.remove()
	detail := "made and removed a memory cgroup at " + dir + " (--limit-run-memory bounds the whole run)"
	if !swap {
		detail += "; swap is not bounded with it: this kernel does not account swap (memsw / memory.swap.max)"
	}
	return Probe{Availability: Available, Detail: detail}
}

// readSysctl reads /proc/sys/<path>; absent means the knob does not exist.
func readSysctl(path string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join("/proc/sys", path))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", true, err
	}
	return strings.TrimSpace(string(b)), true, nil
}

func probeAppArmorSysctl(ctx context.Context, env *doctorEnv) Probe {
	v, ok, err := readSysctl("kernel/apparmor_restrict_unprivileged_userns")
	switch {
	case !ok:
		return Probe{Availability: Available, Detail: "kernel.apparmor_restrict_unprivileged_userns does not exist here: no AppArmor restriction"}
	case err != nil:
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("reading kernel.apparmor_restrict_unprivileged_userns: %v", err)}
	case v == "0":
		return Probe{Availability: Available, Detail: "kernel.apparmor_restrict_unprivileged_userns = 0"}
	}
	return Probe{Availability: Unsupported,
		Detail: fmt.Sprintf("kernel.apparmor_restrict_unprivileged_userns = %s: unprivileged user namespaces are restricted by AppArmor", clean(v)),
		Fix:    "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (or an AppArmor profile granting userns to bwrap); it binds root callers too, whose sandboxes run as the work tree's owner or as an unused uid from 2000000000"}
}

// probeCallerSeccomp says whether vigiles runs under a seccomp filter of
// whoever started it (callerSeccomp), which every sandbox inherits: one
// that refuses what a sandbox needs gets every run refused.
func probeCallerSeccomp(ctx context.Context, env *doctorEnv) Probe {
	if !callerSeccomp() {
		return Probe{Availability: Available, Detail: "vigiles runs under no seccomp filter of whoever started it (its /proc/self/status says no Seccomp: 2)"}
	}
	return Probe{Availability: Inconclusive,
		Detail: "vigiles runs under a seccomp filter of whoever started it (Seccomp: 2 in its /proc/self/status), which every sandbox inherits: where it refuses what a sandbox needs (unshare, mount, seccomp, landlock_create_ruleset), every run is refused",
		Fix:    callerSeccompFix}
}

func probeMaxUserns(ctx context.Context, env *doctorEnv) Probe {
	v, ok, err := readSysctl("user/max_user_namespaces")
	switch {
	case !ok:
		return Probe{Availability: Unsupported, Detail: "user.max_user_namespaces does not exist: the kernel has no user namespaces",
			Fix: "use a kernel built with CONFIG_USER_NS"}
	case err != nil:
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("reading user.max_user_namespaces: %v", err)}
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("user.max_user_namespaces = %q", clean(v))}
	}
	if n == 0 {
		return Probe{Availability: Unsupported, Detail: "user.max_user_namespaces = 0: user namespaces are disabled",
			Fix: "sysctl -w user.max_user_namespaces=15000"}
	}
	return Probe{Availability: Available, Detail: fmt.Sprintf("user.max_user_namespaces = %d", n)}
}

// probeIDMappedTree checks what a root caller's run on a root-owned work
// tree needs: bubblewrap as an unprivileged uid (SandboxUID), and the
// current directory (doctor runs in the repository, as a rule), with its
// symlinks resolved as a run resolves them, id-mapped for that uid. The
// clone is made through a user namespace of the probe's own with the same
// map, and dropped; nothing is mounted.
func probeIDMappedTree(ctx context.Context, env *doctorEnv) Probe {
	if env.bwrap == "" {
		return noBwrap(env)
	}
	dir, err := os.Getwd()
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("no current directory to try with: %v", err)}
	}
	// What a run refuses before it starts anything.
	if id, file := unmappedSandboxID(); file != "" {
		what := strings.TrimSuffix(strings.TrimPrefix(file, "/proc/self/"), "_map")
		return Probe{Availability: Unsupported,
			Detail: fmt.Sprintf("%s %d is not in this user namespace's %s map (%s), so bwrap cannot run as it", what, id, what, file),
			Fix:    "only needed for root-owned work trees: a work tree owned by a non-root user (the sandbox runs as its owner), or --root-sandbox"}
	}
	exe, _ := sandboxExecutable()
	cred := &syscall.Credential{Uid: SandboxUID, Gid: SandboxUID, Groups: []uint32{}}
	view, _, _ := runView(false, cred, os.Getenv)
	if problem, fix := unreachable(dir, exe, SandboxUID, SandboxUID, false, view); problem != "" {
		return Probe{Availability: Unsupported, Detail: fmt.Sprintf("for a tree at %s, uid %d %s", clean(dir), SandboxUID, clean(problem)),
			Fix: "only needed for root-owned work trees: " + clean(fix) + ", or --root-sandbox"}
	}
	if p := runUserns(ctx, env, cred, fmt.Sprintf("as uid %d", SandboxUID)); p.Availability != Available {
		p.Fix += "; or, for root-owned work trees, --root-sandbox"
		return p
	}
	userns, release, err := sandboxUserns(ctx)
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: err.Error()}
	}
	defer release()
	tree, err := idmappedClone(dir, userns)
	if err != nil {
		return Probe{Availability: Unsupported, Detail: clean(err.Error()), Fix: "only needed for root-owned work trees: " + idmapFix}
	}
	unix.Close(tree)
	return Probe{Availability: Available,
		Detail: fmt.Sprintf("bwrap runs as uid %d and %s can be id-mapped for it: a root-owned work tree reaches the sandbox so, and root-only files elsewhere stay unreadable", SandboxUID, clean(dir))}
}

// sandboxUserns makes a user namespace whose uid 0 is SandboxUID, as a
// root caller's sandbox of a root-owned tree has, held by a cat until
// release, to id-map through (idmappedClone); its descriptor, in the
// probe's words where it cannot.
func sandboxUserns(ctx context.Context) (userns int, release func(), err error) {
	cat, err := hostprog.Find("cat")
	if err != nil {
		return -1, nil, err
	}
	holdR, holdW, err := os.Pipe()
	if err != nil {
		return -1, nil, err
	}
	cmd := exec.CommandContext(ctx, cat)
	cmd.Env = hostprog.Env()
	cmd.Stdin = holdR
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: SandboxUID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: SandboxUID, Size: 1}}}
	err = cmd.Start()
	holdR.Close()
	if err != nil {
		holdW.Close()
		return -1, nil, fmt.Errorf("making a user namespace to try with: %v", err)
	}
	stop := func() {
		holdW.Close()
		cmd.Wait()
	}
	userns, err = unix.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		stop()
		return -1, nil, fmt.Errorf("opening the user namespace to try with: %v", err)
	}
	return userns, func() { unix.Close(userns); stop() }, nil
}

// probeGroups says whether a non-root caller has supplementary groups,
// which its sandboxes keep: bubblewrap, unprivileged, cannot drop them
// (setgroups is denied in a user namespace it maps alone), so a hook
// reads what they may (shadow: /etc/shadow, covered; adm: /var/log and
// systemd-journal: the journal, masked; any other group's files).
func probeGroups(ctx context.Context, env *doctorEnv) Probe {
	return groupsProbe(os.Getgid(), os.Getgroups)
}

func groupsProbe(gid int, getgroups func() ([]int, error)) Probe {
	gs, err := getgroups()
	if err != nil {
		return Probe{Availability: Inconclusive, Detail: fmt.Sprintf("listing this user's groups: %v", err)}
	}
	var extra []string
	for _, g := range gs {
		if g != gid {
			extra = append(extra, groupName(g))
		}
	}
	if len(extra) == 0 {
		return Probe{Availability: Available, Detail: "no supplementary groups: a sandbox holds this user's own group alone"}
	}
	return Probe{Availability: Unsupported,
		Detail: fmt.Sprintf("this user's supplementary groups (%s) reach every sandbox it runs: bubblewrap, unprivileged, cannot drop them, so a hook reads what they may read (/etc/shadow and its kind and the logs of /var/log are covered; another file a group reads is not)", strings.Join(extra, ", ")),
		Fix:    "run vigiles as root (a root caller's sandbox has no supplementary group), or as a user without these groups"}
}

// groupName is "name (gid)", or the gid alone where no group has it.
func groupName(gid int) string {
	id := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(id); err == nil {
		return clean(g.Name) + " (" + id + ")"
	}
	return id
}
