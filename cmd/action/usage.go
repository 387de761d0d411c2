package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// helpDocs names, for each command, the documents that describe it in
// depth: its help ends by pointing at them.
var helpDocs = map[string]string{
	"run":    "docs/result-format.md (the --json document), docs/egress.md (the network modes) and docs/security.md (what confinement stops, and what it does not)",
	"test":   "examples/README.md (.vigiles.yml, key by key), docs/report-format.md (the report, every rule) and docs/hook-events.md (the events and payloads hooks are run with)",
	"audit":  "docs/report-format.md (the report, every rule, the baseline), examples/README.md (.vigiles.yml) and docs/hook-events.md (the events and payloads hooks are run with)",
	"merge":  "docs/report-format.md (the report; shards and merge)",
	"doctor": "docs/security.md (what each layer stops) and docs/container.md (what a container needs)",
	"action": "docs/github-action.md (every input and output, the GITHUB_* variables read and how to run it locally, ready-to-copy workflows)",
}

// writeHelp prints a command's help text, its flags and where its
// documents are to w, in one write, whose error it returns. fs is left as
// it is (flagsShown).
func writeHelp(w io.Writer, help string, fs *pflag.FlagSet) error {
	var b strings.Builder
	b.WriteString(help)
	b.WriteString(flagsShown(fs).FlagUsages())
	if d, ok := helpDocs[fs.Name()]; ok {
		writeMore(&b, d)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flagsShown is a copy of fs to print the help from: each flag copied,
// in fs's order, with a duration's default written as the messages, the
// docs and the policy file write one (1m), not as pflag does (1m0s). fs
// itself is not changed, so the flags' defaults stay as pflag set them
// for whatever reads them after the help (another help among them).
func flagsShown(fs *pflag.FlagSet) *pflag.FlagSet {
	shown := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	shown.SortFlags = fs.SortFlags
	fs.VisitAll(func(f *pflag.Flag) {
		c := *f
		if d, err := time.ParseDuration(f.DefValue); err == nil && f.Value.Type() == "duration" {
			c.DefValue = report.ShortDuration(d)
		}
		shown.AddFlag(&c)
	})
	return shown
}

// helpWritten is what a command returns once its help, asked for, was
// written with err: status 125 where it could not be (a full disk, a
// closed pipe), as for any other output vigiles could not write.
func helpWritten(what string, err error) error {
	if err != nil {
		return exitWith(125, fmt.Errorf("%s: writing the help: %w", what, err))
	}
	return nil
}

// writeMore ends a help text by naming the documents docs.
func writeMore(w io.Writer, docs string) {
	fmt.Fprintf(w, "\nMore: %s, in the vigiles repository (https://github.com/vigiles/action).\n", docs)
}

// parseFlags parses a command's flags. Help that was asked for (-h,
// --help) goes to stdout and ends the command with status 0 (125 where it
// could not be written: helpWritten); a flag that
// does not parse is a usage error (status 2), its message on stderr.
// Help printed because of a usage error goes to stderr: see usageError.
func parseFlags(fs *pflag.FlagSet, help string, args []string, stdout, stderr io.Writer) (done bool, err error) {
	fs.SetOutput(stderr)
	// pflag calls Usage only when help is asked for.
	var helpErr error
	fs.Usage = func() {
		if c, ok := stdout.(*flagsOf); ok {
			c.fs = fs
			return
		}
		helpErr = writeHelp(stdout, help, fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, helpWritten(fs.Name(), helpErr)
		}
		// pflag's message names the flag, not the command or the fix.
		return true, exitWith(2, fmt.Errorf("%s: %w%s; see vigiles %s --help", fs.Name(), noUnit(outOfRange(err)), flagHint(fs, err, args), fs.Name()))
	}
	// A long flag with one dash that starts with its own shorthand
	// (-output=r.json) parses as that shorthand with the rest for its
	// value (-o utput=r.json): the report would go to a file of that name.
	for _, a := range args {
		if a == "--" {
			break
		}
		g, ok := strings.CutPrefix(a, "-")
		if !ok || strings.HasPrefix(g, "-") {
			continue
		}
		name, _, _ := strings.Cut(g, "=")
		if f := fs.Lookup(name); f != nil && f.Shorthand != "" && len(name) > 1 && f.Changed {
			return true, exitWith(2, fmt.Errorf("%s: %s was read as -%s with the value %q, not as --%s: a long flag takes two dashes; see vigiles %s --help",
				fs.Name(), a, f.Shorthand, strings.TrimPrefix(g, f.Shorthand), f.Name, fs.Name()))
		}
	}
	// A flag whose value was left out takes the next argument: "--",
	// which ends the flags (vigiles run --stdin -- cmd), is then no file
	// or name to look for but the mistake itself.
	var took string
	fs.Visit(func(f *pflag.Flag) {
		if took != "" {
			return
		}
		switch f.Value.Type() {
		case "string":
			if f.Value.String() == "--" {
				took = f.Name
			}
		case "stringArray":
			if vs, _ := fs.GetStringArray(f.Name); slices.Contains(vs, "--") {
				took = f.Name
			}
		}
	})
	if took != "" {
		return true, exitWith(2, fmt.Errorf("%s: --%s took \"--\" as its value, which is missing: give it before the -- that ends the flags; see vigiles %s --help", fs.Name(), took, fs.Name()))
	}
	return false, nil
}

// flagHint is what an unknown flag's error adds: the command's flag the
// name is a slip of (--egres: did you mean --egress?), or, for --json on
// a command whose report takes --format, that flag; for vigiles action,
// which takes no flags, the INPUT_* variable that sets the input (args
// are the command's arguments, where the flag's value is).
func flagHint(fs *pflag.FlagSet, err error, args []string) string {
	if fs.Name() == "action" {
		return actionFlagHint(err, args)
	}
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok && err.Error() == "unknown shorthand flag: 'o' in -o" {
		name, ok = "output", true
	}
	if long, _, _ := strings.Cut(singleDash(err, args), "="); !ok && len(long) > 1 {
		// A long flag with one dash (-json, -dir): pflag reads it as
		// shorthands and names the first it does not know.
		if fs.Lookup(long) != nil {
			return fmt.Sprintf(" (did you mean --%s? a long flag takes two dashes)", long)
		}
		name, ok = long, true
	}
	if !ok {
		return ""
	}
	// vigiles run and doctor print a JSON document of their own with
	// --json: what it is, and its schema.
	jsonWhat, jsonDoc := "the result", "the vigiles.run/v1 document"
	if fs.Name() == "doctor" {
		jsonWhat, jsonDoc = "its report", "the vigiles.doctor/v1 report"
	}
	if name == "output" && fs.Lookup("json") != nil {
		// The report of test and audit has -o; the JSON of run and
		// doctor is written where its stdout goes.
		return fmt.Sprintf(" (vigiles %s writes no file: --json prints %s on stdout, which > writes to one)", fs.Name(), jsonWhat)
	}
	name, _, _ = strings.Cut(name, "=")
	if name == "json" && fs.Lookup("format") != nil {
		return " (did you mean --format json?)"
	}
	// A flag of another command, which this one spells otherwise or
	// takes from the policy file.
	switch {
	case name == "format" && fs.Lookup("json") != nil:
		return fmt.Sprintf(" (did you mean --json? it prints %s on stdout)", jsonDoc)
	case name == "dir" && fs.Lookup("workdir") != nil:
		return " (did you mean --workdir?)"
	case name == "workdir" && fs.Lookup("dir") != nil:
		return " (did you mean --dir?)"
	case (name == "baseline" || name == "update-baseline") && fs.Lookup("config") != nil && fs.Lookup("baseline") == nil:
		// vigiles test: its checks hold or fail on their own.
		return " (that is vigiles audit's; vigiles test runs the policy file's checks and compares with no baseline)"
	case name == "config" && fs.Name() == "run":
		return " (vigiles run reads no policy file, as vigiles test and audit do: each of its options is a flag)"
	case policyKeys[name] != "" && fs.Lookup("config") != nil:
		return fmt.Sprintf(" (that is vigiles run's; here %s sets it)", policyKeys[name])
	}
	if owners := whoseFlag(fs.Name(), name); owners != "" {
		return fmt.Sprintf(" (that is a flag of vigiles %s, not of vigiles %s)", owners, fs.Name())
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if c := closest(name, names); c != "" {
		return fmt.Sprintf(" (did you mean --%s?)", c)
	}
	if c := byWords(name, names); c != "" {
		return fmt.Sprintf(" (did you mean --%s?)", c)
	}
	return ""
}

// flagsOf, given as a command's stdout with --help, keeps the FlagSet
// whose help was asked for and writes nothing: whoseFlag reads each
// command's flags from the FlagSet the command itself makes.
type flagsOf struct{ fs *pflag.FlagSet }

func (*flagsOf) Write(b []byte) (int, error) { return len(b), nil }

// commandFlags is the FlagSet of the command name, as its --help lists
// it, or nil for a command that has none.
func commandFlags(name string) *pflag.FlagSet {
	sc, ok := subcommands[name]
	if !ok {
		return nil
	}
	c := &flagsOf{}
	_ = sc.run(context.Background(), []string{"--help"}, func(string) string { return "" }, strings.NewReader(""), c, io.Discard)
	return c.fs
}

// flagCommands are the commands whose flags whoseFlag looks through, in
// the order the docs name them ("run, test and audit"): every command of
// subcommands but action, whose options are the step's inputs
// (TestWhoseFlagLooksThroughEveryCommand).
var flagCommands = []string{"run", "test", "audit", "merge", "doctor"}

// whoseFlag names the commands other than cmd that have the flag name
// ("test and audit"), or "" where none has: a flag given to a command
// that lacks it is said as another's (vigiles run --jobs), where the
// message said only that it is unknown.
func whoseFlag(cmd, name string) string {
	var owners []string
	for _, n := range flagCommands {
		if n == cmd {
			continue
		}
		if fs := commandFlags(n); fs != nil && fs.Lookup(name) != nil {
			owners = append(owners, n)
		}
	}
	switch len(owners) {
	case 0:
		return ""
	case 1:
		return owners[0]
	}
	return strings.Join(owners[:len(owners)-1], ", ") + " and " + owners[len(owners)-1]
}

// byWords is the one of names, hyphenated flag names, that name is a
// shortening or a reordering of, too far from it for closest: its first
// words (--update for --update-baseline, --max for --max-runs), or its
// words in another order (--baseline-update); "" where none is, or more
// than one (--limit).
func byWords(name string, names []string) string {
	words := func(s string) string {
		w := strings.Split(strings.ToLower(s), "-")
		slices.Sort(w)
		return strings.Join(w, "-")
	}
	var found []string
	for _, n := range names {
		if words(n) == words(name) {
			return n
		}
		if len(name) >= 3 && strings.HasPrefix(n, strings.ToLower(name)+"-") {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// singleDash is the argument, without its dash, that an unknown shorthand
// flag was given in ("json" of -json; "quiet" of -quiet, whose -q pflag
// took before it met the u), or "" for another error.
func singleDash(err error, args []string) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() == "" {
		return ""
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if g, ok := strings.CutPrefix(a, "-"); ok && !strings.HasPrefix(g, "-") && strings.HasSuffix(g, ne.GetSpecifiedShortnames()) {
			return g
		}
	}
	return ne.GetSpecifiedShortnames()
}

// actionFlagHint is what the error of a flag given to vigiles action adds:
// its options are the action's inputs, read from INPUT_* variables, so
// --fail-level warning is INPUT_FAIL_LEVEL=warning (with the input the
// name is a slip of, where it is one). The value is the flag's, where args
// give one after it or after its "=" (never the token's).
func actionFlagHint(err error, args []string) string {
	const none = " (vigiles action takes no flags: its options are the action's inputs, set as INPUT_* variables)"
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return none
	}
	name, _, _ = strings.Cut(name, "=")
	input := name
	if !slices.Contains(actionInputNames, name) {
		if input = closest(name, actionInputNames); input == "" {
			return none
		}
	}
	value := "…"
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			value = v
			break
		}
		if a == "--"+name && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			value = args[i+1]
			break
		}
	}
	if input == "github-token" || value == "" || strings.ContainsAny(value, " \t\r\n'\"$`\\") {
		value = "…"
	}
	return fmt.Sprintf(" (vigiles action takes no flags; set the input as a variable instead: INPUT_%s=%s vigiles action)",
		strings.ToUpper(strings.ReplaceAll(input, "-", "_")), value)
}

// policyKeys are the flags of vigiles run whose setting test and audit
// take from the policy file, each with the key that sets it there.
var policyKeys = map[string]string{
	"timeout":          "the policy file's defaults.timeout, or a check's timeout,",
	"linger":           "the policy file's defaults.linger",
	"output-cap":       "the policy file's defaults.output-cap",
	"limit-cpu":        "the policy file's defaults.limits.cpu-seconds",
	"limit-file-size":  "the policy file's defaults.limits.file-size",
	"limit-memory":     "the policy file's defaults.limits.memory",
	"limit-open-files": "the policy file's defaults.limits.open-files",
	"limit-pids":       "the policy file's defaults.limits.pids",
	"limit-run-memory": "the policy file's defaults.limits.run-memory",
	"limit-scratch":    "the policy file's defaults.limits.scratch",
	"allow-ip":         "the policy file's defaults.egress.allow-ip",
	"dns-upstream":     "the policy file's defaults.egress.dns-upstream",
	"connector":        "the policy file's defaults.egress.connector",
	"env":              "a check's env in the policy file",
	"trusted":          "the policy file's plugins.trusted, or a command check's trusted: true,",
	"stdin":            "the event's JSON, which the policy file's payloads and a check's input and payload make,",
}

// asFlag says err, a parser's refusal of a flag's value, as the CLI
// names a flag's value: --shard "3/2": want ..., the flag and the value
// once, where the parser's own text names the value its own way (shard
// "3/2": want ...) for its other callers (refusedValue). An error of
// another kind is put after the flag's name.
func asFlag(flag string, err error) error {
	if value, reason, ok := refusedValue(err); ok {
		var me *sandbox.ModeError
		if errors.As(err, &me) {
			reason += didYouMean(value, string(sandbox.ModeAuto), string(sandbox.ModeStrict), string(sandbox.ModeOff))
		}
		return hinted{msg: fmt.Sprintf("%s %q: %s", flag, value, reason), err: err}
	}
	return fmt.Errorf("%s: %w", flag, err)
}

// didYouMean is what a flag's value v was meant to be, said as --egress
// says it (": did you mean deny?"): the one of words it is but for its
// case (--format JSON, --sandbox Strict: the values are lower case), or
// the one it is a slip of (--format sarf); "" where none is near.
func didYouMean(v string, words ...string) string {
	if w := textdist.Nearest(v, words); w != "" {
		return fmt.Sprintf(": did you mean %s?", w)
	}
	return ""
}

// asInput is asFlag for an action's input: the value quoted, then what
// is wanted ("0/0": want i/n ...), after the input's name the caller
// writes. An error of another kind is returned as it is.
func asInput(err error) error {
	if value, reason, ok := refusedValue(err); ok {
		return hinted{msg: fmt.Sprintf("%q: %s", value, reason), err: err}
	}
	return err
}

// refusedValue is the value a parser refused and the reason it gave,
// where err is a refusal that carries them (runner.ShardError,
// sandbox.ModeError); ok is false for any other error.
func refusedValue(err error) (value, reason string, ok bool) {
	var se *runner.ShardError
	if errors.As(err, &se) {
		return se.Value, se.Reason, true
	}
	var me *sandbox.ModeError
	if errors.As(err, &me) {
		return me.Value, me.Reason, true
	}
	return "", "", false
}

// rangeNote is the annotation (setRange) that says which values a number
// or duration flag takes.
const rangeNote = "vigiles-range"

// setRange says which values the flag name takes (want, as in "want a
// whole number from 1 to 10"), for outOfRange.
func setRange(fs *pflag.FlagSet, name, want string) {
	if err := fs.SetAnnotation(name, rangeNote, []string{want}); err != nil {
		panic(err) // no such flag: a mistake in this file
	}
}

// maxDuration is the longest duration a flag holds.
var maxDuration = time.Duration(math.MaxInt64).Truncate(time.Second)

// durationSyntax is a duration as time.ParseDuration reads it.
var durationSyntax = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)
})

