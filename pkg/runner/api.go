package runner

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// Version is written into reports as the tool version; cmd sets it.
var Version = "dev"

// Options configure Test and Audit.
type Options struct {
	// Dir is the work tree (the repository root); default ".".
	Dir string
	// Config is the policy file; default .vigiles.yml in Dir (Test
	// requires it; Audit reads it when it exists).
	Config string
	// Paths are the roots to discover (Audit); default Dir.
	Paths []string
	// Baseline is the baseline file (Audit); "" = no comparison.
	Baseline string
	// UpdateBaseline writes the baseline from this run.
	UpdateBaseline bool
	// BaselineNamed is true where the user named Baseline (a flag, an
	// input), not a default: then a missing file is an error, since a
	// mistyped path or a change that deletes the baseline would otherwise
	// turn every comparison off with a notice.
	BaselineNamed bool
	// Invoked is how the user invoked this audit, so that the advice to
	// rewrite the baseline names what works where it is read
	// (rewriteBaseline); the zero value is the CLI run in the work tree.
	Invoked Invocation
	// Sandbox overrides the configured mode. "" = from config (auto when
	// unset); Audit turns auto into strict, since it exists to record.
	Sandbox sandbox.Mode
	// Egress overrides the configured policy; nil = from config (deny).
	// One with hosts and no Mode (the CLI's --allow without --egress) is
	// refused with an *EgressModeError naming the mode in force.
	Egress *evidence.EgressPolicy
	// RootSandbox, or the policy's defaults.root-sandbox, opts out of
	// sandbox.SandboxUID (see sandbox.Spec.RootSandbox).
	RootSandbox bool
	// Shard is "i/n" to run one deterministic part of the work.
	Shard string
	// Jobs bounds parallel runs; 0 = runtime.NumCPU().
	Jobs int
	// Executor runs hooks; nil = the real sandbox.
	Executor Executor
	// Progress receives, for an audit whose baseline cannot be compared
	// with (named and missing, or invalid), a line that says so before
	// any hook runs; a line that says how many runs are planned and
	// how many run at once, a line per finished run, every
	// ProgressInterval while runs are going one naming the runs still
	// running and for how long, and one naming the runs still running
	// when ctx is cancelled; nil = quiet.
	Progress io.Writer
	// PolicyBase, where not nil, is the base of the change under review
	// (a pull request's base commit, --policy-base): the first shard of
	// a Test or an Audit (not --update-baseline) names what the work
	// tree's policy file and baseline check less than the base's
	// (RulePolicyWeakened, RuleBaselineByPR).
	PolicyBase *PolicyBase
	// MaxRuns bounds the hook runs one Test or Audit (one shard of it)
	// starts; 0 = DefaultMaxRuns. A plan of more runs nothing and reports
	// a plan/too-many-runs finding (verdict error).
	MaxRuns int
}

// Invocation is how the user invoked an audit, as the user gave it.
type Invocation struct {
	// Dir is the work tree as the user gave it: the CLI's --dir, the
	// action's working-directory (relative to the workspace); "" or "."
	// for the current directory (the workspace's root).
	Dir string
	// Action is an audit the GitHub Action runs, where update-baseline
	// is an input.
	Action bool
}

// DefaultMaxRuns is the most hook runs a Test or Audit starts (per
// shard) when Options.MaxRuns is 0. Each run builds a sandbox: a
// plugin that declares thousands of handlers must not turn an audit into
// days of runs (20,000 PreToolUse handlers without a matcher plan
// 160,000), and the caller decides to raise it, narrow the audit or shard
// it.
const DefaultMaxRuns = 10000

// Errors Test, Audit and Merge wrap. Their errors say what went wrong
// without naming the sentinel (kindError): it tells a caller the kind of
// mistake, not the user.
var (
	ErrNoConfig  = errors.New("no policy file")
	ErrBadShard  = errors.New("bad shard")
	ErrBadOption = errors.New("bad option")
)

// kindError is err, which errors.Is also finds to be kind (one of this
// package's sentinels) without its text saying so.
type kindError struct{ err, kind error }

func (e kindError) Error() string        { return e.err.Error() }
func (e kindError) Unwrap() error        { return e.err }
func (e kindError) Is(target error) bool { return target == e.kind }

// errorf is fmt.Errorf's error, of kind kind (kindError).
func errorf(kind error, format string, a ...any) error {
	return kindError{err: fmt.Errorf(format, a...), kind: kind}
}

// AuditPathError is an audit path (Options.Paths) Audit does not take: one
// outside the work tree, not there, or not a directory. It is the
// caller's mistake: errors.Is finds ErrBadOption (and, for a path
// outside, ErrOutsideTree), without the text naming them.
type AuditPathError struct {
	Path    string // as the caller gave it
	Dir     string // the work tree
	Outside bool   // outside Dir; otherwise not a directory
	Missing bool   // not Outside, and nothing is there (or a link to nothing)
}

func (e *AuditPathError) Error() string {
	switch {
	case e.Outside:
		return fmt.Sprintf("audit path %s is outside the work tree %s", e.Path, e.Dir)
	case e.Missing:
		return fmt.Sprintf("audit path %s does not exist", e.Path)
	}
	return fmt.Sprintf("audit path %s: not a directory", e.Path)
}

func (e *AuditPathError) Is(target error) bool {
	return target == ErrBadOption || e.Outside && target == ErrOutsideTree
}

// EgressModeError is an Options.Egress that names hosts to allow but no
// mode (the CLI's --allow without --egress): the mode in force is then
// the policy's, and the hosts either need mode allow (Mode is another)
// or, given alone, would replace the policy's whole allow-mode egress,
// its address ranges among it. It is the caller's mistake (errors.Is
// finds ErrBadOption); the text names no flag, and a caller adds its own
// fix.
type EgressModeError struct {
	Mode string // the mode in force: the policy's, or deny
	File string // the policy file that set Mode; "" for the default
}

func (e *EgressModeError) Error() string {
	from := "the default"
	if e.File != "" {
		from = "from " + e.File
	}
	if e.Mode == evidence.EgressAllow {
		return fmt.Sprintf("hosts to allow were given without an egress mode: they would replace the policy's whole egress (mode allow, %s), "+
			"its address ranges among it, so the mode must be given with them", from)
	}
	return fmt.Sprintf("hosts and address ranges to allow need egress mode allow (egress is %s, %s)", e.Mode, from)
}

func (e *EgressModeError) Is(target error) bool { return target == ErrBadOption }

// PartialAuditError is Options.UpdateBaseline with Options.Paths that name
// part of the work tree only: the baseline is written from what the audit
// ran, so it would keep only the hooks under them. It is the caller's
// mistake (errors.Is finds ErrBadOption); the message names the CLI's
// flags, so a caller with other knobs (the Action's inputs) says it in
// its own words.
type PartialAuditError struct {
	Paths []string // as the caller gave them
}

func (e *PartialAuditError) Error() string {
	return fmt.Sprintf("--update-baseline needs the whole audit, and %s names part of it: the baseline would keep only the hooks under it; drop the PATHs", strings.Join(e.Paths, " "))
}

func (e *PartialAuditError) Is(target error) bool { return target == ErrBadOption }

// Rules of run findings.
const (
	RuleRunRefused = "run/refused"
	RuleRunFailed  = "run/failed"
	RuleRunTimeout = "run/timeout"
	// RuleRunLimit is a run that hit a limit of the sandbox other than
	// its timeout (report.HookRun.LimitHit).
	RuleRunLimit   = "run/limit"
	RuleRunEgress  = "run/egress"
	RuleRunEnvFile = "run/env-file"
	// RuleRunLingered is a run that left processes running when it
	// exited, which were ended after the linger period: what they would
	// have done next is not in its record (lingerNotices).
	RuleRunLingered = "run/lingered"
	RuleNoRun       = "plan/not-run"
	// RuleTooManyRuns: the plan holds more runs than Options.MaxRuns, so
	// none was started (verdict error).
	RuleTooManyRuns = "plan/too-many-runs"
	// RuleRunInterrupted: the work was interrupted (ctx cancelled) while
	// the run was running, or before runs were started (verdict error).
	RuleRunInterrupted = "run/interrupted"
	RuleCheckHook      = "check/no-hook"
)

// ShardError is a shard ParseShard does not take: Value as it was given
// and Reason, what a shard must be instead ("want i/n such as 2/4"). Its
// text names the value as a shard (shard "3/2": want ...), which is how
// the errors of Test, Audit and Merge say it; a caller that names the
// value its own way (a flag, an input) builds its message from the
// fields. errors.Is finds ErrBadShard.
type ShardError struct {
	Value  string
	Reason string
}

func (e *ShardError) Error() string        { return fmt.Sprintf("shard %q: %s", e.Value, e.Reason) }
func (e *ShardError) Is(target error) bool { return target == ErrBadShard }

// ParseShard parses "i/n" (1 ≤ i ≤ n); "" is 1/1. A shard it does not
// take is a *ShardError.
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 1, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, &ShardError{Value: s, Reason: "want i/n such as 2/4"}
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || n < 1 || i < 1 || i > n || n > 10000 {
		return 0, 0, &ShardError{Value: s, Reason: "want i/n with 1 ≤ i ≤ n ≤ 10000"}
	}
	return i, n, nil
}

// session is the state Test and Audit share.
type session struct {
	o   Options
	dir string
	// bunSeen holds, by script and plugin root, the packages Bun
	// auto-installs for it (bunImports), read once.
	bunSeen map[string]bunSeen
	// hookFileWalks holds, by hook, the files of the tree its command
	// runs (hookFiles), walked once.
	hookFileWalks map[*Hook][]BaselineFile
	// hashedWalks holds, by hook, the same files hashed (runFiles),
	// hashed once.
	hashedWalks map[*Hook]hashedWalk
	// lineFetches holds, by shell script of the tree, what its lines
	// fetch (scriptLineFetches), read once.
	lineFetches map[string][]fetched
	// climbs holds, by shell script of the tree and plugin root, where
	// its lines reach above that root (scriptClimbs), read once.
	climbs map[string][]climb
	// markets holds, by plugin name, the tree's marketplaces that list
	// it (Discovery.Markets).
	markets map[string][]string
	// installs holds, by plugin root, the IDs it is installed under
	// (Discovery.Installs).
	installs map[string][]string
	// skipped holds the settings files Claude Code skips entirely
	// (Discovery.Skipped): none of their keys applies.
	skipped map[string]string
	// sessions holds, by the directory a session starts in, what its
	// settings say of its hooks (settingsOf).
	sessions map[string]sessionSettings
	// packages caches onInAPackage's work for the projects discovery
	// listed when it was made (of).
	packages packageCache
	// spelled is the work tree as the caller spelled it (--dir, or the
	// working directory, made absolute with its links kept): an absolute
	// PATH under it is taken relative to the tree.
	spelled  string
	cfg      *Config
	findings []report.Finding
	// varsOf holds, by a file of the tree's path, the variables of
	// namedVars it names (whereNamed), so that a script many hooks run
	// is read once.
	varsOf map[string][]string
	hooks  []*Hook
	// servers are the MCP and LSP servers of the plugins discovered
	// (Discovery.Servers), named by serverFindings.
	servers []*Server
	// started are the servers among them Claude Code starts, each with
	// its finding (serverFindings); offServers those of plugins the
	// settings turn off.
	started    []startedServer
	offServers []serverIdent
	// projectStarted and offProject are the same of the projects'
	// servers and settings commands (projectServerFinding), which a
	// baseline keeps apart (Baseline.ProjectServers).
	projectStarted []startedServer
	offProject     []serverIdent
	shardI         int
	shardN         int
	settings       *runSettings
	// policy is the SHA-256 of the policy file read ("" for none), and
	// plan the digest of the whole plan a shard's report carries
	// (planDigest), so that merge joins only shards of one run.
	policy, plan string
	// empty lists the roots asked for (audit paths, or "." for the work
	// tree) under which discovery found no hook at all.
	empty []string
	// part lists the roots of an audit of part of the work tree (its
	// PATHs, relative to it); nil for the whole tree.
	part []string
	// projects lists the directories whose .claude the whole tree's
	// discovery read as a project's (Discovery.Projects).
	projects []string
	// plugins lists the plugin roots discovery read (Discovery.Plugins),
	// pluginNames their names (Discovery.PluginNames).
	plugins     []string
	pluginNames map[string]string
	// self caches selfRepo ("" when it is none).
	self *string
	// marketDirs holds, by name, the directories of the tree's
	// marketplaces discovery read (Discovery.MarketDirs).
	marketDirs map[string][]string
	// marketFiles holds, by name, the marketplace files discovery read
	// (Discovery.MarketFiles).
	marketFiles map[string][]string
	// realRel caches, for inPart, where each path it was asked about
	// leads.
	realRel map[string]string
	// shells are the skills' and commands' shell lines Claude Code runs
	// (the plugins' and the projects'), each with its finding
	// (skillShellFinding), which a baseline keeps apart
	// (Baseline.SkillShells); a line turned off is not among them.
	shells []startedServer
}

