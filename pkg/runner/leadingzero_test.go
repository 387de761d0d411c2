package runner

import (
	"strings"
	"testing"
)

// TestLeadingZeroNumbers: a number written with a leading 0 is refused
// where the policy reads a number, as yaml.v3 reads 010 as octal 8 and
// YAML 1.2 as 10: exit-code: 010 passed a hook that exited 8. A quoted
// "010" is a string, and 0o10, 0x10, 0, 0.5 and 01.5 (a fraction, read
// alike by every YAML reader) say what they are.
func TestLeadingZeroNumbers(t *testing.T) {
	for _, bad := range []string{
		"{exit-code: 010}",
		"{exit-code: +010}",
		"{json: {a: 010}}",
		"{json: {a: [1, 08]}}",
		"{json: {a: !!int 010}}",
	} {
		_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: "+bad+"}\n")
		if !strings.Contains(errs, "has a leading 0") {
			t.Errorf("%s: errors %q, want a leading 0 refused", bad, errs)
		}
	}
	_, errs := configErrs(t, "defaults: {limits: {pids: 0100}}\nchecks:\n  - {name: a, command: x, expect: {exit-code: 0}}\n")
	if !strings.Contains(errs, "limits.pids: 0100 has a leading 0") {
		t.Errorf("errors %q", errs)
	}
	cfg, errs := configErrs(t, "checks:\n  - {name: a, command: x, input: {n: 010}, expect: {exit-code: 0}}\n")
	if !strings.Contains(errs, "has a leading 0") {
		t.Errorf("input: errors %q", errs)
	}
	cfg, errs = configErrs(t, "checks:\n  - {name: a, command: x, expect: {exit-code: 0o10, json: {a: \"010\", b: 0x10, c: 0, d: 0.5, e: -0.5, f: 01.5}}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	if x := cfg.Checks[0].Expect[0]; x.Int != 8 {
		t.Errorf("exit-code 0o10 read as %d, want 8", x.Int)
	}
	if got := cfg.Checks[0].Expect[1].JSON[0].Value; got != "010" {
		t.Errorf("json a %v, want the string 010", got)
	}
}
