package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// rootSandboxHelp is the help of --root-sandbox (run, test and audit).
const rootSandboxHelp = "only for root callers whose root-owned work tree cannot be handed to an unprivileged sandbox (no id-mapped mounts, " +
	"a directory above it the sandbox may not enter, user namespaces refused to other uids): run the sandbox as the host's root " +
	"(capabilities dropped) instead of as an unused uid (2000000000 and up, one per run); the hook can then read root-only files vigiles does not mask"

func init() {
	subcommands["run"] = subcommand{summary: "run one command confined and report what it did", run: cmdRun}
}

const runHelp = `Usage: vigiles run [flags] [--] COMMAND [ARG...]

Runs COMMAND confined (bubblewrap namespaces, read-only host, an overlay
over the work tree, a throwaway HOME and TMPDIR, no capabilities, a
seccomp filter, resource limits, and a network wall) and reports what it
wrote and which hosts it tried to reach. The host tree never changes.

Flags go before COMMAND: from COMMAND on, every argument is the
command's own (vigiles run ./hook.sh --json passes --json to the hook).
The -- is needed only when COMMAND itself starts with -.

Examples:
  vigiles run -- bash -c 'echo hi > out.txt'          # report: create out.txt
  vigiles run --json --stdin event.json -- ./hooks/check.sh   # one JSON result on stdout
  echo '{"tool_name":"Bash"}' | vigiles run --stdin - -- ./hooks/check.sh
                          # the hook reads what is piped; without --stdin it reads nothing
  vigiles run --egress record -- curl https://api.example.test/
  vigiles run --egress allow --allow api.example.test -- node fetch.js
  vigiles run --trusted --sandbox auto -- make lint   # your own code: runs directly
  vigiles run --sandbox off -- ./hook.sh              # explicit opt-out: runs in the open

In a GitHub Actions step (GITHUB_ACTIONS=true) the command's output is
passed through with every line made inert: a line it prints cannot run
as a workflow command. On a terminal, its escape sequences and other
controls (but tab, newline and carriage return) are shown, not sent:
ESC as ^[, so colours appear as ^[[31m and a title or clipboard write
does nothing. Pipe the output (| cat) for its exact bytes; where they
held such a control, the report after them starts with a terminal reset,
so that a terminal showing the file later shows the report. The report
goes to stderr, last (--json: stdout).

Sizes (--output-cap, --limit-memory, --limit-run-memory, --limit-file-size,
--limit-scratch) are written as in .vigiles.yml: bytes (1048576), or a
whole number and K, M, G or T, each a power of 1024 (64KiB, 512MiB,
2GiB). KB, MB and GB are read as KiB, MiB and GiB: 1MB is 1048576 bytes,
not 1000000.

Exit status: the command's own (128+N where signal N ended it: 137 when
--timeout did; 127 when it was not found, 126 when it could not be run:
not executable, a directory); 125 when vigiles refuses or fails; 2 on
bad usage. A command's own 2 or 125 reads the same: --json's tier and
exitCode tell them apart.

Flags:
`

