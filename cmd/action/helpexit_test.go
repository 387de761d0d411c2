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
// status, as their help says), not 1 as for a broken promise or drift.
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
}
