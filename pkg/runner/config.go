package runner

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"path"
	"regexp"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/reaper"
)

// DefaultConfig is the policy file vigiles reads by default.
const DefaultConfig = ".vigiles.yml"

// RuleConfig is the rule of findings about .vigiles.yml itself.
const RuleConfig = "config/invalid"

// ConfigError is one problem in .vigiles.yml, where it is and what was
// expected.
type ConfigError struct {
	File         string
	Line, Column int
	Msg          string
}

func (e *ConfigError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// ConfigErrors is every problem found in one file.
type ConfigErrors []*ConfigError

func (es ConfigErrors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Findings turns the errors into findings at their locations.
func (es ConfigErrors) Findings() []report.Finding {
	out := make([]report.Finding, 0, len(es))
	for _, e := range es {
		out = append(out, report.Finding{Rule: RuleConfig, Severity: report.SeverityError,
			Location: report.Location{File: e.File, Line: e.Line, Column: e.Column},
			Title:    "invalid .vigiles.yml", Message: e.Msg})
	}
	return out
}

// Config is a parsed .vigiles.yml.
type Config struct {
	File     string
	Defaults Defaults
	// Trusted and Untrusted are plugin path globs, relative to the work
	// tree; they are also discovery roots.
	Trusted, Untrusted []string
	// Payloads override the default tool_input per tool name.
	Payloads map[string]map[string]any
	Checks   []*Check

	// checkEntries counts the entries written under checks (broken ones
	// too; -1 when checks is not a list); checksKey is where the checks
	// key is, when it is there.
	checkEntries int
	checksKey    *yaml.Node
}

// givesTrust says whether c lets any hook run in the open in auto mode:
// trusted plugins, a trusted check or defaults.sandbox: off.
func (c *Config) givesTrust() bool {
	return len(c.Trusted) > 0 || c.Defaults.Sandbox == sandbox.ModeOff ||
		slices.ContainsFunc(c.Checks, func(ch *Check) bool { return ch != nil && ch.Trusted })
}

// noChecks says why a policy that declares no check at all cannot be
// tested: `vigiles test` would run nothing and pass. A policy whose checks
// are all broken has its own errors already, and audit, which reads the
// policy only for its defaults, plugins and payloads, needs no check.
func (c *Config) noChecks() *ConfigError {
	if c.checkEntries != 0 {
		return nil
	}
	e := &ConfigError{File: c.File, Msg: "the policy has no checks, so vigiles test would run nothing and pass: " +
		"add a check under checks: (a name, a hook and what to expect; see examples/README.md)"}
	if c.checksKey != nil {
		e.Line, e.Column = c.checksKey.Line, c.checksKey.Column
	}
	return e
}

// Defaults apply to every run unless a flag or a check overrides them.
type Defaults struct {
	Sandbox sandbox.Mode // "" = not set
	// OpenIgnored are the errors of keys only a sandbox honours written
	// beside sandbox: off (egress, limits, linger, root-sandbox), each a
	// config/invalid error where no --sandbox flag overrides the off.
	OpenIgnored []*ConfigError
	Egress      *evidence.EgressPolicy
	Timeout     time.Duration
	Linger      time.Duration
	Limits      sandbox.Limits
	OutputCap   int
	// RootSandbox opts out of SandboxUID (sandbox.Spec.RootSandbox).
	RootSandbox bool
}

// Check is one named test: what to run, with which event input, and what
// to expect.
type Check struct {
	Name string
	Loc  report.Location
	// Hook selects discovered hooks by ID or plugin name; Command is an
	// ad-hoc command instead. Exactly one is set.
	Hook    string
	HookLoc report.Location
	Command string
	Trusted bool
	Event   string
	Tool    string
	Input   map[string]any
	Payload map[string]any
	Timeout time.Duration
	// Env is what the check adds to the environment Claude Code itself
	// runs in, NAME=VALUE in the order written, which its hooks inherit
	// (CLAUDE_CODE_REMOTE=true, as a Claude Code web session sets it):
	// under the settings' env and what Claude Code sets in each hook.
	Env    []string
	Expect []*Expectation
}

// Expectation kinds.
const (
	ExpExitCode       = "exit-code"
	ExpBlocked        = "blocked"
	ExpAllowed        = "allowed"
	ExpOutcome        = "outcome"
	ExpStdoutContains = "stdout-contains"
	ExpStderrContains = "stderr-contains"
	ExpStdoutMatches  = "stdout-matches"
	ExpStderrMatches  = "stderr-matches"
	ExpJSON           = "json"
	ExpNoEgress       = "no-egress"
	ExpEgressOnly     = "egress-only"
	ExpNoWrite        = "no-write"
	ExpWroteOnly      = "wrote-only"
	ExpMaxDuration    = "max-duration"
	ExpNoEnvFile      = "no-env-file"
	ExpEnvFileMatches = "env-file-matches"
)

var expectationKinds = []string{ExpExitCode, ExpBlocked, ExpAllowed, ExpOutcome, ExpStdoutContains, ExpStderrContains,
	ExpStdoutMatches, ExpStderrMatches, ExpJSON, ExpNoEgress, ExpEgressOnly, ExpNoWrite, ExpWroteOnly, ExpMaxDuration,
	ExpNoEnvFile, ExpEnvFileMatches}

// Expectation is one line under a check's expect.
type Expectation struct {
	Kind string
	Loc  report.Location
	Int  int
	Bool bool
	Str  string
	Re   *regexp.Regexp
	// JSON maps dotted paths of the hook's JSON output to wanted values.
	JSON     []JSONWant
	Hosts    []HostPattern
	Paths    []PathPattern
	Duration time.Duration
}

// JSONWant is one "path: value" of a json expectation.
type JSONWant struct {
	Path  string
	Value any
	Loc   report.Location
	// segs is Path split into its keys (jsonPathSegments).
	segs []string
}

type cfgParser struct {
	file string
	errs ConfigErrors
	// aliased holds the aliases and merge keys reported already (see
	// noAliases); an error about one of them again is only counted in
	// hidden, so that a check around it is still left out.
	aliased map[*yaml.Node]bool
	hidden  int
	// keys, when not nil, collects every key a mapping of the file could
	// have had (the documentation test reads it).
	keys map[string]bool
	// anyTextSteps are the steps matchesAnyText took over the file's
	// patterns so far (maxPolicyAnyTextSteps).
	anyTextSteps int
}

// errCount counts the errors so far, those not repeated included.
func (p *cfgParser) errCount() int { return len(p.errs) + p.hidden }

func (p *cfgParser) errAt(n *yaml.Node, format string, args ...any) {
	if p.aliased[n] {
		p.hidden++
		return
	}
	e := &ConfigError{File: p.file, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

func (p *cfgParser) loc(n *yaml.Node) report.Location {
	return report.Location{File: p.file, Line: n.Line, Column: n.Column}
}

// ParseConfig parses .vigiles.yml. file is the name used in locations
// (repository-relative). A nil error means the file is valid; otherwise
// the error is ConfigErrors, every problem with its place.
func ParseConfig(file string, data []byte) (*Config, error) {
	return parseConfig(&cfgParser{file: file}, data)
}

func parseConfig(p *cfgParser, data []byte) (*Config, error) {
	file := p.file
	cfg := &Config{File: file, Payloads: map[string]map[string]any{}}
	doc, second, err := decodeYAML(data)
	if err != nil {
		return nil, ConfigErrors{yamlSyntaxError(file, data, err)}
	}
	if second != nil {
		at := second
		if at.Line == 0 && len(at.Content) > 0 {
			at = at.Content[0]
		}
		p.errAt(at, "a second YAML document starts here: vigiles reads one; keep the whole policy in one document (remove the ---)")
	}
	if doc == nil || len(doc.Content) == 0 {
		return p.result(cfg) // an empty file is an empty policy
	}
	root := doc.Content[0]
	p.noAliases(root)
	if root.Kind != yaml.MappingNode {
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return p.result(cfg)
		}
		p.errAt(root, "want a mapping with defaults, plugins, payloads and checks")
		_, err := p.result(cfg)
		return nil, err
	}
	p.mapping(root, "the top level", map[string]func(k, v *yaml.Node){
		"version": func(k, v *yaml.Node) {
			if v.Value != "1" {
				p.errAt(v, "version %q: want 1", v.Value)
			}
		},
		"defaults": func(k, v *yaml.Node) { p.defaults(v, &cfg.Defaults) },
		"plugins": func(k, v *yaml.Node) {
			p.mapping(v, "plugins", map[string]func(k, v *yaml.Node){
				"trusted":   func(k, v *yaml.Node) { cfg.Trusted = p.pluginGlobs(v, "plugins.trusted") },
				"untrusted": func(k, v *yaml.Node) { cfg.Untrusted = p.pluginGlobs(v, "plugins.untrusted") },
			})
		},
		"payloads": func(k, v *yaml.Node) {
			if v.Kind != yaml.MappingNode {
				p.errAt(v, "payloads: want a mapping from tool name to tool_input")
				return
			}
			seen := map[string]int{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				tk, tv := v.Content[i], v.Content[i+1]
				if p.aliased[tk] {
					p.hidden++ // a merge key: reported by noAliases
					continue
				}
				if l, dup := seen[tk.Value]; dup {
					p.errAt(tk, "payloads: tool %q appears twice (first on line %d); keep one", tk.Value, l)
					continue
				}
				seen[tk.Value] = tk.Line
				m, ok := p.object(tv, "payloads."+tk.Value)
				if ok {
					cfg.Payloads[tk.Value] = m
				}
			}
		},
		"checks": func(k, v *yaml.Node) {
			cfg.checksKey = k
			cfg.checkEntries = -1 // not a list: an error of its own
			if v.Kind == yaml.SequenceNode {
				cfg.checkEntries = len(v.Content)
			}
			if v.Kind != yaml.SequenceNode {
				hint := ""
				if v.Kind == yaml.MappingNode && len(v.Content) > 0 {
					// One check's keys written under checks: without
					// the "- " that makes it an entry of a list.
					hint = ` (each check starts with "- ", as "  - name: …" under checks:)`
				}
				p.errAt(v, "checks: want a list of checks%s", hint)
				return
			}
			names := map[string]bool{}
			for _, c := range v.Content {
				if ch := p.check(c); ch != nil {
					if names[ch.Name] {
						p.errAt(c, "check %q: a check with this name exists already; names must be unique", ch.Name)
						continue
					}
					names[ch.Name] = true
					cfg.Checks = append(cfg.Checks, ch)
				}
			}
		},
	})
	return p.result(cfg)
}

// result returns cfg with the errors found, in the order of the file.
func (p *cfgParser) result(cfg *Config) (*Config, error) {
	if len(p.errs) == 0 {
		return cfg, nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool {
		a, b := p.errs[i], p.errs[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	if len(p.errs) > maxConfigErrors {
		rest := p.errs[maxConfigErrors]
		more := &ConfigError{File: p.file, Line: rest.Line, Column: rest.Column,
			Msg: fmt.Sprintf("and %d more problems from here on; fix those above first", len(p.errs)-maxConfigErrors)}
		p.errs = append(p.errs[:maxConfigErrors:maxConfigErrors], more)
	}
	return cfg, p.errs
}

// maxConfigErrors bounds the problems reported of one policy file: a file
// of 300,000 anchors is one mistake, not 300,000 findings.
const maxConfigErrors = 100

// mapping walks a mapping node, calling the handler of each known key and
// reporting unknown and duplicate keys with the keys that are allowed.
func (p *cfgParser) mapping(n *yaml.Node, what string, handlers map[string]func(k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.errAt(n, "%s: want a mapping (key: value lines), found %s", what, nodeKind(n))
		return
	}
	if p.keys != nil {
		for key := range handlers {
			p.keys[key] = true
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if p.aliased[k] {
			p.hidden++ // a merge key or an alias as key: reported by noAliases
			continue
		}
		h, ok := handlers[k.Value]
		if !ok {
			keys := make([]string, 0, len(handlers))
			for key := range handlers {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			hint := ""
			if near := nearKey(k.Value, keys); near != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", near)
			}
			p.errAt(k, "unknown key %q in %s: want one of %s%s", k.Value, what, strings.Join(keys, ", "), hint)
			continue
		}
		if seen[k.Value] {
			p.errAt(k, "key %q appears twice in %s", k.Value, what)
			continue
		}
		seen[k.Value] = true
		h(k, v)
	}
}

// nearKey is the one of keys (sorted) that key is a slip of, for the
// error of an unknown key: a spelling within an edit or two of it
// (wrote_only, defualts, Blocked), or the one key it begins with a word
// of (exit for exit-code); "" for none.
func nearKey(key string, keys []string) string {
	low := strings.ToLower(key)
	best := textdist.Nearest(key, keys)
	if best != "" || low == "" {
		return best
	}
	for _, k := range keys {
		if strings.HasPrefix(k, low+"-") {
			if best != "" {
				return "" // exit-code and exit-… alike: no one slip
			}
			best = k
		}
	}
	return best
}

// noAliases reports every anchor, alias and merge key (<<) under n, once
// each. vigiles resolves none of them: one rule everywhere (before, an
// alias was expanded inside payloads and refused elsewhere) and no
// document that grows by aliasing (a "billion laughs" file is refused
// before anything is expanded). It never follows an alias.
func (p *cfgParser) noAliases(n *yaml.Node) {
	const fix = "anchors and aliases are not supported: write the value out"
	if p.aliased == nil {
		p.aliased = map[*yaml.Node]bool{}
	}
	if n.Kind == yaml.AliasNode {
		p.errAt(n, "%s (in place of *%s)", fix, n.Value)
		p.aliased[n] = true
		return
	}
	if n.Anchor != "" {
		p.errAt(n, "%s (and remove the anchor &%s)", fix, n.Anchor)
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.ShortTag() == mergeTag {
				p.errAt(k, "merge keys (<<) are not supported: write the keys out")
				p.aliased[k] = true
				if v.Kind == yaml.AliasNode {
					continue // the << says it already
				}
			}
			p.noAliases(k)
			p.noAliases(v)
		}
		return
	}
	for _, c := range n.Content {
		p.noAliases(c)
	}
}

const mergeTag = "!!merge"

// nonScalarKey returns the first mapping key under n that is not a
// scalar (JSON has string keys only).
func nonScalarKey(n *yaml.Node) *yaml.Node {
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && c.Kind != yaml.ScalarNode {
			return c
		}
		if k := nonScalarKey(c); k != nil {
			return k
		}
	}
	return nil
}

// hasAlias says whether an alias or a merge key is anywhere under n.
func hasAlias(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		return true
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 && c.Kind == yaml.ScalarNode && c.ShortTag() == mergeTag || hasAlias(c) {
			return true
		}
	}
	return false
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing"
	}
	return fmt.Sprintf("%q", n.Value)
}

func (p *cfgParser) scalar(n *yaml.Node, what, want string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errAt(n, "%s: want %s, found %s", what, want, nodeKind(n))
		return "", false
	}
	return n.Value, true
}

// str reads a string. A value with an explicit tag other than !!str
// (!!binary aGk=, !!int 5, !custom x) is refused: its text is not the
// value the tag says (a !!binary's text is base64), and vigiles would
// compare the text.
func (p *cfgParser) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.Style&yaml.TaggedStyle != 0 && n.ShortTag() != "!!str" {
		p.errAt(n, "%s: want a string, found a value tagged %s: remove the tag (or write !!str)", what, n.Tag)
		return "", false
	}
	return p.scalar(n, what, "a string")
}

// boolean reads true or false as YAML 1.2's core schema (and yaml.v3)
// spells them: true, True, TRUE, false, False, FALSE. Anything else is an
// error, a value tagged !!bool among them (!!bool yes): it would be read
// as neither, and a check that means true must never pass as false.
func (p *cfgParser) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		switch n.Value {
		case "true", "True", "TRUE":
			return true, true
		case "false", "False", "FALSE":
			return false, true
		}
	}
	p.errAt(n, "%s: want true or false, found %s", what, nodeKind(n))
	return false, false
}

