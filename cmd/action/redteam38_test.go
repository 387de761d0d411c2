package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestRedteam38CallsPastTheBudgetAreAWarning: round thirty-eight. A pull
// request that weakens the composite action its check runs vigiles
// through, and adds a job of many uses: ./… of directories that hold no
// action, ahead of the check: each is looked up, and the files read of
// what the workflow calls reach maxCalledFiles before the check's
// composite action is. Before, the base's reads shared that budget with
// the head's, so the base's composite action read as none too, neither
// side held a vigiles step vigiles knew, and the run said only a notice
// that the workflow names no vigiles step, the weakening unnamed.
func TestRedteam38CallsPastTheBudgetAreAWarning(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s, src, wf, base := callsRepo(t)
	head := callsFiles(wf, "sandbox: strict\n        fail-level", "sandbox: off\n        fail-level")
	junk := "on: [pull_request]\njobs:\n  aaa:\n    runs-on: ubuntu-latest\n    steps:\n"
	for i := range maxCalledFiles {
		junk += fmt.Sprintf("      - uses: ./n%d\n", i)
	}
	head[wf] = junk + strings.TrimPrefix(head[wf], "on: [pull_request]\njobs:\n")
	writeFilesIn(t, src, head)
	gitIn(t, src, "commit", "-q", "-a", "-m", "ci: lint")

	shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	_, rep := checkStepInert(t, s)
	unread := findingsOf(rep, runner.RulePolicyBase)
	if !slices.ContainsFunc(unread, func(f report.Finding) bool {
		return f.Severity == report.SeverityWarning && strings.Contains(f.Message, "not all of which were read") && strings.Contains(f.Message, "more than 256 files called")
	}) {
		t.Errorf("findings %+v, want a policy/base-unread warning that what is called was not all read", unread)
	}
	// The base's own calls read in full: its check's job and step that
	// the change's no longer reach are named.
	want := map[string]string{wf + ":262": `the job "audit", which called ".github/workflows/audit.yml" and its vigiles steps, is removed`, wf + ":267": `vigiles step 1 of the job "check" is removed`}
	wantWeakenedAt(t, "", rep, want, nil)
}

// TestRedteam38HostileNamesOfCalledFilesAreInert: round thirty-eight. A
// pull request whose check runs vigiles through a composite action and
// a reusable workflow of the repository named with hostile text
// (hostileFile's: a workflow command after LF and CR, markdown),
// and weakens both: the findings at those files, and the messages that
// quote their paths, reach every surface the action writes inert
// (checkStepInert), and each weakening is named at its file.
func TestRedteam38HostileNamesOfCalledFilesAreInert(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newHostileStep(t)
	s.env["INPUT_BASELINE"] = runner.DefaultBaseline
	src, _ := filepath.EvalSymlinks(t.TempDir())
	wf := ".github/workflows/vigiles.yml"
	// GitHub refuses a local uses: with an @ (a ref): the name is
	// hostileFile's without its mention.
	name := strings.ReplaceAll(hostileFile, "@", "")
	dir, called := ".github/actions/"+name, ".github/workflows/"+name+".yml"
	files := func(weaken ...string) map[string]string {
		f := callsFiles(wf, weaken...)
		f[wf] = strings.NewReplacer("./.github/workflows/audit.yml", jsonString(t, "./"+called), "./.github/actions/check", jsonString(t, "./"+dir)).Replace(f[wf])
		f[called], f[dir+"/action.yml"] = f[".github/workflows/audit.yml"], f[".github/actions/check/action.yml"]
		delete(f, ".github/workflows/audit.yml")
		delete(f, ".github/actions/check/action.yml")
		return f
	}
	writeFilesIn(t, src, files())
	base := commitBase(t, src)
	writeFilesIn(t, src, files("sandbox: strict", "sandbox: off"))
	gitIn(t, src, "commit", "-q", "-a", "-m", "ci: quieter")

	shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	_, rep := checkStepInert(t, s)
	want := map[string]bool{called: true, dir + "/action.yml": true}
	for _, f := range findingsOf(rep, runner.RulePolicyWeakened, runner.RulePolicyBase) {
		if !want[f.Location.File] || f.Rule != runner.RulePolicyWeakened || !strings.Contains(f.Message, `has sandbox: "off", where it was "strict"`) {
			t.Errorf("a finding other than wanted: %+v", f)
		}
		delete(want, f.Location.File)
	}
	if len(want) != 0 {
		t.Errorf("not named at %v; findings %+v", want, rep.Findings)
	}
}

