package main

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRefusedRunExitsAsItsHelpSays: a run vigiles refused is an error
// finding, and vigiles test and audit exit 125 for it (vigiles' own
// status, as their help says), not 1 as for a broken promise or drift;
// so does vigiles merge of a shard that holds one.
func TestRefusedRunExitsAsItsHelpSays(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p"}`,
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "guard"}]}]}}`,
		".vigiles.yml":               "checks:\n  - name: c\n    hook: p\n    event: Stop\n    expect: {exit-code: 0}\n",
	})
	withExecutor(t, &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}, nil
	}})
	for _, args := range [][]string{
		{"test", "--dir", dir, "-q"},
		{"audit", "--dir", dir, "--baseline", "", "-q"},
	} {
		code, stdout, _ := runCLI(t, args...)
		if code != 125 || !strings.Contains(stdout, runner.RuleRunRefused) {
			t.Errorf("vigiles %s of a refused run: exit %d, want 125 and %s\n%s", args[0], code, runner.RuleRunRefused, stdout)
		}
		_, help, _ := runCLI(t, args[0], "--help")
		if !strings.Contains(strings.Join(strings.Fields(help), " "), "125 vigiles refused or failed: a run refused") {
			t.Errorf("vigiles %s --help does not say a refused run is 125:\n%s", args[0], help)
		}
	}
	// A shard's refused run makes the merged verdict error: merge exits
	// 125 for it too.
	out := t.TempDir() + "/shard.json"
	if code, _, errs := runCLI(t, "test", "--dir", dir, "-q", "--shard", "1/1", "--format", "json", "-o", out); code != 125 {
		t.Fatalf("vigiles test --shard 1/1 of a refused run: exit %d, want 125\n%s", code, errs)
	}
	if code, stdout, _ := runCLI(t, "merge", out); code != 125 || !strings.Contains(stdout, `"verdict": "error"`) {
		t.Errorf("vigiles merge of a shard with a refused run: exit %d, want 125 and verdict error\n%s", code, stdout)
	}
	if _, help, _ := runCLI(t, "merge", "--help"); !strings.Contains(strings.Join(strings.Fields(help), " "), "125 vigiles failed, here or in a shard") {
		t.Errorf("vigiles merge --help does not say a shard's refused run is 125:\n%s", help)
	}
}
