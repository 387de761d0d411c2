package main

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// originSecret is the password (or token) of the origin URLs
// TestActionBaseFetchErrorKeepsOriginsSecret fetches from.
const originSecret = "SECRETc0ffee"

// TestActionBaseFetchErrorKeepsOriginsSecret: a shallow clone whose
// origin holds a token in its URL (https://x-access-token:TOKEN@…, as
// some CI systems set it) and whose fetch of the base fails, with the
// real git: the policy/base-unread warning says the fetch failed, and
// the token is in no output of the action (annotations, stderr, the
// step summary, the outputs, the report, SARIF, the check run's
// requests) nor in any file it wrote. git 2.39 leaves it out of an
// http(s) URL it names, not out of a git:// remote's host it cannot
// look up ("unable to look up user:TOKEN@127.0.0.1:1").
func TestActionBaseFetchErrorKeepsOriginsSecret(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	src, _ := filepath.EvalSymlinks(t.TempDir())
	base := weakenedPR(t, src)
	answer := func(code int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
			}
			http.Error(w, "no", code)
		}))
		t.Cleanup(srv.Close)
		return strings.TrimPrefix(srv.URL, "http://")
	}
	for _, c := range []struct{ name, url string }{
		{"git protocol, no host", "git://user:" + originSecret + "@127.0.0.1:1/r.git"},
		{"git protocol, token as user", "git://" + originSecret + "@127.0.0.1:1/r.git"},
		{"http, nothing listens", "http://x-access-token:" + originSecret + "@127.0.0.1:1/owner/repo.git"},
		{"http 500", "http://x-access-token:" + originSecret + "@" + answer(http.StatusInternalServerError) + "/owner/repo.git"},
		{"http 401", "http://x-access-token:" + originSecret + "@" + answer(http.StatusUnauthorized) + "/owner/repo.git"},
		{"http, token as user", "http://" + originSecret + "@" + answer(http.StatusForbidden) + "/owner/repo.git"},
		{"ssh, nothing listens", "ssh://user:" + originSecret + "@127.0.0.1:1/r.git"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newHostileStep(t)
			s.env["INPUT_BASELINE"] = runner.DefaultBaseline
			ws, _ := shallowCheckout(t, s, src)
			gitIn(t, ws, "remote", "set-url", "origin", c.url)
			runOnPullRequest(t, s, base, "")
			if s.exitCode != 0 {
				t.Fatalf("exit %d, want 0: a base not read fails no run\n%s", s.exitCode, s.stderr.String())
			}
			_, rep := checkStepInert(t, s)
			un := findingsOf(rep, runner.RulePolicyBase)
			if len(un) != 1 || un[0].Severity != report.SeverityWarning || !strings.Contains(un[0].Message, "fetching it from origin failed (git fetch: exit status") {
				t.Fatalf("findings %+v, want one warning that the fetch failed, with git's message", rep.Findings)
			}
			t.Logf("the warning: %s", un[0].Message)
			for where, text := range map[string]string{"stdout": s.stdout.String(), "stderr": s.stderr.String(), "the check run's requests": checkRunText(s)} {
				if strings.Contains(text, originSecret) {
					t.Errorf("%s holds origin's secret:\n%s", where, text)
				}
			}
			for _, dir := range []string{s.env["RUNNER_TEMP"], ws} {
				filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						t.Error(err)
						return nil
					}
					if d.IsDir() && d.Name() == ".git" {
						return fs.SkipDir // the clone's config, which holds origin
					}
					if data, err := os.ReadFile(p); err == nil && strings.Contains(string(data), originSecret) {
						t.Errorf("%s holds origin's secret", p)
					}
					return nil
				})
			}
		})
	}
}