// TestRedteam38LocalLinkedActionFileIsAWarning: round thirty-eight.
// Locally (--policy-base), a composite action whose action.yml the
// change makes a link to a weakened copy (GitHub follows it, and reads
// action.yml before action.yaml) beside an action.yaml as the base's
// action.yml was: the link is not followed, and is a policy/base-unread
// warning. Before, the link read as no file, action.yaml was read in its
// place, and the check compared as unchanged, nothing named.
func TestRedteam38LocalLinkedActionFileIsAWarning(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	files := callsFiles(".github/workflows/vigiles.yml")
	top, sub := localRepo(t, map[string]string{"vigiles.yml": files[".github/workflows/vigiles.yml"], "audit.yml": files[".github/workflows/audit.yml"]})
	writeFilesIn(t, top, map[string]string{".github/actions/check/action.yml": callsComposite})
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "commit", "-q", "-m", "ci: the composite action")
	action := filepath.Join(top, ".github/actions/check")
	writeFilesIn(t, top, map[string]string{".github/actions/check/action.yaml": callsComposite, ".github/actions/weak/action.yml": strings.Replace(callsComposite, "sandbox: strict", "sandbox: off", 1)})
	if err := os.Remove(filepath.Join(action, "action.yml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../weak/action.yml", filepath.Join(action, "action.yml")); err != nil {
		t.Fatal(err)
	}

	_, rep := reportOf(t, "audit", "--dir", sub, "--policy-base", "HEAD")
	fs := findingsOf(rep, runner.RulePolicyBase)
	if len(fs) != 1 || fs[0].Severity != report.SeverityWarning || !strings.Contains(fs[0].Message, `".github/actions/check/action.yml" could not be (it is a symbolic link`) {
		t.Errorf("findings %+v, want one policy/base-unread warning that the link was not read", rep.Findings)
	}
}

// TestRedteam38LocalWorkflowsDirLinkedOutIsNotRead: round thirty-eight.
// Locally, a work tree whose .github/workflows is a link out of the
// repository (GitHub reads the commit's tree, where it is a link, and
// runs none of it): no file there is read, where before the files of the
// link's target were each read as a workflow of the change and named.
func TestRedteam38LocalWorkflowsDirLinkedOutIsNotRead(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	top, sub := localRepo(t, map[string]string{"other.yml": "on: [push]\njobs: {}\n"})
	out, _ := filepath.EvalSymlinks(t.TempDir())
	writeFilesIn(t, out, map[string]string{"outside.yml": callsFiles("x")[".github/workflows/audit.yml"]})
	if err := os.RemoveAll(filepath.Join(top, ".github/workflows")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(top, ".github/workflows")); err != nil {
		t.Fatal(err)
	}
	_, rep := reportOf(t, "audit", "--dir", sub, "--policy-base", "HEAD")
	for _, f := range rep.Findings {
		if strings.Contains(f.Location.File, "outside.yml") || strings.Contains(f.Message, "outside.yml") {
			t.Errorf("a file out of the repository read as its workflow: %+v", f)
		}
	}
}

// TestRedteam38LinkedActionFileAtHeadIsAWarning: round thirty-eight. A
// pull request that makes its check's composite action.yml a link whose
// target's text is itself a composite action as the base's was (flow
// YAML, a slash written \x2f: one name), and adds a file of that name
// beside it holding a weakened copy: the checkout makes the link, and
// the runner follows it to the weakened copy. The link is not read as
// its target's name: a policy/base-unread warning says it was not read.
// Before, git's blob of the link, its target's text, was read as the
// action, which compared as the base's, and nothing was named.
func TestRedteam38LinkedActionFileAtHeadIsAWarning(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s, src, wf, base := callsRepo(t)
	dir := filepath.Join(src, ".github/actions/check")
	target := `{name: check, inputs: {level: {default: warning}}, runs: {using: composite, steps: [{uses: "vigiles\x2faction@v1", with: {sandbox: strict, fail-level: "${{ inputs.level }}"}}]}}`
	weak := strings.Replace(callsComposite, "sandbox: strict", "sandbox: off", 1)
	if err := os.WriteFile(filepath.Join(dir, target), []byte(weak), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "action.yml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, "action.yml")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "-q", "-m", "ci: tidy")

	shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	_, rep := checkStepInert(t, s)
	if !slices.ContainsFunc(findingsOf(rep, runner.RulePolicyBase), func(f report.Finding) bool {
		return f.Severity == report.SeverityWarning && strings.Contains(f.Message, `".github/actions/check/action.yml" could not be (it is a symbolic link`)
	}) {
		t.Errorf("findings %+v, want a policy/base-unread warning that the linked action.yml was not read", rep.Findings)
	}
}
