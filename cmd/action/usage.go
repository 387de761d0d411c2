package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// writeHelp prints a command's help text and its flags to w.
func writeHelp(w io.Writer, help string, fs *pflag.FlagSet) {
	fmt.Fprint(w, help)
	fmt.Fprint(w, fs.FlagUsages())
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
		return true, exitWith(2, err)
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
