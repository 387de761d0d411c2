package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// actionStep is the run script of the step of action.yml with id.
func actionStep(t *testing.T, id string) string {
	t.Helper()
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Runs struct {
			Steps []struct{ ID, Run string }
		}
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	for _, s := range a.Runs.Steps {
		if s.ID == id {
			return s.Run
		}
	}
	t.Fatalf("action.yml has no step %s", id)
	return ""
}

// TestActionYMLSaysErrorBeforeTheEngine: a failure of action.yml's own
// before the engine starts (the runner's OS, the host build, a bad
// runtime input, the image pull) sets the verdict output to error, as the
// engine does of a bad input. The scripts run as the runner runs them,
// with stubs in PATH for go, dpkg-query and docker.
func TestActionYMLSaysErrorBeforeTheEngine(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile("../../action.yml")
	if !strings.Contains(string(b), "steps.vigiles.outputs.verdict || steps.build.outputs.verdict || steps.userns.outputs.verdict") {
		t.Errorf("the verdict output does not read the steps before the engine's")
	}
	for _, tc := range []struct {
		name, step string
		env        map[string]string
		code       int
	}{
		{"not Linux", "userns", map[string]string{"RUNNER_OS": "macOS"}, 1},
		{"host build fails", "build", nil, 1},
		{"bad runtime", "vigiles", map[string]string{"VIGILES_RUNTIME": "vm"}, 2},
		{"image pull fails", "vigiles", map[string]string{"VIGILES_RUNTIME": "container", "VIGILES_IMAGE": "example.invalid/none:v0"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			stubs := filepath.Join(tmp, "bin")
			os.Mkdir(stubs, 0o755)
			for name, body := range map[string]string{
				"go":         "exit 1",                        // the build fails
				"dpkg-query": "printf 'install ok installed'", // nothing to install
				"docker":     "exit 1",                        // no image, and no pull
			} {
				if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(tmp, "output")
			cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", actionStep(t, tc.step))
			cmd.Env = []string{"PATH=" + stubs + ":/usr/bin:/bin", "GITHUB_OUTPUT=" + out, "RUNNER_TEMP=" + tmp, "ACTION_PATH=" + tmp, "RUNNER_OS=Linux"}
			for k, v := range tc.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			log, _ := cmd.CombinedOutput()
			if cmd.ProcessState.ExitCode() != tc.code {
				t.Errorf("exit %d, want %d:\n%s", cmd.ProcessState.ExitCode(), tc.code, log)
			}
			if got, _ := os.ReadFile(out); string(got) != "verdict=error\n" {
				t.Errorf("GITHUB_OUTPUT %q, want verdict=error:\n%s", got, log)
			}
			if !strings.Contains(string(log), "::error title=vigiles::") {
				t.Errorf("no ::error:\n%s", log)
			}
		})
	}
}

// TestActionInputNamesAreWhatIsRead: actionInputNames, which the error of
// a flag given to vigiles action names the variable from, are the inputs
// readInputs reads, each once.
func TestActionInputNamesAreWhatIsRead(t *testing.T) {
	src, err := os.ReadFile("action.go")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`input\(getenv, "([\w-]+)"\)`).FindAllStringSubmatch(string(src), -1) {
		read[m[1]] = true
	}
	listed := map[string]bool{}
	for _, n := range actionInputNames {
		if listed[n] {
			t.Errorf("actionInputNames lists %s twice", n)
		}
		listed[n] = true
		if !read[n] {
			t.Errorf("actionInputNames lists %s, which readInputs does not read", n)
		}
	}
	for n := range read {
		if !listed[n] {
			t.Errorf("readInputs reads %s, which actionInputNames lacks", n)
		}
	}
}

