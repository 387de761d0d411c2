package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"
	"github.com/spf13/pflag"

	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

func init() {
	subcommands["action"] = subcommand{
		summary: "run as a GitHub Actions step: read INPUT_* and report to GitHub",
		run:     cmdAction,
	}
}

const actionHelp = `vigiles action: the entry point of the vigiles GitHub Action.

It runs when the step environment says GITHUB_ACTIONS=true and takes its
options from the action's inputs, not from flags: input NAME is
INPUT_NAME upper-cased, its hyphens kept or made underscores
(INPUT_WORKING-DIRECTORY or INPUT_WORKING_DIRECTORY):

  command          test | audit | merge (default test); merge joins the
                   JSON reports of a sharded test or audit and reports
                   them once
  reports          merge: report files or globs, relative to the workspace,
                   one per line or comma-separated; merge runs no hooks,
                   and refuses sandbox, egress, allow, shard, jobs and
                   max-runs
  working-directory  the repository (or the part of it) to check, relative
                   to the workspace (default ., the workspace itself);
                   findings stay repository-relative
  config           policy file, relative to working-directory (default
                   .vigiles.yml)
  paths            directories to audit, relative to working-directory and
                   inside it, one per line or comma-separated (default:
                   working-directory)
  baseline         baseline file for audit, e.g. .vigiles/baseline.json,
                   relative to working-directory and inside the workspace;
                   unlike vigiles audit's --baseline it has no default:
                   empty compares with nothing
  update-baseline  true | false (default false): audit: write the baseline
                   from this run to the file baseline names (which it
                   needs); whole audits only: no shard, no paths
  sandbox          auto | strict | off; used as given when set, else the
                   policy file's, else auto, and audit turns that auto
                   into strict (auto set here lets an audit run trusted
                   code directly, unrecorded)
  egress           deny | record | allow (default: the policy file's)
  allow            hosts the hooks may reach, one per line or
                   comma-separated (implies egress allow); address ranges
                   go in the policy file's defaults.egress.allow-ip
  fail-level       none | notice | warning | error (default error)
  github-token     token for the check run (default ${{ github.token }}, the
                   job's own, which action.yml passes); it stays in this
                   process and never reaches a sandbox
  check-run        true | false (default true): annotate through a check
                   run on the pull request's head commit
  sarif            path to write SARIF 2.1.0 for code scanning, relative
                   to the workspace and inside it, where its symbolic
                   links lead too; what the file cannot hold (GitHub's
                   limits) is said in the log and the job summary
  shard            i/n: run one part of the work (a matrix job)
  max-runs         test and audit: the most hook runs to start, per shard
                   (default 10000); a plan of more runs none, reports
                   plan/too-many-runs and exits 125
  jobs             test and audit: hooks run at once (default: one per
                   core); 1 times each hook alone, as a hook with a short
                   timeout may need
  hook-logs        true | false (default false): print every hook's raw
                   stdout and stderr in the log, fenced so no line of it
                   runs as a workflow command; problem matchers of earlier
                   steps (setup-go, setup-node, …) still read those lines
                   and may make annotations of them. The JSON report holds
                   the output either way

action.yml's runtime and image inputs choose how this command is started
(the published image, or a build on the runner); it reads neither.

Outputs (GITHUB_OUTPUT): verdict, findings, failed, report (JSON path).
The JSON report is written to $RUNNER_TEMP/vigiles/ (without RUNNER_TEMP,
to vigiles/ in the working directory).

Example (what action.yml does; RUNNER_TEMP keeps the report out of the
checkout):
  GITHUB_ACTIONS=true RUNNER_TEMP=$(mktemp -d) INPUT_COMMAND=audit \
    INPUT_BASELINE=.vigiles/baseline.json INPUT_FAIL_LEVEL=error vigiles action

Exit status: 0 ok; 1 findings at or above fail-level (a hook that could
not be run confined is an error finding); 2 a bad input; 125 vigiles
itself failed (its report, the sarif file, reporting to GitHub, or the
baseline update-baseline asked for), ran nothing (more runs planned than
max-runs) or was interrupted (its reports are written).
`

// errBadInput marks an invalid action input (errors.Is); badInput
// errors carry it without saying so in their text.
var errBadInput = errors.New("bad action input")

// badInput is one invalid input, told as a sentence.
type badInput string

func (e badInput) Error() string        { return string(e) }
func (e badInput) Is(target error) bool { return target == errBadInput }

// badInputf makes a badInput.
func badInputf(format string, a ...any) error { return badInput(fmt.Sprintf(format, a...)) }

// actionDeps are what the action calls out to; tests replace them.
type actionDeps struct {
	test, audit func(context.Context, runner.Options) (*report.Report, error)
	// executor runs hooks; nil means the real sandbox.
	executor   runner.Executor
	httpClient *http.Client
	now        func() time.Time
	// environ lists the environment, for the INPUT_* variables no
	// input reads; nil means os.Environ.
	environ func() []string
}

var defaultActionDeps = actionDeps{test: runner.Test, audit: runner.Audit}

func cmdAction(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runActionWith(ctx, args, getenv, stdout, stderr, defaultActionDeps)
}

// actionInputs are the validated inputs.
type actionInputs struct {
	Command        string
	WorkDir        string
	Config         string
	Paths          []string
	Baseline       string
	UpdateBaseline bool
	Sandbox        sandbox.Mode
	Egress         *evidence.EgressPolicy
	FailLevel      annotate.FailLevel
	Token          string
	CheckRun       bool
	SARIF          string
	Shard          string
	MaxRuns        int // 0: runner.DefaultMaxRuns
	Jobs           int // 0: one per core
	Reports        []string
	HookLogs       bool
}

// actionInputNames are the inputs vigiles action reads (readInputs), in
// action.yml's order; action.yml's runtime and image are its own.
var actionInputNames = []string{
	"command", "reports", "working-directory", "config", "paths", "baseline", "update-baseline", "sandbox", "egress",
	"allow", "fail-level", "github-token", "check-run", "sarif", "shard", "max-runs", "jobs", "hook-logs",
}

