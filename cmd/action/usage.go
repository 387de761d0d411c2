package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/runner"
)

// helpDocs names, for each command, the documents that describe it in
// depth: its help ends by pointing at them.
var helpDocs = map[string]string{
	"run":    "docs/result-format.md (the --json document) and docs/egress.md (the network modes)",
	"test":   "examples/README.md (.vigiles.yml, key by key) and docs/report-format.md (the report, every rule)",
	"audit":  "docs/report-format.md (the report, every rule, the baseline) and examples/README.md (.vigiles.yml)",
	"merge":  "docs/report-format.md (the report; shards and merge)",
	"doctor": "docs/security.md (what each layer stops) and docs/container.md (what a container needs)",
	"action": "docs/github-action.md (every input and output, ready-to-copy workflows)",
}

// writeHelp prints a command's help text, its flags and where its
// documents are to w.
func writeHelp(w io.Writer, help string, fs *pflag.FlagSet) {
	fmt.Fprint(w, help)
	fmt.Fprint(w, fs.FlagUsages())
	if d, ok := helpDocs[fs.Name()]; ok {
		writeMore(w, d)
	}
}

// writeMore ends a help text by naming the documents docs.
func writeMore(w io.Writer, docs string) {
	fmt.Fprintf(w, "\nMore: %s, in the vigiles repository (https://github.com/vigiles/action).\n", docs)
}

// parseFlags parses a command's flags. Help that was asked for (-h,
// --help) goes to stdout and ends the command with status 0; a flag that
// does not parse is a usage error (status 2), its message on stderr.
// Help printed because of a usage error goes to stderr: see usageError.
func parseFlags(fs *pflag.FlagSet, help string, args []string, stdout, stderr io.Writer) (done bool, err error) {
	fs.SetOutput(stderr)
	// pflag calls Usage only when help is asked for.
	fs.Usage = func() { writeHelp(stdout, help, fs) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		// pflag's message names the flag, not the command or the fix.
		return true, exitWith(2, fmt.Errorf("%s: %w; see vigiles %s --help", fs.Name(), err, fs.Name()))
	}
	return false, nil
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
func withConfigHint(err error, flag string) error {
	if !errors.Is(err, runner.ErrNoConfig) {
		return err
	}
	what := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			what = fmt.Sprintf("there is no policy file at %s", pe.Path)
		} else {
			what = fmt.Sprintf("the policy file %s cannot be read: %v", pe.Path, pe.Err)
		}
		if prefix, _, ok := strings.Cut(err.Error(), ": "); ok {
			what = prefix + ": " + what
		}
	}
	return hinted{msg: what + "; name another with " + flag + ", or write one (examples/README.md in the vigiles repository describes the format, key by key)", err: err}
}

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

// cannotWrite says why a report could not be written to the file p, as
// far as can be told before anything runs ("" when nothing): p is a
// directory or may not be written, or the nearest existing directory
// above it is not a directory or may not be written. A mistake in -o
// is then bad usage, said at once, not after every hook has run.
func cannotWrite(p string) string {
	if fi, err := os.Stat(p); err == nil {
		switch {
		case fi.IsDir():
			return "is a directory"
		case unix.Access(p, unix.W_OK) != nil:
			return "may not be written"
		}
		return ""
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Sprintf("cannot be made: %s is not a directory", d)
		case err == nil && unix.Access(d, unix.W_OK|unix.X_OK) != nil:
			return fmt.Sprintf("cannot be made: %s may not be written", d)
		case err == nil:
			return ""
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Sprintf("cannot be made: %v", err)
		case d == filepath.Dir(d):
			return ""
		}
	}
}
