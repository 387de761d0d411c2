package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestSingleDashLongFlagNamesTwoDashes: a long flag given with one dash
// (-json, -dir, -quiet), which pflag reads as shorthands, is bad usage
// whose one line names the flag with two dashes.
func TestSingleDashLongFlagNamesTwoDashes(t *testing.T) {
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"run", "-json", "--", "true"}, "(did you mean --json? a long flag takes two dashes)"},
		{[]string{"run", "-workdir=.", "--", "true"}, "(did you mean --workdir? a long flag takes two dashes)"},
		{[]string{"test", "-dir", "."}, "(did you mean --dir? a long flag takes two dashes)"},
		// -q is a flag: pflag takes it and stops at the u.
		{[]string{"audit", "-quiet"}, "(did you mean --quiet? a long flag takes two dashes)"},
		{[]string{"merge", "-format", "text", "a.json"}, "(did you mean --format? a long flag takes two dashes)"},
		// Not a flag of test: the one that does what -json asks.
		{[]string{"test", "-json"}, "(did you mean --format json?)"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.hint) {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and one line with %q", code, out, errs, c.hint)
			}
		})
	}
}

// TestDurationWithoutUnitSaysTheUnit: a number of seconds given to a
// duration flag (--timeout 5, as a hook's own timeout is written) is bad
// usage whose one line shows it with a unit; a value with another
// mistake keeps pflag's message.
func TestDurationWithoutUnitSaysTheUnit(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--timeout", "5", "--", "true"}, "vigiles: run: --timeout 5: a duration needs its unit; want 5s (seconds) or 5m (minutes); see vigiles run --help\n"},
		{[]string{"run", "--linger=1.5", "--", "true"}, "vigiles: run: --linger 1.5: a duration needs its unit; want 1.5s (seconds) or 1.5m (minutes); see vigiles run --help\n"},
		{[]string{"run", "--timeout", "-1", "--", "true"}, `vigiles: run: invalid argument "-1" for "--timeout" flag: must be a duration like "30s" or "5m"; see vigiles run --help` + "\n"},
		{[]string{"run", "--timeout", "1e3", "--", "true"}, `vigiles: run: invalid argument "1e3" for "--timeout" flag: must be a duration like "30s" or "5m"; see vigiles run --help` + "\n"},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, c.want)
			}
		})
	}
}

// TestMergeOfNoSuchReportSaysWhatToName: a report that is not there (a
// typo, or a shell glob that matched no file and was passed on as it
// is) is bad usage whose one line says which, and what merge reads.
func TestMergeOfNoSuchReportSaysWhatToName(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, why string }{
		{"audit-1.json", "does not exist"},
		{"shard-*.json", "matches no file (the shell passed the pattern on as it is)"},
	} {
		p := filepath.Join(dir, c.file)
		code, out, errs := runCLI(t, "merge", p)
		want := fmt.Sprintf("vigiles: merge: report %q %s; name the JSON reports vigiles test or audit wrote with --shard i/n --format json --output FILE\n", p, c.why)
		if code != 2 || out != "" || errs != want {
			t.Errorf("merge %s: exit %d, stdout %q, stderr %q: want status 2 and %q", c.file, code, out, errs, want)
		}
	}
}

// TestJobsHelpSaysZeroAndTheBound: --jobs 0 is taken (one per core), and
// 1025 is not: the help of test and audit says both, as the message of a
// value out of range does.
func TestJobsHelpSaysZeroAndTheBound(t *testing.T) {
	for _, cmd := range []string{"test", "audit"} {
		_, out, _ := runCLI(t, cmd, "--help")
		if want := fmt.Sprintf("hooks run at once, at most %d (default, and 0: the number of CPU cores;", maxJobs); !strings.Contains(out, want) {
			t.Errorf("vigiles %s --help does not say %q:\n%s", cmd, want, out)
		}
	}
}

// TestReportNeverReplacesABaseline: -o naming .vigiles/baseline.json of a
// test (or of an audit that compares with nothing), or any file that is a
// vigiles baseline, is bad usage said before any hook runs: the report
// would replace the baseline the next audit reads. The file stays as it
// was.
func TestReportNeverReplacesABaseline(t *testing.T) {
	dir := t.TempDir()
	baseline := `{"schema": "vigiles.baseline/v2", "runs": []}` + "\n"
	def := filepath.Join(dir, runner.DefaultBaseline)
	other := filepath.Join(t.TempDir(), "accepted.json")
	for _, p := range []string{def, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(baseline), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--dir", dir, "-o", def}, fmt.Sprintf("vigiles: test: --output %q is the baseline vigiles audit reads by default, .vigiles/baseline.json: name a file of its own for the report, such as vigiles-report.json\n", def)},
		{[]string{"audit", "--dir", dir, "--baseline", "", "-o", def}, fmt.Sprintf("vigiles: audit: --output %q is the baseline vigiles audit reads by default, .vigiles/baseline.json: name a file of its own for the report, such as vigiles-report.json\n", def)},
		{[]string{"test", "--dir", dir, "-o", other}, fmt.Sprintf("vigiles: test: --output %q is a vigiles baseline, which the report would replace: name a file of its own for the report, such as vigiles-report.json\n", other)},
		{[]string{"audit", "--dir", dir, "-o", other}, fmt.Sprintf("vigiles: audit: --output %q is a vigiles baseline, which the report would replace: name a file of its own for the report, such as vigiles-report.json\n", other)},
		{[]string{"merge", "-o", other, "shard-1.json"}, fmt.Sprintf("vigiles: merge: --output %q is a vigiles baseline, which the report would replace: name a file of its own for the report, such as vigiles-report.json\n", other)},
	} {
		t.Run(strings.Join(c.args[:1], " "), func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q: want status 2 and %q", c.args, code, out, errs, c.want)
			}
		})
	}
	for _, p := range []string{def, other} {
		if got, err := os.ReadFile(p); err != nil || string(got) != baseline {
			t.Errorf("%s: %q, %v; want the baseline as it was", p, got, err)
		}
	}
}