// bareNumber is a number without a unit, as durationSyntax reads one.
var bareNumber = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
})

// outOfRange rewrites pflag's error for a number or duration flag whose
// value is well formed but too large (or too small) for the flag's type:
// pflag says "must be an integer" or "must be a duration like "30s"" of
// 99999999999999999999 or 99999999h. It says so instead, with the range
// the flag takes (setRange), else its type's. Other errors are returned
// as they are.
func outOfRange(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil {
		return err
	}
	f, v := ive.GetFlag(), ive.GetValue()
	var want string
	switch t := f.Value.Type(); t {
	case "int", "int8", "int16", "int32", "int64":
		bits := map[string]int{"int": strconv.IntSize, "int8": 8, "int16": 16, "int32": 32, "int64": 64}[t]
		if _, perr := strconv.ParseInt(v, 0, bits); !errors.Is(perr, strconv.ErrRange) {
			return err
		}
		want = fmt.Sprintf("a whole number from %d to %d", int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1))
	case "uint", "uint8", "uint16", "uint32", "uint64":
		bits := map[string]int{"uint": strconv.IntSize, "uint8": 8, "uint16": 16, "uint32": 32, "uint64": 64}[t]
		if _, perr := strconv.ParseUint(v, 0, bits); !errors.Is(perr, strconv.ErrRange) {
			return err
		}
		want = fmt.Sprintf("a whole number from 0 to %d", uint64(math.MaxUint64)>>(64-bits))
	case "duration":
		if !durationSyntax().MatchString(v) {
			return err
		}
		want = fmt.Sprintf("a duration of at most %s", report.ShortDuration(maxDuration))
	default:
		return err
	}
	if n := f.Annotations[rangeNote]; len(n) > 0 {
		want = n[0]
	}
	return fmt.Errorf("--%s %s: out of range; want %s", f.Name, v, want)
}

