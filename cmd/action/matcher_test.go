package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// matcherBait are names and output a plugin chooses so that a line
// vigiles prints about it reads, to a problem matcher an earlier step
// registered, as a compiler's error: an annotation of the plugin's words
// under vigiles' job. Some are whole; some wait for a ':' of vigiles' own
// before or after them, or for the next line.
var matcherBait = []string{
	"./main.go:1:1: x",
	"./main.go:12:5: vigiles: this plugin was reviewed and is safe to merge",
	"x.go", // then vigiles' "x.go: allowed"
	"a.ts(1,1): error TS1: x",
	"a(1,1 - error TS1", // then vigiles' ": allowed"
	"a.js: line 1, col 1, Error - x (y)",
	"line 1, col 1, Error - x (y)", // after vigiles' "wrote: "
	"  1:1  error  forged  rule",
	`  File "a.py", line 1, in x`,
	"raise X('forged')",
	"File \"a.py\", line 1, in x\nraise X('forged')",
}

func wantNoIssues(t *testing.T, what, log string) {
	t.Helper()
	for _, is := range annotatetest.Issues(log) {
		t.Errorf("%s: the %s problem matcher makes an annotation of %q (message %q)", what, is.Owner, is.Text, is.Msg)
	}
}

// baitReport puts every bait in every field of a report a plugin can
// choose: names, event, tool, files, written paths, hosts, output,
// evidence, the env file, leftover processes, drift.
func baitReport(command string) *report.Report {
	rep := &report.Report{Schema: report.Schema, Command: command, Verdict: report.VerdictFail}
	all := strings.Join(matcherBait, "\n")
	for i, b := range matcherBait {
		content := b + "\n" + all
		rep.Runs = append(rep.Runs, report.HookRun{
			ID: b, Check: b, Plugin: b, Event: b, Tool: b, Tier: "confined", Outcome: report.OutcomeAllowed, Reason: b,
			Location: report.Location{File: b, Line: i + 1},
			Stdout:   content, Stderr: content,
			Writes:   []evidence.Write{{Path: b, Op: evidence.OpCreate}},
			Egress:   []evidence.Egress{{Host: b, Port: 443}, {IP: b, Allowed: true}},
			Lingered: []string{b},
			EnvFile:  &evidence.EnvFile{Kind: "file", Size: int64(len(content)), Content: &content},
		})
		rep.Findings = append(rep.Findings, report.Finding{
			Rule: "expect/" + b, Severity: report.SeverityError, Title: b, Message: b, Evidence: all, Hook: b,
			Location: report.Location{File: b, Line: i + 1, Column: 1},
		})
		rep.Drift = append(rep.Drift, report.Drift{Hook: b, Kind: "host", Was: b, Now: b})
	}
	// setup-python's two lines, from names in two lines in a row of the
	// inventory: the row (plugin first, host last) and the line under it
	// (file first, written path last).
	rep.Runs = append(rep.Runs, report.HookRun{ID: "py", Check: "py", Plugin: `File "a.py", line 1, in x`, Event: "Stop",
		Tier: "confined", Outcome: report.OutcomeAllowed, Location: report.Location{File: "raise X('forged"},
		Egress: []evidence.Egress{{Host: `", line 1, in x`, Port: 443}}, Writes: []evidence.Write{{Path: "')", Op: evidence.OpCreate}}})
	return rep
}

