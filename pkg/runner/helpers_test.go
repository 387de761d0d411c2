package runner

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/ and docs/")

// TestMain lets the test binary play the sandbox's init and reaper: the
// real engine re-executes it inside the sandbox.
func TestMain(m *testing.M) {
	sandbox.MaybeInit()
	flag.Parse()
	os.Exit(m.Run())
}

// makeTree writes files (path -> content; a trailing "/" makes a dir) and
// returns the directory with symlinks resolved.
func makeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// discoverAll runs every adapter over dir.
func discoverAll(t testing.TB, dir string) *session {
	t.Helper()
	s, err := newSession(Options{Dir: dir}, "audit")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.discover(nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// messagesByHook is the message of each finding of fs of rule, by the
// hook it names (the last where a hook has more than one).
func messagesByHook(fs []report.Finding, rule string) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		if f.Rule == rule {
			out[f.Hook] = f.Message
		}
	}
	return out
}

// messagesOf is the messages of the findings fs of rule, in order.
func messagesOf(fs []report.Finding, rule string) []string {
	var out []string
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f.Message)
		}
	}
	return out
}

// auditTree audits a tree of files (as makeTree writes them) with the
// fake executor, failing the test on an error.
func auditTree(t testing.TB, files map[string]string) *report.Report {
	t.Helper()
	rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// ranAndListed counts the runs of rep whose ID starts with ran, each of
// which must have run, allowed, and printed stdout, and those whose ID
// starts with listed, each of which must be listed, not run, for a reason
// that says reason.
func ranAndListed(t *testing.T, rep *report.Report, ran, stdout, listed, reason string) (nRan, nListed int) {
	t.Helper()
	for _, r := range rep.Runs {
		switch {
		case strings.HasPrefix(r.ID, ran):
			nRan++
			if r.Outcome != report.OutcomeAllowed || strings.TrimSpace(r.Stdout) != stdout {
				t.Errorf("run %s: %s (%s), stdout %q; want the hook run, allowed, printing %q", r.ID, r.Outcome, r.Reason, r.Stdout, stdout)
			}
		case strings.HasPrefix(r.ID, listed):
			nListed++
			if r.Outcome != report.OutcomeNotExecutable || !strings.Contains(r.Reason, reason) {
				t.Errorf("run %s (%s): %s (%s); want listed, not run: %s", r.ID, r.Type, r.Outcome, r.Reason, reason)
			}
		}
	}
	return nRan, nListed
}