// input reads INPUT_<NAME> as the runner sets it for a container action
// (upper case, hyphens kept) or with hyphens as underscores (what a
// composite action's shell can export), trimmed.
func input(getenv func(string) string, name string) string {
	up := strings.ToUpper(strings.ReplaceAll(name, " ", "_"))
	if v := getenv("INPUT_" + up); v != "" {
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(getenv("INPUT_" + strings.ReplaceAll(up, "-", "_")))
}

// sensitiveEnv are removed from this process's environment once read, so
// nothing started later inherits them even by mistake.
var sensitiveEnv = []string{
	"INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "GITHUB_TOKEN",
	"ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
}

// parseBool accepts what actions/toolkit's getBooleanInput accepts.
func parseBool(name, v string, def bool) (bool, error) {
	switch v {
	case "":
		return def, nil
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	// YAML 1.1's other words for a boolean reach the step as text.
	fix := ""
	switch strings.ToLower(v) {
	case "yes", "y", "on", "1":
		fix = ": set " + name + ": true"
	case "no", "n", "off", "0":
		fix = ": set " + name + ": false"
	}
	return false, badInputf("input %s: %q: want true or false%s", name, v, fix)
}

// valueFix is the fix for the input name whose value v is one of valid
// but for its case ("Error" for error): vigiles reads an input as it is
// written, as GitHub passes it. For a value that is none of them, it is
// the one meant where one is near: a few letters off (closest, "warnig"),
// or begun ("warn", "err"); "" where none is.
func valueFix(name, v string, valid ...string) string {
	for _, w := range valid {
		if v != w && strings.EqualFold(v, w) {
			return fmt.Sprintf(": the values are lower case, so set %s: %s", name, w)
		}
	}
	if slices.Contains(valid, v) {
		return ""
	}
	meant := closest(v, valid)
	for _, w := range valid {
		if meant == "" && len(v) >= 3 && strings.HasPrefix(w, strings.ToLower(v)) {
			meant = w
		}
	}
	if meant == "" {
		return ""
	}
	return fmt.Sprintf(": set %s: %s", name, meant)
}

// splitList splits a list input on newlines and commas.
func splitList(v string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == '\n' || r == '\r' || r == ',' }) {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// readInputs validates every input and reports all problems at once, each
// once (as problems).
func readInputs(getenv func(string) string) (actionInputs, error) {
	var in actionInputs
	var errs problems
	bad := func(format string, a ...any) { errs = append(errs, badInputf(format, a...)) }

	// An input of two words set both ways and to two values: the
	// composite action sets INPUT_FAIL_LEVEL from with: (its default
	// where with: has none), and INPUT_FAIL-LEVEL, which input reads
	// first, came from elsewhere: a workflow's or job's env:, or an
	// earlier step's GITHUB_ENV, that runtime: host hands to vigiles
	// whole. Neither is taken for the other: the step fails.
	for _, name := range actionInputNames {
		up := strings.ToUpper(name)
		if !strings.Contains(up, "-") {
			continue
		}
		h, u := strings.TrimSpace(getenv("INPUT_"+up)), strings.TrimSpace(getenv("INPUT_"+strings.ReplaceAll(up, "-", "_")))
		if h != "" && u != "" && h != u {
			bad("input %s: INPUT_%s and INPUT_%s are both set, to two values: with: sets the second, and the first came from elsewhere (an env: of the workflow or job, or an earlier step's GITHUB_ENV); set the input in with: alone", name, up, strings.ReplaceAll(up, "-", "_"))
		}
	}

	switch in.Command = input(getenv, "command"); in.Command {
	case "":
		in.Command = "test"
	case "test", "audit", "merge":
	default:
		bad("input command: %q is not test, audit or merge%s", in.Command, valueFix("command", in.Command, "test", "audit", "merge"))
	}
	in.Reports = splitList(input(getenv, "reports"))
	switch {
	case in.Command == "merge" && len(in.Reports) == 0:
		bad("input reports: merge needs the shard reports (paths or globs)")
	case in.Command != "merge" && len(in.Reports) > 0:
		bad("input reports: only merge reads reports (command is %s)", in.Command)
	}
	if wd := input(getenv, "working-directory"); wd != "" && wd != "." {
		if !insideWorkspace("", wd) || strings.ContainsAny(wd, "\r\n\x00") {
			bad("input working-directory: %q must be a directory inside the workspace, relative to it%s", wd, relativeFix(getenv, "working-directory", "", wd))
		} else if c := filepath.ToSlash(filepath.Clean(wd)); c != "." {
			// "./" is the workspace, as "." is: one check run's name.
			in.WorkDir = c
		}
	}
	in.Config = input(getenv, "config")
	in.Paths = splitList(input(getenv, "paths"))
	if len(in.Paths) > 0 && in.Command != "audit" {
		bad("input paths: only audit takes paths (command is %s)", in.Command)
	}
	in.Baseline = input(getenv, "baseline")
	switch {
	case in.Baseline != "" && !insideWorkspace(in.WorkDir, in.Baseline):
		bad("input baseline: %q must be a path inside the workspace, relative to working-directory%s", in.Baseline, relativeFix(getenv, "baseline", in.WorkDir, in.Baseline))
	case namesDir(in.Baseline):
		bad("input baseline: %q names a directory, and baseline is the file to compare with: set baseline: %s", in.Baseline, inNamedDir(in.Baseline, path.Base(runner.DefaultBaseline)))
	}
	var err error
	if in.UpdateBaseline, err = parseBool("update-baseline", input(getenv, "update-baseline"), false); err != nil {
		errs = append(errs, err)
	}
	// One mistake, said once: update-baseline beside another command
	// is not also a baseline input missing or misplaced.
	switch {
	case in.UpdateBaseline && in.Command != "audit":
		bad("input update-baseline: only audit writes a baseline (command is %s)", in.Command)
	case in.UpdateBaseline && in.Baseline == "":
		bad("input update-baseline: true needs a baseline file to write, and the baseline input is empty: set it, e.g. baseline: %s", runner.DefaultBaseline)
	case in.Baseline != "" && in.Command != "audit":
		bad("input baseline: only audit compares with a baseline (command is %s)", in.Command)
	}
	if s := input(getenv, "sandbox"); s != "" {
		m, err := sandbox.ParseMode(s)
		if err != nil {
			bad("input sandbox: %v%s", asInput(err), valueFix("sandbox", s, string(sandbox.ModeAuto), string(sandbox.ModeStrict), string(sandbox.ModeOff)))
		}
		in.Sandbox = m
	}
	mode := input(getenv, "egress")
	allow := splitList(input(getenv, "allow"))
	egressOK := true // what was said of egress so far: each mistake is said once
	switch mode {
	case "", evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow:
	default:
		bad("input egress: %q: want deny, record or allow%s", mode, valueFix("egress", mode, evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow))
		egressOK = false
	}
	if len(allow) > 0 && egressOK {
		if mode == "" {
			mode = evidence.EgressAllow
		} else if mode != evidence.EgressAllow {
			bad("input allow: hosts are allowed only with egress allow (egress is %s)", mode)
			egressOK = false
		}
	}
	for _, h := range allow {
		// Said here in the inputs' words: the engine's check below names
		// the CLI's --allow and --allow-ip, which the action does not have.
		// An address or a CIDR (whose '/' no host name has) is told where
		// it goes.
		_, err := evidence.ParseAllowHost(h)
		switch {
		case errors.Is(err, evidence.ErrAddressNotName):
			what := "an address"
			if strings.Contains(h, "/") {
				what = "an address range"
			}
			bad("input allow: %q is %s, and allow takes host names (HOST, *.SUFFIX, HOST:PORT); "+
				"put addresses and CIDRs under the policy file's defaults.egress.allow-ip (hosts under defaults.egress.allow) and leave the egress and allow inputs empty", h, what)
			egressOK = false
		case hostOfURL(h) != "":
			bad("input allow: %q is a URL (or a host and a path), and allow takes host names (HOST, *.SUFFIX, HOST:PORT): set allow: %s", h, hostOfURL(h))
			egressOK = false
		case strings.ContainsAny(h, " \t\"'/\\") || strings.ContainsFunc(h, func(r rune) bool { return r < 0x20 || r == 0x7f }):
			bad("input allow: %q is not a host name (HOST, *.SUFFIX, HOST:PORT)", h)
			egressOK = false
		case err != nil:
			bad("input allow: %q: %v", h, err)
			egressOK = false
		}
	}
	if mode == evidence.EgressAllow && len(allow) == 0 && egressOK {
		bad("input egress: allow needs at least one host: name them in the allow input, " +
			"or leave egress empty and list hosts and address ranges in the policy file's defaults.egress (allow, allow-ip)")
		egressOK = false
	}
	// The engine's own check, once the inputs are each well formed: it
	// would say again what was said above.
	if mode != "" && egressOK {
		in.Egress = &evidence.EgressPolicy{Mode: mode, Allow: allow}
		for _, e := range netwire.ValidateEgress(in.Egress) {
			bad("input allow: %s", e.Error())
		}
	}
	if in.Command == "merge" {
		// merge runs no hooks: an input that says how they run would
		// be moot in its job, unsaid (as jobs and max-runs below).
		for _, name := range []string{"sandbox", "egress", "allow"} {
			if input(getenv, name) != "" {
				bad("input %s: merge runs no hooks; set it on the test or audit jobs whose reports it joins", name)
			}
		}
	} else if in.Sandbox == sandbox.ModeOff && input(getenv, "egress")+input(getenv, "allow") != "" {
		// Every hook runs in the open: nothing walls or records its
		// network, as vigiles test --sandbox off says too.
		bad("input sandbox: off runs every hook in the open, which cannot honour the egress and allow inputs: leave them empty, or confine the hooks (strict or auto)")
	}
	if in.FailLevel, err = annotate.ParseFailLevel(input(getenv, "fail-level")); err != nil {
		v := input(getenv, "fail-level")
		bad("input fail-level: %v%s", err, valueFix("fail-level", v, string(annotate.FailNone), string(annotate.FailNotice), string(annotate.FailWarning), string(annotate.FailError)))
	}
	in.Token = input(getenv, "github-token")
	if in.CheckRun, err = parseBool("check-run", input(getenv, "check-run"), true); err != nil {
		errs = append(errs, err)
	}
	if in.HookLogs, err = parseBool("hook-logs", input(getenv, "hook-logs"), false); err != nil {
		errs = append(errs, err)
	}
	in.SARIF = input(getenv, "sarif")
	switch {
	case strings.ContainsAny(in.SARIF, "\r\n\x00"):
		bad("input sarif: not a path")
	case in.SARIF != "" && !insideWorkspace("", in.SARIF):
		// In a container only the workspace and RUNNER_TEMP are mounted:
		// a file written elsewhere would be lost with the container.
		bad("input sarif: %q must be a path inside the workspace, relative to it%s", in.SARIF, relativeFix(getenv, "sarif", "", in.SARIF))
	case namesDir(in.SARIF):
		bad("input sarif: %q names a directory, and sarif is the file to write: set sarif: %s", in.SARIF, inNamedDir(in.SARIF, sarifName))
	}
	if v := input(getenv, "max-runs"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 1:
			bad("input max-runs: %q: want a whole number of at least 1", v)
		case in.Command == "merge":
			bad("input max-runs: merge runs no hooks")
		default:
			in.MaxRuns = n
		}
	}
	if v := input(getenv, "jobs"); v != "" {
		n, err := strconv.Atoi(v)
		switch {
		case err != nil || n < 0 || n > maxJobs:
			bad("input jobs: %q: want a whole number from 0 (one per core) to %d", v, maxJobs)
		case in.Command == "merge":
			bad("input jobs: merge runs no hooks")
		default:
			in.Jobs = n
		}
	}
	if in.Shard = input(getenv, "shard"); in.Shard != "" {
		if _, _, err := runner.ParseShard(in.Shard); err != nil {
			bad("input shard: %v", asInput(err))
		} else if in.Command == "merge" {
			bad("input shard: merge joins the reports of every shard; set shard on the test or audit jobs of the matrix, not on merge")
		}
		if in.UpdateBaseline && in.Command == "audit" {
			bad("input update-baseline: needs the whole audit, not shard %s", in.Shard)
		}
	}
	return in, errs.orNil()
}

// checkBaselineInput refuses, as bad usage, a baseline input (relative to
// dir, the working directory, its links checked) that names the policy
// file (the config input's, or the default's), or, with update-baseline,
// a file there that is no baseline (runner.WhyNotBaseline), which the
// update would overwrite: as vigiles audit's --baseline
// (checkBaselineFlag), in the inputs' words.
func checkBaselineInput(in actionInputs, dir string) error {
	p, config := filepath.Join(dir, in.Baseline), in.Config
	policy := fmt.Sprintf("the policy file the config input names (%s)", config)
	if config == "" {
		config, policy = runner.DefaultConfig, fmt.Sprintf("the policy file, %s (the config input names another)", runner.DefaultConfig)
	}
	if sameFile(p, inDir(dir, config)) {
		return badInputf("input baseline: %s is %s: the baseline is the JSON file update-baseline writes, such as %s; set baseline to that", in.Baseline, policy, runner.DefaultBaseline)
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		// Read, it would be a baseline/invalid finding after every hook
		// has run (as the CLI's --baseline, refused); written, the write
		// would fail then (WhyNotBaseline leaves a directory to it).
		what := "baseline is the file to compare with"
		if in.UpdateBaseline {
			what = "update-baseline writes the baseline file"
		}
		return badInputf("input baseline: %s is a directory, and %s: set baseline: %s", in.Baseline, what, inNamedDir(in.Baseline, path.Base(runner.DefaultBaseline)))
	}
	if !in.UpdateBaseline {
		return nil
	}
	if why := runner.WhyNotBaseline(p); why != "" {
		return badInputf("input update-baseline: it would overwrite %s, which is not a vigiles baseline (%s): set the baseline input to the baseline file, such as %s (one not there is made), or move that file away first", in.Baseline, why, runner.DefaultBaseline)
	}
	return nil
}

// fromWorkspace is, for p, the config or baseline input (relative to the
// working-directory workDir, "" for the workspace ws), that repeats
// workDir (examples/.vigiles.yml with working-directory examples) and
// names nothing under it but a regular file of the workspace, the input
// that names that file; "" otherwise.
func fromWorkspace(ws, workDir, p string) string {
	if workDir == "" || p == "" || filepath.IsAbs(p) {
		return ""
	}
	rel, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(p)), workDir+"/")
	if !ok {
		return ""
	}
	if _, err := os.Lstat(filepath.Join(ws, workDir, p)); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	// Where the checkout's links lead: none that leads out is followed.
	real, err := resolveInWorkspace(ws, p)
	if err != nil {
		return ""
	}
	if fi, err := os.Lstat(real); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return rel
}

