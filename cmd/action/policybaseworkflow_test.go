package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// prWorkflow is the base's workflow: a vigiles audit step, named with
// hostile text (a step's name is the pull request's to choose), that
// fails at a warning and allows one host.
func prWorkflow(t *testing.T) string {
	return "name: vigiles\non: [pull_request]\njobs:\n  vigiles:\n    runs-on: ubuntu-latest\n    steps:\n" +
		"      - uses: actions/checkout@v4\n        with: {fetch-depth: 2}\n" +
		"      - name: " + jsonString(t, hostileText) + "\n        uses: vigiles/action@v1\n        with:\n" +
		"          command: audit\n          baseline: .vigiles/baseline.json\n          fail-level: warning\n          allow: api.example.test\n"
}

// TestActionNamesWhatThePullRequestWeakensOfItsWorkflow: a pull request
// that leaves the policy file and baseline as they were, but weakens the
// vigiles step of the workflow it is checked by (fail-level: none,
// continue-on-error: true, a hostile host added to allow), is named at
// each line of the workflow file (GITHUB_WORKFLOW_REF), read from git as
// the base's policy is (a shallow clone of a bare origin, the base
// fetched once), the hostile step name and host inert in every sink
// (checkStepInert). Before, the workflow was not compared, and such a
// pull request was named nowhere.
func TestActionNamesWhatThePullRequestWeakensOfItsWorkflow(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newHostileStep(t)
	s.env["INPUT_BASELINE"] = runner.DefaultBaseline
	src, _ := filepath.EvalSymlinks(t.TempDir())
	wf := ".github/workflows/vigiles.yml"
	writeFilesIn(t, src, map[string]string{wf: prWorkflow(t)})
	base := commitBase(t, src)
	head := strings.NewReplacer(
		"fail-level: warning", "fail-level: none",
		"        uses: vigiles/action@v1\n", "        uses: vigiles/action@v1\n        continue-on-error: true\n",
		"allow: api.example.test", "allow: "+jsonString(t, "api.example.test,"+hostileHost),
	).Replace(prWorkflow(t))
	writeFilesIn(t, src, map[string]string{wf: head})
	gitIn(t, src, "commit", "-q", "-a", "-m", "ci: quieter")

	ws, _ := shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	if s.exitCode != 0 {
		t.Fatalf("exit %d, want 0: the findings are warnings\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	summary, rep := checkStepInert(t, s)
	if fs := findingsOf(rep, runner.RulePolicyBase, runner.RuleBaselineByPR); len(fs) != 0 {
		t.Fatalf("findings %+v, want the base read and its baseline as it was", fs)
	}
	weak := findingsOf(rep, runner.RulePolicyWeakened)
	want := map[int]string{11: `has continue-on-error: "true", where it was "false"`, 15: `has fail-level: "none", where it was "warning"`, 16: `has allow adding "h", "::error::FORGED-HOST`}
	for _, f := range weak {
		if f.Location.File != wf || !strings.Contains(f.Message, want[f.Location.Line]) || !strings.Contains(f.Message, "FORGED-LF") || !strings.HasPrefix(f.Evidence, "base commit ") {
			t.Errorf("a finding other than wanted: %+v", f)
		}
		delete(want, f.Location.Line)
	}
	if len(want) != 0 {
		t.Fatalf("not named: %v; findings %+v", want, rep.Findings)
	}
	sarif, _ := os.ReadFile(filepath.Join(ws, "v.sarif"))
	for _, text := range []string{"FORGED-LF", "FORGED-HOST", wf} {
		for where, got := range map[string]string{"the annotations": s.stdout.String(), "the step summary": summary, "the SARIF file": string(sarif), "the check run": checkRunText(s)} {
			if !strings.Contains(got, text) {
				t.Errorf("%s do not name %s", where, text)
			}
		}
	}
}

// TestReadWorkflowBaseReadsTheRefStrictly: GITHUB_WORKFLOW_REF is
// environment text: one that names no workflow file of this repository
// compares nothing and says why; one that does is read at the base and at
// HEAD, named relative to a working-directory below the top (which the
// action then puts under it), and the action's own directory, where it is
// the repository, is its local action.
func TestReadWorkflowBaseReadsTheRefStrictly(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	wf := ".github/workflows/v.yml"
	writeFilesIn(t, dir, map[string]string{wf: "on: pull_request\n", "sub/x": "x\n"})
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	base := gitIn(t, dir, "rev-parse", "HEAD")
	writeFilesIn(t, dir, map[string]string{wf: "on: [pull_request]\n"})
	gitIn(t, dir, "commit", "-q", "-a", "-m", "head")
	env := map[string]string{"GITHUB_REPOSITORY": "octo/plugins", "GITHUB_ACTION_PATH": dir}
	read := func(ref string) *runner.WorkflowBase {
		env["GITHUB_WORKFLOW_REF"] = ref
		return readWorkflowBase(context.Background(), func(k string) string { return env[k] }, filepath.Join(dir, "sub"), base)
	}
	for _, ref := range []string{
		"",
		"octo/plugins/" + wf, // no ref
		"octo/plugins/.github/workflows/../../x.yml@refs/a",  // out of .github/workflows
		"octo/plugins/.github/workflows/sub/v.yml@refs/a",    // no such file GitHub runs
		"octo/plugins/" + wf + "@refs/a\n::error::FORGED",    // a line break
		"octo/plugins/.github/workflows/v.yml\x00@refs/pull", // a NUL
		"other/repo/" + wf + "@refs/heads/main",              // another repository's
	} {
		if w := read(ref); w.NotCompared == "" || w.Head != nil {
			t.Errorf("GITHUB_WORKFLOW_REF %q: %+v, want nothing read and why", ref, w)
		}
	}
	w := read("Octo/Plugins/" + wf + "@refs/pull/7/merge")
	if w.NotCompared != "" || w.Unread != "" || !w.BaseThere || string(w.Base) != "on: pull_request\n" || string(w.Head) != "on: [pull_request]\n" ||
		w.File != "../"+wf || w.Shown != wf || w.LocalAction != "." {
		t.Errorf("a workflow of this repository: %+v", w)
	}
}
