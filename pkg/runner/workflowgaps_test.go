package runner

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
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

// TestCalledFileMetNearTheDepthBoundIsReadAgainNearer: a composite
// action t whose vigiles step is in the action u it uses, met first at
// the end of a chain of nine composite actions (t at the tenth call, u
// past the bound) and then used by a job's step directly, is read at
// that step as holding vigiles, and a weakening in u is named, where t
// was kept as holding none from the deep call and the step, t and u were
// not compared at all.
func TestCalledFileMetNearTheDepthBoundIsReadAgainNearer(t *testing.T) {
	composite := func(step string) string {
		return "name: x\nruns:\n  using: composite\n  steps:\n    - " + step + "\n"
	}
	base := map[string]string{
		callerFile:     "on: [pull_request]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./a1\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./t\n",
		"t/action.yml": composite("uses: ./u"),
		"u/action.yml": composite("uses: vigiles/action@v1\n      with: {sandbox: strict}"),
	}
	for i := 1; i < maxCallDepth; i++ {
		next := fmt.Sprintf("./a%d", i+1)
		if i == maxCallDepth-1 {
			next = "./t"
		}
		base[fmt.Sprintf("a%d/action.yml", i)] = composite("uses: " + next)
	}
	head := maps.Clone(base)
	head["u/action.yml"] = strings.Replace(base["u/action.yml"], "sandbox: strict", "sandbox: off", 1)
	checkFindings(t, "u weakened", callFindings(base, head, false), map[string]string{"u/action.yml:6": `has sandbox: "off", where it was "strict"`})

	// A cycle: x uses y, then vigiles; y uses x. Met first through x, y
	// came back to x while x was being read, and was kept as none.
	base = map[string]string{
		callerFile:     "on: [pull_request]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./x\n  b:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./y\n        with: {level: warning}\n",
		"x/action.yml": composite("uses: ./y\n    - uses: vigiles/action@v1"),
		"y/action.yml": composite("uses: ./x"),
	}
	head = maps.Clone(base)
	head[callerFile] = strings.Replace(base[callerFile], "level: warning", "level: none", 1)
	checkFindings(t, "y's input changed", callFindings(base, head, false), map[string]string{callerFile + ":11": `has the input "level": "none", where it was "warning"`})
}

// TestEachLocalWorkflowNamesItsUnreadCalls: locally, where every
// workflow file is compared, each workflow that calls a file that could
// not be read (itself, or through a composite action another workflow
// read first) has its own policy/base-unread warning, where the first
// workflow's was the audit's only one and a second's unread file, or
// the same file called again, was named nowhere.
func TestEachLocalWorkflowNamesItsUnreadCalls(t *testing.T) {
	errLink := errors.New("it is a symbolic link, which vigiles does not follow")
	calls := func(dir string) string {
		return "on: [pull_request]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: ./" + dir + "\n"
	}
	files := map[string]string{
		"ok/action.yml": "name: ok\nruns:\n  using: composite\n  steps:\n    - uses: ./y\n",
	}
	read := func(_ bool, p string) ([]byte, bool, error) {
		if data, ok := files[p]; ok {
			return []byte(data), true, nil
		}
		if strings.HasPrefix(p, "ok/") {
			return nil, false, nil
		}
		return nil, false, errLink
	}
	for _, tt := range []struct {
		name string
		want map[string]string // workflow: the file its warning names
	}{
		{"each its own", map[string]string{".github/workflows/a.yml": `"x/action.yml"`, ".github/workflows/b.yml": `"y/action.yml"`}},
		{"the same", map[string]string{".github/workflows/a.yml": `"x/action.yml"`, ".github/workflows/b.yml": `"x/action.yml"`}},
		{"through another", map[string]string{".github/workflows/a.yml": `"y/action.yml"`, ".github/workflows/b.yml": `"y/action.yml"`}},
	} {
		var ws []*WorkflowBase
		for _, name := range []string{".github/workflows/a.yml", ".github/workflows/b.yml"} {
			dir := strings.TrimSuffix(strings.Trim(tt.want[name], `"`), "/action.yml")
			if tt.name == "through another" {
				dir = "ok"
			}
			wf := calls(dir)
			ws = append(ws, &WorkflowBase{File: name, Shown: name, Base: []byte(wf), BaseThere: true, Head: []byte(wf), CalledApart: true, Read: read})
		}
		s := &session{cfg: &Config{File: ".vigiles.yml"}}
		said := map[string]bool{}
		for _, f := range s.policyBaseFindings(&PolicyBase{Name: "base", Workflows: ws}, nil, nil, "") {
			if want, ok := tt.want[f.Location.File]; ok && f.Rule == RulePolicyBase && f.Severity == report.SeverityWarning && strings.Contains(f.Message, want+" could not be (it is a symbolic link") {
				said[f.Location.File] = true
				continue
			}
			if f.Rule == RulePolicyBase && f.Severity == report.SeverityNotice && strings.Contains(f.Message, "names no step that uses vigiles") {
				continue // read as none, so none found
			}
			t.Errorf("%s: %+v, want only a policy/base-unread warning at each workflow", tt.name, f)
		}
		for name := range tt.want {
			if !said[name] {
				t.Errorf("%s: no policy/base-unread warning at %s naming %s", tt.name, name, tt.want[name])
			}
		}
	}
}

