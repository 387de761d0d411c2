package runner

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// examplesDir is the bundled example repository.
var examplesDir = filepath.Join("..", "..", "examples")

// treeDigest fingerprints a tree so a test can prove nothing changed it.
func treeDigest(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s %v %d %d\n", rel, info.Mode(), info.Size(), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func failedChecks(rep *report.Report) map[string][]string {
	out := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Severity != report.SeverityError {
			continue
		}
		check := ""
		for _, r := range rep.Runs {
			if r.ID == f.Hook {
				check = r.Check
			}
		}
		out[check] = append(out[check], f.Rule)
	}
	return out
}

// TestExampleTestConfined runs `vigiles test` on examples/ through the
// real sandbox engine.
func TestExampleTestConfined(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	before := treeDigest(t, examplesDir)
	rep, err := Test(context.Background(), Options{Dir: examplesDir})
	if err != nil {
		t.Fatal(err)
	}
	if after := treeDigest(t, examplesDir); after != before {
		t.Fatal("running the example's hooks changed examples/ on the host")
	}
	for _, r := range rep.Runs {
		if r.Tier != "confined" {
			t.Errorf("%s ran %s, want confined (vendored plugins are untrusted)", r.ID, r.Tier)
		}
	}
	fails := failedChecks(rep)
	for _, ok := range []string{"bash-guard denies rm -rf", "bash-guard denies curl piped into sh", "bash-guard lets git status through", "tidy-notes reminds about notes"} {
		for _, rule := range fails[ok] {
			// Egress is recorded only when the binary wires the egress layer;
			// the runner's tests run without it, and say so.
			if rule != RuleNotRecorded {
				t.Errorf("check %q failed: %v", ok, fails[ok])
			}
		}
	}
	// session-journal writes outside its lane: the overlay records it.
	if got := fails["session-journal writes only its journal"]; len(got) != 1 || got[0] != RuleExpectPrefix+ExpWroteOnly {
		t.Errorf("session-journal check: %v", got)
	}
	var journal report.HookRun
	for _, r := range rep.Runs {
		if r.Check == "session-journal writes only its journal" {
			journal = r
		}
	}
	var paths []string
	for _, w := range journal.Writes {
		paths = append(paths, w.Path)
	}
	joined := strings.Join(paths, " ")
	for _, want := range []string{".claude/journal/sessions.log", ".git/hooks/post-commit", "~/.bashrc"} {
		if !strings.Contains(joined, want) {
			t.Errorf("writes %v lack %s", paths, want)
		}
	}
	// usage-stats phones home: a failure either way — the host when egress
	// is recorded, a not-recorded error when it is not; never a pass.
	if got := fails["usage-stats stays offline"]; len(got) != 1 {
		t.Errorf("usage-stats check: %v", got)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s", rep.Verdict)
	}
	for _, r := range rep.Runs {
		if r.Check == "bash-guard denies rm -rf" && r.Outcome != report.OutcomeBlocked {
			t.Errorf("bash-guard did not block rm -rf: %+v", r)
		}
	}
}

// TestExampleAuditConfined audits examples/ against its committed baseline
// through the real sandbox engine.
func TestExampleAuditConfined(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if *update {
		// Rewrites examples/.vigiles/baseline.json from a confined audit.
		if _, err := Audit(context.Background(), Options{Dir: examplesDir, Baseline: ".vigiles/baseline.json", UpdateBaseline: true}); err != nil {
			t.Fatal(err)
		}
	}
	before := treeDigest(t, examplesDir)
	rep, err := Audit(context.Background(), Options{Dir: examplesDir, Baseline: ".vigiles/baseline.json"})
	if err != nil {
		t.Fatal(err)
	}
	if after := treeDigest(t, examplesDir); after != before {
		t.Fatal("auditing changed examples/ on the host")
	}
	for _, r := range rep.Runs {
		if r.Outcome == report.OutcomeNotExecutable {
			continue
		}
		if r.Tier != "confined" {
			t.Errorf("%s ran %s, want confined (audit confines everything)", r.ID, r.Tier)
		}
		if r.Writes == nil {
			t.Errorf("%s: writes not recorded", r.ID)
		}
	}
	for _, f := range rep.Findings {
		switch {
		case f.Rule == RuleBaselineUnproven:
			// Egress is not recorded without the egress layer wired in.
		case strings.HasPrefix(f.Rule, RuleDriftPrefix):
			t.Errorf("the committed baseline is stale: %s %s", f.Rule, f.Message)
		case f.Severity == report.SeverityError:
			t.Errorf("unexpected finding %s: %s", f.Rule, f.Message)
		}
	}
	t.Logf("%d runs, verdict %s", len(rep.Runs), rep.Verdict)
}

// TestPayloadEndsWithNewline: a hook reads its payload as Claude Code
// writes it, the JSON and a newline, so a guard that reads it with
// `if read -r line` takes its branch (without the newline read fails at
// end of input and the guard lets every call through).
func TestPayloadEndsWithNewline(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "if read -r line; then echo \"read: ${#line}\" >&2; exit 2; fi; exit 0"}
]}]}}`})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Outcome != report.OutcomeBlocked || !strings.HasPrefix(rep.Runs[0].Reason, "exit status 2: read: ") {
		t.Errorf("runs %+v, want one blocked by the guard that read its line", rep.Runs)
	}
}
