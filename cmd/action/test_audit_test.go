package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// The sandbox re-executes this test binary as its init; the init sets up
// the egress wall only if the network layer is wired before MaybeInit runs
// (as main does). An init func runs before any TestMain.

// runCLI runs the vigiles entry point and returns its exit status and
// output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
	return exitCode(err, &errb, false), out.String(), errb.String()
}

// withExecutor swaps the hook executor for the test.
func withExecutor(t *testing.T, e interface {
	Run(context.Context, sandbox.Spec) (*sandbox.Result, error)
}) {
	t.Helper()
	old := testAuditExecutor
	testAuditExecutor = e
	t.Cleanup(func() { testAuditExecutor = old })
}

// writeFiles writes files (path: text) in a new temporary directory, and
// returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	writeFilesIn(t, dir, files)
	return dir
}

// writeFilesIn writes files (path: text) in dir, making their directories.
func writeFilesIn(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestTestAuditUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"test", "--help"}, 0, "Usage: vigiles test"},
		{[]string{"audit", "--help"}, 0, "--update-baseline"},
		// What the baseline keeps besides runs, and that an older one
		// fails, is said where a user looks for the baseline's flags.
		{[]string{"audit", "--help"}, 0, "one --baseline names that is missing is an error"},
		{[]string{"audit", "--help"}, 0, "(baseline/outdated) until --update-baseline rewrites it"},
		{[]string{"merge", "--help"}, 0, "Usage: vigiles merge"},
		{[]string{"merge", "--help"}, 0, "where FILE is a symbolic link, the file it leads to is replaced; a vigiles baseline is refused)"},
		{[]string{"test", "--help"}, 0, "symbolic link inside the work tree is refused"},
		// --egress (with --allow) replaces the policy's whole egress, as
		// runner.Options.Egress does, not its mode alone.
		{[]string{"test", "--help"}, 0, "in place of its whole defaults.egress (its hosts, address ranges, resolver and connector too)"},
		{[]string{"audit", "--help"}, 0, "in place of its whole defaults.egress (its hosts, address ranges, resolver and connector too)"},
		// Allow mode reaches what --allow and --allow-ip name.
		{[]string{"run", "--help"}, 0, "allow (only --allow hosts and --allow-ip addresses)"},
		// The three ways a check selects hooks, as check/no-hook names them.
		{[]string{"test", "--help"}, 0, "(by plugin name,\nhook id or declaring file)"},
		{[]string{"audit", "--help"}, 0, "symbolic link inside the work tree is refused"},
		{[]string{"test", "--format", "yaml"}, 2, "want text, json or sarif"},
		{[]string{"test", "--shard", "3/2"}, 2, "shard"},
		{[]string{"test", "--sandbox", "sometimes"}, 2, "want auto, strict or off"},
		{[]string{"test", "extra"}, 2, "unexpected argument"},
		{[]string{"test", "--no-such-flag"}, 2, "unknown flag"},
		{[]string{"audit", "--update-baseline", "--shard", "1/2"}, 2, "needs the whole audit"},
		{[]string{"audit", "--update-baseline", "--baseline", ""}, 2, `audit: --update-baseline needs a baseline file to write, and --baseline "" names none: leave --baseline out (default .vigiles/baseline.json) or name one, e.g. --baseline .vigiles/baseline.json`},
		{[]string{"merge"}, 2, "merge: no reports given; name the JSON reports vigiles test or audit wrote with --shard i/n --format json --output FILE, or one whole report to write again in another --format\n"},
		{[]string{"test", "--egress", "sometimes"}, 2, "want deny, record or allow"},
		{[]string{"audit", "--allow", "x.example.test"}, 2, "hosts and address ranges to allow need egress mode allow (egress is deny, the default); add --egress allow\n"},
		{[]string{"test", "--egress", "allow"}, 2, "egress mode allow needs at least one host (or address range) to allow; name it with --allow HOST[:PORT]\n"},
		{[]string{"audit", "--egress", "allow"}, 2, "egress mode allow needs at least one host (or address range) to allow; name it with --allow HOST[:PORT]\n"},
		{[]string{"merge", "/nonexistent/report.json"}, 2, `merge: report "/nonexistent/report.json" does not exist; name the JSON reports`},
		{[]string{"merge", "testdata"}, 2, `merge: report "testdata" is a directory, not a report file: name the report files in it ("testdata/*.json")`},
		{[]string{"test", "--dir", "/nonexistent/dir/for/vigiles"}, 2, `--dir "/nonexistent/dir/for/vigiles" does not exist`},
		{[]string{"audit", "--dir", "/nonexistent/dir/for/vigiles"}, 2, `--dir "/nonexistent/dir/for/vigiles" does not exist`},
		{[]string{"test", "--dir", "/etc/passwd"}, 2, `--dir "/etc/passwd" is not a directory`},
		{[]string{"audit", "--dir", ".", "/etc"}, 2, `audit: path "/etc" is outside the work tree`},
		{[]string{"audit", "--dir", ".", "../.."}, 2, `audit: path "../.." is outside the work tree`},
		{[]string{"audit", "--dir", ".", "nonexistent"}, 2, `audit: path "nonexistent" does not exist (a PATH is relative to --dir)`},
		{[]string{"audit", "--dir", ".", "test_audit.go"}, 2, `audit: path "test_audit.go" is not a directory: a PATH names a directory, whose hooks the audit runs; name the one that holds it, "."`},
		{[]string{"audit", "--dir", "../..", "examples/plugins/bash-guard/hooks/hooks.json"}, 2, `audit: path "examples/plugins/bash-guard/hooks/hooks.json" is not a directory: a PATH names a directory, whose hooks the audit runs; name the one that holds it, "examples/plugins/bash-guard/hooks"`},
		// An empty value, or one with a newline, is quoted: the message
		// stays on its line.
		{[]string{"test", "--dir", ""}, 2, `vigiles: test: --dir "": an empty path: leave --dir out, or give --dir ".", for the current directory`},
		{[]string{"test", "--dir", "a\nb"}, 2, `--dir "a\nb" does not exist`},
		{[]string{"test", "--config", "a\nb.yml"}, 2, `there is no policy file at "`},
		{[]string{"audit", "--dir", ".", "no\npath"}, 2, `audit: path "no\npath" does not exist`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(out+errs, tc.msg) {
				t.Errorf("exit %d (want %d), output does not say %q:\n%s%s", code, tc.code, tc.msg, out, errs)
			}
		})
	}
	// merge reads no work tree: its -o says nothing of one.
	if _, out, _ := runCLI(t, "merge", "--help"); strings.Contains(out, "work tree") {
		t.Errorf("merge --help speaks of a work tree, which merge has none of:\n%s", out)
	}
	// A missing policy file is a usage error with a clear message.
	dir := t.TempDir()
	code, _, errs := runCLI(t, "test", "--dir", dir)
	if code != 2 || !strings.Contains(errs, ".vigiles.yml") {
		t.Errorf("missing .vigiles.yml: exit %d: %s", code, errs)
	}
}

func TestSARIFFormatNeedsRenderer(t *testing.T) {
	dir := writeFiles(t, map[string]string{".vigiles.yml": "checks:\n  - name: quiet\n    command: \"true\"\n    event: Stop\n    trusted: true\n    expect: {exit-code: 0}\n"})
	withExecutor(t, runnertest.Direct{})
	old := renderSARIF
	defer func() { renderSARIF = old }()
	renderSARIF = nil
	code, _, errs := runCLI(t, "test", "--dir", dir, "--format", "sarif", "-q")
	if code != 125 || !strings.Contains(errs, "sarif output not available") {
		t.Errorf("exit %d: %s", code, errs)
	}
	renderSARIF = func(r *report.Report, w io.Writer) (annotate.SARIFStats, error) {
		_, err := io.WriteString(w, `{"version":"2.1.0"}`)
		return annotate.SARIFStats{}, err
	}
	out := filepath.Join(dir, "v.sarif")
	code, _, errs = runCLI(t, "test", "--dir", dir, "--format", "sarif", "--output", out, "-q")
	b, _ := os.ReadFile(out)
	if code != 0 || string(b) != `{"version":"2.1.0"}` {
		t.Errorf("exit %d, sarif %q: %s", code, b, errs)
	}
}

// fixedHooks answers every run the same way, with a fixed duration, so
// reports compare byte for byte.
func fixedHooks() *runnertest.Canned {
	return &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, DurationMs: 7, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if strings.Contains(spec.Command[len(spec.Command)-1], "phone") {
			res.Egress = []evidence.Egress{{Host: "telemetry.example.test", Port: 443, Via: evidence.ViaProxy, Attempts: 1}}
		}
		return res, nil
	}}
}