// TestRunExitStatusOfASignal: a command --timeout ended exits 137, as
// vigiles run's help and result-format.md say (128+N of the SIGKILL), a
// command that cannot be run 126, and a command's own 2 is its own, told
// apart from bad usage by the document --json prints.
func TestRunExitStatusOfASignal(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	if want := "(128+N where signal N ended it: 137 when\n--timeout did; 127 when it was not found, 126 when it could not be run:\nnot executable, a directory)"; !strings.Contains(help, want) {
		t.Errorf("vigiles run --help does not say %q:\n%s", want, help)
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	dir := t.TempDir()
	code, out, errs := runCLI(t, "run", "--json", "--workdir", dir, "--timeout", "1s", "--", "sleep", "30")
	var doc struct {
		Tier     string `json:"tier"`
		ExitCode int    `json:"exitCode"`
		TimedOut bool   `json:"timedOut"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 137 || doc.ExitCode != 137 || !doc.TimedOut {
		t.Errorf("a run --timeout ended: exit %d, %+v (%v); want 137, timed out\n%s%s", code, doc, err, out, errs)
	}
	code, out, errs = runCLI(t, "run", "--json", "--workdir", dir, "--", "sh", "-c", "exit 2")
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 2 || doc.ExitCode != 2 || doc.Tier != "confined" {
		t.Errorf("a command's own exit 2: exit %d, %+v (%v); want 2 and a confined run's document\n%s%s", code, doc, err, out, errs)
	}
	// A directory for a command cannot be run: 126, as the help says.
	code, out, errs = runCLI(t, "run", "--json", "--workdir", dir, "--", "/usr")
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 126 || doc.ExitCode != 126 || doc.Tier != "confined" {
		t.Errorf("a directory run as the command: exit %d, %+v (%v); want 126 and a confined run's document\n%s%s", code, doc, err, out, errs)
	}
}

// TestActionHelpSaysEachDefault: every input action.yml gives a default
// is listed in vigiles action --help with that default, as the Inputs
// table of docs/github-action.md lists it (TestActionInputsAgree).
func TestActionHelpSaysEachDefault(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct{ Default string }
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	_, help, _ := runCLI(t, "action", "--help")
	// Each input's entry: from its name at the margin to the next one.
	entries := map[string]string{}
	name := ""
	for _, line := range strings.Split(help, "\n") {
		if m := regexp.MustCompile(`^  ([a-z][\w-]+)  +(.*)$`).FindStringSubmatch(line); m != nil {
			name = m[1]
			entries[name] = m[2]
			continue
		}
		if !strings.HasPrefix(line, "    ") {
			name = ""
		}
		if name != "" {
			entries[name] += " " + strings.TrimSpace(line)
		}
	}
	for n, in := range a.Inputs {
		if in.Default == "" || n == "runtime" || n == "image" {
			continue
		}
		if want := "(default " + in.Default; !strings.Contains(entries[n], want) {
			t.Errorf("vigiles action --help of input %s does not say %q (action.yml's default): %q", n, want, entries[n])
		}
	}
}

// TestClosedPipeReport: an audit whose stderr is a pipe its reader
// closed (vigiles audit -o report.json 2>&1 | head -1) runs its hooks and
// writes its report; one whose report is for a closed stdout cannot
// write it, and exits 125, as README.md says.
func TestClosedPipeReport(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ok"}]}]}}`})
	closed := func() *os.File {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		t.Cleanup(func() { w.Close() })
		return w
	}
	report := filepath.Join(t.TempDir(), "report.json")
	var out strings.Builder
	err := run(context.Background(), []string{"audit", "--dir", dir, "--baseline", "", "--format", "json", "-o", report},
		func(string) string { return "" }, strings.NewReader(""), &out, closed())
	if code := exitCode(err, io.Discard, false); code != 0 {
		t.Errorf("stderr closed, -o FILE: exit %d (%v), want 0", code, err)
	}
	if b, err := os.ReadFile(report); err != nil || !strings.Contains(string(b), `"verdict": "pass"`) {
		t.Errorf("stderr closed: the report was not written (%v): %.300q", err, b)
	}
	var errb strings.Builder
	err = run(context.Background(), []string{"audit", "--dir", dir, "--baseline", "", "-q"},
		func(string) string { return "" }, strings.NewReader(""), closed(), &errb)
	if code := exitCode(err, &errb, false); code != 125 {
		t.Errorf("stdout closed: exit %d (%v), want 125", code, err)
	}
}