// checkSARIFInput refuses, as bad usage, a sarif input (p, where it
// leads in the workspace ws) that names the policy file, the baseline or
// a report of the action's, or a file there that is no SARIF log
// (whyNotSARIF), which writing the SARIF would overwrite: as
// checkBaselineInput guards the baseline's.
func checkSARIFInput(in actionInputs, getenv func(string) string, ws, dir, p string) error {
	same := func(q string) bool { return sameFile(p, q) || sameFile(filepath.Join(ws, in.SARIF), q) }
	config := in.Config
	if config == "" {
		config = runner.DefaultConfig
	}
	if in.Command != "merge" && same(inDir(dir, config)) {
		return badInputf("input sarif: %s is the policy file (%s): name a file of its own for the SARIF, such as vigiles.sarif", in.SARIF, config)
	}
	if in.Baseline != "" && same(filepath.Join(dir, in.Baseline)) {
		return badInputf("input sarif: %s is the baseline input's file: name a file of its own for the SARIF, such as vigiles.sarif", in.SARIF)
	}
	// The JSON report (writeReport) goes to vigiles/report-*.json in
	// RUNNER_TEMP, or in the work tree without it.
	reports, _ := reportDir(getenv, ws, in)
	if name := filepath.Base(p); sameFile(filepath.Dir(p), reports) && strings.HasPrefix(name, "report-") && strings.HasSuffix(name, ".json") {
		return badInputf("input sarif: %s is where the action writes its JSON report: name a file of its own for the SARIF, such as vigiles.sarif", in.SARIF)
	}
	if why := whyNotSARIF(p); why != "" {
		return badInputf("input sarif: it would overwrite %s, which is not a SARIF log (%s): name a file of its own for the SARIF, such as vigiles.sarif (one not there is made), or move that file away first", in.SARIF, why)
	}
	return nil
}