func cmdRun(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	// Flags end at COMMAND: its own arguments (--sandbox off, --json,
	// --timeout 5 of a tool) must never be read as vigiles' flags.
	fs.SetInterspersed(false)
	var (
		workdir     = fs.String("workdir", "", "the work tree the command may change (through an overlay); default the current directory")
		stdinFile   = fs.String("stdin", "", "feed this file to the command's stdin (\"-\": vigiles' own stdin), relative to the current directory, not to --workdir; default empty: what is piped into vigiles reaches the command only with --stdin -")
		mode        = fs.String("sandbox", "auto", "auto: confine untrusted code or refuse; strict: confine everything or refuse; off: run in the open")
		trusted     = fs.Bool("trusted", false, "the code was authored here: in auto mode it runs directly (auto mode only: refused with --sandbox strict or off)")
		envs        = fs.StringArray("env", nil, "pass NAME=VALUE, or NAME from vigiles' environment (repeatable; a NAME not set there passes nothing); secret-looking names need --env-secret")
		envSecrets  = fs.StringArray("env-secret", nil, "pass the secret NAME from vigiles' environment on purpose (repeatable; a NAME not set there is refused)")
		timeout     = fs.Duration("timeout", sandbox.DefaultTimeout, "kill the whole process tree after this long (at most "+report.ShortDuration(sandbox.MaxDuration)+")")
		linger      = fs.Duration("linger", 0, "after the command exits, keep observing its leftover processes this long, at most "+report.ShortDuration(sandbox.MaxDuration)+", then end them (default 0s: end them at once)")
		jsonOut     = fs.Bool("json", false, "print exactly one vigiles.run/v1 JSON document on stdout")
		outputCap   = uint64(sandbox.DefaultOutputCap)
		strictFS    = fs.Bool("strict-fs", false, "expose only system directories (/usr, /etc, …), /opt and the work tree")
		rootSandbox = fs.Bool("root-sandbox", false, rootSandboxHelp)
		writes      = fs.String("writes", "", "how writes are recorded: overlay or copy (default overlay; copy where overlay cannot be mounted, or file systems are mounted inside the work tree)")
		egressMode  = fs.String("egress", "deny", "network: deny (no route, attempts recorded), record (deny + a recording proxy), allow (only --allow hosts and --allow-ip addresses)")
		allow       = fs.StringArray("allow", nil, "with --egress allow: HOST[:PORT] or *.SUFFIX that may be reached (repeatable; not localhost: the sandbox's loopback is its own, reached without an allow)")
		allowIP     = fs.StringArray("allow-ip", nil, "with --egress allow: an address or CIDR that may be reached, or that an allowed name may resolve to (repeatable; not the loopback, the sandbox's own)")
		dnsUpstream = fs.String("dns-upstream", "", "with --egress allow: ADDR[:PORT] of the resolver for allowed names; default the host's from /etc/resolv.conf")
		connector   = fs.String("connector", "", "with --egress allow: slirp4netns or pasta (default slirp4netns, pasta where it is missing)")
		lim         sandbox.Limits
	)
	// Sizes are written as in .vigiles.yml (runHelp says how).
	fs.Var(sizeFlag{&outputCap}, "output-cap", "capture at most this much of stdout and of stderr, a size (at most "+runner.FormatSize(sandbox.MaxOutputCap)+")")
	fs.IntVar(&lim.Pids, "limit-pids", 0, fmt.Sprintf("most processes at once (default 512, at least %d)", sandbox.MinPids))
	fs.Var(sizeFlag{&lim.MemoryBytes}, "limit-memory", "address space per process, a size such as 512MiB or 8GiB (default 32GiB: Node.js reserves about 10GiB for WebAssembly, its fetch included; at least "+runner.FormatSize(runner.MinMemory)+")")
	fs.Var(sizeFlag{&lim.RunMemoryBytes}, "limit-run-memory", "memory of the whole run (all its processes and written files), held by a memory cgroup: root callers only, refused from any other, and a run where no memory cgroup can hold it (cgroup v2 but for --root-sandbox runs, no memory controller) is refused (default 4GiB, held where a cgroup can be made, at least "+runner.FormatSize(sandbox.MinRunMemory)+")")
	fs.Var(sizeFlag{&lim.FileBytes}, "limit-file-size", "largest file, and most of each output stream passed on, a size (default 1GiB)")
	fs.Var(sizeFlag{&lim.ScratchBytes}, "limit-scratch", "all writes together (work tree, HOME, TMPDIR), a size (default 2GiB; where a memory cgroup holds the run, kept inside --limit-run-memory with room for vigiles' own processes; at least "+runner.FormatSize(sandbox.MinScratch)+")")
	fs.Uint64Var(&lim.CPUSeconds, "limit-cpu", 0, fmt.Sprintf("CPU seconds per process (default 300, at most %d: a day)", sandbox.MaxCPUSeconds))
	fs.Uint64Var(&lim.OpenFiles, "limit-open-files", 0, fmt.Sprintf("open files per process (default 4096, at least %d)", sandbox.MinOpenFiles))
	setRange(fs, "timeout", timeoutRange)
	setRange(fs, "linger", lingerRange)
	setRange(fs, "limit-pids", fmt.Sprintf("a whole number from %d (what the sandbox itself needs) to %d", sandbox.MinPids, sandbox.MaxPids))
	setRange(fs, "limit-cpu", fmt.Sprintf("a whole number of seconds from 1 to %d", sandbox.MaxCPUSeconds))
	setRange(fs, "limit-open-files", fmt.Sprintf("a whole number from %d to %d", sandbox.MinOpenFiles, sandbox.MaxOpenFiles))
	if done, err := parseFlags(fs, runHelp, args, stdout, stderr); done {
		return err
	}
	command := fs.Args()
	if len(command) == 0 {
		return usageError(fs, runHelp, stderr, errors.New("run: no command given; name it after the flags, as in vigiles run -- ./hook.sh (the -- is needed only where it starts with -)"))
	}
	if len(command) > 1 && command[1] == "--" {
		// --json false -- ./hook.sh: a -- after the command's first word
		// ends flags that the word ended already.
		if err := boolValueApart(fs, args, command[0], "the command to run"); err != nil {
			return exitWith(2, err)
		}
	}
	policy := evidence.EgressPolicy{Mode: *egressMode, Allow: *allow, AllowIP: *allowIP, DNSUpstream: *dnsUpstream, Connector: *connector}
	if err := checkRunFlags(fs, *timeout, *linger, outputCap, lim, &policy, *workdir); err != nil {
		return exitWith(2, err)
	}
	if err := checkRunPlace(fs, *mode, *trusted, *rootSandbox); err != nil {
		return exitWith(2, err)
	}
	m, err := sandbox.ParseMode(*mode)
	if err != nil {
		return exitWith(2, fmt.Errorf("run: %w", asFlag("--sandbox", err)))
	}
	env, err := buildEnv(*envs, *envSecrets, getenv)
	if err != nil {
		return exitWith(2, fmt.Errorf("run: %w", err))
	}
	if *writes != "" && *writes != "overlay" && *writes != "copy" {
		return exitWith(2, fmt.Errorf("run: --writes %q: want overlay or copy%s", *writes, didYouMean(*writes, "overlay", "copy")))
	}
	spec := sandbox.Spec{
		Command: command, Dir: *workdir, Env: env, Timeout: *timeout, Linger: *linger,
		OutputCap: int(outputCap), Trusted: *trusted, Mode: m, StrictFS: *strictFS, RootSandbox: *rootSandbox,
		WritesMethod: *writes, Limits: lim, Egress: policy,
	}
	switch *stdinFile {
	case "":
		if fs.Changed("stdin") {
			// As --workdir "": a variable meant to name the event's
			// file that came out empty must not run the hook on none.
			return exitWith(2, errors.New(`run: --stdin "": an empty path: leave --stdin out for an empty stdin, or give --stdin - for vigiles' own`))
		}
	case "-":
		spec.Stdin = stdin
	default:
		f, err := os.Open(*stdinFile)
		if err != nil {
			// The path is quoted as given: the open error's own repeats it.
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			if in := inDir(*workdir, *stdinFile); *workdir != "" && !filepath.IsAbs(*stdinFile) && errors.Is(err, os.ErrNotExist) {
				if fi, serr := os.Stat(in); serr == nil && !fi.IsDir() {
					// The command runs in --workdir; the file is opened
					// here, relative to the current directory.
					return exitWith(2, fmt.Errorf("run: --stdin %q: %w; it is relative to the current directory, not to --workdir: give --stdin %q", *stdinFile, err, in))
				}
			}
			return exitWith(2, fmt.Errorf("run: --stdin %q: %w; want a file whose bytes the command reads (or - for this stdin)", *stdinFile, err))
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			return exitWith(2, fmt.Errorf("run: --stdin %q: a directory; want a file whose bytes the command reads (or - for this stdin)", *stdinFile))
		}
		spec.Stdin = f
	}
	var closers []io.Closer
	var controls atomic.Bool // the command's output held a terminal control
	// Only a report that goes, after the output as it was, to a pipe or a
	// file may need the reset: not in a step log, nor on a terminal,
	// which is shown the controls instead.
	resetAfter := getenv("GITHUB_ACTIONS") != "true" && !isTerminal(stderr)
	if !*jsonOut {
		spec.PassStdout, spec.PassStderr = stdout, stderr
		if getenv("GITHUB_ACTIONS") == "true" {
			// In a workflow step the command's output is read by the
			// runner: a line of it must not run as a workflow command.
			o, e := annotate.NewInertWriter(stdout), annotate.NewInertWriter(stderr)
			spec.PassStdout, spec.PassStderr = o, e
			closers = append(closers, o, e)
		}
		// On a terminal the command's escape sequences are shown, not
		// sent: it cannot recolour, retitle, clear or hide what follows,
		// the report among it, nor write the clipboard.
		if isTerminal(stdout) {
			t := newTerminalWriter(spec.PassStdout)
			spec.PassStdout = t
			closers = append([]io.Closer{t}, closers...)
		}
		if isTerminal(stderr) {
			t := newTerminalWriter(spec.PassStderr)
			spec.PassStderr = t
			closers = append([]io.Closer{t}, closers...)
		}
		if resetAfter {
			spec.PassStdout = &controlWatch{w: spec.PassStdout, seen: &controls}
			spec.PassStderr = &controlWatch{w: spec.PassStderr, seen: &controls}
		}
	}
	res, runErr := sandbox.Run(ctx, spec)
	for _, c := range closers {
		c.Close()
	}
	if cause := context.Cause(ctx); errors.Is(runErr, context.Canceled) && ctx.Err() != nil && cause != ctx.Err() {
		// The engine says "context canceled" of a run a signal stopped:
		// say which signal (main's signalCause).
		if res.Error == ctx.Err().Error() {
			res.Error = "interrupted (" + cause.Error() + ")"
		}
		if res.Tier == sandbox.TierRefused && res.Refusal != "" {
			// A set-up the signal cut short ends refused (its connector
			// not ready: "context canceled"): it is the interruption,
			// not a refusal of this host's, as at any other moment of
			// the set-up.
			res.Tier, res.Refusal, res.Error = sandbox.TierConfined, "", "interrupted ("+cause.Error()+")"
		}
		runErr = fmt.Errorf("run: interrupted (%w)", cause)
	}
	if res.LimitHit == "" {
		// The sandbox names the limits it saw hit; a hook's shell that
		// reports a child's SIGXCPU or SIGXFSZ, or its stderr's "No
		// space left on device" from a scratch it filled and emptied
		// between the init's looks, names one too, as test and audit say.
		res.LimitHit = runner.LimitOf(res)
	}
	if *jsonOut {
		// As the reports of test and audit on stdout: the same data,
		// with no ':' a problem matcher could read in the strings the
		// command chose (its output, the paths and link targets it wrote).
		if err := writeRunJSON(stdout, res); err != nil {
			return exitWith(125, fmt.Errorf("run: writing the result to stdout: %w", err))
		}
	} else {
		if controls.Load() {
			// Passed on as they were, to a pipe or a file a terminal
			// may show later: the report after them stays readable.
			io.WriteString(stderr, termReset)
		}
		printRunReport(ownText(stderr, getenv), res)
		if hint := notRunHint(*workdir, command, res); hint != "" {
			fmt.Fprintf(ownText(stderr, getenv), "vigiles: %s\n", hint)
		}
	}
	if runErr != nil {
		if *jsonOut || res.Refusal != "" || res.Error != "" {
			return exitWith(125, nil) // the report has said why
		}
		return exitWith(125, runErr)
	}
	return exitWith(res.ExitCode, nil)
}