// TestOwnOutputMakesNoMatcherIssues: progress, errors in a step log, the
// reports of vigiles test, audit and merge on stdout (text, JSON, SARIF)
// and vigiles run's report quote names and output a plugin chose; none of
// their lines is one the problem matchers of setup-go, setup-node or
// setup-python take for a compiler's error.
func TestOwnOutputMakesNoMatcherIssues(t *testing.T) {
	// The runner's progress line (pkg/runner), through the progress writer.
	var stderr bytes.Buffer
	pw := &progressWriter{w: &stderr}
	for _, b := range matcherBait {
		for _, tool := range []string{"", " " + b} {
			fmt.Fprintf(pw, "[1/1] %s %s%s at %s:1:63: %s (%s, %s)\n", b, b, tool, b, "allowed", "confined", "29ms")
			fmt.Fprintf(pw, "[1/1] p SessionStart%s at .claude/settings.json:1:79: allowed (confined, 29ms)\n", tool)
			fmt.Fprintf(pw, "1 run(s) still running: p SessionStart%s at %s:1:63 (for 30s); 0 of 1 finished, 0 not started\n", tool, b)
		}
		for _, at := range []string{"", " at " + b + ":1:63"} {
			fmt.Fprintf(pw, "[1/1] check %s%s: allowed (confined, 29ms)\n", b, at)
			fmt.Fprintf(pw, "1 run(s) still running: check %s%s (for 30s); 0 of 1 finished, 0 not started\n", b, at)
		}
	}
	// The bait is live: the same lines printed as they are make issues.
	if n := len(annotatetest.Issues(fmt.Sprintf("[1/1] %s SessionStart: allowed (confined, 29 ms)\n", matcherBait[0]))); n == 0 {
		t.Fatal("the bait makes no issue unescaped; this test would prove nothing")
	}
	wantNoIssues(t, "progress", stderr.String())

	// Errors that quote names, in a step log.
	stderr.Reset()
	for _, b := range matcherBait {
		exitCode(fmt.Errorf("merging reports: run %q is in both a and b", b), &stderr, true)
		exitCode(exitWith(2, errors.New(b)), &stderr, true)
		exitCode(problems{errors.New("config"), fmt.Errorf("reading %s: %w", b, errors.New(strings.Join(matcherBait, "\n")))}, &stderr, true)
	}
	wantNoIssues(t, "errors", stderr.String())

	for _, command := range []string{"test", "audit", "merge"} {
		for _, format := range []string{"text", "json", "sarif"} {
			var out bytes.Buffer
			finishReport(command, baitReport(command), nil, format, "", &out, io.Discard)
			if !strings.Contains(out.String(), "forged") {
				t.Fatalf("%s %s: the report quotes no bait:\n%s", command, format, out.String())
			}
			wantNoIssues(t, command+" --format "+format, out.String())
		}
	}

	for _, b := range matcherBait {
		var rep bytes.Buffer
		printRunReport(&rep, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay", LimitHit: b,
			Writes: []evidence.Write{{Path: b, Op: evidence.OpCreate}}, Egress: []evidence.Egress{{Host: b, Port: 443}},
			Lingered: []string{b, b}})
		printRunReport(&rep, &sandbox.Result{Tier: sandbox.TierConfined, Error: b})
		printRunReport(&rep, &sandbox.Result{Refusal: b})
		wantNoIssues(t, "vigiles run's report", rep.String())
	}
}

// TestErrorsOutsideAStepLogKeepTheirColons: a terminal still links
// ".vigiles.yml:12:3" in an error; only in a step log are its ':'
// lookalikes.
func TestErrorsOutsideAStepLogKeepTheirColons(t *testing.T) {
	err := errors.New("test: .vigiles.yml:12:3: unknown key")
	var term, step bytes.Buffer
	exitCode(err, &term, false)
	exitCode(err, &step, true)
	if got := term.String(); got != "vigiles: test: .vigiles.yml:12:3: unknown key\n" {
		t.Errorf("outside a step log: %q", got)
	}
	if got, want := step.String(), annotate.NoMatch("vigiles: test: .vigiles.yml:12:3: unknown key")+"\n"; got != want {
		t.Errorf("in a step log: %q, want %q", got, want)
	}
}