// sarifName is the file a sarif input that names a directory is told to
// name in it.
const sarifName = "vigiles.sarif"

// namesDir says whether the path input p, by its text, names a directory
// where the input wants a file: it ends in "/" or its last element is "."
// or "..". Written as it is, the file would be made under the directory's
// name ("out/" writes the file out).
func namesDir(p string) bool {
	p = filepath.ToSlash(p)
	if p == "" {
		return false
	}
	b := p[strings.LastIndex(p, "/")+1:]
	return b == "" || b == "." || b == ".."
}

// inNamedDir is the file name in the directory that the input dir names,
// as the input would say it.
func inNamedDir(dir, name string) string {
	return path.Join(filepath.ToSlash(dir), name)
}

// insideWorkspace says whether p, relative to the workspace directory
// base (itself relative, "" for the workspace), stays inside the
// workspace: not absolute, and no ".." that climbs out of it. The action's
// container mounts the workspace, not what lies beside it, and hands back
// to the runner user only what is inside it.
func insideWorkspace(base, p string) bool {
	if filepath.IsAbs(p) {
		return false
	}
	_, ok := relInside(".", filepath.Join(base, p))
	return ok
}

// oneLineErr prints an error as one inert line: errors can carry file
// names from the repository under test, and a newline in the step log
// could start a workflow command, "##[" anywhere in a line a legacy one,
// and a bidi override make the line display as another.
type oneLineErr struct{ err error }

func (e oneLineErr) Error() string {
	return annotate.InertLine(annotate.OneLine(e.err.Error()))
}
func (e oneLineErr) Unwrap() error { return e.err }

// ownAnnotations writes vigiles' own workflow commands (an error, a
// warning or a notice of the step's, titled vigiles) to stdout, reading
// no environment.
func ownAnnotations(stdout io.Writer) *githubactions.Action {
	return githubactions.New(githubactions.WithWriter(stdout), githubactions.WithGetenv(func(string) string { return "" })).
		WithFieldsMap(map[string]string{"title": "vigiles"})
}

// fail ends the step with code, annotating err through an escaped
// ::error:: command so it shows in the run's UI: one for each of several
// problems, each also on a line of its own on stderr.
func fail(stdout io.Writer, code int, err error) error {
	list, ok := err.(problems)
	if !ok {
		list = problems{err}
	}
	gh := ownAnnotations(stdout)
	var lines problems
	for _, e := range list {
		gh.Errorf("%s", annotate.InertLine(annotate.OneLine(e.Error())))
		lines = append(lines, oneLineErr{e})
	}
	if len(lines) == 1 {
		return exitWith(code, lines[0])
	}
	return exitWith(code, lines)
}

// progressWriter prefixes every line of runner progress with "vigiles: "
// and flattens control characters (the runner shows those of a name as
// escapes already, as printError does), so a plugin
// name in a progress line can never begin a workflow command, and makes
// every ':' of the line an
// annotate.Colon, so that no problem matcher of an earlier step takes it
// for a compiler's error ("[1/3] ./main.go:1:1: approved SessionStart").
// The runner's line quotes the plugin, event and tool a plugin chose and
// ends "NAME: allowed (…)": its one ':' of its own stands right after
// them, where it would complete "x.go: " or "TS1:" as theirs would, and
// this writer cannot tell where the names end. The lookalike reads the
// same.
type progressWriter struct {
	w   io.Writer
	buf []byte
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := annotate.InertLine(annotate.OneLine(string(p.buf[:i])))
		// A U+A789 of the line's own is its escape: never a ':' where
		// ownText makes the Colons ':' again.
		line = annotate.NoMatch(strings.ReplaceAll(line, annotate.Colon, `\ua789`))
		p.buf = p.buf[i+1:]
		if _, err := fmt.Fprintf(p.w, "vigiles: %s\n", line); err != nil {
			return len(b), err
		}
	}
}

