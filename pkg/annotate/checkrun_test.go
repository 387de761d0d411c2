package annotate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

const (
	headSHA  = "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00" // pull_request.head.sha in testdata/pull_request.json
	mergeSHA = "3333333333333333333333333333333333333333" // what GITHUB_SHA is on a pull_request event
	token    = "ghs_testtoken"
)

// fakeGitHub is a GitHub API that records check-run requests; its
// check run is 42.
type fakeGitHub struct {
	annotatetest.GitHubAPI
	// failPatch, when non-zero, answers the failPatch-th update (1-based)
	// with 422 and message.
	failPatch int
	failLater bool // fail the updates after failPatch too
	// failStatus answers failed updates; 0 means 422.
	failStatus int
	message    string

	mu      sync.Mutex
	patches int
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.Serve(w, r, f.answer)
}

func (f *fakeGitHub) answer(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/check-runs"):
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":42,"html_url":"https://github.example/octo/plugins/runs/42"}`)
	case r.Method == http.MethodPatch && strings.HasSuffix(r.URL.Path, "/check-runs/42"):
		f.mu.Lock()
		f.patches++
		fail := f.patches == f.failPatch || (f.failLater && f.failPatch > 0 && f.patches > f.failPatch)
		f.mu.Unlock()
		if fail {
			st := http.StatusUnprocessableEntity
			if f.failStatus != 0 {
				st = f.failStatus
			}
			w.WriteHeader(st)
			msg, _ := json.Marshal(map[string]string{"message": f.message})
			w.Write(msg)
			return
		}
		fmt.Fprint(w, `{"id":42,"html_url":"https://github.example/octo/plugins/runs/42"}`)
	default:
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	}
}

func manyFindings(n int) *report.Report {
	r := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictFail, Shard: "1/3"}
	for i := 0; i < n; i++ {
		sev := []report.Severity{report.SeverityNotice, report.SeverityWarning, report.SeverityError}[i%3]
		r.Findings = append(r.Findings, report.Finding{
			Rule: "egress-only", Severity: sev, Title: fmt.Sprintf("finding %d", i),
			Message:  strings.Repeat("m", 300),
			Location: report.Location{File: "plugins/p/hooks/hooks.json", Line: i + 1},
		})
	}
	return r
}

// env simulates the runner's environment for a pull_request event.
func prEnv(t *testing.T, apiURL string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   filepath.Join("testdata", "pull_request.json"),
		"GITHUB_SHA":          mergeSHA,
		"GITHUB_REPOSITORY":   "octo/plugins",
		"GITHUB_SERVER_URL":   "https://github.example",
		"GITHUB_API_URL":      apiURL,
		"GITHUB_JOB":          "audit",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
	}
}

func publish(t *testing.T, r *report.Report, env map[string]string, client *http.Client) (Result, string, string) {
	t.Helper()
	var log bytes.Buffer
	res, err := Publish(context.Background(), r, Options{
		Log: &log, Getenv: func(k string) string { return env[k] }, Token: token, CheckRun: true,
		HTTPClient: client, FailLevel: FailError, ReportPath: "vigiles-report.json",
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	})
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	sum, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		t.Fatal(err)
	}
	return res, log.String(), string(sum)
}

// publishTo publishes r as publish does, through fake served over real
// HTTP at a GHES-style API URL (go-github must send everything under
// /api/v3/), on a pull_request event.
func publishTo(t *testing.T, fake http.Handler, r *report.Report) (Result, string, string) {
	t.Helper()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return publish(t, r, prEnv(t, srv.URL+"/api/v3"), srv.Client())
}