// TestBoolFlagValueApart: a true|false flag given its value as the next
// argument (--json false), which pflag reads as the command, a PATH or
// an argument, is bad usage whose one line says to join it with =; the
// command true after -- still runs as one.
func TestBoolFlagValueApart(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--json", "false", "--", "./hook.sh"}, `vigiles: run: --json false: "false" was read as the command to run, not as the value of --json, which takes it after =: --json=false (or --json alone for true)` + "\n"},
		{[]string{"test", "--dir", dir, "-q", "true"}, `vigiles: test: -q true: "true" was read as an argument, which test takes none of, not as the value of --quiet, which takes it after =: --quiet=true (or --quiet alone for true)` + "\n"},
		{[]string{"audit", "--dir", dir, "--update-baseline", "true"}, `vigiles: audit: --update-baseline true: "true" was read as a PATH to audit, not as the value of --update-baseline, which takes it after =: --update-baseline=true (or --update-baseline alone for true)` + "\n"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q: want status 2 and %q", c.args, code, out, errs, c.want)
			}
		})
	}
	// A group of shorthands, or a negative number, before a stray true
	// is none of this: the usual message, no panic of pflag's lookup.
	for _, args := range [][]string{
		{"audit", "--dir", dir, "-qo", "true", "true"},
		{"test", "--dir", dir, "--max-runs", "-10", "true"},
	} {
		if code, _, errs := runCLI(t, args...); code != 2 || strings.Contains(errs, "takes it after =") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and no word of a true|false flag", args, code, errs)
		}
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	// The command true, after the -- that ends the flags.
	if code, _, errs := runCLI(t, "run", "--workdir", dir, "--json", "--", "true", "--", "x"); code != 0 {
		t.Errorf("run --json -- true -- x: exit %d, stderr %q; want the command run, 0", code, errs)
	}
}

// TestStdinRelativeToHere: --stdin is opened from the current directory,
// where the command runs in --workdir: a file not there but in --workdir
// is bad usage whose one line names it as --stdin takes it.
func TestStdinRelativeToHere(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sub/event.json": "{}\n"})
	t.Chdir(dir)
	code, out, errs := runCLI(t, "run", "--workdir", "sub", "--stdin", "event.json", "--", "cat")
	want := `vigiles: run: --stdin "event.json": no such file or directory; it is relative to the current directory, not to --workdir: give --stdin "sub/event.json"` + "\n"
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q: want status 2 and %q", code, out, errs, want)
	}
	_, help, _ := runCLI(t, "run", "--help")
	if want := "relative to the current directory, not to --workdir"; !strings.Contains(help, want) {
		t.Errorf("vigiles run --help does not say --stdin is %q", want)
	}
}

// TestHelpFlagBeforeTheCommand: vigiles --help run is the help of run,
// as vigiles help run is; -v, which many tools read as their version,
// says which command prints it.
func TestHelpFlagBeforeTheCommand(t *testing.T) {
	_, want, _ := runCLI(t, "help", "run")
	for _, h := range []string{"--help", "-h"} {
		if code, out, errs := runCLI(t, h, "run"); code != 0 || out != want || errs != "" {
			t.Errorf("vigiles %s run: exit %d, stderr %q, stdout not run's help:\n%s", h, code, errs, out)
		}
	}
	if code, _, errs := runCLI(t, "--help", "nosuch"); code != 2 || !strings.Contains(errs, `unknown command "nosuch"`) {
		t.Errorf("vigiles --help nosuch: exit %d, stderr %q; want 2 and the unknown command", code, errs)
	}
	want = "vigiles: unknown command \"-v\": vigiles version (or --version) prints the version\n"
	if code, out, errs := runCLI(t, "-v"); code != 2 || out != "" || errs != want {
		t.Errorf("vigiles -v: exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
}

// TestPipedStdinNeedsStdinDash: what is piped into vigiles run reaches
// the command with --stdin - alone, as its help shows by example; without
// it the command reads nothing.
func TestPipedStdinNeedsStdinDash(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	for _, want := range []string{
		"echo '{\"tool_name\":\"Bash\"}' | vigiles run --stdin - -- ./hooks/check.sh\n",
		"what is piped into vigiles reaches the command only with --stdin -",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("vigiles run --help does not say %q", want)
		}
	}
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	dir := t.TempDir()
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{nil, ""},
		{[]string{"--stdin", "-"}, `{"tool_name":"Bash"}`},
	} {
		var out, errb strings.Builder
		args := append(append([]string{"run", "--json", "--workdir", dir}, c.flags...), "--", "cat")
		err := run(context.Background(), args, func(string) string { return "" }, strings.NewReader(`{"tool_name":"Bash"}`), &out, &errb)
		var doc struct{ Stdout string }
		code := exitCode(err, io.Discard, false)
		if jerr := json.Unmarshal([]byte(out.String()), &doc); code != 0 || jerr != nil || doc.Stdout != c.want {
			t.Errorf("%q with a piped event: exit %d, %v, the command read %q; want 0 and %q\n%s", args, code, jerr, doc.Stdout, c.want, errb.String())
		}
	}
}

