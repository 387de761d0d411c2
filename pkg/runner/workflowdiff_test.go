package runner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/report"
)

// baseWorkflow is a pull request's base's workflow: a test step and an
// audit step of vigiles, and a job that runs none.
const baseWorkflow = `name: vigiles
on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: make lint
  vigiles:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with: {fetch-depth: 2}
      - name: Expectations hold
        id: test
        uses: vigiles/action@v1
        with:
          fail-level: warning
          sandbox: strict
      - name: Nothing new since the baseline
        id: audit
        if: ${{ !cancelled() }}
        uses: vigiles/action@v1
        with:
          command: audit
          baseline: .vigiles/baseline.json
          paths: plugins
          allow: api.example.test
`

// weakenWorkflow is baseWorkflow with old replaced by new, once.
func weakenWorkflow(t *testing.T, old, new string) string {
	t.Helper()
	if !strings.Contains(baseWorkflow, old) {
		t.Fatalf("the base's workflow has no %q", old)
	}
	return strings.Replace(baseWorkflow, old, new, 1)
}

func workflowFindings(base, head string, baseThere bool) []report.Finding {
	return compareWorkflow(&WorkflowBase{File: ".github/workflows/v.yml", Shown: ".github/workflows/v.yml", Base: []byte(base), BaseThere: baseThere, Head: []byte(head)}, "the pull request's base")
}

