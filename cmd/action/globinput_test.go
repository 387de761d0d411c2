package main

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
)

// TestActionPathsGlobIsNamed: the policy file's plugins take globs
// ("plugins/*"), and a workflow's paths written the same way named no
// directory ("audit path plugins/* does not exist"). It is told that
// paths expands no glob, and the directory to name instead.
func TestActionPathsGlobIsNamed(t *testing.T) {
	for paths, want := range map[string]string{
		"plugins/*":        "input paths: plugins/* is a glob, and paths takes directories as they are written, expanding no glob: name the directories it was to match, or the one above them, plugins",
		"plugins/guard/h?": "or the one above them, plugins/guard",
		"*":                "or the one above them, .",
	} {
		t.Run(paths, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "paths": paths})
			s.run(t) // s.exec records any hook it is asked to run
			code := s.exitCode
			if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.Contains(got, want) {
				t.Errorf("exit %d, want 2 saying %q\n%s", code, want, got)
			}
			if ran := len(s.exec.specs); ran != 0 {
				t.Errorf("%d hooks ran", ran)
			}
		})
	}
}
