package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestAnotherCommandsFlagSaysWhose: an audit's --baseline or
// --update-baseline given to vigiles test, and the policy file's --config
// given to vigiles run, are bad usage whose one line says whose flag it
// is, where it said only that the flag is unknown.
func TestAnotherCommandsFlagSaysWhose(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--update-baseline"}, "vigiles: test: unknown flag: --update-baseline (that is vigiles audit's; vigiles test runs the policy file's checks and compares with no baseline); see vigiles test --help\n"},
		{[]string{"test", "--baseline", ".vigiles/baseline.json"}, "vigiles: test: unknown flag: --baseline (that is vigiles audit's; vigiles test runs the policy file's checks and compares with no baseline); see vigiles test --help\n"},
		{[]string{"run", "--config", ".vigiles.yml", "--", "true"}, "vigiles: run: unknown flag: --config (vigiles run reads no policy file, as vigiles test and audit do: each of its options is a flag); see vigiles run --help\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}
}

// TestDoctorsOwnJSONInFlagHints: vigiles doctor, which has --json as
// vigiles run has, is told of its own report, vigiles.doctor/v1, where a
// report flag of test and audit is given to it; it was told of run's
// result, and vigiles.run/v1.
func TestDoctorsOwnJSONInFlagHints(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"doctor", "--format", "json"}, "vigiles: doctor: unknown flag: --format (did you mean --json? it prints the vigiles.doctor/v1 report on stdout); see vigiles doctor --help\n"},
		{[]string{"doctor", "-o", "doctor.json"}, "vigiles: doctor: unknown shorthand flag: 'o' in -o (vigiles doctor writes no file: --json prints its report on stdout, which > writes to one); see vigiles doctor --help\n"},
		{[]string{"doctor", "--output=doctor.json"}, "vigiles: doctor: unknown flag: --output (vigiles doctor writes no file: --json prints its report on stdout, which > writes to one); see vigiles doctor --help\n"},
		{[]string{"doctor", "--config", ".vigiles.yml"}, "vigiles: doctor: unknown flag: --config (that is a flag of vigiles test and audit, not of vigiles doctor); see vigiles doctor --help\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}
}

// TestEveryOtherCommandsFlagSaysWhose: each flag of one command given to
// another that lacks it, read from the FlagSets the commands make, is bad
// usage whose line says more than that it is unknown (whose it is, where
// no hint of its own says better), where vigiles run --jobs 2, doctor
// --sandbox strict or merge --dir said only "unknown flag".
func TestEveryOtherCommandsFlagSaysWhose(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--jobs", "2", "--", "true"}, "vigiles: run: unknown flag: --jobs (that is a flag of vigiles test and audit, not of vigiles run); see vigiles run --help\n"},
		{[]string{"doctor", "--sandbox", "strict"}, "vigiles: doctor: unknown flag: --sandbox (that is a flag of vigiles run, test and audit, not of vigiles doctor); see vigiles doctor --help\n"},
		{[]string{"test", "--writes", "copy"}, "vigiles: test: unknown flag: --writes (that is a flag of vigiles run, not of vigiles test); see vigiles test --help\n"},
		{[]string{"merge", "--update-baseline"}, "vigiles: merge: unknown flag: --update-baseline (that is a flag of vigiles audit, not of vigiles merge); see vigiles merge --help\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}

	commands := []string{"run", "test", "audit", "merge", "doctor"}
	flags := map[string]*pflag.FlagSet{}
	for _, name := range commands {
		if flags[name] = commandFlags(name); flags[name] == nil || !flags[name].HasFlags() {
			t.Fatalf("vigiles %s --help made no FlagSet to read", name)
		}
	}
	for _, name := range commands {
		for _, other := range commands {
			flags[other].VisitAll(func(f *pflag.Flag) {
				if flags[name].Lookup(f.Name) != nil {
					return
				}
				code, out, errs := runCLI(t, name, "--"+f.Name, "--", "true")
				bare := fmt.Sprintf("vigiles: %s: unknown flag: --%s; see vigiles %s --help\n", name, f.Name, name)
				if code != 2 || out != "" || errs == bare || !strings.HasPrefix(errs, fmt.Sprintf("vigiles: %s: unknown flag: --%s (", name, f.Name)) {
					t.Errorf("vigiles %s --%s (vigiles %s's): exit %d, stdout %q, stderr %q: want status 2 and a line that says whose flag it is", name, f.Name, other, code, out, errs)
				}
			})
		}
	}
}

// TestWhoseFlagLooksThroughEveryCommand: flagCommands, in the docs'
// order, holds every command but action, so that a command added later
// is named as the owner of its flags (its flags given to another).
func TestWhoseFlagLooksThroughEveryCommand(t *testing.T) {
	for n := range subcommands {
		if n != "action" && !slices.Contains(flagCommands, n) {
			t.Errorf("command %s is not in flagCommands: whoseFlag never names it", n)
		}
	}
	for _, n := range flagCommands {
		if commandFlags(n) == nil {
			t.Errorf("flagCommands names %s, which has no flags (or is no command)", n)
		}
	}
}
