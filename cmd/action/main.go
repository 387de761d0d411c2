package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/sandbox"
)

// version is stamped at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	wireNetwork()       // before MaybeInit: the init sets up the egress wall
	sandbox.MaybeInit() // the in-sandbox roles of this same binary
	keepOnBrokenPipe()
	ctx, stop := signalContext(interruptSignals()...)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	networkStopped()
	os.Exit(exitCode(err, os.Stderr, os.Getenv("GITHUB_ACTIONS") == "true"))
}

// interruptSignals are the signals that interrupt the work, which then
// winds down (runs stopped, the partial report written): SIGTERM, SIGINT
// and SIGHUP (a terminal or an ssh session closed), the last two unless
// they are ignored, which Notify would undo: SIGHUP under nohup, SIGINT
// in a job a non-interactive shell started with "&" (POSIX has the shell
// ignore it there, so that a Ctrl-C meant for the script's foreground
// command spares its background jobs; Notify made it end them all).
func interruptSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGTERM}
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP} {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// keepOnBrokenPipe makes a write to a closed pipe on stdout or stderr
// (vigiles audit | head -1) an EPIPE error, not the SIGPIPE that Go's
// runtime otherwise lets kill the process there, with no report written,
// the runs under way unreaped and their cgroups left behind. Notified, not
// ignored: an ignored signal stays ignored in what vigiles starts, and a
// hook must get the SIGPIPE it would get under Claude Code.
func keepOnBrokenPipe() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// signalContext is a context that the first of sigs to arrive cancels,
// with a signalCause naming it (context.Cause), so that what the work
// says of its interruption names the signal: "interrupted (SIGTERM)",
// not "context canceled". The first signal cancels the work, which then
// winds down; a second one ends the process at once, as it would
// without us. stop releases the signals.
func signalContext(sigs ...os.Signal) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch) // the next one has its default effect
			cancel(signalCause{s})
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			close(done)
			cancel(nil)
		})
	}
}

// signalCause is the cause of a context a signal cancelled: its text is
// the signal's name (SIGINT, SIGTERM), and errors.Is finds
// context.Canceled in it, as in the context's own error.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string {
	if s, ok := c.sig.(syscall.Signal); ok {
		if name := unix.SignalName(s); name != "" {
			return name
		}
	}
	return c.sig.String()
}

func (c signalCause) Is(target error) bool { return target == context.Canceled }

// subcommand is one verb of the vigiles binary.
type subcommand struct {
	summary string
	run     func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error
}

// subcommands is filled by each verb's file from an init func.
var subcommands = map[string]subcommand{}

// exitError carries an exit status through run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// exitWith makes run end with code; err (may be nil) is printed.
func exitWith(code int, err error) error { return &exitError{code: code, err: err} }

// exitCode prints err (if any) and maps it to the process's exit status:
// 0 success, 1 findings, 2 usage, 125 vigiles refused or failed, or the
// confined command's own status. stepLog says stderr is a GitHub Actions
// step's log (see printError).
func exitCode(err error, stderr io.Writer, stepLog bool) int {
	if err == nil {
		return 0
	}
	// Messages can quote names from the repository or the run: they must
	// not act as workflow commands in a GitHub step log.
	code := 125
	var ee *exitError
	if errors.As(err, &ee) {
		code, err = ee.code, ee.err
	}
	if err != nil {
		printError(stderr, err, stepLog)
	}
	return code
}

