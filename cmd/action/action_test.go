package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

const (
	prHeadSHA  = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00"
	prMergeSHA = "3333333333333333333333333333333333333333"
	testToken  = "ghs_e2e_secret_token_value"
)

// prPayload is a pull_request event as the runner writes it to
// GITHUB_EVENT_PATH (trimmed to the fields around head and base).
const prPayload = `{
  "action": "opened",
  "number": 7,
  "pull_request": {
    "number": 7,
    "state": "open",
    "head": {"ref": "feature", "sha": "` + prHeadSHA + `", "repo": {"full_name": "fork/plugins", "fork": true}},
    "base": {"ref": "main", "sha": "1111111111111111111111111111111111111111", "repo": {"full_name": "octo/plugins"}},
    "merge_commit_sha": "` + prMergeSHA + `"
  },
  "repository": {"full_name": "octo/plugins"}
}`

// newGitHubAPI is a fake GitHub (GHES-style, under /api/v3/) that
// answers every request it does not refuse as check run 7.
func newGitHubAPI() *annotatetest.GitHubAPI {
	return &annotatetest.GitHubAPI{Answer: func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		}
		fmt.Fprint(w, `{"id":7,"html_url":"https://ghes.example/octo/plugins/runs/7"}`)
	}}
}

// recordingExecutor runs hooks through runnertest.Direct and keeps every
// spec it was given.
type recordingExecutor struct {
	mu    sync.Mutex
	specs []sandbox.Spec
}

func (e *recordingExecutor) Run(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
	e.mu.Lock()
	e.specs = append(e.specs, spec)
	e.mu.Unlock()
	return runnertest.Direct{Record: true}.Run(ctx, spec)
}

// simulatedStep is a GitHub Actions step around the action: a workspace,
// the event file, the file-command files and a GitHub API.
type simulatedStep struct {
	env      map[string]string
	api      *annotatetest.GitHubAPI
	srv      *httptest.Server
	exec     *recordingExecutor
	stdout   bytes.Buffer
	stderr   bytes.Buffer
	exitCode int
}

// fixtureRepo is the repository the action runs on: examples/ once it
// holds a .vigiles.yml, otherwise this package's fixture.
func fixtureRepo(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("../../examples/.vigiles.yml"); err == nil && os.Getenv("VIGILES_E2E_EXAMPLES") == "1" {
		return "../../examples"
	}
	return "testdata/repo"
}

func newStep(t *testing.T, inputs map[string]string) *simulatedStep {
	t.Helper()
	s := &simulatedStep{api: newGitHubAPI(), exec: &recordingExecutor{}}
	s.srv = httptest.NewServer(s.api)
	t.Cleanup(s.srv.Close)

	tmp := t.TempDir()
	ws := filepath.Join(tmp, "work", "plugins")
	if err := os.CopyFS(ws, os.DirFS(fixtureRepo(t))); err != nil {
		t.Fatal(err)
	}
	runnerTemp := filepath.Join(tmp, "_temp")
	for _, d := range []string{"_github_workflow", "_runner_file_commands"} {
		if err := os.MkdirAll(filepath.Join(runnerTemp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	event := filepath.Join(runnerTemp, "_github_workflow", "event.json")
	if err := os.WriteFile(event, []byte(prPayload), 0o644); err != nil {
		t.Fatal(err)
	}
	s.env = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    ws,
		"RUNNER_TEMP":         runnerTemp,
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"GITHUB_SHA":          prMergeSHA,
		"GITHUB_REPOSITORY":   "octo/plugins",
		"GITHUB_SERVER_URL":   "https://ghes.example",
		"GITHUB_API_URL":      s.srv.URL + "/api/v3",
		"GITHUB_JOB":          "vigiles",
		"GITHUB_STEP_SUMMARY": filepath.Join(runnerTemp, "_runner_file_commands", "step_summary_1"),
		"GITHUB_OUTPUT":       filepath.Join(runnerTemp, "_runner_file_commands", "set_output_1"),
	}
	for k, v := range inputs {
		s.env["INPUT_"+strings.ToUpper(k)] = v
	}
	return s
}

func (s *simulatedStep) run(t *testing.T) {
	t.Helper()
	s.checkout(t)
	getenv := func(k string) string {
		if v, ok := s.env[k]; ok {
			return v
		}
		return os.Getenv(k) // the token comes from the real environment
	}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: s.exec, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps)
	s.exitCode = exitCode(err, &s.stderr, true) // the action runs in a step log
}

// checkout makes the step's workspace what actions/checkout leaves on a
// pull_request event, a git work tree, and the pull request's base (the
// payload's pull_request.base.sha) its commit of the files as they are,
// with the workflow file GITHUB_WORKFLOW_REF names (unless set): the
// change weakens nothing of its base's policy, baseline or workflow,
// which the action compares it with (policybase.go). A workspace left empty, or
// one that is a checkout already, is left as it is.
func (s *simulatedStep) checkout(t *testing.T) {
	t.Helper()
	ws := s.env["GITHUB_WORKSPACE"]
	if es, err := os.ReadDir(ws); err != nil || len(es) == 0 || s.env["GITHUB_EVENT_NAME"] != "pull_request" {
		return
	}
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
		return
	}
	// The workflow the step runs in, as GitHub names it, in the base
	// as in the change: compared, it weakens nothing.
	if _, ok := s.env["GITHUB_WORKFLOW_REF"]; !ok {
		writeFilesIn(t, ws, map[string]string{".github/workflows/vigiles.yml": "on: pull_request\njobs:\n  vigiles:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: vigiles/action@v1\n"})
		s.env["GITHUB_WORKFLOW_REF"] = "octo/plugins/.github/workflows/vigiles.yml@refs/pull/7/merge"
	}
	gitIn(t, ws, "init", "-q")
	gitIn(t, ws, "add", "-A")
	gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "base")
	payload, err := os.ReadFile(s.env["GITHUB_EVENT_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	payload = bytes.Replace(payload, []byte("1111111111111111111111111111111111111111"), []byte(gitIn(t, ws, "rev-parse", "HEAD")), 1)
	if err := os.WriteFile(s.env["GITHUB_EVENT_PATH"], payload, 0o644); err != nil {
		t.Fatal(err)
	}
}

// failedOwnError checks a step that failed for an error of vigiles' own
// after it had a report: exit 125, one check run that concludes failure
// and whose summary holds why, and the verdict output error.
func (s *simulatedStep) failedOwnError(t *testing.T, why string) {
	t.Helper()
	if s.exitCode != 125 {
		t.Fatalf("exit %d, want 125\n%s", s.exitCode, s.stderr.String())
	}
	var posts int
	for _, r := range s.api.Requests() {
		if r.Method != http.MethodPost {
			continue
		}
		posts++
		if r.Body["conclusion"] != "failure" {
			t.Errorf("check run concludes %v, want failure", r.Body["conclusion"])
		}
		if sum, _ := r.Body["output"].(map[string]any)["summary"].(string); !strings.Contains(sum, why) {
			t.Errorf("check-run summary does not say why the step failed (%s):\n%s", why, sum)
		}
	}
	if posts != 1 {
		t.Errorf("%d check runs posted, want 1", posts)
	}
	if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); out["verdict"] != "error" {
		t.Errorf("outputs %v, want verdict=error", out)
	}
}

func (s *simulatedStep) file(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(s.env[name])
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return string(b)
}

func outputs(t *testing.T, s string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Fatalf("output line %q is not name=value", l)
		}
		m[k] = v
	}
	return m
}

// reportOut reads the JSON report that a step's outputs name (its report
// output), failing the test where it cannot be read or is not one of
// this schema.
func reportOut(t *testing.T, out map[string]string) report.Report {
	t.Helper()
	b, err := os.ReadFile(out["report"])
	if err != nil {
		t.Fatalf("report output: %v", err)
	}
	var rep report.Report
	if err := json.Unmarshal(b, &rep); err != nil || rep.Schema != report.Schema {
		t.Fatalf("report %s: %v (schema %q)", out["report"], err, rep.Schema)
	}
	return rep
}

