package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/internal/textcut"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

func init() {
	subcommands["test"] = subcommand{summary: "run the checks of .vigiles.yml and fail when a promise is broken", run: cmdTest}
	subcommands["audit"] = subcommand{summary: "run every discovered hook confined and compare with the baseline", run: cmdAudit}
	subcommands["merge"] = subcommand{summary: "join the JSON reports of --shard runs, or write one in another format", run: cmdMerge}
}

// renderSARIF renders a report as SARIF 2.1.0 and says what it left out;
// the annotate wiring sets it.
var renderSARIF func(*report.Report, io.Writer) (annotate.SARIFStats, error)

// testAuditExecutor replaces the real sandbox in tests of this file.
var testAuditExecutor runner.Executor

// maxJobs bounds --jobs: each lane holds up to three sandboxes (the next
// hook's, prepared; the one whose command runs; the last one's, making its
// record), each with a uid of its own from a pool of sandbox.SandboxUIDs,
// and its own processes and memory.
const maxJobs = 1024

const testHelp = `Usage: vigiles test [flags]

Runs the checks written in .vigiles.yml: each names a hook (by plugin name,
hook id or declaring file) or a command, the event and tool input to send
it, and what must hold — exit code, blocked or allowed, output, JSON
fields, no network, only some hosts, no writes, only some writes, nothing
(or only the expected text) left in CLAUDE_ENV_FILE, how long it may take.
Every hook runs the way Claude Code would run it, vendored plugins confined.

Exits 1 when any expectation fails, and when any other finding is an
error (a malformed hook declaration, a mistake in .vigiles.yml), though
every expectation holds; each points at the line that states it.

Examples:
  vigiles test                                  # .vigiles.yml in the current directory
  vigiles test --dir examples                   # the repository in examples/, with its .vigiles.yml
  vigiles test --config ci/vigiles.yml --format json --output vigiles-report.json
  vigiles test --format sarif --output vigiles.sarif
  vigiles test --shard 2/4 --format json --output shard-2.json   # then: vigiles merge shard-*.json
  vigiles test --egress allow --allow api.example.test            # let hooks reach one host; the rest are blocked and recorded
  vigiles test --policy-base origin/main         # also name what this branch's .vigiles.yml and workflows check less than main's (policy/weakened)

Exit status: 0 every expectation holds and no finding is an error; 1 an
expectation failed, or a finding of severity error (a malformed declaration
found by discovery, an invalid .vigiles.yml); 2 bad usage; 125 vigiles
refused or failed: a run refused (no confinement here, say), failed or
interrupted, or more runs planned than --max-runs, whatever the other
findings are.

Flags:
`

// auditHelp names the events whose hooks get CLAUDE_ENV_FILE from the
// runner's one list of them.
var auditHelp = fmt.Sprintf(`Usage: vigiles audit [PATH...] [flags]

Discovers every hook under PATH (relative to --dir; default: the whole
work tree) — Claude Code's .claude/settings.json,
.claude/settings.local.json, plugin manifests, plugin hooks files, local
marketplaces, and the frontmatter of skills, agents and commands — and
runs each one for every event it handles, confined,
recording what it wrote, which hosts it tried to reach, and what it left
in CLAUDE_ENV_FILE (which Claude Code gives a %s
hook). The result is an inventory per hook: outcome, hosts, writes, env
file, time. An audit of some PATHs reads the whole tree all the same and runs
the hooks declared under them (and those their plugins read from
elsewhere) as the whole audit runs them: in every plugin's and package's
context that reads them, under the same ids. What Claude Code would run
that vigiles does not (MCP and LSP servers, monitors, a plugin's hooks
module, settings commands, the shell lines of skills and commands, code any
of these or a hook fetches at run time) it names in findings
(docs/report-format.md).

With a baseline (default .vigiles/baseline.json), anything new — a host, a
written path, a changed outcome or env file, a new hook, a script a hook
runs rewritten under the same command, a new or changed server, monitor,
hooks module or settings command — is a finding at the line that declares
it. The default baseline missing is a notice (nothing to compare
with yet); one --baseline names that is missing is an error (a typo, or a
change that deleted it, compares with nothing). A shell line the baseline
keeps as it is is a notice, any other stays its warning; code fetched at
run time is kept in no baseline.
A vigiles.baseline/v1 baseline that lacks a key v2 keeps is an error
(baseline/outdated) until --update-baseline rewrites it. --update-baseline
accepts what this audit saw and writes the baseline: stable, sorted JSON
that reads well as a pull-request diff. It needs the whole audit: no
--shard, no PATH. It overwrites no file that is not a vigiles baseline
(exit 2: --baseline naming the policy file, or any other file), refuses
a baseline whose directory may not be written (exit 2, before any hook
runs; the directories on the way that are not there it makes), and
writes nothing (exit 125) where a run was refused, failed, hit a limit
of the sandbox or was cut short by a timeout sooner than Claude Code's:
make those runs whole first.

Examples:
  vigiles audit                                 # everything in the current repository
  vigiles audit --dir examples                  # the repository in examples/, with its policy and baseline
  vigiles audit plugins/vendor-a plugins/vendor-b
  vigiles audit --update-baseline               # accept; review the diff of .vigiles/baseline.json
  vigiles audit --policy-base origin/main       # as a pull request's check: name what this branch's policy, baseline and workflows weaken of main's
  vigiles audit --shard 1/3 --format json --output audit-1.json   # one job of a matrix
  vigiles audit --sandbox off --baseline ""     # hooks run in the open, recording nothing: a throwaway machine only

Exit status: 0 no finding of severity error (a hook the baseline does not know
is a warning); 1 a finding of severity error (drift, a malformed declaration);
2 bad usage; 125 vigiles refused or failed: a run refused (no confinement
here, say), failed or interrupted, more runs planned than --max-runs, or a
baseline --update-baseline did not write, whatever the other findings are.

Flags:
`, runner.JoinWords(runner.EnvFileEvents(), "or"))

const mergeHelp = `Usage: vigiles merge [flags] REPORT.json...

Joins the vigiles.report/v1 documents written by "vigiles test --shard i/n" or
"vigiles audit --shard i/n" into one report, the same an unsharded run of the
same --jobs would have written (but that each shard names up to 1,000 new
written paths one by one against a baseline, where the whole audit names
1,000). Every shard must be present exactly once. Given one whole report
(of a run without --shard), it writes that report again in the --format
asked for (sarif, text), running nothing: a job that ran its hooks once
keeps all three forms.

Examples:
  vigiles merge audit-1.json audit-2.json audit-3.json --output audit.json
  vigiles merge shard-*.json --format text

Exit status: 0 the merged verdict passes; 1 it fails; 2 bad usage or
mismatched reports; 125 vigiles failed, here or in a shard (the merged
verdict is error: a run refused, failed or interrupted, more runs planned
than --max-runs).

Flags:
`

// commonFlags are the flags test and audit share.
type commonFlags struct {
	dir, config, format, output, shard, sandbox string
	jobs, maxRuns                               int
	quiet, rootSandbox                          bool
	egress, policyBase                          string
	allow                                       []string
	policy                                      *evidence.EgressPolicy
}

func (c *commonFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&c.dir, "dir", ".", "the repository's work tree")
	fs.StringVar(&c.config, "config", "", "the policy file, relative to --dir (default .vigiles.yml)")
	fs.StringVar(&c.format, "format", "text", "text (for people), json (vigiles.report/v1) or sarif (code scanning; the findings its limits leave out are counted on stderr); not given, -o FILE's name decides where it ends in .json or .sarif")
	fs.StringVarP(&c.output, "output", "o", "", "write the report to FILE instead of stdout (\"-\": stdout; relative to the current directory, as --dir is, not to --dir)"+outputHelp)
	fs.StringVar(&c.shard, "shard", "", "run only part i of n of the work (i/n, e.g. 2/4), for a CI matrix")
	sandboxDefault := "default: the policy's, else auto"
	if fs.Name() == "audit" {
		// runner.Audit confines trusted code too unless told otherwise.
		sandboxDefault = "default strict: an audit turns the policy's auto, or none, into strict, and keeps its off; auto given here runs trusted code directly, unrecorded"
	}
	fs.StringVar(&c.sandbox, "sandbox", "", "override the policy's mode: auto, strict or off ("+sandboxDefault+"; off runs hooks in the open: only on a disposable machine)")
	fs.IntVar(&c.jobs, "jobs", 0, fmt.Sprintf("hooks run at once, at most %d (default, and 0: the number of CPU cores; 1 times each hook alone, as a hook with a short timeout may need); each lane also builds its next hook's sandbox ahead while one runs, and starts it while the last one's record is made (up to three sandboxes a lane at once)", maxJobs))
	fs.StringVar(&c.egress, "egress", "", "override the policy's network mode: deny, record or allow, in place of its whole defaults.egress (its hosts, address ranges, resolver and connector too) (default: the policy's, else deny)")
	fs.StringArrayVar(&c.allow, "allow", nil, "with --egress allow: HOST[:PORT] or *.SUFFIX that may be reached (repeatable); names only: addresses and ranges go under the policy's defaults.egress.allow-ip, used without these flags")
	fs.IntVar(&c.maxRuns, "max-runs", runner.DefaultMaxRuns, "the most hook runs to start (per shard); a plan of more runs none and reports plan/too-many-runs: raise this, or narrow the work (audit: PATHs; test: checks that select fewer hooks; both: --shard)")
	fs.BoolVarP(&c.quiet, "quiet", "q", false, "no progress lines on stderr (an audit's policy and baseline unread where a directory above or a PATH holds a .vigiles.yml, an audit's baseline that cannot be compared with, the runs planned, a line per finished run, every 30s the runs still running and for how long, the baseline --update-baseline wrote)")
	fs.BoolVar(&c.rootSandbox, "root-sandbox", false, rootSandboxHelp)
	fs.StringVar(&c.policyBase, "policy-base", "", "a git revision (main, origin/main, a commit) to compare the policy file"+map[bool]string{true: " and the baseline", false: ""}[fs.Name() == "audit"]+" with, as a pull request's check does with its base: each check or expectation removed or relaxed, egress widened, a plugin trusted, a limit lowered is a policy/weakened warning"+map[bool]string{true: ", each host, write or run the baseline accepts anew a baseline/accepted-by-pr one", false: ""}[fs.Name() == "audit"]+"; and, where no GITHUB_WORKFLOW_REF names the workflow that runs, each workflow file of the repository's .github/workflows that holds a vigiles step there or in the work tree (read from the work tree, uncommitted changes too): a vigiles step weakened, or the workflow deleted, is a policy/weakened warning too (default: compare with none)")
	setRange(fs, "jobs", fmt.Sprintf("0 (one per core) to %d", maxJobs))
	setRange(fs, "max-runs", fmt.Sprintf("a whole number from 1 to %d", math.MaxInt))
}