// TestCountLimitsHelpSaysTheirBounds: --limit-cpu says its most and
// --limit-open-files its least, as --limit-pids does, each the bound a
// value past it is refused for.
func TestCountLimitsHelpSaysTheirBounds(t *testing.T) {
	_, help, _ := runCLI(t, "run", "--help")
	for _, c := range []struct {
		flag, bound, past string
	}{
		{"limit-pids", fmt.Sprintf("at least %d", sandbox.MinPids), strconv.Itoa(sandbox.MinPids - 1)},
		{"limit-cpu", fmt.Sprintf("at most %d", sandbox.MaxCPUSeconds), strconv.Itoa(sandbox.MaxCPUSeconds + 1)},
		{"limit-open-files", fmt.Sprintf("at least %d", sandbox.MinOpenFiles), strconv.Itoa(sandbox.MinOpenFiles - 1)},
	} {
		line := regexp.MustCompile(`(?m)^      --` + c.flag + ` .*$`).FindString(help)
		if !strings.Contains(line, c.bound) {
			t.Errorf("vigiles run --help does not say --%s is %s: %q", c.flag, c.bound, line)
		}
		if code, _, errs := runCLI(t, "run", "--"+c.flag, c.past, "--", "true"); code != 2 || !strings.Contains(errs, "--"+c.flag+" "+c.past+":") {
			t.Errorf("--%s %s: exit %d, stderr %q; want 2, the flag and its value", c.flag, c.past, code, errs)
		}
	}
}

// TestPolicyOfTheOtherYAMLName: a policy written as .vigiles.yaml where
// .vigiles.yml is looked for (and the reverse) is named in the error, with
// the fix, by vigiles test and by the action alike.
func TestPolicyOfTheOtherYAMLName(t *testing.T) {
	dir := writeFiles(t, map[string]string{".vigiles.yaml": "checks: []\n"})
	code, _, errs := runCLI(t, "test", "--dir", dir)
	want := fmt.Sprintf(`vigiles: test: there is no policy file at %q (".vigiles.yaml" is beside it: name it with --config, or rename it .vigiles.yml); name another with --config`, filepath.Join(dir, ".vigiles.yml"))
	if code != 2 || !strings.HasPrefix(errs, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q…", code, errs, want)
	}
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": t.TempDir(), "INPUT_CHECK_RUN": "false"}
	var out, errb strings.Builder
	err := run(context.Background(), []string{"action"}, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, &errb, true); code != 2 || !strings.Contains(out.String(), `(".vigiles.yaml" is beside it: name it with the config input, or rename it .vigiles.yml)`) {
		t.Errorf("vigiles action: exit %d, stdout %q, stderr %q; want 2 and the other name", code, out.String(), errb.String())
	}
}

// TestTestReportWithoutChecks: a policy with no checks fails with its
// finding, and the text report keeps one blank line between its headline
// and the findings, as between any two of its parts.
func TestTestReportWithoutChecks(t *testing.T) {
	dir := writeFiles(t, map[string]string{".vigiles.yml": "version: 1\nchecks: []\n"})
	code, out, errs := runCLI(t, "test", "--dir", dir)
	if code != 1 || !strings.HasPrefix(out, "vigiles test: 0 check run(s), 0 failed") || !strings.Contains(out, "config/invalid") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and the policy's finding", code, out, errs)
	}
	if strings.Contains(out, "\n\n\n") {
		t.Errorf("two blank lines in a row:\n%s", out)
	}
}

// TestAuditRefusesToIgnoreVigilesYAML: an audit, which needs no policy,
// given none where .vigiles.yaml stands in for .vigiles.yml, is bad usage
// before any hook runs, from the CLI and the action alike: it would run
// with the built-in policy, the file's trust, egress and limits unread.
// Named with --config, the file is read.
func TestAuditRefusesToIgnoreVigilesYAML(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		".vigiles.yaml":         "defaults:\n  egress: recrod\n",
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "")
	want := fmt.Sprintf("vigiles: audit: there is no policy file at %q, so the audit would read none, though \".vigiles.yaml\" is beside it: name it with --config, or rename it .vigiles.yml\n", filepath.Join(dir, ".vigiles.yml"))
	if code != 2 || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, want)
	}
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": dir, "RUNNER_TEMP": t.TempDir(), "INPUT_CHECK_RUN": "false", "INPUT_COMMAND": "audit"}
	var aout, aerr strings.Builder
	err := run(context.Background(), []string{"action"}, func(k string) string { return env[k] }, strings.NewReader(""), &aout, &aerr)
	if code := exitCode(err, &aerr, true); code != 2 || !strings.Contains(aout.String(), `though ".vigiles.yaml" is beside it: name it with the config input, or rename it .vigiles.yml`) {
		t.Errorf("vigiles action: exit %d, stdout %q, stderr %q; want 2 and the other name", code, aout.String(), aerr.String())
	}
	// Named, it is read: its mistake is a finding of the audit's.
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	code, out, _ = runCLI(t, "audit", "--dir", dir, "--baseline", "", "--config", ".vigiles.yaml", "-q")
	if code != 1 || !strings.Contains(out, "config/invalid") {
		t.Errorf("--config .vigiles.yaml: exit %d, report %q; want 1 and its config/invalid finding", code, out)
	}
}