func TestAuditShardsAndMerge(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "echo phone"}]}],
 "Stop": [{"hooks": [{"type": "command", "command": "echo quiet"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	whole := filepath.Join(dir, "whole.json")
	code, _, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--format", "json", "--output", whole, "-q")
	if code != 0 {
		t.Fatalf("audit exit %d: %s", code, errs)
	}
	var parts []string
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, "shard-"+s[:1]+".json")
		if code, _, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--shard", s, "--format", "json", "--output", p, "-q"); code != 0 {
			t.Fatalf("shard %s exit %d: %s", s, code, errs)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	code, _, errs = runCLI(t, append([]string{"merge", "--output", merged}, parts...)...)
	if code != 0 {
		t.Fatalf("merge exit %d: %s", code, errs)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(merged)
	if diff := cmp.Diff(string(a), string(b)); diff != "" {
		t.Errorf("merged shards differ from the whole audit (-whole +merged):\n%s", diff)
	}
	var rep report.Report
	if err := json.Unmarshal(a, &rep); err != nil || rep.Schema != report.Schema || len(rep.Runs) != 9 {
		t.Errorf("report: %v, %d runs", err, len(rep.Runs))
	}
	// Merging a shard twice is refused.
	if code, _, _ := runCLI(t, "merge", parts[0], parts[0], parts[1], parts[2]); code != 2 {
		t.Errorf("merging a shard twice: exit %d", code)
	}
}

func TestAuditBaselineCycle(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo quiet"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	code, _, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline")
	// The progress's last line, as README.md shows it; -q silences it
	// with the rest.
	if code != 0 || !strings.HasSuffix(errs, "\nvigiles: wrote the baseline .vigiles/baseline.json (1 run(s)); review its diff before committing\n") {
		t.Fatalf("update: exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q"); code != 0 || errs != "" {
		t.Fatalf("update -q: exit %d, stderr %q", code, errs)
	}
	if code, out, _ := runCLI(t, "audit", "--dir", dir, "-q"); code != 0 || !strings.Contains(out, "PASS") {
		t.Fatalf("unchanged: exit %d:\n%s", code, out)
	}
	os.WriteFile(filepath.Join(dir, "hooks/hooks.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo phone"}]}]}}`), 0o644)
	code, out, _ := runCLI(t, "audit", "--dir", dir, "-q")
	if code != 1 || !strings.Contains(out, "telemetry.example.test") || !strings.Contains(out, "hooks/hooks.json:1:63") {
		t.Errorf("drift: exit %d:\n%s", code, out)
	}
}

// TestNamedBaselineMissingFails: --baseline naming a file that is not
// there (a typo, a baseline a change deleted) fails the audit with an
// error, where the default one missing is a notice: otherwise a new host
// passes unseen.
func TestNamedBaselineMissingFails(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo phone"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	if code, out, errs := runCLI(t, "audit", "--dir", dir, "-q"); code != 0 || !strings.Contains(out, "notice") {
		t.Errorf("default baseline missing: exit %d, want 0 with a notice:\n%s\n%s", code, out, errs)
	}
	code, out, errs := runCLI(t, "audit", "--dir", dir, "-q", "--baseline", ".vigiles/baseline.jsn")
	if code != 1 || !strings.Contains(out, "baseline/missing") || !strings.Contains(out, "check the path") {
		t.Errorf("named baseline missing: exit %d, want 1 with a baseline/missing error:\n%s\n%s", code, out, errs)
	}
}

func TestTextReportIsInert(t *testing.T) {
	hostile := "\x1b]0;pwned\x07\x1b[2J\rfake: PASS\u202e zero\u200bwidth\ufeffbom\u00adshy\u2028line"
	rep := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictFail,
		Runs: []report.HookRun{{ID: "h", Plugin: "p" + hostile, Event: "Stop", Tier: "confined", Outcome: "allowed",
			Egress: []evidence.Egress{{Host: "x.test" + hostile, Via: evidence.ViaDNS}}, Writes: []evidence.Write{{Path: "a" + hostile, Op: "create"}}}},
		Findings: []report.Finding{{Rule: "r", Severity: report.SeverityError, Location: report.Location{File: "f" + hostile, Line: 1}, Message: "m" + hostile}},
	}
	var b bytes.Buffer
	writeTextReport(&b, rep)
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\u200b", "\ufeff", "\u00ad", "\u2028"} {
		if strings.Contains(b.String(), bad) {
			t.Errorf("text report carries %q:\n%s", bad, b.String())
		}
	}
}

// TestTextReportFileIsInert: the text report written with --output is as
// inert as the one printed on stdout: a later step of the job may cat the
// file into its log, where a file a hook named "##[error]x" would be a
// command. JSON and SARIF keep their data exactly.
func TestTextReportFileIsInert(t *testing.T) {
	dir := t.TempDir()
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: "audit", Verdict: report.VerdictFail,
		Runs: []report.HookRun{{ID: "h", Plugin: "##[error]plugin", Event: "Stop", Tier: "confined", Outcome: "allowed",
			Writes: []evidence.Write{{Path: "##[error]write", Op: evidence.OpCreate}}}},
		Findings: []report.Finding{{Rule: "r", Severity: report.SeverityError, Message: "m ##[error]message"}},
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.json")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "json"} {
		out := filepath.Join(dir, "out."+format)
		if code, _, errs := runCLI(t, "merge", "--format", format, "-o", out, in); code != 1 {
			t.Fatalf("merge --format %s -o: exit %d, want 1 (an error finding): %s", format, code, errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		cmds := annotatetest.Commands(string(b))
		switch {
		case format == "text" && len(cmds) != 0:
			t.Errorf("the text report file holds workflow commands %v:\n%s", cmds, b)
		case format == "text" && !strings.Contains(string(b), "#·#[error]write"):
			t.Errorf("the text report file does not show the write:\n%s", b)
		case format == "json" && !strings.Contains(string(b), `"##[error]write"`):
			t.Errorf("the JSON report file does not keep the data as it is:\n%s", b)
		}
	}
}

// TestExampleThroughCLI runs `vigiles test` and `vigiles audit` on the
// bundled example with the real sandbox, as a newcomer would.
func TestExampleThroughCLI(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	ex := filepath.Join("..", "..", "examples")
	code, out, errs := runCLI(t, "test", "--dir", ex)
	if code != 1 {
		t.Fatalf("test: exit %d, want 1 (two promises are broken):\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{
		"ok   bash-guard denies curl piped into sh",
		"ok   bash-guard lets git status through",
		"FAIL session-journal writes only its journal",
		"create .git/hooks/post-commit, create ~/.bashrc",
		"FAIL usage-stats stays offline",
		".vigiles.yml:61:7  want no network attempts; the hook tried telemetry.usage-stats.example.test",
		".vigiles.yml:69:7",
		"ok   tidy-notes reminds about notes",
		"ok   bash-guard denies rm -rf",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("test output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, "[6/6]") {
		t.Errorf("no progress on stderr: %s", errs)
	}
	// The committed baseline is what the audit sees: it passes.
	code, out, errs = runCLI(t, "audit", "--dir", ex, "--format", "json", "-q")
	if code != 0 {
		t.Errorf("audit: exit %d, want 0 against the committed baseline: %s", code, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("audit finding %s at %s:%d: %s", f.Rule, f.Location.File, f.Location.Line, f.Message)
		}
	}
	hosts := map[string]bool{}
	for _, r := range rep.Runs {
		for _, e := range r.Egress {
			hosts[e.Host] = true
		}
	}
	if !hosts["telemetry.usage-stats.example.test"] || !hosts["updates.usage-stats.example.test"] {
		t.Errorf("the phone-home hosts were not recorded (the forked update check included): %v", hosts)
	}
}

// TestTestTextSaysWhatRan: a check whose run was refused or failed is not
// "ok"; the findings header counts what it lists; evidence of several
// lines is printed line by line, each line cleaned, not as a literal \n.
func TestTestTextSaysWhatRan(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictError,
		Runs: []report.HookRun{
			{ID: "check:a>h", Check: "a", Plugin: "p", Event: "Stop", Tier: "refused", Outcome: report.OutcomeError, Refusal: "no bubblewrap", Reason: "no bubblewrap"},
			{ID: "check:b>h", Check: "b", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeError, Reason: "the sandbox died"},
			{ID: "check:c>h", Check: "c", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed},
			{ID: "check:d>h", Check: "d", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed},
		},
		Findings: []report.Finding{
			{Rule: "run/refused", Severity: report.SeverityError, Hook: "check:a>h", Message: "check:a>h was not run: no bubblewrap"},
			{Rule: "run/failed", Severity: report.SeverityError, Hook: "check:b>h", Message: "check:b>h: the sandbox died"},
			{Rule: "expect/no-network", Severity: report.SeverityError, Hook: "check:d>h", Location: report.Location{File: ".vigiles.yml", Line: 9, Column: 7},
				Message: "want no network attempts", Evidence: "one.example.test via proxy CONNECT\n::error::two.example.test\x1b[2J via dns\n"},
			{Rule: "discovery/not-executable", Severity: report.SeverityNotice, Message: "http hook listed"},
		},
	}
	var b bytes.Buffer
	writeTextReport(&b, rep)
	out := b.String()
	for _, want := range []string{
		"vigiles test: 4 check run(s), 1 failed, 2 could not run — ERROR",
		"ERR  a\n", "ERR  b\n", "ok   c\n", "FAIL d\n",
		"         evidence\uA789 one.example.test via proxy CONNECT\n                 | \uA789\uA789error\uA789\uA789two.example.test\\u001b[2J via dns\n",
		"Other findings (2 error, 0 warning, 1 notice; the 1 failed expectation(s) are listed under their checks above):",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `\n`) || strings.Contains(out, "ok   a") {
		t.Errorf("a literal \\n, or a refused check shown as ok:\n%s", out)
	}
	// The evidence line that starts with "::" is made inert on stdout.
	var stdout bytes.Buffer
	finishReport("test", rep, nil, "text", "", &stdout, io.Discard)
	if cmds := annotatetest.Commands(stdout.String()); len(cmds) != 0 {
		t.Errorf("the text report issues workflow commands: %+v\n%s", cmds, stdout.String())
	}
}

// TestTestTextSaysWhyItFails: a test whose expectations all hold fails on
// an error finding of discovery or of the policy file all the same, and
// its headline says so, not only "0 failed — FAIL".
func TestTestTextSaysWhyItFails(t *testing.T) {
	runs := []report.HookRun{
		{ID: "check:a>h", Check: "a", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed},
		{ID: "check:b>h", Check: "b", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed},
	}
	malformed := report.Finding{Rule: "discovery/malformed", Severity: report.SeverityError, Location: report.Location{File: "hooks/hooks.json", Line: 3, Column: 5}, Message: "a handler lacks command"}
	expect := report.Finding{Rule: "expect/no-network", Severity: report.SeverityError, Hook: "check:b>h", Message: "want no network attempts"}
	warning := report.Finding{Rule: "run/env-file", Severity: report.SeverityWarning, Message: "left PATH"}
	for _, tc := range []struct {
		name     string
		verdict  string
		findings []report.Finding
		want     string
	}{
		{"an error finding only", report.VerdictFail, []report.Finding{malformed, warning}, "vigiles test: 2 check run(s), 0 failed — FAIL: 1 error finding(s), listed below\n"},
		{"a failed check and an error finding", report.VerdictFail, []report.Finding{malformed, expect}, "vigiles test: 2 check run(s), 1 failed — FAIL, and 1 other error finding(s), listed below\n"},
		{"a failed check only", report.VerdictFail, []report.Finding{expect, warning}, "vigiles test: 2 check run(s), 1 failed — FAIL\n"},
		{"a warning only", report.VerdictPass, []report.Finding{warning}, "vigiles test: 2 check run(s), 0 failed — PASS\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeTextReport(&b, &report.Report{Schema: report.Schema, Command: "test", Verdict: tc.verdict, Runs: runs, Findings: tc.findings})
			if !strings.HasPrefix(b.String(), tc.want) {
				t.Errorf("headline:\n%s\nwant it to start %q", b.String(), tc.want)
			}
		})
	}
	// The help says what the code does.
	code, out, _ := runCLI(t, "help", "test")
	if code != 0 || !strings.Contains(out, "1 an\nexpectation failed, or a finding of severity error") {
		t.Errorf("vigiles help test: exit %d, its exit status does not name error findings:\n%s", code, out)
	}
}

// TestAuditTextCountsWhatRan: the audit's headline counts the hooks it ran
// as its progress lines do, and names the declared hooks it only listed.
func TestAuditTextCountsWhatRan(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass,
		Runs: []report.HookRun{
			{ID: "a", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed},
			{ID: "b", Plugin: "q", Event: "Stop", Tier: "confined", Outcome: report.OutcomeBlocked},
			{ID: "c", Plugin: "q", Event: "Stop", Type: "http", Outcome: report.OutcomeNotExecutable},
		},
	}
	var b bytes.Buffer
	writeTextReport(&b, rep)
	if want := "vigiles audit: 2 hook run(s), 1 listed but not run, across 2 plugin(s) — PASS\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("headline:\n%s\nwant it to start %q", b.String(), want)
	}
	rep.Runs = rep.Runs[:2]
	b.Reset()
	writeTextReport(&b, rep)
	if want := "vigiles audit: 2 hook run(s) across 2 plugin(s) — PASS\n"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("headline:\n%s\nwant it to start %q", b.String(), want)
	}
}

// TestTextSaysWhyNothingRan: a plan of more runs than --max-runs runs
// none, and the headline says so, not "0 hook run(s) across 0
// plugin(s)" (a tree without hooks) or "0 check run(s), 0 failed".
func TestTextSaysWhyNothingRan(t *testing.T) {
	tooMany := report.Finding{Rule: runner.RuleTooManyRuns, Severity: report.SeverityError, Location: report.Location{File: "hooks/hooks.json"},
		Message: "the audit plans 8 hook runs, more than the 3 vigiles starts (--max-runs; the action's max-runs input), so none was run"}
	for _, tc := range []struct {
		command, shard string
		findings       []report.Finding
		want           string
	}{
		{"audit", "", []report.Finding{tooMany}, "vigiles audit: no hook was run: more runs were planned than --max-runs allows (plan/too-many-runs, below) — ERROR\n\nFindings (1 error,"},
		{"audit", "2/3", []report.Finding{tooMany}, "vigiles audit (shard 2/3): no hook was run: more runs were planned than --max-runs allows (plan/too-many-runs, below) — ERROR\n"},
		{"test", "", []report.Finding{tooMany}, "vigiles test: no hook was run: more runs were planned than --max-runs allows (plan/too-many-runs, below) — ERROR\n\nFindings (1 error,"},
		// A tree without hooks is told as before.
		{"audit", "", nil, "vigiles audit: 0 hook run(s) across 0 plugin(s) — ERROR\n\nNo hook was run.\n"},
	} {
		var b bytes.Buffer
		writeTextReport(&b, &report.Report{Schema: report.Schema, Command: tc.command, Shard: tc.shard, Verdict: report.VerdictError, Findings: tc.findings})
		if !strings.HasPrefix(b.String(), tc.want) {
			t.Errorf("%s %s:\n%s\nwant it to start %q", tc.command, tc.shard, b.String(), tc.want)
		}
	}
}

// TestAuditTextShowsTheEnvFile: the inventory shows an env file's first
// line, cleaned (an accepted one has no finding to point at), and counts
// the rest.
func TestAuditTextShowsTheEnvFile(t *testing.T) {
	one, two := "export PATH=\"$HOME/.x/bin:$PATH\"\n", "export A=1\n\x1b]0;t\x07::error::x\nexport C=3\n"
	for _, c := range []struct {
		content string
		want    string
	}{
		{one, "env file\uA789 33 byte(s) Claude Code runs before each Bash command\uA789 export PATH=\"$HOME/.x/bin\uA789$PATH\"\n"},
		{two, "env file\uA789 39 byte(s) Claude Code runs before each Bash command\uA789 export A=1 (+2 more line(s) in the JSON report)\n"},
	} {
		content := c.content
		rep := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass,
			Runs: []report.HookRun{{ID: "a", Plugin: "p", Event: "SessionStart", Tier: "confined", Outcome: report.OutcomeAllowed,
				EnvFile: &evidence.EnvFile{Path: "~/.claude/session-env/s/sessionstart-hook-0.sh", Kind: "file", Size: int64(len(content)), Content: &content}}},
		}
		var b bytes.Buffer
		writeTextReport(&b, rep)
		if !strings.Contains(b.String(), c.want) || strings.Contains(b.String(), "\x1b") {
			t.Errorf("inventory:\n%s\nwant it to hold %q", b.String(), c.want)
		}
	}
}

// TestMergeRefusesJunkAndNamesFiles: a report file holds one JSON
// document and nothing else, and a report that does not fit the others is
// named by its file, not by its position.
func TestMergeRefusesJunkAndNamesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, command, shard, tail string) string {
		b, err := json.Marshal(report.Report{Schema: report.Schema, Command: command, Shard: shard, Plan: "sha256:p", Verdict: report.VerdictPass,
			Runs: []report.HookRun{{ID: name, Plugin: "p", Event: "Stop", Outcome: "allowed"}}, Findings: []report.Finding{}})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, append(b, tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a1 := write("audit-1.json", "audit", "1/2", "\n")
	a2 := write("audit-2.json", "audit", "2/2", "")
	junk := write("junk.json", "audit", "2/2", "garbage")
	brace := write("brace.json", "audit", "2/2", "}")
	twice := write("again.json", "audit", "1/2", "")
	tst := write("test-2.json", "test", "2/2", "")
	if code, _, errs := runCLI(t, "merge", a1, a2); code != 0 {
		t.Fatalf("merging good shards: exit %d: %s", code, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{a1, junk}, "report \"" + junk + "\" has more after its JSON document (at line 1, column "},
		{[]string{a1, brace}, "report \"" + brace + "\" has more after its JSON document (at line 1, column "},
		{[]string{a1, tst}, tst + " is a report of vigiles test and " + a1 + " one of vigiles audit"},
		{[]string{a1, twice, a2}, a1 + " and " + twice + " are both shard 1/2"},
	} {
		code, _, errs := runCLI(t, append([]string{"merge"}, tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %q: exit %d (want 2), stderr does not say %q:\n%s", tc.args, code, tc.want, errs)
		}
	}
}

// TestUpdateBaselineNeedsTheWholeAudit: the baseline is written from what
// the audit ran, so an audit of some directories may not write it (it
// would drop every other hook); PATHs that name the work tree itself may.
// A PATH that is not there says it is taken relative to --dir.
func TestUpdateBaselineNeedsTheWholeAudit(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"plugins/a/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo quiet"}]}]}}`,
		"plugins/b/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo phone"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	baseline := filepath.Join(dir, ".vigiles", "baseline.json")
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q"); code != 0 {
		t.Fatalf("whole audit: exit %d: %s", code, errs)
	}
	want, _ := os.ReadFile(baseline)
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q", "plugins/a")
	if got, _ := os.ReadFile(baseline); code != 2 || out != "" || !strings.Contains(errs, "--update-baseline needs the whole audit") || string(got) != string(want) {
		t.Errorf("audit of one plugin with --update-baseline: exit %d, stdout %q, stderr %q, baseline changed: %v", code, out, errs, string(got) != string(want))
	}
	for _, whole := range []string{".", dir, "plugins/.."} {
		if code, _, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q", whole); code != 0 {
			t.Errorf("audit %s --update-baseline: exit %d: %s", whole, code, errs)
		}
	}
	code, _, errs = runCLI(t, "audit", "--dir", dir, "-q", filepath.Base(dir)+"/plugins")
	if code != 2 || !strings.Contains(errs, fmt.Sprintf("a PATH is relative to --dir %q", dir)) {
		t.Errorf("a PATH given relative to the current directory: exit %d, stderr %q", code, errs)
	}
}