// TestWorkflowWeakenedNamesEachChange: each way a pull request can weaken
// the vigiles step of the workflow it is checked by is one policy/weakened
// warning that names it, at its line of the head's workflow file.
func TestWorkflowWeakenedNamesEachChange(t *testing.T) {
	tests := []struct {
		old, new string
		line     int
		want     string
	}{
		{"sandbox: strict", "sandbox: off", 18, `has sandbox: "off", where it was "strict"`},
		{"sandbox: strict", "sandbox: auto", 18, `has sandbox: "auto", where it was "strict"`},
		{"sandbox: strict", "sandbox: ${{ vars.SANDBOX }}", 18, "an expression, compared as text, not evaluated"},
		{"fail-level: warning", "fail-level: none", 17, `has fail-level: "none", where it was "warning"`},
		{"fail-level: warning\n", "", 16, `has fail-level: "error", where it was "warning"`},
		{"allow: api.example.test", "allow: api.example.test,*.evil.test", 27, `has allow adding "*.evil.test"`},
		{"allow: api.example.test", "egress: allow\n          allow: api.example.test", 0, ""},
		{"          allow: api.example.test\n", "          egress: record\n", 0, ""},
		{"          command: audit\n", "          command: audit\n          egress: allow\n", 24, ""},
		{"baseline: .vigiles/baseline.json", "baseline: elsewhere.json", 25, "compares with another baseline"},
		{"          baseline: .vigiles/baseline.json\n", "", 23, "compares with no baseline"},
		{"paths: plugins", "paths: plugins/a", 26, `has paths: ["plugins/a"], where it audited "plugins"`},
		{"        id: test\n", "        id: test\n        continue-on-error: true\n", 15, `has continue-on-error: "true", where it was "false"`},
		{"        id: test\n", "        id: test\n        if: github.actor != 'x'\n", 15, `runs if: "github.actor != 'x'" (not evaluated here), where it had none`},
		{"if: ${{ !cancelled() }}", "if: false", 21, `runs if: "false"`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    continue-on-error: true\n", 10, `the job "vigiles" has continue-on-error`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    if: false\n    runs-on: ubuntu-latest\n", 9, `the job "vigiles" runs if: "false"`},
		{"          command: audit\n", "          command: audit\n          hook-logs: true\n", 25, `has hook-logs: "true"`},
		{"          command: audit\n", "          command: audit\n          update-baseline: true\n", 25, "writes the baseline from this run"},
		{"          command: audit\n", "          command: audit\n          shard: 1/2\n", 25, "runs a part of the work"},
		{"          command: audit\n", "          command: audit\n          config: loose.yml\n", 25, "reads another policy file"},
		{"          command: audit\n", "          command: audit\n          image: ghcr.io/evil/x:1\n", 25, "another image runs the check"},
		{"          command: audit\n", "          command: test\n", 24, `has command: "test", where it was "audit"`},
		{"uses: vigiles/action@v1\n        with:\n          fail", "uses: vigiles/action@v0.1\n        with:\n          fail", 15, `uses "vigiles/action@v0.1", where it used "vigiles/action@v1"`},
		// Round thirty-four: an input in another case is the input (the
		// runner's inputs ignore case), and one named by an expression,
		// or a with: that is one, may set any input.
		{"          command: audit\n", "          command: audit\n          Fail-Level: none\n", 25, `has fail-level: "none", where it was "error"`},
		{"sandbox: strict", "SANDBOX: off", 18, `has sandbox: "off", where it was "strict"`},
		{"          command: audit\n", "          command: audit\n          ${{ 'fail-level' }}: none\n", 25, `has an input whose name is an expression, "${{ 'fail-level' }}": "none"`},
		{"        with:\n          fail-level: warning\n          sandbox: strict\n", "        with: ${{ fromJSON(vars.INPUTS) }}\n", 16, `has with: "${{ fromJSON(vars.INPUTS) }}", where it was`},
		// What reaches the step's process another way: an env: of the
		// step, its job or the workflow.
		{"        id: test\n", "        id: test\n        env:\n          INPUT_FAIL-LEVEL: none\n", 16, `the vigiles step "test" of the job "vigiles" sets "INPUT_FAIL-LEVEL"="none" in its env, where it had none`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    env:\n      PATH: ./bin:/usr/bin:/bin\n", 11, `the job "vigiles" sets "PATH"="./bin:/usr/bin:/bin" in its env`},
		{"on: [pull_request]\n", "on: [pull_request]\nenv: {BASH_ENV: ./x.sh}\n", 3, `the workflow sets "BASH_ENV"="./x.sh" in its env`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    env: ${{ fromJSON(vars.ENV) }}\n", 10, `the job "vigiles" has env: "${{ fromJSON(vars.ENV) }}"`},
		// The job made to skip, or to run in another image.
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    needs: lint\n", 10, `the job "vigiles" has needs: "lint", where it had none`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    container: ghcr.io/evil/docker-that-passes\n", 10, `the job "vigiles" has container: "ghcr.io/evil/docker-that-passes"`},
		{"  vigiles:\n    runs-on: ubuntu-latest\n", "  vigiles:\n    runs-on: ubuntu-latest\n    defaults: {run: {shell: './sh {0}'}}\n", 10, `the job "vigiles" has defaults:`},
		{"on: [pull_request]\n", "on: [pull_request]\ndefaults: {run: {shell: './sh {0}'}}\n", 3, `the workflow has defaults:`},
		// A step before the vigiles steps the base had not, or had
		// otherwise.
		{"      - name: Expectations hold\n", "      - run: echo 'INPUT_FAIL-LEVEL=none' >>\"$GITHUB_ENV\"\n      - name: Expectations hold\n", 13, `the job "vigiles" runs a step (run: "echo 'INPUT_FAIL-LEVEL=none' >>\"$GITHUB_ENV\"") before its vigiles step that the base's job had not there`},
		{"with: {fetch-depth: 2}", "with: {fetch-depth: 2, ref: refs/pull/1/head}", 11, `runs a step (uses: "actions/checkout@v4") before its vigiles step`},
		// The step's id and name changed, and it is not the job's first
		// vigiles step: it matches nothing, and is new.
		{"      - name: Nothing new since the baseline\n        id: audit\n", "      - name: Other\n        id: audit2\n", 8, `the vigiles step "audit" of the job "vigiles" is removed`},
		// The step gone whole.
		{"      - name: Expectations hold\n        id: test\n        uses: vigiles/action@v1\n        with:\n          fail-level: warning\n          sandbox: strict\n", "", 8, `the vigiles step "test" of the job "vigiles" is removed`},
		// The job renamed: its steps match none, at jobs.
		{"  vigiles:\n", "  renamed:\n", 3, `the vigiles step "test" of the job "vigiles" is removed`},
		// Its uses is no longer vigiles'.
		{"uses: vigiles/action@v1\n        with:\n          fail", "uses: someone/lookalike@v1\n        with:\n          fail", 8, `the vigiles step "test" of the job "vigiles" is removed`},
	}
	for _, tt := range tests {
		t.Run(tt.new, func(t *testing.T) {
			head := weakenWorkflow(t, tt.old, tt.new)
			finds := workflowFindings(baseWorkflow, head, true)
			if tt.want == "" {
				// egress: allow beside allow: as it was.
				if len(finds) != 0 {
					t.Fatalf("names %+v", finds)
				}
				return
			}
			if len(finds) == 0 {
				t.Fatalf("names nothing, want %q\n%s", tt.want, head)
			}
			f := finds[0]
			if f.Rule != RulePolicyWeakened || f.Severity != report.SeverityWarning || !strings.Contains(f.Message, tt.want) ||
				!strings.Contains(f.Message, "the pull request's base") || f.Location.File != ".github/workflows/v.yml" || f.Location.Line != tt.line {
				t.Errorf("names %+v, want %q at line %d\n%s", finds, tt.want, tt.line, head)
			}
		})
	}
}

// TestWorkflowStrengthenedIsNoFinding: a workflow compared with itself,
// or one that checks more (a stricter sandbox, a lower fail-level, no
// continue-on-error, no if:, another step, the whole tree audited), names
// nothing.
func TestWorkflowStrengthenedIsNoFinding(t *testing.T) {
	stronger := strings.NewReplacer(
		"fail-level: warning", "fail-level: notice",
		"        if: ${{ !cancelled() }}\n", "",
		"          paths: plugins\n", "",
		"          allow: api.example.test\n", "          egress: deny\n",
		"          command: audit\n", "          command: audit\n          hook-logs: false\n          check-run: false\n          jobs: 1\n",
		"      - run: make lint\n", "      - run: make lint\n      - uses: vigiles/action@v1\n        with: {sandbox: strict}\n",
		// A step before vigiles as it was but for its layout and
		// comments, and one after the last.
		"        with: {fetch-depth: 2}\n", "        # the base too\n        with:\n          fetch-depth: 2\n",
	).Replace(baseWorkflow) + "      - run: echo after\n"
	for name, head := range map[string]string{"itself": baseWorkflow, "stronger": stronger} {
		if finds := workflowFindings(baseWorkflow, head, true); len(finds) != 0 {
			t.Errorf("%s: names %+v\n%s", name, finds, head)
		}
	}
}

// TestWorkflowTheBaseLacks: a workflow the base has not is one notice
// that says its vigiles steps are new, compared with none; a workflow
// without a vigiles step says it compared none, and a base whose workflow
// does not parse says so: never a comparison of nothing in silence.
func TestWorkflowTheBaseLacks(t *testing.T) {
	finds := workflowFindings("", weakenWorkflow(t, "sandbox: strict", "sandbox: off"), false)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityNotice || !strings.Contains(finds[0].Message, "has no workflow .github/workflows/v.yml, so its 2 vigiles step(s) are new") {
		t.Errorf("a workflow the base lacks: %+v", finds)
	}
	none := "on: push\njobs:\n  a:\n    uses: ./.github/workflows/reusable.yml\n"
	finds = workflowFindings(baseWorkflow, none, true)
	if len(finds) != 3 || finds[2].Rule != RulePolicyBase || finds[2].Severity != report.SeverityNotice || !strings.Contains(finds[2].Message, "names no step that uses vigiles") {
		t.Errorf("a workflow without a vigiles step: %+v", finds)
	}
	finds = workflowFindings("jobs: [", baseWorkflow, true)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityWarning {
		t.Errorf("a base whose workflow does not parse: %+v", finds)
	}
	// A head that runs and does not parse here (a NUL in a comment) is
	// a warning where the base has the file: what it weakens is unknown.
	finds = workflowFindings(baseWorkflow, "# \x00\n"+weakenWorkflow(t, "sandbox: strict", "sandbox: off"), true)
	if len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityWarning || !strings.Contains(finds[0].Message, "does not parse") {
		t.Errorf("a head whose workflow does not parse: %+v", finds)
	}
	// A byte that is not UTF-8 in a comment is read as U+FFFD, as the
	// runner reads it, and the steps are compared.
	finds = workflowFindings(baseWorkflow, "# caf\xe9\n"+weakenWorkflow(t, "sandbox: strict", "sandbox: off"), true)
	if len(finds) != 1 || finds[0].Rule != RulePolicyWeakened || !strings.Contains(finds[0].Message, `has sandbox: "off"`) {
		t.Errorf("a head with a Latin-1 comment: %+v", finds)
	}
	// The repository's own action, where it is the one that runs.
	local := strings.ReplaceAll(baseWorkflow, "vigiles/action@v1", "./")
	w := &WorkflowBase{File: "w.yml", Shown: "w.yml", Base: []byte(local), BaseThere: true, Head: []byte(strings.Replace(local, "sandbox: strict", "sandbox: off", 1)), LocalAction: "."}
	if finds := compareWorkflow(w, "base"); len(finds) != 1 || !strings.Contains(finds[0].Message, `sandbox: "off"`) {
		t.Errorf("uses: ./ where the action is the repository's own: %+v", finds)
	}
	w.LocalAction = ""
	if finds := compareWorkflow(w, "base"); len(finds) != 1 || !strings.Contains(finds[0].Message, "names no step that uses vigiles") {
		t.Errorf("uses: ./ where the action is not the repository's: %+v", finds)
	}
}

// TestWorkflowRemovedNamesItsSteps: a workflow the change deletes (a
// local --policy-base reads every workflow file) whose base held vigiles
// steps is one policy/weakened warning at its file that names them; one
// that held none names nothing, and one whose base does not parse says
// what it removed is not known.
func TestWorkflowRemovedNamesItsSteps(t *testing.T) {
	w := &WorkflowBase{File: "../.github/workflows/v.yml", Shown: ".github/workflows/v.yml", Base: []byte(baseWorkflow), BaseThere: true, Removed: true}
	finds := compareWorkflow(w, "--policy-base \"main\"")
	if len(finds) != 1 || finds[0].Rule != RulePolicyWeakened || finds[0].Location != (report.Location{File: w.File}) ||
		!strings.Contains(finds[0].Message, `removes the workflow .github/workflows/v.yml and its 2 vigiles step(s) (the vigiles step "test" of the job "vigiles"; the vigiles step "audit" of the job "vigiles")`) {
		t.Errorf("a workflow with vigiles steps removed: %+v", finds)
	}
	w.Base = []byte("on: push\njobs:\n  a:\n    steps:\n      - run: make\n")
	if finds := compareWorkflow(w, "base"); len(finds) != 0 {
		t.Errorf("a workflow without a vigiles step removed: %+v", finds)
	}
	w.Base = []byte("jobs: [")
	if finds := compareWorkflow(w, "base"); len(finds) != 1 || finds[0].Rule != RulePolicyBase || finds[0].Severity != report.SeverityWarning {
		t.Errorf("a removed workflow whose base does not parse: %+v", finds)
	}
}

// FuzzCompareWorkflow: a workflow compared with itself names nothing, and
// two workflows any bytes make compare without a panic or a hang, each
// finding with a place and words.
func FuzzCompareWorkflow(f *testing.F) {
	f.Add([]byte(baseWorkflow), []byte(strings.Replace(baseWorkflow, "strict", "off", 1)))
	f.Add([]byte("jobs: {a: &j {steps: [{uses: vigiles/action@v1, with: {sandbox: off}}]}, b: *j}\n"), []byte("jobs: {a: {steps: [*x]}}\n"))
	f.Add([]byte("a: &a [*a]\n"), []byte("jobs: {a: {if: [1], steps: [{uses: ./, id: [x]}]}}\n"))
	f.Add([]byte("env: {A: b}\njobs: {a: {needs: [b], env: &e {X: y}, steps: [{run: x, env: *e}, {uses: vigiles/action@v1, with: {A: b}}]}}\n"),
		[]byte("env: [x]\njobs: {a: {needs: c, env: ${{ x }}, steps: [{run: [y]}, {uses: vigiles/action@v1, with: {${{ a }}: b}}]}}\n"))
	f.Fuzz(func(t *testing.T, baseData, headData []byte) {
		hang := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("compareWorkflow hangs on %q and %q", baseData, headData)) })
		defer hang.Stop()
		for _, local := range []string{"", "."} {
			w := &WorkflowBase{File: "w.yml", Shown: "w.yml", Base: baseData, BaseThere: true, Head: baseData, LocalAction: local}
			for _, fd := range compareWorkflow(w, "base") {
				if fd.Rule == RulePolicyWeakened {
					t.Fatalf("a workflow compared with itself names %+v\n%s", fd, baseData)
				}
			}
			w.Head = headData
			for _, fd := range compareWorkflow(w, "base") {
				if fd.Location.File != "w.yml" || fd.Location.Line < 0 || fd.Message == "" {
					t.Fatalf("a finding without a place or words: %+v", fd)
				}
			}
			w.Head, w.Removed = nil, true
			for _, fd := range compareWorkflow(w, "base") {
				if fd.Location.File != "w.yml" || fd.Message == "" {
					t.Fatalf("a removed workflow's finding without a place or words: %+v", fd)
				}
			}
		}
	})
}
