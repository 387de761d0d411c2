package main

import (
	"strings"
	"testing"
)

// TestHelpGoesToStdout: help that was asked for is the command's output
// (stdout, status 0); help printed because of a usage mistake goes with
// the error to stderr (status 2).
func TestHelpGoesToStdout(t *testing.T) {
	heads := map[string]string{
		"run": "Usage: vigiles run", "doctor": "Usage: vigiles doctor", "test": "Usage: vigiles test",
		"audit": "Usage: vigiles audit", "merge": "Usage: vigiles merge", "action": "vigiles action: the entry point",
	}
	for cmd, head := range heads {
		for _, args := range [][]string{{cmd, "--help"}, {cmd, "-h"}, {"help", cmd}} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, out, errs := runCLI(t, args...)
				if code != 0 || !strings.HasPrefix(out, head) || errs != "" {
					t.Errorf("exit %d, stdout %.60q, stderr %q: want status 0 and %q on stdout only", code, out, errs, head)
				}
			})
		}
	}
	for _, args := range [][]string{{"--help"}, {"help"}} {
		if code, out, errs := runCLI(t, args...); code != 0 || !strings.Contains(out, "Commands:") || errs != "" {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %q", args, code, out, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		help string // on stderr, or "" for none
	}{
		{[]string{"run"}, "Usage: vigiles run"},
		{[]string{"merge"}, "Usage: vigiles merge"},
		{[]string{"help", "nosuch"}, "Commands:"},
		{[]string{"nosuch"}, "Commands:"},
		{[]string{"run", "--no-such-flag", "--", "true"}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != 2 || out != "" || !strings.Contains(errs, tc.help) || !strings.Contains(errs, "vigiles: ") {
				t.Errorf("exit %d, stdout %.60q, stderr %q: want status 2, the error (and %q) on stderr only", code, out, errs, tc.help)
			}
		})
	}
}