func newSession(o Options, command string) (*session, error) {
	s := &session{o: o}
	var err error
	if s.shardI, s.shardN, err = ParseShard(o.Shard); err != nil {
		return nil, err
	}
	if o.UpdateBaseline && s.shardN > 1 {
		return nil, errorf(ErrBadOption, "--update-baseline needs the whole audit, not shard %s", o.Shard)
	}
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("work tree: %w", err)
	}
	s.spelled = dir
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		return nil, fmt.Errorf("work tree: %w", err)
	}
	s.dir = dir

	// Policy.
	cfgPath := o.Config
	policyBroken := false // it has errors: ParseConfig's ConfigErrors
	explicit := cfgPath != ""
	if !explicit {
		cfgPath = DefaultConfig
	}
	abs := s.abs(cfgPath)
	s.cfg = &Config{File: cfgPath, Payloads: map[string]map[string]any{}}
	// A policy file in the repository is the repository's own text: a
	// symlink there must not make vigiles read a host file as policy (and
	// quote it back in findings).
	if err := s.linkedOut(abs); err != nil {
		// A policy file there that cannot be read, as one too large or
		// a FIFO: the caller's to fix (exit 2), not vigiles failing.
		return nil, errorf(ErrNoConfig, "reading %s: %w", cfgPath, err)
	}
	data, err := readSmall(abs, maxDeclFile)
	if errors.Is(err, fs.ErrNotExist) {
		// A link to nothing is there, and not a policy vigiles can read.
		if _, lerr := os.Lstat(abs); lerr == nil {
			err = fmt.Errorf("%s is a symbolic link to a file that does not exist", abs)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && command == "audit" && !explicit:
		// No policy: an audit runs on the built-in one. Only a file that
		// is not there means that: one there that cannot be read (too
		// large, a FIFO, a directory, no permission) is an error, as for
		// test, never a pass on a policy its author did not write.
	case err != nil:
		return nil, errorf(ErrNoConfig, "reading %s: %w", cfgPath, err)
	case err == nil:
		rel := cfgPath
		if r, rerr := relTo(dir, abs); rerr == nil {
			rel = r
		}
		s.policy = fmt.Sprintf("%x", sha256.Sum256(data))
		cfg, perr := ParseConfig(rel, data)
		var ces ConfigErrors
		if errors.As(perr, &ces) {
			s.findings = append(s.findings, ces.Findings()...)
			policyBroken = len(ces) > 0
		} else if perr != nil {
			return nil, perr
		}
		if cfg != nil {
			s.cfg = cfg
			if command == "test" {
				if e := cfg.noChecks(); e != nil {
					s.findings = append(s.findings, ConfigErrors{e}.Findings()...)
				}
			}
		}
	}

	// Settings.
	d := s.cfg.Defaults
	// The flag wins; then the policy; an audit exists to collect evidence,
	// so it confines trusted code too unless the sandbox is explicitly off.
	mode := o.Sandbox
	if mode == "" {
		mode = d.Sandbox
		if command == "audit" && mode != sandbox.ModeOff {
			mode = sandbox.ModeStrict
		}
		if policyBroken && mode != sandbox.ModeStrict && s.cfg.givesTrust() {
			// Fail closed: what the policy's errors dropped may be
			// what it meant to confine (an untrusted glob that is a
			// typo, beside a trusted one that covers the plugin), so
			// none of its trust, nor its sandbox: off, is honoured.
			mode = sandbox.ModeStrict
			s.findings = append(s.findings, report.Finding{Rule: RuleConfig, Severity: report.SeverityError,
				Location: report.Location{File: s.cfg.File, Line: 1, Column: 1}, Title: "invalid .vigiles.yml: every hook runs confined",
				Message: fmt.Sprintf("%s has errors, so vigiles honours none of the trust it gives: every hook runs confined (as with --sandbox strict), plugins.trusted, a check's trusted: true and defaults.sandbox: off included, until the errors are mended; --sandbox on the command line still chooses", s.cfg.File)})
		}
	}
	if mode == sandbox.ModeOff && o.Sandbox == "" {
		// The policy's own off runs every hook in the open: what it
		// says beside it that only a sandbox honours does nothing.
		s.findings = append(s.findings, ConfigErrors(d.OpenIgnored).Findings()...)
	}
	if mode == "" {
		mode = sandbox.ModeAuto
	}
	if _, err := sandbox.ParseMode(string(mode)); err != nil {
		return nil, errorf(ErrBadOption, "%w", err)
	}
	if mode == sandbox.ModeOff && o.Sandbox == "" && (o.Egress != nil || o.RootSandbox) {
		// The policy runs every hook in the open: a flag only a sandbox
		// honours would be taken and do nothing, as it is refused
		// beside --sandbox off.
		// Said before the egress mode's own mistake: --allow without
		// --egress would be told to add --egress allow, which this
		// refuses next.
		flag := "--egress"
		switch {
		case o.Egress == nil:
			flag = "--root-sandbox"
		case o.Egress.Mode == "":
			flag = "--allow"
		}
		return nil, errorf(ErrBadOption, "%s: %s says defaults.sandbox: off, which runs every hook in the open, where %s does nothing; confine the hooks (--sandbox strict or auto) or leave %s out", flag, s.cfg.File, flag, flag)
	}
	eg := evidence.EgressPolicy{Mode: evidence.EgressDeny}
	if d.Egress != nil {
		eg = *d.Egress
	}
	if o.Egress != nil {
		if o.Egress.Mode == "" {
			e := &EgressModeError{Mode: eg.Mode}
			if d.Egress != nil {
				e.File = s.cfg.File
			}
			return nil, e
		}
		eg = *o.Egress
	}
	exec := o.Executor
	if exec == nil {
		exec = SandboxExecutor
	}
	var progress io.Writer
	if o.Progress != nil {
		// The runs' lines and the interruption's come from goroutines of
		// their own.
		progress = &lockedWriter{w: o.Progress}
	}
	s.settings = &runSettings{dir: dir, mode: mode, egress: eg, timeout: d.Timeout, linger: d.Linger,
		limits: d.Limits, outCap: d.OutputCap, rootSandbox: o.RootSandbox || d.RootSandbox, jobs: o.Jobs, exec: exec, progress: progress}
	if o.Invoked.Action {
		// The action's annotations and report place a finding by its
		// path from the repository's root, working-directory and all;
		// its progress lines name the runs' files the same way.
		s.settings.progressDir = o.Invoked.Dir
	}
	return s, nil
}

func (s *session) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(s.dir, p)
}

// linkedOut refuses a path inside the repository that a symbolic link
// leads out of it: the policy and the baseline kept there are the
// repository's own files, and a link must not make vigiles read a host
// file as one (and quote it back in findings) or write one on the host.
// A path outside the repository is the caller's own choice.
func (s *session) linkedOut(p string) error {
	if _, err := relTo(s.dir, p); err != nil {
		return nil
	}
	if _, _, err := beneath(s.dir, s.dir, p); errors.Is(err, ErrOutsideTree) {
		return fmt.Errorf("a symbolic link leads it outside the repository; vigiles does not read or write it there: %w", err)
	}
	return nil
}

// discover runs every adapter over the roots and marks trust.
// inPart says whether file (relative to the work tree) lies in what the
// audit covers: anywhere for a whole audit, else under one of its PATHs.
// A path is looked at as the repository spells it and where its links
// lead (a PATH is taken where it leads: a .claude that is a link to
// config/claude is config/claude).
func (s *session) inPart(file string) bool {
	if s.part == nil {
		return true
	}
	return slices.ContainsFunc(s.part, func(r string) bool { return s.within(file, r) })
}

// within says whether file (relative to the work tree) is the directory
// r or lies below it, as spelled or where its links lead.
func (s *session) within(file, r string) bool {
	under := func(f string) bool { return f == r || strings.HasPrefix(f, r+"/") }
	if under(file) {
		return true
	}
	real, ok := s.realRel[file]
	if !ok {
		real = file
		if a, _, err := beneath(s.dir, s.dir, s.abs(file)); a != "" && (err == nil || errors.Is(err, fs.ErrNotExist)) {
			real, _ = relTo(s.dir, a)
		}
		if s.realRel == nil {
			s.realRel = map[string]string{}
		}
		s.realRel[file] = real
	}
	return real != file && under(real)
}

// holds says whether a hook of the whole tree's discovery is part of an
// audit of some PATHs: declared under them, or read there by a plugin or
// package (a marketplace entry elsewhere may give a plugin there hooks,
// or its manifest name a file elsewhere), or a declaration that discovery
// from a PATH reads too (scope).
func (s *session) holds(h *Hook, scope map[string]bool) bool {
	if s.inPart(h.Location.File) || scope[h.decl()] {
		return true
	}
	if h.InPlugin && h.PluginRoot != "" && s.inPart(h.PluginRoot) {
		return true
	}
	return h.ProjectDir != "" && s.inPart(h.ProjectDir)
}

func (s *session) discover(paths []string) error {
	var roots []string
	whole := len(paths) == 0
	for _, p := range paths {
		// Looked up as discovery looks up what the repository names
		// (beneath): a PATH may be a name the repository controls (a
		// symbolic link a glob matched), and where it leads outside is
		// not looked at, so every PATH that leads out gets the one error,
		// whatever is there on the host.
		at := s.abs(p)
		if rel, err := filepath.Rel(s.spelled, p); err == nil && filepath.IsAbs(p) && !leavesDir(rel) {
			// Under --dir as it was spelled, through a link to the tree:
			// the caller's own spelling, not a link of the repository's.
			at = s.abs(rel)
		}
		a, fi, err := beneath(s.dir, s.dir, at)
		switch {
		case errors.Is(err, ErrOutsideTree):
			return &AuditPathError{Path: p, Dir: s.dir, Outside: true}
		case errors.Is(err, fs.ErrNotExist):
			return &AuditPathError{Path: p, Dir: s.dir, Missing: true}
		case err != nil || !fi.IsDir():
			return &AuditPathError{Path: p, Dir: s.dir}
		}
		roots = append(roots, a)
		whole = whole || a == s.dir
	}
	if !whole {
		// The baseline is written from what the audit ran: one of some
		// directories would drop every other hook from it.
		if s.o.UpdateBaseline {
			return &PartialAuditError{Paths: paths}
		}
		for _, r := range roots {
			rel, _ := relTo(s.dir, r)
			if !slices.Contains(s.part, rel) {
				s.part = append(s.part, rel)
			}
		}
		roots = roots[:0]
		for _, rel := range s.part {
			roots = append(roots, s.abs(rel))
		}
	}
	// The whole tree is discovered for every audit, from the work tree and
	// the plugin paths the policy names: a handler is read in each context
	// that reaches it (readIn), and a plugin under every name
	// (Hook.AlsoNamed), wherever those readers lie, so an audit of part
	// of the tree runs what a whole audit runs there, under the same ids
	// and contexts, and the baseline sees no hook removed or moved that
	// is not. It keeps the handlers declared under its PATHs, in every
	// context, and those of the files read from there (a plugin's
	// manifest may name a hooks file outside it), then adds what
	// discovery from each PATH finds that the whole walk does not reach
	// (below a dot-directory or node_modules).
	tree := append([]string{s.dir}, s.namedRoots()...)
	var parts []*Discovery
	if s.part != nil {
		for _, r := range roots {
			d, err := s.discoverAt(r)
			if err != nil {
				return err
			}
			parts = append(parts, d)
		}
	}
	scope := map[string]bool{}
	partRead := map[string]bool{} // a fixture's, read as a PATH
	for _, d := range parts {
		for _, h := range d.Hooks {
			scope[h.decl()] = true
		}
		for _, p := range append(slices.Clone(d.Projects), d.Plugins...) {
			partRead[p] = true
		}
	}
	seenHook := map[string]bool{}
	seenDecl := map[string]bool{}
	seenFinding, saidAt := map[string]bool{}, map[string]bool{}
	placeOf := func(f report.Finding) string {
		return f.Rule + "\x00" + f.Location.File + "\x00" + strconv.Itoa(f.Location.Line) + "\x00" + strconv.Itoa(f.Location.Column)
	}
	addFinding := func(f report.Finding) {
		k := f.Rule + "\x00" + f.Location.File + "\x00" + strconv.Itoa(f.Location.Line) + "\x00" + strconv.Itoa(f.Location.Column) + "\x00" + f.Message
		if !seenFinding[k] {
			seenFinding[k] = true
			s.findings = append(s.findings, f)
		}
	}
	seenRoot := map[string]bool{}
	seenServer := map[string]bool{}
	// Where the servers kept are declared, a plugin's apart from a
	// project's: a plugin root's .mcp.json is both (projectMCP).
	type serverPlace struct {
		loc       report.Location
		inProject bool
	}
	serverAt := map[serverPlace]bool{}
	for _, root := range tree {
		if seenRoot[root] {
			continue
		}
		seenRoot[root] = true
		d, err := s.discoverAt(root)
		if err != nil {
			return err
		}
		s.addDiscovered(d)
		for _, h := range d.Hooks {
			seenDecl[h.decl()] = true
			if !seenHook[h.ID] && s.holds(h, scope) {
				seenHook[h.ID] = true
				s.hooks = append(s.hooks, h)
			}
		}
		for i, f := range d.Findings {
			if dir, ok := d.UnreadFixtures[i]; ok && partRead[dir] {
				continue // the PATH's discovery reads it, as asked
			}
			saidAt[placeOf(f)] = true
			if s.inPart(f.Location.File) || slices.Contains(d.Bounded, i) || slices.ContainsFunc(d.About[i], s.inPart) {
				addFinding(f)
			}
		}
		for _, sv := range d.Servers {
			// Kept as a hook is: declared under the PATHs, or a server
			// of a plugin there.
			if k := sv.key(); !seenServer[k] && (s.inPart(sv.Location.File) || s.inPart(sv.PluginRoot)) {
				seenServer[k], serverAt[serverPlace{sv.Location, sv.InProject}] = true, true
				s.servers = append(s.servers, sv)
			}
		}
	}
	for i, d := range parts {
		s.addDiscovered(d)
		found := 0
		for _, h := range d.Hooks {
			if !seenDecl[h.decl()] && !seenHook[h.ID] {
				seenHook[h.ID] = true
				s.hooks = append(s.hooks, h)
			}
		}
		for _, h := range s.hooks {
			if s.within(h.Location.File, s.part[i]) || h.InPlugin && s.within(h.PluginRoot, s.part[i]) ||
				h.ProjectDir != "" && s.within(h.ProjectDir, s.part[i]) {
				found++
			}
		}
		for _, f := range d.Findings {
			// What the whole discovery says at that place already is
			// the one said: it knows every plugin and marketplace.
			if !saidAt[placeOf(f)] {
				addFinding(f)
			}
		}
		for _, sv := range d.Servers {
			if at := (serverPlace{sv.Location, sv.InProject}); !seenServer[sv.key()] && !serverAt[at] {
				seenServer[sv.key()], serverAt[at] = true, true
				s.servers = append(s.servers, sv)
			}
		}
		if found == 0 && len(d.Hooks) == 0 {
			s.empty = append(s.empty, s.part[i])
		}
	}
	if s.part == nil && len(s.hooks) == 0 {
		s.empty = append(s.empty, ".")
	}
	sort.SliceStable(s.hooks, func(i, j int) bool { return s.hooks[i].ID < s.hooks[j].ID })
	for _, h := range s.hooks {
		h.Trusted = trusted(h.PluginRoot, s.cfg.Trusted, s.cfg.Untrusted)
		if h.InPlugin {
			h.InstalledAs = s.installedAs(h.PluginRoot)
		}
	}
	s.applySettings()
	s.sameNamePlugins()
	s.serverFindings()
	s.hookFetchedCode()
	s.hookClimbsOut()
	s.hookRemoteSession()
	s.hookNeverSet()
	s.hookBashOnly()
	s.hookRelativePath()
	s.outsidePlugins()
	return nil
}