// formatByName is the report format -o's FILE asks for by its name where
// --format is not given: a FILE ending in .json is written as JSON and
// one ending in .sarif as SARIF (vigiles audit -o report.json wrote text
// into report.json, which a merge or a code-scanning upload then refused);
// "" where the name says nothing.
func formatByName(output string) string {
	switch strings.ToLower(filepath.Ext(output)) {
	case ".json":
		return "json"
	case ".sarif":
		return "sarif"
	}
	return ""
}

// formatFromOutput sets *format from -o's FILE, output (formatByName),
// where fs was given no --format: test's, audit's and merge's.
func formatFromOutput(fs *pflag.FlagSet, format *string, output string) {
	if f := formatByName(output); f != "" && !fs.Changed("format") {
		*format = f
	}
}

// emptyOutput refuses -o "" of test, audit and merge (name), as --dir ""
// is refused: a variable that was meant to name the report's file and
// came out empty would send the report to stdout, where no one reads it
// for the file. nil where -o was not given empty.
func emptyOutput(fs *pflag.FlagSet, name, output string) error {
	if fs.Changed("output") && output == "" {
		return exitWith(2, fmt.Errorf(`%s: --output "": an empty path: leave -o out, or give -o -, for stdout`, name))
	}
	return nil
}

func (c *commonFlags) validate(name string) error {
	// "-" is stdout, as vigiles run's --stdin - is stdin: not a file
	// of that name in the current directory.
	if c.output == "-" {
		c.output = ""
	}
	// An empty --dir (a variable that came out empty) is said to be
	// empty, as --workdir "" and -o "" are, not a directory that is not
	// there.
	if c.dir == "" {
		return fmt.Errorf(`%s: --dir "": an empty path: leave --dir out, or give --dir ".", for the current directory`, name)
	}
	if why := notADirNear(c.dir); why != "" {
		return fmt.Errorf("%s: --dir %q %s", name, c.dir, why)
	}
	if why := kernelTree(c.dir, "--dir"); why != "" {
		return fmt.Errorf("%s: --dir %q %s", name, c.dir, why)
	}
	if why := unreadableTree(c.dir); why != "" {
		return fmt.Errorf("%s: --dir %q %s", name, c.dir, why)
	}
	if err := configFromHere(c.dir, c.config); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if why := configIsDir(c.dir, c.config); why != "" {
		return fmt.Errorf("%s: --config %q %s", name, c.config, why)
	}
	if c.output != "" {
		if why := cannotCreateReport(c.output); why != "" {
			return fmt.Errorf("%s: --output %q %s", name, c.output, why)
		}
		if why := linkInTree(c.output, c.dir); why != "" {
			return fmt.Errorf("%s: --output %q %s", name, c.output, why)
		}
	}
	if c.rootSandbox && geteuid() != 0 {
		return fmt.Errorf("%s: --root-sandbox is only for root callers, and this one is uid %d: leave it out", name, geteuid())
	}
	switch c.format {
	case "text", "json", "sarif":
	default:
		return fmt.Errorf("%s: --format %q: want text, json or sarif%s", name, c.format, didYouMean(c.format, "text", "json", "sarif"))
	}
	if _, _, err := runner.ParseShard(c.shard); err != nil {
		return fmt.Errorf("%s: %w", name, asFlag("--shard", err))
	}
	if c.sandbox != "" {
		if _, err := sandbox.ParseMode(c.sandbox); err != nil {
			return fmt.Errorf("%s: %w", name, asFlag("--sandbox", err))
		}
	}
	// --sandbox off runs every hook in the open, as vigiles run's does:
	// a flag only a sandbox honours would be silently moot there.
	if c.sandbox == string(sandbox.ModeOff) {
		var moot []string
		if c.egress != "" {
			moot = append(moot, "--egress")
		}
		if len(c.allow) > 0 {
			moot = append(moot, "--allow")
		}
		if c.rootSandbox {
			moot = append(moot, "--root-sandbox")
		}
		if len(moot) > 0 {
			return fmt.Errorf("%s: --sandbox off runs every hook in the open, which cannot honour %s: %s; "+
				"leave %s out, or confine the hooks (--sandbox strict or auto)", name, strings.Join(moot, ", "), onlyASandbox, map[bool]string{true: "it", false: "them"}[len(moot) == 1])
		}
	}
	if c.jobs < 0 || c.jobs > maxJobs {
		return fmt.Errorf("%s: --jobs %d: want 0 (one per core) to %d", name, c.jobs, maxJobs)
	}
	if c.maxRuns < 1 {
		return fmt.Errorf("%s: --max-runs %d: want at least 1", name, c.maxRuns)
	}
	// The flags replace the policy's egress, hosts included.
	if c.egress != "" || len(c.allow) > 0 {
		// test and audit take no address ranges on the command line: say
		// where they go, in the policy file's words (the engine's check
		// below would name --allow-ip, which only vigiles run has).
		var ps problems
		for _, h := range c.allow {
			if _, err := evidence.ParseAllowHost(h); errors.Is(err, evidence.ErrAddressNotName) {
				ps = append(ps, fmt.Errorf("%s: --allow %q: %v, and --allow takes host names (HOST, *.SUFFIX, HOST:PORT): "+
					"list addresses and address ranges under defaults.egress.allow-ip in the policy file (hosts under defaults.egress.allow), "+
					"and leave --egress and --allow out, which replace the policy's egress", name, h, err))
			}
		}
		if len(ps) > 0 {
			return ps
		}
		p := evidence.EgressPolicy{Mode: c.egress, Allow: c.allow}
		if c.egress == "" {
			// --allow alone: the mode in force is the policy's, which the
			// runner reads, and refuses hosts without mode allow
			// (runner.EgressModeError, said with the fix by
			// withRunnerHints). The hosts are checked here as allow
			// mode would take them.
			p.Mode = evidence.EgressAllow
		}
		if es := netwire.ValidateEgress(&p); es != nil {
			for _, e := range es {
				ps = append(ps, fmt.Errorf("%s: %w", name, egressFlagHint(e, "--allow HOST[:PORT]")))
			}
			return ps
		}
		if c.egress == "" {
			p = evidence.EgressPolicy{Allow: c.allow}
		}
		c.policy = &p
	}
	return nil
}

// withRunnerHints adds to a mistake Test or Audit found in the options
// the flags that fix it; other errors are returned as they are.
func withRunnerHints(err error, dir string) error {
	var me *runner.EgressModeError
	if errors.As(err, &me) {
		return hinted{msg: err.Error() + "; add --egress allow", err: err}
	}
	var pe *runner.AuditPathError
	if errors.As(err, &pe) {
		// Said here with the values quoted: an empty PATH, or one with a
		// newline, stays on the line.
		if pe.Outside && !pathThere(pe.Path, dir) {
			// Not there, whatever it is outside of: that is said
			// first, as it is of a PATH under --dir.
			return hinted{msg: fmt.Sprintf("path %q does not exist; a PATH names a directory in the work tree %q (--dir %q), relative to it", pe.Path, pe.Dir, dir), err: err}
		}
		if pe.Outside {
			return hinted{msg: fmt.Sprintf("path %q is outside the work tree %q; name directories under --dir %q", pe.Path, pe.Dir, dir), err: err}
		}
		if !pe.Missing {
			// A declaration file named: its directory holds its hooks.
			return hinted{msg: fmt.Sprintf("path %q is not a directory: a PATH names a directory, whose hooks the audit runs; name the one that holds it, %q", pe.Path, filepath.Dir(pe.Path)), err: err}
		}
		what, meant := "does not exist", ""
		if near := nearDir(filepath.Join(dir, pe.Path)); near != "" {
			meant = fmt.Sprintf("; did you mean %q?", filepath.Join(filepath.Dir(pe.Path), filepath.Base(near)))
		}
		// A PATH is taken relative to --dir, not to the current directory.
		where := ""
		if at := filepath.Join(dir, pe.Path); !filepath.IsAbs(pe.Path) && at != pe.Path {
			where = fmt.Sprintf(" (%q; a PATH is relative to --dir %q)", at, dir)
		} else if !filepath.IsAbs(pe.Path) {
			where = " (a PATH is relative to --dir)"
		}
		return hinted{msg: fmt.Sprintf("path %q %s%s%s", pe.Path, what, where, meant), err: err}
	}
	return err
}

// pathThere says whether p, an audit PATH the runner found outside the
// work tree dir, is there as the caller wrote it (relative to dir): only
// a PATH whose own spelling leaves the tree (an absolute path elsewhere,
// a ".." out of it) is looked up, so that where a link of the tree's
// leads out stays unlooked at, as the runner leaves it; any other is
// taken for there.
func pathThere(p, dir string) bool {
	at := p
	if !filepath.IsAbs(p) {
		at = filepath.Join(dir, p)
	}
	absAt, err1 := filepath.Abs(at)
	absDir, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return true
	}
	if _, in := relInside(absDir, absAt); in {
		return true
	}
	_, err := os.Lstat(absAt)
	return !errors.Is(err, os.ErrNotExist)
}