// The token is set in the real environment, as the runner does; the
// action must read it, use it for the API only, and keep it from hooks.
func TestActionEndToEnd(t *testing.T) {
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	// hook-logs: the hook prints its environment, so the log shows the
	// token never reached it.
	s := newStep(t, map[string]string{"command": "test", "fail-level": "error", "sarif": "vigiles.sarif", "hook-logs": "true"})
	s.run(t)

	if s.exitCode != 1 {
		t.Fatalf("exit code %d, want 1 (a failing expectation)\nstdout:\n%s\nstderr:\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	// Check run: on the PR head, through the GHES base URL, with the token.
	reqs := s.api.Requests()
	if len(reqs) == 0 {
		t.Fatalf("no check-run request; stdout:\n%s", s.stdout.String())
	}
	first := reqs[0]
	if first.Method != "POST" || first.Path != "/api/v3/repos/octo/plugins/check-runs" {
		t.Errorf("first request %s %s", first.Method, first.Path)
	}
	if first.Body["head_sha"] != prHeadSHA {
		t.Errorf("check run on %v, want the PR head %s (not GITHUB_SHA)", first.Body["head_sha"], prHeadSHA)
	}
	if first.Auth != "Bearer "+testToken {
		t.Errorf("authorization = %q", first.Auth)
	}
	// started_at is the step's start, before the hooks ran; completed_at
	// the post's time, after them.
	started, serr := time.Parse(time.RFC3339Nano, fmt.Sprint(first.Body["started_at"]))
	completed, cerr := time.Parse(time.RFC3339Nano, fmt.Sprint(first.Body["completed_at"]))
	if serr != nil || cerr != nil || !started.Before(completed) {
		t.Errorf("started_at %v, completed_at %v: want the step's start strictly before the post", first.Body["started_at"], first.Body["completed_at"])
	}
	anns := first.Body["output"].(map[string]any)["annotations"].([]any)
	if len(anns) == 0 || anns[0].(map[string]any)["path"] != ".vigiles.yml" {
		t.Errorf("annotations = %v, want the failed expectation in .vigiles.yml", anns)
	}

	// The log: nothing the hook printed is a command.
	var names []string
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		names = append(names, c.Name)
	}
	if got := strings.Join(names, " "); got != "group stop-commands <resume> endgroup" {
		t.Errorf("commands in the log = %q, want only the fenced hook output\n%s", got, s.stdout.String())
	}
	if !strings.Contains(s.stdout.String(), "::error::forged by the hook") {
		t.Errorf("the hook's output is not in the log (fenced)")
	}

	// Outputs, the report and SARIF.
	out := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	if out["verdict"] != "fail" || out["failed"] == "0" || out["findings"] == "0" {
		t.Errorf("outputs = %v", out)
	}
	data, err := os.ReadFile(out["report"])
	if err != nil {
		t.Fatalf("report output: %v", err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil || rep.Schema != report.Schema {
		t.Fatalf("report: %v %q", err, rep.Schema)
	}
	sarif, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "vigiles.sarif"))
	if err != nil || !bytes.Contains(sarif, []byte(`"version": "2.1.0"`)) {
		t.Errorf("sarif: %v", err)
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "vigiles test: fail") ||
		!strings.Contains(sum, "https://ghes.example/octo/plugins/blob/"+prHeadSHA+"/.vigiles.yml#L") {
		t.Errorf("summary lacks the verdict or a link to the expectation's line:\n%s", sum)
	}

	// The token never reached a hook: not in any spec, not in what the
	// hook saw (it prints its environment), not in the report.
	if len(s.exec.specs) == 0 {
		t.Fatal("no hook ran")
	}
	for _, sp := range s.exec.specs {
		for _, e := range sp.Env {
			if strings.Contains(e, testToken) {
				t.Errorf("token in a sandbox spec's env: %q", e)
			}
		}
	}
	if bytes.Contains(data, []byte(testToken)) || strings.Contains(s.stdout.String(), testToken) {
		t.Errorf("the token reached a hook or the log")
	}
	if !strings.Contains(s.stdout.String(), "env: ") {
		t.Errorf("the hook's environment dump is missing, so the token check proved nothing")
	}
}

func TestActionForkTokenFallsBack(t *testing.T) {
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	s := newStep(t, map[string]string{"command": "test"})
	s.api.Status = http.StatusForbidden
	s.run(t)
	if s.exitCode != 1 {
		t.Fatalf("exit code %d, want 1 from the findings (the 403 itself must not fail)\n%s", s.exitCode, s.stderr.String())
	}
	var errs int
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name == "error" && c.Props["file"] == ".vigiles.yml" {
			errs++
		}
		if c.Name == "add-mask" || c.Name == "set-output" || c.Name == "warning" {
			t.Errorf("forged command %q took effect", c.Name)
		}
	}
	if errs == 0 {
		t.Errorf("no ::error annotation on .vigiles.yml after the fallback:\n%s", s.stdout.String())
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "No check run") {
		t.Errorf("summary does not explain the fallback:\n%s", sum)
	}
	// A same-repository pull request's default token is read-only too:
	// the log names the fix, not only forks (its ':' are lookalikes, so
	// no problem matcher reads the line).
	if fix := annotate.NoMatch("add `permissions: checks: write` to the job (a pull request from a fork cannot get it)"); !strings.Contains(s.stdout.String(), fix) {
		t.Errorf("the log does not name checks: write as the fix:\n%s", s.stdout.String())
	}
}

// TestActionReportPerStep: two vigiles steps with the same command in one
// job share RUNNER_TEMP; each step's report output must name its own
// report, not the last step's.
func TestActionReportPerStep(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "check-run": "false", "fail-level": "none"})
	sub := filepath.Join(s.env["GITHUB_WORKSPACE"], "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	passing := "defaults: {sandbox: off}\nchecks:\n  - {name: ok, command: \"true\", trusted: true, event: Stop, expect: {exit-code: 0}}\n"
	if err := os.WriteFile(filepath.Join(sub, ".vigiles.yml"), []byte(passing), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []map[string]string
	for i, wd := range []string{"", "sub"} {
		s.env["GITHUB_OUTPUT"] = filepath.Join(s.env["RUNNER_TEMP"], "_runner_file_commands", fmt.Sprintf("set_output_%d", i+2))
		s.env["INPUT_WORKING-DIRECTORY"] = wd
		s.run(t)
		if s.exitCode != 0 {
			t.Fatalf("step %d: exit %d\n%s", i+1, s.exitCode, s.stderr.String())
		}
		got = append(got, outputs(t, s.file(t, "GITHUB_OUTPUT")))
	}
	if got[0]["verdict"] != "fail" || got[1]["verdict"] != "pass" {
		t.Fatalf("verdicts %q and %q, want fail then pass (the fixtures changed?)", got[0]["verdict"], got[1]["verdict"])
	}
	if got[0]["report"] == got[1]["report"] {
		t.Fatalf("both steps' report output is %s", got[0]["report"])
	}
	for i, out := range got {
		r := reportOut(t, out)
		if r.Verdict != out["verdict"] {
			t.Errorf("step %d: its report %s says %s, its verdict output %s", i+1, out["report"], r.Verdict, out["verdict"])
		}
		if filepath.Dir(out["report"]) != filepath.Join(s.env["RUNNER_TEMP"], "vigiles") {
			t.Errorf("step %d: report %s is not under $RUNNER_TEMP/vigiles, which the container hands back", i+1, out["report"])
		}
	}
	if want := filepath.Join(s.env["RUNNER_TEMP"], "vigiles", "report-test.json"); got[0]["report"] != want {
		t.Errorf("the first step's report is %s, want %s", got[0]["report"], want)
	}
}

// TestActionSaysItWroteTheBaseline: update-baseline writes into the
// checkout, and the log and the job summary say so, as the CLI does.
func TestActionSaysItWroteTheBaseline(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "baseline": ".vigiles/baseline.json", "update-baseline": "true", "check-run": "false"})
	s.run(t)
	if s.exitCode == 125 || s.exitCode == 2 {
		t.Fatalf("exit %d\n%s", s.exitCode, s.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles", "baseline.json")); err != nil {
		t.Fatal(err)
	}
	const want = "wrote the baseline .vigiles/baseline.json ("
	if !strings.Contains(strings.ReplaceAll(s.stdout.String(), annotate.Colon, ":"), "vigiles: "+want) {
		t.Errorf("log does not say %q:\n%s", want, s.stdout.String())
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "review its diff before committing") {
		t.Errorf("job summary does not say the baseline was written:\n%s", sum)
	}
	// The last line counts the findings in words that agree with the
	// count ("1 finding", "2 findings").
	m := regexp.MustCompile(`vigiles: audit \w+: (\d+) (findings?), `).FindStringSubmatch(strings.ReplaceAll(s.stdout.String(), annotate.Colon, ":"))
	if m == nil || (m[1] == "1") != (m[2] == "finding") {
		t.Errorf("the step's last line does not count its findings rightly: %q\n%s", m, s.stdout.String())
	}
}

// TestActionUpdateBaselineFailureFails: when the audit ran but the
// baseline could not be written, nothing may read pass: the check run
// concludes failure, the verdict output is error, the summary says why
// and the step exits 125.
func TestActionUpdateBaselineFailureFails(t *testing.T) {
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	s := newStep(t, map[string]string{"command": "audit", "baseline": ".vigiles/baseline.json", "update-baseline": "true"})
	// The baseline's name becomes a directory while the audit runs (one
	// there before is refused before any hook runs, as a .vigiles that
	// is a file is: TestActionFileInputNamingADirectory,
	// TestActionBaselineDirectoryIsCheckedFirst), so the file cannot be
	// renamed over it once the audit has run.
	audit := func(ctx context.Context, o runner.Options) (*report.Report, error) {
		if err := os.MkdirAll(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles", "baseline.json"), 0o755); err != nil {
			return nil, err
		}
		return runner.Audit(ctx, o)
	}
	getenv := func(k string) string {
		if v, ok := s.env[k]; ok {
			return v
		}
		return os.Getenv(k) // the token
	}
	deps := actionDeps{test: runner.Test, audit: audit, executor: s.exec, httpClient: s.srv.Client()}
	s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
	s.failedOwnError(t, "writing baseline")
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "writing baseline") {
		t.Errorf("job summary does not say why it failed:\n%s", sum)
	}
}