// timeoutRange and lingerRange say which values --timeout and --linger
// take, with the defaults as the help writes them (report.ShortDuration), in
// the message of a value out of range, pflag's or checkRunFlags'.
var (
	timeoutRange = fmt.Sprintf("a duration above 0 and at most %s, such as 30s or 2m (default %s)", report.ShortDuration(sandbox.MaxDuration), report.ShortDuration(sandbox.DefaultTimeout))
	lingerRange  = fmt.Sprintf("0 (end leftover processes at once, the default) or a duration above 0 and at most %s", report.ShortDuration(sandbox.MaxDuration))
)

// checkRunFlags refuses values that mean nothing, or something else than
// they say: a value the engine would take as "the default", a limit below
// what the sandbox itself needs, an egress policy netwire.ValidateEgress refuses
// (network options of another mode among them), which it completes. Every
// problem is reported, one per line.
func checkRunFlags(fs *pflag.FlagSet, timeout, linger time.Duration, outputCap uint64, lim sandbox.Limits,
	policy *evidence.EgressPolicy, workdir string) error {
	var ps problems
	bad := func(format string, a ...any) { ps = append(ps, fmt.Errorf("run: "+format, a...)) }
	if timeout <= 0 || timeout > sandbox.MaxDuration {
		bad("--timeout %s: want %s", report.ShortDuration(timeout), timeoutRange)
	}
	if linger < 0 || linger > sandbox.MaxDuration {
		bad("--linger %s: want %s", report.ShortDuration(linger), lingerRange)
	}
	if outputCap == 0 || outputCap > sandbox.MaxOutputCap {
		bad("--output-cap %s: want a size above 0 and at most %s", runner.FormatSize(outputCap), runner.FormatSize(sandbox.MaxOutputCap))
	}
	if fs.Changed("limit-pids") && (lim.Pids < sandbox.MinPids || lim.Pids > sandbox.MaxPids) {
		bad("--limit-pids %d: want a whole number from %d (what the sandbox itself needs) to %d", lim.Pids, sandbox.MinPids, sandbox.MaxPids)
	}
	if fs.Changed("limit-run-memory") && lim.RunMemoryBytes < sandbox.MinRunMemory {
		bad("--limit-run-memory %s: want at least %s, what the sandbox's own processes need", runner.FormatSize(lim.RunMemoryBytes), runner.FormatSize(sandbox.MinRunMemory))
	}
	if fs.Changed("limit-memory") && lim.MemoryBytes != 0 && lim.MemoryBytes < runner.MinMemory {
		bad("--limit-memory %s: want a size of at least %s (what the sandbox needs to start the command: the shell that sets the limit, the command's loader and libc)",
			runner.FormatSize(lim.MemoryBytes), runner.FormatSize(runner.MinMemory))
	}
	if fs.Changed("limit-scratch") && lim.ScratchBytes != 0 && lim.ScratchBytes < sandbox.MinScratch {
		bad("--limit-scratch %s: want a size of at least %s (the sandbox gives a run's scratch no less)",
			runner.FormatSize(lim.ScratchBytes), runner.FormatSize(sandbox.MinScratch))
	}
	for _, l := range []struct {
		name string
		v    uint64
	}{{"limit-memory", lim.MemoryBytes}, {"limit-file-size", lim.FileBytes}, {"limit-scratch", lim.ScratchBytes}} {
		if fs.Changed(l.name) && l.v == 0 {
			bad("--%s 0: want a size above 0 (leave the flag out for the default)", l.name)
		}
	}
	if fs.Changed("limit-cpu") && (lim.CPUSeconds == 0 || lim.CPUSeconds > sandbox.MaxCPUSeconds) {
		bad("--limit-cpu %d: want a whole number of seconds from 1 to %d", lim.CPUSeconds, sandbox.MaxCPUSeconds)
	}
	if fs.Changed("limit-open-files") && (lim.OpenFiles < sandbox.MinOpenFiles || lim.OpenFiles > sandbox.MaxOpenFiles) {
		bad("--limit-open-files %d: want a whole number from %d to %d", lim.OpenFiles, sandbox.MinOpenFiles, sandbox.MaxOpenFiles)
	}
	for _, e := range netwire.ValidateEgress(policy) {
		bad("%w", egressFlagHint(e, "--allow HOST[:PORT] or --allow-ip CIDR"))
	}
	if fs.Changed("workdir") && workdir == "" {
		// As test's and audit's --dir "": a variable that was meant to
		// name the tree and came out empty must not make the current
		// directory the tree the command may change.
		bad(`--workdir "": an empty path: leave --workdir out, or give --workdir ".", for the current directory`)
	} else if workdir != "" {
		if why := notADirNear(workdir); why != "" {
			bad("--workdir %q %s", workdir, why)
		} else if why := kernelTree(workdir, "--workdir"); why != "" {
			bad("--workdir %q %s", workdir, why)
		} else if why := unreadableTree(workdir); why != "" {
			bad("--workdir %q %s", workdir, why)
		}
	} else if why := kernelTree(".", "--workdir"); why != "" {
		bad("the current directory, the work tree without --workdir, %s", why)
	} else if why := unreadableTree("."); why != "" {
		bad("the current directory, the work tree without --workdir, %s", why)
	}
	return ps.orNil()
}

