package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
)

// runCanned runs the step with the runner replaced by one that returns
// rep and runErr: no hook runs.
func (s *simulatedStep) runCanned(t *testing.T, rep *report.Report, runErr error) {
	t.Helper()
	canned := func(context.Context, runner.Options) (*report.Report, error) { return rep, runErr }
	deps := actionDeps{test: canned, audit: canned, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	s.exitCode = exitCode(err, &s.stderr, true)
}

// noRun is an executor that runs nothing: every hook "ran" confined,
// wrote nothing and tried no host.
var noRun = runner.ExecutorFunc(func(context.Context, sandbox.Spec) (*sandbox.Result, error) {
	return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
})

func cannedReport(command string, errs, warnings, notices int) *report.Report {
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: command, Verdict: report.VerdictFail,
		Runs: []report.HookRun{}, Findings: []report.Finding{}}
	add := func(n int, sev report.Severity) {
		for i := 0; i < n; i++ {
			r.Findings = append(r.Findings, report.Finding{Rule: "baseline/host", Severity: sev, Title: fmt.Sprintf("%s %d", sev, i),
				Message: fmt.Sprintf("plugin p now reaches host-%d.example.test", i), Location: report.Location{File: "plugins/guard/hooks/hooks.json", Line: i + 1}})
		}
	}
	add(errs, report.SeverityError)
	add(warnings, report.SeverityWarning)
	add(notices, report.SeverityNotice)
	return r
}

// TestActionSARIFLinkLeadingOutIsRefused: the checkout under review
// commits a symbolic link where the sarif input points (the file itself,
// a directory on the way, a link that climbs out with "..", one to a file
// that does not exist yet): the action refuses the input (exit 2, one
// ::error naming it and the fix) before anything runs, and nothing outside
// the workspace is written. A link that stays inside is followed.
func TestActionSARIFLinkLeadingOutIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		sarif  string
		link   string // in the workspace
		target string // relative to the directory outside, or "ws:" + a workspace path
	}{
		{"linked file", "v.sarif", "v.sarif", "victim"},
		{"linked directory", "out/x.sarif", "out", "."},
		{"dangling link", "v.sarif", "v.sarif", "new-file"},
		{"relative link climbing out", "up/x.sarif", "up", "rel:../.."},
		{"deeper linked directory", "a/b/x.sarif", "a", "."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "test", "sarif": tc.sarif, "check-run": "false"})
			ws := s.env["GITHUB_WORKSPACE"]
			outside := t.TempDir()
			victim := filepath.Join(outside, "victim")
			if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "deeper linked directory" {
				os.MkdirAll(filepath.Join(outside, "b"), 0o755)
			}
			target := filepath.Join(outside, tc.target)
			if rel, ok := strings.CutPrefix(tc.target, "rel:"); ok {
				target = rel
			}
			if err := os.Symlink(target, filepath.Join(ws, tc.link)); err != nil {
				t.Fatal(err)
			}
			before := listDir(t, outside)
			s.runCanned(t, cannedReport("test", 1, 0, 0), nil)
			if s.exitCode != 2 {
				t.Errorf("exit %d, want 2\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
			}
			cmds := annotatetest.Commands(s.stdout.String())
			if len(cmds) != 1 || cmds[0].Name != "error" || !strings.Contains(cmds[0].Data, "input sarif: "+tc.sarif) ||
				!strings.Contains(cmds[0].Data, "symbolic link") || !strings.Contains(cmds[0].Data, "remove the link") {
				t.Errorf("annotations %+v, want one ::error naming the input, the link and the fix", cmds)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious" {
				t.Errorf("the file outside the workspace was overwritten: %q", b)
			}
			if after := listDir(t, outside); after != before {
				t.Errorf("outside the workspace, %s became %s", before, after)
			}
			if up := listDir(t, filepath.Dir(filepath.Dir(ws))); strings.Contains(up, "x.sarif") {
				t.Errorf("x.sarif written above the workspace: %s", up)
			}
		})
	}
	t.Run("a link inside the workspace is followed", func(t *testing.T) {
		s := newStep(t, map[string]string{"command": "test", "sarif": "v.sarif", "check-run": "false", "fail-level": "none"})
		ws := s.env["GITHUB_WORKSPACE"]
		os.Mkdir(filepath.Join(ws, "out"), 0o755)
		if err := os.Symlink("out/real.sarif", filepath.Join(ws, "v.sarif")); err != nil {
			t.Fatal(err)
		}
		s.runCanned(t, cannedReport("test", 1, 0, 0), nil)
		if s.exitCode != 0 {
			t.Fatalf("exit %d\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
		}
		if b, err := os.ReadFile(filepath.Join(ws, "out", "real.sarif")); err != nil || !strings.Contains(string(b), `"version": "2.1.0"`) {
			t.Errorf("the link's target in the workspace holds no SARIF: %v", err)
		}
	})
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			names = append(names, strings.TrimPrefix(p, dir))
		}
		return nil
	})
	return strings.Join(names, " ")
}