// installedAs is the ID Claude Code installs the plugin directory root
// (relative to the tree) under (Hook.InstalledAs), "" where no
// marketplace of the tree's lists it. Of several, any one is an ID Claude
// Code gives it, where the name alone is one it never does; a
// skills-directory plugin's first, which a session loads with no install.
func (s *session) installedAs(root string) string {
	ids := s.installs[root]
	if len(ids) == 0 {
		return ""
	}
	return slices.MinFunc(ids, func(a, b string) int {
		if sa, sb := isSkillsDirID(a), isSkillsDirID(b); sa != sb {
			if sa {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
}

// namedRoots returns the plugin directories the policy names
// (plugins.trusted and plugins.untrusted), which are discovery roots too:
// they may lie where the walk of the tree does not look.
func (s *session) namedRoots() []string {
	var out []string
	for _, g := range append(slices.Clone(s.cfg.Trusted), s.cfg.Untrusted...) {
		matches, _ := filepath.Glob(filepath.Join(s.dir, filepath.FromSlash(g)))
		for _, m := range matches {
			// s.dir has every link followed already (newSession).
			if _, fi, err := beneath(s.dir, s.dir, m); err == nil && fi.IsDir() {
				out = append(out, m)
			}
		}
	}
	return out
}

// discoverAt runs every adapter from root and gathers what they find.
func (s *session) discoverAt(root string) (*Discovery, error) {
	all := &Discovery{}
	for _, a := range Adapters {
		d, err := a.Discover(s.dir, root)
		if err != nil {
			return nil, fmt.Errorf("discovering %s hooks under %s: %w", a.Name(), root, err)
		}
		for _, i := range d.Bounded {
			all.Bounded = append(all.Bounded, len(all.Findings)+i)
		}
		for i, dirs := range d.About {
			if all.About == nil {
				all.About = map[int][]string{}
			}
			all.About[len(all.Findings)+i] = dirs
		}
		for i, dir := range d.UnreadFixtures {
			if all.UnreadFixtures == nil {
				all.UnreadFixtures = map[int]string{}
			}
			all.UnreadFixtures[len(all.Findings)+i] = dir
		}
		all.Hooks = append(all.Hooks, d.Hooks...)
		all.Findings = append(all.Findings, d.Findings...)
		all.Servers = append(all.Servers, d.Servers...)
		all.Plugins = append(all.Plugins, d.Plugins...)
		for root, name := range d.PluginNames {
			if all.PluginNames == nil {
				all.PluginNames = map[string]string{}
			}
			if _, ok := all.PluginNames[root]; !ok {
				all.PluginNames[root] = name
			}
		}
		all.Projects = append(all.Projects, d.Projects...)
		for name, dirs := range d.MarketDirs {
			if all.MarketDirs == nil {
				all.MarketDirs = map[string][]string{}
			}
			all.MarketDirs[name] = append(all.MarketDirs[name], dirs...)
		}
		for name, files := range d.MarketFiles {
			if all.MarketFiles == nil {
				all.MarketFiles = map[string][]string{}
			}
			all.MarketFiles[name] = append(all.MarketFiles[name], files...)
		}
		if all.Markets == nil {
			all.Markets = map[string][]string{}
		}
		for name, ms := range d.Markets {
			all.Markets[name] = append(all.Markets[name], ms...)
		}
		for root, ids := range d.Installs {
			if all.Installs == nil {
				all.Installs = map[string][]string{}
			}
			all.Installs[root] = append(all.Installs[root], ids...)
		}
		for name, why := range d.Skipped {
			if all.Skipped == nil {
				all.Skipped = map[string]string{}
			}
			all.Skipped[name] = why
		}
	}
	return all, nil
}

// addDiscovered adds what d found of the tree's marketplaces (those that
// list each plugin, the directories of each name) and projects.
func (s *session) addDiscovered(d *Discovery) {
	mergeLists(&s.markets, d.Markets)
	mergeLists(&s.installs, d.Installs)
	mergeLists(&s.marketDirs, d.MarketDirs)
	mergeLists(&s.marketFiles, d.MarketFiles)
	for name, why := range d.Skipped {
		if s.skipped == nil {
			s.skipped = map[string]string{}
		}
		s.skipped[name] = why
	}
	appendNew(&s.projects, d.Projects)
	appendNew(&s.plugins, d.Plugins)
	for root, name := range d.PluginNames {
		if s.pluginNames == nil {
			s.pluginNames = map[string]string{}
		}
		if _, ok := s.pluginNames[root]; !ok {
			s.pluginNames[root] = name
		}
	}
}

// mergeLists adds to *dst, key by key, the values of src it lacks, in
// their order: in linear time, as a marketplace may install one directory
// under a hundred thousand IDs.
func mergeLists(dst *map[string][]string, src map[string][]string) {
	for k, vs := range src {
		if *dst == nil {
			*dst = map[string][]string{}
		}
		have := make(map[string]bool, len((*dst)[k]))
		for _, v := range (*dst)[k] {
			have[v] = true
		}
		for _, v := range vs {
			if !have[v] {
				have[v] = true
				(*dst)[k] = append((*dst)[k], v)
			}
		}
	}
}

// appendNew appends to *dst each of vs it does not hold yet, in order,
// through a set: a tree of 10,000 plugins searched the list for each
// (0.37 s, and growing with the square of the plugins).
func appendNew(dst *[]string, vs []string) {
	have := make(map[string]bool, len(*dst)+len(vs))
	for _, v := range *dst {
		have[v] = true
	}
	for _, v := range vs {
		if !have[v] {
			have[v] = true
			*dst = append(*dst, v)
		}
	}
}

// trusted says whether a plugin root is authored here: listed under
// plugins.trusted and not under plugins.untrusted (untrusted wins).
func trusted(root string, trustedGlobs, untrustedGlobs []string) bool {
	in := func(globs []string) bool {
		for _, g := range globs {
			g = strings.TrimSuffix(strings.TrimPrefix(g, "./"), "/")
			if g == "" {
				g = "."
			}
			if g == root || globMatch(g, root) || (g != "." && strings.HasPrefix(root, g+"/")) || g == "**" {
				return true
			}
		}
		return false
	}
	return in(trustedGlobs) && !in(untrustedGlobs)
}

// runIDOf splits sel, a run's ID as a report shows it (a hook's ID, "@"
// and the tool or matcher value it ran for), into the hook's ID and that
// tool, where one of hooks has that ID.
func runIDOf(hooks []*Hook, sel string) (id, tool string, ok bool) {
	i := strings.LastIndexByte(sel, '@')
	if i <= 0 || i == len(sel)-1 {
		return "", "", false
	}
	id, tool = sel[:i], sel[i+1:]
	return id, tool, slices.ContainsFunc(hooks, func(h *Hook) bool { return h.ID == id })
}

// dedupeKey is what Claude Code tells a command hook's run apart from
// another's of the same call by (getMatchingHooks: hookDedupKey): its
// source (a plugin's root; a project's settings files, the work tree's or
// a package's, are one), its event and the call's tool or matcher value,
// its shell, its command as written and its if, and for a hook in exec
// form its args: the hooks reference said, from the release that brought
// exec form (2.1.139) to 2.1.222, "Command hooks are deduplicated by
// command string and `args`", and since says "the same handler" runs
// once. vigiles also keeps apart hooks that differ in async, timeout or
// onFailure, which Claude Code's key leaves out, exec form from shell
// form, and args split otherwise (["a b"], ["a", "b"]), so that no run
// whose record could differ is dropped. "" for a run that is never
// merged here: a hook that is no command, one a skill, agent or command
// declares (its source is that component).
func dedupeKey(pr *plannedRun) string {
	h := pr.Hook
	if !h.Executable() || h.Scoped {
		return ""
	}
	src := "project\x00" + h.ProjectDir
	if h.InPlugin {
		src = "plugin\x00" + h.PluginRoot
	}
	form := "shell"
	if h.Exec {
		form = fmt.Sprintf("exec %q", h.Args)
	}
	return strings.Join([]string{src, h.Event, pr.Payload.Tool, cmp.Or(h.Shell, "bash"), h.Command, form, h.If,
		fmt.Sprint(h.Async, h.FailBlocks, h.Timeout)}, "\x00")
}

// dedupePlan drops each planned run that Claude Code merges into another
// of the same call (dedupeKey): it runs a command hook once for a call
// however often its source declares it (a manifest's inline hooks that
// repeat its hooks/hooks.json, a command in both project settings files),
// the last declared (byDeclaration: the plan is in the IDs' order, which
// puts hooks[10] before hooks[9]). Each run dropped is a plan/not-run
// notice that names the run kept, and its ID is returned, so that a
// baseline that has it does not read it as removed.
func dedupePlan(plan []*plannedRun) ([]*plannedRun, []report.Finding, []string) {
	last := map[string]int{}
	for i, pr := range plan {
		if k := dedupeKey(pr); k != "" {
			if j, ok := last[k]; !ok || byDeclaration(plan[j].Hook.Location, pr.Hook.Location) <= 0 {
				last[k] = i
			}
		}
	}
	var finds []report.Finding
	var ids []string
	kept := plan[:0:0]
	for i, pr := range plan {
		k := dedupeKey(pr)
		if k == "" || last[k] == i {
			kept = append(kept, pr)
			continue
		}
		other := plan[last[k]]
		src := "its plugin"
		if !pr.Hook.InPlugin {
			src = "its project's settings"
		}
		same := "its command, shell and if"
		if pr.Hook.Exec {
			same = "its command and args, shell and if"
		}
		finds = append(finds, report.Finding{Rule: RuleNoRun, Severity: report.SeverityNotice, Location: pr.Hook.Location, Hook: pr.ID,
			Title: "hook not run", Message: fmt.Sprintf("%s was not run: %s declares the same command hook again (%s), and Claude Code runs it once for a call, the last declared: %s, which vigiles runs", shownCut(pr.ID, maxServerLine), src, same, shownCut(other.ID, maxServerLine))})
		ids = append(ids, pr.ID)
	}
	return kept, finds, ids
}

// toolsFor returns the tools (or matcher values) a hook runs for in an
// audit, and why none when it runs for none.
func toolsFor(h *Hook, payloads map[string]map[string]any, cwd string) ([]Payload, string) {
	spec, known := knownEvents[h.Event]
	if !known {
		return []Payload{BuildPayload(h.Event, "", cwd, nil, nil)}, ""
	}
	m, err := compileMatcherFor(h.Event, h.Matcher)
	if !readsMatcher(h.Event) {
		// Claude Code runs the hook whatever its matcher says: no
		// mistake in it keeps the hook from running.
	} else if err != nil && !errors.Is(err, ErrUnsupportedMatcher) {
		return nil, fmt.Sprintf("its matcher %q is not a valid regular expression, so it never runs", h.Matcher)
	} else if negationMatcher(h.Matcher) && h.Event != FileChanged {
		return nil, fmt.Sprintf("its matcher %q is a negation, which Claude Code does not have: it matches only a name that holds it, so it never runs", h.Matcher)
	}
	if spec.Tool {
		if ruleNeverMatches(h.Event, h.Matcher, m) {
			return nil, fmt.Sprintf("its matcher %q, written as a permission rule, matches no tool Claude Code has (no tool's name holds %q), so it never runs", h.Matcher, m.Example())
		}
		if names := m.Names(); len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return !mcpServerName(n) }) {
			return nil, fmt.Sprintf("its matcher %q names an MCP server, not a tool (an MCP tool's name is mcp__<server>__<tool>), and Claude Code compares it with tools' names exactly: it matches no tool, so it never runs", h.Matcher)
		}
		var cands []string
		cands = append(cands, DefaultTools...)
		for _, n := range m.Names() {
			if mcpServerName(n) {
				continue // no tool's name (mcp__memory): it runs for none
			}
			// A tool's earlier name runs for the tool (Task for Agent).
			if n = currentToolName(n); !contains(cands, n) {
				cands = append(cands, n)
			}
		}
		// A tool the policy gives a payload for is one the audit sends
		// too: the way to run a hook that selects none of the defaults or
		// the tool built from its matcher.
		for _, n := range slices.Sorted(maps.Keys(payloads)) {
			if !contains(cands, n) {
				cands = append(cands, n)
			}
		}
		// The tool the handler's `if` names is the one call Claude Code
		// runs it for (mcp__srv__exec under the matcher mcp__.*): sent
		// too where the matcher selects it, so that an `if` naming a tool
		// vigiles does not send cannot hide the hook.
		if r, err := parseIf(h.If); h.If != "" && err == nil && !contains(cands, ifTool(r)) {
			cands = append(cands, ifTool(r))
		}
		var out []Payload
		for _, t := range cands {
			if !m.Match(t) || skipsToolEvent(h.Event, t) {
				continue
			}
			in := payloads[t]
			var ti map[string]any
			if in != nil {
				ti = copyMap(in)
			} else {
				ti = DefaultToolInput(t, cwd)
			}
			if !IfMatches(h.If, h.Event, t, cwd, ti) {
				// Build an input the condition selects; never let an `if`
				// hide a hook from the audit.
				ti = SynthInput(h.If, t, cwd, ti)
				if ti == nil || !IfMatches(h.If, h.Event, t, cwd, ti) {
					continue
				}
			}
			out = append(out, BuildPayload(h.Event, t, cwd, ti, insideAgent(h, nil)))
		}
		for _, t := range claudeTools {
			// None of those, but a tool of Claude Code's own that the
			// expression selects (NotebookEdit under Notebook.*): Claude
			// Code runs the hook for it, not for a name built to fit.
			if len(out) > 0 {
				break
			}
			if contains(cands, t) || !m.Match(t) || skipsToolEvent(h.Event, t) {
				continue
			}
			ti := DefaultToolInput(t, cwd)
			if in := payloads[t]; in != nil {
				ti = copyMap(in)
			}
			if IfMatches(h.If, h.Event, t, cwd, ti) {
				out = append(out, BuildPayload(h.Event, t, cwd, ti, insideAgent(h, nil)))
			}
		}
		if x := m.Example(); len(out) == 0 && x != "" && !contains(cands, x) && !skipsToolEvent(h.Event, x) {
			// None of the tools vigiles names by default, but one the
			// expression selects (an MCP server's, mcp__memory__.*):
			// Claude Code runs the hook for it.
			ti := DefaultToolInput(x, cwd)
			if in := payloads[x]; in != nil {
				ti = copyMap(in)
			}
			if IfMatches(h.If, h.Event, x, cwd, ti) {
				out = append(out, BuildPayload(h.Event, x, cwd, ti, insideAgent(h, nil)))
			}
		}
		if len(out) == 0 && m.Match(endConversation) && skipsToolEvent(h.Event, endConversation) {
			what := fmt.Sprintf("its matcher %q selects %s", h.Matcher, endConversation)
			if r, err := parseIf(h.If); h.If != "" && (err != nil || ifTool(r) != endConversation) {
				what = "" // the if condition, not the tool, keeps it from running
			} else if h.If != "" {
				what = fmt.Sprintf("its if condition %q names %s", h.If, endConversation)
			}
			if what != "" {
				return nil, fmt.Sprintf("%s, for which Claude Code runs no %s hook (nor %s), and no other tool an audit sends, so it never runs",
					what, h.Event, JoinWords(slices.DeleteFunc(slices.Clone(endConversationSkips), func(e string) bool { return e == h.Event }), "or"))
			}
		}
		if len(out) == 0 {
			why := fmt.Sprintf("its matcher %q selects none of the default tools (%s) or the tools .vigiles.yml gives payloads for", h.Matcher, strings.Join(DefaultTools, ", "))
			if h.If != "" {
				why = fmt.Sprintf("vigiles could build no tool input that passes its if condition %q (matcher %q)", h.If, h.Matcher)
			}
			return nil, why + "; give the audit a payload for a tool it is meant for (payloads: in .vigiles.yml), and add a check with that tool and input"
		}
		return out, ""
	}
	if h.If != "" {
		return nil, fmt.Sprintf("it has an if condition (%q) on %s, a non-tool event, and Claude Code never runs such a handler", h.If, h.Event)
	}
	if h.Event == FileChanged {
		// The matcher lists the files watched, by literal name: the
		// first one changes.
		for _, f := range strings.Split(h.Matcher, "|") {
			if f = strings.TrimSpace(f); f != "" && f != "*" && !strings.Contains(f, "/") {
				return []Payload{BuildPayload(h.Event, f, cwd, nil, nil)}, ""
			}
		}
		return []Payload{BuildPayload(h.Event, "", cwd, nil, nil)}, ""
	}
	vals := matchValues(h, h.Event)
	if spec.MatchField == "" || !h.HasMatcher {
		v := ""
		if spec.MatchField != "" {
			v = vals[0]
		}
		return []Payload{BuildPayload(h.Event, v, cwd, nil, nil)}, ""
	}
	for _, v := range valuesToTry(spec, vals, m) {
		if m.Match(v) {
			return []Payload{BuildPayload(h.Event, v, cwd, nil, nil)}, ""
		}
	}
	if x := m.Example(); x != "" && !spec.Closed && h.AgentType == "" {
		// An open list (agent types, command names, MCP servers): a
		// value the expression selects is one Claude Code may send (not
		// to an agent's own SubagentStop hook, which runs when that
		// agent stops).
		return []Payload{BuildPayload(h.Event, x, cwd, nil, nil)}, ""
	}
	return nil, fmt.Sprintf("its matcher %q selects none of the %s values vigiles sends (%s)", h.Matcher, spec.MatchField, strings.Join(vals, ", "))
}

// endConversation is Claude Code's tool that ends the session (2.1.213
// and later, in an interactive terminal session on newer models): it
// never asks for permission, and Claude Code runs no PreToolUse,
// PostToolUse or PermissionRequest hook for it (hooks.md, "Hook
// lifecycle", "PreToolUse" and "PermissionRequest"; tools-reference.md,
// "EndConversation tool behavior").
const endConversation = "EndConversation"

// endConversationSkips are the events Claude Code never fires for an
// EndConversation call, in the order of a session.
var endConversationSkips = []string{PreToolUse, PermissionRequest, PostToolUse}

// skipsToolEvent reports whether Claude Code never fires the tool event
// event for a call of tool: a payload of it is one no session sends. The
// reference is silent on the other tool events (PostToolUseFailure,
// PermissionDenied), which are left as they are.
func skipsToolEvent(event, tool string) bool {
	return tool == endConversation && slices.Contains(endConversationSkips, event)
}

// valuesToTry are the matcher values an audit may send a hook of an event
// with a matcher field: vals (matchValues), and the names the matcher m
// writes out, but on an event whose values are all Claude Code ever sends
// (Closed): there a name among none of them (Startup on SessionStart,
// whose source is startup) is one Claude Code never sends, so the hook
// never runs for it (discovery/invalid-matcher says so).
func valuesToTry(spec eventSpec, vals []string, m *Matcher) []string {
	if spec.Closed {
		return vals
	}
	return append(slices.Clip(vals), m.Names()...)
}

// insideAgent is the top-level fields a payload of h takes over its
// event's, extra merged over them: for a tool event's hook that an agent
// declares, which Claude Code runs only while that agent runs (hooks.md,
// "Hooks in skills and agents"), the agent_id and agent_type a tool call
// inside a subagent carries ("Common input fields"); extra alone
// otherwise.
func insideAgent(h *Hook, extra map[string]any) map[string]any {
	if h.AgentType == "" || !IsToolEvent(h.Event) {
		return extra
	}
	out := map[string]any{"agent_id": defaultAgentID, "agent_type": h.AgentType}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// matchValues returns the values of event's matcher field that vigiles
// may send h, the first being the one sent when no matcher chooses: the
// event's own, after, for the SubagentStop of a hook an agent declares,
// that agent's type, which Claude Code sends when the agent stops. A
// matcher that does not select it still picks among the others: an audit
// runs the hook rather than hide it behind a value vigiles guessed.
func matchValues(h *Hook, event string) []string {
	spec := knownEvents[event]
	out := make([]string, 0, len(spec.Values)+1)
	if event == SubagentStop && h.AgentType != "" {
		out = append(out, h.AgentType)
	}
	return append(out, spec.Values...)
}

func contains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// idFile is a tree path (a declaring file, a plugin's root) as a hook's
// ID names it: each name of it as a baseline keeps a written name
// (baselineName), as it is where it is valid UTF-8 with no U+FFFD and
// reads as no Go quote ("q" does, "q does not), and quoted in Go syntax
// otherwise. So an ID is valid
// UTF-8, which JSON (the report, the baseline) keeps exact, and two paths
// never share one: p\xff/hooks/hooks.json and p\xfe/hooks/hooks.json are
// "p\xff"/hooks/hooks.json and "p\xfe"/hooks/hooks.json, where JSON
// would make U+FFFD of both. Any other path is named as it is, as before.
func idFile(p string) string {
	if baselineName(p) == p && !strings.HasPrefix(p, `"`) && !strings.Contains(p, `/"`) {
		return p
	}
	names := strings.Split(p, "/")
	for i, n := range names {
		names[i] = baselineName(n)
	}
	return strings.Join(names, "/")
}

// keptContext is a run's context (report.HookRun.Context: plugin:ROOT or
// project:DIR) as a baseline keeps and compares it: its root or directory
// as idFile names it, so that plugin:p\xff is not plugin:p\xfe there.
func keptContext(c string) string {
	kind, dir, ok := strings.Cut(c, ":")
	if !ok {
		return c
	}
	return kind + ":" + idFile(dir)
}

// fileOfID is the tree path a name idFile made stands for (its inverse):
// each name of it that is a baseline's quote (baselineNameOf) unquoted,
// any other as it is, so that a file or root a baseline keeps as the id
// names it ("p\xff"/hooks/hooks.json) is compared with the tree's paths
// (inPart) and placed as the repository names it.
func fileOfID(k string) string {
	if !strings.HasPrefix(k, `"`) && !strings.Contains(k, `/"`) {
		return k
	}
	names := strings.Split(k, "/")
	for i, n := range names {
		names[i], _ = baselineNameOf(n)
	}
	return strings.Join(names, "/")
}

func runID(h *Hook, tool string) string {
	if tool == "" {
		return h.ID
	}
	return h.ID + "@" + tool
}

// shardOf keeps the runs of shard i of n: every n-th run of the sorted
// plan, starting at the (i-1)-th.
func shardOf(plan []*plannedRun, i, n int) []*plannedRun {
	if n <= 1 {
		return plan
	}
	var out []*plannedRun
	for k, p := range plan {
		if k%n == i-1 {
			out = append(out, p)
		}
	}
	return out
}

func sortPlan(plan []*plannedRun) {
	sort.SliceStable(plan, func(i, j int) bool { return plan[i].ID < plan[j].ID })
}

// newReport assembles and orders a report.
func (s *session) newReport(command string, runs []report.HookRun, finds []report.Finding, drift []report.Drift) *report.Report {
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: Version}, Command: command,
		Runs: runs, Findings: finds, Drift: drift}
	if s.shardN > 1 {
		rep.Shard = fmt.Sprintf("%d/%d", s.shardI, s.shardN)
		rep.Plan = s.plan
	}
	finish(rep)
	return rep
}

// planDigest is what a shard's report says of the whole work it is a
// part of (report.Report.Plan): the SHA-256 of vigiles' version, the
// command, the policy file, the baseline file (audit), the settings every
// run gets, and every planned run's id, command, context, type and trust,
// with the hashes of the files of the tree its command runs (runFiles).
// Shards of one run share it; a shard of another commit, policy,
// baseline, option or vigiles has another, which merge refuses: its runs
// would not add up to what an unsharded run would have done.
func (s *session) planDigest(command string, plan []*plannedRun) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s plan\nversion %q\ncommand %s\npolicy %s\n", report.Schema, Version, command, orDefault(s.policy, "none"))
	if command == "audit" && s.o.Baseline != "" {
		b := "none"
		if data, err := readBaseline(s.abs(s.o.Baseline)); err == nil {
			b = fmt.Sprintf("%x", sha256.Sum256(data))
		} else if !errors.Is(err, fs.ErrNotExist) {
			b = "unreadable: " + err.Error()
		}
		fmt.Fprintf(h, "baseline %s\n", b)
	}
	st := s.settings
	eg, _ := json.Marshal(st.egress)
	fmt.Fprintf(h, "settings mode=%s egress=%s timeout=%s linger=%s limits=%+v output-cap=%d root-sandbox=%t\n",
		st.mode, eg, st.timeout, st.linger, st.limits, st.outCap, st.rootSandbox)
	var files map[string][]BaselineFile
	if s.shardN > 1 {
		// The files of the tree each command runs, hashed as a baseline
		// keeps them: a shard of a tree where only a script changed
		// would otherwise share the plan, and its runs add up to no
		// audit of one tree. (A whole report has no plan to compare.)
		files, _ = s.runFiles(plan)
	}
	for _, p := range plan {
		fmt.Fprintf(h, "run %q %q %q %q %t\n", p.ID, p.Hook.shownCommand(), p.Hook.context(), p.Hook.Type, p.Hook.Trusted)
		for _, f := range files[p.ID] {
			fmt.Fprintf(h, "file %q %s\n", f.Path, f.SHA256)
		}
	}
	return fmt.Sprintf("sha256:%x", h.Sum(nil))
}