// printError prints err on stderr after "vigiles: ", inert; several
// problems get a line each.
//
// In a step log (stepLog) every line of it starts "vigiles: " and every
// ':' of it, that one included, is an annotate.Colon: an error quotes
// names a plugin or a repository chose (a run id, a path, a key) among
// vigiles' own words, there is no telling them apart here, and a problem
// matcher of an earlier step would make an annotation of
// "./x.go:1:1: approved" in one of them, of "line 1, col 1, Error - x (y)"
// after any ':', or of a line that starts with one (setup-python's).
// Elsewhere the ':' stay, so that a terminal still links
// ".vigiles.yml:12:3", and every control character but a line feed or a
// tab is shown, not sent (shownControls): a name with ESC ] 52 in it must
// not write the caller's clipboard, nor a "\r" write over "vigiles: ".
//
// Each line of one error after its first is indented by two spaces, in
// both: a line feed in a quoted name ("x\nvigiles: all hooks passed")
// then starts a line that reads as the error's continuation, not as a
// line of vigiles' own.
func printError(stderr io.Writer, err error, stepLog bool) {
	if ps, ok := err.(problems); ok {
		for _, p := range ps {
			printError(stderr, p, stepLog)
		}
		return
	}
	if !stepLog {
		msg := strings.ReplaceAll(strings.TrimSuffix(shownControls(err.Error()), "\n"), "\n", "\n  ")
		fmt.Fprint(stderr, annotate.InertText(fmt.Sprintf("vigiles: %s\n", msg)))
		return
	}
	var b strings.Builder
	// Lines at a line feed alone: a "\r" in a name quoted would start a
	// line of the name's own after "vigiles: ", which could read as
	// vigiles' (OneLine makes it a space).
	for i, l := range strings.FieldsFunc(err.Error(), func(r rune) bool { return r == '\n' }) {
		if i > 0 {
			l = "  " + l
		}
		b.WriteString(annotate.NoMatch("vigiles: "+annotate.InertLine(annotate.OneLine(l))) + "\n")
	}
	io.WriteString(stderr, b.String())
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		if getenv("GITHUB_ACTIONS") == "true" {
			if sc, ok := subcommands["action"]; ok {
				return commandNamed("action", sc.run(ctx, args, getenv, stdin, stdout, stderr))
			}
		}
		usage(stderr)
		return exitWith(2, nil)
	}
	switch args[0] {
	case "help":
		// "vigiles help CMD" is "vigiles CMD --help". It takes one
		// command, as version takes none: a word more is a mistake.
		if len(args) > 1 {
			sc, ok := subcommands[args[1]]
			switch args[1] {
			case "version", "help", "-h", "--help":
				ok = true
			}
			if !ok {
				return exitWith(2, fmt.Errorf("help: %s", unknownCommand(args[1])))
			}
			if len(args) > 2 {
				return exitWith(2, fmt.Errorf("help: unexpected argument %q (help takes one command: vigiles help %s)", args[2], args[1]))
			}
			switch args[1] {
			case "version":
				_, err := fmt.Fprintln(stdout, versionHelp)
				return helpWritten("help", err)
			case "help", "-h", "--help":
				return helpWritten("help", usage(stdout))
			}
			return sc.run(ctx, []string{"--help"}, getenv, stdin, stdout, stderr)
		}
		return helpWritten("help", usage(stdout))
	case "-h", "--help":
		if len(args) > 1 {
			// vigiles --help run: the help of run, as vigiles help run.
			return run(ctx, append([]string{"help"}, args[1:]...), getenv, stdin, stdout, stderr)
		}
		return helpWritten("help", usage(stdout))
	case "--version", "version":
		if len(args) > 1 {
			if args[1] == "-h" || args[1] == "--help" {
				_, err := fmt.Fprintln(stdout, versionHelp)
				return helpWritten("version", err)
			}
			return exitWith(2, fmt.Errorf("version: unexpected argument %q (version takes none: vigiles version)", args[1]))
		}
		if _, err := fmt.Fprintf(stdout, "vigiles %s\n", version); err != nil {
			return exitWith(125, fmt.Errorf("version: writing it: %w", err))
		}
		return nil
	}
	sc, ok := subcommands[args[0]]
	if !ok {
		switch args[0] {
		case "-v", "-V", "-version":
			return exitWith(2, fmt.Errorf("unknown command %q: vigiles version (or --version) prints the version", args[0]))
		}
		if strings.HasPrefix(args[0], "-") {
			// vigiles --dir . test: the flags are the command's.
			return exitWith(2, fmt.Errorf("unknown command %q: the command comes first, then its flags (vigiles test --dir .); vigiles --help lists the commands", args[0]))
		}
		return exitWith(2, errors.New(unknownCommand(args[0])))
	}
	return commandNamed(args[0], sc.run(ctx, args[1:], getenv, stdin, stdout, stderr))
}