// isBool says whether n is written as a boolean (of any spelling, valid
// or not: boolean says which).
func isBool(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!bool" }

func (p *cfgParser) integer(n *yaml.Node, what string, lo, hi int) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		p.errAt(n, "%s: want a whole number from %d to %d, found %s", what, lo, hi, nodeKind(n))
		return 0, false
	}
	if err := leadingZero(n); err != nil {
		p.errAt(n, "%s: %v", what, err)
		return 0, false
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil || v < int64(lo) || v > int64(hi) {
		p.errAt(n, "%s: want a whole number from %d to %d, found %s", what, lo, hi, n.Value)
		return 0, false
	}
	return int(v), true
}

// leadingZeroRE matches a whole number written with a leading 0 before
// a digit (010, 08): one with a fraction or an exponent (01.5) is read
// alike by every YAML reader.
var leadingZeroRE = lazyRE(`^[-+]?0[0-9]+$`)

// leadingZero says why a plain number written with a leading 0 (010, 08)
// is refused: yaml.v3 reads 010 as YAML 1.1 did, octal 8, where YAML 1.2
// and most editors and linters read 10 (and 08 is a float), so the value
// vigiles compares may not be the one its author sees (exit-code: 010
// would pass a hook that exits 8). 0o10 and 0x10 say their base.
func leadingZero(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 ||
		n.Tag != "!!int" && n.Tag != "!!float" || !leadingZeroRE().MatchString(n.Value) {
		return nil
	}
	return fmt.Errorf("%s has a leading 0, which YAML readers read as octal or as decimal, so it is not clear which number it is: write it without the 0 (or 0o… for octal)", n.Value)
}

