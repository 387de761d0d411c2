package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// stepWorkflow is a workflow of one vigiles step, of the job job, that
// fails at fail-level.
func stepWorkflow(job, failLevel string) string {
	return "on: [pull_request]\njobs:\n  " + job + ":\n    runs-on: ubuntu-latest\n    steps:\n" +
		"      - uses: actions/checkout@v4\n      - uses: vigiles/action@v1\n        with:\n          fail-level: " + failLevel + "\n"
}

// localRepo makes a repository at a new top whose policy, plugin and
// baseline (prBase's) lie in its directory sub and whose workflow files
// (wfs, by name in .github/workflows) lie at its top, and commits them
// as the base. It returns the top and sub.
func localRepo(t *testing.T, wfs map[string]string) (top, sub string) {
	t.Helper()
	top, _ = filepath.EvalSymlinks(t.TempDir())
	sub = filepath.Join(top, "sub")
	writeFilesIn(t, sub, prBase(t))
	files := map[string]string{}
	for name, text := range wfs {
		files[".github/workflows/"+name] = text
	}
	writeFilesIn(t, top, files)
	gitIn(t, top, "init", "-q")
	if code, _, errs := runCLI(t, "audit", "--dir", sub, "-q", "--jobs", "1", "--update-baseline"); code != 0 {
		t.Fatalf("the base's baseline: exit %d: %s", code, errs)
	}
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "commit", "-q", "-m", "base")
	return top, sub
}

// reportWithEnv is reportOf with the environment env.
func reportWithEnv(t *testing.T, env map[string]string, args ...string) (int, *report.Report) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "r.json")
	var out, errb bytes.Buffer
	err := run(context.Background(), append(args, "-q", "--jobs", "1", "--format", "json", "-o", p), func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	code := exitCode(err, &errb, false)
	data, rerr := os.ReadFile(p)
	if rerr != nil {
		t.Fatalf("%s: exit %d, no report: %s", strings.Join(args, " "), code, errb.String())
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	return code, &rep
}

// TestPolicyBaseLocallyNamesWhatTheChangeWeakensOfItsWorkflows: a local
// audit or test with --policy-base, which no GITHUB_WORKFLOW_REF tells
// which workflow runs, compares every workflow file of the repository
// that holds a vigiles step with the base's, as the work tree holds it
// (an uncommitted change too): a workflow whose vigiles step is weakened
// is named at each line, and one the change deletes is named removed,
// which the pull request's check, run by the workflow as the change has
// it, cannot name; a workflow strengthened, and one deleted that ran no
// vigiles step, name nothing. Findings are named relative to --dir, as
// the policy file's. Before, the workflows were not compared locally,
// and each change passed unnamed. Under a workflow (GITHUB_WORKFLOW_REF
// set) the workflows are not compared, as before.
func TestPolicyBaseLocallyNamesWhatTheChangeWeakensOfItsWorkflows(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	top, sub := localRepo(t, map[string]string{
		"vigiles.yml":  prWorkflow(t),
		"nightly.yaml": stepWorkflow("nightly", "warning"),
		"strict.yml":   stepWorkflow("strict", "warning"),
		"lint.yml":     "on: [push]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint\n",
	})
	wf := filepath.Join(top, ".github/workflows")
	for _, name := range []string{"nightly.yaml", "lint.yml"} {
		if err := os.Remove(filepath.Join(wf, name)); err != nil {
			t.Fatal(err)
		}
	}
	writeFilesIn(t, wf, map[string]string{"strict.yml": stepWorkflow("strict", "notice")})
	gitIn(t, top, "commit", "-q", "-a", "-m", "ci: fewer workflows, a stricter one")
	// The weakening is left uncommitted: what the developer is about to
	// commit is read, not HEAD.
	head := strings.NewReplacer(
		"fail-level: warning", "fail-level: none",
		"        uses: vigiles/action@v1\n", "        uses: vigiles/action@v1\n        continue-on-error: true\n",
	).Replace(prWorkflow(t))
	writeFilesIn(t, wf, map[string]string{"vigiles.yml": head})

	for _, cmd := range []string{"audit", "test"} {
		code, rep := reportOf(t, cmd, "--dir", sub, "--policy-base", "HEAD~1")
		if code != 0 {
			t.Errorf("%s --policy-base: exit %d, want 0: the findings are warnings", cmd, code)
		}
		if fs := findingsOf(rep, runner.RulePolicyBase, runner.RuleBaselineByPR); len(fs) != 0 {
			t.Errorf("%s --policy-base: %+v, want the base read and nothing else named", cmd, fs)
		}
		want := map[string]string{
			"../.github/workflows/vigiles.yml:11": `has continue-on-error: "true", where it was "false"`,
			"../.github/workflows/vigiles.yml:15": `has fail-level: "none", where it was "warning"`,
			"../.github/workflows/nightly.yaml:0": `this change removes the workflow .github/workflows/nightly.yaml and its 1 vigiles step(s) (vigiles step 1 of the job "nightly")`,
		}
		wantWeakenedAt(t, cmd+" --policy-base: ", rep, want, func(f report.Finding) bool {
			return strings.Contains(f.Message, `--policy-base "HEAD~1"`) && strings.HasPrefix(f.Evidence, "base commit ")
		})
	}

	// Under a workflow, which the action's own check compares: as before.
	code, rep := reportWithEnv(t, map[string]string{"GITHUB_WORKFLOW_REF": "octo/plugins/.github/workflows/vigiles.yml@refs/heads/main"}, "audit", "--dir", sub, "--policy-base", "HEAD~1")
	if fs := findingsOf(rep, runner.RulePolicyWeakened, runner.RulePolicyBase); code != 0 || len(fs) != 0 {
		t.Errorf("audit --policy-base under GITHUB_WORKFLOW_REF: exit %d, %+v, want no workflow compared", code, fs)
	}
}

// TestPolicyBaseLocallyOfStrongerWorkflowsNamesNothing: a change whose
// workflows' vigiles steps only check more (a stricter fail-level, a
// workflow as it was, one that runs no vigiles step changed) names
// nothing against its base, and a workflow it adds with a vigiles step
// is one notice that its steps are new, compared with none.
func TestPolicyBaseLocallyOfStrongerWorkflowsNamesNothing(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	top, sub := localRepo(t, map[string]string{
		"vigiles.yml": stepWorkflow("vigiles", "error"),
		"same.yml":    stepWorkflow("same", "warning"),
		"lint.yml":    "on: [push]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint\n",
	})
	writeFilesIn(t, filepath.Join(top, ".github/workflows"), map[string]string{
		"vigiles.yml": stepWorkflow("vigiles", "warning"),
		"lint.yml":    "on: [push]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make lint || true\n",
		"added.yml":   stepWorkflow("added", "error"),
	})
	for _, cmd := range []string{"audit", "test"} {
		code, rep := reportOf(t, cmd, "--dir", sub, "--policy-base", "HEAD")
		if fs := findingsOf(rep, runner.RulePolicyWeakened, runner.RuleBaselineByPR); code != 0 || len(fs) != 0 {
			t.Errorf("%s --policy-base of stronger workflows: exit %d, %+v", cmd, code, fs)
		}
		un := findingsOf(rep, runner.RulePolicyBase)
		if len(un) != 1 || un[0].Severity != report.SeverityNotice || un[0].Location.File != "../.github/workflows/added.yml" || !strings.Contains(un[0].Message, "has no workflow .github/workflows/added.yml, so its 1 vigiles step(s) are new") {
			t.Errorf("%s --policy-base of a workflow added: %+v, want one notice that its step is new", cmd, un)
		}
	}
}