func (c *commonFlags) options(stderr io.Writer) runner.Options {
	o := runner.Options{Dir: c.dir, Config: c.config, Shard: c.shard, Sandbox: sandbox.Mode(c.sandbox), Jobs: c.jobs,
		Egress: c.policy, Executor: testAuditExecutor, RootSandbox: c.rootSandbox, MaxRuns: c.maxRuns}
	if !c.quiet {
		o.Progress = &progressWriter{w: stderr}
	}
	return o
}

// testArgument says why test takes no argument arg, and what was meant by
// it where that can be told: a directory, as audit takes a PATH, is the
// repository to test (--dir), and a policy file its directory's or its own
// (--dir, or --config). dirGiven: --dir was given too, so arg, read from
// here, is no path relative to it, and only the rule is said.
func testArgument(arg string, dirGiven bool) string {
	msg := fmt.Sprintf("unexpected argument %q: test takes none (it runs the checks of the policy file, .vigiles.yml; --dir names the repository, --config another policy file)", arg)
	if dirGiven || arg == "" {
		return msg
	}
	fi, err := os.Stat(arg)
	switch {
	case err != nil:
		return msg
	case fi.IsDir() && filepath.Clean(arg) == ".":
		return fmt.Sprintf("unexpected argument %q: test takes no PATH, unlike audit, and tests the repository here without being told: leave the argument out", arg)
	case fi.IsDir():
		return fmt.Sprintf("unexpected argument %q: test takes no PATH, unlike audit; to test the repository there, give --dir %q", arg, arg)
	case fi.Mode().IsRegular():
		if base, dir := filepath.Base(arg), filepath.Dir(arg); base == runner.DefaultConfig || base == ".vigiles.yaml" {
			var fix []string
			if dir != "." {
				fix = append(fix, fmt.Sprintf("--dir %q", dir))
			}
			if base != runner.DefaultConfig {
				fix = append(fix, fmt.Sprintf("--config %q", base))
			}
			if len(fix) == 0 {
				return fmt.Sprintf("unexpected argument %q: test takes no file, and reads this one, the policy file here, without being told: leave the argument out", arg)
			}
			return fmt.Sprintf("unexpected argument %q: test takes no file; to run the checks of the repository it is the policy of, give %s", arg, strings.Join(fix, " "))
		}
		return fmt.Sprintf("unexpected argument %q: test takes no file; to read the checks from it, give --config %q (relative to --dir, the repository)", arg, arg)
	}
	return msg
}