// TestAuditBelowTheRepositorySaysSo: an audit run inside a repository,
// not at its root, where it reads no policy and no baseline, says on its
// progress which directory above holds the .vigiles.yml and the --dir
// that audits it; -q silences it, and an audit at the root says nothing
// of it.
func TestAuditBelowTheRepositorySaysSo(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	root := writeFiles(t, map[string]string{
		".vigiles.yml":               "checks:\n  - name: x\n    command: \"true\"\n    expect: {exit-code: 0}\n",
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	t.Chdir(filepath.Join(root, "plugins"))
	want := `vigiles: there is no .vigiles.yml in ".", but ".." above it holds one꞉ this audit reads neither that policy nor its baseline; to audit that repository, give --dir ".." (and PATHs to narrow it)` + "\n"
	code, _, errs := runCLI(t, "audit")
	if first, _, _ := strings.Cut(errs, "\n"); code != 0 || first+"\n" != want {
		t.Errorf("audit in plugins/: exit %d, stderr %q; want 0 and first %q", code, errs, want)
	}
	if _, _, errs := runCLI(t, "audit", "-q"); errs != "" {
		t.Errorf("audit -q in plugins/: stderr %q, want none", errs)
	}
	if _, _, errs := runCLI(t, "audit", "--dir", ".."); strings.Contains(errs, "above it holds one") {
		t.Errorf("audit --dir ..: stderr %q names a policy above", errs)
	}
}

// TestAuditOfARepositoryInAPathSaysSo: an audit that reads no policy and
// no baseline, of a PATH that holds a .vigiles.yml of its own (vigiles
// audit examples, from the root of a vigiles checkout), says on its
// progress that it reads neither and the --dir that audits that
// repository with them (it passed in silence, the example's baseline
// unread); -q silences it, and --dir, or a policy of the work tree's own,
// leaves nothing to say.
func TestAuditOfARepositoryInAPathSaysSo(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	root := writeFiles(t, map[string]string{
		"tools/example/.vigiles.yml":               "checks:\n  - name: x\n    command: \"true\"\n    expect: {exit-code: 0}\n",
		"tools/example/plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	t.Chdir(root)
	want := `vigiles: there is no .vigiles.yml in ".", but "tools/example/", a PATH of this audit, holds one꞉ this audit reads neither that policy nor its baseline; to audit that repository, give --dir "tools/example"` + "\n"
	code, _, errs := runCLI(t, "audit", "tools/example/")
	if first, _, _ := strings.Cut(errs, "\n"); code != 0 || first+"\n" != want {
		t.Errorf("audit tools/example/: exit %d, stderr %q; want 0 and first %q", code, errs, want)
	}
	if _, _, errs := runCLI(t, "audit", "-q", "tools/example"); errs != "" {
		t.Errorf("audit -q tools/example: stderr %q, want none", errs)
	}
	// -q's help names it among the lines it silences.
	if _, out, _ := runCLI(t, "audit", "--help"); !strings.Contains(strings.Join(strings.Fields(out), " "), "no progress lines on stderr (an audit's policy and baseline unread where a directory above or a PATH holds a .vigiles.yml,") {
		t.Errorf("audit --help: -q does not name the line of a policy unread:\n%s", out)
	}
	if _, _, errs := runCLI(t, "audit", "--dir", "tools/example"); strings.Contains(errs, "a PATH of this audit") {
		t.Errorf("audit --dir tools/example: stderr %q names a policy in a PATH", errs)
	}
	if err := os.WriteFile(".vigiles.yml", []byte("version: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, errs := runCLI(t, "audit", "tools/example"); strings.Contains(errs, "a PATH of this audit") {
		t.Errorf("audit tools/example beside a policy of its own: stderr %q names the policy in the PATH", errs)
	}
}

// TestSingleDashOutputIsNoFileName: -output=r.json, which pflag reads as
// -o with the value utput=r.json, is bad usage said before anything is
// written, not a report in a file of that name.
func TestSingleDashOutputIsNoFileName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "-output=r.json"}, `vigiles: test: -output=r.json was read as -o with the value "utput=r.json", not as --output: a long flag takes two dashes; see vigiles test --help` + "\n"},
		{[]string{"audit", "-output", "r.json"}, `vigiles: audit: -output was read as -o with the value "utput", not as --output: a long flag takes two dashes; see vigiles audit --help` + "\n"},
		{[]string{"merge", "-output", "m.json", "a.json"}, `vigiles: merge: -output was read as -o with the value "utput", not as --output: a long flag takes two dashes; see vigiles merge --help` + "\n"},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != 2 || out != "" || errs != c.want {
				t.Errorf("%q: exit %d, stdout %q, stderr %q: want status 2 and %q", c.args, code, out, errs, c.want)
			}
		})
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("a file was made: %v", ents)
	}
}

