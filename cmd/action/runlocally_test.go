package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunItLocallyNamesWhatIsRead: docs/github-action.md's "Run it
// locally" section names every GITHUB_* and RUNNER_* variable that vigiles
// action and what it reports with (cmd/action, pkg/annotate) read, the
// two spellings of an input's variable that input() takes, and its
// example's variables; README.md points at it; vigiles action --help says
// how an input's variable is named.
func TestRunItLocallyNamesWhatIsRead(t *testing.T) {
	b, err := os.ReadFile("../../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Run it locally\n")
	if !ok {
		t.Fatal("docs/github-action.md has no Run it locally section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	read := regexp.MustCompile(`getenv\("((?:GITHUB|RUNNER)_[A-Z_]+)"\)`)
	names := map[string]bool{}
	for _, glob := range []string{"*.go", "../../pkg/annotate/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range read.FindAllStringSubmatch(string(src), -1) {
				names[m[1]] = true
			}
		}
	}
	if len(names) < 10 {
		t.Fatalf("found only %d variables read: %v", len(names), names)
	}
	for n := range names {
		if !strings.Contains(sec, "`"+n+"`") {
			t.Errorf("Run it locally does not say what %s does", n)
		}
	}
	for _, s := range []string{"`INPUT_WORKING-DIRECTORY`", "`INPUT_WORKING_DIRECTORY`", "INPUT_CHECK_RUN=false", "./bin/vigiles action"} {
		if !strings.Contains(sec, s) {
			t.Errorf("Run it locally does not show %s", s)
		}
	}
	// Both spellings are what input() reads.
	for _, k := range []string{"INPUT_WORKING-DIRECTORY", "INPUT_WORKING_DIRECTORY"} {
		if got := input(func(n string) string { return map[string]string{k: " examples "}[n] }, "working-directory"); got != "examples" {
			t.Errorf("%s=examples: input reads %q", k, got)
		}
	}
	r, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r), "docs/github-action.md#run-it-locally") {
		t.Error("README.md does not point at docs/github-action.md#run-it-locally")
	}
	if code, out, _ := runCLI(t, "action", "--help"); code != 0 || !strings.Contains(out, "(INPUT_WORKING-DIRECTORY or INPUT_WORKING_DIRECTORY)") {
		t.Errorf("vigiles action --help (exit %d) does not say how an input's variable is named", code)
	}
	// A bare vigiles in a step is vigiles action, as the section says:
	// here the test command's missing policy file, told with the input
	// that names another.
	if !strings.Contains(sec, "Under\n`GITHUB_ACTIONS=true` a bare `vigiles`, with no command, runs it too") {
		t.Error("Run it locally does not say that a bare vigiles in a step runs vigiles action")
	}
	ws := t.TempDir()
	// A checkout without the policy file (an empty workspace is told to
	// check the repository out).
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("a repository\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	env := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": ws, "RUNNER_TEMP": t.TempDir()}
	err = run(context.Background(), nil, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errb)
	if code := exitCode(err, &errb, true); code != 2 || !strings.Contains(out.String(), "name another with the config input") {
		t.Errorf("a bare vigiles in a step: exit %d, stdout %q; want 2 and vigiles action's error", code, out.String())
	}
	if code, out, errs := runCLI(t); code != 2 || out != "" || !strings.Contains(errs, "Commands:") {
		t.Errorf("a bare vigiles elsewhere: exit %d, stdout %q, stderr %.60q; want 2 and the commands on stderr", code, out, errs)
	}
	// Without GITHUB_ACTIONS=true: the error the section quotes, which
	// says how to try the step here.
	code, _, errs := runCLI(t, "action")
	msg := strings.TrimSuffix(strings.TrimPrefix(errs, "vigiles: "), "\n")
	if code != 2 || !strings.Contains(sec, "exit 2: `"+msg+"`") || !strings.Contains(msg, "#run-it-locally") {
		t.Errorf("vigiles action without GITHUB_ACTIONS: exit %d, %q; want 2 and the error Run it locally quotes, which points at it", code, errs)
	}
}