// TestActionOtherPathsLinkingOutAreRefused: the working directory and the
// baseline, which update-baseline writes, are held to the same rule: a
// baseline outside the working directory, where the runner does not look
// at links, is not written through a link out of the workspace.
func TestActionOtherPathsLinkingOutAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		link   string
		want   string
	}{
		{"baseline through a linked directory", map[string]string{"command": "audit", "working-directory": "sub",
			"baseline": "../.vigiles/baseline.json", "update-baseline": "true"}, ".vigiles", "input baseline: ../.vigiles/baseline.json"},
		{"working directory linked out", map[string]string{"command": "audit", "working-directory": "sub/linked"}, "sub/linked", "input working-directory: sub/linked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.inputs["check-run"] = "false"
			tc.inputs["fail-level"] = "none"
			s := newStep(t, tc.inputs)
			ws := s.env["GITHUB_WORKSPACE"]
			os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
			os.WriteFile(filepath.Join(ws, "sub", ".vigiles.yml"), []byte("version: 1\n"), 0o644)
			outside := t.TempDir()
			os.WriteFile(filepath.Join(outside, ".vigiles.yml"), []byte("version: 1\n"), 0o644)
			if err := os.Symlink(outside, filepath.Join(ws, tc.link)); err != nil {
				t.Fatal(err)
			}
			before := listDir(t, outside)
			deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client()}
			err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
			s.exitCode = exitCode(err, &s.stderr, true)
			if s.exitCode != 2 || !strings.Contains(strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"), tc.want) ||
				!strings.Contains(s.stderr.String(), "symbolic link") {
				t.Errorf("exit %d, want 2 saying %q and the link\n%s%s", s.exitCode, tc.want, s.stdout.String(), s.stderr.String())
			}
			if after := listDir(t, outside); after != before {
				t.Errorf("outside the workspace, %s became %s", before, after)
			}
		})
	}
}

// TestActionSARIFLeftOutIsSaid: code scanning never shows a SARIF run's
// properties, so findings the file cannot hold (here past the 25,000
// results a run may have) are said in the step's log and the job summary,
// with where every finding is.
func TestActionSARIFLeftOutIsSaid(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "sarif": "vigiles.sarif", "check-run": "false", "fail-level": "none"})
	s.runCanned(t, cannedReport("test", 10, 10, annotate.SARIFMaxResultsPerRun-20+7), nil)
	if s.exitCode != 0 {
		t.Fatalf("exit %d\n%s", s.exitCode, s.stderr.String())
	}
	want := fmt.Sprintf("SARIF: 7 of %d findings are not in vigiles.sarif, so code scanning will not show them", annotate.SARIFMaxResultsPerRun+7)
	if !strings.Contains(s.stdout.String(), "vigiles: "+want) || !strings.Contains(s.stdout.String(), "report output") {
		t.Errorf("the log does not say %q and where the findings are:\n%s", want, lastLines(s.stdout.String(), 5))
	}
	// The summary escapes ':' and '.' as it does all text.
	if sum, want := s.file(t, "GITHUB_STEP_SUMMARY"), fmt.Sprintf("> SARIF&#58; 7 of %d findings are not in vigiles&#46;sarif", annotate.SARIFMaxResultsPerRun+7); !strings.Contains(sum, want) {
		t.Errorf("the job summary does not say %q:\n%s", want, lastLines(sum, 6))
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// TestActionOwnErrorIsShown: GitHub shows 10 ::error annotations a step
// and drops the rest. When vigiles fails for its own reason (interrupted;
// the outputs not written), the findings take 9, so that the ::error
// saying why the step failed is the 10th, and the summary counts the one
// held back.
func TestActionOwnErrorIsShown(t *testing.T) {
	for _, tc := range []struct {
		name      string
		runErr    error
		badOutput bool
		want      string
	}{
		// The command named once: the runner's error begins with it, said "audit: interrupted".
		{"interrupted", errors.New("audit interrupted: terminated"), false, "audit: interrupted: terminated"},
		{"reporting failed", nil, true, "reporting to GitHub: writing step outputs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "audit", "check-run": "false"})
			if tc.badOutput {
				s.env["GITHUB_OUTPUT"] = t.TempDir() // a directory: it cannot be written
			}
			s.runCanned(t, cannedReport("audit", 12, 1, 0), tc.runErr)
			if s.exitCode != 125 {
				t.Fatalf("exit %d, want 125\n%s", s.exitCode, s.stderr.String())
			}
			var errs []annotatetest.Command
			for _, c := range annotatetest.Commands(s.stdout.String()) {
				if c.Name == "error" {
					errs = append(errs, c)
				}
			}
			if len(errs) != annotate.MaxAnnotationsPerLevel {
				t.Fatalf("%d ::error annotations, want %d (GitHub drops the rest)", len(errs), annotate.MaxAnnotationsPerLevel)
			}
			if last := errs[len(errs)-1]; last.Props["title"] != "vigiles" || !strings.Contains(last.Data, tc.want) {
				t.Errorf("the last shown ::error is %+v, want vigiles' own saying %q", last, tc.want)
			}
			if tc.badOutput {
				return // nor is the summary's count wrong: it is written after the outputs failed
			}
			if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "(3 errors, 0 warnings, 0 notices)") {
				t.Errorf("the summary does not count the 3 findings' errors not shown:\n%s", lastLines(sum, 6))
			}
		})
	}
}

