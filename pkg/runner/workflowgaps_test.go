package runner

import (
	"strings"
	"testing"
)

// TestCalledFilesAreNamedFromTheWorkflowsDirectory: where the directory
// findings are named from is .github/workflows or .github (the action's
// working-directory, the CLI's --dir), so the workflow is v.yml or
// workflows/v.yml, a weakening in the composite action and the reusable
// workflow it calls is named at their paths from that directory
// (../../.github/actions/check/action.yml), where the composite
// action's was named as from the repository's top, a file that is not
// there from that directory.
func TestCalledFilesAreNamedFromTheWorkflowsDirectory(t *testing.T) {
	head := callFiles()
	head[compositeFile] = strings.Replace(compositeAction, "sandbox: strict", "sandbox: off", 1)
	head[calledFile] = strings.Replace(calledWorkflow, "sandbox: strict", "sandbox: off", 1)
	for file, top := range map[string]string{"v.yml": "../../", "workflows/v.yml": "../", callerFile: "", "../" + callerFile: "../"} {
		w := &WorkflowBase{File: file, Shown: callerFile, Base: []byte(callerWorkflow), BaseThere: true, Head: []byte(callerWorkflow),
			Read: func(b bool, p string) ([]byte, bool, error) {
				files := head
				if b {
					files = callFiles()
				}
				data, ok := files[p]
				return []byte(data), ok, nil
			}}
		checkFindings(t, "named from "+file, compareWorkflow(w, "base"), map[string]string{
			top + compositeFile + ":11": `has sandbox: "off", where it was "strict"`,
			top + calledFile + ":16":    `has sandbox: "off", where it was "strict"`,
		})
	}
}