// TestActionInputsAgree: every input is the same in each place that
// names it: action.yml's inputs, the Inputs table of
// docs/github-action.md (with action.yml's default where it has one),
// vigiles action --help, what vigiles action reads (actionInputNames:
// all but runtime and image, which only action.yml reads), and the
// INPUT_* variables the vigiles step sets and passes into the container,
// none of which vigiles action warns of as an unknown input.
func TestActionInputsAgree(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct{ Default string }
		Runs   struct {
			Steps []struct {
				ID  string
				Env map[string]string
				Run string
			}
		}
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## Inputs\n")
	if !ok {
		t.Fatal("docs/github-action.md has no Inputs section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	documented := map[string]string{} // input: its default column
	for _, m := range regexp.MustCompile("(?m)^\\| `([\\w-]+)` \\|([^|]*)\\|").FindAllStringSubmatch(sec, -1) {
		documented[m[1]] = strings.TrimSpace(m[2])
	}
	_, help, _ := runCLI(t, "action", "--help")
	helped := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  ([a-z][\w-]+)  `).FindAllStringSubmatch(help, -1) {
		helped[m[1]] = true
	}
	var step struct {
		Env map[string]string
		Run string
	}
	for _, s := range a.Runs.Steps {
		if s.ID == "vigiles" {
			step.Env, step.Run = s.Env, s.Run
		}
	}
	_, names, _ := strings.Cut(step.Run, "env_names=(")
	names, _, _ = strings.Cut(names, ")")
	passed := strings.Fields(names)

	own := map[string]bool{"runtime": true, "image": true} // action.yml's alone
	read := map[string]bool{}
	for _, n := range actionInputNames {
		read[n] = true
	}
	for n, in := range a.Inputs {
		col, ok := documented[n]
		switch {
		case !ok:
			t.Errorf("action.yml's input %s has no row in docs/github-action.md's Inputs", n)
		case in.Default != "" && col != "`"+in.Default+"`":
			t.Errorf("input %s: action.yml's default is %q, docs/github-action.md's Inputs say %s", n, in.Default, col)
		}
		if own[n] {
			continue
		}
		if !read[n] {
			t.Errorf("action.yml's input %s is not read by vigiles action", n)
		}
		if !helped[n] {
			t.Errorf("vigiles action --help does not list input %s", n)
		}
		v := "INPUT_" + strings.ToUpper(strings.ReplaceAll(n, "-", "_"))
		if step.Env[v] != "${{ inputs."+n+" }}" {
			t.Errorf("the vigiles step sets %s to %q, want ${{ inputs.%s }}", v, step.Env[v], n)
		}
		if !slices.Contains(passed, v) {
			t.Errorf("the vigiles step does not pass %s into the container (env_names)", v)
		}
	}
	for n := range documented {
		if _, ok := a.Inputs[n]; !ok {
			t.Errorf("docs/github-action.md's Inputs has %s, which action.yml lacks", n)
		}
	}
	for n := range read {
		if _, ok := a.Inputs[n]; !ok {
			t.Errorf("vigiles action reads input %s, which action.yml lacks", n)
		}
	}
	for n := range helped {
		if _, ok := a.Inputs[n]; !ok || own[n] {
			t.Errorf("vigiles action --help lists %s, which is no input it reads", n)
		}
	}
	for _, v := range passed {
		if n, ok := strings.CutPrefix(v, "INPUT_"); ok && !read[strings.ToLower(strings.ReplaceAll(n, "_", "-"))] {
			t.Errorf("the vigiles step passes %s, which is no input vigiles action reads", v)
		}
	}
	// runtime: host runs vigiles action in the step's whole environment:
	// no variable the step sets is one it warns of as read by nothing.
	var stepEnv []string
	for k, v := range step.Env {
		stepEnv = append(stepEnv, k+"="+v)
	}
	for _, w := range unknownInputs(stepEnv) {
		t.Errorf("the vigiles step sets a variable vigiles action warns of: %s", w)
	}
}

// TestActionOutputsAgree: the outputs action.yml declares are those
// vigiles action writes to GITHUB_OUTPUT (pkg/annotate), each read from
// the vigiles step, and those vigiles action --help and the outputs row
// of docs/github-action.md name.
func TestActionOutputsAgree(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Outputs map[string]struct{ Value string }
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../../pkg/annotate/outputs.go")
	if err != nil {
		t.Fatal(err)
	}
	var written []string
	for _, m := range regexp.MustCompile(`b\.WriteString\("(\w+)="`).FindAllStringSubmatch(string(src), -1) {
		written = append(written, m[1])
	}
	if len(written) < 4 {
		t.Fatalf("found only %v written to GITHUB_OUTPUT", written)
	}
	_, help, _ := runCLI(t, "action", "--help")
	if want := "Outputs (GITHUB_OUTPUT): " + strings.Join(written, ", ") + " "; !strings.Contains(help, want) {
		t.Errorf("vigiles action --help does not say %q", want)
	}
	doc, err := os.ReadFile("../../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| outputs \\|.*$").FindString(string(doc))
	for _, n := range written {
		o, ok := a.Outputs[n]
		if !ok {
			t.Errorf("vigiles action writes output %s, which action.yml lacks", n)
		} else if !strings.Contains(o.Value, "steps.vigiles.outputs."+n+" ") && !strings.HasSuffix(o.Value, "steps.vigiles.outputs."+n+" }}") {
			t.Errorf("action.yml's output %s is %q, not the vigiles step's", n, o.Value)
		}
		if !strings.Contains(row, "`"+n+"`") {
			t.Errorf("docs/github-action.md's outputs row does not name %s", n)
		}
	}
	for n := range a.Outputs {
		if !slices.Contains(written, n) {
			t.Errorf("action.yml declares output %s, which vigiles action does not write", n)
		}
	}
}

// TestActionListInputsSayHowTheySplit: an input vigiles action splits
// into a list (splitList: paths, allow, reports) says that it takes one
// item a line or comma-separated, in action.yml's description and in its
// row of docs/github-action.md's Inputs, so that a reader of either knows
// how to give two.
func TestActionListInputsSayHowTheySplit(t *testing.T) {
	src, err := os.ReadFile("action.go")
	if err != nil {
		t.Fatal(err)
	}
	var lists []string
	for _, m := range regexp.MustCompile(`splitList\(input\(getenv, "([\w-]+)"\)\)`).FindAllStringSubmatch(string(src), -1) {
		lists = append(lists, m[1])
	}
	if len(lists) < 3 {
		t.Fatalf("found only %v split into lists", lists)
	}
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct{ Description string }
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	const says = "one per line or comma-separated"
	for _, n := range lists {
		if !strings.Contains(a.Inputs[n].Description, says) {
			t.Errorf("action.yml's input %s does not say it is %s: %q", n, says, a.Inputs[n].Description)
		}
		row := regexp.MustCompile("(?m)^\\| `" + regexp.QuoteMeta(n) + "` \\|.*$").FindString(string(doc))
		if !strings.Contains(row, says) {
			t.Errorf("docs/github-action.md's Inputs row of %s does not say it is %s: %q", n, says, row)
		}
	}
}

// TestPullRequestWorkflowsRunOnEveryChange: a pull-request workflow
// docs/github-action.md shows filters no paths: the scripts a hook runs,
// a package's .claude and a plugin may be anywhere in the tree, and one a
// filter missed would be changed without the audit that compares it with
// the baseline.
func TestPullRequestWorkflowsRunOnEveryChange(t *testing.T) {
	doc, err := os.ReadFile("../../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		var w struct {
			On map[string]*struct {
				Paths       []string `yaml:"paths"`
				PathsIgnore []string `yaml:"paths-ignore"`
			} `yaml:"on"`
		}
		if yaml.Unmarshal([]byte(m[1]), &w) != nil || w.On == nil {
			continue // a step, not a workflow
		}
		for _, ev := range []string{"pull_request", "pull_request_target"} {
			on, ok := w.On[ev]
			if !ok {
				continue
			}
			seen++
			if on != nil && (len(on.Paths) > 0 || len(on.PathsIgnore) > 0) {
				t.Errorf("a workflow in docs/github-action.md runs on %s only for some paths (%v, ignoring %v): a hook's script elsewhere would change unchecked", ev, on.Paths, on.PathsIgnore)
			}
		}
	}
	if seen == 0 {
		t.Fatal("docs/github-action.md shows no pull-request workflow")
	}
}

// TestDocWorkflowsUseWhatActionYMLHas: every workflow a reader copies
// from the docs (README.md, docs/*.md, examples/README.md) gives the
// action only inputs action.yml has, with values vigiles action takes,
// and a later step reads only outputs it declares; a step that runs
// vigiles action itself sets only INPUT_* variables of its inputs. A
// name the docs have and action.yml lacks is a warning GitHub prints,
// or an empty value a later step reads, never an error.
func TestDocWorkflowsUseWhatActionYMLHas(t *testing.T) {
	b, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs  map[string]struct{ Default string }
		Outputs map[string]any
	}
	if err := yaml.Unmarshal(b, &a); err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../../README.md", "../../examples/README.md")
	steps := 0
	for _, doc := range docs {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile("(?s)```ya?ml\n(.*?)```").FindAllStringSubmatch(string(text), -1) {
			var block any
			if err := yaml.Unmarshal([]byte(m[1]), &block); err != nil {
				t.Errorf("%s: a YAML block does not parse (%v):\n%s", doc, err, m[1])
				continue
			}
			ids := map[string]bool{} // the action's steps of this block
			var walk func(v any)
			walk = func(v any) {
				switch v := v.(type) {
				case []any:
					for _, e := range v {
						walk(e)
					}
				case map[string]any:
					uses, _ := v["uses"].(string)
					run, _ := v["run"].(string)
					switch {
					case strings.HasPrefix(uses, "vigiles/action@") || uses == "./":
						steps++
						if id, ok := v["id"].(string); ok {
							ids[id] = true
						}
						with, _ := v["with"].(map[string]any)
						env := map[string]string{"GITHUB_ACTIONS": "true"}
						for k, val := range with {
							if _, ok := a.Inputs[k]; !ok {
								t.Errorf("%s: a step of uses: %s sets input %s, which action.yml lacks", doc, uses, k)
							}
							s := fmt.Sprint(val)
							if !strings.Contains(s, "${{") && k != "runtime" && k != "image" {
								env["INPUT_"+strings.ToUpper(k)] = s
							}
						}
						if _, err := readInputs(func(k string) string { return env[k] }); err != nil {
							t.Errorf("%s: a step of uses: %s has inputs vigiles action refuses: %v", doc, uses, err)
						}
					case strings.Contains(run, "vigiles action"):
						steps++
						env, _ := v["env"].(map[string]any)
						for k := range env {
							n, ok := strings.CutPrefix(k, "INPUT_")
							if !ok {
								continue
							}
							if _, ok := a.Inputs[strings.ToLower(strings.ReplaceAll(n, "_", "-"))]; !ok {
								t.Errorf("%s: a step that runs vigiles action sets %s, which names no input of action.yml", doc, k)
							}
						}
					}
					for _, e := range v {
						walk(e)
					}
				}
			}
			walk(block)
			for _, o := range regexp.MustCompile(`steps\.([\w-]+)\.outputs\.([\w-]+)`).FindAllStringSubmatch(m[1], -1) {
				if _, ok := a.Outputs[o[2]]; ids[o[1]] && !ok {
					t.Errorf("%s: steps.%s.outputs.%s reads an output action.yml does not declare", doc, o[1], o[2])
				}
			}
		}
	}
	if steps < 5 {
		t.Errorf("found only %d steps of the action in the docs", steps)
	}
}

// TestActionYMLRuntimeInAnyCase: the build step runs where
// inputs.runtime == 'host', which GitHub compares ignoring case, so
// runtime: Host built vigiles on the host; the vigiles step then read
// Host as neither container nor host and failed. It reads the input as
// the build step does, and runs what was built.
func TestActionYMLRuntimeInAnyCase(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	for _, runtime := range []string{"host", "Host", "HOST"} {
		t.Run(runtime, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "vigiles-bin")
			if err := os.Mkdir(bin, 0o755); err != nil {
				t.Fatal(err)
			}
			// What the build step made: here, a stub that says it ran.
			if err := os.WriteFile(filepath.Join(bin, "vigiles"), []byte("#!/bin/sh\necho \"host vigiles $*\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", actionStep(t, "vigiles"))
			cmd.Env = []string{"PATH=/usr/bin:/bin", "GITHUB_OUTPUT=" + filepath.Join(tmp, "output"), "RUNNER_TEMP=" + tmp, "VIGILES_RUNTIME=" + runtime}
			log, err := cmd.CombinedOutput()
			if err != nil || string(log) != "host vigiles action\n" {
				t.Errorf("runtime %s: %v, log:\n%s", runtime, err, log)
			}
		})
	}
}

// TestContainerDocsGiveActionYMLsOptions: the docker options that
// docs/container.md tells a reader to give the image (docker run, a
// job container's options:, and the option table) are those action.yml's
// vigiles step gives it, each one; a reader who copies a doc that lacks
// one gets a sandbox that cannot start.
func TestContainerDocsGiveActionYMLsOptions(t *testing.T) {
	opt := regexp.MustCompile(`--(cap-add|security-opt|device|cgroupns)[ =]([\w/=.-]+)`)
	set := func(text string) []string {
		var out []string
		for _, m := range opt.FindAllStringSubmatch(text, -1) {
			out = append(out, "--"+m[1]+" "+m[2])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	want := set(actionStep(t, "vigiles"))
	if len(want) < 7 {
		t.Fatalf("found only %v in action.yml's vigiles step", want)
	}
	doc, err := os.ReadFile("../../docs/container.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := 0
	for _, m := range regexp.MustCompile("(?s)```(?:sh|yaml)\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		if !strings.Contains(m[1], "--cap-add") {
			continue
		}
		blocks++
		if got := set(m[1]); !slices.Equal(got, want) {
			t.Errorf("a block of docs/container.md gives %v, action.yml %v:\n%s", got, want, m[1])
		}
	}
	if blocks < 2 {
		t.Errorf("found %d blocks of docs/container.md that give the options, want the docker run and the job container", blocks)
	}
	// The option table: a row for each.
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(--[^`]+)` \\|").FindAllStringSubmatch(string(doc), -1) {
		rows = append(rows, m[1])
	}
	table := set(strings.Join(rows, "\n"))
	for _, o := range want {
		if !slices.Contains(table, o) {
			t.Errorf("docs/container.md's option table has no row for %s", o)
		}
	}
}
