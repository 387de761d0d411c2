package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// The base's workflow files of a check whose vigiles steps are not in the
// file GITHUB_WORKFLOW_REF names: the caller's job calls a reusable
// workflow of the repository, and a step of its other job uses a
// composite action of the repository; each holds a vigiles step whose
// fail-level is an input the caller passes.
const (
	callsCaller = "on: [pull_request]\njobs:\n  audit:\n    uses: ./.github/workflows/audit.yml\n    with:\n      level: warning\n    secrets: inherit\n" +
		"  check:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: ./.github/actions/check\n        with:\n          level: warning\n"
	callsCalled = "on:\n  workflow_call:\n    inputs:\n      level:\n        type: string\n        default: warning\njobs:\n  vigiles:\n    runs-on: ubuntu-latest\n    steps:\n" +
		"      - uses: actions/checkout@v4\n      - uses: vigiles/action@v1\n        with:\n          command: audit\n          sandbox: strict\n          fail-level: ${{ inputs.level }}\n"
	callsComposite = "name: check\ninputs:\n  level:\n    default: warning\nruns:\n  using: composite\n  steps:\n" +
		"    - uses: vigiles/action@v1\n      with:\n        sandbox: strict\n        fail-level: ${{ inputs.level }}\n"
)

// callsFiles are callsCaller at wf, callsCalled and callsComposite, with
// each replacement of weaken made.
func callsFiles(wf string, weaken ...string) map[string]string {
	r := strings.NewReplacer(weaken...)
	return map[string]string{
		wf:                                 r.Replace(callsCaller),
		".github/workflows/audit.yml":      r.Replace(callsCalled),
		".github/actions/check/action.yml": r.Replace(callsComposite),
	}
}

// callsWeakening is what the pull request does: the caller passes
// fail-level none to the reusable workflow, which runs vigiles with no
// sandbox, and the composite action's default and sandbox are lowered.
var callsWeakening = []string{
	"    with:\n      level: warning\n    secrets", "    with:\n      level: none\n    secrets",
	"sandbox: strict\n          fail-level", "sandbox: off\n          fail-level",
	"default: warning\nruns", "default: none\nruns",
	"sandbox: strict\n        fail-level", "sandbox: auto\n        fail-level",
}

// callsWant is where each weakening is named, and what it says.
func callsWant(prefix, wf string) map[string]string {
	return map[string]string{
		prefix + wf + ":6":                             `the job "audit", which calls ".github/workflows/audit.yml", has the input "level": "none", where it was "warning"`,
		prefix + ".github/workflows/audit.yml:15":      `has sandbox: "off", where it was "strict"`,
		prefix + ".github/actions/check/action.yml:4":  `the input "level" has default: "none", where it was "warning"`,
		prefix + ".github/actions/check/action.yml:10": `has sandbox: "auto", where it was "strict"`,
	}
}

// callsRepo is a pull request's step s (an audit against the default
// baseline) and its repository src, whose base commit holds callsFiles of
// wf, the workflow the job runs.
func callsRepo(t *testing.T) (s *simulatedStep, src, wf, base string) {
	t.Helper()
	s = newHostileStep(t)
	s.env["INPUT_BASELINE"] = runner.DefaultBaseline
	src, _ = filepath.EvalSymlinks(t.TempDir())
	wf = ".github/workflows/vigiles.yml"
	writeFilesIn(t, src, callsFiles(wf))
	return s, src, wf, commitBase(t, src)
}

// TestActionNamesWhatThePullRequestWeakensThroughWhatItsWorkflowCalls: a
// pull request whose check runs vigiles in a reusable workflow of the
// repository (GITHUB_WORKFLOW_REF names the caller: GitHub's context in
// a called workflow is the caller's, and nothing in the step's
// environment names the called file) and in a composite action of the
// repository (GITHUB_ACTION_PATH is vigiles' own), and that weakens
// both, the called file, the action's file and what the caller passes
// them, is named at each line, read from git as the workflow is. Before,
// the caller was one notice that it named no vigiles step, and none of
// these was named.
func TestActionNamesWhatThePullRequestWeakensThroughWhatItsWorkflowCalls(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s, src, wf, base := callsRepo(t)
	writeFilesIn(t, src, callsFiles(wf, callsWeakening...))
	gitIn(t, src, "commit", "-q", "-a", "-m", "ci: quieter")

	shallowCheckout(t, s, src)
	runOnPullRequest(t, s, base, wf)
	if s.exitCode != 0 {
		t.Fatalf("exit %d, want 0: the findings are warnings\n%s\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	_, rep := checkStepInert(t, s)
	if fs := findingsOf(rep, runner.RulePolicyBase, runner.RuleBaselineByPR); len(fs) != 0 {
		t.Fatalf("findings %+v, want the base read, its workflow compared and its baseline as it was", fs)
	}
	want := callsWant("", wf)
	wantWeakenedAt(t, "", rep, want, func(f report.Finding) bool { return strings.HasPrefix(f.Evidence, "base commit ") })
}

// TestPolicyBaseLocallyNamesWhatTheChangeWeakensThroughWhatItsWorkflowsCall:
// locally (--policy-base), where every workflow file is compared on its
// own, the same change is named each at its line: the called workflow as
// a workflow file, the call and the composite action through the caller,
// the composite action once though two workflow files use it.
func TestPolicyBaseLocallyNamesWhatTheChangeWeakensThroughWhatItsWorkflowsCall(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	files := callsFiles(".github/workflows/vigiles.yml")
	nightly := "on: [schedule]\njobs:\n  check:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./.github/actions/check\n        with:\n          level: warning\n"
	top, sub := localRepo(t, map[string]string{"vigiles.yml": files[".github/workflows/vigiles.yml"], "audit.yml": files[".github/workflows/audit.yml"], "nightly.yml": nightly})
	writeFilesIn(t, top, map[string]string{".github/actions/check/action.yml": callsComposite})
	gitIn(t, top, "add", "-A")
	gitIn(t, top, "commit", "-q", "-m", "ci: the composite action")
	writeFilesIn(t, top, callsFiles(".github/workflows/vigiles.yml", callsWeakening...))

	code, rep := reportOf(t, "audit", "--dir", sub, "--policy-base", "HEAD")
	if code != 0 {
		t.Errorf("exit %d, want 0: the findings are warnings", code)
	}
	if fs := findingsOf(rep, runner.RulePolicyBase, runner.RuleBaselineByPR); len(fs) != 0 {
		t.Errorf("%+v, want the base read and nothing else named", fs)
	}
	want := callsWant("../", ".github/workflows/vigiles.yml")
	wantWeakenedAt(t, "", rep, want, nil)
}
