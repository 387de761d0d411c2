package runner

import (
	"fmt"
	"maps"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/report"
)

// A pull request's check whose vigiles step is not in the workflow file
// GitHub names (GITHUB_WORKFLOW_REF names the caller of a reusable
// workflow, and a composite action runs vigiles from vigiles' own
// directory): the caller, the reusable workflow it calls and the
// composite action, each of the repository.
const (
	callerWorkflow = `on: [pull_request]
jobs:
  audit:
    uses: ./.github/workflows/audit.yml
    with:
      level: warning
    secrets: inherit
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: wrapped
        uses: ./.github/actions/check
        with:
          level: warning
`
	calledWorkflow = `on:
  workflow_call:
    inputs:
      level:
        type: string
        default: warning
jobs:
  vigiles:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: audit
        uses: vigiles/action@v1
        with:
          command: audit
          sandbox: strict
          fail-level: ${{ inputs.level }}
`
	compositeAction = `name: check
inputs:
  level:
    default: warning
runs:
  using: composite
  steps:
    - id: test
      uses: vigiles/action@v1
      with:
        sandbox: strict
        fail-level: ${{ inputs.level }}
`
)

const (
	callerFile    = ".github/workflows/v.yml"
	calledFile    = ".github/workflows/audit.yml"
	compositeFile = ".github/actions/check/action.yml"
)

// callFiles are the repository's files of one side.
func callFiles() map[string]string {
	return map[string]string{callerFile: callerWorkflow, calledFile: calledWorkflow, compositeFile: compositeAction}
}

// callFindings compares the caller's workflow of head with base's, each
// side's other files read through Read.
func callFindings(base, head map[string]string, apart bool) []report.Finding {
	w := &WorkflowBase{File: callerFile, Shown: callerFile, Base: []byte(base[callerFile]), BaseThere: true, Head: []byte(head[callerFile]), CalledApart: apart,
		Read: func(b bool, p string) ([]byte, bool, error) {
			files := head
			if b {
				files = base
			}
			data, ok := files[p]
			return []byte(data), ok, nil
		}}
	return compareWorkflow(w, "base")
}

// TestWorkflowCallsAreCompared: a pull request that weakens its check in
// a reusable workflow the job calls, in a composite action a step uses,
// or in what the caller passes either (with:, an input's default), is a
// policy/weakened warning at its line of the file that holds it, where
// the caller was one notice that named no vigiles step and each such
// change passed unnamed.
func TestWorkflowCallsAreCompared(t *testing.T) {
	tests := []struct {
		name, file, old, new string
		at                   string // file:line
		want                 string
	}{
		{"called sandbox off", calledFile, "sandbox: strict", "sandbox: off", calledFile + ":16", `has sandbox: "off", where it was "strict"`},
		{"called continue-on-error", calledFile, "      - id: audit\n", "      - id: audit\n        continue-on-error: true\n", calledFile + ":13", `has continue-on-error: "true"`},
		{"called job if", calledFile, "  vigiles:\n", "  vigiles:\n    if: false\n", calledFile + ":9", `the job "vigiles" runs if: "false"`},
		{"called default", calledFile, "default: warning", "default: none", calledFile + ":6", `the input "level" has default: "none", where it was "warning"`},
		{"called step before", calledFile, "      - uses: actions/checkout@v4\n", "      - uses: actions/checkout@v4\n      - run: ./evil\n", calledFile + ":12", `runs a step (run: "./evil") before its vigiles step`},
		{"caller with", callerFile, "    with:\n      level: warning", "    with:\n      level: none", callerFile + ":6", `the job "audit", which calls ".github/workflows/audit.yml", has the input "level": "none", where it was "warning"`},
		{"caller with dropped", callerFile, "    with:\n      level: warning\n", "", callerFile + ":4", `has no input "level", where it was "warning"`},
		{"caller if", callerFile, "  audit:\n", "  audit:\n    if: false\n", callerFile + ":4", `the job "audit", which calls ".github/workflows/audit.yml", runs if: "false"`},
		{"caller needs", callerFile, "  audit:\n", "  audit:\n    needs: lint\n", callerFile + ":4", `has needs: "lint"`},
		{"caller job removed", callerFile, "  audit:\n    uses: ./.github/workflows/audit.yml\n    with:\n      level: warning\n    secrets: inherit\n", "", callerFile + ":2", `the job "audit", which called ".github/workflows/audit.yml" and its vigiles steps, is removed`},
		{"composite sandbox off", compositeFile, "sandbox: strict", "sandbox: off", compositeFile + ":11", `has sandbox: "off", where it was "strict"`},
		{"composite default", compositeFile, "default: warning", "default: none", compositeFile + ":4", `the input "level" has default: "none"`},
		{"composite step before", compositeFile, "  steps:\n", "  steps:\n    - run: ./evil\n      shell: bash\n", compositeFile + ":8", `the job "runs" runs a step (run: "./evil") before its vigiles step`},
		{"wrapper with", callerFile, "        with:\n          level: warning", "        with:\n          level: none", callerFile + ":15", `the vigiles step "wrapped" of the job "check", which runs vigiles through the composite action ".github/actions/check", has the input "level": "none"`},
		{"wrapper continue-on-error", callerFile, "      - id: wrapped\n", "      - id: wrapped\n        continue-on-error: true\n", callerFile + ":13", `the vigiles step "wrapped" of the job "check" has continue-on-error: "true"`},
		{"wrapper step before", callerFile, "      - uses: actions/checkout@v4\n", "      - uses: actions/checkout@v4\n      - run: ./evil\n", callerFile + ":12", `the job "check" runs a step (run: "./evil") before its vigiles step`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := callFiles()
			if !strings.Contains(head[tt.file], tt.old) {
				t.Fatalf("%s has no %q", tt.file, tt.old)
			}
			head[tt.file] = strings.Replace(head[tt.file], tt.old, tt.new, 1)
			finds := callFindings(callFiles(), head, false)
			if len(finds) != 1 {
				t.Fatalf("%d findings, want 1: %+v", len(finds), finds)
			}
			f := finds[0]
			if at := fmt.Sprintf("%s:%d", f.Location.File, f.Location.Line); f.Rule != RulePolicyWeakened || at != tt.at || !strings.Contains(f.Message, tt.want) {
				t.Errorf("finding %s %+v, want policy/weakened at %s saying %q", at, f, tt.at, tt.want)
			}
		})
	}
}

