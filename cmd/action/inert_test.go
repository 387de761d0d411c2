package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestOwnOutputIssuesNoWorkflowCommand: the lines vigiles prints itself
// (progress, errors, the report on stdout in every format) quote names and
// output the repository and its hooks chose; in a GitHub step log none of
// them may act as a workflow command, in the "::" form or the legacy
// "##[" one the runner finds anywhere in a line.
func TestOwnOutputIssuesNoWorkflowCommand(t *testing.T) {
	const hostile = "line1\n::error::from-stdout\n  ::add-mask::x\n##[error]legacy b##[stop-commands]x"
	var stderr bytes.Buffer
	pw := &progressWriter{w: &stderr}
	fmt.Fprintf(pw, "[1/1] e##[stop-commands]x SessionStart startup: allowed (confined, 29 ms)\n")
	for _, stepLog := range []bool{false, true} {
		exitCode(exitWith(2, errors.New("run a##[error]x appears twice\n"+hostile)), &stderr, stepLog)
		exitCode(errors.New(hostile), &stderr, stepLog)
	}
	if cmds := annotatetest.Commands(stderr.String()); len(cmds) != 0 {
		t.Errorf("stderr issues workflow commands: %+v\n%s", cmds, stderr.String())
	}

	rep := &report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictFail,
		Runs: []report.HookRun{{ID: "r1", Plugin: "e##[stop-commands]x", Event: "Stop", Stdout: hostile,
			Writes: []evidence.Write{{Path: "b##[error]FORGED-FILE", Op: "create"}}, Egress: []evidence.Egress{}}},
		Findings: []report.Finding{{Rule: "expect/no-write", Severity: report.SeverityError, Hook: "r1",
			Title: "check ##[error]t", Message: hostile, Evidence: hostile, Location: report.Location{File: "b##[error]x", Line: 1}}},
	}
	for _, format := range []string{"text", "json", "sarif"} {
		var out bytes.Buffer
		finishReport("test", rep, nil, format, "", &out, io.Discard)
		if cmds := annotatetest.Commands(out.String()); len(cmds) != 0 {
			t.Errorf("the %s report issues workflow commands: %+v", format, cmds)
		}
	}
}

// TestRunOutputInertInActions: `vigiles run` in a workflow step passes the
// command's own output through with every line made inert, and its report
// (file names the command chose) is inert too; outside Actions the output
// is passed through as it is.
func TestRunOutputInertInActions(t *testing.T) {
	script := `printf '::error::from stdout\nplain line\n'; printf 'x ##[add-mask]y\n::warning::from stderr' >&2`
	for _, actions := range []bool{true, false} {
		env := map[string]string{"PATH": os.Getenv("PATH")}
		if actions {
			env["GITHUB_ACTIONS"] = "true"
		}
		var stdout, stderr bytes.Buffer
		dir := t.TempDir()
		err := cmdRun(context.Background(), []string{"--sandbox", "off", "--workdir", dir, "--", "sh", "-c", script},
			func(k string) string { return env[k] }, strings.NewReader(""), &stdout, &stderr)
		if code := exitCode(err, io.Discard, actions); code != 0 {
			t.Fatalf("run: exit %d %v\n%s", code, err, stderr.String())
		}
		cmds := annotatetest.Commands(stdout.String() + stderr.String())
		if actions && len(cmds) != 0 {
			t.Errorf("in Actions, the run's output issues workflow commands: %+v\nstdout:\n%s\nstderr:\n%s", cmds, stdout.String(), stderr.String())
		}
		if !actions && !strings.Contains(stdout.String(), "::error::from stdout\nplain line\n") {
			t.Errorf("outside Actions the output changed: %q", stdout.String())
		}
		if actions && !strings.Contains(stdout.String(), "plain line\n") {
			t.Errorf("plain output lost: %q", stdout.String())
		}
	}
	// The report names what the command wrote.
	var rep bytes.Buffer
	printRunReport(&rep, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay",
		Writes: []evidence.Write{{Path: "b##[error]FORGED-FILE", Op: evidence.OpCreate}}, Egress: []evidence.Egress{}})
	if !strings.Contains(rep.String(), "FORGED-FILE") {
		t.Fatalf("the report does not quote the file name: %s", rep.String())
	}
	if cmds := annotatetest.Commands(rep.String()); len(cmds) != 0 {
		t.Errorf("the report issues workflow commands: %+v", cmds)
	}
}