// TestMergeOfOneWholeReportAsContainerMdShows: the merge lines of the
// GitLab job in docs/container.md, run on the one whole report its test
// line wrote, write that report again as SARIF and as text, and exit as
// its verdict says, as the doc says.
func TestMergeOfOneWholeReportAsContainerMdShows(t *testing.T) {
	doc, err := os.ReadFile("../../docs/container.md")
	if err != nil {
		t.Fatal(err)
	}
	var merges [][]string
	for _, m := range regexp.MustCompile(`(?m)^\s+- vigiles (merge [^|\n]*?)\s*\|\| true$`).FindAllStringSubmatch(string(doc), -1) {
		merges = append(merges, strings.Fields(m[1]))
	}
	if len(merges) != 2 {
		t.Fatalf("docs/container.md's GitLab job: %d merge lines, want 2 (SARIF and text)", len(merges))
	}
	dir := writeFiles(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo phone"}]}]}}`,
	})
	withExecutor(t, fixedHooks())
	t.Chdir(dir)
	for _, tc := range []struct {
		baseline string
		code     int
	}{
		{"", 0}, // the new host is a warning: pass
		{"missing.json", 1},
	} {
		os.Remove("vigiles-report.json")
		os.Remove("vigiles.sarif")
		if code, _, errs := runCLI(t, "audit", "--baseline", tc.baseline, "--format", "json", "--output", "vigiles-report.json", "-q"); code != tc.code {
			t.Fatalf("audit --baseline %q: exit %d, want %d: %s", tc.baseline, code, tc.code, errs)
		}
		for _, args := range merges {
			code, out, errs := runCLI(t, args...)
			if code != tc.code {
				t.Errorf("vigiles %s (baseline %q): exit %d, want the report's %d: %s", strings.Join(args, " "), tc.baseline, code, tc.code, errs)
			}
			switch {
			case slices.Contains(args, "sarif"):
				var log struct{ Version string }
				if b, err := os.ReadFile("vigiles.sarif"); err != nil || json.Unmarshal(b, &log) != nil || log.Version != "2.1.0" {
					t.Errorf("vigiles %s wrote no SARIF log: %v", strings.Join(args, " "), err)
				}
			case slices.Contains(args, "text"):
				if !strings.HasPrefix(out, "vigiles audit: 1 hook run(s)") {
					t.Errorf("vigiles %s printed no text report:\n%s", strings.Join(args, " "), out)
				}
			}
		}
	}
}

// TestReadmeOwnRepositorySteps: the commands README.md's "On your own
// repository" shows, run as shown in a repository with a project hook,
// with real sandboxes: doctor says this host confines, the first audit
// passes (with the default baseline missing, a notice), --update-baseline
// writes .vigiles/baseline.json, and an audit then passes against it, but
// fails (exit 1, baseline/host) once the hook tries a host, as the README
// says.
func TestReadmeOwnRepositorySteps(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	steps := readmeOwnRepositorySteps(t)
	want := [][]string{{"doctor"}, {"audit"}, {"audit", "--update-baseline"}}
	if !slices.EqualFunc(steps, want, slices.Equal) {
		t.Fatalf("README.md's On your own repository shows %q, want %q", steps, want)
	}
	settings := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	dir := writeFiles(t, map[string]string{".claude/settings.json": settings("echo quiet")})
	t.Chdir(dir)
	for _, s := range steps {
		args := s
		if s[0] == "audit" {
			args = append(slices.Clip(s), "-q") // the progress aside
		}
		if code, out, errs := runCLI(t, args...); code != 0 {
			t.Fatalf("vigiles %s: exit %d:\n%s%s", strings.Join(s, " "), code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, runner.DefaultBaseline)); err != nil {
		t.Fatalf("vigiles audit --update-baseline wrote no %s: %v", runner.DefaultBaseline, err)
	}
	if code, out, errs := runCLI(t, "audit", "-q"); code != 0 || !strings.Contains(out, "PASS") {
		t.Fatalf("audit against the baseline just written: exit %d:\n%s%s", code, out, errs)
	}
	// The hook now asks for a host (of the sandbox's DNS stub, which in
	// deny mode answers it and sends nothing on).
	if err := os.WriteFile(".claude/settings.json", []byte(settings("getent hosts phone.example.test || true")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := runCLI(t, "audit", "-q")
	if code != 1 || !strings.Contains(out, "baseline/host") || !strings.Contains(out, "phone.example.test") {
		t.Errorf("audit of a hook that now tries a host: exit %d, want 1 with baseline/host:\n%s%s", code, out, errs)
	}
}

// TestTestArgumentSaysWhatWasMeant: vigiles test takes no argument, and a
// newcomer who gives it one, as audit takes a PATH, is told which flag
// says what was meant: --dir for a directory or the directory of a policy
// file, --config for a policy file of another name, nothing for the
// repository here (it said only that checks are listed in .vigiles.yml).
func TestTestArgumentSaysWhatWasMeant(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"repo/.vigiles.yml":      "version: 1\n",
		"other/.vigiles.yaml":    "version: 1\n",
		"ci/strict.yml":          "version: 1\n",
		"here/.vigiles.yml":      "version: 1\n",
		"here/sub/placeholder.x": "",
	})
	t.Chdir(dir)
	const none = `test takes none (it runs the checks of the policy file, .vigiles.yml; --dir names the repository, --config another policy file)`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "repo"}, `unexpected argument "repo": test takes no PATH, unlike audit; to test the repository there, give --dir "repo"`},
		{[]string{"test", "repo/.vigiles.yml"}, `unexpected argument "repo/.vigiles.yml": test takes no file; to run the checks of the repository it is the policy of, give --dir "repo"`},
		{[]string{"test", "other/.vigiles.yaml"}, `unexpected argument "other/.vigiles.yaml": test takes no file; to run the checks of the repository it is the policy of, give --dir "other" --config ".vigiles.yaml"`},
		{[]string{"test", "ci/strict.yml"}, `unexpected argument "ci/strict.yml": test takes no file; to read the checks from it, give --config "ci/strict.yml" (relative to --dir, the repository)`},
		{[]string{"test", "."}, `unexpected argument ".": test takes no PATH, unlike audit, and tests the repository here without being told: leave the argument out`},
		{[]string{"test", "nonexistent"}, `unexpected argument "nonexistent": ` + none},
		// With --dir, an argument read from here is no path under it:
		// only the rule is said.
		{[]string{"test", "--dir", "here", "sub"}, `unexpected argument "sub": ` + none},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if want := "vigiles: test: " + tc.want + "\n"; code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errs, want)
		}
	}
	// Where --dir is in the current directory, the policy file here is
	// read without an argument.
	t.Chdir("here")
	if code, _, errs := runCLI(t, "test", ".vigiles.yml"); code != 2 || errs != `vigiles: test: unexpected argument ".vigiles.yml": test takes no file, and reads this one, the policy file here, without being told: leave the argument out`+"\n" {
		t.Errorf("test .vigiles.yml: exit %d, stderr %q", code, errs)
	}
}