// TestWorkflowCallsElsewhereAreComparedWithWhatWasCalled: a job that
// calls another reusable workflow of the repository than the base's did,
// or a step another composite action, is named, and the file it calls
// now is compared with the one it called; a call nested in a called
// workflow is followed; a call that comes back to its own file, or one
// out of the repository (../), ends; and a local run (CalledApart),
// which compares each workflow file on its own, compares only the call.
func TestWorkflowCallsElsewhereAreComparedWithWhatWasCalled(t *testing.T) {
	head := callFiles()
	head[callerFile] = strings.Replace(callerWorkflow, "./.github/workflows/audit.yml", "./.github/workflows/weak.yml", 1)
	head[".github/workflows/weak.yml"] = strings.Replace(calledWorkflow, "sandbox: strict", "sandbox: off", 1)
	want := map[string]string{
		callerFile + ":4":               `which calls ".github/workflows/weak.yml", called ".github/workflows/audit.yml"`,
		".github/workflows/weak.yml:16": `has sandbox: "off", where it was "strict"`,
	}
	checkFindings(t, "another workflow called", callFindings(callFiles(), head, false), want)
	delete(want, ".github/workflows/weak.yml:16")
	checkFindings(t, "another workflow called, locally", callFindings(callFiles(), head, true), want)

	head = callFiles()
	head[callerFile] = strings.Replace(callerWorkflow, "./.github/actions/check", "./.github/actions/weak", 1)
	head[".github/actions/weak/action.yaml"] = strings.Replace(compositeAction, "sandbox: strict", "sandbox: off", 1)
	checkFindings(t, "another composite action", callFindings(callFiles(), head, false), map[string]string{
		callerFile + ":13":                    `uses "./.github/actions/weak", where it used "./.github/actions/check"`,
		".github/actions/weak/action.yaml:11": `has sandbox: "off", where it was "strict"`,
	})

	// Nested: the called workflow's vigiles job calls a third file.
	base := callFiles()
	base[calledFile] = "on: workflow_call\njobs:\n  inner:\n    uses: ./.github/workflows/../workflows/inner.yml\n  loop:\n    uses: ./.github/workflows/audit.yml\n  out:\n    uses: ./../other/.github/workflows/x.yml\n"
	base[".github/workflows/inner.yml"] = calledWorkflow
	head = callFiles()
	head[calledFile] = base[calledFile]
	head[".github/workflows/inner.yml"] = strings.Replace(calledWorkflow, "sandbox: strict", "sandbox: off", 1)
	checkFindings(t, "nested", callFindings(base, head, false), map[string]string{".github/workflows/inner.yml:16": `has sandbox: "off"`})

	// Many composite actions: those past maxCalledDocs are one notice.
	base = map[string]string{callerFile: "jobs:\n  a:\n    steps:\n"}
	for i := range maxCalledDocs + 10 {
		base[callerFile] += fmt.Sprintf("      - uses: ./a%d\n", i)
		base[fmt.Sprintf("a%d/action.yml", i)] = compositeAction
	}
	finds := callFindings(base, base, false)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || !strings.Contains(finds[0].Message, "those past them were not compared") {
		t.Errorf("%d composite actions: %+v, want one notice of those past %d", maxCalledDocs+10, finds, maxCalledDocs)
	}

	// As it was: nothing, and no notice that no step was found.
	checkFindings(t, "as it was", callFindings(callFiles(), callFiles(), false), map[string]string{})
}

