package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestPolicyBaseOfFilesTheBaseLacks: a pull request that adds the policy
// file and the baseline its base has not at those paths (or that moves
// them there, the workflow's config or baseline input naming the new
// path) is compared with what the base ran without them: the policy's
// settings with vigiles' defaults (a limit lowered below its default is
// named), and every run its baseline accepts is accepted anew. Before,
// a base without the file compared nothing, and named nothing.
func TestPolicyBaseOfFilesTheBaseLacks(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	files := prBase(t)
	delete(files, ".vigiles.yml")
	writeFilesIn(t, dir, files)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "base: no policy, no baseline")
	policy := "version: 1\ndefaults:\n  limits:\n    pids: 64\nplugins:\n  untrusted: [\"plugins/*\"]\nchecks:\n  - name: notes exits 0\n    hook: notes\n    event: Stop\n    expect:\n      exit-code: 0\n"
	if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "audit", "--dir", dir, "-q", "--jobs", "1", "--update-baseline"); code != 0 {
		t.Fatalf("the head's baseline: exit %d: %s", code, errs)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "head: a policy and a baseline")

	code, rep := reportOf(t, "audit", "--dir", dir, "--policy-base", "HEAD~1")
	weak, acc := findingsOf(rep, runner.RulePolicyWeakened), findingsOf(rep, runner.RuleBaselineByPR)
	if code != 0 || len(weak) != 1 || !strings.Contains(weak[0].Message, "defaults.limits.pids is 64, where it was 512") || !strings.Contains(weak[0].Message, "which has no .vigiles.yml") {
		t.Errorf("audit --policy-base of a base without the policy file: exit %d, policy/weakened %+v, want the pids limit lowered named", code, weak)
	}
	if len(acc) != 1 || !strings.Contains(acc[0].Message, "accepts a run its base did not know") || acc[0].Location.File != runner.DefaultBaseline {
		t.Errorf("audit --policy-base of a base without the baseline: baseline/accepted-by-pr %+v, want the run accepted named", acc)
	}
}