// TestTextReportKeepsMessagesWhole: the text report shows vigiles' own
// messages whole, their fix at the end included (discovery/no-hooks says
// where it looked, then what to do), and still cuts a runaway one, in its
// middle, so that a name of thousands of characters near its start leaves
// the fix at its end (it was cut from its end).
func TestTextReportKeepsMessagesWhole(t *testing.T) {
	dir := t.TempDir()
	_, js, _ := runCLI(t, "audit", "--dir", dir, "--baseline", "", "-q", "--format", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(js), &rep); err != nil || len(rep.Findings) != 1 {
		t.Fatalf("audit of an empty tree: %v, findings %+v", err, rep.Findings)
	}
	code, out, _ := runCLI(t, "audit", "--dir", dir, "--baseline", "", "-q")
	// Its ':' are lookalikes in text (clean): a message can quote a hook.
	if msg := rep.Findings[0].Message; code != 1 || !strings.Contains(out, annotate.NoMatch(msg)) {
		t.Errorf("exit %d; the text report does not hold the whole message %q:\n%s", code, msg, out)
	}
	long := "the plugin " + strings.Repeat("x", 5000) + " does this; do that to fix it"
	var b bytes.Buffer
	writeTextReport(&b, &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictFail,
		Findings: []report.Finding{{Rule: "r", Severity: report.SeverityError, Message: long}}})
	var line string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, "the plugin x") {
			line = strings.TrimSpace(l)
		}
	}
	if n := utf8.RuneCountInString(line); n != maxMessageRunes || !strings.HasSuffix(line, "xxx does this; do that to fix it") || !strings.Contains(line, "x … (cut) … x") {
		t.Errorf("a %d-rune message is not cut in its middle to %d runes, its start and its fix kept: %d runes, %.80q … %q", len(long), maxMessageRunes, n, line, line[max(0, len(line)-80):])
	}
}

