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
