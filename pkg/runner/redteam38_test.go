package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestRedteam38NewCallsUseNoneOfTheComparedPairs: round thirty-eight. A
// pull request that adds, ahead of its check's composite action, more
// composite actions of its own that wrap vigiles than the pairs of files
// compared (maxCalledDocs), and weakens the check's: the new ones, which
// the base has not, are compared with nothing and count for nothing, so
// the check's composite action is compared and its weakening named.
// Before, each new one was a pair compared, the check's fell past the
// bound, and the weakening was one notice that those past it were not
// compared.
func TestRedteam38NewCallsUseNoneOfTheComparedPairs(t *testing.T) {
	head := callFiles()
	head[compositeFile] = strings.Replace(compositeAction, "sandbox: strict", "sandbox: off", 1)
	var adds strings.Builder
	for i := range maxCalledDocs + 1 {
		fmt.Fprintf(&adds, "      - uses: ./new%d\n", i)
		head[fmt.Sprintf("new%d/action.yml", i)] = compositeAction
	}
	head[callerFile] = strings.Replace(callerWorkflow, "      - id: wrapped\n", adds.String()+"      - id: wrapped\n", 1)
	var weakened []report.Finding
	for _, f := range callFindings(callFiles(), head, false) {
		switch {
		case f.Rule == RulePolicyWeakened:
			weakened = append(weakened, f)
		case f.Rule == RulePolicyBase && strings.Contains(f.Message, "those past them were not compared"):
			t.Errorf("%+v, want no pair past the bound: the new composite actions are compared with nothing", f)
		}
	}
	var found bool
	for _, f := range weakened {
		found = found || (f.Location.File == compositeFile && f.Location.Line == 11 && strings.Contains(f.Message, `has sandbox: "off", where it was "strict"`))
	}
	if !found {
		t.Errorf("findings %+v, want the composite action's sandbox: off named at %s:11", weakened, compositeFile)
	}
}

// TestRedteam38StepsPastTheBoundAreAWarning: round thirty-eight. A pull
// request that puts more vigiles steps than vigiles compares
// (maxWorkflowSteps, each if: false) into the composite action its check
// runs, and weakens the check's own step there: that file is not
// compared, a policy/base-unread warning, as the change took it past the
// bound. Before, it was a notice, the check green and the weakening
// unnamed.
func TestRedteam38StepsPastTheBoundAreAWarning(t *testing.T) {
	head := callFiles()
	many := strings.Repeat("    - uses: vigiles/action@v1\n      if: false\n", maxWorkflowSteps)
	head[compositeFile] = strings.Replace(strings.Replace(compositeAction, "sandbox: strict", "sandbox: off", 1), "  steps:\n", "  steps:\n"+many, 1)
	finds := callFindings(callFiles(), head, false)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityWarning || finds[0].Location.File != compositeFile ||
		!strings.Contains(finds[0].Message, "holds more than 1000 vigiles steps") {
		t.Errorf("findings %+v, want one policy/base-unread warning at %s that it holds more steps than are compared", finds, compositeFile)
	}
	// A base past the bound is the repository's own: a notice.
	finds = callFindings(head, head, false)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityNotice {
		t.Errorf("findings %+v, want one policy/base-unread notice where the base too is past the bound", finds)
	}
}

// TestRedteam38InputRemovedFromTheCalledFileIsNamed: round thirty-eight.
// A pull request that removes from the called file (a composite action's
// inputs, a reusable workflow's on.workflow_call.inputs) the input whose
// default its vigiles step reads, or empties inputs: to null: a caller
// that leaves it unset then passes vigiles "" where it passed the
// default (GitHub gives a composite action each with: value, declared or
// not, and its declared defaults). Each is named at the file's inputs,
// where before only a default changed in an input the head still had
// was.
func TestRedteam38InputRemovedFromTheCalledFileIsNamed(t *testing.T) {
	for _, tt := range []struct {
		name, file, old, new string
		at                   string
	}{
		{"composite input removed", compositeFile, "inputs:\n  level:\n    default: warning\n", "inputs:\n  other:\n    description: x\n", compositeFile + ":2"},
		{"composite inputs emptied", compositeFile, "inputs:\n  level:\n    default: warning\n", "inputs:\n", compositeFile + ":2"},
		{"called input removed", calledFile, "    inputs:\n      level:\n        type: string\n        default: warning\n", "    inputs: {}\n", calledFile + ":3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head := callFiles()
			if !strings.Contains(head[tt.file], tt.old) {
				t.Fatalf("%s has no %q", tt.file, tt.old)
			}
			head[tt.file] = strings.Replace(head[tt.file], tt.old, tt.new, 1)
			checkFindings(t, tt.name, callFindings(callFiles(), head, false), map[string]string{tt.at: `the input "level", whose default was "warning", is removed`})
		})
	}
}