// finish sorts a report and sets its verdict: error when a run was refused
// or vigiles failed, was interrupted or ran nothing for a plan over
// Options.MaxRuns, fail when any finding is an error, else pass.
func finish(rep *report.Report) {
	if rep.Runs == nil {
		rep.Runs = []report.HookRun{}
	}
	if rep.Findings == nil {
		rep.Findings = []report.Finding{}
	}
	sort.SliceStable(rep.Runs, func(i, j int) bool { return rep.Runs[i].ID < rep.Runs[j].ID })
	sortFindings(rep.Findings)
	sortDrift(rep.Drift)
	rep.Verdict = report.VerdictPass
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			rep.Verdict = report.VerdictFail
		}
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleRunRefused || f.Rule == RuleRunFailed || f.Rule == RuleRunInterrupted || f.Rule == RuleTooManyRuns {
			rep.Verdict = report.VerdictError
		}
	}
}

// planLanes sets the lanes of each of results that ran in one (lanes
// above 0) to the whole plan's: its jobs (--jobs, one per core by
// default), never more than the plan's runs that execute. A shard's own
// would be never more than its runs: one that held a single run would
// say it ran alone, where the whole audit, and so the merge of its
// shards, says otherwise; the plan's is the same in every shard.
func (s *session) planLanes(results []executed, plan []*plannedRun) {
	jobs := s.settings.jobsOrCores()
	n := 0
	for _, p := range plan {
		if p.Hook.Executable() {
			n++
		}
	}
	for i := range results {
		if results[i].lanes > 0 {
			results[i].lanes = min(jobs, n)
		}
	}
}

// runFindings are the findings every executed run can produce on its own.
func runFindings(e executed) []report.Finding {
	r := e.run
	f := runFailure(e)
	if e.limit != "" && r.Tier != string(sandbox.TierRefused) {
		f = append(f, report.Finding{Rule: RuleRunLimit, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "hook hit a limit", Message: fmt.Sprintf("%s: %s", r.ID, limitWhy(e.limit))})
	}
	return f
}

// shortTimeout is the timeout under which a run/timeout warning of an
// audit or test whose plan runs hooks at once says that runs sharing the
// cores can take a hook past it:
// a hook with a timeout of 3 s took 1.7 s alone and 3.06 s under a
// parallel audit.
const shortTimeout = 10 * time.Second

// runFailure is the finding of a run vigiles refused, failed to make, or
// that timed out.
func runFailure(e executed) []report.Finding {
	r := e.run
	switch {
	case r.Tier == string(sandbox.TierRefused):
		return []report.Finding{{Rule: RuleRunRefused, Severity: report.SeverityError, Location: r.Location, Hook: r.ID,
			Title: "run refused", Message: fmt.Sprintf("%s was not run: %s", r.ID, orDefault(r.Refusal, r.Reason))}}
	case r.Outcome == report.OutcomeError && (!r.TimedOut || e.err != nil || e.result != nil && e.result.Error != ""):
		// vigiles' own failure (a record it could not make) is an error
		// whether or not the hook also ran out of time: a timeout is only
		// a warning, and must not hide it.
		return []report.Finding{{Rule: RuleRunFailed, Severity: report.SeverityError, Location: r.Location, Hook: r.ID,
			Title: "run failed", Message: fmt.Sprintf("%s: %s", r.ID, r.Reason)}}
	case r.TimedOut:
		msg := fmt.Sprintf("%s: %s", r.ID, r.Reason)
		so := "a hook that waits on the network (a package runner retrying its registry) runs out its time so"
		switch e.bound {
		case claudesBound, longerBound:
			so += ", as it would where Claude Code runs offline"
		case soonerBound:
			so += ", here at vigiles' bound, sooner than Claude Code would end it"
		}
		if hint := blockedHint(r, e.tree, so); hint != "" {
			msg += "; " + hint
		}
		if e.lanes > 1 && e.ended > 0 && e.ended < shortTimeout {
			// The whole plan's lanes (planLanes), not the shard's: a
			// merge of shards says what the whole audit says.
			msg += fmt.Sprintf("; the plan ran up to %d hooks at a time (--jobs, the Action's jobs input; one per core by default), and other runs sharing the machine's cores can take a hook past a timeout as short as %s: --jobs 1 times it alone", e.lanes, report.ShortDuration(e.ended))
		}
		return []report.Finding{{Rule: RuleRunTimeout, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "hook timed out", Message: msg}}
	}
	return nil
}

