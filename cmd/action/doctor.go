package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/pflag"

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
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return exitWith(125, fmt.Errorf("doctor: writing the report: %w", err))
		}
	} else if err := r.WriteText(stdout); err != nil {
		return exitWith(125, fmt.Errorf("doctor: writing the report: %w", err))
	}
	if r.Tier != sandbox.TierConfined {
		return exitWith(1, nil)
	}
	return nil
}
