package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
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
	exitCode(exitWith(2, errors.New("run a##[error]x appears twice\n"+hostile)), &stderr)
	exitCode(errors.New(hostile), &stderr)
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
		finishReport("test", rep, nil, format, "", &out)
		if cmds := annotatetest.Commands(out.String()); len(cmds) != 0 {
			t.Errorf("the %s report issues workflow commands: %+v", format, cmds)
		}
	}
}