func TestCheckRunBatchesOnHeadSHA(t *testing.T) {
	fake := &fakeGitHub{}
	res, log, sum := publishTo(t, fake, manyFindings(120))

	if res.FellBack || res.CheckRunURL == "" {
		t.Fatalf("result = %+v, want a posted check run", res)
	}
	type call struct {
		Method, Path, Auth, SHA, Name, Status, Conclusion string
		Annotations                                       int
	}
	var got []call
	reqs := fake.Requests()
	for _, r := range reqs {
		c := call{Method: r.Method, Path: r.Path, Auth: r.Auth}
		c.SHA, _ = r.Body["head_sha"].(string)
		c.Name, _ = r.Body["name"].(string)
		c.Status, _ = r.Body["status"].(string)
		c.Conclusion, _ = r.Body["conclusion"].(string)
		if out, ok := r.Body["output"].(map[string]any); ok {
			as, _ := out["annotations"].([]any)
			c.Annotations = len(as)
		}
		got = append(got, c)
	}
	name := "vigiles audit (shard 1/3) / audit"
	want := []call{
		// Created completed: a create that times out after GitHub made
		// the run, or a batch refused, leaves no run in progress.
		{"POST", "/api/v3/repos/octo/plugins/check-runs", "Bearer " + token, headSHA, name, "completed", "failure", 50},
		{"PATCH", "/api/v3/repos/octo/plugins/check-runs/42", "Bearer " + token, "", name, "", "", 50},
		{"PATCH", "/api/v3/repos/octo/plugins/check-runs/42", "Bearer " + token, "", name, "", "", 20},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("check-run requests (-want +got):\n%s", diff)
	}
	// The first batch holds the most severe findings.
	first := reqs[0].Body["output"].(map[string]any)["annotations"].([]any)
	for i, a := range first {
		want := "failure"
		if i >= 40 {
			want = "warning"
		}
		if lv := a.(map[string]any)["annotation_level"]; lv != want {
			t.Fatalf("first batch: annotation %d is %v, want %s (40 errors first, then warnings)", i, lv, want)
		}
	}
	// With the check run posted, no annotation is duplicated in the log.
	if strings.Contains(log, "::error") || strings.Contains(log, "::warning") {
		t.Errorf("log has workflow-command annotations although the check run was posted:\n%s", log)
	}
	if !strings.Contains(sum, "annotated on the check run") {
		t.Errorf("summary does not name the check run:\n%s", sum)
	}
	if strings.Contains(sum, mergeSHA) || !strings.Contains(sum, headSHA) {
		t.Errorf("summary links do not point at the head commit")
	}
}

func TestCheckRunSummaryIsCut(t *testing.T) {
	fake := &fakeGitHub{}
	r := manyFindings(400) // ~400 rows of 300+ characters: well over 65,535
	publishTo(t, fake, r)
	reqs := fake.Requests()
	if len(reqs) != 8 {
		t.Fatalf("%d requests, want 8 (400 annotations in batches of 50)", len(reqs))
	}
	for i, req := range reqs {
		s := req.Body["output"].(map[string]any)["summary"].(string)
		if n := utf8.RuneCountInString(s); n > MaxCheckRunSummaryChars {
			t.Errorf("request %d: summary has %d characters, limit %d", i, n, MaxCheckRunSummaryChars)
		}
		if !strings.Contains(s, "more findings not shown") {
			t.Errorf("request %d: summary does not say what it left out", i)
		}
	}
}

func TestCheckRunAnnotationCap(t *testing.T) {
	fake := &fakeGitHub{}
	publishTo(t, fake, manyFindings(MaxCheckRunAnnotations+130))
	reqs := fake.Requests()
	if want := MaxCheckRunAnnotations / MaxCheckRunAnnotationsPerRequest; len(reqs) != want {
		t.Fatalf("%d requests, want %d", len(reqs), want)
	}
	if first := reqs[0].Body; first["status"] != "completed" {
		t.Errorf("the create does not complete the run: %v", first["status"])
	}
	last := reqs[len(reqs)-1].Body
	s := last["output"].(map[string]any)["summary"].(string)
	if !strings.Contains(s, "**130 more annotations not posted**") || utf8.RuneCountInString(s) > MaxCheckRunSummaryChars {
		t.Errorf("summary does not count what was not posted, or is too long (%d)", utf8.RuneCountInString(s))
	}
}

func TestCheckRunFallsBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		reason string
	}{
		// The default token of a same-repository pull request is read-only
		// too: the reason names the permission to add.
		{"read-only token 403", http.StatusForbidden, "add `permissions: checks: write` to the job (a pull request from a fork cannot get it)"},
		{"server error", http.StatusInternalServerError, "the GitHub API failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeGitHub{GitHubAPI: annotatetest.GitHubAPI{Status: tc.status}}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			env := prEnv(t, srv.URL+"/api/v3")
			res, log, sum := publish(t, manyFindings(6), env, srv.Client())
			if !res.FellBack || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("result = %+v, want a fallback mentioning %q", res, tc.reason)
			}
			if res.ExitCode != 1 {
				t.Errorf("exit code %d: the fallback must not change the verdict's exit code", res.ExitCode)
			}
			cmds := runnerCommands(t, log)
			n := 0
			for _, c := range cmds {
				if c.Name == "error" || c.Name == "warning" || c.Name == "notice" {
					n++
				}
			}
			if n != 6 {
				t.Errorf("%d annotations in the log, want 6:\n%s", n, log)
			}
			if !strings.Contains(sum, "No check run") {
				t.Errorf("summary does not say the check run fell back:\n%s", sum)
			}
			out, _ := os.ReadFile(env["GITHUB_OUTPUT"])
			if !strings.Contains(string(out), "verdict=fail\n") {
				t.Errorf("outputs = %q", out)
			}
		})
	}
}

// TestCheckRunCompletedWhenAnUpdateFails: a check run whose later
// annotations GitHub refuses is still completed (never left in progress),
// the summary says what happened, and the API's message, which may quote
// anything, reaches the log inert.
func TestCheckRunCompletedWhenAnUpdateFails(t *testing.T) {
	fake := &fakeGitHub{failPatch: 1, message: "Invalid path ##[add-mask]vigiles"}
	res, log, sum := publishTo(t, fake, manyFindings(60))
	reqs := fake.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (create, the refused update, the one that says so)", len(reqs))
	}
	if first := reqs[0].Body; first["status"] != "completed" || first["conclusion"] != "failure" {
		t.Errorf("create: status %v conclusion %v, want completed failure", first["status"], first["conclusion"])
	}
	if s := reqs[2].Body["output"].(map[string]any)["summary"].(string); !strings.Contains(s, "Not every annotation could be posted") {
		t.Errorf("last summary does not say annotations are missing")
	}
	if !res.FellBack || res.CheckRunURL == "" {
		t.Errorf("result = %+v, want the run's URL and a fallback", res)
	}
	if !strings.Contains(sum, "could not take every annotation") || strings.Contains(sum, "No check run") {
		t.Errorf("summary does not say the check run is incomplete:\n%s", sum)
	}
	if strings.Contains(log, "##[") {
		t.Errorf("the API's message reached the log as a command:\n%s", log)
	}
	for _, c := range runnerCommands(t, log) {
		if c.Name == "add-mask" || strings.HasPrefix(c.Name, "<legacy>") {
			t.Errorf("command %+v in the log", c)
		}
	}
}

// TestCheckRunUpdateForbiddenIsNotBlamedOnTheToken: a 403 on a later
// batch follows a check run the token could create, so the reason must not
// say it may not create one.
func TestCheckRunUpdateForbiddenIsNotBlamedOnTheToken(t *testing.T) {
	fake := &fakeGitHub{failPatch: 1, failStatus: http.StatusForbidden, message: "You have exceeded a secondary rate limit"}
	res, _, _ := publishTo(t, fake, manyFindings(60))
	if !res.FellBack || res.CheckRunURL == "" {
		t.Fatalf("result = %+v, want the run's URL and a fallback", res)
	}
	if !strings.Contains(res.Reason, "refused to update the check run") || strings.Contains(res.Reason, "may not create") || strings.Contains(res.Reason, "checks: write") {
		t.Errorf("reason = %q, want a refused update, not a token that cannot create check runs", res.Reason)
	}
}

