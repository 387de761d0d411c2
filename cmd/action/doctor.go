package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/sandbox"
)

func init() {
	subcommands["doctor"] = subcommand{summary: "probe this host's confinement capabilities and say what to fix", run: cmdDoctor}
}

const doctorHelp = `Usage: vigiles doctor [--json]

Probes, by running the real thing, every capability the engine uses:
bubblewrap namespaces (as you, and as an unprivileged user when run as
root), the in-sandbox binaries it starts (vigiles-sandbox and
vigiles-reaper beside vigiles), the pids and memory cgroups that bound a
run, an id-mapped work tree for a root caller, overlayfs in a user
namespace, nftables in a network namespace, slirp4netns, pasta, seccomp,
Landlock, and the sysctls that gate them. It prints on stdout the tier
this host gets (confined, or refused), a line a probe (the tier rests on
those marked *), and, for whatever is missing, what to do about it.

Examples:
  vigiles doctor                 # can this host confine? and if not, the fix
  sudo vigiles doctor            # as root: probes as an unprivileged user too
  vigiles doctor --json | jq .   # the same, for a script (schema
                                 # vigiles.doctor/v1: docs/security.md)

Exit status: 0 when this host can confine; 1 when it cannot; 2 bad
usage; 125 when the report cannot be written, or when a signal (Ctrl-C)
interrupted the probes: then no report is printed, as what was cut
short would read as missing.

Flags:
`

func cmdDoctor(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("doctor", pflag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	if done, err := parseFlags(fs, doctorHelp, args, stdout, stderr); done {
		return err
	}
	if fs.NArg() > 0 {
		return exitWith(2, fmt.Errorf("doctor: unexpected argument %q (doctor takes none: it probes this host; --json prints its report as JSON)", fs.Arg(0)))
	}
	r := sandbox.Doctor(ctx)
	if ctx.Err() != nil {
		// The probes the signal cut short read as failures ("no answer
		// within 15s", "signal: killed"), and the tier as refused, with
		// fixes to match (sysctls to lower): no verdict rests on them.
		return exitWith(125, fmt.Errorf("doctor: interrupted (%v) before its probes finished, so it says nothing of this host; run vigiles doctor again", context.Cause(ctx)))
	}
	if err := writeDoctor(stdout, getenv, r, *jsonOut); err != nil {
		return exitWith(125, fmt.Errorf("doctor: writing the report: %w", err))
	}
	if r.Tier != sandbox.TierConfined {
		return exitWith(1, nil)
	}
	return nil
}

// writeDoctor writes r to w, as JSON or as text, made inert as every
// other report vigiles prints: a check's detail quotes the environment
// (the tool-caches check names RUNNER_TOOL_CACHE's and
// AGENT_TOOLSDIRECTORY's values), and doctor may run as a step of a
// workflow, where "##[error]" anywhere in a line is a workflow command,
// a line starting "::" one too, and a problem matcher of an earlier step
// (setup-go's: ".go: " anywhere after the line's start) makes an
// annotation of a line. The text keeps its words but for each "##["
// (made "#·#[", annotate.InertText), each format character (a bidi
// override, shown as U+FFFD as every GitHub surface shows it), which
// doctor's own cleaning, made for control characters, left as they were,
// and each ':' (annotate.NoMatch's lookalike, a ':' again on a terminal
// that is no step log: ownText); the JSON keeps its data whole
// (annotate.InertJSON, NoMatchJSON: "##[" as "#\u0023[", a ':' in a
// string, a format or C1 control character as its \u escape).
func writeDoctor(w io.Writer, getenv func(string) string, r sandbox.DoctorReport, asJSON bool) error {
	var b bytes.Buffer
	if asJSON {
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
		_, err := w.Write(annotate.NoMatchJSON(annotate.InertJSON(b.Bytes())))
		return err
	}
	if err := r.WriteText(&b); err != nil {
		return err
	}
	text := strings.Map(func(c rune) rune {
		if unicode.Is(unicode.Cf, c) {
			return '\uFFFD'
		}
		return c
	}, strings.ToValidUTF8(b.String(), "\uFFFD"))
	// A U+A789 of the text's own is its escape: never a ':' where
	// ownText makes the Colons ':' again.
	text = annotate.NoMatch(strings.ReplaceAll(text, annotate.Colon, `\ua789`))
	_, err := io.WriteString(ownText(w, getenv), annotate.InertText(text))
	return err
}
