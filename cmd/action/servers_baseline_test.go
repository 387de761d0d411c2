package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// runIdleHooks runs the step with hooks that do nothing, confined (canned:
// the sandbox is not what is tested), on its workspace with files added.
func (s *simulatedStep) runIdleHooks(t *testing.T, files map[string]string) {
	t.Helper()
	ws := s.env["GITHUB_WORKSPACE"]
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	canned := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}}
	s.checkout(t)
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: canned, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps)
	s.exitCode = exitCode(err, &s.stderr, true)
}

// baselineAuditInputs are an audit step's inputs at fail-level warning
// against .vigiles/baseline.json, with extra's name, value pairs over
// them.
func baselineAuditInputs(extra ...string) map[string]string {
	in := map[string]string{"command": "audit", "check-run": "false", "fail-level": "warning", "baseline": ".vigiles/baseline.json"}
	for i := 0; i+1 < len(extra); i += 2 {
		in[extra[i]] = extra[i+1]
	}
	return in
}

// writtenBaseline audits a tree with files at fail-level warning and no
// baseline, which fails the step (exit 1) on the warning rule, then with
// update-baseline, which passes, and returns the baseline that wrote.
func writtenBaseline(t *testing.T, files map[string]string, rule string) string {
	t.Helper()
	s := newStep(t, baselineAuditInputs())
	s.runIdleHooks(t, files)
	if s.exitCode != 1 || !strings.Contains(s.stdout.String(), rule) {
		t.Fatalf("no baseline, fail-level warning: exit %d, want 1 for the warning %s\n%s%s", s.exitCode, rule, s.stdout.String(), s.stderr.String())
	}
	s = newStep(t, baselineAuditInputs("update-baseline", "true"))
	s.runIdleHooks(t, files)
	if s.exitCode != 0 {
		t.Fatalf("update-baseline: exit %d\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	baseline, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles", "baseline.json"))
	if err != nil {
		t.Fatalf("the baseline update-baseline wrote: %v", err)
	}
	return string(baseline)
}