func TestActionFailLevelNone(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "fail-level": "none", "check-run": "false"})
	s.run(t)
	if s.exitCode != 0 {
		t.Fatalf("exit code %d with fail-level none\n%s", s.exitCode, s.stderr.String())
	}
	if len(s.api.Requests()) != 0 {
		t.Errorf("check-run false still called the API")
	}
	if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); out["failed"] != "0" || out["verdict"] != "fail" {
		t.Errorf("outputs = %v", out)
	}
}

// TestActionTooManyRunsIsVigilesOwnError: over max-runs nothing runs,
// which no fail-level passes: the step exits 125 with vigiles' own
// ::error, and the outputs and check run say error. (It exited 0 under
// fail-level none, with no word of it in the log.)
func TestActionTooManyRunsIsVigilesOwnError(t *testing.T) {
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	s := newStep(t, map[string]string{"command": "test", "max-runs": "1", "fail-level": "none"})
	s.run(t)
	if s.exitCode != 125 {
		t.Fatalf("exit %d, want 125\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	if !strings.Contains(s.stdout.String(), "::error") || !strings.Contains(s.stdout.String(), "raise max-runs") {
		t.Errorf("no ::error of vigiles' own says why:\n%s", s.stdout.String())
	}
	if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); out["verdict"] != "error" {
		t.Errorf("outputs %v, want verdict=error", out)
	}
	for _, r := range s.api.Requests() {
		if r.Method == http.MethodPost && r.Body["conclusion"] != "failure" {
			t.Errorf("check run concludes %v, want failure", r.Body["conclusion"])
		}
	}
}

func TestActionInputValidation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		want   string
	}{
		{"command", map[string]string{"command": "scan"}, "input command"},
		{"fail level", map[string]string{"fail-level": "fatal"}, `input fail-level: "fatal": want none, notice, warning or error`},
		{"bool", map[string]string{"check-run": "maybe"}, "input check-run"},
		// What a workflow writes for a boolean or a value in another case
		// is told the value to write.
		{"yes", map[string]string{"check-run": "yes"}, `input check-run: "yes": want true or false: set check-run: true`},
		{"off", map[string]string{"hook-logs": "Off"}, `input hook-logs: "Off": want true or false: set hook-logs: false`},
		{"command case", map[string]string{"command": "Audit"}, `input command: "Audit" is not test, audit or merge: the values are lower case, so set command: audit`},
		{"fail level case", map[string]string{"fail-level": "Error"}, `input fail-level: "Error": want none, notice, warning or error: the values are lower case, so set fail-level: error`},
		{"sandbox case", map[string]string{"sandbox": "STRICT"}, `the values are lower case, so set sandbox: strict`},
		{"fail level begun", map[string]string{"fail-level": "warn"}, `input fail-level: "warn": want none, notice, warning or error: set fail-level: warning`},
		{"command misspelt", map[string]string{"command": "tset"}, `input command: "tset" is not test, audit or merge: set command: test`},
		{"sandbox misspelt", map[string]string{"sandbox": "strcit"}, `: set sandbox: strict`},
		{"egress case", map[string]string{"egress": "Deny"}, `input egress: "Deny": want deny, record or allow: the values are lower case, so set egress: deny`},
		{"shard", map[string]string{"command": "audit", "shard": "3/2"}, "input shard"},
		{"sandbox", map[string]string{"sandbox": "sometimes"}, "input sandbox"},
		{"egress", map[string]string{"egress": "open"}, "input egress"},
		{"egress in the open", map[string]string{"sandbox": "off", "egress": "record"}, "input sandbox: off runs every hook in the open"},
		{"allow in the open", map[string]string{"sandbox": "off", "allow": "api.example.test"}, "input sandbox: off runs every hook in the open"},
		{"allow without allow mode", map[string]string{"egress": "deny", "allow": "api.example.test"}, "input allow"},
		{"allow not a host", map[string]string{"allow": "evil example"}, "input allow"},
		{"paths with test", map[string]string{"command": "test", "paths": "plugins"}, "input paths"},
		{"update without baseline", map[string]string{"command": "audit", "update-baseline": "true"}, "input update-baseline: true needs a baseline file to write, and the baseline input is empty: set it, e.g. baseline: .vigiles/baseline.json"},
		{"baseline with test", map[string]string{"baseline": ".vigiles/baseline.json"}, "input baseline"},
		{"working directory outside", map[string]string{"working-directory": "../other"}, "input working-directory"},
		{"working directory absolute", map[string]string{"working-directory": "/etc"}, "input working-directory"},
		{"sarif outside", map[string]string{"sarif": "../escaped.sarif"}, "input sarif"},
		{"sarif absolute", map[string]string{"sarif": "/tmp/abs.sarif"}, "input sarif"},
		{"baseline outside", map[string]string{"command": "audit", "working-directory": "sub", "baseline": "../../b.json"}, "input baseline"},
		{"baseline absolute", map[string]string{"command": "audit", "baseline": "/tmp/b.json"}, "input baseline"},
		{"allow an address", map[string]string{"allow": "1.2.3.4"}, "input allow"},
		{"allow a bad port", map[string]string{"allow": "a.example.test:99999"}, "input allow"},
		{"egress allow without hosts", map[string]string{"egress": "allow"}, "input egress"},
		{"max-runs not a number", map[string]string{"command": "audit", "max-runs": "lots"}, "input max-runs"},
		{"max-runs zero", map[string]string{"command": "audit", "max-runs": "0"}, "input max-runs"},
		{"max-runs with merge", map[string]string{"command": "merge", "reports": "a.json", "max-runs": "5"}, "input max-runs"},
		{"jobs not a number", map[string]string{"command": "audit", "jobs": "many"}, "input jobs"},
		{"jobs negative", map[string]string{"command": "audit", "jobs": "-1"}, "input jobs"},
		{"jobs too many", map[string]string{"command": "audit", "jobs": "100000"}, "input jobs: \"100000\": want a whole number from 0 (one per core) to 1024"},
		{"jobs with merge", map[string]string{"command": "merge", "reports": "a.json", "jobs": "1"}, "input jobs"},
		// The inputs that say how hooks run are moot in a merge job, and
		// the shard it joins is every one.
		{"shard with merge", map[string]string{"command": "merge", "reports": "a.json", "shard": "1/2"}, "input shard: merge joins the reports of every shard"},
		{"sandbox with merge", map[string]string{"command": "merge", "reports": "a.json", "sandbox": "strict"}, "input sandbox: merge runs no hooks"},
		{"egress with merge", map[string]string{"command": "merge", "reports": "a.json", "egress": "deny"}, "input egress: merge runs no hooks"},
		{"allow with merge", map[string]string{"command": "merge", "reports": "a.json", "allow": "a.example.test"}, "input allow: merge runs no hooks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readInputs(func(k string) string {
				for n, v := range tc.inputs {
					if k == "INPUT_"+strings.ToUpper(n) {
						return v
					}
				}
				return ""
			})
			if !errors.Is(err, errBadInput) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want errBadInput naming %q", err, tc.want)
			}
		})
	}
	t.Run("exit status 2 and an escaped ::error", func(t *testing.T) {
		s := newStep(t, map[string]string{"command": "scan\n::add-mask::x"})
		s.run(t)
		if s.exitCode != 2 {
			t.Errorf("exit code %d, want 2", s.exitCode)
		}
		cmds := annotatetest.Commands(s.stdout.String())
		if len(cmds) != 1 || cmds[0].Name != "error" {
			t.Errorf("commands = %+v, want one ::error", cmds)
		}
	})
	t.Run("underscore names and defaults", func(t *testing.T) {
		in, err := readInputs(func(k string) string {
			return map[string]string{"INPUT_FAIL_LEVEL": "warning", "INPUT_ALLOW": "a.example.test\n*.b.example.test, c.example.test:443"}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		if in.Command != "test" || in.FailLevel != "warning" || !in.CheckRun || in.Egress == nil || in.Egress.Mode != "allow" || len(in.Egress.Allow) != 3 {
			t.Errorf("inputs = %+v", in)
		}
	})
	t.Run("jobs", func(t *testing.T) {
		for v, want := range map[string]int{"": 0, "0": 0, "1": 1, "8": 8} {
			in, err := readInputs(func(k string) string { return map[string]string{"INPUT_COMMAND": "audit", "INPUT_JOBS": v}[k] })
			if err != nil || in.Jobs != want {
				t.Errorf("jobs %q: %d, %v; want %d", v, in.Jobs, err, want)
			}
		}
	})
	// update-baseline beside another command than audit is one mistake,
	// said once: not also a baseline input missing, misplaced or sharded.
	t.Run("update-baseline without audit", func(t *testing.T) {
		for _, in := range []map[string]string{
			{"INPUT_UPDATE-BASELINE": "true"},
			{"INPUT_UPDATE-BASELINE": "true", "INPUT_BASELINE": ".vigiles/baseline.json", "INPUT_SHARD": "1/2"},
			{"INPUT_COMMAND": "merge", "INPUT_REPORTS": "a.json", "INPUT_UPDATE-BASELINE": "true"},
		} {
			_, err := readInputs(func(k string) string { return in[k] })
			list, ok := err.(problems)
			if !ok {
				list = problems{err}
			}
			if len(list) != 1 || !strings.HasPrefix(list[0].Error(), "input update-baseline: only audit writes a baseline (command is ") {
				t.Errorf("%v: errors %q, want only update-baseline's", in, list)
			}
		}
	})
	t.Run("not in GitHub Actions", func(t *testing.T) {
		err := runActionWith(context.Background(), nil, func(string) string { return "" }, io.Discard, io.Discard, defaultActionDeps)
		if exitCode(err, io.Discard, false) != 2 {
			t.Errorf("err = %v, want exit 2", err)
		}
	})
}

// moveUnderSubDir moves the step's example tree to sub/dir of its
// workspace, where a working-directory of sub/dir finds it, and returns
// the workspace.
func moveUnderSubDir(t *testing.T, s *simulatedStep) string {
	t.Helper()
	ws := s.env["GITHUB_WORKSPACE"]
	moved := ws + ".moved"
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(moved, filepath.Join(ws, "sub", "dir")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// With working-directory, the engine runs on a subdirectory and every
// location is still relative to the repository root.
func TestActionWorkingDirectory(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "working-directory": "sub/dir", "check-run": "false", "sarif": "out/v.sarif"})
	ws := moveUnderSubDir(t, s)
	s.run(t)
	if s.exitCode != 1 {
		t.Fatalf("exit code %d\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	var files []string
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if c.Name == "error" {
			files = append(files, c.Props["file"])
		}
	}
	if len(files) == 0 || files[0] != "sub/dir/.vigiles.yml" {
		t.Errorf("annotated files %v, want sub/dir/.vigiles.yml", files)
	}
	sarif, err := os.ReadFile(filepath.Join(ws, "out", "v.sarif"))
	if err != nil {
		t.Fatalf("sarif is not at the workspace-relative path: %v", err)
	}
	// Locations stay repository-relative in the SARIF file too (the
	// placing of findings without a file is TestActionSARIFFileAnchorsOnTheConfig).
	if !bytes.Contains(sarif, []byte(`"uri": "sub/dir/.vigiles.yml"`)) || bytes.Contains(sarif, []byte(`"uri": ".vigiles.yml"`)) {
		t.Errorf("sarif does not place findings at sub/dir/.vigiles.yml:\n%s", sarif)
	}
}

func TestActionRunnerRefusesMissingConfig(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "config": "missing.yml"})
	s.run(t)
	if s.exitCode != 2 {
		t.Errorf("exit code %d, want 2 for a missing policy file\n%s", s.exitCode, s.stdout.String())
	}
	// A working-directory below the repository's root finds no policy
	// file there: the error names the one above, and the input to set.
	s = newStep(t, map[string]string{"command": "test", "working-directory": "plugins/guard", "check-run": "false"})
	s.run(t)
	want := fmt.Sprintf(`(there is one in %q, above it: the working-directory input names the repository)`, s.env["GITHUB_WORKSPACE"])
	if s.exitCode != 2 || !strings.Contains(s.stdout.String(), want) {
		t.Errorf("working-directory plugins/guard: exit %d (want 2), the ::error does not say %q:\n%s", s.exitCode, want, s.stdout.String())
	}
	// One outside the workspace, which no input can name, is not named.
	s = newStep(t, map[string]string{"command": "test", "working-directory": "plugins/guard", "check-run": "false"})
	ws := s.env["GITHUB_WORKSPACE"]
	if err := os.Rename(filepath.Join(ws, ".vigiles.yml"), filepath.Join(filepath.Dir(ws), ".vigiles.yml")); err != nil {
		t.Fatal(err)
	}
	s.run(t)
	if s.exitCode != 2 || strings.Contains(s.stdout.String(), "above it") {
		t.Errorf("a policy file above the workspace: exit %d (want 2), named:\n%s", s.exitCode, s.stdout.String())
	}
}