// maxPolicyDuration is the longest duration the policy takes (a
// timeout, the linger).
const maxPolicyDuration = sandbox.MaxDuration

// duration accepts Go durations ("1.5s", "2m") and plain seconds, above 0
// (or 0 itself, where zeroOK: linger's default, no time at all) and at
// most maxPolicyDuration.
func (p *cfgParser) duration(n *yaml.Node, what string, zeroOK bool) (time.Duration, bool) {
	s, ok := p.scalar(n, what, "a duration such as 10s or 1m30s")
	if !ok {
		return 0, false
	}
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil && n.Tag != "!!str" {
		d = time.Duration(f * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		p.errAt(n, "%s: want a duration such as 10s or 1m30s, found %q", what, s)
		return 0, false
	}
	if d < 0 || d == 0 && !zeroOK || d > maxPolicyDuration {
		least := "above 0"
		if zeroOK {
			least = "of 0 or more"
		}
		p.errAt(n, "%s: want a duration %s and at most 24h, found %q", what, least, s)
		return 0, false
	}
	return d, true
}

var sizeRE = lazyRE(`^(\d+)\s*([KMGT]i?B?|B)?$`)

func (p *cfgParser) size(n *yaml.Node, what string) (uint64, bool) {
	s, ok := p.scalar(n, what, "a size such as 512MiB")
	if !ok {
		return 0, false
	}
	v, err := ParseSize(s)
	if err != nil {
		if meant := SizeMeant(s); meant != "" {
			p.errAt(n, "%s: %v, found %q (did you mean %s?)", what, err, s, meant)
		} else {
			p.errAt(n, "%s: %v, found %q", what, err, s)
		}
		return 0, false
	}
	return v, true
}

// limitSize reads a size that bounds a run. 0 is refused: the sandbox
// reads a zero bound as its default (def), which the value does not say.
func (p *cfgParser) limitSize(n *yaml.Node, what string, def uint64) (uint64, bool) {
	v, ok := p.size(n, what)
	if ok && v == 0 {
		p.errAt(n, "%s: 0 would mean the default (%s), not no limit or none: write a size, or remove the line for the default", what, FormatSize(def))
		return 0, false
	}
	return v, ok
}

// FormatSize writes a size as .vigiles.yml and the command line do, in
// the largest binary unit that divides it (ParseSize reads it back).
func FormatSize(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n != 0 && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.name)
		}
	}
	return strconv.FormatUint(n, 10)
}

// ParseSize reads a size as .vigiles.yml and the command line write it: a
// whole number of bytes, optionally followed by K, M, G or T (each times
// 1024; "i" and "B" are both optional, so KiB, KB, Ki and K are the same),
// or by B: 1048576, 64KiB, 512MiB, 2GiB; less than 2^64-1.
func ParseSize(s string) (uint64, error) {
	m := sizeRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, errors.New("want a size such as 1048576, 64KiB, 512MiB or 2GiB")
	}
	v, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, errSizeTooLarge
	}
	mult := uint64(1)
	switch strings.TrimSuffix(strings.TrimSuffix(m[2], "B"), "i") {
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	}
	// 2^64-1 itself is RLIM_INFINITY, which would turn a limit set
	// with setrlimit (memory, file-size) off, not bound it.
	if v > math.MaxUint64/mult || v*mult == math.MaxUint64 {
		return 0, errSizeTooLarge
	}
	return v * mult, nil
}

// errSizeTooLarge is ParseSize's error for a size of 2^64-1 bytes or
// more, which names the largest it reads in its largest unit.
var errSizeTooLarge = fmt.Errorf("too large: a size is less than 2^64-1 bytes, at most %dTiB", uint64(math.MaxUint64)>>40)

// SizeMeant is the size s means, written as ParseSize reads it, where s
// is one ParseSize refuses only for the way it is written: a unit in
// lower case (64k, 2gb, 512mib, 100b), or a number with a fraction that
// is a whole number of bytes (1.5GiB is 1536MiB); "" for anything else.
func SizeMeant(s string) string {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return ""
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	shift := uint(0)
	switch strings.TrimSuffix(strings.TrimSuffix(unit, "b"), "i") {
	case "":
		if unit != "b" {
			return ""
		}
	case "k":
		shift = 10
	case "m":
		shift = 20
	case "g":
		shift = 30
	case "t":
		shift = 40
	default:
		return ""
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok || r.Sign() <= 0 {
		return ""
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), shift)))
	if !r.IsInt() || !r.Num().IsUint64() {
		return ""
	}
	meant := FormatSize(r.Num().Uint64())
	if _, err := ParseSize(meant); err != nil {
		return ""
	}
	return meant
}

func (p *cfgParser) strList(n *yaml.Node, what, want string) []string {
	var out []string
	for _, e := range p.strEntries(n, what, want) {
		out = append(out, e.s)
	}
	return out
}

// pluginGlobs reads plugins.trusted or plugins.untrusted: globs of plugin
// directories relative to the work tree. One that can never match a
// plugin's directory (absolute, with a ".." or "~", malformed) is an
// error: an untrusted entry that matches nothing would let the vendored
// code it means run in the open.
func (p *cfgParser) pluginGlobs(n *yaml.Node, what string) []string {
	var out []string
	for _, e := range p.strEntries(n, what, "plugin path globs") {
		if err := checkPluginGlob(e.s); err != nil {
			p.errAt(e.n, "%s: %v", what, err)
			continue
		}
		out = append(out, e.s)
	}
	return out
}

// checkPluginGlob says why a plugins.trusted or plugins.untrusted glob can
// never match a plugin directory, as trusted and discovery read it.
func checkPluginGlob(g string) error {
	const form = "a plugin directory relative to the work tree, such as plugins/* or vendor/acme"
	rel := strings.TrimSuffix(strings.TrimPrefix(g, "./"), "/")
	switch {
	case strings.TrimSpace(g) == "":
		return fmt.Errorf("an empty glob matches no plugin: want %s", form)
	case strings.HasPrefix(g, "/"):
		return fmt.Errorf("%q is an absolute path, which never matches: plugin directories are matched relative to the work tree; want %s", g, form)
	case g == "~" || strings.HasPrefix(g, "~/") || strings.HasPrefix(g, "$"):
		return fmt.Errorf("%q is not expanded and never matches: want %s", g, form)
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." || seg == "." && rel != "." || seg == "" && rel != "" {
			return fmt.Errorf("%q has a %q segment, which a plugin directory's path never has: want %s", g, orDefault(seg, "//"), form)
		}
	}
	if _, err := globRegexp(rel); err != nil {
		return fmt.Errorf("%q is not a valid glob (%v): want %s", g, strings.TrimPrefix(err.Error(), fmt.Sprintf("glob %q: ", rel)), form)
	}
	if _, err := path.Match(rel, ""); err != nil {
		return fmt.Errorf("%q is not a valid glob (%v): want %s", g, err, form)
	}
	return nil
}

// strEntry is one string of a list, with its node.
type strEntry struct {
	s string
	n *yaml.Node
}

// strEntries is strList with the node of each string, for errors about
// one entry.
func (p *cfgParser) strEntries(n *yaml.Node, what, want string) []strEntry {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []strEntry{{n.Value, n}}
	}
	if n.Kind != yaml.SequenceNode {
		p.errAt(n, "%s: want a list of %s, found %s", what, want, nodeKind(n))
		return nil
	}
	var out []strEntry
	for _, e := range n.Content {
		if s, ok := p.str(e, what+" entry"); ok {
			out = append(out, strEntry{s, e})
		}
	}
	return out
}

// object decodes a mapping into plain values with JSON-compatible types.
func (p *cfgParser) object(n *yaml.Node, what string) (map[string]any, bool) {
	if n.Kind != yaml.MappingNode {
		p.errAt(n, "%s: want a mapping, found %s", what, nodeKind(n))
		return nil, false
	}
	v, ok := p.value(n, what)
	if !ok {
		return nil, false
	}
	m, _ := v.(map[string]any)
	return m, true
}

