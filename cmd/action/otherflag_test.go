package main

import (
	"strings"
	"testing"
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
		{[]string{"doctor", "--config", ".vigiles.yml"}, "vigiles: doctor: unknown flag: --config; see vigiles doctor --help\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}
}
