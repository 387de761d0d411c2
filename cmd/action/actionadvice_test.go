package main

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// runStopHookIn runs the step, through the real sandbox, on its
// workspace with stopHookTree written in its directory dir; it returns
// the workspace.
func (s *simulatedStep) runStopHookIn(t *testing.T, dir string) string {
	t.Helper()
	ws := s.env["GITHUB_WORKSPACE"]
	for p, c := range stopHookTree {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, httpClient: s.srv.Client()} // no executor: the real sandbox
	s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
	return ws
}

// TestActionRewriteAdviceNamesTheInput: in the GitHub Action, the advice
// to write the baseline names its update-baseline input, and the command
// that does it locally from the workspace's root (working-directory as
// --dir, the baseline input as --baseline), in the annotations, the job
// summary and the SARIF file alike.
func TestActionRewriteAdviceNamesTheInput(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "working-directory": "sub",
		"baseline": "ci/b.json", "sarif": "v.sarif"})
	ws := s.runStopHookIn(t, "sub")
	if s.exitCode != 1 {
		t.Fatalf("a named baseline missing: exit %d, want 1\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	const want = "run an audit with the action's input `update-baseline: true` (locally: `vigiles audit --update-baseline --dir sub --baseline ci/b.json`) to create it"
	sarif, err := os.ReadFile(filepath.Join(ws, "v.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"annotations": s.stdout.String(), "summary": html.UnescapeString(s.file(t, "GITHUB_STEP_SUMMARY")), "SARIF": string(sarif)} {
		if !strings.Contains(text, want) {
			t.Errorf("the %s do not advise the input:\n%s\nwant %s", where, text, want)
		}
		if strings.Contains(text, ws) {
			t.Errorf("the %s name the workspace's absolute path:\n%s", where, text)
		}
	}
}

// TestActionRewriteAdviceMakesTheDirectoryLocally: a baseline outside
// working-directory whose directory is not there is made by the action
// with update-baseline; locally the command makes it first, named from
// the workspace's root, not the runner's absolute path.
func TestActionRewriteAdviceMakesTheDirectoryLocally(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "working-directory": "sub", "baseline": "../ci/b.json"})
	ws := s.runStopHookIn(t, "sub")
	out := s.stdout.String()
	const want = "run an audit with the action's input `update-baseline: true` (locally: `mkdir -p ci && vigiles audit --update-baseline --dir sub --baseline ../ci/b.json`) to create it"
	if s.exitCode != 1 || !strings.Contains(out, want) || strings.Contains(out, ws) {
		t.Errorf("exit %d (want 1); the annotations do not advise making the directory locally, or name the workspace's absolute path:\n%s\nwant %s", s.exitCode, out, want)
	}
}

// TestActionNotBaselineFixNamesTheInputs: a baseline input that names a
// file that is no baseline (another tool's JSON) is a baseline/invalid
// error whose fix names the action's inputs, not the CLI's flags.
func TestActionNotBaselineFixNamesTheInputs(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "working-directory": "sub", "baseline": "package.json"})
	if err := os.MkdirAll(filepath.Join(s.env["GITHUB_WORKSPACE"], "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "sub", "package.json"), []byte(`{"name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.runStopHookIn(t, "sub")
	out := s.stdout.String()
	const want = "which the action's update-baseline input will not overwrite: set its baseline input to the baseline file, such as .vigiles/baseline.json (the policy file goes to its config input), or leave it empty to compare with nothing"
	if s.exitCode != 1 || !strings.Contains(out, want) || strings.Contains(out, "--baseline") {
		t.Errorf("exit %d (want 1); the annotations do not name the inputs, or name --baseline:\n%s\nwant %s", s.exitCode, out, want)
	}
}