// value decodes any node into JSON-compatible values (numbers as float64).
func (p *cfgParser) value(n *yaml.Node, what string) (any, bool) {
	if hasAlias(n) {
		p.hidden++ // reported by noAliases
		return nil, false
	}
	if k := nonScalarKey(n); k != nil {
		p.errAt(k, "%s: a mapping key must be a string, found %s", what, nodeKind(k))
		return nil, false
	}
	out, at, err := yamlValue(n)
	if err != nil {
		p.errAt(at, "%s: %v", what, err)
		return nil, false
	}
	return out, true
}

// yamlValue converts a node tree (with no alias, see hasAlias) into
// JSON-compatible values, in one pass: yaml.v3's own Decode compares every
// key of a mapping with every other and keeps an error text for each
// repeated pair, so a few thousand repeated keys cost gigabytes and
// minutes. Each scalar is still resolved by yaml.v3 itself. A repeated
// key, a key that is not a string and a value JSON cannot hold (.nan,
// .inf, a timestamp) are errors at their node.
func yamlValue(n *yaml.Node) (any, *yaml.Node, error) {
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, at, err := yamlValue(c)
			if err != nil {
				return nil, at, err
			}
			out = append(out, v)
		}
		return out, nil, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		line := make(map[string]int, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			kv, at, err := yamlValue(k)
			if err != nil {
				return nil, at, err
			}
			ks, ok := kv.(string)
			if !ok {
				return nil, k, fmt.Errorf("mapping key %s: want a string key", nodeKind(k))
			}
			if l, dup := line[ks]; dup {
				return nil, k, fmt.Errorf("key %q appears twice (first on line %d): keep one", ks, l)
			}
			line[ks] = k.Line
			v, at, err := yamlValue(n.Content[i+1])
			if err != nil {
				return nil, at, err
			}
			out[ks] = v
		}
		return out, nil, nil
	case yaml.ScalarNode:
		if err := leadingZero(n); err != nil {
			return nil, n, err
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, n, err
		}
		c, err := jsonCompatible(v)
		if err != nil {
			return nil, n, err
		}
		return c, nil, nil
	}
	return nil, n, fmt.Errorf("%s has no JSON equivalent", nodeKind(n))
}

// jsonCompatible turns a decoded scalar into its JSON value (numbers as
// float64), or says why JSON has none.
func jsonCompatible(v any) (any, error) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v has no JSON equivalent: want a finite number", x)
		}
		return x, nil
	case nil, string, bool:
		return x, nil
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case uint64:
		return float64(x), nil
	case float32:
		return jsonCompatible(float64(x))
	}
	return nil, fmt.Errorf("value %v (%T) has no JSON equivalent", v, v)
}

// matchesAny is anyTextSearch within what the file's patterns have left
// of maxPolicyAnyTextSteps: over is true where that ran out, and whether
// re matches any text is not known (a pattern is then refused, never kept
// unchecked for others before it, which could be written for that).
func (p *cfgParser) matchesAny(re *regexp.Regexp) (any, over bool) {
	left := max(maxPolicyAnyTextSteps-p.anyTextSteps, 0)
	any, steps := anyTextSearch(re, min(maxAnyTextSteps, left))
	p.anyTextSteps += steps
	return any, steps > left
}

// matchesAnyText says whether re matches every text, as an expectation
// applies it (unanchored): it runs re's program over every text at once,
// one character class at a time (each character re tells apart from the
// others, with what its assertions see of the one before), and finds no
// text at whose end no match has been found. ".*", "deny|", "$", "\z",
// "x*$", "^deny$|" and "(?s)^.*$" match any text; "^$", "\b" and
// "deny" do not. A program too large to explore within bounds is taken as
// expecting something.
func matchesAnyText(re *regexp.Regexp) bool {
	any, _ := anyTextSearch(re, maxAnyTextSteps)
	return any
}

// Bounds on the states anyTextSearch visits and the steps it takes in
// all, so that a policy's pattern cannot make parsing it take long; and
// on the steps of all a policy's patterns together (maxPolicyAnyTextSteps,
// some 16 patterns at the bound), so that many of them cannot either.
const maxAnyTextStates, maxAnyTextSteps, maxPolicyAnyTextSteps = 4096, 1 << 21, 1 << 25

// anyTextSearch is matchesAnyText within maxSteps steps (the program's
// instructions it followed, over every state and character, and one for
// each instruction it has), with the steps it took: more than maxSteps
// when it stopped at the bound.
func anyTextSearch(re *regexp.Regexp, maxSteps int) (any bool, steps int) {
	if !re.MatchString("") {
		return false, 0
	}
	t, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return false, 0
	}
	prog, err := syntax.Compile(t.Simplify())
	if err != nil {
		return false, 0
	}
	if steps = len(prog.Inst); steps > maxSteps { // read once, for the characters below
		return false, maxSteps + 1
	}
	// The characters the program tells apart: every range's ends, the
	// case variants of a literal, and what its assertions look at (a
	// newline, the word characters).
	points := map[rune]bool{0: true, '\n': true, '\n' + 1: true, '0': true, '9' + 1: true, 'A': true, 'Z' + 1: true, '_': true, '_' + 1: true, 'a': true, 'z' + 1: true}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
			for i, r := range in.Rune {
				points[r] = true
				if i%2 == 1 || len(in.Rune) == 1 {
					points[r+1] = true
				}
			}
			if len(in.Rune) == 1 && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(in.Rune[0]); f != in.Rune[0]; f = unicode.SimpleFold(f) {
					points[f], points[f+1] = true, true
				}
			}
		}
	}
	// No text holds a surrogate (its bytes, as any that are not UTF-8,
	// are read as U+FFFD): the range of them is one class, left out.
	points[0xD800], points[0xE000] = true, true
	var chars []rune
	for r := range points {
		if r >= 0 && r <= unicode.MaxRune && (r < 0xD800 || r > 0xDFFF) {
			chars = append(chars, r)
		}
	}
	slices.Sort(chars)
	// What an assertion sees of the character before: none, a newline,
	// a word character, another.
	kind := func(r rune) rune {
		switch {
		case r < 0 || r == '\n':
			return r
		case syntax.IsWordChar(r):
			return 'a'
		}
		return ' '
	}
	type state struct {
		threads string // the program counters waiting for a character
		prev    rune
	}
	// visited[pc] == gen: pc was followed for the character at hand.
	visited, gen := make([]uint32, len(prog.Inst)), uint32(0)
	var stack []uint32
	seen := map[state]bool{{"", -1}: true}
	queue := []state{{"", -1}}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		pcs := []uint32{uint32(prog.Start)}
		for i := 0; i < len(st.threads); i += 4 {
			pcs = append(pcs, uint32(st.threads[i])|uint32(st.threads[i+1])<<8|uint32(st.threads[i+2])<<16|uint32(st.threads[i+3])<<24)
		}
		// -1: the text ends here.
		for _, next := range append([]rune{-1}, chars...) {
			flags := syntax.EmptyOpContext(st.prev, next)
			matched := false
			var waiting []uint32
			// The instructions reached without reading a character,
			// followed with a stack of their own (a chain of them is as
			// long as the program) and no further than the bound.
			gen++
			stack = append(stack[:0], pcs...)
			for len(stack) > 0 && !matched && steps <= maxSteps {
				pc := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if visited[pc] == gen {
					continue
				}
				visited[pc] = gen
				steps++
				in := &prog.Inst[pc]
				switch in.Op {
				case syntax.InstMatch:
					matched = true
				case syntax.InstAlt, syntax.InstAltMatch:
					stack = append(stack, in.Arg, in.Out)
				case syntax.InstCapture, syntax.InstNop:
					stack = append(stack, in.Out)
				case syntax.InstEmptyWidth:
					if syntax.EmptyOp(in.Arg)&^flags == 0 {
						stack = append(stack, in.Out)
					}
				case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
					if next >= 0 && in.MatchRune(next) {
						waiting = append(waiting, in.Out)
					}
				}
			}
			if steps > maxSteps {
				return false, steps
			}
			if matched {
				continue // every text that goes on so has matched
			}
			if next < 0 {
				return false, steps // a text that ends here matches nowhere
			}
			slices.Sort(waiting)
			waiting = slices.Compact(waiting)
			b := make([]byte, 0, 4*len(waiting))
			for _, pc := range waiting {
				b = append(b, byte(pc), byte(pc>>8), byte(pc>>16), byte(pc>>24))
			}
			ns := state{string(b), kind(next)}
			if !seen[ns] {
				if len(seen) >= maxAnyTextStates {
					return false, steps
				}
				seen[ns] = true
				queue = append(queue, ns)
			}
		}
	}
	return true, steps
}