// TestCleanKeepsColumnsInLine: a name cut to a table's column is as wide
// as the column, its "…" counted: the audit table pads by runes, and a
// name one rune wider pushed every column after it out of line.
func TestCleanKeepsColumnsInLine(t *testing.T) {
	for _, s := range []string{"claude-permissions-hook", "éééééééééééééééééééééé", "exactly-eighteen-1", "evil\x1b[31mplugin-name-x", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj"} {
		got := clean(s, 18)
		if n := utf8.RuneCountInString(got); n > 18 || len([]rune(s)) <= 18 && !strings.ContainsAny(s, "\x1b\n") && got != s {
			t.Errorf("clean(%q, 18) = %q, %d runes; want at most 18, and a name that fits whole", s, got, n)
		}
	}
}

// TestTestAuditAllowSaysWhereAddressesGo: test and audit have no
// --allow-ip: an address (or an address range) given to --allow is told
// where addresses go (the policy file's defaults.egress.allow-ip), not to
// use a flag they do not have, and a CIDR is called an address range,
// not a URL. --allow without --egress names the mode in force, the
// policy's, not "deny".
func TestTestAuditAllowSaysWhereAddressesGo(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--egress", "allow", "--allow", "10.0.0.1"}, `test: --allow "10.0.0.1": an address, not a name, and --allow takes host names`},
		{[]string{"audit", "--egress", "allow", "--allow", "10.0.0.0/8"}, `audit: --allow "10.0.0.0/8": an address range, not a name, and --allow takes host names`},
		{[]string{"audit", "--allow", "[2001:db8::1]:443"}, `audit: --allow "[2001:db8::1]:443": an address, not a name`},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "defaults.egress.allow-ip in the policy file") ||
			strings.Contains(errs, "--allow-ip") {
			t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want %q and where addresses go", tc.args, code, out, errs, tc.want)
		}
	}
	// By name, it is refused as the sandbox's own (a name of it would
	// allow nothing), as vigiles run refuses it.
	// By address too: allow-ip, where addresses go, refuses it as well.
	for _, args := range [][]string{{"test", "--egress", "allow", "--allow", "localhost"}, {"audit", "--baseline", "", "--allow", "api.localhost:3000"}, {"test", "--egress", "allow", "--allow", "127.0.0.1"}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "loopback, which in the sandbox is its own, not the host's") || strings.Contains(errs, "allow-ip") {
			t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want the loopback refused", args, code, out, errs)
		}
	}
	withExecutor(t, fixedHooks())
	hook := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	for _, tc := range []struct{ policy, want string }{
		{"defaults:\n  egress: record\n", "hosts and address ranges to allow need egress mode allow (egress is record, from .vigiles.yml); add --egress allow\n"},
		{"defaults:\n  sandbox: strict\n", "hosts and address ranges to allow need egress mode allow (egress is deny, the default); add --egress allow\n"},
		{"defaults:\n  egress: {allow-ip: [192.0.2.0/24]}\n", "hosts to allow were given without an egress mode: they would replace the policy's whole egress (mode allow, from .vigiles.yml), " +
			"its address ranges among it, so the mode must be given with them; add --egress allow\n"},
	} {
		dir := writeFiles(t, map[string]string{".claude/settings.json": hook, ".vigiles.yml": tc.policy})
		code, out, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "-q", "--allow", "api.example.test")
		if code != 2 || out != "" || errs != "vigiles: audit: "+tc.want {
			t.Errorf("policy %q, --allow without --egress: exit %d (want 2), stdout %q, stderr %q; want %q", tc.policy, code, out, errs, tc.want)
		}
	}
}

// TestReportFilesNeedTheirDirectory: -o names a file in a directory that
// is there: a mistyped path is refused at once (exit 2), and no directory
// is made for it (as root, -o /nonexistent/dir/x.json made /nonexistent).
// A baseline given as a directory is bad usage too, as a directory given
// as --config is (it became a finding advising --update-baseline), and
// --update-baseline makes no directory for a baseline path given.
func TestReportFilesNeedTheirDirectory(t *testing.T) {
	withExecutor(t, fixedHooks())
	dir := writeFiles(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".vigiles.yml":          "checks:\n  - {name: quiet, command: \"true\", event: Stop, trusted: true, expect: {exit-code: 0}}\n",
	})
	missing := filepath.Join(dir, "no", "such", "dir")
	for _, args := range [][]string{
		{"test", "--dir", dir, "-q", "-o", filepath.Join(missing, "x.json")},
		{"audit", "--dir", dir, "-q", "--baseline", "", "--output", filepath.Join(missing, "x.json")},
		{"merge", "-o", filepath.Join(missing, "x.json"), filepath.Join(dir, "any.json")},
	} {
		code, out, errs := runCLI(t, args...)
		want := fmt.Sprintf("cannot be made: its directory %q does not exist", missing)
		if code != 2 || out != "" || !strings.Contains(errs, want) {
			t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want %q", args, code, out, errs, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Errorf("a directory was made for -o")
	}
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "-o", filepath.Join(dir, "report.json")); code != 0 {
		t.Errorf("-o in a directory that is there: exit %d: %s", code, errs)
	}

	for _, b := range []string{"/etc", ".claude", dir} {
		for _, extra := range [][]string{nil, {"--update-baseline"}} {
			args := append([]string{"audit", "--dir", dir, "-q", "--baseline", b}, extra...)
			code, out, errs := runCLI(t, args...)
			if want := fmt.Sprintf("audit: --baseline %q is a directory; want the baseline file", b); code != 2 || out != "" || !strings.Contains(errs, want) {
				t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want %q", args, code, out, errs, want)
			}
		}
	}
	// The default baseline a directory: said so, naming no flag the
	// caller did not give.
	if err := os.MkdirAll(filepath.Join(dir, ".vigiles", "baseline.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCLI(t, "audit", "--dir", dir, "-q"); code != 2 || out != "" || !strings.Contains(errs, "audit: the baseline .vigiles/baseline.json (the default; --baseline names another) is a directory") {
		t.Errorf("the default baseline a directory: exit %d (want 2), stdout %q, stderr %q", code, out, errs)
	}
	os.RemoveAll(filepath.Join(dir, ".vigiles"))
	// Outside the work tree vigiles makes no directory for the baseline;
	// inside it, it makes them (as the action's image test has it).
	outside := filepath.Join(t.TempDir(), "no", "baseline.json")
	code, _, errs := runCLI(t, "audit", "--dir", dir, "-q", "--update-baseline", "--baseline", outside)
	if _, err := os.Stat(filepath.Dir(outside)); code != 2 || err == nil || !strings.Contains(errs, fmt.Sprintf("--baseline %q cannot be made: its directory", outside)) {
		t.Errorf("--update-baseline into a missing directory outside the tree: exit %d (want 2), stderr %q, made it: %v", code, errs, err == nil)
	}
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "-q", "--update-baseline", "--baseline", "ci/new/baseline.json"); code != 0 {
		t.Errorf("--update-baseline into missing directories inside the tree: exit %d: %s", code, errs)
	} else if _, err := os.Stat(filepath.Join(dir, "ci", "new", "baseline.json")); err != nil {
		t.Errorf("--update-baseline into missing directories inside the tree: %v", err)
	}
	// The default's .vigiles is made on the first --update-baseline.
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "-q", "--update-baseline"); code != 0 {
		t.Errorf("first --update-baseline: exit %d: %s", code, errs)
	}
}