// TestActionSummaryNotWrittenFailsFirst: a job summary that cannot be
// written (GITHUB_STEP_SUMMARY a directory) fails the step (125), and
// nothing posted or written before that is known reads otherwise: the
// check run concludes failure and says why, and the verdict output is
// error. (The check run concluded neutral and the verdict read pass.)
func TestActionSummaryNotWrittenFailsFirst(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "fail-level": "error"})
	s.env["INPUT_GITHUB-TOKEN"] = testToken
	s.env["GITHUB_STEP_SUMMARY"] = t.TempDir()
	s.runCanned(t, cannedReport("test", 0, 1, 0), nil)
	s.failedOwnError(t, "writing job summary")
}

// TestActionBaselineOutsideWorkingDirectoryIsWritten: update-baseline
// with a baseline elsewhere in the workspace than working-directory, in a
// directory not made yet: the action makes it (the runner makes
// directories only inside its repository), so the baseline is written,
// not refused after every hook has run.
func TestActionBaselineOutsideWorkingDirectoryIsWritten(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "working-directory": "sub", "check-run": "false",
		"fail-level": "none", "baseline": "../.vigiles/audits/baseline.json", "update-baseline": "true"})
	ws := s.env["GITHUB_WORKSPACE"]
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", ".vigiles.yml"), []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: noRun, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", code, s.stdout.String(), s.stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(ws, ".vigiles", "audits", "baseline.json"))
	if err != nil {
		t.Fatalf("the baseline was not written: %v", err)
	}
	if !strings.Contains(string(b), `"schema"`) {
		t.Errorf("the baseline written is not one:\n%s", b)
	}
}

// TestActionBaselineDirectoryIsCheckedFirst: a baseline whose directory
// cannot be made (a file where it must be) is refused as bad input
// before any hook runs.
func TestActionBaselineDirectoryIsCheckedFirst(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "baseline": ".vigiles/baseline.json", "update-baseline": "true"})
	if err := os.WriteFile(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles"), []byte("a file, not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(t) // s.exec records any hook it is asked to run
	if code := s.exitCode; code != 2 || !strings.Contains(strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"), "input baseline: .vigiles/baseline.json") {
		t.Errorf("exit %d, want 2 naming the input\n%s", code, s.stderr.String())
	}
	if ran := len(s.exec.specs); ran != 0 {
		t.Errorf("%d hooks ran before the bad input was said", ran)
	}
}

// TestActionSARIFNotWrittenStillReports: the sarif input is checked before
// any hook runs, but writing the file can still fail after them (the disk
// full, a directory where the file goes). The step then fails (125), and
// the findings are still reported everywhere else (annotations, the job
// summary, the outputs with verdict error and the report's path), which
// say why: the hooks have run, and what they found is not to be lost
// with the SARIF file.
func TestActionSARIFNotWrittenStillReports(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "sarif": "out/vigiles.sarif", "check-run": "false"})
	ws := s.env["GITHUB_WORKSPACE"]
	rep := cannedReport("test", 2, 1, 0)
	run := func(context.Context, runner.Options) (*report.Report, error) {
		// What the hooks' run leaves where the file goes.
		return rep, os.MkdirAll(filepath.Join(ws, "out", "vigiles.sarif", "x"), 0o755)
	}
	deps := actionDeps{test: run, audit: run, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	s.exitCode = exitCode(err, &s.stderr, true)
	if s.exitCode != 125 {
		t.Fatalf("exit %d, want 125\n%s", s.exitCode, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "sarif") {
		t.Errorf("stderr does not say the SARIF file was not written:\n%s", s.stderr.String())
	}
	n := 0
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name == "error" && c.Props["file"] == "plugins/guard/hooks/hooks.json" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d error annotations of findings, want 2:\n%s", n, s.stdout.String())
	}
	b, _ := os.ReadFile(s.env["GITHUB_STEP_SUMMARY"])
	if sum := string(b); !strings.Contains(sum, "host-1") || !strings.Contains(sum, "sarif") {
		t.Errorf("the job summary lacks the findings or why the step failed:\n%s", sum)
	}
	b, _ = os.ReadFile(s.env["GITHUB_OUTPUT"])
	if out := string(b); !strings.Contains(out, "verdict=error\n") || !strings.Contains(out, "report=/") {
		t.Errorf("outputs = %q, want verdict error and the report's path", out)
	}
}