// TestHelpShowsTheRepositoryElsewhere: test's and audit's help show, in
// their examples, how to check a repository that is not the current
// directory (--dir), which a newcomer at the root of a checkout that
// holds one (the bundled example) needs first, and which a PATH or an
// argument does not do.
func TestHelpShowsTheRepositoryElsewhere(t *testing.T) {
	for cmd, want := range map[string]string{
		"test":  "\n  vigiles test --dir examples                   # the repository in examples/, with its .vigiles.yml\n",
		"audit": "\n  vigiles audit --dir examples                  # the repository in examples/, with its policy and baseline\n",
	} {
		if _, out, _ := runCLI(t, cmd, "--help"); !strings.Contains(out, want) {
			t.Errorf("vigiles %s --help shows no --dir example %q:\n%s", cmd, want, out)
		}
	}
}

// readmeOwnRepositorySteps is the arguments of each vigiles command that
// README.md's "On your own repository" shows, in its order.
func readmeOwnRepositorySteps(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(b), "\n## On your own repository\n")
	_, block, _ := strings.Cut(sec, "```sh\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("README.md's On your own repository shows no commands")
	}
	return vigilesCommands(t, "README.md's On your own repository", block)
}

// vigilesCommands is the arguments of each line of block, a vigiles
// command and a # comment after it, as README.md and the help show them.
func vigilesCommands(t *testing.T, where, block string) [][]string {
	t.Helper()
	var steps [][]string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		l, _, _ = strings.Cut(l, "#")
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "vigiles" {
			t.Fatalf("%s: %q is no vigiles command", where, l)
		}
		steps = append(steps, f[1:])
	}
	return steps
}

// TestTopHelpStartsAsTheReadme: vigiles --help, the first thing a
// newcomer types, shows where to start, and it is the README's way in:
// the commands of "On your own repository", in its order (the help showed
// only the list of commands, and a newcomer had to guess which came
// first).
func TestTopHelpStartsAsTheReadme(t *testing.T) {
	code, out, _ := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("vigiles --help: exit %d", code)
	}
	_, block, ok := strings.Cut(out, "Start in the repository whose hooks you want to know:\n")
	block, _, _ = strings.Cut(block, "\nThen ")
	if !ok {
		t.Fatalf("vigiles --help says nowhere where to start:\n%s", out)
	}
	help := vigilesCommands(t, "vigiles --help", block)
	if readme := readmeOwnRepositorySteps(t); !slices.EqualFunc(help, readme, slices.Equal) {
		t.Errorf("vigiles --help starts with %q, README.md's On your own repository with %q", help, readme)
	}
	if !strings.Contains(out, "\nThen write down what each hook must do in .vigiles.yml and run vigiles test.\n") {
		t.Errorf("vigiles --help does not lead on to vigiles test:\n%s", out)
	}
}

// TestResultFormatEgressExampleIsWhatARunRecords: the egress entry
// docs/result-format.md shows is the one a real record-mode run records
// of curl https://api.example.test/ (the recording proxy answers it; no
// packet leaves the sandbox), field for field: no entry of the proxy's
// has an address beside the name it was asked for.
func TestResultFormatEgressExampleIsWhatARunRecords(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := exec.LookPath("curl"); err != nil {
		sandboxtest.Missing(t, "curl")
	}
	doc, err := os.ReadFile("../../docs/result-format.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(doc), "\n## `egress`\n")
	_, block, _ := strings.Cut(sec, "```json\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/result-format.md's egress section shows no entry")
	}
	var shown map[string]any
	if err := json.Unmarshal([]byte(block), &shown); err != nil {
		t.Fatalf("docs/result-format.md's egress entry: %v\n%s", err, block)
	}
	code, out, errs := runCLI(t, "run", "--json", "--egress", "record", "--", "curl", "-sS", "-m", "10", "https://api.example.test/")
	var res struct{ Egress []map[string]any }
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Egress) != 1 {
		t.Fatalf("vigiles run (exit %d): %v, egress %v:\n%s%s", code, err, res.Egress, out, errs)
	}
	if diff := cmp.Diff(res.Egress[0], shown); diff != "" {
		t.Errorf("docs/result-format.md's egress entry is not what the run recorded (-run +doc):\n%s", diff)
	}
}