// Audit runs every discovered hook for every event it handles — confined
// (strict mode unless told otherwise) with egress recorded — and reports
// per run its outcome, the hosts it tried, the files it wrote and its
// duration; with a baseline, anything new is a finding at the hook's
// declaration.
func Audit(ctx context.Context, o Options) (*report.Report, error) {
	s, err := newSession(o, "audit")
	if err != nil {
		return nil, err
	}
	if err := s.discover(o.Paths); err != nil {
		return nil, err
	}
	var plan []*plannedRun
	var planFinds []report.Finding
	// The files discovery could not read whole (malformed, of the wrong
	// shape, missing, led outside the tree), but for the servers' files
	// (serverFile), which declare no hooks: fixing one makes none appear.
	unread := map[string]bool{}
	for _, f := range s.findings {
		switch f.Rule {
		case RuleMalformed, RuleWrongType, RuleMissingFile, RuleOutsideTree, RuleEscapesPlugin:
			if f.Severity == report.SeverityError && f.Location.File != "" && !s.serverFile(f.Location.File) {
				unread[f.Location.File] = true
			}
		}
	}
	for _, p := range s.empty {
		// An audit that runs nothing proves nothing: not a silent pass.
		where := "under " + p
		if p == "." {
			where = "in the work tree"
		}
		if len(unread) > 0 {
			// The look was in the right place: what it found it could
			// not read.
			planFinds = append(planFinds, report.Finding{Rule: RuleNoHooks, Severity: report.SeverityError, Location: report.Location{File: p},
				Title: "no hooks found", Message: fmt.Sprintf("no hooks could be read %s, so the audit ran nothing: the declaration files of the discovery errors (%s) are not read as Claude Code would read them; fix them",
					where, idList(slices.Sorted(maps.Keys(unread)), 5))})
			continue
		}
		if found := s.declaringIn(p); len(found) > 0 {
			// The look was in the right place too: what Claude Code
			// loads from there declares no hook (a plugin of MCP
			// servers or skills only, a project's settings of
			// permissions only). What it does hold is named in its own
			// findings; a baseline compares its servers.
			// Hooks in Claude Code's form beside them that it does not
			// load (a project's .claude/hooks/hooks.json) are named too:
			// their author may think them at work.
			unloaded := ""
			if stray := s.strayHooks(p); len(stray) > 0 {
				unloaded = "; " + strayUnloaded(stray)
			}
			planFinds = append(planFinds, report.Finding{Rule: RuleNoHooks, Severity: report.SeverityWarning, Location: report.Location{File: p},
				Title: "no hooks found", Message: fmt.Sprintf("no hooks are declared %s, so the audit ran no hook: what Claude Code loads from it declares none (%s)%s",
					where, strings.Join(found, "; "), unloaded)})
			continue
		}
		if stray := s.strayHooks(p); len(stray) > 0 {
			// Hooks in Claude Code's form, where it does not load
			// them: what an installer copies into place.
			planFinds = append(planFinds, report.Finding{Rule: RuleNoHooks, Severity: report.SeverityError, Location: report.Location{File: p},
				Title: "no hooks found", Message: fmt.Sprintf("no hooks were found %s where Claude Code loads them, so the audit ran nothing; %s", where, strayUnloaded(stray))})
			continue
		}
		planFinds = append(planFinds, report.Finding{Rule: RuleNoHooks, Severity: report.SeverityError, Location: report.Location{File: p},
			Title: "no hooks found", Message: fmt.Sprintf("no hooks were found %s, so the audit ran nothing: vigiles looks for %s and %s "+
				"and the frontmatter of %s/*/SKILL.md, %s/**/*.md and %s/**/*.md at that directory and in every .claude directory below it (a package's, as Claude Code started there loads them), "+
				"and for plugin directories (%s or %s, with the skills, agents and commands they hold) and %s below it (not in dot-directories or node_modules, not through symbolic links); "+
				"audit the directory that holds the plugins",
				where, claudeSettings, claudeSettingsLocal, claudeProjectSkills, claudeProjectAgents, claudeProjectCommands, claudePluginJSON, claudeHooksJSON, claudeMarketplace)})
	}
	var unrun []*Hook               // hooks Claude Code may run that no payload of the audit's selects
	unrunWhy := map[string]string{} // by hook id: why (toolsFor)
	for _, h := range s.hooks {
		if !h.Executable() {
			plan = append(plan, &plannedRun{ID: h.ID, Hook: h, Payload: Payload{Event: h.Event}})
			continue
		}
		ps, why := toolsFor(h, s.cfg.Payloads, s.cwdOf(h))
		if len(ps) == 0 {
			planFinds = append(planFinds, report.Finding{Rule: RuleNoRun, Severity: report.SeverityWarning, Location: h.Location, Hook: h.ID,
				Title: "hook not run", Message: fmt.Sprintf("%s was not run: %s", h.ID, why)})
			if mayRun(h) {
				unrun = append(unrun, h)
				unrunWhy[h.ID] = why
			}
			continue
		}
		for _, p := range ps {
			plan = append(plan, &plannedRun{ID: runID(h, p.Tool), Hook: h, Payload: withMode(h, p, nil)})
		}
	}
	plan, dupFinds, dupIDs := dedupePlan(plan)
	planFinds = append(planFinds, dupFinds...)
	sortPlan(plan)
	s.plan = s.planDigest("audit", plan)
	allIDs := map[string]bool{}
	for _, p := range plan {
		allIDs[p.ID] = true
	}
	for _, id := range dupIDs {
		allIDs[id] = true // not run, and not removed either
	}
	mine := shardOf(plan, s.shardI, s.shardN)
	var finds []report.Finding
	if s.shardI == 1 {
		// finds begins with the session's findings: compareServers finds
		// a server's there at its index.
		finds = append(finds, s.findings...)
		finds = append(finds, planFinds...)
		if o.Baseline != "" {
			// The files of the tree the servers run, before any hook
			// runs (serverFiles).
			s.hashServerFiles()
		}
	}
	if f := s.tooManyRuns("audit", plan, mine); f != nil {
		// Nothing runs: the report says why, with what discovery found.
		rep := s.newReport("audit", nil, append(finds, *f), nil)
		if o.UpdateBaseline {
			return rep, fmt.Errorf("the baseline was not written: the audit ran nothing (%s)", RuleTooManyRuns)
		}
		return rep, nil
	}
	// The baseline is read before any hook runs: what it accepts is the
	// file as it was before them (a hook run in the open could change
	// it), and one that cannot be compared with, named and missing or
	// invalid, is said at the start of the progress, not only in the
	// report once every hook has run. The hooks run all the same: the
	// report has their findings beside the baseline's.
	var (
		b           *Baseline
		bErr        error
		bpath, brel string
	)
	if o.Baseline != "" {
		bpath, brel = s.abs(o.Baseline), o.Baseline
		if r, err := relTo(s.dir, bpath); err == nil {
			brel = r
		}
		bErr = s.linkedOut(bpath)
		if bErr == nil {
			b, bErr = loadBaseline(bpath, o.Baseline, o)
		}
		if p := s.settings.progress; p != nil && !o.UpdateBaseline {
			switch {
			case errors.Is(bErr, fs.ErrNotExist) && o.BaselineNamed:
				fmt.Fprintf(p, "%s: no baseline at %s, which was named as the baseline: the hooks run, and nothing is compared with it\n", RuleBaselineMissing, brel)
			case bErr != nil && !errors.Is(bErr, fs.ErrNotExist):
				fmt.Fprintf(p, "%s: %v: the hooks run, and nothing is compared with it\n", RuleBaselineInvalid, bErr)
			}
		}
	}
	if o.Baseline != "" && s.shardI == 1 && !o.UpdateBaseline {
		// What a pull request changes of the baseline, and of the
		// policy, is reviewed in its diff: an attribute that hides it
		// hides the change.
		for _, f := range []struct{ path, what string }{{bpath, "the baseline"}, {s.abs(s.cfg.File), "the policy file"}} {
			if rel, err := relTo(s.dir, f.path); err == nil {
				if hd := hiddenDiff(s.dir, rel, f.what); hd != nil {
					finds = append(finds, *hd)
				}
			}
		}
	}
	if o.PolicyBase != nil && s.shardI == 1 && !o.UpdateBaseline {
		// The pull request carries the policy and baseline it is
		// audited with: what it weakens of them is named.
		cmp := brel
		if o.Baseline == "" {
			cmp = ""
		}
		finds = append(finds, s.policyBaseFindings(o.PolicyBase, b, bErr, cmp)...)
	}
	var ranFs, unrunFs *ranFiles
	if o.Baseline != "" {
		// The files of the tree this shard's hooks run, before any of
		// them runs (runFiles), as the servers' are.
		ranFs = &ranFiles{}
		ranFs.files, ranFs.unhashed = s.runFiles(mine)
		if s.shardI == 1 {
			// And those of the hooks no payload selects, which the
			// baseline accepts as not run for their command
			// (unrunAdded): a script rewritten under one is another
			// hook, though the audit does not run it. The first shard
			// compares them, and writes them (an update is one shard).
			as := make([]*plannedRun, len(unrun))
			for i, h := range unrun {
				as[i] = &plannedRun{ID: h.ID, Hook: h}
			}
			unrunFs = &ranFiles{}
			unrunFs.files, unrunFs.unhashed = s.runFiles(as)
		}
	}
	results, stop := s.settings.executeTracked(ctx, mine)
	s.planLanes(results, plan)

	runs := make([]report.HookRun, 0, len(results))
	var stopped map[int]bool        // by index in runs: the runs the interruption stopped, or never started
	failed := map[string]bool{}     // runs with run/refused or run/failed
	cutShort := map[string]string{} // runs ended sooner than Claude Code would end them (executed.cutShort)
	limited := map[string]string{}  // runs that hit a limit of the sandbox (executed.limit)
	for i, e := range results {
		runs = append(runs, e.run)
		if f, cut := stop.finding(i, mine[i], e); cut {
			finds = append(finds, f...)
			if stopped == nil {
				stopped = map[int]bool{}
			}
			stopped[i] = true
			continue
		}
		if e.cutShort != "" {
			cutShort[e.run.ID] = e.cutShort
		}
		if e.limit != "" {
			limited[e.run.ID] = e.limit
		}
		rf := runFindings(e)
		for _, f := range rf {
			failed[e.run.ID] = failed[e.run.ID] || f.Rule == RuleRunRefused || f.Rule == RuleRunFailed
		}
		finds = append(finds, rf...)
		if f := hookError(e); f != nil {
			finds = append(finds, *f)
		}
	}

	// The runs that finished: all of them, unless interrupted. They are
	// runs itself where none was stopped, not a copy of each run's
	// entry, which held 0.4 KiB a run beside runs' until the audit's
	// end; nothing changes either before the report is made.
	done := runs
	if len(stopped) > 0 {
		done = make([]report.HookRun, 0, len(runs)-len(stopped))
		for i, r := range runs {
			if !stopped[i] {
				done = append(done, r)
			}
		}
	}

	// The runs whose outcome and record are vigiles' (a refusal, a
	// failure, a limit of its sandbox, a timeout shorter than Claude
	// Code's), not the hook's: a baseline of them would accept that as
	// what the hook does (an outcome error that a hook timing out at its
	// own timeout matches, a guard killed by a limit as allowed), so
	// --update-baseline writes none; nor after an interruption. Where it
	// writes none, the findings stay what they are without it.
	unkept := unkeptRuns(done, failed, limited, cutShort)
	writing := o.UpdateBaseline && len(unkept) == 0 && stop == nil

	var drift []report.Drift
	var decl map[string]string // of the hooks listed, not run
	if o.Baseline != "" {
		decl = declaredOf(s.hooks)
		err := bErr // read before the runs
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if !o.UpdateBaseline && s.shardI == 1 {
				create, after := o.createBaseline(o.mkdirFirst(s.dir, bpath))
				f := report.Finding{Rule: RuleBaselineMissing, Severity: report.SeverityNotice,
					Location: report.Location{File: brel}, Message: fmt.Sprintf("no baseline at %s: nothing to compare with; run %s to create it%s", brel, create, after)}
				if o.BaselineNamed {
					f.Severity = report.SeverityError
					f.Message = fmt.Sprintf("no baseline at %s, which was named as the baseline: nothing was compared with it, so nothing new in this audit is told as new; check the path (a typo, or a change that moved or deleted the file), or, where the repository has no baseline yet, run %s to create it%s", brel, create, after)
				}
				finds = append(finds, f)
			}
			if !o.UpdateBaseline {
				// No baseline has accepted them: said as without one.
				finds = append(finds, unacceptedNotices(runs, o.rewriteBaseline())...)
			}
		case err != nil:
			// Told once, like a missing one: every shard reads the same
			// file, and merge must not count it once per shard.
			if !o.UpdateBaseline && s.shardI == 1 {
				loc := report.Location{File: brel}
				var be *BaselineError
				if errors.As(err, &be) {
					loc.Line, loc.Column = be.Line, be.Column
				}
				finds = append(finds, report.Finding{Rule: RuleBaselineInvalid, Severity: report.SeverityError,
					Location: loc, Message: err.Error()})
			}
		default:
			sev := report.SeverityError
			if writing {
				sev = report.SeverityNotice
			}
			// Removed hooks are told once (by the first shard), and by
			// an audit of part of the tree only under that part.
			var removedIn func(file string) bool
			if s.shardI == 1 {
				removedIn = s.inPart
			}
			// What an interruption stopped is not compared: its outcome
			// is not the hook's (allIDs keeps it from reading removed).
			handlers := map[string]bool{}
			for _, h := range s.hooks {
				handlers[h.ID] = true
			}
			d, f := compareRuns(b, newTreeForm(s.dir).runs(done), decl, ranFs, failed, allIDs, handlers, removedIn, sev, o.rewriteBaseline())
			if s.shardI == 1 && !o.UpdateBaseline {
				// Told once, like an invalid one; an update rewrites it.
				if of := b.outdated(report.Location{File: brel}, len(s.started) > 0, len(s.projectStarted) > 0, o.rewriteBaseline()); of != nil {
					f = append(f, *of)
				}
				if of := b.filesUnkept(report.Location{File: brel}, ranFs, unrunFs, o.rewriteBaseline()); of != nil {
					f = append(f, *of)
				}
				if of := b.foldedNames(report.Location{File: brel}, o.rewriteBaseline()); of != nil {
					f = append(f, *of)
				}
			}
			if s.shardI == 1 {
				// A hook the baseline does not know that the audit did
				// not run: nothing of it is recorded, so nothing of it
				// is vouched for (a baseline hook no longer run is
				// hook-removed, an error, in compareRuns).
				ud, uf := unrunAdded(b, unrun, unrunWhy, unrunFs, sev)
				d, f = append(d, ud...), append(f, uf...)
			}
			for i := range f {
				// Not removed: its file could not be read (its
				// discovery error says why); still not audited.
				if f[i].Rule == RuleDriftPrefix+DriftHookRemoved && unread[f[i].Location.File] {
					f[i].Severity = report.SeverityError
					f[i].Message = fmt.Sprintf("hook run %s is in the baseline, but its declaring file %s could not be read (see the discovery error there), so it was not run: what it does is not audited", shownName(f[i].Hook), shownName(f[i].Location.File))
				}
			}
			// A run the baseline knows, ended sooner than Claude Code
			// would end it, is compared on what it did until then: what
			// it would have done after is not compared (a new one is an
			// error in compareRuns whatever ended it).
			for _, r := range done {
				if lim := limited[r.ID]; lim != "" && !failed[r.ID] {
					// Known or new: what it did past the limit, under
					// Claude Code, is compared with nothing.
					f = append(f, report.Finding{Rule: RuleBaselineUnproven, Severity: sev, Location: r.Location, Hook: r.ID,
						Message: fmt.Sprintf("%s cannot be compared with the baseline whole: %s", shownName(r.ID), limitWhy(lim))})
				}
				if why := cutShort[r.ID]; why != "" && !failed[r.ID] {
					if _, known := b.Runs[r.ID]; known {
						f = append(f, report.Finding{Rule: RuleBaselineUnproven, Severity: sev, Location: r.Location, Hook: r.ID,
							Message: fmt.Sprintf("%s did not finish: %s, sooner than Claude Code would end it, so what it would have done after is not recorded and cannot be compared with the baseline: give the audit a defaults.timeout the hook finishes within",
								shownName(r.ID), why)})
					}
				}
			}
			if s.shardI == 1 {
				// What discovery named of the plugins' servers and
				// monitors, whose findings the first shard has.
				sd, sf := s.compareServers(b, finds, sev, removedIn)
				d, f = append(d, sd...), append(f, sf...)
				// And the skills' and commands' shell lines, which
				// are never drift (compareSkillShells says why).
				s.compareSkillShells(b, finds, writing)
			}
			drift = append(drift, d...)
			finds = append(finds, f...)
		}
		if writing && s.shardI == 1 {
			// The baseline this audit writes accepts them.
			s.serversKept(finds)
		}
	} else {
		// No baseline named: one at the default would accept them.
		def := o
		def.Baseline = DefaultBaseline
		finds = append(finds, unacceptedNotices(runs, def.rewriteBaseline())...)
	}
	finds = append(finds, stop.summary("audit", mine)...)
	if s.shardN <= 1 {
		// A shard's runs of one hook are some of its tools' (round
		// robin): merge groups them, with every run.
		finds = groupAcrossRuns(finds, runs)
	}
	rep := s.newReport("audit", runs, finds, drift)
	if stop != nil {
		// What finished is reported; the caller writes it and exits as
		// interrupted. A baseline of part of the runs is never written.
		if o.UpdateBaseline {
			return rep, fmt.Errorf("audit interrupted (%w); the baseline was not written", stop.err)
		}
		return rep, fmt.Errorf("audit interrupted (%w)", stop.err)
	}
	if o.UpdateBaseline {
		if o.Baseline == "" {
			return nil, errorf(ErrBadOption, "--update-baseline needs a baseline path")
		}
		// Asked for a baseline and wrote none: the command fails (125),
		// and its report's verdict says so, whatever its findings are
		// (a run cut short is a warning).
		notWritten := func(err error) (*report.Report, error) {
			rep.Verdict = report.VerdictError
			return rep, err
		}
		if len(unkept) > 0 {
			// What to do comes before the runs: the job summary keeps
			// the first 500 characters of the error, the runs' own
			// findings name them too.
			return notWritten(fmt.Errorf("the baseline was not written: %d run(s) were not recorded whole, and a baseline would accept vigiles' outcome and record of them as the hook's; "+
				"make them run whole, then update again (run/refused: confinement on this machine; run/failed: the error its finding names; run/limit: raise the limit it names; "+
				"cut short: a defaults.timeout as long as Claude Code waits for the hook, its own timeout else its event's default, or one it finishes within): %s",
				len(unkept), strings.Join(firstN(unkept, 5), ", ")))
		}
		if err := s.linkedOut(s.abs(o.Baseline)); err != nil {
			return notWritten(fmt.Errorf("--update-baseline: %w", err))
		}
		// Kept without the checkout's path (treeForm), as compared.
		portable := *rep
		portable.Runs = newTreeForm(s.dir).runs(rep.Runs)
		b := newBaseline(&portable, decl, keptServers(s.started), keptServers(s.projectStarted), unrun...)
		for id, run := range b.Runs {
			// What its command runs of the tree, for a run that ran.
			if f, ok := ranFs.of(id); ok && run.Outcome != report.OutcomeNotExecutable {
				run.Files = keptFiles(f)
				b.Runs[id] = run
			}
		}
		for _, h := range unrun {
			// And for each hook it accepts as not run (NotRun).
			if f, ok := unrunFs.of(h.ID); ok {
				if b.NotRunFiles == nil {
					b.NotRunFiles = map[string][]BaselineFile{}
				}
				b.NotRunFiles[h.ID] = keptFiles(f)
			}
		}
		// Optional (nil, left out, where there is none): its absence
		// accepts none.
		b.SkillShells = keptSkillShells(s.shells)
		if err := WriteBaseline(s.dir, s.abs(o.Baseline), b); err != nil {
			return notWritten(err)
		}
	}
	return rep, nil
}