// geteuid is os.Geteuid; tests replace it.
var geteuid = os.Geteuid

// confinedOnly are the flags of vigiles run that only a sandbox honours:
// a run in the open has no network wall to record or allow with, no
// overlay or copy to record writes with, no limits. --linger is not one:
// a run in the open watches what its command left in its session too.
var confinedOnly = []string{"egress", "allow", "allow-ip", "dns-upstream", "connector", "strict-fs", "writes", "root-sandbox",
	"limit-pids", "limit-memory", "limit-run-memory", "limit-file-size", "limit-scratch", "limit-cpu", "limit-open-files"}

// onlyASandbox is why a flag of confinedOnly (of test's and audit's,
// --egress, --allow and --root-sandbox) means nothing to a command run in
// the open.
const onlyASandbox = "only a sandbox walls and records the network, records writes and holds limits"

// checkRunPlace refuses what the place the command runs in cannot honour:
// in the open (--sandbox off, or --trusted in auto mode), a flag of
// confinedOnly, which would be silently moot (--egress record would then
// print "egress: not recorded"); --root-sandbox from a caller that is not
// root, which it is only for, and --limit-run-memory, which only a root
// caller's memory cgroup holds; --trusted outside auto mode, the only
// mode it changes anything in (strict confines trusted code too, off
// runs every command in the open).
func checkRunPlace(fs *pflag.FlagSet, mode string, trusted, rootSandbox bool) error {
	var ps problems
	if trusted && (mode == string(sandbox.ModeStrict) || mode == string(sandbox.ModeOff)) {
		does := map[bool]string{true: "confines every command, trusted or not", false: "runs every command in the open, trusted or not"}[mode == string(sandbox.ModeStrict)]
		ps = append(ps, fmt.Errorf("run: --trusted changes only what auto mode does (trusted code runs in the open there), and --sandbox %s %s: leave --trusted out, or use --sandbox auto", mode, does))
	}
	open := ""
	switch {
	case mode == string(sandbox.ModeOff):
		open = "--sandbox off"
	case trusted && (mode == string(sandbox.ModeAuto) || mode == ""):
		open = "--trusted in auto mode"
	}
	if open != "" {
		var moot []string
		for _, name := range confinedOnly {
			if fs.Changed(name) {
				moot = append(moot, "--"+name)
			}
		}
		if len(moot) > 0 {
			ps = append(ps, fmt.Errorf("run: %s runs the command in the open, which cannot honour %s: %s; "+
				"leave %s out, or confine the run (--sandbox strict, or auto without --trusted)", open, strings.Join(moot, ", "), onlyASandbox, map[bool]string{true: "it", false: "them"}[len(moot) == 1]))
		}
	}
	if rootSandbox && geteuid() != 0 {
		ps = append(ps, fmt.Errorf("run: --root-sandbox is only for root callers, and this one is uid %d: leave it out", geteuid()))
	}
	if open == "" && fs.Changed("limit-run-memory") && geteuid() != 0 {
		// No memory cgroup can be made: the flag would be taken and
		// silently do nothing.
		ps = append(ps, fmt.Errorf("run: --limit-run-memory is held by a memory cgroup, which vigiles makes for root callers only, and this one is uid %d: "+
			"its run is bounded per process (--limit-memory) and its writes by --limit-scratch; leave it out, or run as root", geteuid()))
	}
	return ps.orNil()
}

