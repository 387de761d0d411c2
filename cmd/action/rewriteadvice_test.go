package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// stopHookTree is a work tree whose project settings declare one Stop
// hook, true.
var stopHookTree = map[string]string{
	".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
}

// auditFinding runs `vigiles audit args... --format json` and returns
// the message of its finding of rule.
func auditFinding(t *testing.T, rule string, args ...string) string {
	t.Helper()
	_, out, errs := runCLI(t, append([]string{"audit", "-q", "--format", "json"}, args...)...)
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("audit %v: %v\n%s\n%s", args, err, out, errs)
	}
	for _, f := range rep.Findings {
		if f.Rule == rule {
			return f.Message
		}
	}
	t.Fatalf("audit %v: no %s finding:\n%s", args, rule, out)
	return ""
}

// TestAuditRewriteAdviceNamesTheDirGiven: the advice to write the
// baseline is a command that audits the same tree where the user ran
// the audit: with the --dir given, as given (quoted for a shell), beside
// a --baseline that is not the default; without --dir, the command as it
// always was. Run as advised, it writes the baseline the audit read.
func TestAuditRewriteAdviceNamesTheDirGiven(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	parent := t.TempDir()
	tree := filepath.Join(parent, "my proj")
	for p, c := range stopHookTree {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tree, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tree, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Chdir(tree)
	if m := auditFinding(t, runner.RuleBaselineMissing); !strings.Contains(m, "run `vigiles audit --update-baseline` to create it") {
		t.Errorf("no --dir: the advice is not the command as it was:\n%s", m)
	}

	t.Chdir(parent)
	m := auditFinding(t, runner.RuleBaselineMissing, "--dir", "my proj")
	if want := "run `vigiles audit --update-baseline --dir 'my proj'` to create it"; !strings.Contains(m, want) {
		t.Errorf("--dir 'my proj': the advice does not name it:\n%s\nwant %s", m, want)
	}
	m = auditFinding(t, runner.RuleBaselineMissing, "--dir", "my proj", "--baseline", "ci/b.json")
	if want := "run `vigiles audit --update-baseline --dir 'my proj' --baseline ci/b.json` to create it"; !strings.Contains(m, want) {
		t.Errorf("--dir and --baseline: the advice does not name both:\n%s\nwant %s", m, want)
	}
	if strings.Contains(m, parent) {
		t.Errorf("the advice names an absolute path the user did not type:\n%s", m)
	}
	// A baseline outside the tree whose directory is not there: the
	// directory to make first is named from where the audit ran too.
	m = auditFinding(t, runner.RuleBaselineMissing, "--dir", "my proj", "--baseline", "../ci/b.json")
	if want := "run `vigiles audit --update-baseline --dir 'my proj' --baseline ../ci/b.json` to create it, after you make its directory (mkdir -p ci)"; !strings.Contains(m, want) {
		t.Errorf("a baseline outside the tree: the advice does not name its directory from here:\n%s\nwant %s", m, want)
	}
	if strings.Contains(m, parent) {
		t.Errorf("the advice names an absolute path the user did not type:\n%s", m)
	}
	// As advised, from where the audit ran: the tree's baseline is
	// written, and the audit then compares with it.
	if code, _, errs := runCLI(t, "audit", "-q", "--update-baseline", "--dir", "my proj", "--baseline", "ci/b.json"); code != 0 {
		t.Fatalf("the advised command: exit %d\n%s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(tree, "ci", "b.json")); err != nil {
		t.Fatalf("the advised command did not write the tree's baseline: %v", err)
	}

	// A baseline cut short: the rewrite it advises names the --dir too.
	if err := os.WriteFile(filepath.Join(tree, "ci", "b.json"), []byte(`{"schema": "vigiles.baseline/v2"`), 0o644); err != nil {
		t.Fatal(err)
	}
	m = auditFinding(t, runner.RuleBaselineInvalid, "--dir", "my proj", "--baseline", "ci/b.json")
	if want := "run `vigiles audit --update-baseline --dir 'my proj' --baseline ci/b.json` to rewrite it"; !strings.Contains(m, want) {
		t.Errorf("invalid baseline: the advice does not name --dir:\n%s\nwant %s", m, want)
	}
}