// TestMain lets the test binary play the sandbox's init: the real engine
// re-executes it inside the sandbox (TestActionOnExamples).
func TestMain(m *testing.M) {
	wireNetwork()       // before MaybeInit, as in main: the init walls the network
	sandbox.MaybeInit() // the test binary plays the init and the reaper
	flag.Parse()
	os.Exit(m.Run())
}

var writeExampleReport = flag.String("write-example-report", "", "write the examples/ test report (durations zeroed) to this path, for pkg/annotate's goldens")

// TestActionOnExamples runs the action on examples/ through the real
// sandbox, as a pull_request step would: two promises are broken there,
// and each must land on its line of .vigiles.yml in the check run.
func TestActionOnExamples(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := os.Stat("../../examples/.vigiles.yml"); err != nil {
		t.Fatalf("the bundled example is missing: %v", err)
	}
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	s := newStep(t, map[string]string{"command": "test", "sarif": "vigiles.sarif"})
	// The real sandbox, not the recording fake.
	if err := os.RemoveAll(s.env["GITHUB_WORKSPACE"]); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(s.env["GITHUB_WORKSPACE"], os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if v, ok := s.env[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	deps := actionDeps{test: runner.Test, audit: runner.Audit, httpClient: s.srv.Client()}
	err := runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 1 {
		t.Fatalf("exit code %d, want 1 (two broken promises)\nstdout:\n%s\nstderr:\n%s", code, s.stdout.String(), s.stderr.String())
	}
	reqs := s.api.Requests()
	if len(reqs) == 0 || reqs[0].Body["head_sha"] != prHeadSHA {
		t.Fatalf("no check run on the PR head: %+v", reqs)
	}
	anns := reqs[0].Body["output"].(map[string]any)["annotations"].([]any)
	onConfig := 0
	for _, a := range anns {
		if a.(map[string]any)["path"] == ".vigiles.yml" && a.(map[string]any)["annotation_level"] == "failure" {
			onConfig++
		}
	}
	if onConfig < 2 {
		t.Errorf("%d failure annotations on .vigiles.yml, want the two broken promises: %v", onConfig, anns)
	}
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		switch c.Name {
		case "group", "stop-commands", "<resume>", "endgroup":
		default:
			t.Errorf("unexpected command %q in the log", c.Name)
		}
	}
	wantNoIssues(t, "stdout", s.stdout.String())
	wantNoIssues(t, "stderr", s.stderr.String())
	out := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	data, err := os.ReadFile(out["report"])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(testToken)) {
		t.Errorf("the token reached the report")
	}
	if *writeExampleReport != "" {
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		for i := range rep.Runs {
			rep.Runs[i].DurationMs = 0
		}
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*writeExampleReport, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The merge job of a sharded audit joins the shards' reports and reports
// them once: one check run, one summary.
func TestActionMergeShards(t *testing.T) {
	t.Setenv("INPUT_GITHUB-TOKEN", testToken)
	s := newStep(t, map[string]string{"command": "merge", "reports": "reports/*/report-audit-*.json"})
	ws := s.env["GITHUB_WORKSPACE"]
	for i := 1; i <= 2; i++ {
		r := report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: "audit",
			Verdict: report.VerdictFail, Shard: fmt.Sprintf("%d/2", i), Plan: "sha256:p",
			Runs: []report.HookRun{{ID: fmt.Sprintf("p%d/Stop", i), Plugin: fmt.Sprintf("p%d", i), Event: "Stop", Tier: "confined", Outcome: "allowed"}},
			Findings: []report.Finding{{Rule: "baseline/host", Severity: report.SeverityError, Message: "new host",
				Location: report.Location{File: fmt.Sprintf("plugins/p%d/hooks/hooks.json", i), Line: 3}}}}
		b, _ := json.Marshal(r)
		dir := filepath.Join(ws, "reports", fmt.Sprintf("shard-%d", i))
		os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("report-audit-%d-of-2.json", i)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.run(t)
	if s.exitCode != 1 {
		t.Fatalf("exit code %d\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	reqs := s.api.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d check-run requests, want 1", len(reqs))
	}
	body := reqs[0].Body
	if body["name"] != "vigiles audit / vigiles" {
		t.Errorf("check name %v", body["name"])
	}
	if n := len(body["output"].(map[string]any)["annotations"].([]any)); n != 2 {
		t.Errorf("%d annotations, want the 2 of both shards", n)
	}
	sum := s.file(t, "GITHUB_STEP_SUMMARY")
	if !strings.Contains(sum, "2 hook runs") {
		t.Errorf("summary does not cover both shards:\n%s", sum)
	}
	for _, tc := range []map[string]string{{"command": "merge"}, {"command": "merge", "reports": "none/*.json"}} {
		s := newStep(t, tc)
		s.run(t)
		if s.exitCode != 2 {
			t.Errorf("%v: exit code %d, want 2", tc, s.exitCode)
		}
	}
}

// Progress lines and errors carry plugin and file names: in the step log
// neither may start a workflow command.
func TestProgressAndErrorsStayOneLine(t *testing.T) {
	var b bytes.Buffer
	pw := &progressWriter{w: &b}
	io.WriteString(pw, "[1/2] evil\r::error::x plugin: ")
	io.WriteString(pw, "allowed\n[2/2] ::add-mask::y\u2028::warning::z\n")
	for _, c := range annotatetest.Commands(b.String()) {
		t.Errorf("progress produced command %+v", c)
	}
	if got := strings.Count(b.String(), "\n"); got != 2 {
		t.Errorf("%d lines from 2 progress lines:\n%s", got, b.String())
	}
	err := oneLineErr{fmt.Errorf("reading plugins/x\n::error::forged: %w", errBadInput)}
	if strings.ContainsAny(err.Error(), "\r\n") || !errors.Is(err, errBadInput) {
		t.Errorf("error %q is not one line or lost its cause", err.Error())
	}
	// An error quoting a hostile directory name: inert on stderr and in
	// the ::error:: annotation, and displayed as what it is.
	hostile := errors.New("audit path plugins/\u202egnp.exe\x1b[2K\u009b31m ##[add-mask]x")
	if e := (oneLineErr{hostile}).Error(); strings.ContainsAny(e, "\u202e\x1b\u009b") || strings.Contains(e, "##[") {
		t.Errorf("stderr error %q keeps a control, bidi or legacy-command sequence", e)
	}
	var out bytes.Buffer
	fail(&out, 125, hostile)
	cmds := annotatetest.Commands(out.String())
	if len(cmds) != 1 || cmds[0].Name != "error" || strings.ContainsAny(cmds[0].Data, "\u202e\x1b\u009b") {
		t.Errorf("fail annotated %+v from %q", cmds, out.String())
	}
	// The runner writes an annotation's message to the log, where a
	// "##[" would style its line.
	if strings.Contains(out.String(), "##[") {
		t.Errorf("fail wrote a legacy log command: %q", out.String())
	}
}

// TestActionUsageMistakesExit2: inputs that name nothing the action can
// use are a bad input (status 2), not vigiles failing (125).
func TestActionUsageMistakesExit2(t *testing.T) {
	for _, tc := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"working-directory": "nonexist"}, "input working-directory: nonexist does not exist in the workspace"},
		{map[string]string{"working-directory": ".vigiles.yml"}, "input working-directory: .vigiles.yml is not a directory in the workspace"},
		{map[string]string{"command": "audit", "paths": "/etc"}, "input paths: audit path /etc is outside the work tree"},
		{map[string]string{"command": "audit", "paths": "plugins,../.."}, "input paths: audit path ../.. is outside the work tree"},
		// Not there: said so first, as the CLI says it of a PATH.
		{map[string]string{"command": "audit", "paths": "/nonexistent-h84"}, "input paths: /nonexistent-h84 does not exist; paths names directories in working-directory, relative to it"},
		{map[string]string{"command": "audit", "paths": "../../nonexistent-h84"}, "input paths: ../../nonexistent-h84 does not exist; paths names directories in working-directory, relative to it"},
		// A value named once (it said shard "0/0": and sandbox mode "x":).
		{map[string]string{"command": "audit", "shard": "0/0"}, `input shard: "0/0": want i/n with 1 ≤ i ≤ n ≤ 10000`},
		{map[string]string{"command": "audit", "sandbox": "bogus"}, `input sandbox: "bogus": want auto, strict or off`},
		{map[string]string{"command": "audit", "paths": "plugins/guard/hooks/hooks.json"}, "input paths: plugins/guard/hooks/hooks.json is not a directory: paths names directories, whose hooks the audit runs; name the one that holds it, plugins/guard/hooks"},
		// Said before any hook runs (it was said, exit 125, after all).
		{map[string]string{"sarif": "plugins"}, "input sarif: plugins is a directory"},
		{map[string]string{"sarif": ".vigiles.yml/out.sarif"}, "input sarif: .vigiles.yml/out.sarif cannot be made"},
		// The sarif never overwrites a file that is no SARIF log: the
		// policy file, a hook manifest, the baseline.
		{map[string]string{"sarif": ".vigiles.yml"}, "input sarif: .vigiles.yml is the policy file (.vigiles.yml)"},
		{map[string]string{"sarif": "plugins/guard/hooks/hooks.json"},
			`input sarif: it would overwrite plugins/guard/hooks/hooks.json, which is not a SARIF log (it is JSON without the "version": "2.1.0" and "runs" of a SARIF log)`},
		{map[string]string{"sarif": "plugins/guard/hooks/guard.sh"}, "input sarif: it would overwrite plugins/guard/hooks/guard.sh, which is not a SARIF log (it is not a JSON object)"},
		{map[string]string{"command": "audit", "baseline": ".vigiles/baseline.json", "update-baseline": "true", "sarif": ".vigiles/baseline.json"},
			"input sarif: .vigiles/baseline.json is the baseline input's file"},
		// Named with the inputs, not the CLI's --update-baseline and PATHs.
		{map[string]string{"command": "audit", "paths": "plugins", "baseline": ".vigiles/baseline.json", "update-baseline": "true"},
			"input update-baseline: needs the whole audit, and paths plugins names part of it"},
		// The policy file as the baseline (a slip for config): never
		// compared with, nor overwritten by an update.
		{map[string]string{"command": "audit", "baseline": ".vigiles.yml"},
			"input baseline: .vigiles.yml is the policy file, .vigiles.yml (the config input names another): the baseline is the JSON file update-baseline writes, such as .vigiles/baseline.json"},
		{map[string]string{"command": "audit", "baseline": "./.vigiles.yml", "update-baseline": "true"}, "input baseline: ./.vigiles.yml is the policy file"},
		{map[string]string{"command": "audit", "config": "plugins/guard/hooks/hooks.json", "baseline": "plugins/guard/hooks/hooks.json"},
			"input baseline: plugins/guard/hooks/hooks.json is the policy file the config input names (plugins/guard/hooks/hooks.json)"},
		// Any other file that is no baseline is not overwritten.
		{map[string]string{"command": "audit", "baseline": "plugins/guard/hooks/guard.sh", "update-baseline": "true"},
			"input update-baseline: it would overwrite plugins/guard/hooks/guard.sh, which is not a vigiles baseline (it is not JSON): set the baseline input to the baseline file"},
		{map[string]string{"command": "audit", "baseline": "plugins/guard/hooks/hooks.json", "update-baseline": "true"},
			`which is not a vigiles baseline (it is JSON without the "schema": "vigiles.baseline/v2" of a baseline)`},
	} {
		t.Run(fmt.Sprint(tc.inputs), func(t *testing.T) {
			s := newStep(t, tc.inputs)
			s.run(t)
			// stderr is the step's log: its ':' are lookalikes (printError).
			if s.exitCode != 2 || !strings.Contains(strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"), tc.want) {
				t.Errorf("exit %d (want 2), stderr does not say %q:\n%s", s.exitCode, tc.want, s.stderr.String())
			}
			cmds := annotatetest.Commands(s.stdout.String())
			if len(cmds) != 1 || cmds[0].Name != "error" || !strings.Contains(cmds[0].Data, tc.want) {
				t.Errorf("annotations %+v, want one ::error:: saying %q", cmds, tc.want)
			}
		})
	}
}