func cmdTest(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	var c commonFlags
	c.add(fs)
	if done, err := parseFlags(fs, testHelp, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() > 0 {
		if err := boolValueApart(fs, args, fs.Arg(0), "an argument, which test takes none of"); err != nil {
			return exitWith(2, err)
		}
		return exitWith(2, errors.New("test: "+testArgument(fs.Arg(0), fs.Changed("dir"))))
	}
	if err := emptyOutput(fs, "test", c.output); err != nil {
		return err
	}
	formatFromOutput(fs, &c.format, c.output)
	if err := c.validate("test"); err != nil {
		return exitWith(2, err)
	}
	if err := checkOutputFlag("test", c.output, c.config, c.dir, "", false); err != nil {
		return exitWith(2, err)
	}
	runner.Version = version
	o := c.options(ownText(stderr, getenv))
	if c.policyBase != "" {
		o.PolicyBase = localPolicyBase(ctx, getenv, c.dir, c.policyBase, c.config, "")
	}
	rep, err := runner.Test(ctx, o)
	return finishReport("test", rep, withRunnerHints(err, c.dir), c.format, c.output, textOut(c.format, stdout, getenv), stderr)
}

func cmdAudit(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("audit", pflag.ContinueOnError)
	var c commonFlags
	c.add(fs)
	baseline := fs.String("baseline", defaultBaseline, "the accepted audit to compare with, relative to --dir (\"\" compares with nothing)")
	updateBaseline := fs.Bool("update-baseline", false, "write the baseline from this audit (whole audits only: no --shard, no PATH)")
	if done, err := parseFlags(fs, auditHelp, args, stdout, stderr); done {
		return err
	}
	if err := emptyOutput(fs, "audit", c.output); err != nil {
		return err
	}
	formatFromOutput(fs, &c.format, c.output)
	if err := c.validate("audit"); err != nil {
		return exitWith(2, err)
	}
	if *updateBaseline && c.shard != "" {
		return exitWith(2, errors.New("audit: --update-baseline needs the whole audit; drop --shard"))
	}
	if *updateBaseline && *baseline == "" {
		return exitWith(2, fmt.Errorf("audit: --update-baseline needs a baseline file to write, and --baseline \"\" names none: leave --baseline out (default %s) or name one, e.g. --baseline %s", defaultBaseline, defaultBaseline))
	}
	if err := unreadPolicy(c.dir, c.config, "--config"); err != nil {
		return exitWith(2, fmt.Errorf("audit: %w", err))
	}
	if err := checkBaselineFlag(*baseline, c.config, c.dir, *updateBaseline, *baseline != defaultBaseline); err != nil {
		return exitWith(2, err)
	}
	if err := checkOutputFlag("audit", c.output, c.config, c.dir, *baseline, fs.Changed("baseline")); err != nil {
		return exitWith(2, err)
	}
	o := c.options(ownText(stderr, getenv))
	if line := repositoryAbove(c.dir, c.config, *baseline); line != "" && o.Progress != nil {
		fmt.Fprintln(o.Progress, line)
	}
	if line := repositoryInPath(c.dir, c.config, *baseline, fs.Args()); line != "" && o.Progress != nil {
		fmt.Fprintln(o.Progress, line)
	}
	for _, p := range fs.Args() {
		if _, err := os.Lstat(inDir(c.dir, p)); err == nil {
			continue
		}
		if err := boolValueApart(fs, args, p, "a PATH to audit"); err != nil {
			return exitWith(2, err)
		}
	}
	o.Paths = fs.Args()
	o.Baseline = *baseline
	o.BaselineNamed = fs.Changed("baseline")
	o.UpdateBaseline = *updateBaseline
	// The advice to rewrite the baseline names the --dir given, so that
	// it audits this tree where the user runs it.
	o.Invoked = runner.Invocation{Dir: c.dir}
	if c.policyBase != "" && !*updateBaseline {
		o.PolicyBase = localPolicyBase(ctx, getenv, c.dir, c.policyBase, c.config, *baseline)
	}
	runner.Version = version
	rep, err := runner.Audit(ctx, o)
	err = withRunnerHints(err, c.dir)
	if err == nil && *updateBaseline && o.Progress != nil {
		// The caller's own name, shown as the text report shows a path,
		// through the progress lines' writer: inert in a step log and on
		// a terminal (TestUpdateBaselineLineShowsTheNameInert).
		fmt.Fprintf(o.Progress, "wrote the baseline %s (%s); review its diff before committing\n", evidence.ShownName(*baseline), baselineRuns(rep))
	}
	return finishReport("audit", rep, err, c.format, c.output, textOut(c.format, stdout, getenv), stderr)
}

func cmdMerge(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("merge", pflag.ContinueOnError)
	format := fs.String("format", "json", "text, json (vigiles.report/v1) or sarif (code scanning; the findings its limits leave out are counted on stderr); not given, sarif where -o FILE ends in .sarif")
	output := fs.StringP("output", "o", "", "write the merged report to FILE instead of stdout (\"-\": stdout)"+mergeOutputHelp)
	if done, err := parseFlags(fs, mergeHelp, args, stdout, stderr); done {
		return err
	}
	if err := emptyOutput(fs, "merge", *output); err != nil {
		return err
	}
	formatFromOutput(fs, format, *output)
	if fs.NArg() == 0 {
		return usageError(fs, mergeHelp, stderr, errors.New("merge: no reports given; name the JSON reports vigiles test or audit wrote with --shard i/n --format json --output FILE, or one whole report to write again in another --format"))
	}
	switch *format {
	case "text", "json", "sarif":
	default:
		return exitWith(2, fmt.Errorf("merge: --format %q: want text, json or sarif%s", *format, didYouMean(*format, "text", "json", "sarif")))
	}
	if *output == "-" {
		*output = "" // stdout, as for test and audit
	}
	if *output != "" {
		if why := cannotCreateReport(*output); why != "" {
			return exitWith(2, fmt.Errorf("merge: --output %q %s", *output, why))
		}
		if err := notOverBaseline("merge", *output); err != nil {
			return exitWith(2, err)
		}
	}
	var reps []runner.NamedReport
	var named []os.FileInfo // of each report in reps, where it could be looked at
	for _, p := range fs.Args() {
		if p == "-" {
			// Not stdin: a merge names each report by its file.
			return exitWith(2, errors.New(`merge: "-": merge reads report files, not stdin; name the files (vigiles merge shard-*.json)`))
		}
		r, err := readReport(p)
		if errors.Is(err, os.ErrNotExist) {
			// A mistyped name, or a glob that matched nothing, which the
			// shell passes on as it is.
			why := "does not exist"
			if strings.ContainsAny(p, "*?[") {
				why = "matches no file (the shell passed the pattern on as it is)"
			}
			return exitWith(2, hinted{msg: fmt.Sprintf("merge: report %q %s; name the JSON reports vigiles test or audit wrote with --shard i/n --format json --output FILE", p, why), err: err})
		}
		if err != nil {
			return exitWith(2, fmt.Errorf("merge: %w", err))
		}
		// A report named twice (a glob and its own name, a.json and
		// ./a.json) is one run read twice, which the merge would call two
		// whole reports or one shard twice.
		if fi, err := os.Stat(p); err == nil {
			for i, seen := range named {
				if os.SameFile(fi, seen) {
					if filepath.Clean(reps[i].Name) == filepath.Clean(p) {
						return exitWith(2, fmt.Errorf("merge: report %q is named twice; name each report once", p))
					}
					return exitWith(2, fmt.Errorf("merge: reports %q and %q are the same file; name each report once", reps[i].Name, p))
				}
			}
			named = append(named, fi)
		} else {
			named = append(named, nil)
		}
		reps = append(reps, runner.NamedReport{Name: p, Report: r})
	}
	rep, err := runner.Merge(reps...)
	if err != nil {
		return exitWith(2, err)
	}
	return finishReport("merge", rep, nil, *format, *output, textOut(*format, stdout, getenv), stderr)
}

// outputHelp ends the help of test's and audit's -o: how the file is
// written, and that a path through a symbolic link of the work tree is
// refused (linkInTree), as are the files the run reads and any baseline
// (checkOutputFlag).
const outputHelp = outputWrittenHelp + "; a path that is, or passes through, a symbolic link inside the work tree is refused, as the tree under review chose where it leads, and so are the policy file, an audit's baseline, .vigiles/baseline.json where the audit reads it by default, and any other vigiles baseline)"

// mergeOutputHelp ends the help of merge's -o, which reads no work tree:
// a symbolic link is written through; a baseline is refused
// (notOverBaseline).
const mergeOutputHelp = outputWrittenHelp + "; where FILE is a symbolic link, the file it leads to is replaced; a vigiles baseline is refused)"

// outputWrittenHelp is how a report's file is written, unclosed.
const outputWrittenHelp = " (a regular file is replaced by a new one made beside it, so a report that cannot be written leaves the one there whole; written in place instead, where a failed write may cut it: a path in /dev or /proc such as /dev/stdout, a device or FIFO, and a file that cannot be replaced: a writable file in a directory that may not be written, a bind-mounted file"

// defaultBaseline is audit's --baseline when none is given.
const defaultBaseline = runner.DefaultBaseline

// checkBaselineFlag refuses, as bad usage, a --baseline (relative to
// dir) that cannot be a baseline file: a directory (as a directory given
// as --config is), the policy file (config, "" for the default; a slip
// for --config), or, to be written (update), a file there that is no
// baseline (runner.WhyNotBaseline: a file of the host's), or one outside
// the work tree whose directory does not exist (inside it, the missing
// directories are made, as the default's .vigiles is on the first
// --update-baseline).
func checkBaselineFlag(baseline, config, dir string, update, given bool) error {
	if baseline == "" {
		return nil
	}
	p := inDir(dir, baseline)
	if rel := fromHere(dir, baseline); given && rel != "" && strings.HasPrefix(filepath.Clean(baseline), filepath.Clean(dir)+"/") {
		// --dir sub --baseline sub/.vigiles/baseline.json: compared
		// with nothing, or (--update-baseline) a new baseline made at
		// sub/sub/…. Only where it repeats --dir: another file from
		// here (a root's baseline, a package's made anew) may be meant.
		return fmt.Errorf("audit: there is no baseline at %q: --baseline is read relative to --dir %q, not to the current directory, and the file it names from here is --baseline %q", p, dir, rel)
	}
	named := fmt.Sprintf("--baseline %q", baseline)
	if !given {
		named = fmt.Sprintf("the baseline %s (the default; --baseline names another)", baseline)
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		if !given {
			return fmt.Errorf("audit: %s is a directory; want the baseline file there, or --baseline naming it (relative to --dir)", named)
		}
		return fmt.Errorf("audit: %s is a directory; want the baseline file, such as %s (relative to --dir)", named, defaultBaseline)
	}
	policy := fmt.Sprintf("the policy file --config %q names", config)
	if config == "" {
		config, policy = runner.DefaultConfig, fmt.Sprintf("the policy file, %s (--config names another)", runner.DefaultConfig)
	}
	if sameFile(p, inDir(dir, config)) {
		return fmt.Errorf("audit: %s is %s: the baseline is the JSON file --update-baseline writes, such as %s (the default); name that, or leave --baseline out", named, policy, defaultBaseline)
	}
	if update && !leadsOut(dir, p) {
		// A link of the tree's that leads out is the runner's to refuse:
		// what it leads to is not read here.
		if why := runner.WhyNotBaseline(p); why != "" {
			return fmt.Errorf("audit: --update-baseline would overwrite %q, which is not a vigiles baseline (%s): name the baseline file with --baseline (default %s; one not there is made), "+
				"or move that file away first", baseline, why, defaultBaseline)
		}
	}
	_, in := relInside(dir, p)
	if update && given && !in {
		if why := cannotCreate(p); why != "" {
			return fmt.Errorf("audit: --baseline %q %s", baseline, why)
		}
	}
	if update && in && !leadsOut(dir, p) {
		if why := cannotMakeBaseline(p); why != "" {
			return fmt.Errorf("audit: --update-baseline: %s %s", named, why)
		}
	}
	return nil
}

// repositoryAbove is the progress line of an audit that reads no policy
// file (the default, not there) and no baseline (the default, not there,
// or none) where a directory above dir holds a .vigiles.yml: an audit run
// from inside a repository, not its root, which passes on the built-in
// policy and nothing to compare with. It names that directory and the
// --dir that audits it; "" otherwise.
func repositoryAbove(dir, config, baseline string) string {
	if !readsNoPolicy(dir, config, baseline) {
		return ""
	}
	above := policyAbove(filepath.Join(dir, runner.DefaultConfig), "")
	if above == "" {
		return ""
	}
	above = relToHere(above)
	return fmt.Sprintf("there is no %s in %q, but %q above it holds one: this audit reads neither that policy nor its baseline; "+
		"to audit that repository, give --dir %q (and PATHs to narrow it)", runner.DefaultConfig, dir, above, above)
}

// repositoryInPath is the progress line of an audit that reads no policy
// file and no baseline, as repositoryAbove's, where one of its PATHs
// holds a .vigiles.yml of its own: a repository kept inside another (the
// bundled example, audited from the root of a vigiles checkout as
// vigiles audit examples), whose hooks the audit runs without that
// policy and compares with nothing, though its own baseline may lie
// beside it. It names the first such PATH and the --dir that audits it
// with them; "" otherwise.
func repositoryInPath(dir, config, baseline string, paths []string) string {
	if len(paths) == 0 || !readsNoPolicy(dir, config, baseline) {
		return ""
	}
	for _, p := range paths {
		// A PATH outside the work tree is refused, and one that is the
		// work tree itself is this repository.
		q := inDir(dir, p)
		ad, err1 := filepath.Abs(dir)
		aq, err2 := filepath.Abs(q)
		if rel, in := relInside(ad, aq); err1 != nil || err2 != nil || !in || rel == "." {
			continue
		}
		if fi, err := os.Stat(filepath.Join(q, runner.DefaultConfig)); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		q = relToHere(q)
		return fmt.Sprintf("there is no %s in %q, but %q, a PATH of this audit, holds one: this audit reads neither that policy nor its baseline; "+
			"to audit that repository, give --dir %q", runner.DefaultConfig, dir, p, q)
	}
	return ""
}

// readsNoPolicy says whether an audit of dir reads no policy file (config
// "", the default, not there) and no baseline (baseline the default and
// not there, or "", none).
func readsNoPolicy(dir, config, baseline string) bool {
	if config != "" || (baseline != "" && baseline != defaultBaseline) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, runner.DefaultConfig)); !errors.Is(err, os.ErrNotExist) {
		return false
	}
	if _, err := os.Lstat(inDir(dir, baseline)); baseline != "" && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	return true
}

// relToHere is p relative to the current directory, where it can be made
// so, as a flag the user is told to give reads it; p otherwise.
func relToHere(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil {
			return rel
		}
	}
	return p
}

// checkOutputFlag refuses, as bad usage, an --output that names a file
// the run reads: the policy file (config, "" for the default) or an
// audit's baseline (baseline, relative to dir; "" for none, and for
// test; given: --baseline named it), the default baseline where there is
// none, and any vigiles baseline. The report would replace it (or be
// made where it is not there yet), and the write succeeds: the next run
// would read a report where its policy was, or where its baseline was
// (after --update-baseline, the very baseline this audit wrote). The
// output is relative to the current directory, as the shell's > is.
func checkOutputFlag(name, output, config, dir, baseline string, given bool) error {
	if output == "" {
		return nil
	}
	policy := fmt.Sprintf("the policy file --config %q names", config)
	if config == "" {
		config, policy = runner.DefaultConfig, fmt.Sprintf("the policy file, %s", runner.DefaultConfig)
	}
	// Absolute, so that a file not there yet is the same path however
	// each is spelled.
	same := func(p string) bool {
		a, err1 := filepath.Abs(output)
		b, err2 := filepath.Abs(p)
		return err1 == nil && err2 == nil && sameFile(a, b)
	}
	if same(inDir(dir, config)) {
		return fmt.Errorf("%s: --output %q is %s, where vigiles reads its policy: name a file of its own for the report, such as vigiles-report.json", name, output, policy)
	}
	if baseline != "" && same(inDir(dir, baseline)) {
		named := fmt.Sprintf("the baseline --baseline %q names", baseline)
		if !given {
			named = fmt.Sprintf("the baseline, %s (the default; --baseline names another)", baseline)
		}
		return fmt.Errorf("%s: --output %q is %s, where the audit reads its baseline and --update-baseline writes it: name a file of its own for the report, such as vigiles-report.json", name, output, named)
	}
	if baseline == "" && same(inDir(dir, defaultBaseline)) {
		// vigiles test, or an audit that compares with nothing: the
		// report would stand where the next audit looks for its
		// baseline.
		return fmt.Errorf("%s: --output %q is the baseline vigiles audit reads by default, %s: name a file of its own for the report, such as vigiles-report.json", name, output, defaultBaseline)
	}
	return notOverBaseline(name, output)
}