// egressFlagHint adds to an egress policy mistake the flags that fix it:
// netwire's messages name the policy's modes, not the command line's
// flags. hosts is how hosts are named on this command line.
func egressFlagHint(err error, hosts string) error {
	switch {
	case errors.Is(err, netwire.ErrNothingAllowed):
		return hinted{msg: err.Error() + "; name it with " + hosts, err: err}
	case errors.Is(err, netwire.ErrAllowNeedsAllowMode):
		return hinted{msg: err.Error() + "; add --egress allow", err: err}
	}
	return err
}

// lookupEnv tells a variable set empty from one not set, which getenv
// cannot (buildEnv asks it only of the names getenv gives "" for).
var lookupEnv = os.LookupEnv

// buildEnv turns --env and --env-secret into NAME=VALUE pairs. --env NAME
// of a variable not set passes nothing (as docker run -e NAME does);
// --env-secret NAME of one not set is a mistake (a misspelt name would
// otherwise reach the command as set and empty).
func buildEnv(envs, secrets []string, getenv func(string) string) ([]string, error) {
	unset := func(name string) bool {
		if getenv(name) != "" {
			return false
		}
		_, ok := lookupEnv(name)
		return !ok
	}
	var out []string
	for _, e := range envs {
		name, value, hasValue := strings.Cut(e, "=")
		if name == "" {
			return nil, fmt.Errorf("--env %q: want NAME or NAME=VALUE", e)
		}
		if !runner.IsEnvName(name) {
			return nil, fmt.Errorf("--env %q: %q %s", e, name, runner.NotEnvName)
		}
		if sandbox.IsSecretName(name) {
			return nil, fmt.Errorf("--env %s: the name marks a secret, and secrets never reach a confined command by accident; pass it on purpose with --env-secret %s", name, name)
		}
		if !hasValue {
			if unset(name) {
				continue
			}
			value = getenv(name)
		}
		out = append(out, name+"="+value)
	}
	for _, name := range secrets {
		if name == "" || strings.Contains(name, "=") {
			return nil, fmt.Errorf("--env-secret %q: want a NAME (its value is taken from vigiles' environment, never from the command line)", name)
		}
		if !runner.IsEnvName(name) {
			return nil, fmt.Errorf("--env-secret %q: %q %s", name, name, runner.NotEnvName)
		}
		if unset(name) {
			return nil, fmt.Errorf("--env-secret %s: %s is not set in vigiles' environment (set it, empty if need be, or check its spelling)", name, name)
		}
		out = append(out, name+"="+getenv(name))
	}
	return out, nil
}