// TestBaselineFlagNeverOverwritesAnotherFile: --baseline naming the
// policy file (a slip for --config) is bad usage, with or without
// --update-baseline; --update-baseline over any other file that is no
// vigiles baseline (a file of the host's, another tool's JSON) is refused
// before a hook runs (exit 2), and the file stays; an audit that compares
// with such a file says it is no baseline and names the baseline to give,
// not the update that would overwrite it. A baseline, valid or not (a
// merge left its markers), is rewritten.
func TestBaselineFlagNeverOverwritesAnotherFile(t *testing.T) {
	withExecutor(t, fixedHooks())
	const policy = "checks:\n  - {name: quiet, command: \"true\", event: Stop, trusted: true, expect: {exit-code: 0}}\n"
	const damaged = "{\n<<<<<<< HEAD\n  \"schema\": \"vigiles.baseline/v2\",\n=======\n>>>>>>> main\n}\n"
	hostFile := filepath.Join(t.TempDir(), "hostname")
	if err := os.WriteFile(hostFile, []byte("build-host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		file string // the file --baseline names, relative to the tree
		code int
		want string // on stderr (code 2) or in the report
	}{
		{"the policy file", []string{"--baseline", ".vigiles.yml"}, ".vigiles.yml", 2,
			`audit: --baseline ".vigiles.yml" is the policy file, .vigiles.yml (--config names another): the baseline is the JSON file --update-baseline writes, such as .vigiles/baseline.json (the default)`},
		{"the policy file, updated", []string{"--baseline", "./.vigiles.yml", "--update-baseline"}, ".vigiles.yml", 2, `audit: --baseline "./.vigiles.yml" is the policy file, .vigiles.yml`},
		{"the policy file --config names", []string{"--config", "ci/policy.yml", "--baseline", "ci/policy.yml", "--update-baseline"}, "ci/policy.yml", 2,
			`audit: --baseline "ci/policy.yml" is the policy file --config "ci/policy.yml" names`},
		{"a host file, updated", []string{"--baseline", hostFile, "--update-baseline"}, hostFile, 2,
			fmt.Sprintf(`audit: --update-baseline would overwrite %q, which is not a vigiles baseline (it is not JSON): name the baseline file with --baseline (default .vigiles/baseline.json; one not there is made), or move that file away first`, hostFile)},
		{"another tool's JSON, updated", []string{"--baseline", "package.json", "--update-baseline"}, "package.json", 2,
			`audit: --update-baseline would overwrite "package.json", which is not a vigiles baseline (it is JSON without the "schema": "vigiles.baseline/v2" of a baseline)`},
		{"a host file, compared", []string{"--baseline", hostFile}, hostFile, 1,
			`not valid JSON: unexpected 'b': want a value; this is not a vigiles baseline (JSON with "schema": "vigiles.baseline/v2"), which --update-baseline will not overwrite: name the baseline file with --baseline`},
		{"a damaged baseline, updated", []string{"--baseline", "ci/baseline.json", "--update-baseline"}, "ci/baseline.json", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				".vigiles.yml":          policy,
				"ci/policy.yml":         policy,
				"package.json":          `{"name": "x", "version": "1.0.0"}`,
				"ci/baseline.json":      damaged,
			})
			file := tc.file
			if !filepath.IsAbs(file) {
				file = filepath.Join(dir, file)
			}
			before, _ := os.ReadFile(file)
			code, out, errs := runCLI(t, append([]string{"audit", "--dir", dir, "-q"}, tc.args...)...)
			out = strings.ReplaceAll(out, annotate.Colon, ":") // the text report's lookalikes
			if code != tc.code || !strings.Contains(out+errs, tc.want) {
				t.Errorf("exit %d (want %d), stdout %q, stderr %q; want %q", code, tc.code, out, errs, tc.want)
			}
			if strings.Contains(out+errs, "to rewrite it") {
				t.Errorf("advises rewriting a file that is no baseline: %s%s", out, errs)
			}
			after, _ := os.ReadFile(file)
			if tc.code == 0 {
				if _, err := runner.LoadBaseline(file); err != nil {
					t.Errorf("not rewritten: %v", err)
				}
			} else if !bytes.Equal(before, after) {
				t.Errorf("%s was written: %q", tc.file, after)
			}
		})
	}
}

// TestOutputNeverReplacesWhatTheRunReads: -o naming the policy file or
// the baseline an audit compares with (or writes: --update-baseline) is
// bad usage, before a hook runs, and the file stays as it was; the write
// of the report over it would succeed and leave a report where the next
// run reads its policy or its baseline.
func TestOutputNeverReplacesWhatTheRunReads(t *testing.T) {
	withExecutor(t, fixedHooks())
	const policy = "checks:\n  - {name: quiet, command: \"true\", event: Stop, trusted: true, expect: {exit-code: 0}}\n"
	for _, tc := range []struct {
		name string
		args []string // after the command, --dir and -q; OUT is the output's path
		file string   // the file that must stay, relative to the tree
		want string
	}{
		{"test over the policy file", []string{"test", "-o", "OUT/.vigiles.yml"}, ".vigiles.yml",
			`test: --output "OUT/.vigiles.yml" is the policy file, .vigiles.yml, where vigiles reads its policy: name a file of its own for the report`},
		{"test over the policy file --config names", []string{"test", "--config", "ci/policy.yml", "--format", "json", "-o", "OUT/ci/./policy.yml"}, "ci/policy.yml",
			`test: --output "OUT/ci/./policy.yml" is the policy file --config "ci/policy.yml" names`},
		{"audit over the policy file", []string{"audit", "--baseline", "", "-o", "OUT/.vigiles.yml"}, ".vigiles.yml",
			`audit: --output "OUT/.vigiles.yml" is the policy file, .vigiles.yml`},
		{"audit over the baseline", []string{"audit", "--format", "json", "-o", "OUT/.vigiles/baseline.json"}, ".vigiles/baseline.json",
			`audit: --output "OUT/.vigiles/baseline.json" is the baseline, .vigiles/baseline.json (the default; --baseline names another), where the audit reads its baseline and --update-baseline writes it`},
		{"audit over the baseline it writes", []string{"audit", "--update-baseline", "--baseline", "ci/baseline.json", "--format", "json", "-o", "OUT/ci/baseline.json"}, "ci/baseline.json",
			`audit: --output "OUT/ci/baseline.json" is the baseline --baseline "ci/baseline.json" names`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{
				".claude/settings.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				".vigiles.yml":           policy,
				"ci/policy.yml":          policy,
				".vigiles/baseline.json": `{"schema": "vigiles.baseline/v2", "runs": {}}`,
				"ci/baseline.json":       `{"schema": "vigiles.baseline/v2", "runs": {}}`,
			})
			args := []string{tc.args[0], "--dir", dir, "-q"}
			for _, a := range tc.args[1:] {
				args = append(args, strings.ReplaceAll(a, "OUT", dir))
			}
			before, _ := os.ReadFile(filepath.Join(dir, tc.file))
			code, out, errs := runCLI(t, args...)
			want := strings.ReplaceAll(tc.want, "OUT", dir)
			if code != 2 || !strings.Contains(errs, want) {
				t.Errorf("exit %d (want 2), stdout %q, stderr %q; want %q", code, out, errs, want)
			}
			if after, _ := os.ReadFile(filepath.Join(dir, tc.file)); !bytes.Equal(before, after) {
				t.Errorf("%s was written: %q", tc.file, after)
			}
		})
	}
}

// TestOutputIsRelativeToTheCurrentDirectory: -o FILE is taken from the
// current directory, as a shell's > is, not from --dir as --config and
// --baseline are; the help says so, since the flags beside it say the
// other. -o - is stdout (for merge too), as --stdin - is stdin.
func TestOutputIsRelativeToTheCurrentDirectory(t *testing.T) {
	withExecutor(t, fixedHooks())
	dir := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(1)})
	t.Chdir(t.TempDir())
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "--format", "json", "-o", "r.json"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat("r.json"); err != nil {
		t.Errorf("the report is not in the current directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.json")); err == nil {
		t.Errorf("the report was written under --dir")
	}
	// "-" is stdout, not a file of that name.
	code, out, errs := runCLI(t, "test", "--dir", dir, "-q", "--format", "json", "-o", "-")
	if _, err := os.Stat("-"); code != 0 || !json.Valid([]byte(out)) || err == nil {
		t.Errorf("-o -: exit %d (%s), stdout %.80q, a file named - made: %v; want the report on stdout", code, errs, out, err == nil)
	}
	if code, _, errs := runCLI(t, "merge", "-"); code != 2 || !strings.Contains(errs, `merge: "-": merge reads report files, not stdin`) {
		t.Errorf("merge -: exit %d, stderr %q; want 2, saying it reads files", code, errs)
	}
	code, out, errs = runCLI(t, "merge", "-o", "-", "r.json")
	if _, err := os.Stat("-"); code != 0 || !json.Valid([]byte(out)) || err == nil {
		t.Errorf("merge -o -: exit %d (%s), stdout %.80q, a file named - made: %v; want the report on stdout", code, errs, out, err == nil)
	}
	for _, cmd := range []string{"test", "audit"} {
		if _, out, _ := runCLI(t, cmd, "--help"); !strings.Contains(out, "write the report to FILE instead of stdout (\"-\": stdout; relative to the current directory, as --dir is, not to --dir)") {
			t.Errorf("vigiles %s --help does not say what -o is relative to:\n%s", cmd, out)
		}
	}
}