// MinMemory is the smallest address-space limit per process
// (limits.memory, vigiles run --limit-memory) a run may be given. Under
// the limit the sandbox's shell sets it (ulimit -v) and execs the
// command, whose loader must then map the program and libc: measured on
// Debian 12 (amd64), as root and as a user alike, `true` starts from
// about 2.4MiB, `sh -c true` (dash) from 2.6MiB and `bash -c true` from
// 4MiB; below that the command dies of SIGSEGV, or exits 127 as if it
// were not there, as its own failure. The floor leaves room for another
// libc, shell or loader.
const MinMemory = 16 << 20

func (p *cfgParser) defaults(n *yaml.Node, d *Defaults) {
	// confinedOnly are the keys written that only a sandbox honours, in
	// the order written: beside sandbox: off they would be taken and do
	// nothing, as vigiles run refuses their flags beside --sandbox off.
	var confinedOnly []*yaml.Node
	confined := func(k *yaml.Node) { confinedOnly = append(confinedOnly, k) }
	defer func() {
		if d.Sandbox != sandbox.ModeOff {
			return
		}
		// Kept, not yet an error: --sandbox on the command line wins
		// over the policy's off, and then they are honoured (the run's
		// settings say it, where the flag is known: OpenIgnored).
		for _, k := range confinedOnly {
			d.OpenIgnored = append(d.OpenIgnored, &ConfigError{File: p.file, Line: k.Line, Column: k.Column,
				Msg: fmt.Sprintf("defaults.%s: defaults.sandbox: off runs every hook in the open, which cannot honour it: only a sandbox walls and records the network, records writes and holds limits; leave it out, or confine the hooks (sandbox: auto or strict)", k.Value)})
		}
	}()
	p.mapping(n, "defaults", map[string]func(k, v *yaml.Node){
		"sandbox": func(k, v *yaml.Node) {
			s, ok := p.str(v, "defaults.sandbox")
			if !ok {
				return
			}
			m, err := sandbox.ParseMode(s)
			if err != nil {
				// The reason (which modes there are) is ParseMode's, said
				// once; the value is named as this file names it.
				why := err.Error()
				if me := (*sandbox.ModeError)(nil); errors.As(err, &me) {
					why = me.Reason
				}
				p.errAt(v, "defaults.sandbox %q: %s", s, why)
				return
			}
			d.Sandbox = m
		},
		"egress":  func(k, v *yaml.Node) { confined(k); d.Egress = p.egress(v) },
		"timeout": func(k, v *yaml.Node) { d.Timeout, _ = p.duration(v, "defaults.timeout", false) },
		"linger":  func(k, v *yaml.Node) { d.Linger, _ = p.duration(v, "defaults.linger", true) },
		"output-cap": func(k, v *yaml.Node) {
			s, ok := p.limitSize(v, "defaults.output-cap", sandbox.DefaultOutputCap)
			if ok && s > sandbox.MaxOutputCap {
				p.errAt(v, "defaults.output-cap: at most %dMiB", sandbox.MaxOutputCap>>20)
				return
			}
			d.OutputCap = int(s)
		},
		"root-sandbox": func(k, v *yaml.Node) { confined(k); d.RootSandbox, _ = p.boolean(v, "defaults.root-sandbox") },
		"limits": func(k, v *yaml.Node) {
			confined(k)
			l := &d.Limits
			p.mapping(v, "defaults.limits", map[string]func(k, v *yaml.Node){
				// The sandbox refuses every run below these (its own
				// processes need them); say so here, at the value.
				"pids": func(k, v *yaml.Node) {
					// A count of 1 up to the floor says why it is refused;
					// any other value out of range, the range itself,
					// which starts at that floor.
					if n, err := strconv.ParseInt(v.Value, 0, 64); v.Kind == yaml.ScalarNode && v.Tag == "!!int" && err == nil && n >= 1 && n < sandbox.MinPids {
						p.errAt(v, "limits.pids: %d is below the %d processes the sandbox itself needs (bubblewrap, vigiles' init and reaper), so every run would be refused: want at least %d", n, sandbox.MinPids, sandbox.MinPids)
						return
					}
					l.Pids, _ = p.integer(v, "limits.pids", sandbox.MinPids, sandbox.MaxPids)
				},
				"memory": func(k, v *yaml.Node) {
					s, ok := p.limitSize(v, "limits.memory", reaper.Defaults.MemoryBytes)
					if ok && s < MinMemory {
						p.errAt(v, "limits.memory: %s is below the %dMiB a process needs to start in the sandbox (the shell that sets the limit, the command's loader and libc), so every command would fail to start: want at least %dMiB", v.Value, MinMemory>>20, MinMemory>>20)
						return
					}
					l.MemoryBytes = s
				},
				"run-memory": func(k, v *yaml.Node) {
					s, ok := p.limitSize(v, "limits.run-memory", reaper.Defaults.RunMemoryBytes)
					if ok && s < sandbox.MinRunMemory {
						p.errAt(v, "limits.run-memory: %s is below the %dMiB the sandbox's own processes need (bubblewrap, vigiles' init and reaper), so every run would be refused: want at least %dMiB", v.Value, sandbox.MinRunMemory>>20, sandbox.MinRunMemory>>20)
						return
					}
					l.RunMemoryBytes = s
				},
				"file-size": func(k, v *yaml.Node) {
					l.FileBytes, _ = p.limitSize(v, "limits.file-size", reaper.Defaults.FileBytes)
				},
				"scratch": func(k, v *yaml.Node) {
					s, ok := p.limitSize(v, "limits.scratch", reaper.Defaults.ScratchBytes)
					if ok && s < sandbox.MinScratch {
						p.errAt(v, "limits.scratch: %s is below the %dMiB the sandbox gives a run's scratch at least: want at least %dMiB", v.Value, sandbox.MinScratch>>20, sandbox.MinScratch>>20)
						return
					}
					l.ScratchBytes = s
				},
				"cpu-seconds": func(k, v *yaml.Node) {
					c, _ := p.integer(v, "limits.cpu-seconds", 1, sandbox.MaxCPUSeconds)
					l.CPUSeconds = uint64(c)
				},
				"open-files": func(k, v *yaml.Node) {
					c, _ := p.integer(v, "limits.open-files", sandbox.MinOpenFiles, sandbox.MaxOpenFiles)
					l.OpenFiles = uint64(c)
				},
			})
		},
	})
}

// egress parses "deny", "record", or {mode, allow, allow-ip, dns-upstream,
// connector}.
func (p *cfgParser) egress(n *yaml.Node) *evidence.EgressPolicy {
	const want = "deny, record, or a mapping {mode: allow, allow: [hosts]}"
	if n.Kind == yaml.ScalarNode {
		switch n.Value {
		case evidence.EgressDeny, evidence.EgressRecord:
			return &evidence.EgressPolicy{Mode: n.Value}
		case evidence.EgressAllow:
			p.errAt(n, "defaults.egress: allow needs a host list: write {mode: allow, allow: [hosts]}")
			return nil
		}
		p.errAt(n, "defaults.egress %q: want %s", n.Value, want)
		return nil
	}
	pol := &evidence.EgressPolicy{}
	written := 0 // entries under allow and allow-ip, valid or not
	var modeNode *yaml.Node
	var allowOnly []*yaml.Node // the keys of dns-upstream and connector
	p.mapping(n, "defaults.egress", map[string]func(k, v *yaml.Node){
		"mode": func(k, v *yaml.Node) {
			modeNode = v
			s, ok := p.str(v, "defaults.egress.mode")
			if !ok {
				return
			}
			switch s {
			case evidence.EgressDeny, evidence.EgressRecord, evidence.EgressAllow:
				pol.Mode = s
			default:
				p.errAt(v, "defaults.egress.mode %q: want deny, record or allow", s)
			}
		},
		"allow": func(k, v *yaml.Node) {
			for _, e := range p.strEntries(v, "defaults.egress.allow", "host names") {
				written++
				if err := checkAllowHost(e.s); err != nil {
					p.errAt(e.n, "defaults.egress.allow %v", err)
					continue
				}
				pol.Allow = append(pol.Allow, e.s)
			}
		},
		"allow-ip": func(k, v *yaml.Node) {
			for _, e := range p.strEntries(v, "defaults.egress.allow-ip", "CIDRs") {
				written++
				if err := checkAllowIP(e.s); err != nil {
					p.errAt(e.n, "defaults.egress.allow-ip %v", err)
					continue
				}
				pol.AllowIP = append(pol.AllowIP, e.s)
			}
		},
		"dns-upstream": func(k, v *yaml.Node) {
			allowOnly = append(allowOnly, k)
			s, ok := p.str(v, "defaults.egress.dns-upstream")
			if !ok {
				return
			}
			if err := checkDNSUpstream(s); err != nil {
				p.errAt(v, "defaults.egress.dns-upstream %v", err)
				return
			}
			pol.DNSUpstream = s
		},
		"connector": func(k, v *yaml.Node) {
			allowOnly = append(allowOnly, k)
			s, ok := p.str(v, "defaults.egress.connector")
			if ok && s != "slirp4netns" && s != "pasta" {
				p.errAt(v, "defaults.egress.connector %q: want slirp4netns or pasta", s)
				return
			}
			pol.Connector = s
		},
	})
	if pol.Mode == "" {
		pol.Mode = evidence.EgressDeny
		if written > 0 { // allow entries, valid or not: each bad one is said once
			pol.Mode = evidence.EgressAllow
		}
	}
	if pol.Mode == evidence.EgressAllow && written == 0 {
		p.errAt(n, "defaults.egress: mode allow needs at least one host in allow, or an address range in allow-ip")
	}
	if pol.Mode != evidence.EgressAllow && written > 0 && modeNode != nil {
		// The egress layer refuses such a policy: every run would be,
		// as a run/refused error in words of the command line's flags.
		// The mistake is said here, at its line, and the runs go on in
		// the mode written, as they do past any other mistake.
		p.errAt(modeNode, "defaults.egress.mode %s: allow and allow-ip take effect only in mode allow; make it allow, or remove them", pol.Mode)
		pol.Allow, pol.AllowIP = nil, nil
	}
	if pol.Mode != evidence.EgressAllow {
		// Nothing is routed out of such a run: the option would be
		// silently moot, as --connector and --dns-upstream are refused.
		for _, k := range allowOnly {
			p.errAt(k, "defaults.egress.%s: only in mode allow (egress is %s); remove it, or allow hosts", k.Value, pol.Mode)
		}
	}
	return pol
}