// printRunReport prints the report on res for people (writeRunReport),
// each line made inert as it is written: a report that lists a million
// writes is not held whole, nor copied to be made inert.
func printRunReport(w io.Writer, res *sandbox.Result) {
	il := annotate.NewInertLines(w)
	writeRunReport(il, res)
	il.Close()
}

// writeRunReport prints the short human report of a run. Every value
// that a command can influence (its stderr inside an error, a host name,
// a file name) is printed quoted or with control characters escaped, so
// that nothing it prints can rewrite or hide the verdict on a terminal,
// and with its ':' as annotate.Colon (quote, printable), as is the ':' of
// a label such a value follows (labelColon), so that no problem matcher
// takes a line of the report in a step log for a compiler's error.
func writeRunReport(w io.Writer, r *sandbox.Result) {
	if r.Refusal != "" {
		fmt.Fprintf(w, "\nvigiles: refused"+labelColon+" %s\n", printable(r.Refusal))
		return
	}
	fmt.Fprintf(w, "\nvigiles: %s", r.Tier)
	if r.Error != "" {
		fmt.Fprintf(w, " — failed"+labelColon+" %s\n", printable(r.Error))
		return
	}
	fmt.Fprintf(w, ", exit %d", r.ExitCode)
	if r.Signal != "" {
		fmt.Fprintf(w, " (%s)", printable(r.Signal))
	}
	if r.TimedOut {
		fmt.Fprint(w, ", timed out")
	}
	if r.LimitHit != "" {
		fmt.Fprintf(w, ", limit hit"+labelColon+" %s", printable(r.LimitHit))
	}
	fmt.Fprintf(w, ", %s\n", report.ShortDuration(time.Duration(r.DurationMs*float64(time.Millisecond)).Round(time.Millisecond)))
	if r.Writes == nil {
		fmt.Fprintln(w, "  writes: not recorded (direct run)")
	} else if len(r.Writes) == 0 {
		fmt.Fprintf(w, "  writes: none (recorded by %s)\n", printable(r.WritesMethod))
	} else {
		fmt.Fprintf(w, "  writes (recorded by %s):\n", printable(r.WritesMethod))
		for _, wr := range r.Writes {
			from := ""
			if wr.From != "" {
				from = " (from " + quote(wr.From) + ")" // renamed
			}
			fmt.Fprintf(w, "    %-6s %s%s\n", printable(string(wr.Op)), quote(wr.Path), from)
		}
	}
	if r.Egress == nil {
		fmt.Fprintln(w, "  egress: not recorded")
	} else if len(r.Egress) == 0 {
		fmt.Fprintln(w, "  egress: none")
	} else {
		fmt.Fprintln(w, "  egress:")
		for _, e := range r.Egress {
			fmt.Fprintf(w, "    %s\n", egressLine(e))
		}
	}
	if d := r.EgressDropped; d != nil {
		fmt.Fprintf(w, "  egress dropped"+labelColon+" %d %s, %d %s\n", d.Packets, plural(d.Packets, "packet"), d.Bytes, plural(d.Bytes, "byte"))
	}
	if len(r.Lingered) > 0 {
		fmt.Fprintln(w, "  outlived the command (ended):")
		for _, p := range r.Lingered {
			fmt.Fprintf(w, "    %s\n", lingeredLine(p))
		}
	}
}