// TestEgressExampleIsOneRecordRun: the egress list docs/egress.md opens
// with is what one record-mode run records of a name looked up, an
// address connected to past the proxy and a request through it, entry
// for entry; and such a run, which has no wall's drops to count (allow
// mode alone has egressDropped), shows none, so the example shows none
// either.
func TestEgressExampleIsOneRecordRun(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	for _, p := range []string{"curl", "getent"} {
		if _, err := exec.LookPath(p); err != nil {
			sandboxtest.Missing(t, p)
		}
	}
	doc, err := os.ReadFile("../../docs/egress.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(doc), "```json\n")
	block, _, ok := strings.Cut(block, "```")
	if !ok {
		t.Fatal("docs/egress.md shows no egress list")
	}
	var shown map[string]any
	if err := json.Unmarshal([]byte("{"+block+"}"), &shown); err != nil {
		t.Fatalf("docs/egress.md's first example: %v\n%s", err, block)
	}
	// The name asked of the DNS stub (A and AAAA), 203.0.113.7 asked past
	// the proxy (the wall refuses it: no route leaves the sandbox), and a
	// request the recording proxy answers.
	script := `getent hosts api.example.test; curl -sS -m 5 --noproxy '*' https://203.0.113.7/; curl -sS -m 5 http://api.example.test/v1/telemetry`
	code, out, errs := runCLI(t, "run", "--json", "--egress", "record", "--", "sh", "-c", script)
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("vigiles run (exit %d): %v:\n%s%s", code, err, out, errs)
	}
	got := map[string]any{}
	for k := range shown {
		got[k] = res[k]
	}
	if diff := cmp.Diff(got, shown); diff != "" {
		t.Errorf("docs/egress.md's first example is not what the run recorded (-run +doc):\n%s", diff)
	}
	if _, ok := res["egressDropped"]; ok {
		t.Errorf("a record-mode run has egressDropped: %v", res["egressDropped"])
	}
}

// TestUpdateBaselineCountsAsTheAuditDoes: the line --update-baseline
// ends with counts the hooks listed but not run (an http hook) apart, as
// the plan's line and the report's first line do, where it said "2
// run(s)" after "1 hook run(s) planned".
func TestUpdateBaselineCountsAsTheAuditDoes(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [
		{"type": "command", "command": "true"},
		{"type": "http", "url": "https://collector.example.test/stop"}]}]}}`})
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--update-baseline")
	if code != 0 {
		t.Fatalf("exit %d:\n%s%s", code, out, errs)
	}
	first, _, _ := strings.Cut(out, "\n")
	for _, want := range []string{"vigiles: 1 hook run(s) planned", "vigiles: wrote the baseline .vigiles/baseline.json (1 run(s), 1 listed but not run); review its diff before committing\n"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if want := "1 hook run(s), 1 listed but not run,"; !strings.Contains(first, want) {
		t.Errorf("the report's first line %q lacks %q", first, want)
	}
}

// TestConfigAndBaselineWrittenFromHere: a --config written from the
// current directory, where it is read relative to --dir, is bad usage
// that names the --config that reads the file it meant. The hint was to
// give the --dir already given ("there is one in …/sub, above it"). So is
// a --baseline that repeats --dir (--dir sub --baseline sub/…), which
// was compared with nothing (a baseline/missing error, once every hook
// had run, whose fix repeated the mistake), and which --update-baseline
// wrote anew at sub/sub/…, the baseline meant left as it was.
func TestConfigAndBaselineWrittenFromHere(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"sub/.vigiles.yml":           "checks:\n  - name: x\n    command: \"true\"\n    expect: {exit-code: 0}\n",
		"sub/deeper/notes.md":        "a directory below the policy's\n",
		"sub/.claude/settings.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"sub/.vigiles/baseline.json": `{"schema": "vigiles.baseline/v2", "runs": {}}`,
	})
	t.Chdir(dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--dir", "sub", "--config", "sub/.vigiles.yml"}, `vigiles: test: there is no policy file at "sub/sub/.vigiles.yml": --config is read relative to --dir "sub", not to the current directory, and the file it names from here is --config ".vigiles.yml"` + "\n"},
		{[]string{"audit", "--dir", "sub/deeper", "--config", "sub/.vigiles.yml"}, `vigiles: audit: there is no policy file at "sub/deeper/sub/.vigiles.yml": --config is read relative to --dir "sub/deeper", not to the current directory, and the file it names from here is --config "../.vigiles.yml"` + "\n"},
		{[]string{"audit", "--dir", "sub", "--baseline", "sub/.vigiles/baseline.json"}, `vigiles: audit: there is no baseline at "sub/sub/.vigiles/baseline.json": --baseline is read relative to --dir "sub", not to the current directory, and the file it names from here is --baseline ".vigiles/baseline.json"` + "\n"},
		{[]string{"audit", "--dir", "sub", "--baseline", "sub/.vigiles/baseline.json", "--update-baseline"}, `vigiles: audit: there is no baseline at "sub/sub/.vigiles/baseline.json": --baseline is read relative to --dir "sub", not to the current directory, and the file it names from here is --baseline ".vigiles/baseline.json"` + "\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
	if _, err := os.Lstat("sub/sub"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("sub/sub was made: %v", err)
	}
}
