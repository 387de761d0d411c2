package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestCheckEnvParsed: a check's env is a mapping of variable names to
// scalars, kept as NAME=VALUE in the order written (true as "true"); a
// name that is none, one Claude Code sets in each hook, a value that is
// a list, null or tagged otherwise is an error at its place.
func TestCheckEnvParsed(t *testing.T) {
	cfg, errs := configErrs(t, `version: 1
checks:
  - {name: web, hook: h, env: {CLAUDE_CODE_REMOTE: true, N: 3, S: "a b"}, expect: {allowed: true}}
`)
	if errs != "" {
		t.Fatal(errs)
	}
	if diff := cmp.Diff([]string{"CLAUDE_CODE_REMOTE=true", "N=3", "S=a b"}, cfg.Checks[0].Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	_, errs = configErrs(t, `version: 1
checks:
  - name: bad
    hook: h
    env: {1X: a, CLAUDE_PROJECT_DIR: /x, CLAUDE_PLUGIN_OPTION_KEY: k, L: [a], Z: ~, T: !!int 5}
    expect: {allowed: true}
  - {name: notmap, hook: h, env: [A], expect: {allowed: true}}
`)
	for _, want := range []string{
		`check env: "1X" is no variable name`,
		"check env: CLAUDE_PROJECT_DIR is set by Claude Code in each hook it runs",
		"check env: CLAUDE_PLUGIN_OPTION_KEY is set by Claude Code in each hook it runs",
		"check env.L: want a string, a number or a boolean",
		"check env.Z: want a string, a number or a boolean",
		"check env.T: want a string, a number or a boolean",
		"check env: want a mapping of variable names to values",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("errors do not say %q:\n%s", want, errs)
		}
	}
}

// TestCheckEnvReachesTheHook: a check's env is in the environment its
// hook runs in (a web session's CLAUDE_CODE_REMOTE=true), under the
// settings' env and what Claude Code sets in each hook; another check of
// the same hook, and an audit, run without it.
func TestCheckEnvReachesTheHook(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"env": {"S": "settings"}, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "./setup.sh"}]}]}}`,
		"setup.sh":              "#!/bin/sh\n[ \"$CLAUDE_CODE_REMOTE\" = true ] || exit 0\n",
	})
	policy := `version: 1
checks:
  - {name: web, hook: project, event: SessionStart, env: {CLAUDE_CODE_REMOTE: true, S: check}, expect: {allowed: true}}
  - {name: local, hook: project, event: SessionStart, expect: {allowed: true}}
`
	if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	counts := map[string]int{}
	ex := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		var env []string
		for _, e := range spec.Env {
			name, value, _ := strings.Cut(e, "=")
			if name == "CLAUDE_CODE_REMOTE" || name == "S" || name == "CLAUDE_PROJECT_DIR" {
				env = append(env, name+"="+filepath.Base(value))
			}
		}
		mu.Lock()
		counts[strings.Join(env, " ")]++
		mu.Unlock()
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}}
	if _, err := Test(context.Background(), Options{Dir: dir, Executor: ex}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{
		"CLAUDE_CODE_REMOTE=true S=check S=settings CLAUDE_PROJECT_DIR=" + filepath.Base(dir): 1,
		"S=settings CLAUDE_PROJECT_DIR=" + filepath.Base(dir):                                 1,
	}
	if diff := cmp.Diff(want, counts); diff != "" {
		t.Errorf("environments the runs got (-want +got):\n%s", diff)
	}
}