// noUnit rewrites pflag's error for a duration flag given a number
// without a unit (--timeout 5), which time.ParseDuration refuses: it says
// the unit is missing and shows the number with one. Other errors are
// returned as they are.
func noUnit(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.GetFlag() == nil || ive.GetFlag().Value.Type() != "duration" {
		return err
	}
	// The number as durationSyntax reads it, so that it is one with s
	// or m after it.
	v := ive.GetValue()
	if !bareNumber().MatchString(v) {
		return err
	}
	return fmt.Errorf("--%s %s: a duration needs its unit; want %ss (seconds) or %sm (minutes)", ive.GetFlag().Name, v, v, v)
}

// boolValueApart is the error of a true|false flag given its value as
// the next argument (--quiet true, --json false), which pflag reads not
// as the flag's value but as the first argument of the command (what =
// joins it to is its value: --quiet=true), or nil where word, an
// argument the command did not take as it was meant, is no such value.
// what says what word was read as ("a PATH to audit").
func boolValueApart(fs *pflag.FlagSet, args []string, word, what string) error {
	if word != "true" && word != "false" {
		return nil
	}
	for i, a := range args[:max(len(args)-1, 0)] {
		if a == "--" {
			break
		}
		if args[i+1] != word || strings.Contains(a, "=") || !strings.HasPrefix(a, "-") {
			continue
		}
		f := fs.Lookup(strings.TrimPrefix(a, "--"))
		if !strings.HasPrefix(a, "--") {
			// One shorthand (-q): pflag's lookup of more panics.
			f = nil
			if sh := strings.TrimPrefix(a, "-"); len(sh) == 1 {
				f = fs.ShorthandLookup(sh)
			}
		}
		if f == nil || f.Value.Type() != "bool" {
			continue
		}
		return fmt.Errorf("%s: %s %s: %q was read as %s, not as the value of --%s, which takes it after =: --%s=%s (or --%s alone for true)",
			fs.Name(), a, word, word, what, f.Name, f.Name, word, f.Name)
	}
	return nil
}

