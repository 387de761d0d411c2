package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestActionPolicyBelowTheWorkspaceIsNamed: a repository that keeps the
// bundled example in a directory of it (tools/vigiles), checked with the
// documented step, which names no working-directory, was told only to
// name another policy file or write one. It is told the working-directory
// to set (hidden directories and node_modules are not looked in), and
// that input then runs the example's hooks in the real sandbox, its
// findings on the files of the repository.
func TestActionPolicyBelowTheWorkspaceIsNamed(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newStep(t, map[string]string{"check-run": "false"})
	ws := s.env["GITHUB_WORKSPACE"]
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(ws, "tools", "vigiles"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".cache/x", "node_modules/x"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, ".vigiles.yml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, httpClient: s.srv.Client()} // the real sandbox
	err := runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps)
	code := exitCode(err, &s.stderr, true)
	const want = "there is one below it, in tools/vigiles: set working-directory: tools/vigiles"
	if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.Contains(got, want) {
		t.Fatalf("exit %d, want 2 saying %q\n%s", code, want, got)
	}

	// The input it names is the fix.
	s.env["INPUT_WORKING-DIRECTORY"] = "tools/vigiles"
	if err := os.Remove(s.env["GITHUB_OUTPUT"]); err != nil {
		t.Fatal(err)
	}
	s.stdout.Reset()
	s.stderr.Reset()
	err = runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 1 {
		t.Fatalf("with working-directory: tools/vigiles: exit %d, want 1 (the example breaks promises)\n%s", code, s.stderr.String())
	}
	out := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	rep := reportOut(t, out)
	if out["verdict"] != "fail" || len(rep.Runs) == 0 {
		t.Errorf("outputs %v, %d runs; want verdict fail and the example's runs", out, len(rep.Runs))
	}
	for _, f := range rep.Findings {
		if f.Location.File != "" && !strings.HasPrefix(f.Location.File, "tools/vigiles/") {
			t.Errorf("finding %s at %s, not on a file of tools/vigiles", f.Rule, f.Location.File)
		}
	}
}

// TestActionPoliciesBelowAreEachNamed: where several directories below
// working-directory hold a policy file, each is named from the
// workspace, working-directory's own directory before it, and none
// deeper than three directories; a directory four deep is not looked in.
func TestActionPoliciesBelowAreEachNamed(t *testing.T) {
	s := newStep(t, map[string]string{"check-run": "false", "working-directory": "sub"})
	ws := s.env["GITHUB_WORKSPACE"]
	if err := os.RemoveAll(ws); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"sub/a", "sub/a0/h/i/j", "sub/b/c", "sub/d/e/f"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, d, ".vigiles.yml"), []byte("version: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	code := exitCode(err, &s.stderr, true)
	const want = "there are some below it, in sub/a, sub/b/c, sub/d/e/f: set working-directory to the one to check, a step for each"
	if got := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"); code != 2 || !strings.Contains(got, want) {
		t.Fatalf("exit %d, want 2 saying %q\n%s", code, want, got)
	}
}