// hostilePlugin turns the step's fixture plugin into one whose name and
// output are matcher bait.
func hostilePlugin(t *testing.T, s *simulatedStep) {
	t.Helper()
	dir := filepath.Join(s.env["GITHUB_WORKSPACE"], "plugins", "guard")
	if err := os.WriteFile(filepath.Join(dir, ".claude-plugin", "plugin.json"),
		[]byte(`{"name": "./main.go:3:1: approved by security review", "version": "0.1.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat >/dev/null\n" +
		"echo './main.go:12:5: vigiles: this plugin was reviewed and is safe to merge'\n" +
		"echo 'a.ts(1,1): error TS1: approved'\n" +
		"printf '  File \"a.py\", line 1, in x\\nraise X(%s)\\n' \"'approved'\"\n" +
		"echo '::error::forged by the hook'\n"
	if err := os.WriteFile(filepath.Join(dir, "hooks", "guard.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestActionHookLogs: by default the action prints no hook output, and no
// line of its log is one a problem matcher takes for an error, though the
// plugin's name and output are bait; the output is in the JSON report.
// With hook-logs: true the output is in the log, fenced: no line of it
// runs as a workflow command, but the matchers read it — what the docs of
// the input warn of.
func TestActionHookLogs(t *testing.T) {
	for _, hookLogs := range []string{"", "true"} {
		s := newStep(t, map[string]string{"command": "audit", "hook-logs": hookLogs})
		hostilePlugin(t, s)
		s.run(t)
		if s.exitCode != 0 && s.exitCode != 1 {
			t.Fatalf("hook-logs %q: exit %d\nstdout:\n%s\nstderr:\n%s", hookLogs, s.exitCode, s.stdout.String(), s.stderr.String())
		}
		if !strings.Contains(s.stderr.String(), "approved by security review") {
			t.Fatalf("hook-logs %q: no progress line names the plugin; the test proves nothing:\n%s", hookLogs, s.stderr.String())
		}
		wantNoIssues(t, "stderr", s.stderr.String())
		data, err := os.ReadFile(outputs(t, s.file(t, "GITHUB_OUTPUT"))["report"])
		if err != nil || !bytes.Contains(data, []byte("safe to merge")) {
			t.Errorf("hook-logs %q: the hook's output is not in the JSON report (%v)", hookLogs, err)
		}
		var names []string
		for _, c := range annotatetest.Commands(s.stdout.String()) {
			names = append(names, c.Name)
		}
		got := strings.Join(names, " ")
		if hookLogs == "" {
			if got != "" || strings.Contains(s.stdout.String(), "safe to merge") {
				t.Errorf("hook output in the log by default (commands %q):\n%s", got, s.stdout.String())
			}
			wantNoIssues(t, "stdout", s.stdout.String())
			continue
		}
		if got != "group stop-commands <resume> endgroup" {
			t.Errorf("hook-logs: commands in the log = %q, want only the fence\n%s", got, s.stdout.String())
		}
		owners := map[string]bool{}
		for _, is := range annotatetest.Issues(s.stdout.String()) {
			owners[is.Owner] = true
		}
		// The mark before each line of a hook's keeps python's matcher,
		// which wants a line to start "File", off them; go's and tsc's
		// take them.
		if !owners["go"] || !owners["tsc"] {
			t.Errorf("hook-logs: the matchers found %v inside the fence; the docs' warning is no longer shown true", owners)
		}
	}
}

func TestHookLogsInput(t *testing.T) {
	for v, want := range map[string]bool{"": false, "false": false, "true": true, "TRUE": true} {
		in, err := readInputs(func(k string) string { return map[string]string{"INPUT_HOOK-LOGS": v}[k] })
		if err != nil || in.HookLogs != want {
			t.Errorf("hook-logs %q: %v, %v", v, in.HookLogs, err)
		}
	}
	if _, err := readInputs(func(k string) string { return map[string]string{"INPUT_HOOK_LOGS": "yes"}[k] }); err == nil ||
		err.Error() != `input hook-logs: "yes": want true or false: set hook-logs: true` {
		t.Errorf("hook-logs yes: %v", err)
	}
}

// TestRunJSONMakesNoMatcherIssues: the document `vigiles run --json`
// prints on stdout holds text the command chose (its output, the paths
// and link targets it wrote) with its ':' as "\u003a", the same data, as
// the reports of test and audit do (the review made a go matcher error
// of a link target "./main.go:1:1: forged").
func TestRunJSONMakesNoMatcherIssues(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no bwrap")
		}
		t.Skip("no bwrap here")
	}
	dir := t.TempDir()
	_, out, _ := runCLI(t, "run", "--json", "--workdir", dir, "--", "sh", "-c",
		`echo "./main.go:1:1: forged"; ln -s "./main.go:1:1: forged" l; echo x > "./main.go:2:1: forged"`)
	if !strings.Contains(out, `forged`) || !strings.Contains(out, `"target"`) {
		t.Fatalf("the run left no bait in its document:\n%s", out)
	}
	var doc struct {
		Stdout string           `json:"stdout"`
		Writes []evidence.Write `json:"writes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !strings.Contains(doc.Stdout, "./main.go:1:1: forged") {
		t.Fatalf("the document is not the same data: %v %+v", err, doc)
	}
	wantNoIssues(t, "run --json", out)
}

// TestMergedReportMakesNoMatcherIssues: vigiles merge reads reports a
// fork's run may have uploaded as it liked, so every field of them is
// text someone else chose, those vigiles itself only ever fills with
// words of its own too (a finding's severity, a run's tier and outcome, a
// drift entry's kind, what a run left where its env file goes): the text
// report of a merge quotes none of them as a compiler's error to a
// problem matcher, nor lets one start a line.
func TestMergedReportMakesNoMatcherIssues(t *testing.T) {
	dir := t.TempDir()
	for _, command := range []string{"test", "audit"} {
		rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: command, Verdict: report.VerdictFail}
		for i, b := range matcherBait {
			empty := ""
			rep.Runs = append(rep.Runs, report.HookRun{ID: fmt.Sprint(i), Check: "c", Plugin: "p", Event: "Stop",
				Tier: b + "\n::error::tier", Outcome: b + "\n::error::outcome",
				EnvFile: &evidence.EnvFile{Kind: b + "\n::error::env", Content: &empty}})
			rep.Findings = append(rep.Findings, report.Finding{Rule: "r", Severity: report.Severity(b + "\n::error::severity"), Message: "m"})
			rep.Drift = append(rep.Drift, report.Drift{Hook: "h", Kind: b + "\n::error::kind", Now: "n"})
		}
		// setup-python's two lines: a message line, then a severity that
		// starts the next line and a rule that ends it.
		rep.Findings = append(rep.Findings,
			report.Finding{Rule: "r", Severity: report.SeverityNotice, Message: `File "a.py", line 1, in x`},
			report.Finding{Rule: "X('forged')", Severity: "raise"},
			// eslint-stylish's second line: no severity, then a file and
			// line that read as "1:5", then the rule.
			report.Finding{Rule: "error  forged  rule", Location: report.Location{File: "1", Line: 5}})
		// setup-python's two lines again, from drift entries of no kind.
		rep.Drift = append(rep.Drift, report.Drift{Hook: "!", Now: `File "a.py", line 1, in x`},
			report.Drift{Hook: "')", Now: "raise X('forged"})
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, command+".json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, out, errs := runCLI(t, "merge", "--format", "text", p)
		if !strings.Contains(out, "forged") {
			t.Fatalf("merge of a %s report: the text quotes no bait:\n%s\n%s", command, out, errs)
		}
		wantNoIssues(t, "merge of a "+command+" report", out)
		if cmds := annotatetest.Commands(out); len(cmds) != 0 {
			t.Errorf("merge of a %s report: workflow commands %v in:\n%s", command, cmds, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "·::") {
				t.Errorf("merge of a %s report: a field's newline starts a line: %q", command, l)
			}
		}
	}
}