// TestReportThatCannotBeWrittenSaysSo: a report that cannot be written to
// stdout (a full disk) is status 125, and the message says what was being
// written where, not only the system's error.
func TestReportThatCannotBeWrittenSaysSo(t *testing.T) {
	withExecutor(t, fixedHooks())
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		missing(t, fmt.Sprintf("/dev/full, a file every write to fails (%v)", err))
	}
	defer full.Close()
	dir := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(1)})
	shard := filepath.Join(t.TempDir(), "r.json")
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "--format", "json", "-o", shard); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"test", "--dir", dir, "-q"}, {"audit", "--dir", dir, "-q", "--format", "json"}, {"merge", shard}} {
		var errb bytes.Buffer
		err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(""), full, &errb)
		want := args[0] + ": writing the report to stdout: write /dev/full: no space left on device"
		if code := exitCode(err, &errb, false); code != 125 || !strings.Contains(errb.String(), want) {
			t.Errorf("%q to /dev/full: exit %d, stderr %q; want 125 and %q", args, code, errb.String(), want)
		}
	}
}

// TestMissingPolicyNamesTheOneAbove: vigiles test run in a directory of
// the repository, not its root, finds no .vigiles.yml there; the error
// names the one above and the --dir that reads it.
func TestMissingPolicyNamesTheOneAbove(t *testing.T) {
	withExecutor(t, fixedHooks())
	root := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(1), "plugins/guard/hooks/hooks.json": `{"hooks": {}}`})
	sub := filepath.Join(root, "plugins", "guard")
	want := fmt.Sprintf(`there is no policy file at %q (there is one in %q, above it: give --dir %q for that repository)`, filepath.Join(sub, ".vigiles.yml"), root, root)
	code, _, errs := runCLI(t, "test", "--dir", sub, "-q")
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d (want 2), stderr %q; want %q", code, errs, want)
	}
	// A --config of another name is that file, wherever one is.
	code, _, errs = runCLI(t, "test", "--dir", sub, "-q", "--config", "ci.yml")
	if code != 2 || strings.Contains(errs, "above it") {
		t.Errorf("--config ci.yml: exit %d (want 2), stderr %q; want no policy above named", code, errs)
	}
	if code, _, errs := runCLI(t, "test", "--dir", root, "-q"); code != 0 {
		t.Errorf("--dir %s: exit %d: %s", root, code, errs)
	}
}

// manyChecks is a .vigiles.yml of n checks of trusted commands, whose
// report is some KiB of JSON.
func manyChecks(n int) string {
	var b strings.Builder
	b.WriteString("checks:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {name: check number %d with a long enough name, command: \"true %d\", event: Stop, trusted: true, expect: {exit-code: 0}}\n", i, i)
	}
	return b.String()
}

// TestReportFileStaysWholeWhenTheWriteFails: -o replaces the file it names
// through a new file beside it, so a report that cannot be written (here
// a full file system: a small tmpfs) leaves the one that was there whole,
// and no temporary file behind; the error says so. -o wrote the file in
// place: truncated, then cut where the file system filled.
func TestReportFileStaysWholeWhenTheWriteFails(t *testing.T) {
	if os.Geteuid() != 0 {
		missing(t, "root, to mount a tmpfs to fill")
	}
	withExecutor(t, fixedHooks())
	small := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(1)})
	large := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(40)})
	mnt := smallTmpfs(t)
	out := filepath.Join(mnt, "report.json")
	if code, _, errs := runCLI(t, "test", "--dir", small, "-q", "--format", "json", "-o", out); code != 0 {
		t.Fatalf("the first report: exit %d: %s", code, errs)
	}
	before, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fillUp(t, mnt)
	code, _, errs := runCLI(t, "test", "--dir", large, "-q", "--format", "json", "-o", out)
	if code != 125 || !strings.Contains(errs, "was not written (a file there is left as it was)") || !strings.Contains(errs, "no space left on device") {
		t.Errorf("a report that does not fit: exit %d (want 125), stderr %q", code, errs)
	}
	if after, err := os.ReadFile(out); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the report that was there is not whole (%v): %d bytes, was %d:\n%s", err, len(after), len(before), after)
	}
	if names, _ := os.ReadDir(mnt); len(names) != 2 {
		t.Errorf("files left in the directory: %v; want report.json and filler", names)
	}
	// With room, the same report replaces it.
	os.Remove(filepath.Join(mnt, "filler"))
	if code, _, errs := runCLI(t, "test", "--dir", large, "-q", "--format", "json", "-o", out); code != 0 {
		t.Fatalf("with room: exit %d: %s", code, errs)
	}
	if after, _ := os.ReadFile(out); len(after) <= len(before) || !json.Valid(after) {
		t.Errorf("with room, the report was not replaced (%d bytes)", len(after))
	}
}

// smallTmpfs mounts a tmpfs of 64 KiB on a new directory, for a test
// to fill (fillUp); root only.
func smallTmpfs(t *testing.T) string {
	t.Helper()
	mnt := t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0755"); err != nil {
		t.Fatalf("mounting a tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	return mnt
}

// fillUp fills the file system of dir with a file named filler in it,
// until a write fails with ENOSPC.
func fillUp(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	for err == nil {
		_, err = f.Write(make([]byte, 4096))
	}
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("filling the tmpfs: %v; want ENOSPC", err)
	}
}

// TestReportFileReplacesWhatItNames: -o through a symbolic link replaces
// the file the link leads to (the link stays), keeps that file's
// permission bits, makes a new file 0644 less the umask, writes a device
// (/dev/null) in place, as it was, and leaves no temporary file.
func TestReportFileReplacesWhatItNames(t *testing.T) {
	withExecutor(t, fixedHooks())
	dir := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(1)})
	out := t.TempDir()
	real := filepath.Join(out, "real.json")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(out, "link.json")
	if err := os.Symlink("real.json", link); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "--format", "json", "-o", link); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
	if fi, err := os.Stat(real); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file the link leads to: %v, %v; want mode 0600 kept", fi, err)
	}
	if b, _ := os.ReadFile(real); !json.Valid(b) {
		t.Errorf("the file the link leads to holds %q; want the report", b)
	}
	if names, _ := os.ReadDir(out); len(names) != 2 {
		t.Errorf("files in the directory: %v; want real.json and link.json", names)
	}
	// A new file: 0644 less the umask, as os.WriteFile made it.
	old := syscall.Umask(0o077)
	code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "-o", filepath.Join(out, "new.json"))
	syscall.Umask(old)
	if fi, err := os.Stat(filepath.Join(out, "new.json")); code != 0 || err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a new file under umask 077: exit %d (%s), %v, %v; want mode 0600", code, errs, fi, err)
	}
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "-o", os.DevNull); code != 0 {
		t.Fatalf("-o %s: exit %d: %s", os.DevNull, code, errs)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, fi, err)
	}
}

// TestMergeSaysWhatIsNoReport: a file that is not a vigiles report is
// called one, with the place where it stops being one; Go's bare JSON
// error ("invalid character 'r' looking for beginning of value") is not
// the message.
func TestMergeSaysWhatIsNoReport(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"root:x:0:0:root:/root:/bin/bash\n", "is not a vigiles report (the vigiles.report/v1 JSON document test and audit write with --format json): at line 1, column 1, invalid character 'r' looking for beginning of value"},
		{"{\n  \"schema\": \"vigiles.report/v1\",\n  \"runs\": x\n}\n", "at line 3, column 11, invalid character 'x'"},
		{"[]", "at line 1, column 1, a JSON array, where the report's object belongs"},
		{`{"schema":"vigiles.report/v1","runs":[{"durationMs":"7"}]}`, `at line 1, column 55, a JSON string where runs.durationMs belongs (a number)`},
		{`{"schema":"vigiles.report/v1","findings":5}`, `a JSON number where findings belongs (a list)`},
		{`{"schema":"vigiles.report/v1","tool":"x"}`, `a JSON string where tool belongs (an object)`},
		{"{}", `at line 1, column 1, a JSON object without the "schema": "vigiles.report/v1" of a report`},
		{" null\n", "at line 1, column 2, a JSON null, where the report's object belongs"},
		// The other documents vigiles writes, which a glob of reports may
		// match, are named as what they are, not by a field of the wrong
		// kind.
		{`{"schema": "vigiles.baseline/v2", "runs": {}}`, `a vigiles baseline ("vigiles.baseline/v2"), which audit reads with --baseline`},
		{`{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "vigiles"}}}]}`, `a SARIF log (--format sarif)`},
		{`{"version": "2.1.0", "runs": null}`, `a JSON object without the "schema": "vigiles.report/v1" of a report`},
		{`{"schema": "vigiles.run/v1", "tier": "confined"}`, `the result of vigiles run --json ("vigiles.run/v1")`},
		{`{"schema": "vigiles.doctor/v1", "probes": []}`, `the report of vigiles doctor --json ("vigiles.doctor/v1")`},
		{`{"schema": "vigiles.report/v2", "runs": [], "findings": []}`, `a JSON object whose "schema" is "vigiles.report/v2", not "vigiles.report/v1"`},
		{`{"schema":"vigiles.report/v1","command":"audit","findings":[]}`, `a JSON object without the "runs" list of a report ([] where there are none)`},
		{`{"schema":"vigiles.report/v1","command":"audit","runs":null,"findings":[]}`, `a JSON object without the "runs" list of a report`},
		{`{"schema":"vigiles.report/v1","command":"test","runs":[]}`, `a JSON object without the "findings" list of a report`},
		{`{"schema":"vigiles.rep`, "the file ends before its JSON document does"},
		{"", "the file ends before its JSON document does"},
	} {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := runCLI(t, "merge", p)
		if code != 2 || !strings.Contains(errs, fmt.Sprintf("merge: %q is not a vigiles report", p)) || !strings.Contains(errs, tc.want) || strings.Contains(errs, "json: ") {
			t.Errorf("%q: exit %d (want 2), stderr %q; want %q", tc.content, code, errs, tc.want)
		}
	}
}