func runActionWith(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, deps actionDeps) error {
	fs := pflag.NewFlagSet("action", pflag.ContinueOnError)
	if done, err := parseFlags(fs, actionHelp, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() > 0 {
		return exitWith(2, fmt.Errorf("action: unexpected argument %q (vigiles action takes none: its options are the action's inputs, set as INPUT_* variables; see vigiles action --help)", fs.Arg(0)))
	}
	started := time.Now()
	if deps.now != nil {
		started = deps.now()
	}
	if getenv("GITHUB_ACTIONS") != "true" {
		return exitWith(2, errors.New("action: runs only as a GitHub Actions step (GITHUB_ACTIONS=true); elsewhere use vigiles test or vigiles audit, or set GITHUB_ACTIONS=true to try the step here (docs/github-action.md#run-it-locally)"))
	}

	// The verdict output is pass, fail or error: a step that stops
	// before Publish (which sets the outputs) says error, and leaves the
	// counts and the report's path, which it does not have, unset.
	published := false
	defer func() {
		if p := getenv("GITHUB_OUTPUT"); p != "" && !published {
			// Best effort: the step fails with its own error anyway.
			_ = annotate.WriteVerdict(p, report.VerdictError)
		}
	}()
	// An INPUT_* variable of a name no input has (a step that runs
	// vigiles action itself and sets them by hand) is said before the
	// inputs are: its value is not read, and the input it was meant for
	// keeps its default, which a mistake below may follow from.
	environ := deps.environ
	if environ == nil {
		environ = os.Environ
	}
	unknown := unknownInputs(environ())
	for _, w := range unknown {
		ownAnnotations(stdout).Warningf("%s", annotate.InertLine(w))
	}
	in, err := readInputs(getenv)
	// The token stays in this process only: drop it (and the runner's
	// other credentials) from the environment before anything starts.
	for _, k := range sensitiveEnv {
		os.Unsetenv(k)
	}
	if err != nil {
		return fail(stdout, 2, err)
	}

	ws := getenv("GITHUB_WORKSPACE")
	if ws == "" {
		ws = "."
	}
	dir := filepath.Join(ws, in.WorkDir)
	if in.Command != "merge" && emptyDir(ws) {
		// A job without actions/checkout: the runner makes the workspace,
		// and nothing puts the repository there. test would say only that
		// the policy file is missing, audit that it found no hooks, and
		// either that working-directory does not exist where one is set.
		return fail(stdout, 2, fmt.Errorf("the workspace %s is empty: nothing checked the repository out; add a step of actions/checkout before vigiles", ws))
	}
	// The paths the inputs name must stay inside the workspace where
	// their symbolic links lead too, not only in their text (readInputs):
	// the checkout under review chooses the links (workspace.go).
	if err := linkedOut("working-directory", ws, in.WorkDir, in.WorkDir); err != nil {
		return fail(stdout, 2, err)
	}
	if in.WorkDir != "" {
		if why := notADir(dir); why != "" {
			return fail(stdout, 2, fmt.Errorf("input working-directory: %s %s in the workspace", in.WorkDir, why))
		}
	}
	// A config or baseline written from the workspace, repeating
	// working-directory: the config not found (its hint sending the
	// caller up from where it looked), the baseline compared with
	// nothing, or made anew at examples/examples/….
	for _, f := range []struct{ name, value string }{{"config", in.Config}, {"baseline", in.Baseline}} {
		if rel := fromWorkspace(ws, in.WorkDir, f.value); rel != "" && in.Command != "merge" {
			return fail(stdout, 2, badInputf("input %s: %s is read relative to working-directory (%s), and there is no %s; to read the file it names from the workspace, set %s: %s",
				f.name, f.value, in.WorkDir, path.Join(in.WorkDir, filepath.ToSlash(f.value)), f.name, rel))
		}
	}
	if in.Baseline != "" {
		if err := linkedOut("baseline", ws, filepath.Join(in.WorkDir, in.Baseline), in.Baseline); err != nil {
			return fail(stdout, 2, err)
		}
		if err := checkBaselineInput(in, dir); err != nil {
			return fail(stdout, 2, err)
		}
	}
	if in.UpdateBaseline {
		// The runner makes a baseline's missing directories only inside
		// its repository (working-directory); one the input puts
		// elsewhere in the workspace gets them here, where its links lead
		// inside the workspace, before any hook runs rather than failing
		// after all of them.
		d, _, err := dirInWorkspace(ws, filepath.Join(in.WorkDir, in.Baseline))
		var lo *linkedOutError
		switch {
		case errors.As(err, &lo):
			return fail(stdout, 2, linkedOutInput("baseline", in.Baseline, lo))
		case err != nil:
			return fail(stdout, 2, fmt.Errorf("input baseline: %s: its directory cannot be made in the workspace: %v", in.Baseline, err))
		}
		d.Close()
	}
	// Said before any hook runs, not after all of them.
	if in.SARIF != "" {
		p, err := resolveInWorkspace(ws, in.SARIF)
		var lo *linkedOutError
		switch {
		case errors.As(err, &lo):
			return fail(stdout, 2, linkedOutInput("sarif", in.SARIF, lo))
		case err != nil:
			p = filepath.Join(ws, in.SARIF) // a file where a directory must be: cannotWrite says so
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return fail(stdout, 2, badInputf("input sarif: %s is a directory, and sarif is the file to write: set sarif: %s", in.SARIF, inNamedDir(in.SARIF, sarifName)))
		}
		if why := cannotWrite(p); why != "" {
			return fail(stdout, 2, fmt.Errorf("input sarif: %s %s", in.SARIF, why))
		}
		if err := checkSARIFInput(in, getenv, ws, dir, p); err != nil {
			return fail(stdout, 2, err)
		}
	}
	if in.Command == "audit" {
		if err := unreadPolicy(dir, in.Config, "the config input"); err != nil {
			return fail(stdout, 2, fmt.Errorf("input config: %w", err))
		}
	}
	made := annotate.Made{Warnings: len(unknown)} // annotations of vigiles' own before Publish
	if in.Command == "audit" && in.Baseline == "" {
		// The action compares with nothing unless told: a committed
		// baseline left unnamed is a pass on nothing, said here.
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(runner.DefaultBaseline))); err == nil && fi.Mode().IsRegular() {
			ownAnnotations(stdout).Noticef("%s is there, but the baseline input is empty, so this audit compares with nothing: set baseline: %s to compare with it", runner.DefaultBaseline, runner.DefaultBaseline)
			made.Notices++
		}
	}
	runner.Version = version
	opts := runner.Options{
		Dir: dir, Config: in.Config, Paths: in.Paths, Baseline: in.Baseline, BaselineNamed: in.Baseline != "", UpdateBaseline: in.UpdateBaseline,
		// The advice to rewrite the baseline names the inputs, and the
		// command that does it locally from the workspace's root.
		Invoked: runner.Invocation{Action: true, Dir: in.WorkDir},
		Sandbox: in.Sandbox, Egress: in.Egress, Shard: in.Shard, MaxRuns: in.MaxRuns, Jobs: in.Jobs, Executor: deps.executor,
		Progress: &progressWriter{w: stderr},
	}
	if in.Command != "merge" && !in.UpdateBaseline {
		// On a pull request, what it weakens of its base's policy file
		// and baseline, which it is audited with, is named.
		opts.PolicyBase = pullRequestBase(ctx, getenv, dir, in.Config, in.Baseline)
	}
	do := deps.test
	switch in.Command {
	case "audit":
		do = deps.audit
	case "merge":
		do = func(context.Context, runner.Options) (*report.Report, error) { return mergeReports(ws, in.Reports) }
	}
	rep, runErr := do(ctx, opts)
	var pe *runner.AuditPathError
	if errors.As(runErr, &pe) {
		if !pe.Outside && !pe.Missing {
			// A declaration file named: its directory holds its hooks.
			return fail(stdout, 2, badInputf("input paths: %s is not a directory: paths names directories, whose hooks the audit runs; name the one that holds it, %s", pe.Path, filepath.Dir(pe.Path)))
		}
		if pe.Missing && strings.ContainsAny(pe.Path, "*?[") {
			// The policy file's plugins take globs; paths does not.
			return fail(stdout, 2, badInputf("input paths: %s is a glob, and paths takes directories as they are written, expanding no glob: name the directories it was to match, or the one above them, %s", pe.Path, aboveGlob(pe.Path)))
		}
		if pe.Outside && !pathThere(pe.Path, dir) {
			// Not there, whatever it is outside of, as the CLI says it.
			return fail(stdout, 2, badInputf("input paths: %s does not exist; paths names directories in working-directory, relative to it", pe.Path))
		}
		return fail(stdout, 2, fmt.Errorf("input paths: %w", runErr))
	}
	var pa *runner.PartialAuditError
	if errors.As(runErr, &pa) {
		// The runner's words name the CLI's flags; say it with the inputs.
		return fail(stdout, 2, fmt.Errorf("input update-baseline: needs the whole audit, and paths %s names part of it: the baseline would keep only the hooks under it; leave paths empty", strings.Join(pa.Paths, ",")))
	}
	if rep == nil {
		if runErr == nil {
			runErr = errors.New("the runner returned no report")
		}
		code := 125
		if isUsageMistake(runErr) || errors.Is(runErr, errBadInput) {
			code = 2
		}
		return fail(stdout, code, withConfigHint(fmt.Errorf("%s: %w", in.Command, runErr), "the config input", ws))
	}
	if in.Command != "merge" {
		relativize(rep, dir, in.WorkDir)
	}
	if runErr == nil && hasRule(rep, runner.RuleTooManyRuns) {
		// Nothing ran: an error of vigiles' own, as the CLI's 125, that
		// fail-level none does not pass and vigiles' ::error says.
		runErr = fmt.Errorf("no hook was run: more runs were planned than max-runs allows (%s; raise max-runs, or split the work with the shard input)", runner.RuleTooManyRuns)
	}
	if runErr != nil && rep.Verdict != report.VerdictError {
		// The step fails (125) whatever the findings are: the report
		// file says error, as the outputs and summaries do, never pass.
		errored := *rep
		errored.Verdict = report.VerdictError
		rep = &errored
	}

	reportPath, err := writeReport(rep, getenv, ws, in)
	if err != nil {
		return fail(stdout, 125, err)
	}
	defaultFile := configFile(ws, in.WorkDir, in.Config)
	var notes []string
	if runErr == nil && in.UpdateBaseline {
		// Written into the checkout: said in the log and the summaries,
		// as vigiles audit --update-baseline says it on stderr.
		note := fmt.Sprintf("wrote the baseline %s (%s); review its diff before committing", in.Baseline, baselineRuns(rep))
		notes = append(notes, note)
		printNote(stdout, note)
	}
	// The hooks have run: a SARIF file that cannot be written fails the
	// step (125), and what they found is reported everywhere else all the
	// same, with why (Publish's Err).
	var sarifErr error
	if in.SARIF != "" {
		st, err := writeSARIFFile(ws, in.SARIF, rep, defaultFile)
		var lo *linkedOutError
		switch {
		case errors.As(err, &lo):
			sarifErr = fmt.Errorf("writing sarif: %w", linkedOutInput("sarif", in.SARIF, lo))
		case err != nil:
			sarifErr = err
		}
		// Code scanning never shows what the file leaves out: the log
		// and the summaries say it.
		if note := sarifNote(st, in.SARIF, annotate.ReportHas("every finding")); note != "" && sarifErr == nil {
			notes = append(notes, note)
			printNote(stdout, note)
		}
	}
	ownErr := runErr
	if sarifErr != nil {
		if ownErr != nil {
			ownErr = fmt.Errorf("%w; %w", ownErr, sarifErr)
		} else {
			ownErr = sarifErr
		}
	}

	client := deps.httpClient
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	published = true
	// The tree the hooks ran in: on a workflow_run event the check run
	// goes on the triggering run's head commit only where that is what
	// this tree has checked out. A merge ran nothing here: its reports
	// were made elsewhere (a fork's run uploads what it likes).
	tree := dir
	if in.Command == "merge" {
		tree = ""
	}
	res, err := annotate.Publish(ctx, rep, annotate.Options{
		Log: stdout, Getenv: getenv, Token: in.Token, CheckRun: in.CheckRun, HTTPClient: client,
		FailLevel: in.FailLevel, ReportPath: reportPath, RawLogs: in.HookLogs, DefaultFile: defaultFile, Tree: tree, Scope: checkScope(in.WorkDir, in.Config), Now: deps.now, Started: started,
		// A report with an error (interrupted, too many runs, the
		// baseline not written): the check run and outputs must not
		// read pass.
		Err:   ownErr,
		Notes: notes,
		Made:  made,
	})
	if err != nil {
		return fail(stdout, 125, fmt.Errorf("reporting to GitHub: %w", err))
	}
	if runErr != nil {
		return fail(stdout, 125, namedFor(in.Command, ownErr))
	}
	if res.Interrupted != nil {
		// The signal came after the hooks ran, while the findings were
		// reported: vigiles' own error, as an interruption before.
		return fail(stdout, 125, fmt.Errorf("%s: interrupted (%v) while it reported to GitHub", in.Command, res.Interrupted))
	}
	if sarifErr != nil {
		return fail(stdout, 125, sarifErr)
	}
	failed := annotate.Failed(rep, in.FailLevel)
	fmt.Fprintf(stdout, "vigiles: %s %s: %d %s, %d at or above fail-level %s; report %s\n",
		in.Command, rep.Verdict, len(rep.Findings), plural(uint64(len(rep.Findings)), "finding"), failed, in.FailLevel, oneLineErr{errors.New(reportPath)})
	if res.ExitCode != 0 {
		return exitWith(res.ExitCode, nil)
	}
	return nil
}

