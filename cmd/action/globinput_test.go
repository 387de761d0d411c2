package main

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
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
			var ran int
			count := runner.ExecutorFunc(func(ctx context.Context, sp sandbox.Spec) (*sandbox.Result, error) {
				ran++
				return noRun(ctx, sp)
			})
			deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: count, httpClient: s.srv.Client()}
			err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
			code := exitCode(err, &s.stderr, true)
			if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.Contains(got, want) {
				t.Errorf("exit %d, want 2 saying %q\n%s", code, want, got)
			}
			if ran != 0 {
				t.Errorf("%d hooks ran", ran)
			}
		})
	}
}