// check parses one check. Every mistake in it is reported, those under
// expect too, however broken the rest is; a check with any mistake is
// left out (nil).
func (p *cfgParser) check(n *yaml.Node) *Check {
	c := &Check{Loc: p.loc(n)}
	errsBefore := p.errCount()
	var expectNode, toolNode, toolKey, inputKey, trustedKey, payloadNode *yaml.Node
	hasName, nameOK, hasHook, hasCommand := false, false, false, false
	p.mapping(n, "a check", map[string]func(k, v *yaml.Node){
		"name": func(k, v *yaml.Node) {
			hasName = true
			c.Name, nameOK = p.str(v, "check name")
			// A run of a hook: check is "check:<name>><hook id>": a name
			// with ">" could give another check's run id.
			if nameOK && strings.Contains(c.Name, runIDSep) {
				p.errAt(v, "check name %q: %q separates a check's name from the hook id in its runs' ids, so it may not be part of a name; choose another character", c.Name, runIDSep)
			}
		},
		"hook": func(k, v *yaml.Node) {
			hasHook = true
			var ok bool
			c.Hook, ok = p.str(v, "check hook (a plugin name or hook id)")
			c.HookLoc = p.loc(v)
			if ok && c.Hook == "" {
				p.errAt(v, "check hook: want a plugin name or hook id, found \"\"")
			}
		},
		"command": func(k, v *yaml.Node) {
			hasCommand = true
			var ok bool
			c.Command, ok = p.str(v, "check command")
			c.HookLoc = p.loc(v)
			if ok && c.Command == "" {
				p.errAt(v, "check command: want a shell command, found \"\"")
			}
		},
		"trusted": func(k, v *yaml.Node) { c.Trusted, _ = p.boolean(v, "check trusted"); trustedKey = k },
		"event": func(k, v *yaml.Node) {
			s, ok := p.str(v, "check event")
			if !ok {
				return
			}
			if _, known := knownEvents[s]; !known {
				p.errAt(v, "%s", unknownCheckEvent(s))
				return
			}
			c.Event = s
		},
		"tool":  func(k, v *yaml.Node) { c.Tool, _ = p.str(v, "check tool"); toolNode, toolKey = v, k },
		"input": func(k, v *yaml.Node) { c.Input, _ = p.object(v, "check input (the tool_input)"); inputKey = k },
		"payload": func(k, v *yaml.Node) {
			c.Payload, _ = p.object(v, "check payload (top-level event fields)")
			payloadNode = v
		},
		"timeout": func(k, v *yaml.Node) { c.Timeout, _ = p.duration(v, "check timeout", false) },
		"env":     func(k, v *yaml.Node) { c.Env = p.checkEnv(v) },
		"expect":  func(k, v *yaml.Node) { expectNode = v },
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	// What the messages call the check: its name, or where it starts.
	what := fmt.Sprintf("check %q", c.Name)
	if c.Name == "" {
		what = fmt.Sprintf("the check at line %d", n.Line)
	}
	// Keys behind a merge key (<<, reported already) are not read; do not
	// also say they are missing.
	merged := false
	for i := 0; i < len(n.Content); i += 2 {
		merged = merged || p.aliased[n.Content[i]]
	}
	if !merged && (!hasName || nameOK && c.Name == "") {
		p.errAt(n, "a check needs a name")
	}
	switch {
	case merged:
	case !hasHook && !hasCommand:
		p.errAt(n, "%s: want hook (a plugin name or hook id) or command", what)
	case hasHook && hasCommand:
		p.errAt(n, "%s: hook and command exclude each other; keep one", what)
	case hasHook && trustedKey != nil:
		// A discovered hook's trust is its plugin's, whatever a check
		// says: the key would be silently ignored.
		p.errAt(trustedKey, "%s: trusted applies to command checks only; a hook's trust is its plugin's: list the plugin under plugins.trusted instead", what)
	}
	if c.Event == "" {
		c.Event = PreToolUse
	}
	if c.Tool != "" && !IsToolEvent(c.Event) {
		spec := knownEvents[c.Event]
		switch {
		case c.Event == FileChanged:
			// Its matcher names files: the tool is the one told changed.
		case spec.MatchField == "":
			p.errAt(toolKey, "%s: event %s has no tool or matcher value; remove tool", what, c.Event)
		case spec.Closed && !contains(spec.Values, c.Tool):
			// Claude Code never sends it: the run would test a payload
			// that cannot occur, and pass where no matcher filters.
			p.errAt(toolNode, "tool %q: %s sends %s as one of %s", c.Tool, c.Event, spec.MatchField, strings.Join(spec.Values, ", "))
		}
	}
	if IsToolEvent(c.Event) && c.Tool != "" && !slices.Contains(claudeTools, c.Tool) {
		// A tool of Claude Code's in another case (tool: write): no
		// session sends that call, and a hook whose matcher names the
		// tool rightly would be said not to run. A name a letter or two
		// off is left alone: it may be a tool of a Claude Code newer
		// than this list.
		if i := slices.IndexFunc(claudeTools, func(t string) bool { return strings.EqualFold(t, c.Tool) }); i >= 0 {
			p.errAt(toolNode, "%s: tool %q is no tool of Claude Code's: did you mean %s? Claude Code names its tools exactly, case and all, so no session sends this call", what, c.Tool, claudeTools[i])
		}
	}
	if skipsToolEvent(c.Event, c.Tool) {
		// Claude Code never fires the event for the tool: the run would
		// test a payload that cannot occur.
		p.errAt(toolNode, "%s: tool %q: Claude Code runs no %s hook for %s calls (nor %s), so no session sends this payload; name another tool, or another tool event", what, c.Tool, c.Event, c.Tool,
			JoinWords(slices.DeleteFunc(slices.Clone(endConversationSkips), func(e string) bool { return e == c.Event }), "or"))
	}
	if v, ok := c.Payload["teammate_name"]; ok {
		// Claude Code sends a teammate's name, a string: anything else
		// decides nothing of it (rulesFor), and would pass for none.
		if s, _ := v.(string); s == "" {
			p.errAt(payloadNode, "%s: payload teammate_name: want a teammate's name, a string that is not empty, found %s", what, strconv.Quote(fmt.Sprint(v)))
		}
	}
	if payloadNode != nil && payloadNode.Kind == yaml.MappingNode {
		// What decides whether Claude Code runs the hook at all (its
		// matcher, its if) is read from event, tool and input: a payload
		// that sends it another event, tool, input or matcher value
		// would run it for a call Claude Code never runs it for, and
		// the check would pass on that.
		spec := knownEvents[c.Event]
		for i := 0; i+1 < len(payloadNode.Content); i += 2 {
			k := payloadNode.Content[i]
			instead := ""
			switch {
			case k.Value == "hook_event_name":
				instead = "event"
			case IsToolEvent(c.Event) && k.Value == "tool_name":
				instead = "tool"
			case IsToolEvent(c.Event) && k.Value == "tool_input":
				instead = "input"
			case !IsToolEvent(c.Event) && spec.MatchField != "" && k.Value == spec.MatchField,
				c.Event == FileChanged && k.Value == "file_path":
				instead = "tool"
			}
			if instead != "" {
				p.errAt(k, "%s: payload %s: which hooks run for the call, by their matcher and if, is decided by the check's %s, which the payload would override, so the hook could get a call Claude Code never runs it for; set it with %s: instead", what, k.Value, instead, instead)
			}
		}
	}
	if c.Input != nil && !IsToolEvent(c.Event) {
		p.errAt(inputKey, "%s: input is the tool_input of a tool event; %s has none (use payload)", what, c.Event)
	}
	if expectNode == nil {
		if !merged {
			p.errAt(n, "%s: want an expect mapping with at least one expectation", what)
		}
	} else {
		c.Expect = p.expect(expectNode, what)
	}
	if !knownEvents[c.Event].EnvFile {
		// Known before any run: every run of the check would fail it.
		for _, x := range c.Expect {
			if x.Kind == ExpNoEnvFile || x.Kind == ExpEnvFileMatches {
				p.errs = append(p.errs, &ConfigError{File: p.file, Line: x.Loc.Line, Column: x.Loc.Column,
					Msg: fmt.Sprintf("%s: %s: Claude Code gives %s hooks no CLAUDE_ENV_FILE (only %s hooks get one), so no run could pass it: set the check's event to one of those, or remove the line", what, x.Kind, c.Event, JoinWords(EnvFileEvents(), "and"))})
			}
		}
	}
	if outcomeRules[c.Event].ignoresOutput {
		// Known before any run: Claude Code reads none of such a hook's
		// JSON, so a json expectation would pass on what it never reads.
		for _, x := range c.Expect {
			if x.Kind == ExpJSON {
				p.errs = append(p.errs, &ConfigError{File: p.file, Line: x.Loc.Line, Column: x.Loc.Column,
					Msg: fmt.Sprintf("%s: json: Claude Code reads none of the JSON output of %s hooks, whatever the exit status (it discards that of %s hooks), so a pass would prove nothing it acts on: check the text with stdout-contains or stdout-matches, or remove the line", what, c.Event, JoinWords(ignoresOutputEvents(), "and"))})
			}
		}
	}
	if rules := outcomeRules[c.Event]; !rules.canBlock(c.Event, c.Tool) {
		// Known before any run: blocked is never its outcome, so a check
		// that wants it fails every run, and one that wants allowed
		// passes whatever the hook answers.
		why := fmt.Sprintf("nothing a %s hook exits with or prints blocks it (only %s hooks can block)", c.Event, JoinWords(BlockingEvents(), "and"))
		fix := "set the check's event to one of those"
		if rules.canBlock(c.Event, "") {
			why = fmt.Sprintf("Claude Code cannot block a %s %s, whatever its hook answers (another %s's it can)", c.Tool, c.Event, knownEvents[c.Event].MatchField)
			fix = "set the check's tool to another"
		}
		for _, x := range c.Expect {
			switch x.wantOutcome() {
			case report.OutcomeBlocked:
				p.errs = append(p.errs, &ConfigError{File: p.file, Line: x.Loc.Line, Column: x.Loc.Column,
					Msg: fmt.Sprintf("%s: %s: %s, so no run could pass it: %s, or remove the line", what, x.Kind, why, fix)})
			case report.OutcomeAllowed:
				p.errs = append(p.errs, &ConfigError{File: p.file, Line: x.Loc.Line, Column: x.Loc.Column,
					Msg: fmt.Sprintf("%s: %s: %s, so it passes whatever the hook answers and proves nothing of it: %s, or remove the line", what, x.Kind, why, fix)})
			}
		}
	}
	if p.errCount() > errsBefore {
		return nil
	}
	return c
}

// expect parses the expect mapping of a check (what names the check).
func (p *cfgParser) expect(n *yaml.Node, check string) []*Expectation {
	var out []*Expectation
	what := "expect of " + check
	handlers := map[string]func(k, v *yaml.Node){}
	add := func(kind string, f func(e *Expectation, v *yaml.Node) bool) {
		handlers[kind] = func(k, v *yaml.Node) {
			e := &Expectation{Kind: kind, Loc: p.loc(k)}
			if f(e, v) {
				out = append(out, e)
			}
		}
	}
	add(ExpExitCode, func(e *Expectation, v *yaml.Node) (ok bool) { e.Int, ok = p.integer(v, ExpExitCode, 0, 255); return })
	add(ExpBlocked, func(e *Expectation, v *yaml.Node) (ok bool) { e.Bool, ok = p.boolean(v, ExpBlocked); return })
	add(ExpAllowed, func(e *Expectation, v *yaml.Node) (ok bool) { e.Bool, ok = p.boolean(v, ExpAllowed); return })
	add(ExpOutcome, func(e *Expectation, v *yaml.Node) bool {
		s, ok := p.str(v, ExpOutcome)
		if !ok {
			return false
		}
		switch s {
		case report.OutcomeAllowed, report.OutcomeBlocked, report.OutcomeError:
			e.Str = s
			return true
		}
		p.errAt(v, "outcome %q: want allowed, blocked or error", s)
		return false
	})
	for _, kind := range []string{ExpStdoutContains, ExpStderrContains} {
		k := kind
		add(k, func(e *Expectation, v *yaml.Node) bool {
			s, ok := p.str(v, k)
			if !ok {
				return false
			}
			// Every output contains the empty string: it would always pass.
			if s == "" {
				p.errAt(v, "%s: \"\" expects nothing (every output contains it); give the text to find, or remove the line", k)
				return false
			}
			e.Str = s
			return true
		})
	}
	for _, kind := range []string{ExpStdoutMatches, ExpStderrMatches, ExpEnvFileMatches} {
		k := kind
		add(k, func(e *Expectation, v *yaml.Node) bool {
			s, ok := p.str(v, k)
			if !ok {
				return false
			}
			pat := strings.TrimPrefix(s, "re:")
			// The empty pattern matches anything: it would always pass.
			// Patterns that match empty output, like ^$, are kept.
			if pat == "" {
				p.errAt(v, "%s: %q is an empty pattern, which expects nothing (it matches anything); give a regular expression, ^$ for empty output, or remove the line", k, s)
				return false
			}
			re, err := regexp.Compile(pat)
			if err != nil {
				p.errAt(v, "%s: want a regular expression: %v", k, err)
				return false
			}
			any, over := p.matchesAny(re)
			if over {
				// Not the pattern's own bound but what the file's
				// patterns had left: a pattern is never kept unchecked
				// for others before it, which could be written for that.
				p.errAt(v, "%s: %q: the policy's patterns are together more than vigiles checks (that none of them matches any text); use fewer, or simpler, ones", k, s)
				return false
			}
			if any {
				// ".*", "x*", "deny|", "$", an unanchored (export …\n)*:
				// it matches somewhere in any text, so it would always
				// pass.
				p.errAt(v, "%s: %q matches any text (every text has a place where it matches, if only an empty string at its start or end), so it expects nothing; anchor it at both ends (^…$ for the whole text), or remove the line", k, s)
				return false
			}
			e.Str, e.Re = s, re
			return true
		})
	}
	add(ExpJSON, func(e *Expectation, v *yaml.Node) bool {
		if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
			p.errAt(v, "json: want a mapping from a dotted path of the hook's JSON output (e.g. hookSpecificOutput.permissionDecision) to the value it equals")
			return false
		}
		good := true // every bad entry is reported, not the first only
		seen := map[string]int{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k := v.Content[i]
			if p.aliased[k] {
				p.hidden++ // a merge key: reported by noAliases
				good = false
				continue
			}
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				p.errAt(k, "json: want a dotted path (a string) as key, found %s; quote it (\"0\") if it is one", nodeKind(k))
				good = false
				continue
			}
			segs, err := jsonPathSegments(k.Value)
			if err != nil {
				p.errAt(k, "json: path %q: %v", k.Value, err)
				good = false
				continue
			}
			if l, dup := seen[k.Value]; dup {
				p.errAt(k, "json: path %q appears twice (first on line %d); keep one", k.Value, l)
				good = false
				continue
			}
			seen[k.Value] = k.Line
			val, ok := p.value(v.Content[i+1], "json."+k.Value)
			if !ok {
				good = false
				continue
			}
			e.JSON = append(e.JSON, JSONWant{Path: k.Value, segs: segs, Value: val, Loc: p.loc(k)})
		}
		return good
	})
	// "none at all" expectations: true, or nothing is expected.
	for _, c := range []struct{ kind, instead string }{{ExpNoEgress, ExpEgressOnly}, {ExpNoEnvFile, ExpEnvFileMatches}} {
		k, instead := c.kind, c.instead
		add(k, func(e *Expectation, v *yaml.Node) bool {
			b, ok := p.boolean(v, k)
			if ok && !b {
				p.errAt(v, "%s: false expects nothing; remove the line or use %s", k, instead)
				return false
			}
			return ok
		})
	}
	add(ExpEgressOnly, func(e *Expectation, v *yaml.Node) bool {
		if v.Kind != yaml.SequenceNode {
			p.errAt(v, "egress-only: want a list of hosts (exact, *.suffix, optionally :port)")
			return false
		}
		good := true
		for _, h := range v.Content {
			if h.Kind == yaml.ScalarNode && h.Style&(yaml.TaggedStyle|yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && (h.Tag == "!!int" || h.Tag == "!!float") {
				// 443 or 1.5 names no host a hook reaches (a port is
				// written host:443): it would only ever fail.
				p.errAt(h, "egress-only entry %s is a number, not a host: want a host name or address (exact, *.suffix), a port after it (api.example.test:443)", h.Value)
				good = false
				continue
			}
			s, ok := p.str(h, "egress-only entry")
			if !ok {
				good = false
				continue
			}
			hp, err := ParseHostPattern(s)
			if err != nil {
				p.errAt(h, "egress-only: %v", err)
				good = false
				continue
			}
			if strings.TrimSuffix(hp.host, ".") == "*" && hp.port == 0 {
				// (A final dot, an absolute name's, is dropped when
				// hosts are compared: "*." is "*".)
				// Every named destination: egress-only would pass
				// whatever the hook tried.
				p.errAt(h, "egress-only: %q allows every host, so it expects nothing; list the hosts (exact, or *.suffix), or remove the line", s)
				good = false
				continue
			}
			e.Hosts = append(e.Hosts, hp)
		}
		return good
	})
	for _, kind := range []string{ExpNoWrite, ExpWroteOnly} {
		k := kind
		add(k, func(e *Expectation, v *yaml.Node) bool {
			if k == ExpNoWrite && isBool(v) {
				b, ok := p.boolean(v, k)
				if !ok {
					return false
				}
				if !b {
					p.errAt(v, "no-write: false expects nothing; remove the line")
					return false
				}
				pp, _ := ParsePathPattern("**")
				e.Paths = []PathPattern{pp}
				return true
			}
			if v.Kind != yaml.SequenceNode {
				p.errAt(v, "%s: want a list of path patterns (globs, or re:regex)%s", k, map[bool]string{true: ", or true for no writes at all", false: ""}[k == ExpNoWrite])
				return false
			}
			if k == ExpNoWrite && len(v.Content) == 0 {
				// wrote-only: [] says "no writes"; no-write: [] forbids
				// nothing and would pass whatever the hook wrote.
				p.errAt(v, "no-write: [] expects nothing; list path patterns, or write no-write: true for no writes at all")
				return false
			}
			good := true
			for _, pn := range v.Content {
				s, ok := p.str(pn, k+" entry")
				if !ok {
					good = false
					continue
				}
				pp, err := ParsePathPattern(s)
				if err != nil {
					p.errAt(pn, "%s: %v", k, err)
					good = false
					continue
				}
				if k == ExpNoWrite {
					pp = pp.Covering()
				} else if re := pp.regexp(); re != nil && !pp.tree {
					// "*" (a base name, at any depth), "**", "re:",
					// "re:.*", "re:(?s).": every path, so wrote-only would
					// pass whatever the hook wrote (its links aside).
					// "./**" is the work tree's every path, and says
					// something: nothing in HOME, TMPDIR or /dev/shm. No
					// path is empty: a pattern that matches every text
					// but "" is asked of too.
					nonEmpty, err := regexp.Compile("(?:" + re.String() + `)|\A\z`)
					if err != nil {
						nonEmpty = re
					}
					if any, over := p.matchesAny(nonEmpty); over {
						p.errAt(pn, "wrote-only: %q: the policy's patterns are together more than vigiles checks (that none of them matches any text); use fewer, or simpler, ones", s)
						good = false
						continue
					} else if any {
						base := ""
						if pp.base != "" {
							base = " (a pattern without / is a base name, matched at any depth)"
						}
						p.errAt(pn, "wrote-only: %q allows every path%s, so it expects nothing; list what the hook may write (such as .claude/journal/**), or remove the line", s, base)
						good = false
						continue
					}
				}
				e.Paths = append(e.Paths, pp)
			}
			return good
		})
	}
	add(ExpMaxDuration, func(e *Expectation, v *yaml.Node) (ok bool) {
		e.Duration, ok = p.duration(v, ExpMaxDuration, false)
		return
	})
	p.mapping(n, what, handlers)
	if n.Kind == yaml.MappingNode && len(n.Content) == 0 {
		p.errAt(n, "%s: want at least one of %s", what, strings.Join(expectationKinds, ", "))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Loc.Line < out[j].Loc.Line })
	// blocked, allowed and outcome each name the one outcome a run has:
	// two that name different ones could never pass together.
	var first *Expectation
	for _, x := range out {
		if x.wantOutcome() == "" {
			continue
		}
		if first == nil {
			first = x
			continue
		}
		if x.wantOutcome() != first.wantOutcome() {
			p.errs = append(p.errs, &ConfigError{File: p.file, Line: x.Loc.Line, Column: x.Loc.Column,
				Msg: fmt.Sprintf("%s: %s wants the call %s, but %s (line %d) wants it %s: a run has one outcome, so no run could pass both; keep one", what, x.Kind, x.wantOutcome(), first.Kind, first.Loc.Line, first.wantOutcome())})
		}
	}
	return out
}