// mergeReports reads the reports matched by globs (relative to ws) as
// vigiles merge does (readReport) and joins them with runner.Merge, which names each by its path in the
// workspace. Their locations are already repository-relative.
func mergeReports(ws string, globs []string) (*report.Report, error) {
	var reps []runner.NamedReport
	seen := map[string]bool{}
	for _, given := range globs {
		g := given
		if !filepath.IsAbs(g) {
			g = filepath.Join(ws, g)
		}
		matches, err := filepath.Glob(g)
		if err != nil {
			return nil, badInputf("input reports: %q: %v", given, err)
		}
		if len(matches) == 0 {
			// actions/download-artifact puts each artifact in a directory
			// of its name (unless merge-multiple): reports/*.json finds
			// none of reports/vigiles-report-0/report.json.
			dir, base := filepath.Split(given)
			if nested := path.Join(filepath.ToSlash(dir), "*", base); !filepath.IsAbs(given) {
				if m, _ := filepath.Glob(filepath.Join(ws, nested)); len(m) > 0 {
					return nil, badInputf("input reports: %q matches no file, and %s matches %d: actions/download-artifact puts each artifact in a directory of its own; set reports: %s", given, nested, len(m), nested)
				}
			}
			return nil, badInputf("input reports: %q matches no file in the workspace: download the shards' reports into it first (actions/download-artifact, its path: the directory the reports input names)", given)
		}
		for _, m := range matches {
			if seen[m] {
				continue
			}
			seen[m] = true
			r, err := readReport(m)
			var pe *fs.PathError
			switch {
			case errors.As(err, &pe):
				return nil, err // the file matched but cannot be read: not the input's fault
			case err != nil:
				return nil, badInputf("input reports: %v", err)
			}
			name := m
			if rel, ok := relInside(ws, m); ok {
				name = rel
			}
			reps = append(reps, runner.NamedReport{Name: name, Report: r})
		}
	}
	return runner.Merge(reps...)
}