// TestActionMergeNamesTheOddReport: the merge job names the report file
// that does not fit, relative to the workspace.
func TestActionMergeNamesTheOddReport(t *testing.T) {
	s := newStep(t, map[string]string{"command": "merge", "reports": "reports/*.json", "check-run": "false"})
	ws := s.env["GITHUB_WORKSPACE"]
	os.MkdirAll(filepath.Join(ws, "reports"), 0o755)
	for name, command := range map[string]string{"a-1.json": "audit", "b-2.json": "test"} {
		b, _ := json.Marshal(report.Report{Schema: report.Schema, Command: command, Shard: name[2:3] + "/2", Plan: "sha256:p", Verdict: report.VerdictPass,
			Runs: []report.HookRun{}, Findings: []report.Finding{}})
		if err := os.WriteFile(filepath.Join(ws, "reports", name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s.run(t)
	want := "reports/b-2.json is a report of vigiles test and reports/a-1.json one of vigiles audit"
	if s.exitCode != 2 || !strings.Contains(s.stdout.String(), want) || strings.Contains(s.stdout.String(), "bad option") {
		t.Errorf("exit %d (want 2), the ::error:: does not say %q:\n%s", s.exitCode, want, s.stdout.String())
	}
}

// TestActionMergeReportsAreInputs: the merge job reads a report as vigiles
// merge does (one JSON document, nothing after it), and a report file that
// is not one, or a glob that matches none, is a bad input (status 2), said
// without a label.
func TestActionMergeReportsAreInputs(t *testing.T) {
	b, _ := json.Marshal(report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass})
	for _, tc := range []struct {
		file, want string // file: the content of reports/a.json, "" for none, "/" for a directory, "nested" for one in a directory below
	}{
		{string(b) + "}", "has more after its JSON document"},
		{"", `"reports/*.json" matches no file in the workspace: download the shards' reports into it first`},
		{"nested", `"reports/*.json" matches no file, and reports/*/*.json matches 1: actions/download-artifact puts each artifact in a directory of its own; set reports: reports/*/*.json`},
		{"/", `reports/a.json" is a directory, not a report file: name the report files in it (`},
	} {
		t.Run(tc.want, func(t *testing.T) {
			s := newStep(t, map[string]string{"command": "merge", "reports": "reports/*.json", "check-run": "false"})
			dir := filepath.Join(s.env["GITHUB_WORKSPACE"], "reports")
			switch tc.file {
			case "":
			case "nested":
				os.MkdirAll(filepath.Join(dir, "vigiles-report-0"), 0o755)
				if err := os.WriteFile(filepath.Join(dir, "vigiles-report-0", "a.json"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			case "/":
				if err := os.MkdirAll(filepath.Join(dir, "a.json"), 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				os.MkdirAll(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, "a.json"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s.run(t)
			out := s.stdout.String()
			if s.exitCode != 2 || !strings.Contains(out, tc.want) || strings.Contains(out, "bad action input") {
				t.Errorf("exit %d (want 2), the ::error:: does not say %q (or names a label):\n%s", s.exitCode, tc.want, out)
			}
		})
	}
}

// TestRelInside: a name that starts with ".." is below the directory; only
// ".." itself and "../…" are outside it.
func TestRelInside(t *testing.T) {
	for _, tc := range []struct {
		p    string
		want string
		ok   bool
	}{
		{"/ws/reports/a.json", "reports/a.json", true},
		{"/ws/..reports/a.json", "..reports/a.json", true},
		{"/ws", ".", true},
		{"/", "", false},
		{"/other/a.json", "", false},
	} {
		if got, ok := relInside("/ws", tc.p); got != tc.want || ok != tc.ok {
			t.Errorf("relInside(/ws, %s) = %q, %v; want %q, %v", tc.p, got, ok, tc.want, tc.ok)
		}
	}
}

// TestConfigFileAnchor: file-less findings are anchored on the policy file
// as the repository knows it: relative to working-directory when given so,
// made workspace-relative when given absolute inside the workspace, and
// left absolute (which annotate then never shows) when outside it.
func TestConfigFileAnchor(t *testing.T) {
	ws := t.TempDir()
	for _, tc := range []struct{ workDir, config, want string }{
		{"", "", ".vigiles.yml"},
		{"sub", "", "sub/.vigiles.yml"},
		{"sub", "policy/p.yml", "sub/policy/p.yml"},
		{"", filepath.Join(ws, "sub", "p.yml"), "sub/p.yml"},
		{"sub", filepath.Join(ws, "p.yml"), "p.yml"},
		{"", "/elsewhere/p.yml", "/elsewhere/p.yml"},
		{"", ws + "x/p.yml", ws + "x/p.yml"},
	} {
		if got := configFile(ws, tc.workDir, tc.config); got != tc.want {
			t.Errorf("configFile(ws, %q, %q) = %q, want %q", tc.workDir, tc.config, got, tc.want)
		}
	}
}

// TestActionPathsInsideTheWorkspace: sarif (relative to the workspace) and
// baseline (relative to working-directory) must stay inside the
// workspace, as working-directory must: the container mounts only the
// workspace (and RUNNER_TEMP), so a file written elsewhere would vanish
// with it, unannounced. Refused with status 2 naming the input, before
// anything is written; a ".." that stays inside is taken.
func TestActionPathsInsideTheWorkspace(t *testing.T) {
	for _, tc := range []struct {
		inputs map[string]string
		want   string // "" when taken
	}{
		{map[string]string{"sarif": "../escaped.sarif"}, `input sarif: "../escaped.sarif" must be a path inside the workspace, relative to it`},
		{map[string]string{"sarif": "out/../../escaped.sarif"}, `input sarif: "out/../../escaped.sarif" must be a path inside the workspace`},
		{map[string]string{"sarif": "/tmp/vigiles-abs.sarif"}, `input sarif: "/tmp/vigiles-abs.sarif" must be a path inside the workspace`},
		{map[string]string{"command": "audit", "baseline": "../b.json", "update-baseline": "true"},
			`input baseline: "../b.json" must be a path inside the workspace, relative to working-directory`},
		{map[string]string{"command": "audit", "working-directory": "plugins", "baseline": "../../b.json", "update-baseline": "true"},
			`input baseline: "../../b.json" must be a path inside the workspace`},
		{map[string]string{"command": "audit", "baseline": "/tmp/vigiles-b.json"}, `input baseline: "/tmp/vigiles-b.json" must be a path inside the workspace`},
		{map[string]string{"sarif": "out/../in.sarif", "check-run": "false", "fail-level": "none"}, ""},
		{map[string]string{"command": "audit", "working-directory": "plugins", "baseline": "../b.json", "check-run": "false", "fail-level": "none"}, ""},
	} {
		t.Run(fmt.Sprint(tc.inputs), func(t *testing.T) {
			// An absolute path an input names: gone before, so that its
			// being there after says it was written.
			for _, k := range []string{"sarif", "baseline"} {
				if filepath.IsAbs(tc.inputs[k]) {
					os.Remove(tc.inputs[k])
				}
			}
			s := newStep(t, tc.inputs)
			s.run(t)
			ws := s.env["GITHUB_WORKSPACE"]
			if tc.want == "" {
				if s.exitCode == 2 {
					t.Errorf("exit 2, want the inputs taken:\n%s", s.stdout.String())
				}
				if sarif := tc.inputs["sarif"]; sarif != "" {
					if _, err := os.Stat(filepath.Join(ws, sarif)); err != nil {
						t.Errorf("sarif %s not written inside the workspace: %v", sarif, err)
					}
				}
				return
			}
			if s.exitCode != 2 || !strings.Contains(strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":"), tc.want) {
				t.Errorf("exit %d (want 2), stderr does not say %q:\n%s", s.exitCode, tc.want, s.stderr.String())
			}
			cmds := annotatetest.Commands(s.stdout.String())
			if len(cmds) != 1 || cmds[0].Name != "error" || !strings.Contains(cmds[0].Data, tc.want) {
				t.Errorf("annotations %+v, want one ::error:: saying %q", cmds, tc.want)
			}
			s.exec.mu.Lock()
			if len(s.exec.specs) != 0 {
				t.Errorf("hooks ran before the input was refused")
			}
			s.exec.mu.Unlock()
			// Where each path the inputs name leads, as the action would
			// take it: relative to the workspace (sarif) or to
			// working-directory (baseline), an absolute one as it is.
			named := []string{}
			for k, base := range map[string]string{"sarif": ws, "baseline": filepath.Join(ws, tc.inputs["working-directory"])} {
				if v := tc.inputs[k]; filepath.IsAbs(v) {
					named = append(named, v)
				} else if v != "" {
					named = append(named, filepath.Join(base, v))
				}
			}
			for _, p := range named {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was written outside the workspace", p)
				}
			}
		})
	}
}

// TestActionAllowNamesTheInputs: a mistake in the allow or egress input is
// said with the action's inputs and the policy file's keys, never with the
// CLI's --allow or --allow-ip, which the action does not have.
func TestActionAllowNamesTheInputs(t *testing.T) {
	for _, tc := range []struct {
		inputs map[string]string
		want   []string
	}{
		{map[string]string{"allow": "1.2.3.4"}, []string{`input allow: "1.2.3.4" is an address`, "defaults.egress.allow-ip", "leave the egress and allow inputs empty"}},
		{map[string]string{"allow": "api.example.test, [2001:db8::1]:443"}, []string{`input allow: "[2001:db8::1]:443" is an address`, "defaults.egress.allow-ip"}},
		{map[string]string{"allow": "10.0.0.0/8"}, []string{`input allow: "10.0.0.0/8" is an address range`, "defaults.egress.allow-ip", "leave the egress and allow inputs empty"}},
		// A URL, or a host and a path, is told the host to set.
		{map[string]string{"allow": "a.example.test/x"}, []string{`input allow: "a.example.test/x" is a URL (or a host and a path), and allow takes host names (HOST, *.SUFFIX, HOST:PORT): set allow: a.example.test`}},
		{map[string]string{"allow": "https://api.example.test/v1"}, []string{`input allow: "https://api.example.test/v1" is a URL (or a host and a path)`, "set allow: api.example.test"}},
		{map[string]string{"allow": "http://api.example.test:8080"}, []string{"set allow: api.example.test:8080"}},
		{map[string]string{"allow": "*.example.test/x"}, []string{"set allow: *.example.test"}},
		{map[string]string{"allow": "http://192.0.2.1/"}, []string{`input allow: "http://192.0.2.1/" is not a host name`}},
		{map[string]string{"allow": "*.com"}, []string{`input allow: "*.com": a wildcard needs at least two labels`}},
		{map[string]string{"allow": "a.example.test:99999"}, []string{`input allow: "a.example.test:99999": the port must be 1-65535`}},
		{map[string]string{"allow": "a.example.test, localhost"}, []string{`input allow: "localhost": a name of the loopback, which in the sandbox is its own, not the host's`, "or leave it out"}},
		{map[string]string{"allow": "127.0.0.1"}, []string{`input allow: "127.0.0.1": the loopback, which in the sandbox is its own, not the host's`, "or leave it out"}},
		{map[string]string{"egress": "allow"}, []string{"input egress: allow needs at least one host", "the allow input", "defaults.egress (allow, allow-ip)"}},
	} {
		t.Run(fmt.Sprint(tc.inputs), func(t *testing.T) {
			_, err := readInputs(func(k string) string {
				for n, v := range tc.inputs {
					if k == "INPUT_"+strings.ToUpper(n) {
						return v
					}
				}
				return ""
			})
			if !errors.Is(err, errBadInput) {
				t.Fatalf("error = %v, want errBadInput", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "--allow") || strings.Contains(msg, "--egress") {
				t.Errorf("error %q names a CLI flag the action does not have", msg)
			}
			if list, ok := err.(problems); ok && len(list) != 1 {
				t.Errorf("%d problems, want the mistake said once: %q", len(list), msg)
			}
		})
	}
}

// TestActionSaysAnUnnamedBaseline: an audit with no baseline input
// compares with nothing; where .vigiles/baseline.json is there all the
// same, the step says so, naming the input, rather than pass on nothing
// in silence.
func TestActionSaysAnUnnamedBaseline(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "fail-level": "none"})
	p := filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles", "baseline.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"schema": "vigiles.baseline/v1", "runs": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s.run(t)
	if !strings.Contains(s.stdout.String(), "::notice") || !strings.Contains(s.stdout.String(), "set baseline: .vigiles/baseline.json") {
		t.Errorf("no notice naming the baseline input:\n%s", s.stdout.String())
	}
}

// TestActionNamedBaselineMissingFails: the baseline input naming a file
// that is not there fails the step, with an error annotation at it.
func TestActionNamedBaselineMissingFails(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "baseline": ".vigiles/baseline.jsn"})
	s.run(t)
	if s.exitCode != 1 || !strings.Contains(s.stdout.String(), "::error") || !strings.Contains(s.stdout.String(), "check the path") {
		t.Errorf("exit %d, want 1 with an error naming the path:\n%s", s.exitCode, s.stdout.String())
	}
}

// TestActionCheckNameNamesTheConfig: two steps of one job that check the
// same directory with two policy files make two check runs; with one name
// GitHub's pull request shows only the latest of them, and its result
// stands for both. A config other than the default is in the name.
func TestActionCheckNameNamesTheConfig(t *testing.T) {
	// checkName runs the action with inputs on a workspace that holds
	// strict.yml, a copy of .vigiles.yml, and returns the check run's name.
	checkName := func(inputs map[string]string) string {
		t.Helper()
		// Set again each time: the action drops it from the environment.
		t.Setenv("INPUT_GITHUB-TOKEN", testToken)
		s := newStep(t, inputs)
		data, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles.yml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "strict.yml"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s.run(t)
		reqs := s.api.Requests()
		if len(reqs) == 0 {
			t.Fatalf("inputs %v: no check run\n%s", inputs, s.stdout.String())
		}
		name, _ := reqs[0].Body["name"].(string)
		return name
	}
	names := map[string]string{}
	for _, config := range []string{"", ".vigiles.yml", "strict.yml"} {
		names[config] = checkName(map[string]string{"command": "test", "config": config})
	}
	if names[""] != "vigiles test / vigiles" || names[".vigiles.yml"] != names[""] {
		t.Errorf("names with the default config = %q, %q; want %q", names[""], names[".vigiles.yml"], "vigiles test / vigiles")
	}
	if names["strict.yml"] == names[""] || !strings.Contains(names["strict.yml"], "strict.yml") {
		t.Errorf("name with config strict.yml = %q: it must differ from the default's and name the file", names["strict.yml"])
	}
	// working-directory "./" is the workspace, as "." and none are: the
	// same check run, not a second one named "vigiles test . config …".
	for _, wd := range []string{".", "./"} {
		if name := checkName(map[string]string{"command": "test", "config": "strict.yml", "working-directory": wd}); name != names["strict.yml"] {
			t.Errorf("working-directory %q: check run %q, want %q as without it", wd, name, names["strict.yml"])
		}
	}
}

// TestActionVerdictWhenItStopsEarly: the verdict output is pass, fail or
// error (action.yml); a step that stops before it has a report (a bad
// input, exit 2; the runner returned none, exit 125) says error, not
// nothing, so that a later step's `verdict == 'error'` sees it. The
// counts and the report's path, which it does not have, stay unset.
func TestActionVerdictWhenItStopsEarly(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		runErr error
		code   int
	}{
		{"bad input", map[string]string{"command": "scan"}, nil, 2},
		{"no report", map[string]string{"command": "test", "check-run": "false"}, errors.New("engine gone"), 125},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStep(t, tc.inputs)
			var rep *report.Report
			s.runCanned(t, rep, tc.runErr)
			if s.exitCode != tc.code {
				t.Fatalf("exit %d, want %d\n%s", s.exitCode, tc.code, s.stderr.String())
			}
			if out := outputs(t, s.file(t, "GITHUB_OUTPUT")); len(out) != 1 || out["verdict"] != "error" {
				t.Errorf("outputs %v, want only verdict=error", out)
			}
		})
	}
}