// usageError prints the command's help on stderr and ends it with status 2
// and err.
func usageError(fs *pflag.FlagSet, help string, stderr io.Writer, err error) error {
	writeHelp(stderr, help, fs)
	return exitWith(2, err)
}

// problems are several independent mistakes, each reported on its own
// line (and, in the action, as its own annotation).
type problems []error

func (ps problems) Error() string {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return strings.Join(msgs, "\n")
}

func (ps problems) Unwrap() []error { return ps }

// orNil is ps as an error: nil when there are none.
func (ps problems) orNil() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// isUsageMistake says whether err is, by the runner's sentinels, the
// caller's mistake (exit status 2) rather than vigiles failing.
func isUsageMistake(err error) bool {
	return errors.Is(err, runner.ErrBadOption) || errors.Is(err, runner.ErrBadShard) || errors.Is(err, runner.ErrNoConfig)
}

// hinted is an error told with a different message; errors.Is and As see
// the original.
type hinted struct {
	msg string
	err error
}

func (h hinted) Error() string { return h.msg }
func (h hinted) Unwrap() error { return h.err }

// withConfigHint says, for a missing or unreadable policy file, which file
// was looked for and how to name another (flag: --config, or the action's
// input), and where the format is described. Other errors are returned as
// they are.
func withConfigHint(err error, flag, top string) error {
	if !errors.Is(err, runner.ErrNoConfig) {
		return err
	}
	what := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			what = fmt.Sprintf("there is no policy file at %q", pe.Path)
			if alt := otherYAMLName(pe.Path); alt != "" {
				// .vigiles.yaml written for .vigiles.yml, or the reverse.
				what += fmt.Sprintf(" (%q is beside it: name it with %s, or rename it %s)", filepath.Base(alt), flag, filepath.Base(pe.Path))
			} else if above := policyAbove(pe.Path, top); above != "" && filepath.Base(pe.Path) == runner.DefaultConfig {
				// vigiles test run from a directory of the repository,
				// not its root (or a working-directory input that names
				// one): the policy is the root's.
				if flag == "--config" {
					above = hereIfInside(above)
					what += fmt.Sprintf(" (there is one in %q, above it: give --dir %q for that repository)", above, above)
				} else {
					what += fmt.Sprintf(" (there is one in %q, above it: the working-directory input names the repository)", above)
				}
			} else if filepath.Base(pe.Path) == runner.DefaultConfig {
				// A repository whose policy file is in a directory of it
				// (examples/.vigiles.yml): the work tree is that.
				what += policiesBelowHint(filepath.Dir(pe.Path), flag, top)
			}
		} else if errors.Is(pe.Err, fs.ErrPermission) {
			// Another name, or a new file, is not the fix: the file is
			// there, for a user who may read it.
			return hinted{msg: fmt.Sprintf("the policy file %q may not be read by this user (uid %d); run vigiles as a user who may read it (its owner), or make it readable", pe.Path, os.Geteuid()), err: err}
		} else {
			what = fmt.Sprintf("the policy file %q cannot be read: %v", pe.Path, pe.Err)
		}
		if prefix, _, ok := strings.Cut(err.Error(), ": "); ok {
			what = prefix + ": " + what
		}
	}
	return hinted{msg: what + "; name another with " + flag + ", or write one (examples/README.md in the vigiles repository describes the format, key by key)", err: err}
}