// emptyDir says whether dir is a directory with no entry at all.
func emptyDir(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return false
	}
	names, err := f.Readdirnames(1)
	return len(names) == 0 && errors.Is(err, io.EOF)
}

// unknownInputs says, for each INPUT_* variable of env (NAME=value
// entries) whose name is no input's that vigiles action or action.yml
// reads, that it is not read, and the variable meant where one is near.
// An input's name in lower or mixed case (INPUT_fail_level) is no
// variable input reads either: their names are upper case. A value is
// never said: it could be a secret.
func unknownInputs(env []string) []string {
	known := append([]string{"runtime", "image"}, actionInputNames...)
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		n, ok := strings.CutPrefix(k, "INPUT_")
		if !ok {
			continue
		}
		name := strings.ToLower(strings.ReplaceAll(n, "_", "-"))
		if slices.Contains(known, name) && n == strings.ToUpper(n) {
			continue
		}
		msg := fmt.Sprintf("%s is no input of vigiles action and is not read", annotate.OneLine(k))
		if slices.Contains(known, name) {
			msg = fmt.Sprintf("%s is not read: the inputs' variables are named in upper case", annotate.OneLine(k))
		}
		if c := closest(name, known); c != "" {
			msg += fmt.Sprintf(": set INPUT_%s (the %s input) instead", strings.ToUpper(strings.ReplaceAll(c, "-", "_")), c)
		} else {
			msg += ": vigiles action --help lists the inputs"
		}
		out = append(out, msg)
	}
	slices.Sort(out)
	return out
}

// hostOfURL is the host name of h where h is a URL or a host and a path
// ("https://api.example.test/v1", "api.example.test/v1") whose host (and
// port) the allow input takes; "" otherwise.
func hostOfURL(h string) string {
	if !strings.Contains(h, "/") {
		return "" // neither a scheme nor a path
	}
	host := evidence.URLHost(h)
	if _, err := evidence.ParseAllowHost(host); host == "" || err != nil {
		return ""
	}
	return host
}

// relativeFix is the fix for the input name whose value p is an absolute
// path in the workspace, as ${{ github.workspace }}/x writes one: the path
// relative to the workspace's directory base ("" for the workspace; the
// baseline's is working-directory), which the input takes. It is "" for
// any other p.
func relativeFix(getenv func(string) string, name, base, p string) string {
	ws := getenv("GITHUB_WORKSPACE")
	if !filepath.IsAbs(p) || !filepath.IsAbs(ws) {
		return ""
	}
	// The baseline's may climb out of working-directory, not out of the
	// workspace.
	rel, err := filepath.Rel(filepath.Join(ws, base), filepath.Clean(p))
	switch {
	case err != nil || !insideWorkspace(base, rel):
		return ""
	case rel == "." && name == "working-directory":
		return ": leave it empty for the workspace itself"
	case rel == ".":
		return ""
	}
	return fmt.Sprintf(": set %s: %s", name, filepath.ToSlash(rel))
}

// aboveGlob is the directory above the first element of p that holds a
// glob's metacharacter: "." where that is the first.
func aboveGlob(p string) string {
	els := strings.Split(filepath.ToSlash(p), "/")
	for i, e := range els {
		if strings.ContainsAny(e, "*?[") {
			return path.Clean(strings.Join(append([]string{"."}, els[:i]...), "/"))
		}
	}
	return path.Clean(filepath.ToSlash(p))
}