// TestActionWorkflowRunCheckRunCommit: on a workflow_run event the check
// run went on workflow_run.head_sha whatever the job checked: the default
// branch, which actions/checkout checks out there unless told otherwise,
// so the default branch's result showed as the pull request head's, or a
// merge of the reports the triggering run uploaded, which a fork's run
// writes as it likes (a forged pass, shown on the pull request as vigiles'
// result for its head). It goes there only where the working directory
// has that commit checked out; otherwise on GITHUB_SHA.
func TestActionWorkflowRunCheckRunCommit(t *testing.T) {
	payload := `{"action":"completed","workflow_run":{"head_sha":"` + prHeadSHA + `","event":"pull_request"}}`
	for _, tc := range []struct {
		name, head, want string
		merge            bool
	}{
		{"head checked out", prHeadSHA, prHeadSHA, false},
		{"default branch checked out", prMergeSHA, prMergeSHA, false},
		{"merge of uploaded reports", prHeadSHA, prMergeSHA, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("INPUT_GITHUB-TOKEN", testToken)
			inputs := map[string]string{"command": "test"}
			if tc.merge {
				inputs = map[string]string{"command": "merge", "reports": "reports/*.json"}
			}
			s := newStep(t, inputs)
			ws := s.env["GITHUB_WORKSPACE"]
			if err := os.WriteFile(s.env["GITHUB_EVENT_PATH"], []byte(payload), 0o644); err != nil {
				t.Fatal(err)
			}
			s.env["GITHUB_EVENT_NAME"] = "workflow_run"
			os.MkdirAll(filepath.Join(ws, ".git"), 0o755)
			if err := os.WriteFile(filepath.Join(ws, ".git", "HEAD"), []byte(tc.head+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.merge {
				os.MkdirAll(filepath.Join(ws, "reports"), 0o755)
				for i := 1; i <= 2; i++ {
					b, _ := json.Marshal(report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: "audit",
						Verdict: report.VerdictPass, Shard: fmt.Sprintf("%d/2", i), Plan: "sha256:p", Runs: []report.HookRun{}, Findings: []report.Finding{}})
					if err := os.WriteFile(filepath.Join(ws, "reports", fmt.Sprintf("report-audit-%d-of-2.json", i)), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			s.run(t)
			reqs := s.api.Requests()
			if len(reqs) == 0 {
				t.Fatalf("no check run (exit %d)\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
			}
			if got := reqs[0].Body["head_sha"]; got != tc.want {
				t.Errorf("check run on %v, want %s", got, tc.want)
			}
		})
	}
}

// TestActionReportNotLeftCutOnAFullDisk: a report that does not fit where
// RUNNER_TEMP is (a full file system: a small tmpfs) fails the step and
// leaves no report file: an empty or cut one was left, which an upload
// step of if: always() would ship as the report.
func TestActionReportNotLeftCutOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		missing(t, "root, to mount a tmpfs to fill")
	}
	mnt := smallTmpfs(t)
	if err := os.Mkdir(filepath.Join(mnt, "vigiles"), 0o755); err != nil {
		t.Fatal(err)
	}
	fillUp(t, mnt)
	getenv := func(k string) string {
		if k == "RUNNER_TEMP" {
			return mnt
		}
		return ""
	}
	rep := &report.Report{Verdict: report.VerdictFail, Runs: []report.HookRun{{ID: strings.Repeat("x", 8192)}}}
	name, err := writeReport(rep, getenv, t.TempDir(), actionInputs{Command: "audit"})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") || !strings.Contains(err.Error(), "was removed; free space where "+filepath.Join(mnt, "vigiles")+" is") {
		t.Errorf("writeReport = %q, %v; want the full disk named and the file removed", name, err)
	}
	if ents, _ := os.ReadDir(filepath.Join(mnt, "vigiles")); len(ents) != 0 {
		t.Errorf("left in RUNNER_TEMP/vigiles: %v", ents)
	}
}

// TestActionUpdateBaselineOfARunCutShort: the update-baseline input
// writes no baseline of a run that vigiles' own timeout, sooner than
// Claude Code's, cut short, whose finding is a warning: the step exits
// 125, and the report file, the verdict output and the summary all say
// error, never pass.
func TestActionUpdateBaselineOfARunCutShort(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "check-run": "false", "fail-level": "none", "baseline": ".vigiles/baseline.json", "update-baseline": "true"})
	ws := s.env["GITHUB_WORKSPACE"]
	if err := os.WriteFile(filepath.Join(ws, ".vigiles.yml"), []byte("version: 1\ndefaults:\n  timeout: 2s\nplugins:\n  untrusted: [plugins/*]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cutShort := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: cutShort, httpClient: s.srv.Client()}
	s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
	if s.exitCode != 125 || !strings.Contains(s.stdout.String()+s.stderr.String(), "the baseline was not written") {
		t.Fatalf("update-baseline of a run cut short: exit %d, want 125 saying the baseline was not written\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	out := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	rep := reportOut(t, out)
	if out["verdict"] != report.VerdictError || rep.Verdict != report.VerdictError {
		t.Errorf("the verdict output %q and the report's %q, want error for both", out["verdict"], rep.Verdict)
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "vigiles audit: error") {
		t.Errorf("the summary does not say error:\n%s", sum)
	}
}

// TestActionInputWrittenFromTheWorkspace: a config or baseline input that
// repeats working-directory (sub/.vigiles.yml with working-directory
// sub), and so names nothing there but a file of the workspace, is bad
// input that names the value that reads it, before any hook runs. The
// config's hint sent the caller to the working-directory already set;
// the baseline was compared with nothing (baseline/missing, after every
// hook had run), or made anew at sub/sub/….
func TestActionInputWrittenFromTheWorkspace(t *testing.T) {
	for _, c := range []struct {
		inputs map[string]string
		want   string
	}{
		{map[string]string{"command": "test", "working-directory": "sub", "config": "sub/.vigiles.yml", "check-run": "false"},
			"::error title=vigiles::input config: sub/.vigiles.yml is read relative to working-directory (sub), and there is no sub/sub/.vigiles.yml; to read the file it names from the workspace, set config: .vigiles.yml\n"},
		{map[string]string{"command": "audit", "working-directory": "sub", "baseline": "sub/.vigiles/baseline.json", "check-run": "false"},
			"::error title=vigiles::input baseline: sub/.vigiles/baseline.json is read relative to working-directory (sub), and there is no sub/sub/.vigiles/baseline.json; to read the file it names from the workspace, set baseline: .vigiles/baseline.json\n"},
		{map[string]string{"command": "audit", "working-directory": "sub", "baseline": "sub/.vigiles/baseline.json", "update-baseline": "true", "check-run": "false"},
			"::error title=vigiles::input baseline: sub/.vigiles/baseline.json is read relative to working-directory (sub), and there is no sub/sub/.vigiles/baseline.json; to read the file it names from the workspace, set baseline: .vigiles/baseline.json\n"},
	} {
		s := newStep(t, c.inputs)
		ws := s.env["GITHUB_WORKSPACE"]
		policy, err := os.ReadFile(filepath.Join(ws, ".vigiles.yml"))
		if err != nil {
			t.Fatal(err)
		}
		for p, b := range map[string][]byte{"sub/.vigiles.yml": policy, "sub/.vigiles/baseline.json": []byte(`{"schema": "vigiles.baseline/v2", "runs": {}}`)} {
			if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, p), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s.run(t)
		if s.exitCode != 2 || !strings.HasSuffix(s.stdout.String(), c.want) || len(s.exec.specs) != 0 {
			t.Errorf("%v: exit %d (want 2), %d run(s) (want none), stdout %q; want it to end with %q", c.inputs, s.exitCode, len(s.exec.specs), s.stdout.String(), c.want)
		}
		if _, err := os.Lstat(filepath.Join(ws, "sub", "sub")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: sub/sub was made: %v", c.inputs, err)
		}
	}
}

// TestActionProgressNamesFilesAsAnnotationsDo: with working-directory,
// the progress lines name where each run's hook is declared from the
// repository's root, as the annotations place findings (GitHub needs
// that of them); they named it from working-directory, so that a line
// and an annotation of one hook named two paths.
func TestActionProgressNamesFilesAsAnnotationsDo(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "working-directory": "sub/dir", "check-run": "false"})
	ws := moveUnderSubDir(t, s)
	s.run(t)
	if s.exitCode > 1 {
		t.Fatalf("exit code %d\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	plain := strings.ReplaceAll(s.stderr.String(), annotate.Colon, ":")
	at := regexp.MustCompile(`(?m)^vigiles: \[\d+/\d+\] .* at ([^ :]+):\d+:\d+: `).FindAllStringSubmatch(plain, -1)
	if len(at) == 0 {
		t.Fatalf("no progress line names a file:\n%s", plain)
	}
	for _, m := range at {
		if !strings.HasPrefix(m[1], "sub/dir/") {
			t.Errorf("a progress line names %s, not from the repository's root (sub/dir/...):\n%s", m[1], plain)
		}
		if _, err := os.Stat(filepath.Join(ws, m[1])); err != nil {
			t.Errorf("a progress line names %s, which is no file of the repository: %v", m[1], err)
		}
	}
	for _, c := range annotatetest.Commands(s.stdout.String()) {
		if f := c.Props["file"]; f != "" && !strings.HasPrefix(f, "sub/dir/") {
			t.Errorf("an annotation places a finding at %s, not from the repository's root", f)
		}
	}
}
