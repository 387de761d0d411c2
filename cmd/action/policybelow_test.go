package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestActionPolicyBelowTheWorkspaceIsNamed: a repository whose policy
// file is in a directory of it (tools/vigiles/.vigiles.yml), checked with
// the documented step, which names no working-directory, was told only to
// name another policy file or write one. It is told the working-directory
// to set, and that input then runs the hooks; hidden directories and
// node_modules are not looked in.
func TestActionPolicyBelowTheWorkspaceIsNamed(t *testing.T) {
	s := newStep(t, map[string]string{"check-run": "false"})
	ws := s.env["GITHUB_WORKSPACE"]
	sub := filepath.Join(ws, "tools", "vigiles")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".vigiles.yml", "plugins"} {
		if err := os.Rename(filepath.Join(ws, name), filepath.Join(sub, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{".cache/x", "node_modules/x"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, ".vigiles.yml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var ran int
	count := runner.ExecutorFunc(func(ctx context.Context, sp sandbox.Spec) (*sandbox.Result, error) {
		ran++
		return noRun(ctx, sp)
	})
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: count, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	code := exitCode(err, &s.stderr, true)
	const want = "there is one below it, in tools/vigiles: set working-directory: tools/vigiles"
	if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.HasSuffix(strings.TrimSpace(got), want) {
		t.Fatalf("exit %d, want 2 ending %q\n%s", code, want, got)
	}
	// The input it names is the fix.
	s.env["INPUT_WORKING-DIRECTORY"] = "tools/vigiles"
	s.stdout.Reset()
	s.stderr.Reset()
	err = runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code == 2 || code == 125 || ran == 0 {
		t.Errorf("with working-directory: tools/vigiles: exit %d, %d hooks ran\n%s", code, ran, s.stderr.String())
	}
}