// policiesBelowHint names the directories below dir that hold a policy
// file (policiesBelow), as the work tree to give: --dir (flag --config),
// or the working-directory input, relative to the workspace top; "" where
// none does.
func policiesBelowHint(dir, flag, top string) string {
	below := policiesBelow(dir)
	if len(below) == 0 {
		return ""
	}
	named := make([]string, len(below))
	for i, b := range below {
		named[i] = filepath.Join(dir, filepath.FromSlash(b))
		if rel, ok := relInside(top, named[i]); flag != "--config" && ok {
			named[i] = filepath.ToSlash(rel)
		} else if flag == "--config" {
			named[i] = hereIfInside(named[i])
		}
	}
	switch {
	case flag == "--config" && len(named) == 1:
		return fmt.Sprintf(" (there is one below it, in %q: give --dir %q)", named[0], named[0])
	case flag == "--config":
		return fmt.Sprintf(" (there are some below it, in %s: give --dir for the one to check)", strings.Join(named, ", "))
	case len(named) == 1:
		return fmt.Sprintf(" (there is one below it, in %s: set working-directory: %s)", named[0], named[0])
	}
	return fmt.Sprintf(" (there are some below it, in %s: set working-directory to the one to check, a step for each)", strings.Join(named, ", "))
}

// hereIfInside is p, a directory a message tells the caller to give as
// --dir, relative to the current directory where it lies inside it (the
// repository's examples, from the root of the checkout: "examples", as
// the caller would type it) or is a directory the current one lies in
// (".." from examples/plugins); p as it is otherwise.
func hereIfInside(p string) string {
	wd, err1 := os.Getwd()
	abs, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return p
	}
	if rel, ok := relInside(wd, abs); ok && rel != "." {
		return rel
	}
	if rel, ok := relInside(abs, wd); ok && rel != "." {
		return strings.TrimSuffix(strings.Repeat("../", len(strings.Split(rel, string(filepath.Separator)))), "/")
	}
	return p
}

// configFromHere is the mistake of a --config written from the current
// directory, as -o is, where it is read relative to --dir (vigiles test
// --dir examples --config examples/.vigiles.yml): it names the --config
// that reads the file meant; nil otherwise. The hint of a missing policy
// file would send the caller up from dir/config, to the --dir already
// given.
func configFromHere(dir, config string) error {
	if rel := fromHere(dir, config); rel != "" {
		return fmt.Errorf("there is no policy file at %q: --config is read relative to --dir %q, not to the current directory, and the file it names from here is --config %q", inDir(dir, config), dir, rel)
	}
	return nil
}

