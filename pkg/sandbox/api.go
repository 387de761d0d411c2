package sandbox

import (
	"context"
	"encoding/base64"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// ResultSchema names the run result document.
const ResultSchema = "vigiles.run/v1"

// Spec describes one run of one command.
type Spec struct {
	// Command is the argv to run; Command[0] is looked up in PATH inside
	// the sandbox.
	Command []string
	// Dir is the work tree; default the current directory.
	Dir string
	// Cwd is the directory to start in, relative to Dir; default Dir.
	Cwd string
	// Stdin is fed to the command; nil means an empty stdin.
	Stdin io.Reader
	// Env holds NAME=VALUE pairs added to the allowlisted environment.
	Env []string
	// Timeout bounds the command's wall time; 0 means DefaultTimeout.
	Timeout time.Duration
	// Linger is how long the command's process tree is still observed
	// after its main process exits, before it is ended.
	Linger time.Duration
	// OutputCap bounds the captured stdout and stderr, each; 0 means
	// DefaultOutputCap.
	OutputCap int
	// Trusted says the code was authored here; see Decide.
	Trusted bool
	// Mode is the sandbox mode: auto, strict or off.
	Mode Mode
	// StrictFS exposes only system directories and the work tree.
	StrictFS bool
	// RootSandbox is the explicit opt-out from SandboxUID: a root caller's
	// sandbox for a root-owned work tree runs as the host's root (uid 0,
	// capabilities dropped), as it must where the tree cannot be id-mapped.
	// Root-only files outside vigiles' masks are then readable by the
	// command.
	RootSandbox bool
	// WritesMethod forces "overlay" or "copy"; "" chooses overlay and
	// falls back to copy where overlay cannot be mounted, and takes copy
	// for a tree with file systems mounted inside it (see mountsInside).
	WritesMethod string
	// Limits bound the command's resources; zero fields take defaults.
	Limits Limits
	// Egress is the network policy; the zero value is deny.
	Egress evidence.EgressPolicy
	// Passthrough, when set, receives the command's stdout and stderr as
	// they are produced (in addition to the capture): for a confined run
	// at most Limits.FileBytes of each, then a line that says so.
	PassStdout, PassStderr io.Writer
	// EnvFile, when set, is a path relative to the command's HOME where
	// the command may leave a file for its caller, as Claude Code's
	// CLAUDE_ENV_FILE; EnvFileVar is the environment variable that names
	// it (its absolute path inside the sandbox) to the command. Its
	// directories are made before the command starts, and are not the
	// command's writes; what the command left there is returned in
	// Result.EnvFile. A direct run records nothing, so it gets neither.
	EnvFile, EnvFileVar string
	// Lanes is how many commands this process may run at once, this one
	// among them (an audit's or a test's --jobs, or its plan's runs where
	// those are fewer); 0 is 1. A non-root caller's
	// process limit is the uid's, counted by the kernel over all of them
	// and vigiles' own processes too, so each command gets its share of
	// it (pidsUnder).
	Lanes int
	// ParentPIDVar, when set, is an environment variable that gives the
	// command the process ID of its parent as the command sees it, as
	// Claude Code's CLAUDE_PID gives its hooks Claude Code's own (their
	// parent): 1 in a sandbox, whose pid 1 starts the command; the
	// caller's own process ID on a direct run.
	ParentPIDVar string
	// HomeDirs are directories, relative to the command's HOME, that its
	// caller makes before it starts, as Claude Code makes a plugin's
	// data directory (CLAUDE_PLUGIN_DATA): the init makes them, so they
	// are not the command's writes. A direct run, whose HOME is the
	// caller's, gets none made.
	HomeDirs []string
	// HomeFiles are files, relative to the command's HOME, with their
	// content, that its caller has before it starts, as Claude Code has
	// the session's transcript (transcript_path): the init makes them
	// (mode 0600) and their directories (which join HomeDirs), so they
	// are not the command's writes. What the command does to one is its
	// write, as to a file the work tree had: a modify when its bytes,
	// mode, owner, mtime, link count or user xattrs and ACLs changed, a delete
	// when it is gone, a modify with was "file" when another kind took
	// its place. A path must be clean and beneath HOME, and must not be
	// a made directory, the env file, or above one of those or of another
	// made file, nor at, above or in the work tree's place where the tree
	// lies in the command's HOME; together they hold at most MaxHomeFileBytes
	// (HomeFilesFit). A direct run, whose HOME is the caller's, gets none
	// made.
	HomeFiles map[string][]byte
}

// Limits bound a confined command. Zero means the default
// (reaper.Defaults). The reaper, a package of its own, applies them.
type Limits = reaper.Limits

// Defaults a real hook never hits.
const (
	DefaultTimeout   = 60 * time.Second
	DefaultOutputCap = 1 << 20
)

// Bounds of what a caller may ask of a run, for callers to check their
// input against (the policy file and vigiles run's flags keep to the same);
// the floors the sandbox itself needs are MinPids and MinRunMemory.
const (
	// MaxOutputCap bounds Spec.OutputCap: the captured output is held
	// in memory and in the JSON result.
	MaxOutputCap  = 64 << 20
	MaxPids       = 1 << 20
	MaxCPUSeconds = 86400
	MinOpenFiles  = 16
	MaxOpenFiles  = 1 << 20
	// MinScratch is the smallest scratch (Limits.ScratchBytes) a run
	// is given: a memory cgroup's scratch is raised to it, so a caller
	// refuses less rather than take it and give more.
	MinScratch = 1 << 20
	// MaxDuration bounds Spec.Timeout and Spec.Linger alike: a day, as
	// the policy file's durations. The run adds them to grace periods of
	// its own, and a sum past time.Duration's range would wrap below 0.
	MaxDuration = 24 * time.Hour
)

// MaxHomeFiles and MaxHomeFileBytes bound Spec.HomeFiles: how many, and
// their bytes together (they travel in the init's config).
const (
	MaxHomeFiles     = 16
	MaxHomeFileBytes = 1 << 20
)

// Result is the vigiles.run/v1 document.
type Result struct {
	Schema          string  `json:"schema"`
	Tier            Tier    `json:"tier"`
	Refusal         string  `json:"refusal,omitempty"`
	Error           string  `json:"error,omitempty"`
	ExitCode        int     `json:"exitCode"`
	Signal          string  `json:"signal"`
	TimedOut        bool    `json:"timedOut"`
	LimitHit        string  `json:"limitHit,omitempty"`
	DurationMs      float64 `json:"durationMs"`
	Stdout          string  `json:"stdout"`
	Stderr          string  `json:"stderr"`
	StdoutEncoding  string  `json:"stdoutEncoding,omitempty"` // "base64" when not UTF-8
	StderrEncoding  string  `json:"stderrEncoding,omitempty"`
	StdoutTruncated bool    `json:"stdoutTruncated"`
	StderrTruncated bool    `json:"stderrTruncated"`
	// Writes is nil when nobody looked (a direct run), [] when the run was
	// recorded and wrote nothing.
	Writes       []evidence.Write `json:"writes"`
	WritesMethod string           `json:"writesMethod,omitempty"`
	// Egress is nil when not recorded.
	Egress        []evidence.Egress `json:"egress"`
	EgressDropped *evidence.Dropped `json:"egressDropped,omitempty"`
	// Lingered lists the processes that outlived the command's main
	// process and were ended after the linger period, one line each:
	// "PID command line", the command line quoted in Go syntax where it
	// is not one plain line of UTF-8 (shownLingered).
	Lingered []string `json:"lingered,omitempty"`
	// EnvFile is what the command left at Spec.EnvFile; nil when none was
	// asked for, or when the run was not recorded.
	EnvFile *evidence.EnvFile `json:"envFile,omitempty"`

	stdoutRaw, stderrRaw []byte
}

// StdoutBytes and StderrBytes return the captured output as bytes.
func (r *Result) StdoutBytes() []byte { return r.stdoutRaw }
func (r *Result) StderrBytes() []byte { return r.stderrRaw }

// Network is what the sandbox asks of an egress layer. pkg/sandbox never
// imports pkg/egress; cmd/action wires an implementation in with
// SetNetwork, in the broker and in the init alike.
type Network interface {
	// Setup runs inside the init, in the sandbox's fresh network namespace
	// with CAP_NET_ADMIN, before the command starts. A returned error
	// refuses the run.
	Setup(ctx context.Context, p evidence.EgressPolicy) (NetSession, error)
	// Connector runs in the broker before the sandbox starts: it names the
	// connector Attach will start for p ("" when the policy needs none),
	// or refuses the run with an error naming the fix. early says whether
	// Attach may run while bubblewrap still sets the namespace up (the
	// connector touches none of its links but its own); otherwise Attach
	// waits until the init runs.
	Connector(p evidence.EgressPolicy) (name string, early bool, err error)
	// Attach runs in the broker once the sandbox's network namespace
	// exists (pid is a process inside it), at once or once the init runs
	// (see Connector); it connects a route out where the policy needs one
	// (allow mode) and returns what to close after the run (Close stops
	// the connector; it need not wait for it to be gone). A returned
	// error refuses the run. userns and netns, when set, are the
	// sandbox's namespaces, for a sandbox whose /proc/PID/ns/* the broker
	// and its connectors may not open (another uid's, without
	// CAP_SYS_PTRACE); nil means they may. start starts the connector's
	// process in place of cmd.Start: the broker's is born inside the run's
	// memory cgroup where there is one (a root caller's), so that its
	// memory counts in the run's limit; reaped, which start returns, must
	// be called once that process is reaped.
	Attach(ctx context.Context, p evidence.EgressPolicy, pid int, userns, netns *os.File, start func(cmd *exec.Cmd) (reaped func(), err error)) (io.Closer, error)
	// Sweep runs in the broker before each confined run, whatever its
	// network mode: it clears what the connectors of brokers killed
	// meanwhile left on the host (pasta's namespaces, still bound), so
	// that it does not wait for a run that starts the same connector.
	Sweep()
}

// NetSession is a set-up network wall inside the init.
type NetSession interface {
	// Env is added to the command's environment (proxy variables).
	Env() []string
	// ResolvConf is the command's /etc/resolv.conf, never empty: the init
	// makes that file before the wall is up (the reaper binds it while it
	// confines itself) and fills it with this before the command starts;
	// an empty one refuses the run.
	ResolvConf() []byte
	// Connected runs once Attach's connector is ready (allow mode), before
	// the command starts; it finishes the route out inside the namespace.
	// A returned error refuses the run.
	Connected() error
	// HostAddrs hands the session the host's own addresses (allow mode;
	// the broker lists them), before the command starts: an allowlisted
	// name that resolves to one is refused, since through the connector
	// it would reach the host's own services.
	HostAddrs(addrs []netip.Prefix)
	// Finish stops the recorders and returns what they saw.
	Finish() ([]evidence.Egress, *evidence.Dropped, error)
}

var network Network

// SetNetwork installs the egress layer. Call it before Run and before
// MaybeInit.
func SetNetwork(n Network) { network = n }

// SandboxUID is the first of the host uids (and gids) a root caller's
// sandbox runs as when the work tree belongs to root: the tree is handed to
// it through an id-mapped mount (root's files appear as its own, so the
// command can change them in the overlay), and every other file only root
// may read stays unreadable. Each run takes one of SandboxUIDs uids from
// here (sandboxUIDs), so that runs side by side do not share the kernel's
// per-user counters (inotify instances, pipe buffer pages). They are uids no
// account or file should have: in the range systemd leaves unused (between
// its container ranges and its "foreign" range), below 2^31 for tools that
// keep uids signed.
const (
	SandboxUID  = 2000000000
	SandboxUIDs = 65536
)

// Replace rewrites with rp every text of r that the command chose: its
// output, the paths it wrote (and a link's target, a rename's old
// name), the hosts it named, what it left in its
// env file, the processes it left behind. The runner sends a hook fresh
// ids in place of the fixed ones its plan holds, so that a hook cannot
// tell an audit by them, and puts the fixed ones back here, so that the
// record reads the same from run to run. rp replaces strings with
// others of their length: sizes and offsets in r stay true.
//
// A name rp changes nothing in is kept as it is, not made again: a
// strings.Replacer makes a new string of every one, which for a record
// of a million paths was 39 MiB allocated to put back ids that none of
// them held.
func (r *Result) Replace(rp *strings.Replacer) {
	r.stdoutRaw, r.Stdout, r.StdoutEncoding = replaceOutput(rp, r.stdoutRaw, r.Stdout, r.StdoutEncoding)
	r.stderrRaw, r.Stderr, r.StderrEncoding = replaceOutput(rp, r.stderrRaw, r.Stderr, r.StderrEncoding)
	var w keptWriter
	for i := range r.Writes {
		r.Writes[i].Path = w.replace(rp, r.Writes[i].Path)
		// A link's target and a rename's old name are the command's
		// text too (ln -s "$transcript_path" t).
		r.Writes[i].Target = w.replace(rp, r.Writes[i].Target)
		r.Writes[i].From = w.replace(rp, r.Writes[i].From)
	}
	for i := range r.Egress {
		r.Egress[i].Host = w.replace(rp, r.Egress[i].Host)
		r.Egress[i].Detail = w.replace(rp, r.Egress[i].Detail)
	}
	for i := range r.Lingered {
		r.Lingered[i] = w.replace(rp, r.Lingered[i])
	}
	if e := r.EnvFile; e != nil {
		e.Path = rp.Replace(e.Path)
		if e.Content != nil {
			c := *e.Content
			if e.Encoding == "base64" {
				if b, err := base64.StdEncoding.DecodeString(c); err == nil {
					c = base64.StdEncoding.EncodeToString([]byte(rp.Replace(string(b))))
				}
			} else {
				c = rp.Replace(c)
			}
			e.Content = &c
		}
	}
}

// keptWriter is what a strings.Replacer writes of one string, s, held
// only from where it first differs from s: replace is rp.Replace(s),
// and s itself (nothing allocated) where what rp writes is s.
type keptWriter struct {
	s       string
	off     int    // what rp wrote so far is s[:off] (while !differs)
	differs bool   // it is not: buf holds it
	buf     []byte // reused from one string to the next
}

func (w *keptWriter) replace(rp *strings.Replacer, s string) string {
	w.s, w.off, w.differs, w.buf = s, 0, false, w.buf[:0]
	rp.WriteString(w, s) // w never fails
	w.s = ""
	switch {
	case w.differs:
		return string(w.buf)
	case w.off == len(s):
		return s
	}
	return s[:w.off]
}

func (w *keptWriter) WriteString(p string) (int, error) {
	if !w.differs {
		if len(p) <= len(w.s)-w.off && w.s[w.off:w.off+len(p)] == p {
			w.off += len(p)
			return len(p), nil
		}
		w.differs = true
		w.buf = append(w.buf, w.s[:w.off]...)
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *keptWriter) Write(p []byte) (int, error) { return w.WriteString(string(p)) }

// replaceOutput is Replace for one output: its raw bytes where the
// result holds them, else its text, decoded first where it is base64.
func replaceOutput(rp *strings.Replacer, raw []byte, s, enc string) ([]byte, string, string) {
	if raw != nil {
		raw = []byte(rp.Replace(string(raw)))
		s, enc = encodeOutput(raw)
		return raw, s, enc
	}
	if enc == "base64" {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return nil, base64.StdEncoding.EncodeToString([]byte(rp.Replace(string(b)))), enc
		}
		return nil, s, enc
	}
	return nil, rp.Replace(s), enc
}