// notOverBaseline refuses, as bad usage, a report's output that is a
// vigiles baseline already: a baseline named elsewhere, which the report
// would replace.
func notOverBaseline(name, output string) error {
	if !runner.HoldsBaseline(output) {
		return nil
	}
	return fmt.Errorf("%s: --output %q is a vigiles baseline, which the report would replace: name a file of its own for the report, such as vigiles-report.json", name, output)
}

// inDir is p relative to the directory dir, where it is not absolute.
func inDir(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// leadsOut says whether p, a path in the work tree dir, leads out of it
// through a symbolic link of the tree's.
func leadsOut(dir, p string) bool {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return false
	}
	if _, in := relInside(ad, ap); !in {
		return false
	}
	rd, err1 := filepath.EvalSymlinks(ad)
	rp, err2 := filepath.EvalSymlinks(ap)
	if err1 != nil || err2 != nil {
		return false
	}
	_, in := relInside(rd, rp)
	return !in
}

// sameFile says whether the paths a and b name one file: the same file
// where both are there (through links, or two spellings), else the same
// path.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// maxReportFile bounds a report file merge reads.
const maxReportFile = 256 << 20

func readReport(path string) (*report.Report, error) {
	r, err := readReportFile(path, true)
	// The file's bytes, as large as its write records, are garbage now:
	// collected here, the next report and the merged one are made in
	// their place, not beside them (docs/performance.md, "Through vigiles
	// merge").
	runtime.GC()
	return r, err
}

// readReportFile is readReport but for the collection after it; lean
// says whether to try decodeLean first, or decode the file whole (as its
// tests compare with).
func readReportFile(path string, lean bool) (*report.Report, error) {
	// O_NONBLOCK: a FIFO matched by a glob must not hang the merge.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	} else if fi.IsDir() {
		// reports/ where the shards' artifacts were downloaded: each
		// in a directory of its own.
		return nil, fmt.Errorf("report %q is a directory, not a report file: name the report files in it (%q)", path, filepath.Join(path, "*.json"))
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("report %q is not a regular file", path)
	}
	// Read into a buffer of the file's size, not one grown by doubling.
	var buf bytes.Buffer
	buf.Grow(int(min(fi.Size(), maxReportFile)) + bytes.MinRead)
	if _, err := buf.ReadFrom(io.LimitReader(f, maxReportFile+1)); err != nil {
		return nil, fmt.Errorf("reading report: %w", err)
	}
	data := buf.Bytes()
	if len(data) > maxReportFile {
		return nil, fmt.Errorf("report %q is larger than the %d MiB merge reads", path, maxReportFile>>20)
	}
	notReport := func(off int64, what string) error {
		line, col := textPos(data, off)
		return fmt.Errorf("%q is not a vigiles report (the vigiles.report/v1 JSON document test and audit write with --format json): at line %d, column %d, %s",
			path, line, col, what)
	}
	if what := otherDocument(data); what != "" {
		return nil, notReport(0, what)
	}
	var r report.Report
	if !lean || !decodeLean(data, &r) {
		// Decoded whole, for the error the whole document gives.
		if err := decodeWhole(data, &r, path, notReport); err != nil {
			return nil, err
		}
	}
	if string(bytes.TrimSpace(data)) == "null" {
		// null decodes into the report as nothing at all: no object.
		return nil, notReport(int64(len(data)-len(bytes.TrimLeft(data, " \t\r\n"))), "a JSON null, where the report's object belongs")
	}
	if r.Schema == "" {
		return nil, notReport(0, `a JSON object without the "schema": "`+report.Schema+`" of a report`)
	}
	// A report test or audit wrote lists its runs and its findings, []
	// where there are none. Without them the file says nothing was
	// recorded, and merged it would pass as runs that found nothing.
	for _, l := range []struct {
		key  string
		none bool
	}{{"runs", r.Runs == nil}, {"findings", r.Findings == nil}} {
		if l.none {
			return nil, notReport(0, fmt.Sprintf(`a JSON object without the %q list of a report ([] where there are none): a document cut down, or written by hand`, l.key))
		}
	}
	return &r, nil
}

// decodeLean decodes data, a report's bytes, into r as json.Unmarshal
// decodes a report.Report, each run's write record by
// evidence.UnmarshalWrites, and says whether it did. A record of a
// million entries decoded by encoding/json allocates gigabytes where the
// list holds a hundred MiB (docs/performance.md, "Through vigiles
// merge"); json.Unmarshal also reads data where it is, where a Decoder
// copies it. Where it did not (data is no single JSON document of a
// report's shape), r is as it was, and the caller decodes data whole
// (decodeWhole) for the error that gives.
func decodeLean(data []byte, r *report.Report) bool {
	type leanRun struct {
		*report.HookRun
		Writes writeList `json:"writes"` // over HookRun's, by depth
	}
	var v struct {
		*report.Report
		Runs []leanRun `json:"runs"` // over Report's
	}
	v.Report = new(report.Report)
	if json.Unmarshal(data, &v) != nil {
		return false
	}
	*r = *v.Report
	if v.Runs != nil {
		r.Runs = make([]report.HookRun, len(v.Runs))
	}
	for i, run := range v.Runs {
		if run.HookRun != nil {
			r.Runs[i] = *run.HookRun
		}
		if run.Writes.given {
			r.Runs[i].Writes = run.Writes.writes
		}
	}
	return true
}

// writeList is a run's write record as decodeLean decodes it, and
// whether the document gave one (its absence leaves the run's nil).
type writeList struct {
	writes []evidence.Write
	given  bool
}

func (l *writeList) UnmarshalJSON(b []byte) error {
	ws, err := evidence.UnmarshalWrites(b)
	l.writes, l.given = ws, true
	return err
}

// decodeWhole decodes data, a report's bytes, into r with encoding/json,
// and says where and why it is no report: notReport names the line and
// column of an offset.
func decodeWhole(data []byte, r *report.Report, path string, notReport func(int64, string) error) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(r); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return notReport(se.Offset-1, se.Error())
		case errors.As(err, &te) && te.Field == "":
			return notReport(te.Offset-1, "a JSON "+te.Value+", where the report's object belongs")
		case errors.As(err, &te):
			return notReport(te.Offset-1, fmt.Sprintf("a JSON %s where %s belongs (%s)", te.Value, te.Field, jsonKind(te.Type)))
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			return notReport(int64(len(data)), "the file ends before its JSON document does")
		}
		return fmt.Errorf("%q is not a vigiles report: %w", path, err)
	}
	// One document and nothing after it: a file with more is not what
	// vigiles wrote (a truncated copy, two reports pasted together).
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		rest := data[end:]
		line, col := textPos(data, end+int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))))
		return fmt.Errorf("report %q has more after its JSON document (at line %d, column %d); a report file holds exactly one", path, line, col)
	}
	return nil
}

// given is whether a JSON value other than null was given: otherDocument
// asks only that of a document's runs, which a report's write records
// make large, and encoding/json would decode whole as an any.
type given bool

func (g *given) UnmarshalJSON(b []byte) error {
	*g = string(b) != "null"
	return nil
}