// configIsDir says, for a --config that names a directory under the work
// tree dir (the directory of the repository's policy, or --dir's value
// given again), that it is one and the file to name; "" otherwise. It was
// said as "reading sub: …/sub is not a regular file; name another".
func configIsDir(dir, config string) string {
	if config == "" {
		return ""
	}
	fi, err := os.Stat(inDir(dir, config))
	if err != nil || !fi.IsDir() {
		return ""
	}
	in := filepath.Join(config, runner.DefaultConfig)
	if fi, err := os.Stat(inDir(dir, in)); err != nil || !fi.Mode().IsRegular() {
		return "is a directory, not a policy file: name the policy file itself (a .vigiles.yml), relative to --dir"
	}
	if filepath.Clean(config) == "." {
		return fmt.Sprintf("is a directory, not a policy file: name the file, --config %q", in)
	}
	// A directory that holds a policy file is most likely the repository
	// it is the policy of (vigiles test --config examples), whose hooks
	// its checks name.
	return fmt.Sprintf("is a directory, not a policy file: to run the checks of the repository there, give --dir %q; to read its policy file against this work tree, --config %q", inDir(dir, config), in)
}

// fromHere is, for p, a path relative to the work tree dir that names
// nothing there but a regular file from the current directory (p written
// as -o is), that file's path relative to dir; "" otherwise.
func fromHere(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return ""
	}
	if _, err := os.Lstat(inDir(dir, p)); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	absDir, err1 := filepath.Abs(dir)
	absP, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(absDir, absP)
	if err != nil {
		return ""
	}
	return rel
}

// otherYAMLName is the path of a regular file beside path, a policy file
// that is not there, whose name is path's with the other YAML suffix
// (.yaml for .yml, .yml for .yaml), or "" for none.
func otherYAMLName(path string) string {
	var alt string
	switch {
	case strings.HasSuffix(path, ".yml"):
		alt = strings.TrimSuffix(path, ".yml") + ".yaml"
	case strings.HasSuffix(path, ".yaml"):
		alt = strings.TrimSuffix(path, ".yaml") + ".yml"
	default:
		return ""
	}
	if fi, err := os.Stat(alt); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return alt
}

// unreadPolicy is the mistake of an audit given no policy file (config
// "", the default) where the default is not there but a file of the other
// YAML name is (.vigiles.yaml): the audit, which needs none, would run
// without it, its defaults and trust unread, and pass. flag names how to
// name another (--config, or the action's input). nil otherwise.
func unreadPolicy(dir, config, flag string) error {
	if config != "" {
		return nil
	}
	p := filepath.Join(dir, runner.DefaultConfig)
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	alt := otherYAMLName(p)
	if alt == "" {
		return nil
	}
	return fmt.Errorf("there is no policy file at %q, so the audit would read none, though %q is beside it: name it with %s, or rename it %s",
		p, filepath.Base(alt), flag, runner.DefaultConfig)
}

// policyAbove is the nearest directory above the one of path, a policy
// file that is not there, that holds a regular file of path's name, up
// to top (the action's workspace, which its inputs cannot leave; "" for
// the root), or "" for none.
func policyAbove(path, top string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if top != "" {
		if top, err = filepath.Abs(top); err != nil {
			return ""
		}
	}
	name := filepath.Base(abs)
	for d := filepath.Dir(filepath.Dir(abs)); ; d = filepath.Dir(d) {
		if _, in := relInside(top, d); top != "" && !in {
			return ""
		}
		if fi, err := os.Stat(filepath.Join(d, name)); err == nil && fi.Mode().IsRegular() {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// policiesBelow returns the directories below dir, relative to it, at
// most policiesBelowDepth deep and policiesBelowMax of them, that hold a
// regular file named .vigiles.yml; hidden directories, node_modules and
// symbolic links are not entered, and the walk stops after
// policiesBelowEntries entries, so a large checkout costs little.
func policiesBelow(dir string) []string {
	var found []string
	seen := 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > policiesBelowEntries || len(found) == policiesBelowMax {
			return filepath.SkipAll
		}
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			return nil
		}
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" ||
				strings.Count(filepath.ToSlash(rel), "/") >= policiesBelowDepth) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == runner.DefaultConfig && d.Type().IsRegular() && filepath.Dir(rel) != "." {
			found = append(found, filepath.ToSlash(filepath.Dir(rel)))
		}
		return nil
	})
	return found
}

const (
	policiesBelowDepth   = 3
	policiesBelowMax     = 3
	policiesBelowEntries = 20000
)

// notADir says why p cannot be a work tree when that is the caller's
// mistake ("does not exist", "is not a directory"), or "" when it is a
// directory or cannot be looked at (the engine then says why, as a
// refusal).
func notADir(p string) string {
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "does not exist"
	case err == nil && !fi.IsDir():
		return "is not a directory"
	}
	return ""
}

// notADirNear is notADir with, for a p that is not there, the directory
// beside it that p is a slip of, as it was written (--dir, --workdir).
func notADirNear(p string) string {
	why := notADir(p)
	if why == "does not exist" {
		if near := nearDir(p); near != "" {
			why += fmt.Sprintf(" (did you mean %q?)", near)
		}
	}
	return why
}