// checkFindings wants finds to be policy/weakened, one at each of want's
// file:line saying its text.
func checkFindings(t *testing.T, what string, finds []report.Finding, want map[string]string) {
	t.Helper()
	left := map[string]string{}
	for k, v := range want {
		left[k] = v
	}
	for _, f := range finds {
		at := fmt.Sprintf("%s:%d", f.Location.File, f.Location.Line)
		if w, ok := left[at]; !ok || f.Rule != RulePolicyWeakened || !strings.Contains(f.Message, w) {
			t.Errorf("%s: a finding other than wanted at %s: %+v", what, at, f)
		}
		delete(left, at)
	}
	if len(left) != 0 {
		t.Errorf("%s: not named: %v; findings %+v", what, left, finds)
	}
}

// FuzzCompareWorkflowCalls: where every file a workflow calls is the
// fuzzer's own (a call of itself, a composite action that is the
// workflow, calls nested past GitHub's depth), the comparison ends, a
// side compared with itself names nothing weakened, and each finding has
// a file and words.
func FuzzCompareWorkflowCalls(f *testing.F) {
	f.Add([]byte(callerWorkflow), []byte(strings.Replace(callerWorkflow, "level: warning", "level: none", 1)))
	f.Add([]byte("jobs: {a: {uses: ./x.yml}}\n"), []byte("jobs: {a: {uses: ./x.yml, with: {a: b}}, b: {steps: [{uses: ./y}]}}\n"))
	f.Add([]byte("runs: {using: composite, steps: [{uses: ./a}, {uses: vigiles/action@v1}]}\njobs: {a: {steps: [{uses: ./z}]}}\n"), []byte("runs: {using: Composite, steps: [{uses: ./../a}]}\n"))
	f.Fuzz(func(t *testing.T, baseData, headData []byte) {
		hang := time.AfterFunc(20*time.Second, func() { panic(fmt.Sprintf("compareWorkflow hangs on %q and %q", baseData, headData)) })
		defer hang.Stop()
		w := &WorkflowBase{File: "w.yml", Shown: "w.yml", Base: baseData, BaseThere: true, Head: baseData}
		w.Read = func(base bool, p string) ([]byte, bool, error) {
			if base {
				return w.Base, true, nil
			}
			return w.Head, true, nil
		}
		for _, fd := range compareWorkflow(w, "base") {
			if fd.Rule == RulePolicyWeakened {
				t.Fatalf("a workflow compared with itself names %+v\n%s", fd, baseData)
			}
		}
		w.Head = headData
		for _, fd := range compareWorkflow(w, "base") {
			if fd.Location.File == "" || fd.Location.Line < 0 || fd.Message == "" {
				t.Fatalf("a finding without a place or words: %+v", fd)
			}
		}
	})
}

// TestWorkflowStepOfVendoredVigilesIsCompared: where no
// GITHUB_ACTION_PATH says which action runs (a local --policy-base), a
// step that uses the repository's own copy of vigiles (uses: ./, or
// ./vendor/vigiles: vigiles' action.yml, named vigiles with its inputs)
// is a vigiles step: a change that weakens it is named, and one that
// renames the copy's action.yml leaves the base's step matched by none,
// named removed, where such a step was not known as vigiles locally and
// nothing was compared.
func TestWorkflowStepOfVendoredVigilesIsCompared(t *testing.T) {
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{".", "vendor/vigiles"} {
		uses := "./" + strings.TrimPrefix(dir, ".")
		wf := "on: [pull_request]\njobs:\n  v:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: " + uses + "\n        with:\n          fail-level: warning\n"
		base := map[string]string{callerFile: wf, path.Join(dir, "action.yml"): string(action)}
		head := maps.Clone(base)
		head[callerFile] = strings.Replace(wf, "fail-level: warning", "fail-level: none", 1)
		checkFindings(t, uses+" weakened", callFindings(base, head, true), map[string]string{callerFile + ":9": `has fail-level: "none", where it was "warning"`})
		head = maps.Clone(base)
		head[path.Join(dir, "action.yml")] = strings.Replace(string(action), "name: vigiles", "name: lint", 1)
		// And the head's workflow names no vigiles step: a notice says so.
		finds := callFindings(base, head, true)
		if n := len(finds); n == 0 || finds[n-1].Rule != RulePolicyBase || !strings.Contains(finds[n-1].Message, "names no step that uses vigiles") {
			t.Fatalf("%s renamed: %+v, want a notice last that no vigiles step is named", uses, finds)
		}
		checkFindings(t, uses+" renamed", finds[:len(finds)-1], map[string]string{callerFile + ":3": `vigiles step 1 of the job "v" is removed`})
	}
}
