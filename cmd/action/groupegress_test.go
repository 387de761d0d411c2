package main

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestEgressGroupedAcrossHooks: through a real confined audit (egress
// deny: the name is asked of the sandbox's own DNS stub, and nothing
// leaves the sandbox), one command a plugin declares on three events
// that tries the same host in each is one run/egress finding at its first
// declaration naming the hooks, as run/hook-error's are; another
// plugin's command keeps its own.
func TestEgressGroupedAcrossHooks(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	ask := `{"type": "command", "command": "getent ahosts grouped.example.test; true"}`
	dir := writeFiles(t, map[string]string{
		"p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"p/hooks/hooks.json": `{"hooks": {
  "Stop": [{"hooks": [` + ask + `]}],
  "SessionEnd": [{"hooks": [` + ask + `]}],
  "Notification": [{"hooks": [` + ask + `]}]}}`,
		"q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [` + ask + `]}]}}`,
	})
	code, out, errs := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--format", "json")
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("exit %d (%v)\n%s%s", code, err, out, errs)
	}
	got := map[string][]string{}
	for _, f := range rep.Findings {
		if f.Rule == runner.RuleRunEgress {
			got[f.Location.File] = append(got[f.Location.File], f.Message)
		}
	}
	for file, want := range map[string]string{
		"p/hooks/hooks.json": `^p: 3 hooks that run one command \(Stop at line 2, SessionEnd other at line 3 and Notification permission_prompt at line 4\), 3 runs, each tried to reach grouped\.example\.test, which the egress policy blocked`,
		"q/hooks/hooks.json": `^q Stop tried to reach grouped\.example\.test, which the egress policy blocked`,
	} {
		if ms := got[file]; len(ms) != 1 || !regexp.MustCompile(want).MatchString(ms[0]) {
			t.Errorf("%s: run/egress %q\nwant one matching %s", file, ms, want)
		}
	}
}