// TestPublishErrFails: a report that came with an error (vigiles audit
// could not write the baseline) must not read pass anywhere: the check run
// concludes failure, the verdict output is error, and both summaries say
// why, whatever the findings and the fail level.
func TestPublishErrFails(t *testing.T) {
	for _, level := range []FailLevel{FailError, FailNone} {
		t.Run(string(level), func(t *testing.T) {
			fake := &fakeGitHub{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			env := prEnv(t, srv.URL+"/api/v3")
			r := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass}
			var log bytes.Buffer
			_, err := Publish(context.Background(), r, Options{
				Log: &log, Getenv: func(k string) string { return env[k] }, Token: token, CheckRun: true,
				HTTPClient: srv.Client(), FailLevel: level, ReportPath: "vigiles-report.json",
				Err: errors.New("writing baseline: mkdir .vigiles: not a directory"),
			})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != report.VerdictPass {
				t.Errorf("Publish changed the caller's report: verdict %s", r.Verdict)
			}
			reqs := fake.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			body := reqs[0].Body
			if body["conclusion"] != "failure" {
				t.Errorf("conclusion %v, want failure", body["conclusion"])
			}
			const why = "writing baseline"
			if s := body["output"].(map[string]any)["summary"].(string); !strings.Contains(s, why) || !strings.Contains(s, "audit: error") {
				t.Errorf("check-run summary does not say the run failed and why:\n%s", s)
			}
			if sum, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); !strings.Contains(string(sum), why) || !strings.Contains(string(sum), "audit: error") {
				t.Errorf("job summary does not say the run failed and why:\n%s", sum)
			}
			if out, _ := os.ReadFile(env["GITHUB_OUTPUT"]); !strings.Contains(string(out), "verdict=error\n") {
				t.Errorf("outputs = %q, want verdict=error", out)
			}
		})
	}
}

// TestCheckRunNeverLeftInProgress: when the update that notes the
// missing annotations fails too, the run was completed by its create all
// the same, and the summary and the log say so, not that it is left in
// progress.
func TestCheckRunNeverLeftInProgress(t *testing.T) {
	fake := &fakeGitHub{failPatch: 1, failLater: true, message: "Validation Failed"}
	res, log, sum := publishTo(t, fake, manyFindings(60))
	if !res.FellBack || res.CheckRunURL == "" {
		t.Errorf("result = %+v, want the run's URL and a fallback", res)
	}
	for name, s := range map[string]string{"summary": sum, "log": log} {
		if !strings.Contains(s, "it was completed without the rest") {
			t.Errorf("the %s does not say the check run was completed", name)
		}
	}
}

func TestNewClientBaseURL(t *testing.T) {
	for _, tc := range []struct{ api, want string }{
		{"", "https://api.github.com/"},
		{"https://api.github.com", "https://api.github.com/"},
		{"https://ghes.example/api/v3", "https://ghes.example/api/v3/"},
		{"https://ghes.example/api/v3/", "https://ghes.example/api/v3/"},
		{"https://ghes.example", "https://ghes.example/api/v3/"},
	} {
		c, err := NewClient(nil, "t", tc.api)
		if err != nil {
			t.Fatalf("%q: %v", tc.api, err)
		}
		if got := c.BaseURL.String(); got != tc.want {
			t.Errorf("NewClient(%q).BaseURL = %q, want %q", tc.api, got, tc.want)
		}
	}
}