// commandNamed puts "name: " before each message of err, as namedFor
// does, so that every error a command prints reads "vigiles: <command>:
// ...", whichever part of the command, or the runner below it, said it.
// The exit status, and what errors.Is finds, stay err's.
func commandNamed(name string, err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *exitError:
		if e.err == nil {
			return e
		}
		return &exitError{code: e.code, err: commandNamed(name, e.err)}
	case problems:
		named := make(problems, len(e))
		for i, p := range e {
			named[i] = commandNamed(name, p)
		}
		return named
	}
	return namedFor(name, err)
}

// unknownCommand says that name is no command, with the closest one
// when a slip of the keys could have made name of it (vigiles tset: did
// you mean test?), and where the list is: one line, not the whole help.
func unknownCommand(name string) string {
	msg := fmt.Sprintf("unknown command %q", name)
	if c := closestCommand(name); c != "" {
		msg += fmt.Sprintf("; did you mean %s?", c)
	}
	return msg + " (vigiles --help lists the commands)"
}

// closestCommand is the command (help and version included) nearest to
// name: see closest.
func closestCommand(name string) string {
	names := []string{"help", "version"}
	for n := range subcommands {
		names = append(names, n)
	}
	return closest(name, names)
}

// closest is the one of names nearest to name by edit distance, swapped
// neighbours counting one edit, if it is at most 1 for a name of up to 4
// characters and 2 for a longer one; "" if none is, or name is empty.
// Ties go to the first in sorted order.
func closest(name string, names []string) string {
	if name == "" {
		return ""
	}
	names = slices.Sorted(slices.Values(names))
	limit := 1
	if len([]rune(name)) > 4 {
		limit = 2
	}
	best, bestD := "", limit+1
	for _, n := range names {
		if d := textdist.Distance(strings.ToLower(name), n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

const versionHelp = "Usage: vigiles version (or vigiles --version)\n\nPrints the version of this vigiles binary."

// startHere is where the top-level help starts a newcomer: the steps of
// README.md's "On your own repository", the same commands in the same
// order, so that one who never opens the README still learns the way in.
const startHere = `Start in the repository whose hooks you want to know:
  vigiles doctor                   # can this machine confine hooks? if not, what to fix
  vigiles audit                    # run every hook Claude Code would run here, confined
  vigiles audit --update-baseline  # accept what it saw; review and commit .vigiles/baseline.json
Then write down what each hook must do in .vigiles.yml and run vigiles test.
`

// usage writes the top-level help to w, in one write, whose error it
// returns.
func usage(out io.Writer) error {
	var b strings.Builder
	w := &b
	fmt.Fprintf(w, `vigiles runs the hooks of AI-agent plugins confined, and says with evidence what they did.

Usage: vigiles <command> [flags]

Commands:
`)
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintf(w, "  %-8s %s\n", "help", "explain a command: vigiles help <command>")
	fmt.Fprintf(w, "  %-8s %s\n", "version", "print the version (also --version)")
	fmt.Fprintf(w, `
%s
Run "vigiles help <command>" (or "vigiles <command> --help") for a command's flags and examples.
Exit status: 0 ok; 1 an expectation or finding failed (doctor: this host
cannot confine); 2 bad usage; 125 vigiles refused or failed; otherwise
(vigiles run) the command's own.
`, startHere)
	writeMore(w, "README.md and docs/")
	_, err := io.WriteString(out, b.String())
	return err
}