// unkeptRuns lists, sorted, the runs of done that were refused or failed
// (failed), hit a limit of the sandbox (limited) or were ended sooner than
// Claude Code would end them (cutShort), each as its id (printable, so
// one line; clipped before why is added) and why: what a baseline must
// not accept as the hook's own.
func unkeptRuns(done []report.HookRun, failed map[string]bool, limited, cutShort map[string]string) []string {
	var out []string
	for _, r := range done {
		why := ""
		switch {
		case failed[r.ID] && r.Tier == string(sandbox.TierRefused):
			why = RuleRunRefused
		case failed[r.ID]:
			why = RuleRunFailed
		case limited[r.ID] != "":
			why = RuleRunLimit + " " + limited[r.ID]
		case cutShort[r.ID] != "":
			why = "cut short"
		default:
			continue
		}
		out = append(out, printable(r.ID)+" "+why)
	}
	sort.Strings(out)
	return out
}

// mayRun says whether Claude Code may run h, a hook of a tool event that
// no payload of the audit selects: its matcher is a valid regular
// expression (one that is not never runs), and the tools it selects are
// others than vigiles sends. (An if on a non-tool event is never run.)
func mayRun(h *Hook) bool {
	spec, known := knownEvents[h.Event]
	if !known || !spec.Tool {
		return false
	}
	_, err := compileMatcherFor(h.Event, h.Matcher)
	return err == nil || errors.Is(err, ErrUnsupportedMatcher)
}

// unrunAdded is a baseline/hook-added error (a notice with
// --update-baseline, sev) for each hook of unrun (mayRun, and not run by
// the audit) that the baseline has no run of, and does not accept as not
// run (Baseline.NotRun) with its command: a new hook the audit did not run
// is not audited, as one that is listed, not run is not. One it accepts
// so, for that command, is compared on the files of the tree the command
// runs (files, runFiles) as a run is (compareRuns): a file changed, new
// or gone is baseline/command drift, and one that could not be hashed
// baseline/not-recorded, both errors (sev); not where the baseline keeps
// none (Baseline.NotRunFiles nil: written before they were kept).
func unrunAdded(b *Baseline, unrun []*Hook, why map[string]string, files *ranFiles, sev report.Severity) ([]report.Drift, []report.Finding) {
	var drift []report.Drift
	var finds []report.Finding
	for _, h := range unrun {
		if _, ok := b.Runs[h.ID]; ok || len(ranAs(b, h.ID)) > 0 {
			continue // known: compareRuns says it is no longer run
		}
		if c, ok := b.NotRun[h.ID]; ok && c == h.shownCommand() {
			// Accepted as not run, for this command: what it runs of
			// the tree is compared.
			d, f := unrunFilesDrift(b, h, files, sev)
			drift, finds = append(drift, d...), append(finds, f...)
			continue
		}
		drift = append(drift, report.Drift{Hook: h.ID, Kind: DriftHookAdded, Now: notRunYet, Location: h.Location})
		finds = append(finds, report.Finding{Rule: RuleDriftPrefix + DriftHookAdded, Severity: sev, Location: h.Location, Hook: h.ID,
			Title:   "changed since the baseline",
			Message: fmt.Sprintf("new hook %s (%s %s), not in the baseline, which the audit did not run, so what it does is not audited: %s", shownName(h.ID), shownName(h.Plugin), h.Event, why[h.ID])})
	}
	return drift, finds
}

// unrunFilesDrift compares the files of the tree the command of h, a
// hook the baseline accepts as not run for its command, runs now (files)
// with those the baseline keeps of it (Baseline.NotRunFiles), as
// compareRuns compares a run's: the same command running another script
// (a guard gutted to exit 0) is another hook, which the reviewer of the
// baseline did not see, and the audit does not run it to show anything
// else of it. Nothing where the baseline keeps none, or they were not
// read.
func unrunFilesDrift(b *Baseline, h *Hook, files *ranFiles, sev report.Severity) ([]report.Drift, []report.Finding) {
	old, kept := b.NotRunFiles[h.ID]
	now, have := files.of(h.ID)
	if !kept || !have {
		return nil, nil
	}
	var drift []report.Drift
	var finds []report.Finding
	if d := filesChanged(old, now); d.said != "" {
		drift = append(drift, report.Drift{Hook: h.ID, Kind: DriftCommand, Was: d.was, Now: d.now, Location: h.Location})
		finds = append(finds, report.Finding{Rule: RuleDriftPrefix + DriftCommand, Severity: sev, Location: h.Location, Hook: h.ID,
			Title: "changed since the baseline",
			Message: fmt.Sprintf("%s (%s %s), which the audit did not run, runs the command the baseline accepts as not run, but files of the tree other than it accepted: what Claude Code runs under this id was not reviewed: %s",
				shownName(h.ID), shownName(h.Plugin), h.Event, d.said),
			Evidence: d.evidence})
	}
	if p := files.unhashed[h.ID]; len(p) > 0 {
		finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: sev, Location: h.Location, Hook: h.ID,
			Message: fmt.Sprintf("%s, which the audit did not run, runs files of the tree that vigiles could not hash, so a change to them since the baseline cannot be ruled out: %s", shownName(h.ID), strings.Join(p, "; "))})
	}
	return drift, finds
}

// notRunYet is the now of the hook-added drift of a hook the audit did
// not run.
const notRunYet = "not run"

// unacceptedNotices are what an audit without a baseline to compare with
// says of its runs, which a baseline would accept or name as drift: the
// network attempts, what the hooks decide for the calls (decidesNotices)
// and what runs later (laterNotices). rewrite is how to write the
// baseline that would accept them (Options.rewriteBaseline).
func unacceptedNotices(runs []report.HookRun, rewrite string) []report.Finding {
	return append(append(egressNotices(runs), decidesNotices(runs, rewrite)...), laterNotices(runs)...)
}

// RuleRunDecides is the warning, of an audit without a baseline, that a
// run's output tells Claude Code what to do with the call besides
// blocking it (HookRun.Decides): approve it without the permission
// prompt (the settings' deny and ask rules still apply after it), make it
// with other input, change the session's permissions.
// Against a baseline a change of it is drift (baseline/decides).
const RuleRunDecides = "run/decides"