// otherDocument names the document data is, where it is one of the
// others vigiles writes (a baseline, a run's result, doctor's report, a
// SARIF log: files a glob of reports may match) or another schema: as
// a report, its fields would be of the wrong kinds, and the error would
// name a field, not the file's mistake. "" for anything else.
func otherDocument(data []byte) string {
	var probe struct {
		Schema  *string `json:"schema"`
		Version any     `json:"version"`
		Runs    given   `json:"runs"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return ""
	}
	if probe.Schema == nil {
		if probe.Version == annotate.SARIFVersion && probe.Runs {
			return "a SARIF log (--format sarif)"
		}
		return ""
	}
	switch schema := *probe.Schema; {
	case schema == report.Schema:
		return ""
	case strings.HasPrefix(schema, "vigiles.baseline/"):
		return fmt.Sprintf("a vigiles baseline (%q), which audit reads with --baseline", schema)
	case schema == sandbox.ResultSchema:
		return fmt.Sprintf("the result of vigiles run --json (%q)", schema)
	case schema == sandbox.DoctorSchema:
		return fmt.Sprintf("the report of vigiles doctor --json (%q)", schema)
	default:
		if r := []rune(schema); len(r) > 80 {
			schema = string(r[:80]) + "…"
		}
		return fmt.Sprintf("a JSON object whose \"schema\" is %q, not %q", schema, report.Schema)
	}
}

// jsonKind names, in JSON's words, what a report's field of Go type t
// holds, for a merge error a user reads: "a list", "an object", not
// "[]report.Finding".
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "another kind of value"
}

// textPos is the 1-based line and column (in runes) of byte off of data.
func textPos(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return line, col
}

// textOut is stdout for a report in format: ownText's for the text
// report, stdout itself for JSON and SARIF, whose strings hold a U+A789
// as data.
func textOut(format string, stdout io.Writer, getenv func(string) string) io.Writer {
	if format != "text" {
		return stdout
	}
	return ownText(stdout, getenv)
}

// finishReport writes the report in the asked format and maps the verdict
// to the exit status.
func finishReport(name string, rep *report.Report, runErr error, format, output string, stdout, stderr io.Writer) error {
	if rep == nil {
		if runErr == nil {
			runErr = errors.New("no report")
		}
		code := 125
		if isUsageMistake(runErr) {
			code = 2
		}
		return exitWith(code, withConfigHint(namedFor(name, runErr), "--config", ""))
	}
	if runErr != nil && rep.Verdict != report.VerdictError {
		// The command fails (125) whatever the findings are: the report
		// says error, as the exit status does, never pass. A shallow
		// copy, as the action's summaries take it.
		errored := *rep
		errored.Verdict = report.VerdictError
		rep = &errored
	}
	// The JSON report is written as it is made, its write records an
	// entry at a time (listedJSON): a hook that made a million files has a
	// million-entry record, which the report then holds once, not several
	// times over (docs/performance.md). The other formats are made whole.
	var buf bytes.Buffer
	var doc *listedJSON
	var err error
	var st annotate.SARIFStats
	switch format {
	case "json":
		doc, err = reportJSON(rep, false)
	case "sarif":
		if renderSARIF == nil {
			err = errors.New("sarif output not available")
		} else {
			st, err = renderSARIF(rep, &buf)
		}
	default:
		// Made inert wherever it goes, a file too: the text is for
		// people, who may cat the file in a later step of the job, and
		// "#·#[" reads as "##[" does (a name a plugin chose, a file
		// called "##[error]x", would be a command there).
		il := annotate.NewInertLines(&buf)
		writeTextReportOf(il, rep, runErr)
		il.Close()
	}
	if err != nil {
		return exitWith(125, fmt.Errorf("%s: writing the %s report: %w", name, format, err))
	}
	if output != "" {
		// Into a directory that is there: a mistyped path makes no
		// directories (cannotCreateReport said so before anything ran).
		// A report that was there stays whole when this one cannot be
		// written, unless it had to be written in place (replaceFile).
		write := func(w io.Writer) error {
			if doc != nil {
				return doc.write(w, false)
			}
			_, err := w.Write(buf.Bytes())
			return err
		}
		if err := replaceFile(output, write); err != nil {
			var cut *cutError
			if errors.As(err, &cut) {
				return exitWith(125, fmt.Errorf("%s: --output %s was not written whole (it was written in place, so what was there may be cut): %w", name, output, err))
			}
			return exitWith(125, fmt.Errorf("%s: --output %s was not written (a file there is left as it was): %w", name, output, err))
		}
	} else {
		// On stdout the report may land in a GitHub step log: text the
		// hooks chose (output, file and host names) must not act as a
		// workflow command there, nor as a compiler's error to a problem
		// matcher (clean, labelColon; NoMatchJSON). JSON keeps its data
		// exactly. The text report is inert already.
		var err error
		switch {
		case doc != nil:
			err = doc.write(stdout, true)
		case format == "sarif":
			_, err = stdout.Write(annotate.NoMatchJSON(annotate.InertJSON(buf.Bytes())))
		default:
			_, err = stdout.Write(buf.Bytes())
		}
		if err != nil {
			return exitWith(125, fmt.Errorf("%s: writing the report to stdout: %w", name, err))
		}
	}
	// Code scanning never says what a SARIF leaves out: said here, as the
	// action says it in the step's log.
	if format == "sarif" {
		where := output
		if where == "" {
			where = "the SARIF on stdout"
		}
		if note := sarifNote(st, where, "the JSON report (--format json) has every finding"); note != "" {
			printNote(stderr, note)
		}
	}
	if runErr != nil {
		return exitWith(125, namedFor(name, runErr))
	}
	switch rep.Verdict {
	case report.VerdictPass:
		return nil
	case report.VerdictFail:
		return exitWith(1, nil)
	}
	return exitWith(125, nil)
}

// namedFor puts the command's name before err, an error of its work, as
// every error the CLI prints begins ("audit: ..."), unless err's text
// begins with it already. The runner's "audit interrupted (SIGINT)",
// which names the command its own way, is said "audit: interrupted
// (SIGINT)", not "audit: audit interrupted".
func namedFor(command string, err error) error {
	msg := err.Error()
	if strings.HasPrefix(msg, command+": ") {
		return err
	}
	if rest, ok := strings.CutPrefix(msg, command+" "); ok {
		return hinted{msg: command + ": " + rest, err: err}
	}
	return fmt.Errorf("%s: %w", command, err)
}

// clean makes untrusted text safe for a terminal: control characters
// (escape sequences, carriage returns, bidi overrides) are shown as
// escapes, and the text is cut to max runes, a closing "…" among them. For a GitHub step log, each
// ':' is an annotate.Colon (see annotate.NoMatch), so that a plugin named
// "./main.go:1:1: approved" is no compiler's error to a problem matcher;
// the reports' layout does the rest (labelColon, and no two lines in a
// row that start with such text: writeEvidence, writeAuditText).
//
// A backslash stays one: clean is for free text, a message or a reason
// that quotes names in Go syntax ("p\xff" for the byte), evidence that
// is a hook's JSON ("a\nb"), where a backslash doubled would misquote
// them. A name is shown with cleanName.
func clean(s string, max int) string { return cleanAs(s, max, false) }

// cleanName is clean for a name a plugin or a report chose (a plugin, an
// event, a tool, a check, a rule), shown alone: each backslash of it is
// shown as "\\", so that a name spelt p\xff, four characters, reads apart
// from p and the byte 0xff, which clean shows as \xff, and p\u202e from a
// bidi override.
func cleanName(s string, max int) string { return cleanAs(s, max, true) }

// cleanAs is clean, or cleanName where name is true.
func cleanAs(s string, max int, name bool) string {
	// Each character as it is shown, an escape's width and all: the cut
	// counts what is shown, the "…" among it, so that a table's column,
	// padded by runes, stays in line.
	var shown []string
	width := 0
	for i, r := range s {
		p := shownAt(s, i, r, name)
		shown = append(shown, p)
		if width += utf8.RuneCountInString(p); width > 4*max+4 {
			break // enough to know it is cut
		}
	}
	if width <= max {
		return strings.Join(shown, "")
	}
	var b strings.Builder
	n := 0
	for _, p := range shown {
		w := utf8.RuneCountInString(p)
		if n+w > max-1 {
			break
		}
		b.WriteString(p)
		n += w
	}
	b.WriteString("…")
	return b.String()
}

// cleanMiddle is clean for a finding's message, whose end says what to
// do: past max it is cut in its middle (textcut.MiddleMarker), a third of
// what it keeps from its start and the rest from its end, counted as
// clean counts, where a cut from the end left a long name at its start
// and lost the fix (TestTextReportKeepsMessagesWhole).
func cleanMiddle(s string, max int) string {
	keep := max - utf8.RuneCountInString(textcut.MiddleMarker)
	width := 0
	for i, r := range s {
		if width += utf8.RuneCountInString(shownAt(s, i, r, false)); width > max {
			break
		}
	}
	if width <= max || keep < 3 {
		return clean(s, max)
	}
	var b strings.Builder
	n, headEnd := 0, 0
	for i, r := range s {
		p := shownAt(s, i, r, false)
		w := utf8.RuneCountInString(p)
		if n+w > keep/3 {
			headEnd = i
			break
		}
		b.WriteString(p)
		n += w
	}
	b.WriteString(textcut.MiddleMarker)
	var tail []string
	for j := len(s); j > headEnd; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		p := shownAt(s, j-size, r, false)
		w := utf8.RuneCountInString(p)
		if n+w > keep {
			break
		}
		tail = append(tail, p)
		n += w
		j -= size
	}
	for i := len(tail) - 1; i >= 0; i-- {
		b.WriteString(tail[i])
	}
	return b.String()
}

// shownRune is how clean shows r, and cleanName where name is true: as
// shownAt shows it where it is a whole character.
func shownRune(r rune, name bool) string { return shownAt(string(r), 0, r, name) }

// shownAt is how clean shows the character of s at byte i, r as ranging
// over s gives it, and cleanName where name is true: as shownControls
// does (evidence.Escape: a byte that is not UTF-8 is itself, \xff, so
// that p\xff and p\xfe read as two, and neither as a U+FFFD's \ufffd),
// but for a ':', a line feed, a tab and a name's backslash, which a
// report's one-line fields show otherwise.
func shownAt(s string, i int, r rune, name bool) string {
	switch {
	case r == ':':
		return annotate.Colon
	case string(r) == annotate.Colon:
		// One a plugin chose: never read as a ':' where ownText
		// makes vigiles' own Colons ':' again.
		return `\ua789`
	case r == '\\' && name:
		return `\\`
	case r == '\n':
		return `\n`
	case r == '\t':
		return " "
	}
	if esc, ok := evidence.Escape(s, i, r); ok {
		return esc
	}
	return string(r)
}

// listText joins the first of total items for a line of the text report,
// cleaned, at most max characters shown: as many whole items as fit, the
// next one cut where there is room for its start (a process's command
// line shows what it runs), then how many more there are ("+412 more").
// The count is never what the cut takes: a run's 415 writes under long
// paths read as two paths and an "…", as if it wrote about two files.
func listText(items []string, total, max int, name bool) string {
	if len(items) == 0 {
		return ""
	}
	more := func(k int) string {
		if k >= total {
			return ""
		}
		return fmt.Sprintf(", +%d more", total-k)
	}
	k, width := 0, 0
	for i, it := range items {
		w := 0
		for _, r := range it {
			if w += utf8.RuneCountInString(shownRune(r, name)); w > max {
				break
			}
		}
		if i > 0 {
			w += len(", ")
		}
		if width+w+len(more(i+1)) > max {
			break
		}
		k, width = i+1, width+w
	}
	s := strings.Join(items[:k], ", ")
	if k == len(items) {
		return cleanAs(s+more(k), max, name)
	}
	room := max - width - len(more(k+1))
	if k > 0 {
		room -= len(", ")
	}
	if k > 0 && room < minCutItem {
		return cleanAs(s+more(k), max, name)
	}
	if k > 0 {
		s = cleanAs(s, max, name) + ", "
	}
	return s + cleanAs(items[k], room, name) + more(k+1)
}

// minCutItem is the fewest characters of an item listText shows cut
// after whole ones: fewer tell nothing.
const minCutItem = 16

// The words vigiles itself writes in the fields of a report that name one
// of a few things: a finding's severity, a run's tier and outcome, a drift
// entry's kind, what a run left where its env file goes. "" is one only
// where it stands in the middle of a line (a run that never started has no
// tier): an empty severity or kind would leave the text after it to start
// its line.
var (
	envFileKinds = []string{"symlink", "dir", "other"}
	severities   = []string{string(report.SeverityError), string(report.SeverityWarning), string(report.SeverityNotice)}
	tiers        = []string{"", string(sandbox.TierConfined), string(sandbox.TierDirect), string(sandbox.TierRefused)}
	outcomes     = []string{"", report.OutcomeAllowed, report.OutcomeBlocked, report.OutcomeError, report.OutcomeNotExecutable}
	driftKinds   = []string{runner.DriftHost, runner.DriftWrite, runner.DriftOutcome, runner.DriftEnv, runner.DriftDeclared,
		runner.DriftHookAdded, runner.DriftHookRemoved, runner.DriftContext, runner.DriftCommand, runner.DriftDecides,
		runner.DriftServerAdded, runner.DriftServerChanged, runner.DriftServerRemoved}
)

// ownWord is s where it is one of the words vigiles writes there (known),
// else s quoted and cleaned. A report that vigiles merge
// reads may come from a fork's run, which uploads what it likes, so even
// these fields hold text someone else chose; printed as it is, such text
// would start a line of the text report ("  raise X('forged')" under a
// message line `File "a.py", line 1, in x` is setup-python's problem
// matcher's error) or finish a compiler's error after a ':' of vigiles'
// own. Quoted, it starts with '"', which no matcher's pattern does.
func ownWord(s string, known []string) string {
	if slices.Contains(known, s) {
		return s
	}
	return `"` + cleanName(s, 40) + `"`
}

// labelColon ends a label that text a plugin chose follows ("wrote꞉ "):
// with a ':' there, a name that starts "line 1, col 1, Error - x (y)"
// would complete setup-node's eslint-compact matcher. The ':' of loc,
// between a file and its line, stays: digits follow it.
const labelColon = annotate.Colon

func loc(l report.Location) string {
	// Quoted where it could read as another place (annotate.ShownFile).
	f := annotate.ShownFile(l.File)
	s := clean(f, 200)
	if l.Line > 0 {
		s += fmt.Sprintf(":%d", l.Line)
		if l.Column > 0 {
			s += fmt.Sprintf(":%d", l.Column)
		}
	}
	return s
}

func dur(ms float64) string {
	d := time.Duration(ms * float64(time.Millisecond))
	if d < time.Second {
		return report.ShortDuration(d.Round(time.Millisecond))
	}
	return report.ShortDuration(d.Round(10 * time.Millisecond))
}

func hostsText(r report.HookRun) string {
	if r.Outcome == report.OutcomeNotExecutable {
		return "-"
	}
	if r.Egress == nil {
		return "not recorded"
	}
	if len(r.Egress) == 0 {
		return "none"
	}
	seen := map[string]bool{}
	var hs []string
	for _, e := range r.Egress {
		h := annotate.CutHost(e.Dest(), 80)
		switch {
		case e.Allowed:
			h += " (allowed)"
		case e.AtLoopback():
			// No policy blocked it, none can allow it: the sandbox's
			// own loopback; the port is what it tried.
			how := "nothing answered"
			if e.Via == evidence.ViaProxy {
				how = "refused by the recording proxy"
			}
			h = evidence.WithPort(h, e.Port) + " (local, " + how + ")"
		default:
			h += " (blocked)"
		}
		if !seen[h] {
			seen[h] = true
			hs = append(hs, h)
		}
	}
	return listText(hs, len(hs), 160, true)
}

func writesText(r report.HookRun) string {
	if r.Outcome == report.OutcomeNotExecutable {
		return "-"
	}
	if r.Writes == nil {
		return "not recorded"
	}
	if len(r.Writes) == 0 {
		return "none"
	}
	var ps []string
	for i, w := range r.Writes {
		if i == 3 {
			break
		}
		// Quoted where it is odd (evidence.ShownName), as evidence lines
		// show it: names that differ only in bytes that are not UTF-8
		// would otherwise each show U+FFFD.
		p := evidence.ShownName(w.Path)
		if w.Kind == "dir" || w.Op == evidence.OpDelete && w.Was == "dir" {
			p += "/" // a directory: "plugin/", not a file named plugin
		}
		if w.Op == evidence.OpDelete {
			p = "deleted " + p
		}
		if w.From != "" {
			p += " (from " + evidence.ShownName(w.From) + ")" // renamed
		}
		ps = append(ps, p)
	}
	return listText(ps, len(r.Writes), 160, false)
}

// writeTextReport prints a report for people: a verdict line, what ran,
// and every finding with the place it points at.
func writeTextReport(w io.Writer, rep *report.Report) { writeTextReportOf(w, rep, nil) }

// writeTextReportOf is writeTextReport of the report of a command that
// failed with runErr (nil where it did not): its result line says why,
// as the error vigiles exits with does.
func writeTextReportOf(w io.Writer, rep *report.Report, runErr error) {
	counts := map[report.Severity]int{}
	for _, f := range rep.Findings {
		counts[f.Severity]++
	}
	verdict := map[string]string{report.VerdictPass: "PASS", report.VerdictFail: "FAIL", report.VerdictError: "ERROR"}[rep.Verdict]
	if verdict == "" {
		verdict = strings.ToUpper(cleanName(rep.Verdict, 20))
	}
	shard := ""
	if rep.Shard != "" {
		shard = " (shard " + cleanName(rep.Shard, 20) + ")"
	}
	switch rep.Command {
	case "test":
		writeTestText(w, rep, verdict, shard)
	default:
		writeAuditText(w, rep, verdict, shard)
	}
	if len(rep.Drift) > 0 {
		fmt.Fprintf(w, "\nChanged since the baseline (%d):\n", len(rep.Drift))
		for _, d := range rep.Drift {
			was, now := d.Shown()
			change := now
			if was != "" && now != "" {
				change = was + " → " + now
			} else if was != "" {
				change = was
			}
			fmt.Fprintf(w, "  %-13s %s  %s\n", ownWord(d.Kind, driftKinds), clean(change, 120), clean(d.Hook, 160))
		}
	}
	var shown []report.Finding
	shownCounts := map[report.Severity]int{}
	for _, f := range rep.Findings {
		if rep.Command == "test" && underCheck(rep, f) {
			continue // shown under their check
		}
		shown = append(shown, f)
		shownCounts[f.Severity]++
	}
	if len(shown) > 0 {
		sort.SliceStable(shown, func(i, j int) bool { return shown[i].Severity.Rank() > shown[j].Severity.Rank() })
		// The header counts what it lists; the failed expectations are
		// counted where they are listed, under their checks.
		title, note := "Findings", ""
		if n := len(rep.Findings) - len(shown); n > 0 {
			title, note = "Other findings", fmt.Sprintf("; the %d failed expectation(s) are listed under their checks above", n)
		}
		fmt.Fprintf(w, "\n%s (%d error, %d warning, %d notice%s):\n", title,
			shownCounts[report.SeverityError], shownCounts[report.SeverityWarning], shownCounts[report.SeverityNotice], note)
		for _, f := range shown {
			fmt.Fprintf(w, "  %-7s %s  %s\n          %s\n", ownWord(string(f.Severity), severities), loc(f.Location), cleanName(f.Rule, 60), cleanMiddle(f.Message, maxMessageRunes))
		}
	}
	fmt.Fprintln(w)
	switch {
	case runErr != nil:
		// Whatever the verdict: the command exits 125.
		fmt.Fprintf(w, "Result: ERROR — %s.\n", cleanMiddle(strings.TrimSuffix(namedFor(cleanName(rep.Command, 20), runErr).Error(), "."), maxMessageRunes))
	case rep.Verdict == report.VerdictPass:
		fmt.Fprintln(w, "Result: PASS.")
	case rep.Verdict == report.VerdictFail:
		fmt.Fprintf(w, "Result: FAIL — %d error finding(s). Each points at the file and line to look at.\n", counts[report.SeverityError])
	default:
		fmt.Fprintln(w, "Result: ERROR — vigiles could not run some hooks (see run/refused, run/failed, run/interrupted or plan/too-many-runs above).")
	}
}

// tooManyRunsText is the headline of a report of no run, for a plan of
// more runs than --max-runs (plan/too-many-runs, whose finding says how
// many, and what to do).
const tooManyRunsText = "no hook was run: more runs were planned than --max-runs allows (" + runner.RuleTooManyRuns + ", below)"

func writeTestText(w io.Writer, rep *report.Report, verdict, shard string) {
	type check struct {
		name  string
		runs  []report.HookRun
		fails []report.Finding
	}
	byName := map[string]*check{}
	var order []string
	for _, r := range rep.Runs {
		c := byName[r.Check]
		if c == nil {
			c = &check{name: r.Check}
			byName[r.Check] = c
			order = append(order, r.Check)
		}
		c.runs = append(c.runs, r)
	}
	runCheck := map[string]string{}
	for _, r := range rep.Runs {
		runCheck[r.ID] = r.Check
	}
	for _, f := range rep.Findings {
		if underCheck(rep, f) {
			byName[runCheck[f.Hook]].fails = append(byName[runCheck[f.Hook]].fails, f)
		}
	}
	// A check whose run was refused or failed was never checked: it is
	// not ok, whatever it did not get to break.
	mark := func(c *check) string {
		if len(c.fails) > 0 {
			return "FAIL"
		}
		for _, r := range c.runs {
			if r.Tier == string(sandbox.TierRefused) || r.Outcome == report.OutcomeError && !r.TimedOut {
				return "ERR "
			}
		}
		return "ok  "
	}
	failed, notRun := 0, 0
	for _, c := range byName {
		switch mark(c) {
		case "FAIL":
			failed++
		case "ERR ":
			notRun++
		}
	}
	if len(rep.Runs) == 0 && hasRule(rep, runner.RuleTooManyRuns) {
		// "0 check run(s), 0 failed" would read as checks that passed.
		fmt.Fprintf(w, "vigiles test%s: %s — %s\n", shard, tooManyRunsText, verdict)
		return
	}
	fmt.Fprintf(w, "vigiles test%s: %d check run(s), %d failed", shard, len(order), failed)
	if notRun > 0 {
		fmt.Fprintf(w, ", %d could not run", notRun)
	}
	fmt.Fprintf(w, " — %s%s\n", verdict, otherErrors(rep, failed))
	if len(order) > 0 {
		// A blank line before the checks; with none, the findings'
		// own blank line follows the headline.
		fmt.Fprintln(w)
	}
	for _, name := range order {
		c := byName[name]
		fmt.Fprintf(w, "%s %s\n", mark(c), cleanName(name, 200))
		for _, r := range c.runs {
			fmt.Fprintf(w, "       %s %s%s via %s (%s): %s", cleanName(r.Plugin, 80), cleanName(r.Event, 60), toolText(r.Tool), loc(r.Location), orNone(ownWord(r.Tier, tiers)), ownWord(r.Outcome, outcomes))
			if r.Reason != "" {
				fmt.Fprintf(w, " — %s", clean(r.Reason, 200))
			}
			fmt.Fprintf(w, ", %s\n", dur(r.DurationMs))
		}
		for _, f := range c.fails {
			fmt.Fprintf(w, "       ✗ %s  %s\n", loc(f.Location), cleanMiddle(f.Message, maxMessageRunes))
			// A stream's own expectation quotes the pattern, not what
			// the hook printed, which a short output ("ok", in
			// "want stdout to match ^ok$") only seems to be part of.
			if f.Evidence != "" && (streamRule(f.Rule) || !allLinesIn(f.Evidence, f.Message)) {
				writeEvidence(w, f.Evidence)
			}
		}
	}
}

// otherErrors says, for the headline of a test report that fails, the
// error findings that are no failed expectation (a malformed declaration
// discovery found, a mistake in .vigiles.yml), which fail it too:
// ": 1 error finding(s)" where no check failed, else ", and 1 other
// error finding(s)"; "" where there are none, or the verdict is another.
func otherErrors(rep *report.Report, failed int) string {
	if rep.Verdict != report.VerdictFail {
		return ""
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError && !underCheck(rep, f) {
			n++
		}
	}
	switch {
	case n == 0:
		return ""
	case failed == 0:
		return fmt.Sprintf(": %d error finding(s), listed below", n)
	}
	return fmt.Sprintf(", and %d other error finding(s), listed below", n)
}

// underCheck says whether a finding of a test report is a failed
// expectation of one of its runs, which the text report lists under the
// run's check.
func underCheck(rep *report.Report, f report.Finding) bool {
	if !strings.HasPrefix(f.Rule, runner.RuleExpectPrefix) || f.Hook == "" {
		return false
	}
	for _, r := range rep.Runs {
		if r.ID == f.Hook {
			return true
		}
	}
	return false
}

// maxMessageRunes bounds a finding's message in the text report. vigiles
// writes messages that say what to do at their end (discovery/no-hooks
// lists where it looked, then the fix): the bound keeps them whole and
// still cuts a message that quotes pages of a hook's text, in its middle
// (cleanMiddle).
const maxMessageRunes = 1000

// Bounds of the evidence shown under a failed expectation.
const (
	maxEvidenceLines    = 12
	maxEvidenceLineRune = 300
)

// writeEvidence prints a finding's evidence one line per line, indented
// under "evidence:", each line cleaned (the hook chose its text) and the
// whole cut to maxEvidenceLines. A line after the first starts with a "|"
// of vigiles' own: two lines that start with a hook's text, `File "a.py",
// line 1, in x` then "raise X('approved')", would be an error annotation
// of setup-python's problem matcher.
func writeEvidence(w io.Writer, ev string) {
	lines := strings.Split(strings.TrimRight(ev, "\n"), "\n")
	const indent = "         "
	label := indent + "evidence" + labelColon + " "
	for i, l := range lines {
		if i == maxEvidenceLines {
			fmt.Fprintf(w, "%s%*s… %d more line(s) in the JSON report\n", indent, len("evidence: "), "", len(lines)-i)
			break
		}
		fmt.Fprintf(w, "%s%s\n", label, clean(l, maxEvidenceLineRune))
		label = indent + strings.Repeat(" ", len("evidence")) + "| "
	}
}

// baselineRuns counts the runs of rep, the audit --update-baseline wrote
// a baseline of, as its progress and its report's first line count them:
// the hooks listed but not run (http, prompt, …), which the baseline
// keeps too, apart ("7 run(s), 1 listed but not run"), so that the line
// after "7 hook run(s) planned" does not say 8.
func baselineRuns(rep *report.Report) string {
	listed := rep.Listed()
	if listed == 0 {
		return fmt.Sprintf("%d run(s)", len(rep.Runs))
	}
	return fmt.Sprintf("%d run(s), %d listed but not run", len(rep.Runs)-listed, listed)
}

func writeAuditText(w io.Writer, rep *report.Report, verdict, shard string) {
	plugins := map[string]bool{}
	for _, r := range rep.Runs {
		plugins[r.Plugin] = true
	}
	listed := rep.Listed() // declared hooks vigiles does not run (http, prompt, …)
	what := "audit"
	if rep.Command != "audit" {
		what = cleanName(rep.Command, 20)
	}
	// The progress lines count runs; say the listed hooks apart so the
	// two counts agree.
	ran := fmt.Sprintf("%d hook run(s)", len(rep.Runs)-listed)
	if listed > 0 {
		ran += fmt.Sprintf(", %d listed but not run,", listed)
	}
	if len(rep.Runs) == 0 && hasRule(rep, runner.RuleTooManyRuns) {
		// "0 hook run(s) across 0 plugin(s)" would read as a tree
		// without hooks.
		fmt.Fprintf(w, "vigiles %s%s: %s — %s\n", what, shard, tooManyRunsText, verdict)
		return
	}
	fmt.Fprintf(w, "vigiles %s%s: %s across %d plugin(s) — %s\n\n", what, shard, ran, len(plugins), verdict)
	if len(rep.Runs) == 0 {
		// Where discovery looks is the discovery/no-hooks finding's to
		// say (among the findings below), in one place.
		fmt.Fprintln(w, "No hook was run.")
		return
	}
	fmt.Fprintf(w, "%-18s %-18s %-10s %-9s %-15s %-8s  %s\n", "PLUGIN", "EVENT", "TOOL", "TIER", "OUTCOME", "TIME", "HOSTS TRIED / FILES WRITTEN")
	for _, r := range rep.Runs {
		fmt.Fprintf(w, "%-18s %-18s %-10s %-9s %-15s %-8s  hosts"+labelColon+" %s\n", cleanName(r.Plugin, 18), cleanName(r.Event, 18), orDash(cleanName(r.Tool, 10)), orDash(ownWord(r.Tier, tiers)), ownWord(r.Outcome, outcomes), dur(r.DurationMs), hostsText(r))
		// "at": a row and the line under it both starting with names a
		// plugin chose could make setup-python's two-line pattern.
		fmt.Fprintf(w, "%-84s  wrote"+labelColon+" %s\n", "  at "+loc(r.Location), writesText(r))
		if len(r.Lingered) > 0 {
			// A run that timed out was ended with what it started: those
			// ran beside it at the deadline (report-format.md), they did
			// not outlive it.
			label := "outlived the hook"
			if r.TimedOut {
				label = "running at the deadline"
			}
			fmt.Fprintf(w, "%-84s  %s"+labelColon+" %s\n", "", label, listText(r.Lingered, len(r.Lingered), 160, false))
		}
		if t := envFileText(r); t != "" {
			fmt.Fprintf(w, "%-84s  env file"+labelColon+" %s\n", "", t)
		}
	}
	for _, r := range rep.Runs {
		if r.Outcome != report.OutcomeNotExecutable && (r.Writes == nil || r.Egress == nil) {
			fmt.Fprintln(w, "\n\"not recorded\" means the run was direct (trusted code in auto mode, or --sandbox off), was refused,")
			fmt.Fprintln(w, "failed, was interrupted or never started, or the egress layer is not available: vigiles does not claim")
			fmt.Fprintln(w, "what it did not see.")
			break
		}
	}
}

func toolText(t string) string {
	if t == "" {
		return ""
	}
	return " " + cleanName(t, 60)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "not run"
	}
	return s
}

// streamRule says whether rule is a failed expectation over a stream or
// the env file, whose evidence is what the hook printed or left.
func streamRule(rule string) bool {
	kind := strings.TrimPrefix(rule, runner.RuleExpectPrefix)
	return kind != rule && (strings.HasPrefix(kind, "stdout-") || strings.HasPrefix(kind, "stderr-") || strings.HasPrefix(kind, "env-file-"))
}

// allLinesIn says whether every line of ev already appears in msg.
func allLinesIn(ev, msg string) bool {
	for _, l := range strings.Split(strings.TrimSpace(ev), "\n") {
		if !strings.Contains(msg, l) {
			return false
		}
	}
	return true
}

// envFileText says what a run left in CLAUDE_ENV_FILE, for the inventory;
// "" when there is nothing to say (no env file for its event, or nothing
// left in it).
func envFileText(r report.HookRun) string {
	ef := r.EnvFile
	switch {
	case ef == nil || r.Outcome == report.OutcomeNotExecutable:
		return ""
	case ef.Content == nil:
		return "not recorded"
	case ef.Kind == "file" && ef.Size > 0:
		// Its first line, cleaned: an accepted env file has no finding to
		// point at, and the JSON report holds the rest.
		first, rest, _ := strings.Cut(strings.TrimRight(ef.Text(), "\n"), "\n")
		more := ""
		if n := strings.Count(rest, "\n") + 1; rest != "" || ef.Truncated {
			more = fmt.Sprintf(" (+%d more line(s) in the JSON report)", n)
			if rest == "" {
				more = " (more in the JSON report)"
			}
		}
		return fmt.Sprintf("%d byte(s) Claude Code runs before each Bash command"+labelColon+" %s%s", ef.Size, clean(first, 100), more)
	case ef.Kind != "file" && ef.Kind != "none":
		return "a " + ownWord(ef.Kind, envFileKinds) + " left where the file goes (not read)"
	}
	return ""
}