// TestRedteam38MatrixOfTheVigilesJobIsNamed: round thirty-eight. A pull
// request that leaves the vigiles step's sandbox: ${{ matrix.sandbox }}
// as it was and changes the matrix its job (in the reusable workflow it
// calls) runs with, strict to off: the job's strategy: is named. Before,
// the input's text was unchanged and strategy: was compared only on a
// calling job, so the check ran without its sandbox unnamed.
func TestRedteam38MatrixOfTheVigilesJobIsNamed(t *testing.T) {
	base := callFiles()
	base[calledFile] = strings.NewReplacer("    runs-on: ubuntu-latest\n", "    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        sandbox: [strict]\n",
		"sandbox: strict", "sandbox: ${{ matrix.sandbox }}").Replace(calledWorkflow)
	head := callFiles()
	head[calledFile] = strings.Replace(base[calledFile], "sandbox: [strict]", "sandbox: [off]", 1)
	checkFindings(t, "matrix", callFindings(base, head, false), map[string]string{calledFile + ":10": `the job "vigiles" has strategy: "matrix:\n    sandbox: [off]", where it was "matrix:\n    sandbox: [strict]"`})
	// A strategy: removed leaves ${{ matrix.sandbox }} empty, weaker
	// than strict: named at the job, where it was not.
	head[calledFile] = strings.Replace(base[calledFile], "    strategy:\n      matrix:\n        sandbox: [strict]\n", "", 1)
	checkFindings(t, "matrix removed", callFindings(base, head, false), map[string]string{calledFile + ":8": `the job "vigiles" has no strategy:, where it was "matrix:\n    sandbox: [strict]"`})
	// And of a job that calls a reusable workflow with such an input.
	base = callFiles()
	base[callerFile] = strings.NewReplacer("    uses: ./.github/workflows/audit.yml\n", "    uses: ./.github/workflows/audit.yml\n    strategy:\n      matrix:\n        level: [warning]\n",
		"      level: warning\n    secrets", "      level: ${{ matrix.level }}\n    secrets").Replace(callerWorkflow)
	head = callFiles()
	head[callerFile] = strings.Replace(base[callerFile], "    strategy:\n      matrix:\n        level: [warning]\n", "", 1)
	checkFindings(t, "calling matrix removed", callFindings(base, head, false), map[string]string{callerFile + ":3": `the job "audit", which calls ".github/workflows/audit.yml", has no strategy:`})
}

// TestRedteam38JobTheCheckNeedsSkippedIsNamed: round thirty-eight. A
// pull request that leaves its check's jobs as they were and gives a job
// they need (itself, or through another) an if: false: skipped, it skips
// the check, whose skipped job reads as passed. The needed job's if: is
// named, where only the check's own job's needs: and if: were compared.
func TestRedteam38JobTheCheckNeedsSkippedIsNamed(t *testing.T) {
	base := callFiles()
	base[callerFile] = strings.NewReplacer("  audit:\n", "  lint:\n    runs-on: ubuntu-latest\n    steps: [{run: make lint}]\n  pre:\n    needs: [lint]\n    runs-on: ubuntu-latest\n    steps: [{run: make}]\n  audit:\n    needs: pre\n",
		"  check:\n", "  check:\n    needs: [lint]\n").Replace(callerWorkflow)
	head := callFiles()
	head[callerFile] = strings.Replace(base[callerFile], "  lint:\n", "  lint:\n    if: github.actor == 'x'\n", 1)
	checkFindings(t, "needed", callFindings(base, head, false), map[string]string{callerFile + ":4": `the job "lint", which the job "check" needs, runs if: "github.actor == 'x'" (not evaluated here), where it had none`})
	// pre's own if: changed is named too, as the job audit needs.
	head[callerFile] = strings.Replace(base[callerFile], "  pre:\n", "  pre:\n    if: false\n", 1)
	checkFindings(t, "needed through another", callFindings(base, head, false), map[string]string{callerFile + ":7": `the job "pre", which the job "audit" needs, runs if: "false"`})
}