// TestFlagValuesStayOnOneLine: a value a flag error quotes is quoted (%q):
// an empty one shows, and one with a newline cannot split the message.
func TestFlagValuesStayOnOneLine(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"test", "--dir", ""}, {"test", "--dir", "a\nb"}, {"audit", "--dir", "x\ny"}, {"test", "--dir", dir, "--config", "a\nb.yml"},
		{"audit", "--dir", dir, "no\npath"}, {"test", "--dir", dir, "-o", "x\n/y.json"}, {"run", "--workdir", "a\nb", "--", "true"},
		{"audit", "--dir", dir, "--baseline", "/b\n/x.json", "--update-baseline"},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.HasSuffix(errs, "\n") {
			t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want one line", args, code, out, errs)
		}
	}
}

// TestAuditHelpNamesEveryEnvFileEvent: the help names every event whose
// hooks get CLAUDE_ENV_FILE, from the runner's one list (it said only
// SessionStart).
func TestAuditHelpNamesEveryEnvFileEvent(t *testing.T) {
	_, out, _ := runCLI(t, "audit", "--help")
	flat := strings.Join(strings.Fields(out), " ")
	if !strings.Contains(flat, "in CLAUDE_ENV_FILE (which Claude Code gives a SessionStart, Setup, CwdChanged or FileChanged hook)") {
		t.Errorf("audit --help does not name every event given CLAUDE_ENV_FILE:\n%s", out)
	}
	for _, ev := range runner.EnvFileEvents() {
		if !strings.Contains(flat, ev) {
			t.Errorf("audit --help does not name %s", ev)
		}
	}
}

// TestAuditNamesPluginServers: `vigiles audit` shows the MCP and LSP
// servers a plugin declares, which Claude Code starts unsandboxed and
// vigiles does not run, in its text and JSON reports; text a plugin chose
// there cannot start a workflow command or a problem matcher's line, and
// the shards of an audit merge into the same findings.
func TestAuditNamesPluginServers(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo quiet"}]}]}}`,
		".claude-plugin/plugin.json": `{"name": "p", "lspServers": {"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}}`,
		".mcp.json":                  `{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/db", "args": ["::error file=x::pwned"]}}}`,
	})
	withExecutor(t, fixedHooks())
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "-q")
	if code != 0 {
		t.Fatalf("audit: exit %d: %s\n%s", code, errs, out)
	}
	for _, want := range []string{
		"discovery/mcp-server\n          plugin p declares the MCP server db, which Claude Code starts with every session and runs unsandboxed beside it\uA789 ./bin/db '\uA789\uA789error file=x\uA789\uA789pwned'",
		"discovery/lsp-server\n          plugin p declares the LSP server go, which Claude Code starts with the session, unsandboxed, for .go files\uA789 gopls",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the audit's text lacks %q:\n%s", want, out)
		}
	}
	if cmds := annotatetest.Commands(out); len(cmds) != 0 {
		t.Errorf("the text report issues workflow commands: %+v\n%s", cmds, out)
	}
	whole := filepath.Join(dir, "whole.json")
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--format", "json", "--output", whole, "-q"); code != 0 {
		t.Fatalf("audit: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(whole)
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	var rules []string
	for _, f := range rep.Findings {
		if f.Rule == runner.RuleMCPServer || f.Rule == runner.RuleLSPServer {
			rules = append(rules, fmt.Sprintf("%s %s:%d:%d", f.Rule, f.Location.File, f.Location.Line, f.Location.Column))
		}
	}
	// .mcp.json is named twice: as plugin p's, and as the project's,
	// which a session started in the work tree reads it as.
	if want := []string{"discovery/lsp-server .claude-plugin/plugin.json:1:30", "discovery/mcp-server .mcp.json:1:17", "discovery/mcp-server .mcp.json:1:17"}; !cmp.Equal(rules, want) {
		t.Errorf("JSON findings %q, want %q", rules, want)
	}
	var parts []string
	for _, s := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, "shard-"+s[:1]+".json")
		if code, _, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--shard", s, "--format", "json", "--output", p, "-q"); code != 0 {
			t.Fatalf("shard %s exit %d: %s", s, code, errs)
		}
		parts = append(parts, p)
	}
	merged := filepath.Join(dir, "merged.json")
	if code, _, errs := runCLI(t, append([]string{"merge", "--output", merged}, parts...)...); code != 0 {
		t.Fatalf("merge exit %d: %s", code, errs)
	}
	m, _ := os.ReadFile(merged)
	if diff := cmp.Diff(string(b), string(m)); diff != "" {
		t.Errorf("merged shards differ from the whole audit (-whole +merged):\n%s", diff)
	}
}

// TestTestTextShowsStreamEvidence: a failed stream expectation shows what
// the hook printed, even where that is a short text its message seems to
// hold ("ok" in "want stdout to match ^ok$").
func TestTestTextShowsStreamEvidence(t *testing.T) {
	rep := &report.Report{
		Runs: []report.HookRun{{ID: "h@Bash", Check: "c", Plugin: "p", Event: "PreToolUse", Outcome: report.OutcomeAllowed}},
		Findings: []report.Finding{{Rule: runner.RuleExpectPrefix + "stdout-matches", Severity: report.SeverityError, Hook: "h@Bash",
			Message: "want stdout to match ^ok$", Evidence: "ok"}},
	}
	var b strings.Builder
	writeTestText(&b, rep, "FAIL", "")
	if !strings.Contains(b.String(), "evidence") {
		t.Errorf("the stdout the hook printed is not shown:\n%s", b.String())
	}
}

// TestWritesTextMarksDirectories: the text report's "wrote" line marks a
// directory a run created, changed or deleted with a slash, so that a
// changed directory plugin is not read as a file named plugin.
func TestWritesTextMarksDirectories(t *testing.T) {
	r := report.HookRun{Writes: []evidence.Write{
		{Path: "plugin", Op: evidence.OpModify, Kind: "dir"},
		{Path: "plugin/state.json", Op: evidence.OpCreate, Kind: "file"},
		{Path: "old", Op: evidence.OpDelete, Was: "dir"},
	}}
	if got, want := writesText(r), "plugin/, plugin/state.json, deleted old/"; got != want {
		t.Errorf("writesText = %q, want %q", got, want)
	}
}

// TestWritesTextNamesRenames: a create that names the path it was renamed
// from shows it, quoted as a path is where it is odd.
func TestWritesTextNamesRenames(t *testing.T) {
	r := report.HookRun{Writes: []evidence.Write{
		{Path: "a", Op: evidence.OpDelete},
		{Path: "b", Op: evidence.OpCreate, Kind: "file", From: "a"},
		{Path: "c", Op: evidence.OpCreate, Kind: "file", From: "x\xff"},
	}}
	if got, want := writesText(r), `deleted a, b (from a), c (from "x\xff")`; got != want {
		t.Errorf("writesText = %s, want %s", got, want)
	}
}

// TestWritesTextTellsOddNamesApart: the audit's table shows names that
// differ only in bytes that are not UTF-8, or in U+FFFD, or that look
// escaped, each its own way, as evidence lines do.
func TestWritesTextTellsOddNamesApart(t *testing.T) {
	r := report.HookRun{Writes: []evidence.Write{
		{Path: "a\xff", Op: evidence.OpCreate, Kind: "file"},
		{Path: "a\xfe", Op: evidence.OpCreate, Kind: "dir"},
		{Path: "a\uFFFD", Op: evidence.OpDelete},
	}}
	if got, want := writesText(r), `"a\xff", "a\xfe"/, deleted "a\ufffd"`; got != want {
		t.Errorf("writesText = %s, want %s", got, want)
	}
	r.Writes = []evidence.Write{{Path: `a\xff`, Op: evidence.OpCreate}, {Path: `"a\xfe"`, Op: evidence.OpCreate}, {Path: `a\ufffd`, Op: evidence.OpDelete}}
	if got, want := writesText(r), `a\xff, "\"a\\xfe\"", deleted a\ufffd`; got != want {
		t.Errorf("writesText = %s, want %s", got, want)
	}
}