// decidesNotices are the run/decides warnings of runs, each saying that
// rewrite (Options.rewriteBaseline) keeps what it decides in the baseline.
func decidesNotices(runs []report.HookRun, rewrite string) []report.Finding {
	var out []report.Finding
	for _, r := range runs {
		if r.Decides == "" {
			continue
		}
		msg := fmt.Sprintf("%s %s%s tells Claude Code what to do with the call: %s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(clip(r.Decides, 300)))
		if r.Reason != "" {
			msg += " (" + shownName(clip(r.Reason, 300)) + ")"
		}
		evidence := ""
		if line := stderrError(r.Stderr); line != "" {
			// A guard that approves after a check of its own failed
			// (grep refusing its pattern) approves what it never
			// checked.
			msg += "; its stderr says " + shownName(clip(line, 200)) + ": what it decided may rest on a check of its that failed"
			evidence = tail(r.Stderr, maxEvidence)
		}
		out = append(out, report.Finding{Rule: RuleRunDecides, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "hook decides for the call", Message: msg + "; no baseline has accepted it: review it, and where it is meant, " + rewrite + " keeps it in the baseline (review its diff)", Evidence: evidence})
	}
	return out
}

// stderrErrorLine matches a line of stderr that reports an error: a
// program's refusal of an option or pattern, a file not found, an
// interpreter's traceback or exception.
var stderrErrorLine = lazyRE(`(?im)^.*(?:\berror\b|unrecognized option|invalid option|illegal option|not found|No such file|Traceback|Exception|usage:).*$`)

// stderrError is the first line of stderr that reports an error
// (stderrErrorLine), "" where none does.
func stderrError(stderr string) string {
	return strings.TrimSpace(stderrErrorLine().FindString(stderr))
}

// laterNotices are the warnings, of test and of an audit without a
// baseline, of what runs reach past their own end: the session's
// environment (envFileNotices) and what runs later (persistNotices).
func laterNotices(runs []report.HookRun) []report.Finding {
	return append(append(envFileNotices(runs), persistNotices(runs)...), lingerNotices(runs)...)
}

// lingerNotices say which runs left processes running when they exited
// (a daemon, a report sent from a detached child), which the sandbox
// ended after the linger period (at once by default), or vigiles itself
// for a run in the open (tier direct), which has no sandbox: Claude Code
// lets them run on, so their hosts and writes, which a confined run's
// record shows as none, may not be none, and a direct run's output is
// not all they print. Against a baseline the same run is
// baseline/not-recorded; a run ended at its timeout has run/timeout.
func lingerNotices(runs []report.HookRun) []report.Finding {
	var out []report.Finding
	for _, r := range runs {
		if len(r.Lingered) == 0 || r.TimedOut {
			continue
		}
		what := "a process"
		if len(r.Lingered) > 1 {
			what = fmt.Sprintf("%d processes", len(r.Lingered))
		}
		// A trusted hook runs in the open, where no sandbox ends what it
		// left: vigiles does.
		ender, next := "the sandbox", "what they did next (hosts they reach, files they write) is not in the record"
		if r.Tier == string(sandbox.TierDirect) {
			ender, next = "vigiles", "what they did next (output they print, hosts they reach, files they write) is not in the run"
		}
		out = append(out, report.Finding{Rule: RuleRunLingered, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "left processes running", Message: fmt.Sprintf("%s %s%s left %s running when it exited, which %s ended after the linger period; "+
				"Claude Code lets them run on, so %s: "+
				"raise defaults.linger in .vigiles.yml (or --linger) so that they finish within the run",
				runWho(r), r.Event, toolSuffix(r.Tool), what, ender, next),
			Evidence: cutBytes(strings.Join(r.Lingered, "\n"), maxEvidence)})
	}
	return out
}

// egressBlockedSo is what a blocked attempt does to a run: what the
// run/egress message says of it.
const egressBlockedSo = "the hook's path that needed the host never ran, so what the run recorded is the hook without that host"

// egressNotices are the audit's inventory of network attempts when there
// is no baseline to compare with, one a run (the audit groups a hook's
// alike runs: groupAcrossRuns).
func egressNotices(runs []report.HookRun) []report.Finding {
	var out []report.Finding
	for _, r := range runs {
		if len(r.Egress) == 0 {
			continue
		}
		msg := fmt.Sprintf("%s %s%s tried to reach %s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), hostList(r.Egress))
		// A blocked attempt never got its answer: what the hook would have
		// done with it (a download run, a report sent) is not in the run.
		// An attempt at the sandbox's own loopback that nothing answered
		// is no blocked host: no allow reaches it (loopbackIs).
		blocked, local := blockedHosts(r), loopbackHosts(r)
		if blocked == hostList(r.Egress) {
			msg += ", which the egress policy blocked: " + egressBlockedSo + "; " + auditReachable
		} else if local == hostList(r.Egress) {
			msg += ", " + loopbackIs + ": " + loopbackSo
		} else {
			if blocked != "" {
				msg += "; the egress policy blocked " + blocked + ": " + egressBlockedSo + "; " + auditReachable
			}
			if local != "" {
				msg += "; " + local + " is " + loopbackIs + ": " + loopbackSo
			}
		}
		out = append(out, report.Finding{Rule: RuleRunEgress, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "network attempt", Message: msg, Evidence: egressEvidence(r.Egress)})
	}
	return out
}

// runWho names whose run r is in a finding about it: its plugin, and in
// a test the check that ran it, so that two checks of one hook are told
// apart.
func runWho(r report.HookRun) string {
	if r.Check != "" {
		return fmt.Sprintf("%s (check %s)", shownName(r.Plugin), shownName(r.Check))
	}
	return shownName(r.Plugin)
}

// envFileNotices say which runs left something in CLAUDE_ENV_FILE, or any
// script where Claude Code keeps them, which it runs before each Bash
// command of the session: a plugin's way into every later command, where
// no baseline has accepted it.
func envFileNotices(runs []report.HookRun) []report.Finding {
	var out []report.Finding
	for _, r := range runs {
		t, _ := envText(r)
		if t == "" {
			continue
		}
		where := "under " + sessionEnvDir
		if r.EnvFile != nil {
			where = "in CLAUDE_ENV_FILE (" + r.EnvFile.Path + ")"
		}
		out = append(out, report.Finding{Rule: RuleRunEnvFile, Severity: report.SeverityWarning, Location: r.Location, Hook: r.ID,
			Title: "sets the session's environment", Message: fmt.Sprintf("%s %s%s leaves %s %s, which Claude Code runs before each Bash command of the session",
				runWho(r), r.Event, toolSuffix(r.Tool), envSaid(t), where),
			Evidence: clip(t, maxEvidence)})
	}
	return out
}

// statesExitCode says whether the check c expects an exit status.
func statesExitCode(c *Check) bool {
	return c != nil && slices.ContainsFunc(c.Expect, func(x *Expectation) bool { return x.Kind == ExpExitCode })
}

// Test runs the checks of .vigiles.yml and reports every failed
// expectation at the line that states it, and, as a warning, a check's
// hook that failed (run/hook-error) where the check does not state the
// exit status it expects.
func Test(ctx context.Context, o Options) (*report.Report, error) {
	s, err := newSession(o, "test")
	if err != nil {
		return nil, err
	}
	if err := s.discover(o.Paths); err != nil {
		return nil, err
	}
	var plan []*plannedRun
	var planFinds []report.Finding
	noted := map[string]bool{}
	for _, c := range s.cfg.Checks {
		ps, fs := s.planCheck(c)
		// A check's expectations are checked of the runs Claude Code
		// makes: a hook its source declares twice, once for the call.
		// Two checks of one hook each keep their run; the run left out
		// is named once.
		ps, dupFinds, _ := dedupePlan(ps)
		plan = append(plan, ps...)
		planFinds = append(planFinds, fs...)
		for _, f := range dupFinds {
			if k := fmt.Sprint(f.Location); !noted[k] {
				noted[k] = true
				planFinds = append(planFinds, f)
			}
		}
	}
	sortPlan(plan)
	s.plan = s.planDigest("test", plan)
	mine := shardOf(plan, s.shardI, s.shardN)
	var finds []report.Finding
	if s.shardI == 1 {
		finds = append(finds, s.findings...)
		finds = append(finds, planFinds...)
		if o.PolicyBase != nil {
			finds = append(finds, s.policyBaseFindings(o.PolicyBase, nil, nil, "")...)
		}
	}
	if f := s.tooManyRuns("test", plan, mine); f != nil {
		return s.newReport("test", nil, append(finds, *f), nil), nil
	}
	results, stop := s.settings.executeTracked(ctx, mine)
	s.planLanes(results, plan)
	runs := make([]report.HookRun, 0, len(results))
	for i, e := range results {
		runs = append(runs, e.run)
		if f, cut := stop.finding(i, mine[i], e); cut {
			finds = append(finds, f...)
			continue // nothing to check against
		}
		rf := runFindings(e)
		finds = append(finds, rf...)
		finds = append(finds, laterNotices([]report.HookRun{e.run})...)
		if len(rf) > 0 && e.run.Outcome == report.OutcomeError && !e.run.TimedOut {
			continue // nothing to check against
		}
		if s.settings.mode == sandbox.ModeOff {
			// What ran it in the open is said where its record is missed.
			e.openBy = "--sandbox off"
			if s.o.Sandbox == "" {
				e.openBy = "defaults.sandbox: off in " + s.cfg.File
			}
		}
		finds = append(finds, checkExpectations(mine[i].Check, e)...)
		if f := hookError(e); f != nil && !statesExitCode(mine[i].Check) {
			// A check that passes on a hook that failed (a program
			// not found, a script that crashed) passes on a hook that
			// never did its work; one that states the exit status
			// tests the failure itself. Said once for the checks of
			// one hook that failed alike (groupAcrossRuns).
			finds = append(finds, *f)
		}
	}
	finds = groupAcrossRuns(finds, runs)
	finds = append(finds, stop.summary("test", mine)...)
	rep := s.newReport("test", runs, finds, nil)
	if stop != nil {
		return rep, fmt.Errorf("test interrupted (%w)", stop.err)
	}
	return rep, nil
}

// planCheck resolves a check to the runs it makes.
func (s *session) planCheck(c *Check) ([]*plannedRun, []report.Finding) {
	var hooks []*Hook
	if c.Command != "" {
		hooks = []*Hook{{ID: "check:" + c.Name, Adapter: "claude", Plugin: checkPlugin, PluginRoot: ".", Event: c.Event, InPlugin: true,
			Type: TypeCommand, Command: c.Command, Expanded: expandVars(c.Command, s.dir, s.dir), Location: c.HookLoc,
			MatcherLocation: c.HookLoc, Trusted: c.Trusted, SettingsEnv: s.settingsOf("").env, PermissionMode: s.settingsOf("").mode,
			MainAgent: s.settingsOf("").agent}}
	} else {
		var names []string
		var listed, scoped []*Hook
		for _, h := range s.hooks {
			if h.ID == c.Hook || h.Plugin == c.Hook || selectsByID(h, c.Hook) {
				switch {
				case h.Event != c.Event:
				case h.Scoped && h.ID != c.Hook && !selectsByID(h, c.Hook):
					// A skill's, agent's or command's own hook runs only
					// while that component is active: a check of the
					// plugin, which vouches for what runs all session,
					// does not take it (select it by file or id).
					scoped = append(scoped, h)
				case h.Executable():
					hooks = append(hooks, h)
				case c.Tool == "" || !h.HasMatcher || matcherSelects(h, c.Tool):
					listed = append(listed, h)
				}
				names = append(names, h.Event)
			}
		}
		if len(hooks) > 0 && len(listed) > 0 {
			// Claude Code runs them with the command hooks; vigiles
			// does not, so what the check expects of the call is not
			// checked of them: never a pass that leaves them out.
			var ids []string
			for _, h := range listed {
				ids = append(ids, fmt.Sprintf("%s (%s)", h.ID, h.Type))
			}
			return nil, []report.Finding{{Rule: RuleCheckHook, Severity: report.SeverityError, Location: c.HookLoc,
				Message: fmt.Sprintf("check %q: %q selects, for %s, hooks that vigiles lists and does not run: %s; Claude Code runs them with the others, so what the check expects cannot be checked of them: select the command hooks by id instead (hook: the id), or check the listed ones' declarations with vigiles audit",
					c.Name, c.Hook, c.Event, shownName(cutBytes(strings.Join(ids, ", "), maxEvidence)))}}
		}
		if len(hooks) == 0 {
			msg := fmt.Sprintf("check %q: no command hook %q handles %s", c.Name, c.Hook, c.Event)
			if len(names) > 0 {
				sort.Strings(names)
				msg += fmt.Sprintf(" (it declares %s)", strings.Join(dedupe(names), ", "))
				// Why they are listed, once per reason: a plugin turned
				// off may declare thousands of handlers.
				n := map[string]int{}
				var why []string
				for _, h := range listed {
					if h.NotRun != "" {
						if n[h.NotRun] == 0 {
							why = append(why, h.NotRun)
						}
						n[h.NotRun]++
					}
				}
				for i, w := range why {
					why[i] = fmt.Sprintf("%d hook(s) listed, not run: %s", n[w], w)
				}
				if len(why) > 0 {
					msg += "; " + shownName(cutBytes(strings.Join(why, "; "), maxEvidence))
				}
			} else if id, tool, ok := runIDOf(s.hooks, c.Hook); ok {
				// A run's ID, as a report or a baseline shows it: the
				// hook's ID, then the tool it ran for.
				msg += fmt.Sprintf("; %s is a run's ID, the hook's and the tool it ran for: select the hook with hook: %s and the call with tool: %s", shownName(c.Hook), shownName(id), shownName(tool))
			} else {
				if near := nearHookName(s.hooks, c.Hook); near != "" {
					msg += fmt.Sprintf(" (did you mean %s?)", shownName(near))
				}
				msg += "; hooks are selected by plugin name, hook id or declaring file: " + knownHookNames(s.hooks)
			}
			if len(scoped) > 0 {
				var files []string
				for _, h := range scoped {
					// Its file as the id names it, which a check's hook:
					// takes: the id alone cannot tell it ("g.json#x/…").
					if f := idFile(h.Location.File); !slices.Contains(files, f) {
						files = append(files, f)
					}
				}
				msg += fmt.Sprintf("; its %s hooks are declared in the frontmatter of %s, which Claude Code runs only while that skill, agent or command is active, not all session: select them by file or id (hook: the file) to check them as such",
					c.Event, shownName(cutBytes(strings.Join(files, ", "), maxEvidence)))
			}
			return nil, []report.Finding{{Rule: RuleCheckHook, Severity: report.SeverityError, Location: c.HookLoc, Message: msg}}
		}
	}
	var plan []*plannedRun
	var finds []report.Finding
	// skipped are the hooks selected that Claude Code would not run for
	// this call (their matcher or if condition passes it by): where
	// others run, they are no part of the check, as they are no part of
	// the call in Claude Code; where none runs, the check checks
	// nothing, an error that names them (noneRuns).
	var skipped []skippedHook
	spec := knownEvents[c.Event]
	for _, h := range hooks {
		m, merr := compileMatcherFor(h.Event, h.Matcher)
		if c.Command == "" && h.HasMatcher && errors.Is(merr, ErrUnsupportedMatcher) {
			// vigiles runs such a hook for every call, and Claude Code
			// for those its matcher selects, which cannot be told here:
			// a check that it runs (and what it does) proves nothing.
			finds = append(finds, report.Finding{Rule: RuleCheckHook, Severity: report.SeverityError, Location: c.Loc, Hook: h.ID,
				Message: fmt.Sprintf("check %q: whether %s runs for this call in Claude Code is not known: %v; write its matcher as Claude Code and RE2 read alike (a name, names separated by |, or a plain regular expression)", c.Name, h.ID, merr)})
			continue
		}
		tool := c.Tool
		if tool == "" {
			switch {
			case c.Event == FileChanged:
				if ps, _ := toolsFor(h, nil, s.cwdOf(h)); len(ps) == 1 {
					tool = ps[0].Tool // the first file its matcher watches
				}
			case spec.Tool:
				tool = "Bash"
				if h.HasMatcher {
					for _, t := range append(append([]string{}, DefaultTools...), m.Names()...) {
						if m.Match(t) {
							tool = t
							break
						}
					}
				}
			case spec.MatchField != "":
				vals := matchValues(h, c.Event)
				tool = vals[0]
				if h.HasMatcher {
					for _, v := range valuesToTry(spec, vals, m) {
						if m.Match(v) {
							tool = v
							break
						}
					}
				}
			}
		}
		var ti map[string]any
		if spec.Tool {
			switch {
			case c.Input != nil:
				ti = copyMap(c.Input)
			case s.cfg.Payloads[tool] != nil:
				ti = copyMap(s.cfg.Payloads[tool])
			default:
				ti = DefaultToolInput(tool, s.cwdOf(h))
			}
		}
		if c.Command == "" && (spec.Tool || spec.MatchField != "") && h.HasMatcher && !m.Match(tool) {
			skipped = append(skipped, skippedHook{h, fmt.Sprintf("would not run for %s: its matcher %q does not select it", tool, h.Matcher)})
			continue
		}
		if h.If != "" && !IfMatches(h.If, c.Event, tool, s.cwdOf(h), ti) {
			skipped = append(skipped, skippedHook{h, fmt.Sprintf("would not run: its if condition %q does not match this %s call", h.If, tool)})
			continue
		}
		id := "check:" + c.Name
		if len(hooks) > 1 || c.Command == "" {
			id += runIDSep + h.ID
		}
		plan = append(plan, &plannedRun{ID: id, Hook: h, Check: c, Timeout: c.Timeout,
			Payload: withMode(h, BuildPayload(c.Event, tool, s.cwdOf(h), ti, insideAgent(h, c.Payload)), c.Payload)})
	}
	if len(plan) == 0 && len(skipped) > 0 {
		finds = append(finds, noneRuns(c, skipped))
	}
	return plan, finds
}

// skippedHook is a hook a check selects that Claude Code would not run
// for the check's call, and why ("would not run …").
type skippedHook struct {
	h   *Hook
	why string
}

// noneRuns is the error of check c none of whose hooks would run for its
// call: each of skipped says why; a check of one hook names it as its
// finding's hook.
func noneRuns(c *Check, skipped []skippedHook) report.Finding {
	if len(skipped) == 1 {
		k := skipped[0]
		return report.Finding{Rule: RuleCheckHook, Severity: report.SeverityError, Location: c.Loc, Hook: k.h.ID,
			Message: fmt.Sprintf("check %q: %s %s", c.Name, k.h.ID, k.why)}
	}
	var why []string
	for _, k := range skipped {
		why = append(why, k.h.ID+" "+k.why)
	}
	return report.Finding{Rule: RuleCheckHook, Severity: report.SeverityError, Location: c.Loc,
		Message: fmt.Sprintf("check %q: none of the %d hooks %q selects for %s would run for this call, so the check checks nothing: %s; select a hook that runs for it, or give the call another tool or input",
			c.Name, len(skipped), c.Hook, c.Event, shownName(cutBytes(strings.Join(why, "; "), maxEvidence)))}
}

// checkPlugin is the plugin a command: check's run is of: a plugin
// rooted at the repository, which no marketplace installs anywhere else.
const checkPlugin = "(check)"

// commandCheckRun says whether r is the run of a command: check, whose id
// is "check:" and the check's name, which holds no runIDSep (a hook:
// check's runs add it and the hook's id).
func commandCheckRun(r report.HookRun) bool {
	name, ok := strings.CutPrefix(r.ID, "check:")
	return ok && r.Plugin == checkPlugin && !strings.Contains(name, runIDSep)
}

// runIDSep joins a check's name and the id of a hook it selects in the id
// of their run ("check:<name>><hook id>"); a check name may not hold it
// (ParseConfig), so no two runs share an id.
const runIDSep = ">"

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// selectsByID says whether a check's hook: sel names h by the start of its
// id: its declaring file whole (as the id names it, idFile), or that file
// and more of the id (an id whose declarations are kept apart with #2
// names them all). A file whose
// name only begins with sel and a '#' ("a.json" of "a.json#b.md") is
// another file, so the file is h's location's, not a guess from the id.
func selectsByID(h *Hook, sel string) bool {
	if !strings.HasPrefix(h.ID, sel+"#") {
		return false
	}
	f := idFile(h.Location.File)
	return f == "" || sel == f || strings.HasPrefix(sel, f+"#")
}

// nearHookName is the plugin name or declaring file of hs that sel, a
// check's hook: that selects none of them, is a slip of the keys from
// (bash-gaurd, Bash-Guard for bash-guard; textdist.Nearest), or "".
func nearHookName(hs []*Hook, sel string) string {
	var names []string
	for _, h := range hs {
		for _, n := range []string{h.Plugin, idFile(h.Location.File)} {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return textdist.Nearest(sel, names)
}

func knownHookNames(hs []*Hook) string {
	seen := map[string]bool{}
	var ps []string
	for _, h := range hs {
		if !seen[h.Plugin] {
			seen[h.Plugin] = true
			// Quoted where it could break or reorder the line (a
			// newline, CR, a bidi override), as every finding names a
			// plugin: the tree chose it.
			ps = append(ps, shownName(h.Plugin))
		}
	}
	sort.Strings(ps)
	if len(ps) == 0 {
		return "none were discovered"
	}
	return "plugins found: " + strings.Join(ps, ", ")
}

// NamedReport is a report to merge and the name its errors call it by
// (its file).
type NamedReport struct {
	Name   string
	Report *report.Report
}

// Merge joins shard reports into one, equal to what an unsharded run
// would have produced (durations aside). The reports must share a command
// and schema, each shard must be there exactly once, and no run may appear
// twice. Its errors are of kind ErrBadOption (ErrBadShard for a shard
// that does not parse) and name the reports that do not fit.
func Merge(reports ...NamedReport) (*report.Report, error) {
	if len(reports) == 0 {
		return nil, errorf(ErrBadOption, "merging reports: none given")
	}
	for _, r := range reports {
		if r.Report == nil {
			return nil, errorf(ErrBadOption, "merging reports: %s is missing", r.Name)
		}
	}
	first := reports[0]
	out := &report.Report{Schema: report.Schema, Tool: first.Report.Tool, Command: first.Report.Command}
	runIn := map[string]string{}   // run id → the report it came from
	shardIn := map[string]string{} // "i/n" → the report that is that shard
	total, totalIn := 0, ""
	wholeIn := ""          // a report that is no shard
	plan, planIn := "", "" // the plan of the first shard, and its report
	for _, nr := range reports {
		r := nr.Report
		if r.Schema != report.Schema {
			return nil, errorf(ErrBadOption, "merging reports: %s has schema %q, want %q", nr.Name, r.Schema, report.Schema)
		}
		if r.Command != "test" && r.Command != "audit" {
			// A report test or audit wrote names its command; one
			// without (a document cut down, or written by hand) would
			// otherwise merge into a passing report of no command.
			return nil, errorf(ErrBadOption, "merging reports: %s has command %s, want test or audit: it is not a report vigiles test or audit wrote", nr.Name, printable(r.Command))
		}
		if r.Command != out.Command {
			return nil, errorf(ErrBadOption, "merging reports: %s is a report of vigiles %s and %s one of vigiles %s; merge the shards of one command",
				nr.Name, printable(r.Command), first.Name, printable(out.Command))
		}
		if r.Tool != out.Tool {
			// Another vigiles plans, runs and judges otherwise.
			return nil, errorf(ErrBadOption, "merging reports: %s was written by %s %s and %s by %s %s; merge the shards of one run, which one vigiles wrote",
				nr.Name, printable(r.Tool.Name), printable(r.Tool.Version), first.Name, printable(out.Tool.Name), printable(out.Tool.Version))
		}
		if r.Shard == "" {
			if wholeIn != "" {
				// Two whole reports are two runs: what they add up
				// to no unsharded run wrote.
				return nil, errorf(ErrBadOption, "merging reports: %s and %s are both whole reports (no shard); merge the shards of one sharded run", wholeIn, nr.Name)
			}
			wholeIn = nr.Name
		}
		if r.Shard != "" {
			i, n, err := ParseShard(r.Shard)
			if err != nil {
				return nil, fmt.Errorf("merging reports: %s: %w", nr.Name, err)
			}
			switch {
			case r.Plan == "":
				return nil, errorf(ErrBadOption, "merging reports: %s is shard %s with no plan: it was not written by this vigiles' test or audit --shard, or was edited; merge the shards of one run, which one vigiles wrote", nr.Name, printable(r.Shard))
			case plan == "":
				plan, planIn = r.Plan, nr.Name
			case r.Plan != plan:
				// Each shard took its part of another plan: together
				// they may miss runs, or hold some twice.
				return nil, errorf(ErrBadOption, "merging reports: %s and %s are shards of different runs (their plans differ: another commit, policy, baseline, option or vigiles version); merge the shards of one run", planIn, nr.Name)
			}
			shard := fmt.Sprintf("%d/%d", i, n)
			if other, ok := shardIn[shard]; ok {
				return nil, errorf(ErrBadOption, "merging reports: %s and %s are both shard %s", other, nr.Name, shard)
			}
			shardIn[shard] = nr.Name
			if total != 0 && n != total {
				return nil, errorf(ErrBadOption, "merging reports: %s is a shard of %d and %s one of %d", totalIn, total, nr.Name, n)
			}
			total, totalIn = n, nr.Name
		}
		for _, run := range r.Runs {
			if other, ok := runIn[run.ID]; ok {
				return nil, errorf(ErrBadOption, "merging reports: run %s is in both %s and %s", printable(run.ID), other, nr.Name)
			}
			runIn[run.ID] = nr.Name
			out.Runs = append(out.Runs, run)
		}
		out.Findings = append(out.Findings, r.Findings...)
		out.Drift = append(out.Drift, r.Drift...)
	}
	if total > 0 {
		// A whole report beside shards: its runs are the shards' too,
		// or another work tree's.
		for _, nr := range reports {
			if nr.Report.Shard == "" {
				return nil, errorf(ErrBadOption, "merging reports: %s is a whole report (no shard) and %s a shard of %d; merge the shards of one sharded run", nr.Name, totalIn, total)
			}
		}
	}
	if total > 0 && len(shardIn) != total {
		var missing []string
		for i := 1; i <= total; i++ {
			if s := fmt.Sprintf("%d/%d", i, total); shardIn[s] == "" {
				missing = append(missing, s)
			}
		}
		// What a merge needs is every shard's report of the run: the
		// one of each shard's job, named together (their artifacts
		// downloaded into one directory, vigiles merge DIR/*.json).
		given := len(shardIn)
		if len(missing) == 1 {
			return nil, errorf(ErrBadOption, "merging reports: shard %s is missing: name the reports of all %d shards of the run (%d given)", missing[0], total, given)
		}
		return nil, errorf(ErrBadOption, "merging reports: shards %s are missing: name the reports of all %d shards of the run (%d given)", strings.Join(missing, ", "), total, given)
	}
	if total > 0 {
		out.Findings = groupAcrossRuns(out.Findings, out.Runs)
	}
	finish(out)
	return out, nil
}

// readSmall reads a regular file of at most max bytes.
func readSmall(p string, max int64) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d vigiles reads", p, fi.Size(), max)
	}
	return os.ReadFile(p)
}

// cwdOf is the directory a hook's payloads name as their cwd: the one it
// runs in (Hook.ProjectDir, a package's, else the work tree), as Claude
// Code started there would send it.
func (s *session) cwdOf(h *Hook) string { return h.projectDir(s.dir) }

// projectDir is the directory the hook runs in, under the work tree
// tree: a package's .claude's (ProjectDir), else the tree itself. The
// payloads' cwd and CLAUDE_PROJECT_DIR both name it.
func (h *Hook) projectDir(tree string) string {
	if h.ProjectDir == "" {
		return tree
	}
	return filepath.Join(tree, filepath.FromSlash(h.ProjectDir))
}

// tooManyRuns is the finding that stops a plan whose part for this shard
// (mine) holds more hook runs than Options.MaxRuns: nil when it does not.
// It names the bound, the file whose hooks make most of the runs, and the
// ways to raise the bound or narrow the work.
func (s *session) tooManyRuns(command string, plan, mine []*plannedRun) *report.Finding {
	max := s.o.MaxRuns
	if max <= 0 {
		max = DefaultMaxRuns
	}
	n, all := 0, 0
	perFile := map[string]int{}
	for _, p := range plan {
		if p.Hook.Executable() {
			all++
		}
	}
	for _, p := range mine {
		if p.Hook.Executable() {
			n++
			perFile[p.Hook.Location.File]++
		}
	}
	if n <= max {
		return nil
	}
	top, most := "", 0
	for f, c := range perFile {
		if c > most || c == most && f < top {
			top, most = f, c
		}
	}
	what, narrow := "the audit plans", "audit part of the work tree (PATHs; the action's paths input), "
	if command == "test" {
		what, narrow = "the checks plan", "have the checks select fewer hooks, "
	}
	part := ""
	if s.shardN > 1 {
		part = fmt.Sprintf(" in shard %d/%d (%d in all)", s.shardI, s.shardN, all)
	}
	shards := (all + max - 1) / max
	if shards <= s.shardN {
		shards = s.shardN + 1
	}
	return &report.Finding{Rule: RuleTooManyRuns, Severity: report.SeverityError, Location: report.Location{File: top}, Title: "too many runs",
		Message: fmt.Sprintf("%s %d hook runs%s, more than the %d vigiles starts (--max-runs; the action's max-runs input), so none was run; %d of them are of hooks declared in %s. "+
			"Raise the bound if so many are meant (each run builds a sandbox), %sor split the work with --shard i/%d (the shard input), one job per part",
			what, n, part, max, most, top, narrow, shards)}
}

// interruption is what cancelling the work's context stopped; nil when
// the work ran to its end. Runs are known by their index in the plan.
type interruption struct {
	// err is the cause of the cancel (context.Cause): the signal, where
	// the caller's context names one ("interrupted (SIGTERM)"), else
	// context.Canceled. errors.Is finds context.Canceled in it.
	err     error
	cut     map[int]time.Duration // index → how long it had run when it was stopped
	started map[int]bool          // indexes of the runs whose command was started
}

// runWatch keeps, by plan index, which runs of runSettings.execute are
// started and which are running; execute holds its mutex around each
// call.
type runWatch struct {
	plan  []*plannedRun
	total int // the plan's runs that are executed
	// names are the runs as the progress names them (runNames), by plan
	// index.
	names   []string
	started map[int]bool
	running map[int]time.Time     // index → when it started
	cut     map[int]time.Duration // runs that ended once ctx was done
}

func newRunWatch(plan []*plannedRun, total int, dir string) *runWatch {
	return &runWatch{plan: plan, total: total, names: runNames(plan, dir), started: map[int]bool{}, running: map[int]time.Time{}, cut: map[int]time.Duration{}}
}

// runNames names each run of plan as the progress lines do, the line of
// its end and those that say it is still running alike (progressText): a
// check's run by the check ("check NAME"), and by where its hook is
// declared too ("at FILE:LINE:COL", as the text report shows it) when
// the check runs several hooks; an audit's by its plugin, event and tool
// and where the hook is declared, which tells apart the handlers of a
// plugin that all run for one event (their ids, which the heartbeat
// named, are not in the lines of their ends). A file relative to the
// work tree is shown joined to dir (runSettings.progressDir), "" for as
// it is.
func runNames(plan []*plannedRun, dir string) []string {
	runs := map[string]int{} // check name → its runs
	for _, p := range plan {
		if p.Check != nil && p.Hook.Executable() {
			runs[p.Check.Name]++
		}
	}
	names := make([]string, len(plan))
	for i, p := range plan {
		file := p.Hook.Location.File
		if dir != "" && file != "" && !filepath.IsAbs(file) {
			file = path.Join(filepath.ToSlash(dir), file)
		}
		at := " at " + progressPath(file)
		if l := p.Hook.Location; l.Line > 0 {
			at += fmt.Sprintf(":%d", l.Line)
			if l.Column > 0 {
				at += fmt.Sprintf(":%d", l.Column)
			}
		}
		if p.Check != nil {
			names[i] = "check " + progressText(p.Check.Name)
			if runs[p.Check.Name] > 1 {
				names[i] += at
			}
			continue
		}
		names[i] = progressText(p.Hook.Plugin) + " " + progressText(p.Hook.Event)
		if p.Payload.Tool != "" {
			names[i] += " " + progressText(p.Payload.Tool)
		}
		names[i] += at
	}
	return names
}

func (w *runWatch) begin(i int) {
	w.started[i] = true
	w.running[i] = time.Now()
}

// end is run i's end (nothing when it was not begun): one that ends once
// ctx is done was running when it was cancelled, and the interruption
// stopped it.
func (w *runWatch) end(ctx context.Context, i int) {
	start, ok := w.running[i]
	if !ok {
		return
	}
	if ctx.Err() != nil {
		w.cut[i] = time.Since(start)
	}
	delete(w.running, i)
}

// tell writes, when ctx is cancelled, the progress line that names the
// runs that were running when it was: the ones the interruption stops, a
// hung hook among them.
func (w *runWatch) tell(out io.Writer, err error) {
	var names []string
	var longest time.Duration
	for i, start := range w.running {
		names = append(names, w.names[i])
		longest = max(longest, time.Since(start))
	}
	for i, d := range w.cut { // ended since the signal: running when it came
		names = append(names, w.names[i])
		longest = max(longest, d)
	}
	sort.Strings(names)
	running := "no run was running"
	if len(names) > 0 {
		running = fmt.Sprintf("stopping the %d run(s) still running (the longest for %s): %s", len(names), ranFor(longest), strings.Join(firstN(names, 10), ", "))
	}
	fmt.Fprintf(out, "interrupted (%v): %s; %d of %d not started; the report marks them\n", err, running, w.total-len(w.started), w.total)
}

// ranFor is how long a run has run, to the second (to the millisecond
// under a second: not "0s").
func ranFor(d time.Duration) string {
	if d < time.Second {
		return report.ShortDuration(d.Round(time.Millisecond))
	}
	return report.ShortDuration(d.Round(time.Second))
}

// ranForMs is ranFor of a run's durationMs: the line of a run's end gives
// its time as the lines that said it was still running did.
func ranForMs(ms float64) string {
	return ranFor(time.Duration(ms * float64(time.Millisecond)))
}

// ProgressInterval is how often, while runs are going, the progress
// names the runs still running and for how long: a hook may run for
// minutes (its timeout) and its line comes only when it ends. Tests
// shorten it.
var ProgressInterval = 30 * time.Second

// progressNames is how many running runs a heartbeat line names before
// "and K more".
const progressNames = 3

// planned writes the progress line that opens the work: the runs planned
// and how many run at once (jobs lanes, never more than the runs).
func (w *runWatch) planned(out io.Writer, jobs int) {
	fmt.Fprintf(out, "%d hook run(s) planned, %d at a time\n", w.total, min(jobs, w.total))
}

// still writes the heartbeat line: the runs still running, the longest
// first, each with how long it has run, at most progressNames of them by
// name, and how far the work got; nothing when no run is running (between
// two runs).
func (w *runWatch) still(out io.Writer) {
	if len(w.running) == 0 {
		return
	}
	type running struct {
		name string
		d    time.Duration
	}
	now := time.Now()
	rs := make([]running, 0, len(w.running))
	for i, start := range w.running {
		rs = append(rs, running{w.names[i], now.Sub(start)})
	}
	sort.Slice(rs, func(a, b int) bool {
		if rs[a].d != rs[b].d {
			return rs[a].d > rs[b].d
		}
		return rs[a].name < rs[b].name
	})
	named := make([]string, len(rs))
	for k, r := range rs {
		named[k] = fmt.Sprintf("%s (for %s)", r.name, ranFor(r.d))
	}
	fmt.Fprintf(out, "%d run(s) still running: %s; %d of %d finished, %d not started\n",
		len(rs), strings.Join(firstN(named, progressNames), ", "), len(w.started)-len(w.running), w.total, w.total-len(w.started))
}

// beat writes w.still every interval until stop is closed, holding mu,
// which guards w.
func (w *runWatch) beat(out io.Writer, mu *sync.Mutex, interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			mu.Lock()
			w.still(out)
			mu.Unlock()
		}
	}
}