// lingeredLine is an entry of the lingered list on a line of its own. The
// sandbox shows each as one line already ("PID command line", the command
// line quoted where it is not plain text: sandbox.Result.Lingered), so it
// is printed as it is, with its ':' as annotate.Colon and a U+A789 of its
// own as \ua789 (as quote shows one), so that where ownText makes each
// Colon a ':' again none of the process's reads as one (a plain argument
// holds no backslash: the sandbox quotes one that does); an entry that is
// not one line is quoted.
func lingeredLine(p string) string {
	if evidence.OneLine(p) {
		return annotate.NoMatch(strings.ReplaceAll(p, annotate.Colon, `\ua789`))
	}
	return quote(p)
}

// egressLine is one entry of the egress record in the text report, with
// what tells it from its neighbours: the address an entry named by its
// host was at (a connect, a refused answer), the port, the protocol (where
// it is not the way it was seen: dns via dns), the attempts, the packets
// and bytes that went through (allow mode), and the detail (a refused
// answer's reason, a proxy request's method and path, a malformed
// request).
func egressLine(e evidence.Egress) string {
	verdict := "blocked"
	switch {
	case e.Allowed:
		verdict = "allowed"
	case e.AtLoopback():
		// No policy blocked it and none can allow it: the sandbox's own
		// loopback, where nothing answered or the recording proxy refused
		// the request (the host's own under Claude Code).
		verdict = "local"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %s", verdict, quote(e.Dest()))
	if e.Host != "" && e.IP != "" {
		b.WriteString(" at " + printable(e.IP))
	}
	if e.HasPort() { // a name looked up, never connected to, has no port
		fmt.Fprintf(&b, " port %d", e.Port)
	}
	if e.Proto != "" && e.Proto != string(e.Via) {
		b.WriteString(" " + printable(e.Proto))
	}
	fmt.Fprintf(&b, " via %s (%d %s", printable(string(e.Via)), e.Attempts, plural(uint64(e.Attempts), "attempt"))
	if e.Packets != 0 || e.Bytes != 0 {
		fmt.Fprintf(&b, ", %d %s, %d %s", e.Packets, plural(e.Packets, "packet"), e.Bytes, plural(e.Bytes, "byte"))
	}
	b.WriteString(")")
	if e.Detail != "" && !e.Lumped() { // a lumped entry's Dest says it
		b.WriteString(" — " + printable(e.Detail))
	}
	switch {
	case e.Via == evidence.ViaLoopback:
		b.WriteString(" — nothing in the sandbox answered; under Claude Code the host's own service at that port, which vigiles cannot reach")
	case e.AtLoopback():
		b.WriteString(" — the recording proxy refused it (the client ignored NO_PROXY); under Claude Code the host's own service at that port, which vigiles cannot reach")
	}
	return b.String()
}

func plural(n uint64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// printable escapes control characters and invalid UTF-8 (as \xNN,
// \n, \u…), keeping the rest of the text readable, and makes each ':'
// an annotate.Colon.
func printable(s string) string {
	q := quote(s)
	return annotate.InertLine(q[1 : len(q)-1])
}

// quote is %q with each ':' of s an annotate.Colon: a quoted path
// "./main.go:1:1: x" is still a compiler's error to setup-go's problem
// matcher, which looks for ".go:" anywhere in a line.
// A U+A789 of s is its escape, \ua789, so that where ownText makes each
// Colon a ':' again none of s's reads as one.
func quote(s string) string {
	q := strings.ReplaceAll(strconv.Quote(s), annotate.Colon, `\ua789`)
	return annotate.NoMatch(q)
}
