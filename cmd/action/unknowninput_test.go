package main

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/runner"
)

// TestActionUnknownInputVariableIsSaid: a job that runs vigiles action
// itself in the image (docs/container.md) sets the INPUT_* variables by
// hand, and one misspelt (INPUT_FAIL_LEVL) was read by nothing: its input
// kept its default without a word. Each is a warning that names the
// variable meant, never its value, and the step runs on; so is an
// input's name in lower or mixed case (INPUT_fail_level), which input
// reads no more than a misspelt one. The variables of every input, upper
// case with hyphens kept or made underscores, are no warning.
func TestActionUnknownInputVariableIsSaid(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "check-run": "false"})
	env := []string{
		"INPUT_FAIL_LEVL=secret-looking-value", "INPUT_COMAND=audit", "INPUT_ZZZ=1", "INPUT_fail_level=none", "INPUT_Jobs=1",
		"INPUT_COMMAND=test", "INPUT_WORKING-DIRECTORY=.", "INPUT_HOOK_LOGS=false", "INPUT_RUNTIME=container", "INPUT_IMAGE=x",
		"PATH=/usr/bin", "MY_INPUT_X=1",
	}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client(), environ: func() []string { return env }}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	// 1: the fixture's checks fail where no hook really runs (noRun).
	if code := exitCode(err, &s.stderr, true); code != 1 {
		t.Fatalf("exit %d, want 1: the checks run on\n%s", code, s.stderr.String())
	}
	var warnings []string
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name == "warning" && c.Props["title"] == "vigiles" {
			warnings = append(warnings, c.Data)
		}
	}
	want := []string{
		"INPUT_COMAND is no input of vigiles action and is not read: set INPUT_COMMAND (the command input) instead",
		"INPUT_FAIL_LEVL is no input of vigiles action and is not read: set INPUT_FAIL_LEVEL (the fail-level input) instead",
		"INPUT_Jobs is not read: the inputs' variables are named in upper case: set INPUT_JOBS (the jobs input) instead",
		"INPUT_ZZZ is no input of vigiles action and is not read: vigiles action --help lists the inputs",
		"INPUT_fail_level is not read: the inputs' variables are named in upper case: set INPUT_FAIL_LEVEL (the fail-level input) instead",
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(s.stdout.String()+s.stderr.String(), "secret-looking-value") {
		t.Error("a variable's value was printed")
	}
}

// TestActionUnknownInputNamesAreInert: the warning for an INPUT_*
// variable no input reads quotes the variable's name, which the step's
// environment chose, as one inert line: no control or format character
// of it (an escape sequence, a bidi override) reaches the log, and no
// "##[" of it, which the log viewer styles wherever it stands.
func TestActionUnknownInputNamesAreInert(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "check-run": "false"})
	env := []string{"INPUT_A\u202eB=1", "INPUT_X\x1b[2J\rY=1", "INPUT_##[group]G=1", "INPUT_Jobs##[error]e=1"}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client(), environ: func() []string { return env }}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	exitCode(err, &s.stderr, true)
	var warnings []string
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name == "warning" && c.Props["title"] == "vigiles" && (strings.Contains(c.Data, "is not read") || strings.Contains(c.Data, "is no input")) {
			warnings = append(warnings, c.Data)
		}
	}
	if len(warnings) != len(env) {
		t.Fatalf("%d warnings, want %d:\n%s", len(warnings), len(env), s.stdout.String())
	}
	for _, w := range warnings {
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) || strings.Contains(w, "##[") {
			t.Errorf("warning %q holds a control or format character, or ##[", w)
		}
	}
	if strings.Contains(s.stdout.String(), "##[") {
		t.Errorf("stdout holds ##[:\n%s", s.stdout.String())
	}
}

// TestActionInputSetTwoWaysFails: under runtime: host the engine gets the
// composite step's whole environment, where with: sets INPUT_FAIL_LEVEL
// (its default, error, where with: has none) and a workflow's or job's
// env:, or an earlier step's GITHUB_ENV, may set INPUT_FAIL-LEVEL, which
// input reads first: fail-level none came from outside with:, and the
// comparison of the step's inputs with the base's saw none of it. Two
// values of one input are a bad input, and no hook runs.
func TestActionInputSetTwoWaysFails(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "check-run": "false", "fail-level": "none"})
	s.env["INPUT_FAIL_LEVEL"] = "error"
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client(), environ: func() []string { return nil }}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 2 {
		t.Fatalf("exit %d, want 2 (a bad input)\n%s", code, s.stdout.String())
	}
	if !strings.Contains(s.stdout.String(), "input fail-level: INPUT_FAIL-LEVEL and INPUT_FAIL_LEVEL are both set, to two values") {
		t.Errorf("the error does not name the input set two ways:\n%s", s.stdout.String())
	}
	// The same value both ways, as a step that sets both by hand may, is
	// the input.
	s = newStep(t, map[string]string{"command": "test", "check-run": "false", "fail-level": "none"})
	s.env["INPUT_FAIL_LEVEL"] = "none"
	err = runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if strings.Contains(s.stdout.String(), "both set") {
		t.Errorf("one value both ways is refused: %v\n%s", err, s.stdout.String())
	}
}