// finding is the finding of a run the interruption stopped, and whether
// it was one (stopped, or never started: those are told once, by
// summary); such a run has none of runFindings' and nothing to compare.
func (in *interruption) finding(i int, p *plannedRun, e executed) ([]report.Finding, bool) {
	if in == nil || !p.Hook.Executable() {
		return nil, false
	}
	if _, ok := in.cut[i]; ok {
		return []report.Finding{{Rule: RuleRunInterrupted, Severity: report.SeverityError, Location: e.run.Location, Hook: p.ID,
			Title: "stopped by the interruption", Message: fmt.Sprintf("%s: %s", p.ID, e.run.Reason)}}, true
	}
	return nil, !in.started[i]
}

// summary is the one finding that says the work was interrupted, and how
// far it got; nil when it was not.
func (in *interruption) summary(command string, plan []*plannedRun) []report.Finding {
	if in == nil {
		return nil
	}
	total, notRun := 0, 0
	var cut []string
	for i, p := range plan {
		if !p.Hook.Executable() {
			continue
		}
		total++
		if _, ok := in.cut[i]; ok {
			cut = append(cut, p.ID)
		} else if !in.started[i] {
			notRun++
		}
	}
	stopped := ""
	if len(cut) > 0 {
		stopped = " (" + idList(cut, 10) + ")"
	}
	return []report.Finding{{Rule: RuleRunInterrupted, Severity: report.SeverityError, Title: "interrupted",
		Message: fmt.Sprintf("vigiles %s was interrupted (%v): of %d hook run(s), %d finished and are reported as they ran, %d stopped while running%s, %d not started. "+
			"Nothing is known of the runs it did not finish; a hook that was still running is the one to look at when the %s does not end",
			command, in.err, total, total-len(cut)-notRun, len(cut), stopped, notRun, command)}}
}

// idList lists run ids, at most max of them, printable.
func idList(ids []string, max int) string {
	shown := make([]string, len(ids))
	for i, id := range ids {
		shown[i] = printable(id)
	}
	return strings.Join(firstN(shown, max), ", ")
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// matcherSelects reports whether h's matcher selects value (a tool, or a
// SessionStart source, …) of its event; one vigiles cannot evaluate as
// Claude Code does selects everything, as in an audit.
func matcherSelects(h *Hook, value string) bool {
	m, err := compileMatcherFor(h.Event, h.Matcher)
	return (err == nil || errors.Is(err, ErrUnsupportedMatcher)) && m.Match(value)
}

// DefaultBaseline is the baseline vigiles audit compares with when none
// is named.
const DefaultBaseline = ".vigiles/baseline.json"

// mkdirFirst is the directory to make before --update-baseline writes
// the baseline at abs, where it is not there ("" where it is, or where
// abs is inside the work tree, tree, whose directories vigiles makes),
// as the user would name it where it ran the audit: the baseline's
// directory under the --dir given (Invoked.Dir), never the work tree's
// absolute path where the user named none.
func (o Options) mkdirFirst(tree, abs string) string {
	if _, err := relTo(tree, abs); err == nil {
		return ""
	}
	if _, err := os.Stat(filepath.Dir(abs)); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if filepath.IsAbs(o.Baseline) {
		return filepath.Dir(o.Baseline)
	}
	return filepath.Join(o.Invoked.Dir, filepath.Dir(o.Baseline))
}

// rewriteBaseline is how to rewrite the baseline, in the words of every
// finding's advice to ("run %s to create it", "%s keeps it"): the CLI's
// command with the --dir, --config and --baseline the user gave (each as
// given, quoted for a shell; none that is the default), which run where
// the user ran this audit does it; in the GitHub Action, its input, and
// that command to run locally from the workspace's root.
func (o Options) rewriteBaseline() string {
	phrase, _ := o.createBaseline("")
	return phrase
}

// createBaseline is rewriteBaseline where the directory mkdir must be
// made first ("" where none must; mkdirFirst), and what to say after "to
// create it": the CLI's command, and after it to make that directory, as
// vigiles makes none outside the work tree; in the GitHub Action, which
// makes it, the input, and locally the command made to make it first.
func (o Options) createBaseline(mkdir string) (phrase, after string) {
	cmd := "vigiles audit --update-baseline"
	if d := o.Invoked.Dir; d != "" && d != "." {
		cmd += " --dir " + shellQuote(d)
	}
	if o.Config != "" && filepath.Clean(o.Config) != DefaultConfig {
		cmd += " --config " + shellQuote(o.Config)
	}
	cmd += baselineFlag(o.Baseline)
	if o.Invoked.Action {
		if mkdir != "" {
			cmd = "mkdir -p " + shellQuote(mkdir) + " && " + cmd
		}
		return "an audit with the action's input `update-baseline: true` (locally: `" + cmd + "`)", ""
	}
	if mkdir != "" {
		after = fmt.Sprintf(", after you make its directory (mkdir -p %s): vigiles makes none outside the work tree", shellQuote(mkdir))
	}
	return "`" + cmd + "`", after
}

// baselineFlag is the --baseline flag that names path to vigiles audit,
// "" for the default one.
func baselineFlag(path string) string {
	if filepath.Clean(path) == filepath.Clean(DefaultBaseline) {
		return ""
	}
	return " --baseline " + shellQuote(path)
}

// shellQuote quotes s for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