// nearDir is the directory beside p, which is not there, whose name is a
// slip away from p's (exmaples for examples, plugins/bash-gard for
// plugins/bash-guard), written as p is; "" where none is, or p's own
// directory cannot be listed. Only the first nearDirEntries entries are
// looked at.
func nearDir(p string) string {
	base := filepath.Base(p)
	if p == "" || base == "." || base == ".." || base == "/" {
		return ""
	}
	parent := filepath.Dir(p)
	f, err := os.Open(parent)
	if err != nil {
		return ""
	}
	entries, _ := f.ReadDir(nearDirEntries)
	f.Close()
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		} else if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(parent, e.Name())); err == nil && fi.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	if near := closest(base, names); near != "" && near != base {
		return filepath.Join(parent, near)
	}
	return ""
}

const nearDirEntries = 4096

// kernelTree says that p, a work tree (--dir, --workdir), is a directory
// of the kernel's own file systems (/proc, /sys, a cgroup hierarchy, the
// terminals of /dev/pts), which hold the host's state and no project, or
// "" when it is not (or cannot be looked at: notADir and unreadableTree
// say why). It is the caller's mistake, said before anything runs: the
// sandbox would refuse it, as it cannot be overlaid, copied or handed over
// id-mapped, with a reason about the layer that failed (the tree's file
// system and id-mapped mounts, bubblewrap's mkdir), not about the path.
// flag names how the tree is named (--workdir, --dir). A tree that holds
// such a file system mounted inside it (a chroot's proc) is the sandbox's
// to refuse, naming the mounts.
func kernelTree(p, flag string) string {
	var st unix.Statfs_t
	if unix.Statfs(p, &st) != nil {
		return ""
	}
	k := kernelFSType(int64(st.Type))
	switch int64(st.Type) {
	case unix.DEVPTS_SUPER_MAGIC:
		k = "devpts"
	case unix.NSFS_MAGIC, unix.BINFMTFS_MAGIC, unix.PSTOREFS_MAGIC, unix.EFIVARFS_MAGIC, unix.SELINUX_MAGIC,
		mqueueMagic, configfsMagic, fusectlMagic:
		k = "pseudo file system"
	}
	if k == "" {
		return ""
	}
	return fmt.Sprintf("is a directory of the kernel's %s, which holds the host's state, not a project: name the project's directory with %s", k, flag)
}

// The magic numbers of file systems x/sys/unix does not name
// (linux/magic.h).
const (
	mqueueMagic   = 0x19800202
	configfsMagic = 0x62656570
	fusectlMagic  = 0x65735543
)

// unreadableTree says why p, a work tree (--dir, --workdir), cannot be
// read by the user vigiles runs as, or "" when it can: a directory on its
// path may not be searched, or p itself may not be listed or searched.
// Found so before anything runs, not by what fails first in its place:
// a policy file said to be unreadable where there is none, a work tree
// that could not be looked at (exit 125), an overlay refused.
func unreadableTree(p string) string {
	fix := "run vigiles as a user who may read it (its owner), or make it readable"
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("cannot be reached by this user (uid %d): it, or a directory on its path, may not be searched; %s", os.Geteuid(), fix)
	case err != nil || !fi.IsDir():
		return ""
	case unix.Access(p, unix.R_OK|unix.X_OK) != nil:
		return fmt.Sprintf("may not be read by this user (uid %d); %s", os.Geteuid(), fix)
	}
	return ""
}

// cannotCreate is cannotWrite for a file the CLI writes by a rename
// where the caller named it (--baseline): a directory above it that is
// not there is a mistake too (a mistyped path), said at once; nothing is
// made for it.
func cannotCreate(p string) string {
	if why := cannotWrite(p); why != "" {
		return why
	}
	return noDir(p)
}

// cannotMakeBaseline says why --update-baseline could not write the
// baseline p of the work tree ("" when nothing can be told before the
// hooks run): runner.WriteBaseline makes the directories on the way that
// are not there (.vigiles on the first one), then a new file beside p,
// renamed over it, so its directory, or the nearest above it that is
// there, must be a directory that may be written, whoever may write p
// itself. Found only once every hook had run, it cost the whole audit.
// The reason ends with the fix.
func cannotMakeBaseline(p string) string {
	const (
		access = "; give this user write access there, or name another file with --baseline"
		other  = "; name another file with --baseline"
	)
	if _, err := os.Lstat(p); err == nil {
		if d := filepath.Dir(p); isDir(d) && unix.Access(d, unix.W_OK|unix.X_OK) != nil {
			return fmt.Sprintf("cannot be replaced: its directory %q may not be written (the new baseline is made there, then renamed over the old one)", d) + access
		}
	}
	switch why, denied := cannotMakeIn(filepath.Dir(p)); {
	case why == "":
		return ""
	case denied:
		return why + access
	default: // not a directory, the kernel's files
		return why + other
	}
}

// cannotCreateReport is cannotCreate for a report's -o, which is written
// in place where the rename cannot be made (replaceFile): an existing
// file that may be written is never refused for its directory.
func cannotCreateReport(p string) string {
	if why := cannotWriteInPlace(p); why != "" {
		return why
	}
	return noDir(p)
}