func TestHeadSHA(t *testing.T) {
	dir := t.TempDir()
	push := filepath.Join(dir, "push.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(push, []byte(`{"ref":"refs/heads/main","after":"`+mergeSHA+`"}`), 0o644)
	os.WriteFile(bad, []byte(`{"pull_request":{"head":{"sha":"$(id)"}}}`), 0o644)
	// workflow_run: GITHUB_SHA is the default branch's last commit, and
	// head_sha the triggering run's, which a check run may be put on only
	// where the tree vigiles checked has it checked out.
	run := filepath.Join(dir, "workflow_run.json")
	badRun := filepath.Join(dir, "bad_run.json")
	os.WriteFile(run, []byte(`{"action":"completed","workflow_run":{"head_sha":"`+headSHA+`","event":"pull_request"}}`), 0o644)
	os.WriteFile(badRun, []byte(`{"workflow_run":{"head_sha":"HEAD"}}`), 0o644)
	// The trees a workflow_run job checked: the triggering run's head
	// commit (detached, as actions/checkout leaves it; a branch of it in
	// packed-refs; a linked work tree on it), the default branch
	// (actions/checkout's default there), nothing (a merge job).
	atHead, onBranch, packed, linked := filepath.Join(dir, "head"), filepath.Join(dir, "main"), filepath.Join(dir, "packed"), filepath.Join(dir, "linked")
	// pull_request_target: GITHUB_SHA is the base's last commit.
	const baseSHA = "4444444444444444444444444444444444444444"
	atMerge, onBase := filepath.Join(dir, "merge"), filepath.Join(dir, "base")
	for p, files := range map[string]map[string]string{
		atMerge:  {".git/HEAD": mergeSHA + "\n"},
		onBase:   {".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": baseSHA + "\n"},
		atHead:   {".git/HEAD": headSHA + "\n"},
		onBranch: {".git/HEAD": "ref: refs/heads/main\n", ".git/refs/heads/main": mergeSHA + "\n"},
		packed:   {".git/HEAD": "ref: refs/heads/pr\n", ".git/packed-refs": "# pack-refs with: peeled fully-peeled sorted\n" + headSHA + " refs/heads/pr\n"},
		linked:   {".git": "gitdir: ../head/.git\n"},
	} {
		for f, data := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(p, f)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, f), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(atHead, "plugins", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Git files that are no regular files, which a tree under review
	// may hold (an artifact, a reused workspace): neither waited on nor
	// read. A FIFO as HEAD or as the ref HEAD names, a link to a device.
	fifoHead, fifoRef, devRef := filepath.Join(dir, "fifo-head"), filepath.Join(dir, "fifo-ref"), filepath.Join(dir, "dev-ref")
	for _, p := range []string{fifoHead, fifoRef, devRef} {
		if err := os.MkdirAll(filepath.Join(p, ".git", "refs", "heads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if p != fifoHead {
			os.WriteFile(filepath.Join(p, ".git", "HEAD"), []byte("ref: refs/heads/pr\n"), 0o644)
		}
	}
	for _, err := range []error{
		syscall.Mkfifo(filepath.Join(fifoHead, ".git", "HEAD"), 0o644),
		syscall.Mkfifo(filepath.Join(fifoRef, ".git", "refs", "heads", "pr"), 0o644),
		os.Symlink("/dev/zero", filepath.Join(devRef, ".git", "refs", "heads", "pr")),
		os.Symlink("/dev/zero", filepath.Join(devRef, ".git", "packed-refs")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	pr := filepath.Join("testdata", "pull_request.json")
	for _, tc := range []struct {
		path, fallback, tree, want string
		err                        bool
		event                      string
	}{
		{pr, mergeSHA, "", headSHA, false, "pull_request"},
		{pr, mergeSHA, onBranch, headSHA, false, "pull_request"},
		// pull_request_target: GITHUB_SHA is the base's last commit, which
		// the job checks out unless told otherwise: the pull request's head
		// only where that, or its test merge, is what was checked.
		{pr, mergeSHA, atHead, headSHA, false, "pull_request_target"},
		{pr, baseSHA, atMerge, headSHA, false, "pull_request_target"},
		{pr, baseSHA, onBase, baseSHA, false, "pull_request_target"},
		{pr, baseSHA, "", baseSHA, false, "pull_request_target"},
		{push, mergeSHA, "", mergeSHA, false, ""},
		{"", mergeSHA, "", mergeSHA, false, ""},
		{bad, mergeSHA, "", "", true, ""},
		{run, mergeSHA, atHead, headSHA, false, ""},
		{run, mergeSHA, filepath.Join(atHead, "plugins", "sub"), headSHA, false, ""},
		{run, mergeSHA, packed, headSHA, false, ""},
		{run, mergeSHA, linked, headSHA, false, ""},
		// The default branch was checked, or nothing (the reports
		// of a merge are the triggering run's to write): not put on
		// the pull request's head as its result.
		{run, mergeSHA, onBranch, mergeSHA, false, ""},
		{run, mergeSHA, fifoHead, mergeSHA, false, ""},
		{run, mergeSHA, fifoRef, mergeSHA, false, ""},
		{run, mergeSHA, devRef, mergeSHA, false, ""},
		{run, mergeSHA, "", mergeSHA, false, ""},
		{badRun, mergeSHA, atHead, "", true, ""},
		{"", "not-a-sha", "", "", true, ""},
		{filepath.Join(dir, "missing.json"), mergeSHA, "", "", true, ""},
	} {
		got, err := HeadSHA(tc.event, tc.path, tc.fallback, tc.tree)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("HeadSHA(%q, %q, %q, %q) = %q, %v; want %q, error %v", tc.event, tc.path, tc.fallback, tc.tree, got, err, tc.want, tc.err)
		}
	}
}

// TestCheckRunWaitsForASecondaryRateLimit: a request GitHub refuses for a
// secondary rate limit (403 with its documentation_url, or 429) did
// nothing, and GitHub asks for it to be sent again after Retry-After
// (a minute without one). go-github sends nothing before then, so a
// batch refused so would be lost; after the wait the batch goes through.
// A wait past MaxRateLimitWait is not waited for, and the run is still
// said to be incomplete.
func TestCheckRunWaitsForASecondaryRateLimit(t *testing.T) {
	const secondary = `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`
	for _, tc := range []struct {
		name, retryAfter string
		status           int
		wait             time.Duration
		posted           bool
	}{
		{"403 Retry-After 0", "0", http.StatusForbidden, 0, true},
		{"429 Retry-After 0", "0", http.StatusTooManyRequests, 0, true},
		{"403 without Retry-After", "", http.StatusForbidden, time.Minute, true},
		{"429 without Retry-After", "", http.StatusTooManyRequests, time.Minute, true},
		{"past the bound", "3600", http.StatusForbidden, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var methods []string
			refused := false
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				methods = append(methods, r.Method)
				w.Header().Set("Content-Type", "application/json")
				if r.Method == http.MethodPost {
					w.WriteHeader(http.StatusCreated)
					fmt.Fprint(w, `{"id":42,"html_url":"https://github.example/octo/plugins/runs/42"}`)
					return
				}
				if !refused {
					refused = true
					if tc.retryAfter != "" {
						w.Header().Set("Retry-After", tc.retryAfter)
					}
					w.WriteHeader(tc.status)
					fmt.Fprint(w, secondary)
					return
				}
				fmt.Fprint(w, `{"id":42}`)
			}))
			defer srv.Close()
			env := prEnv(t, srv.URL+"/api/v3")
			var waited []time.Duration
			var log bytes.Buffer
			res, err := Publish(context.Background(), manyFindings(60), Options{
				Log: &log, Getenv: func(k string) string { return env[k] }, Token: token, CheckRun: true,
				HTTPClient: srv.Client(), FailLevel: FailError,
				Sleep: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			if said := strings.Contains(log.String(), "sending it again in"); said != (len(waited) > 0) {
				t.Errorf("the log says a wait %v, waited %v:\n%s", said, waited, log.String())
			}
			if tc.name == "past the bound" {
				if len(waited) != 0 {
					t.Errorf("waited %v, past MaxRateLimitWait", waited)
				}
			} else if len(waited) != 1 || waited[0] != tc.wait {
				t.Errorf("waited %v, want [%v]", waited, tc.wait)
			}
			if tc.posted {
				// POST, the refused PATCH, the same PATCH again.
				if res.FellBack || len(methods) != 3 {
					t.Errorf("result %+v after %v: want every annotation posted after the wait", res, methods)
				}
				return
			}
			// A real wait of a minute lets go-github send again; a fake
			// one does not, so the run is said to be incomplete, and is
			// never said to be complete when it is not.
			if !res.FellBack || res.Reason == "" {
				t.Errorf("result %+v: want the fallback said", res)
			}
		})
	}
}

// TestCheckRunCompletedWhenCancelled: a step cancelled while a check run
// takes its batches (the runner's SIGINT ends the context) still sends
// the request that notes the missing annotations in its summary, on a
// short clock of its own (the run was completed by its create), and that
// request concludes it failure whatever the findings said, since the step
// exits 125 for the signal.
func TestCheckRunCompletedWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		mu.Lock()
		bodies = append(bodies, m)
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
		} else if n == 2 {
			cancel() // the signal comes while the first batch is on its way
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, `{"id":42,"html_url":"https://github.example/octo/plugins/runs/42"}`)
	}))
	defer srv.Close()
	c, err := NewClient(srv.Client(), token, srv.URL+"/api/v3")
	if err != nil {
		t.Fatal(err)
	}
	_, perr := PostCheckRun(ctx, c, CheckRun{Owner: "octo", Repo: "plugins", Name: "vigiles audit", HeadSHA: headSHA,
		Conclusion: "neutral", Title: "t", Summary: "s", Findings: manyFindings(120).Findings})
	if perr == nil {
		t.Errorf("error %v, want the batch not posted and the run completed", perr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 3 || bodies[0]["status"] != "completed" {
		t.Fatalf("%d requests, the create's status %v: want the run created completed, and the noting request after the cancelled batch", len(bodies), bodies[0]["status"])
	}
	if s, _ := bodies[2]["output"].(map[string]any)["summary"].(string); !strings.Contains(s, "Not every annotation could be posted") {
		t.Errorf("the last request's summary does not say annotations are missing")
	}
	if bodies[2]["status"] != "completed" || bodies[2]["conclusion"] != "failure" {
		t.Errorf("the last request's status %v, conclusion %v: want the cancelled run to conclude failure", bodies[2]["status"], bodies[2]["conclusion"])
	}
}

// TestCheckRunRateLimitWaitOverflow: a Retry-After so large that its
// seconds overflow a time.Duration read as a negative wait, which gave
// the check run's budget back instead of spending it, so a later refusal
// with Retry-After 3600 was waited for an hour: the step stalled far past
// MaxRateLimitWait. Every wait stays within the bound, and none is
// negative.
func TestCheckRunRateLimitWaitOverflow(t *testing.T) {
	var mu sync.Mutex
	patches := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated)
			fmt.Fprint(w, `{"id":42,"html_url":"https://github.example/octo/plugins/runs/42"}`)
			return
		}
		patches++
		switch patches {
		case 1:
			w.Header().Set("Retry-After", "17446744074") // × 1e9 wraps past MaxInt64 to about -31 years
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"message":"slow down"}`)
			return
		case 3:
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"message":"slow down"}`)
			return
		}
		fmt.Fprint(w, `{"id":42}`)
	}))
	defer srv.Close()
	env := prEnv(t, srv.URL+"/api/v3")
	var waited []time.Duration
	_, err := Publish(context.Background(), manyFindings(140), Options{
		Log: io.Discard, Getenv: func(k string) string { return env[k] }, Token: token, CheckRun: true,
		HTTPClient: srv.Client(), FailLevel: FailError,
		Sleep: func(_ context.Context, d time.Duration) error { waited = append(waited, d); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, d := range waited {
		if d < 0 {
			t.Errorf("waited %v: a negative wait", waited)
		}
		total += d
	}
	if total > MaxRateLimitWait {
		t.Errorf("waited %v in all (%v), past MaxRateLimitWait %v", total, waited, MaxRateLimitWait)
	}
}

// TestCheckRunSummaryBytes: GitHub holds output.summary to 65,535 bytes,
// not characters ("summary exceeds a maximum bytesize of 65535", 422), so
// a summary of characters of three bytes each (꞉, which every ':' of a
// plugin's text becomes) is held to that many bytes, with the notes that
// PostCheckRun adds for annotations not posted and for a batch refused.
func TestCheckRunSummaryBytes(t *testing.T) {
	summary := strings.Repeat("꞉", MaxCheckRunSummaryChars/3) // 65,535 bytes, 21,845 characters
	for _, tc := range []struct {
		name     string
		findings int
		fake     *fakeGitHub
	}{
		{"annotations not posted", MaxCheckRunAnnotations + 1, &fakeGitHub{}},
		{"a batch refused", 120, &fakeGitHub{failPatch: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.fake)
			defer srv.Close()
			c, err := NewClient(srv.Client(), token, srv.URL+"/api/v3")
			if err != nil {
				t.Fatal(err)
			}
			_, _ = PostCheckRun(context.Background(), c, CheckRun{Owner: "octo", Repo: "plugins", Name: "vigiles audit", HeadSHA: headSHA,
				Conclusion: "failure", Title: "t", Summary: summary, Findings: manyFindings(tc.findings).Findings})
			reqs := tc.fake.Requests()
			if len(reqs) == 0 {
				t.Fatal("no request")
			}
			for i, req := range reqs {
				out, _ := req.Body["output"].(map[string]any)
				s, _ := out["summary"].(string)
				if len(s) > MaxCheckRunSummaryChars || !utf8.ValidString(s) {
					t.Errorf("request %d: summary of %d bytes (valid UTF-8: %v), GitHub takes at most %d", i, len(s), utf8.ValidString(s), MaxCheckRunSummaryChars)
				}
			}
			last, _ := reqs[len(reqs)-1].Body["output"].(map[string]any)
			if s, _ := last["summary"].(string); !strings.Contains(s, "**") {
				t.Errorf("the last summary lost its note: %q", s[max(0, len(s)-200):])
			}
		})
	}
}

// TestCheckRunStartedWhenTheStepBegan: the check run's started_at is
// when the step began checking, not the moment it was posted, so
// GitHub shows how long the checking took; a start after the post (a
// clock stepped back) is taken as the post's time.
func TestCheckRunStartedWhenTheStepBegan(t *testing.T) {
	post := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		started time.Time
		want    string
	}{
		{"a minute before", post.Add(-time.Minute), "2026-01-02T03:03:05Z"},
		{"not given", time.Time{}, "2026-01-02T03:04:05Z"},
		{"after the post", post.Add(time.Hour), "2026-01-02T03:04:05Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := &fakeGitHub{}
			srv := httptest.NewServer(fake)
			defer srv.Close()
			env := prEnv(t, srv.URL+"/api/v3")
			_, err := Publish(context.Background(), manyFindings(3), Options{
				Log: io.Discard, Getenv: func(k string) string { return env[k] }, Token: token, CheckRun: true,
				HTTPClient: srv.Client(), FailLevel: FailError, ReportPath: "vigiles-report.json",
				Now:     func() time.Time { return post },
				Started: tc.started,
			})
			if err != nil {
				t.Fatal(err)
			}
			reqs := fake.Requests()
			if len(reqs) == 0 || reqs[0].Method != http.MethodPost {
				t.Fatalf("requests = %+v, want a POST first", reqs)
			}
			b := reqs[0].Body
			if b["started_at"] != tc.want || b["completed_at"] != "2026-01-02T03:04:05Z" {
				t.Errorf("started_at = %v, completed_at = %v; want %s and the post's time", b["started_at"], b["completed_at"], tc.want)
			}
		})
	}
}

// TestCheckRunWithoutTokenNamesTheInput: a check run asked for with no
// token (the github-token input set empty) falls back to workflow
// commands, and the reason names the input and what to do.
func TestCheckRunWithoutTokenNamesTheInput(t *testing.T) {
	env := prEnv(t, "http://127.0.0.1:1/api/v3")
	var log bytes.Buffer
	res, err := Publish(context.Background(), manyFindings(2), Options{
		Log: &log, Getenv: func(k string) string { return env[k] }, CheckRun: true, FailLevel: FailError, ReportPath: "vigiles-report.json",
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.FellBack || !strings.Contains(res.Reason, "github-token input is empty") || !strings.Contains(res.Reason, "check-run: false") {
		t.Errorf("result = %+v, want a fallback naming the github-token input", res)
	}
}