// TestNonCompositeLocalActionOfTheBasesCheckIsNamedRemoved: a pull
// request that turns the composite action of the repository which held
// the check's vigiles step into one that is not composite (runs: using:
// docker or node20, whose steps vigiles does not read, even where they
// run vigiles' image) leaves the base's step that used it matched by
// none: it is named removed at its job.
func TestNonCompositeLocalActionOfTheBasesCheckIsNamedRemoved(t *testing.T) {
	for _, runs := range []string{
		"runs:\n  using: docker\n  image: docker://ghcr.io/vigiles/action:v1\n  args: [test, --sandbox, 'off']\n",
		"runs:\n  using: node20\n  main: index.js\n",
	} {
		head := callFiles()
		head[compositeFile] = "name: check\ninputs:\n  level:\n    default: warning\n" + runs
		checkFindings(t, runs, callFindings(callFiles(), head, false), map[string]string{
			callerFile + ":8": `the vigiles step "wrapped" of the job "check" is removed, or changed past matching`,
		})
	}
}

// TestJobWhoseOutputsTheCheckReadsIsNamed: a pull request that changes
// a job the check's job needs and reads through the needs context
// (its if: ${{ needs.changes.outputs.run == 'true' }}, an input
// ${{ needs.changes.outputs.sandbox }}) is named at that job: its steps
// set what skips the check or weakens an input whose text is unchanged,
// where only that job's if: was compared and such a change passed
// unnamed. A needed job the check does not read is compared as before,
// by its if: alone.
func TestJobWhoseOutputsTheCheckReadsIsNamed(t *testing.T) {
	const wf = `on: [pull_request]
jobs:
  changes:
    runs-on: ubuntu-latest
    outputs:
      run: ${{ steps.f.outputs.run }}
    steps:
      - id: f
        run: echo run=true >> "$GITHUB_OUTPUT"
  vigiles:
    needs: [changes]
    if: READ
    runs-on: ubuntu-latest
    steps:
      - uses: vigiles/action@v1
        with:
          sandbox: strict
`
	weakened := strings.Replace(wf, "echo run=true", "echo run=false", 1)
	for _, tt := range []struct {
		name, old, new string
		want           map[string]string
	}{
		{"if", "READ", "needs.changes.outputs.run == 'true'", map[string]string{".github/workflows/v.yml:3": `the job "changes", which the job "vigiles" needs and whose outputs or result it reads`}},
		{"input", "sandbox: strict", "sandbox: ${{ needs.changes.outputs.sandbox }}", map[string]string{".github/workflows/v.yml:3": `the job "changes", which the job "vigiles" needs`}},
		{"not read", "READ", "success()", map[string]string{}},
	} {
		base := strings.Replace(strings.Replace(wf, tt.old, tt.new, 1), "READ", "always()", 1)
		head := strings.Replace(strings.Replace(weakened, tt.old, tt.new, 1), "READ", "always()", 1)
		checkFindings(t, tt.name, workflowFindings(base, head, true), tt.want)
		checkFindings(t, tt.name+", unchanged", workflowFindings(base, base, true), map[string]string{})
	}
	// Passed on: the check reads pass's output, which pass reads of
	// changes, the job changed.
	passOn := func(wf string) string {
		wf = strings.Replace(wf, "  vigiles:\n", "  pass:\n    needs: changes\n    runs-on: ubuntu-latest\n    outputs:\n      run: ${{ needs.changes.outputs.run }}\n    steps: [{run: 'true'}]\n  vigiles:\n", 1)
		return strings.Replace(strings.Replace(wf, "needs: [changes]", "needs: [pass]", 1), "READ", "needs.pass.outputs.run == 'true'", 1)
	}
	checkFindings(t, "passed on", workflowFindings(passOn(wf), passOn(weakened), true), map[string]string{".github/workflows/v.yml:3": `the job "changes", which the job "pass" needs`})
}

// TestCallersSecretsAreCompared: a job that calls a reusable workflow
// holding the check, whose secrets: a pull request drops or changes
// (inherit to a list, another secret under a name), is named at it:
// the called workflow's ${{ secrets.x }} reaches its vigiles step as an
// input does, where only with: was compared. Written otherwise, the same
// secrets are nothing.
func TestCallersSecretsAreCompared(t *testing.T) {
	for _, tt := range []struct{ name, new, at, want string }{
		{"dropped", "", callerFile + ":3", `has secrets: "", where it was "inherit"`},
		{"a list", "    secrets:\n      token: ${{ secrets.OTHER }}\n", callerFile + ":7", `has secrets: "token: ${{ secrets.OTHER }}", where it was "inherit"`},
		{"as it was", "    secrets: \"inherit\" # quoted\n", "", ""},
	} {
		head := callFiles()
		head[callerFile] = strings.Replace(callerWorkflow, "    secrets: inherit\n", tt.new, 1)
		want := map[string]string{}
		if tt.at != "" {
			want[tt.at] = tt.want
		}
		checkFindings(t, tt.name, callFindings(callFiles(), head, false), want)
	}
}