// checkScope is what the check run's name says was checked besides the
// command and shard: the working directory, and the policy file when the
// config input names one other than the default. Check runs of one name
// on one commit replace each other on the pull request, so two steps that
// check one directory with two policy files need two names.
func checkScope(workDir, config string) string {
	if config == "" || filepath.Clean(config) == runner.DefaultConfig {
		return workDir
	}
	if workDir == "" {
		return "config " + config
	}
	return workDir + " config " + config
}

// relInside returns p relative to dir when p is dir or below it ("..x" is
// a name below it, "../x" is not).
func relInside(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// configFile is the policy file as the repository knows it (relative to
// the workspace), where findings without a file of their own are anchored:
// config is relative to workDir, or absolute. An absolute config outside
// the workspace is no file of the repository and is returned as it is;
// annotate places such findings on .vigiles.yml instead.
func configFile(ws, workDir, config string) string {
	if config == "" {
		config = runner.DefaultConfig
	}
	if filepath.IsAbs(config) {
		if abs, err := filepath.Abs(ws); err == nil {
			if rel, ok := relInside(abs, config); ok {
				return filepath.ToSlash(rel)
			}
		}
		return config
	}
	if workDir != "" {
		return path.Join(workDir, filepath.ToSlash(config))
	}
	return filepath.ToSlash(config)
}

// relativize makes every location repository-relative: absolute paths
// under the work tree lose its prefix, and paths relative to the work tree
// gain the working directory's (prefix), so annotations land on the file
// in the pull request whatever path the engine ran at.
func relativize(rep *report.Report, dir, prefix string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	fix := func(l *report.Location) {
		if l.File == "" {
			return
		}
		if filepath.IsAbs(l.File) {
			rel, ok := relInside(abs, l.File)
			if !ok {
				return
			}
			l.File = rel
		}
		l.File = strings.TrimPrefix(filepath.ToSlash(l.File), "./")
		if prefix != "" {
			l.File = path.Join(prefix, l.File)
		}
	}
	for i := range rep.Findings {
		fix(&rep.Findings[i].Location)
	}
	for i := range rep.Runs {
		fix(&rep.Runs[i].Location)
	}
	for i := range rep.Drift {
		fix(&rep.Drift[i].Location)
	}
}

// writeReport writes the JSON report where later steps can read it:
// $RUNNER_TEMP/vigiles/report-<command>[-<i>-of-<n>].json, or in the work
// tree when RUNNER_TEMP is unset (where its links lead, if that is inside
// the workspace ws). The file is the step's own: when that
// name is taken (an earlier vigiles step of the job with the same command)
// it is report-<command>[-<i>-of-<n>]-<random>.json, so no step's `report`
// output comes to point at another step's report.
// reportDir is the directory of the JSON report: vigiles/ in
// RUNNER_TEMP, or, without it, in the working directory, where a symbolic
// link of the checkout's could lead vigiles/ out of the workspace: where
// it leads.
func reportDir(getenv func(string) string, ws string, in actionInputs) (string, error) {
	if t := getenv("RUNNER_TEMP"); t != "" {
		return filepath.Join(t, "vigiles"), nil
	}
	dir, err := resolveInWorkspace(ws, filepath.Join(in.WorkDir, "vigiles"))
	if err != nil {
		return "", fmt.Errorf("%s: %w", filepath.Join(in.WorkDir, "vigiles"), err)
	}
	return dir, nil
}

func writeReport(rep *report.Report, getenv func(string) string, ws string, in actionInputs) (string, error) {
	dir, err := reportDir(getenv, ws, in)
	if err != nil {
		return "", fmt.Errorf("writing report: %w", err)
	}
	name := "report-" + in.Command
	if in.Shard != "" {
		name += "-" + strings.ReplaceAll(in.Shard, "/", "-of-")
	}
	// As json.MarshalIndent made it, a newline after, its write records
	// written an entry at a time (reportJSON).
	doc, err := reportJSON(rep, true)
	if err != nil {
		return "", fmt.Errorf("writing report: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("writing report: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		f, err = os.CreateTemp(dir, name+"-*.json")
		if err == nil {
			// As readable as the first report: CreateTemp makes it 0600.
			if cerr := f.Chmod(0o644); cerr != nil {
				f.Close()
				os.Remove(f.Name()) // an empty report for an upload step to ship
				err = cerr
			}
		}
	}
	if err != nil {
		return "", fmt.Errorf("writing report: %w", err)
	}
	err = doc.write(f, false)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		// A cut report (a full disk) is no report: an upload step of
		// if: always() would ship it as one. The file is this step's own.
		if rerr := os.Remove(f.Name()); rerr != nil {
			return "", fmt.Errorf("writing report: %w (the cut report file %s could not be removed either: %v)", err, f.Name(), rerr)
		}
		return "", fmt.Errorf("writing report: %w (the cut report file was removed; free space where %s is)", err, filepath.Dir(f.Name()))
	}
	return f.Name(), nil
}

// writeSARIFFile writes SARIF for rep at rel in the workspace ws, where
// its symbolic links lead if that is inside (writeInWorkspace); findings
// without a file are placed at defaultFile (repository-relative). The
// stats say what the file leaves out.
func writeSARIFFile(ws, rel string, rep *report.Report, defaultFile string) (annotate.SARIFStats, error) {
	b, st, err := annotate.EncodeSARIF(rep, annotate.SARIFOptions{DefaultFile: defaultFile})
	if err != nil {
		return st, err
	}
	if err := writeInWorkspace(ws, rel, b); err != nil {
		var lo *linkedOutError
		if errors.As(err, &lo) {
			return st, err
		}
		return st, fmt.Errorf("writing sarif: %w", err)
	}
	return st, nil
}

// linkedOut is the error for an input whose path (rel, relative to the
// workspace ws; the input says it as shown) a symbolic link leads out of
// the workspace, or nil.
func linkedOut(input, ws, rel, shown string) error {
	if rel == "" {
		return nil
	}
	_, err := resolveInWorkspace(ws, rel)
	var lo *linkedOutError
	if errors.As(err, &lo) {
		return linkedOutInput(input, shown, lo)
	}
	return nil
}

// linkedOutInput says that a link leads the input's path out of the
// workspace, and what to do.
func linkedOutInput(input, p string, lo *linkedOutError) error {
	return badInputf("input %s: %s: %v: name a path whose symbolic links stay inside the workspace, or remove the link from the repository", input, p, lo)
}

// hasRule reports whether rep has a finding of rule.
func hasRule(rep *report.Report, rule string) bool {
	for _, f := range rep.Findings {
		if f.Rule == rule {
			return true
		}
	}
	return false
}