// linkInTree says that p, a report's path, is, or passes through, a
// symbolic link inside the work tree dir ("" when not): a tree under
// review chooses its links, and a report written through one of them
// (-o report.json in a checkout whose report.json leads to a file of the
// host's) would replace whatever the link names, with the caller's
// rights. p is walked as the kernel walks it, a component at a time from
// the root, ".." included, its links followed by hand, so that no
// spelling of it (sub/../x through a link sub, the tree by a link to it)
// passes a link that lies in the tree's real directory. The tree's own
// directory may be a link.
func linkInTree(p, dir string) string {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return ""
	}
	if realDir, err = filepath.Abs(realDir); err != nil {
		return ""
	}
	ap := p
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return ""
		}
		ap = wd + string(filepath.Separator) + p
	}
	sep := string(filepath.Separator)
	parts := strings.Split(ap, sep)
	cur, hops := sep, 0
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, parts[i])
		fi, err := os.Lstat(next)
		if err != nil {
			return "" // the rest is made, not followed
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if strings.HasPrefix(next, realDir+sep) {
			to, _ := os.Readlink(next)
			return fmt.Sprintf("is not written: %s is a symbolic link in the work tree (to %q), which the tree under review chooses, so the report would go wherever it leads; write the report outside the tree, or remove the link", strconv.Quote(next), to)
		}
		to, err := os.Readlink(next)
		if hops++; err != nil || hops > 40 {
			return ""
		}
		if !filepath.IsAbs(to) {
			to = cur + sep + to
		}
		parts = append(strings.Split(to, sep), parts[i+1:]...)
		cur, i = sep, -1
	}
	return ""
}

// noDir says that p, which is not there, cannot be made because its
// directory is not there either; "" when p or its directory is there.
func noDir(p string) string {
	if _, err := os.Stat(p); err == nil {
		return ""
	}
	if d := filepath.Dir(p); !isDir(d) {
		return fmt.Sprintf("cannot be made: its directory %q does not exist (vigiles makes none; create it first)", d)
	}
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// cannotWrite says why a file that is replaced through a new one made
// beside it (the action's SARIF, a baseline: safewrite.Replace) could not
// be written to p, as far as can be told before anything runs ("" when
// nothing): what cannotWriteInPlace says, or that p, a regular file, is in
// a directory that may not be written. A mistake in the path is then bad
// usage, said at once, not after every hook has run.
func cannotWrite(p string) string {
	if why := cannotWriteInPlace(p); why != "" {
		return why
	}
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			if d := filepath.Dir(real); unix.Access(d, unix.W_OK|unix.X_OK) != nil {
				return fmt.Sprintf("cannot be replaced: its directory %q may not be written (the new file is made there, then renamed over the old one)", d)
			}
		}
	}
	return ""
}

// cannotWriteInPlace says why a report could not be written to the file
// p (-o: replaceFile, which writes in place where it cannot rename), as
// far as can be told before anything runs ("" when nothing): p is a
// directory or may not be written, or the nearest existing directory
// above it is not a directory or may not be written. A mistake in -o is
// then bad usage, said at once, not after every hook has run.
func cannotWriteInPlace(p string) string {
	if fi, err := os.Stat(p); err == nil {
		if fi.IsDir() {
			return "is a directory"
		}
		if k := kernelFS(p); k != "" {
			return fmt.Sprintf("is a file of the kernel's %s, not a report's place", k)
		}
		if unix.Access(p, unix.W_OK) != nil {
			return "may not be written"
		}
		return ""
	}
	why, _ := cannotMakeIn(filepath.Dir(p))
	return why
}

// cannotMakeIn says why no file could be made in the directory d, or in
// the directories made down to it where it is not there, as far as can be
// told before anything runs ("" when nothing): the nearest of d and the
// directories above it that is there is not a directory, or may not be
// written (denied: what this user may be given).
func cannotMakeIn(d string) (why string, denied bool) {
	for ; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		k := ""
		if err == nil && fi.IsDir() {
			k = kernelFS(d)
		}
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Sprintf("cannot be made: %q is not a directory", d), false
		case k != "":
			// access(2) grants root every write its modes would refuse,
			// but no file is made in these, root's or not.
			return fmt.Sprintf("cannot be made: %q is in the kernel's %s, where no file is made", d, k), false
		case err == nil && unix.Access(d, unix.W_OK|unix.X_OK) != nil:
			return fmt.Sprintf("cannot be made: %q may not be written", d), true
		case err == nil:
			return "", false
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("cannot be made: %v", err), false
		case d == filepath.Dir(d):
			return "", false
		}
	}
}

// kernelFS names the kernel's own file system p is on (proc, sysfs, a
// cgroup hierarchy, …), where a report can be neither made nor written
// whatever access(2) says; "" for any other.
func kernelFS(p string) string {
	var st unix.Statfs_t
	if unix.Statfs(p, &st) != nil {
		return ""
	}
	return kernelFSType(int64(st.Type))
}

// kernelFSType is kernelFS's answer for a file system of type typ
// (statfs's f_type).
func kernelFSType(typ int64) string {
	switch typ {
	case unix.PROC_SUPER_MAGIC:
		return "proc"
	case unix.SYSFS_MAGIC:
		return "sysfs"
	case unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC:
		return "cgroup file system"
	case unix.DEBUGFS_MAGIC, unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC, unix.BPF_FS_MAGIC:
		return "pseudo file system"
	}
	return ""
}