// TestActionFailLevelWarningAndServers: at fail-level warning, a plugin's
// MCP server fails the step until the baseline keeps it: update-baseline
// writes it, and against that baseline it is a notice that passes; a
// change of what it starts is a baseline/server-changed error. A baseline
// written before vigiles kept servers (v1) leaves it the warning it was,
// and fails at either level on baseline/outdated, as the v2 one vigiles
// writes without them fails on baseline/invalid.
func TestActionFailLevelWarningAndServers(t *testing.T) {
	mcp := map[string]string{"plugins/guard/.mcp.json": `{"db": {"command": "db-server"}}`}
	inputs := baselineAuditInputs
	baseline := writtenBaseline(t, mcp, "discovery/mcp-server")
	if !strings.Contains(baseline, `"starts": "db-server"`) {
		t.Fatalf("baseline:\n%s", baseline)
	}

	s := newStep(t, inputs())
	s.runIdleHooks(t, map[string]string{"plugins/guard/.mcp.json": mcp["plugins/guard/.mcp.json"], ".vigiles/baseline.json": baseline})
	if s.exitCode != 0 {
		t.Errorf("against the baseline that keeps the server: exit %d, want 0\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}

	s = newStep(t, inputs("fail-level", "error"))
	s.runIdleHooks(t, map[string]string{"plugins/guard/.mcp.json": `{"db": {"command": "db-server", "env": {"LD_PRELOAD": "./x.so"}}}`, ".vigiles/baseline.json": baseline})
	if s.exitCode != 1 || !strings.Contains(s.stdout.String(), "baseline/server-changed") {
		t.Errorf("a changed server at fail-level error: exit %d, want 1 with baseline/server-changed\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}

	deleted := strings.Replace(baseline, `"servers": [`, `"x": [`, 1)
	deleted = deleted[:strings.Index(deleted, `,
  "x": [`)] + "\n}\n"
	// The line deleted from the baseline vigiles writes: refused, not
	// read as one of before servers were kept.
	s = newStep(t, inputs("fail-level", "error"))
	s.runIdleHooks(t, map[string]string{"plugins/guard/.mcp.json": mcp["plugins/guard/.mcp.json"], ".vigiles/baseline.json": deleted})
	if s.exitCode != 1 || !strings.Contains(s.stdout.String(), "baseline/invalid") {
		t.Errorf("a v2 baseline without servers, fail-level error: exit %d, want 1 with baseline/invalid\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	before := strings.Replace(deleted, runner.BaselineSchema, runner.BaselineSchemaV1, 1)
	for _, c := range []struct {
		level string
		code  int
	}{{"warning", 1}, {"error", 1}} {
		s = newStep(t, inputs("fail-level", c.level))
		s.runIdleHooks(t, map[string]string{"plugins/guard/.mcp.json": mcp["plugins/guard/.mcp.json"], ".vigiles/baseline.json": before})
		// Turned back to v1 as well, it fails at every level: vigiles
		// cannot tell it from a baseline written before v2
		// (baseline/outdated, an error that names the update).
		if s.exitCode != c.code || !strings.Contains(s.stdout.String()+s.stderr.String(), "--update-baseline") || !strings.Contains(s.stdout.String(), "baseline/outdated") {
			t.Errorf("a baseline without servers, fail-level %s: exit %d, want %d with baseline/outdated, saying --update-baseline keeps it\n%s%s", c.level, s.exitCode, c.code, s.stdout.String(), s.stderr.String())
		}
	}
}

// TestActionServerDriftIsText: what a server starts, now and as the
// baseline the pull request carries says it started, reaches the log and
// the summary as text: a newline and a workflow command inside it
// (::error, ::add-mask::, ##[error]) start no line of the log, and the
// summary holds no raw line break from it. (It held before this test.)
func TestActionServerDriftIsText(t *testing.T) {
	base := `{"schema": "vigiles.baseline/v1", "runs": {}, "servers": [{"plugin": "guard", "context": "plugin:plugins/guard", "kind": "monitor", "name": "m", "starts": "old\n::error file=x::was\n##[error]w", "file": "plugins/guard/monitors/monitors.json"}]}`
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "baseline": ".vigiles/baseline.json"})
	s.runIdleHooks(t, map[string]string{
		"plugins/guard/monitors/monitors.json": `[{"name": "m", "command": "new\n::error file=y::now\r\n::add-mask::z"}, {"name": "m\n::warning::name", "command": "q"}]`,
		".vigiles/baseline.json":               base,
	})
	out := s.stdout.String()
	if s.exitCode != 1 || !strings.Contains(out, "baseline/server-changed") || !strings.Contains(out, "baseline/server-added") {
		t.Fatalf("exit %d, want 1 with server-changed and server-added\n%s%s", s.exitCode, out, s.stderr.String())
	}
	for _, l := range strings.Split(out, "\n") {
		for _, bad := range []string{"::error file=x", "::error file=y", "::add-mask::", "::warning::name", "##[error]w"} {
			if strings.HasPrefix(strings.TrimSpace(l), bad) {
				t.Errorf("a log line begins with the server's text %q: %q", bad, l)
			}
		}
	}
	sum := s.file(t, "GITHUB_STEP_SUMMARY")
	for _, bad := range []string{"\n::error file=x", "\n::error file=y", "\n::add-mask::", "\n##[error]w"} {
		if strings.Contains(sum, bad) {
			t.Errorf("the summary breaks a line before %q:\n%s", bad, sum)
		}
	}
}

// TestActionUpdateBaselineOfARefusedRun: the update-baseline input, as
// vigiles audit --update-baseline, writes no baseline of a run vigiles
// refused: the step exits 125 whatever fail-level says, verdict error,
// and its error names the run on one line, a run id of a directory whose
// name holds a newline and workflow-command text quoted, its newline an
// escape.
func TestActionUpdateBaselineOfARefusedRun(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "fail-level": "none", "baseline": ".vigiles/baseline.json", "update-baseline": "true"})
	ws := s.env["GITHUB_WORKSPACE"]
	hooks := filepath.Join(ws, "plugins", "x\n::warning::forged", "hooks", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(hooks), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooks, []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "guard"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}, nil
	}}
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: refused, httpClient: s.srv.Client()}
	s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
	out := s.stdout.String() + s.stderr.String()
	if s.exitCode != 125 || !strings.Contains(out, "the baseline was not written") || !strings.Contains(out, `"plugins/x\u000a::warning::forged/hooks/hooks.json#hooks.Stop[0].hooks[0]" run/refused`) {
		t.Errorf("update-baseline of a refused run: exit %d, want 125 naming the run\n%s", s.exitCode, out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::warning") {
			t.Errorf("a run id began a workflow command: %q", l)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, ".vigiles", "baseline.json")); !os.IsNotExist(err) {
		t.Errorf("a baseline was written: %v", err)
	}
	if o, _ := os.ReadFile(s.env["GITHUB_OUTPUT"]); !strings.Contains(string(o), "error") {
		t.Errorf("outputs: %s", o)
	}
}