// TestRunTextKeepsTheCount: a run's writes, hosts and lingering
// processes too long for their line show as many whole ones as fit, the
// start of the next, and how many more there are, within the line's 160
// characters: the cut took the count, and a build cache's 415 writes read
// as two paths and an "…".
func TestRunTextKeepsTheCount(t *testing.T) {
	long := func(i int) string { return fmt.Sprintf(".cache/build/%02d/%040d-a", i, i) }
	var r report.HookRun
	for i := range 415 {
		r.Writes = append(r.Writes, evidence.Write{Path: long(i), Op: evidence.OpCreate, Kind: "file"})
	}
	for i := range 5 {
		r.Egress = append(r.Egress, evidence.Egress{Host: fmt.Sprintf("h%d.%s.example.test", i, strings.Repeat("x", 60)), Proto: "dns", Via: evidence.ViaDNS, Attempts: 1})
	}
	r.Lingered = []string{strings.Repeat("y", 200), "z"}
	procs := []string{"13 node " + strings.Repeat("a", 72), "20 npm exec prettier --write " + strings.Repeat("b", 61)}
	host := func(i int) string { return fmt.Sprintf("h%d.%s.example.test (blocked)", i, strings.Repeat("x", 60)) }
	for _, c := range []struct{ name, got, want string }{
		{"writes", writesText(r), long(0) + ", " + long(1) + ", " + long(2)[:28] + "…, +412 more"},
		{"hosts", hostsText(r), host(0) + ", " + host(1)[:62] + "…, +3 more"},
		{"first cut", listText(r.Lingered, len(r.Lingered), 160, false), strings.Repeat("y", 150) + "…, +1 more"},
		{"last cut", listText(procs, len(procs), 160, false), procs[0] + ", " + procs[1][:77] + "…"},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, c.got, c.want)
		}
		if n := utf8.RuneCountInString(c.got); n > 160 {
			t.Errorf("%s: %d characters, more than the line's 160: %q", c.name, n, c.got)
		}
	}
}

// TestHostsTextSaysLocalForLoopback: the text report's hosts of a run
// call an attempt at the sandbox's loopback local, with the port it
// tried (an IPv6 address bracketed), never blocked: no policy blocked it
// and none can allow it.
func TestHostsTextSaysLocalForLoopback(t *testing.T) {
	r := report.HookRun{Egress: []evidence.Egress{
		{IP: "127.0.0.1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback, Attempts: 1},
		{IP: "::1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback, Attempts: 1},
		{Host: "x.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1},
		{Host: "localhost", Port: 4000, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
	}}
	// Every ':' of text a run chose is a lookalike there (clean), as a
	// problem matcher would read it.
	want := "127.0.0.1꞉4000 (local, nothing answered), [꞉꞉1]꞉4000 (local, nothing answered), x.example.test (blocked), localhost꞉4000 (local, refused by the recording proxy)"
	if got := hostsText(r); got != want {
		t.Errorf("hostsText = %q, want %q", got, want)
	}
}

// TestSettingsPreloadReachesTheHookConfined: a loader variable the
// project's settings set reaches the hook in a real sandbox, as Claude
// Code passes it, and is read once, by the hook's own shell: the shell
// through which the sandbox sets the hook's limits starts without it.
func TestSettingsPreloadReachesTheHookConfined(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	const lib = "/nonexistent/vigiles-settings-preload.so"
	dir := writeFiles(t, map[string]string{
		".claude/settings.json": `{"env": {"LD_PRELOAD": "` + lib + `", "GLIBC_TUNABLES": "glibc.malloc.check=0"}}`,
		".vigiles.yml": "checks:\n  - name: preload\n    event: Stop\n    command: 'printf \"%s|%s\\n\" \"$LD_PRELOAD\" \"$GLIBC_TUNABLES\"'\n" +
			"    expect: {stdout-contains: \"" + lib + "|glibc.malloc.check=0\"}\n",
	})
	code, out, errs := runCLI(t, "test", "--dir", dir, "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("test: exit %d, want 0:\n%s\n%s", code, out, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Tier != "confined" {
		t.Fatalf("runs %+v, want one confined", rep.Runs)
	}
	if n := strings.Count(rep.Runs[0].Stderr, lib); n != 1 {
		t.Errorf("the loader named %s %d times, want once (the hook's shell, not the one that sets its limits); stderr:\n%s", lib, n, rep.Runs[0].Stderr)
	}
}

// TestTextDriftOfTheRestShowsIt: the write drift that stands for a run's
// new paths past those one audit names one by one has neither was nor
// now; its line must not read as a change of nothing.
func TestTextDriftOfTheRestShowsIt(t *testing.T) {
	var b strings.Builder
	writeTextReport(&b, &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictFail,
		Drift: []report.Drift{{Hook: "h", Kind: "write"}}})
	if !strings.Contains(b.String(), "write         "+report.DriftRest+"  h\n") {
		t.Errorf("the drift of the rest does not say what it is:\n%s", b.String())
	}
}

// TestUpdateBaselineNotWrittenSaysError audits, confined, with
// --update-baseline a hook that vigiles' own timeout (1s, sooner than
// Claude Code's) cuts short: the baseline is not written and vigiles
// exits 125, and the report says so too: the text's result line says
// ERROR and why, never PASS, and the JSON's verdict is error, though the
// run's finding is a warning.
func TestUpdateBaselineNotWrittenSaysError(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := writeFiles(t, map[string]string{
		".vigiles.yml":     "defaults:\n  timeout: 1s\n",
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 5"}]}]}}`,
	})
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q")
	if code != 125 || !strings.Contains(errs, "the baseline was not written") {
		t.Fatalf("update of a run cut short: exit %d, want 125 saying the baseline was not written:\n%s\n%s", code, out, errs)
	}
	// The error's colons are shown as the text report shows what it
	// quotes (clean).
	if strings.Contains(out, "PASS") || !strings.Contains(out, "\nResult: ERROR — audit꞉ the baseline was not written꞉ 1 run(s) were not recorded whole") ||
		!strings.Contains(out, "hooks/hooks.json#hooks.Stop[0].hooks[0] cut short.\n") {
		t.Errorf("the text report of an update that wrote no baseline:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".vigiles", "baseline.json")); !os.IsNotExist(err) {
		t.Errorf("a baseline was written: %v", err)
	}
	code, out, _ = runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q", "--format", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 125 || rep.Verdict != report.VerdictError {
		t.Errorf("the JSON report of an update that wrote no baseline: exit %d, verdict %q (%v), want 125 and error", code, rep.Verdict, err)
	}
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			t.Errorf("an error finding %s: the verdict is error for the baseline not written, not for a finding", f.Rule)
		}
	}
}

// TestMissingPolicyNamesTheDirFromHere: the --dir a missing policy's
// error tells a caller to give is written as the caller would type it,
// from the current directory, where the repository lies below it or
// above it ("examples", ".."), where it was the absolute path.
func TestMissingPolicyNamesTheDirFromHere(t *testing.T) {
	withExecutor(t, fixedHooks())
	root := writeFiles(t, map[string]string{"examples/.vigiles.yml": manyChecks(1), "examples/plugins/guard/hooks/hooks.json": `{"hooks": {}}`})
	t.Chdir(root)
	want := fmt.Sprintf(`there is no policy file at %q (there is one below it, in "examples": give --dir "examples");`, filepath.Join(root, ".vigiles.yml"))
	if code, _, errs := runCLI(t, "test", "-q"); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("test at the root: exit %d (want 2), stderr %q; want %q", code, errs, want)
	}
	t.Chdir(filepath.Join("examples", "plugins", "guard"))
	want = fmt.Sprintf(`there is no policy file at %q (there is one in "../..", above it: give --dir "../.." for that repository);`, filepath.Join(root, "examples", "plugins", "guard", ".vigiles.yml"))
	if code, _, errs := runCLI(t, "test", "-q"); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("test in examples/plugins/guard: exit %d (want 2), stderr %q; want %q", code, errs, want)
	}
}

// TestMissingPolicyNamesTheOnesBelow: vigiles test run at a repository's
// root whose policy file is in a directory of it (examples/.vigiles.yml)
// names that directory and the --dir that reads it, as the action names
// the working-directory; several are listed.
func TestMissingPolicyNamesTheOnesBelow(t *testing.T) {
	withExecutor(t, fixedHooks())
	root := writeFiles(t, map[string]string{"examples/.vigiles.yml": manyChecks(1)})
	ex := filepath.Join(root, "examples")
	want := fmt.Sprintf(`there is no policy file at %q (there is one below it, in %q: give --dir %q)`, filepath.Join(root, ".vigiles.yml"), ex, ex)
	code, _, errs := runCLI(t, "test", "--dir", root, "-q")
	if code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d (want 2), stderr %q; want %q", code, errs, want)
	}
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tools", ".vigiles.yml"), []byte(manyChecks(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	want = fmt.Sprintf(`(there are some below it, in %s, %s: give --dir for the one to check)`, ex, filepath.Join(root, "tools"))
	if code, _, errs = runCLI(t, "test", "--dir", root, "-q"); code != 2 || !strings.Contains(errs, want) {
		t.Errorf("exit %d (want 2), stderr %q; want %q", code, errs, want)
	}
}