// wantOutcome is the outcome a blocked, allowed or outcome expectation
// wants of the call; "" for another kind.
func (x *Expectation) wantOutcome() string {
	switch x.Kind {
	case ExpBlocked:
		return map[bool]string{true: report.OutcomeBlocked, false: report.OutcomeAllowed}[x.Bool]
	case ExpAllowed:
		return map[bool]string{true: report.OutcomeAllowed, false: report.OutcomeBlocked}[x.Bool]
	case ExpOutcome:
		return x.Str
	}
	return ""
}

// envName matches an environment variable's name a check may set.
var envName = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*$`)

// IsEnvName says whether name is a variable's name that a check's env, or
// vigiles run's --env and --env-secret, may pass: letters, digits and _,
// not starting with a digit.
func IsEnvName(name string) bool { return envName().MatchString(name) }

// NotEnvName says, after a name IsEnvName refuses, why.
const NotEnvName = "is no variable name: want letters, digits and _, not starting with a digit"

// checkEnv reads a check's env: a mapping of variable names to scalar
// values (a string, a number or a boolean, as written: true is "true"),
// each NAME=VALUE, in the order written.
func (p *cfgParser) checkEnv(n *yaml.Node) []string {
	if n.Kind != yaml.MappingNode {
		p.errAt(n, "check env: want a mapping of variable names to values, such as {CLAUDE_CODE_REMOTE: \"true\"}, found %s", nodeKind(n))
		return nil
	}
	var env []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case k.Kind != yaml.ScalarNode || !IsEnvName(k.Value):
			p.errAt(k, "check env: %s %s", nodeKind(k), NotEnvName)
			continue
		case k.Value == "CLAUDE_EFFORT":
			p.errAt(k, "check env: CLAUDE_EFFORT is set by Claude Code from the effort level the payload carries, as vigiles sets it: set the check's payload effort.level instead")
			continue
		case hookOwnEnv[k.Value] || strings.HasPrefix(k.Value, "CLAUDE_PLUGIN_OPTION_"):
			p.errAt(k, "check env: %s is set by Claude Code in each hook it runs, as vigiles sets it: a check cannot set it", k.Value)
			continue
		case v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Style&yaml.TaggedStyle != 0 && v.ShortTag() != "!!str":
			p.errAt(v, "check env.%s: want a string, a number or a boolean, found %s", k.Value, nodeKind(v))
			continue
		case strings.ContainsRune(v.Value, 0):
			p.errAt(v, "check env.%s: a value cannot hold a NUL byte", k.Value)
			continue
		}
		env = append(env, k.Value+"="+v.Value)
	}
	return env
}
