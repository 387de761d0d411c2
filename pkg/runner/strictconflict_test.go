package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// A marketplace entry with "strict": false is the whole definition of
// its plugin; where it declares components and the plugin's own
// manifest declares some too, Claude Code fails to load the plugin as
// that entry installs it ("conflicting manifests: both plugin.json and
// marketplace entry specify components"), none of its hooks. The audit
// says so at the entry's "strict", and lists the plugin's hooks, not
// runs them, unless another entry of the tree installs it whole. An
// entry or a manifest that declares no components conflicts with
// nothing.
func TestStrictFalseEntryConflictingWithManifest(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ran"}]}]}}`
	for name, tc := range map[string]struct {
		entries, manifest string
		conflict, runs    bool
	}{
		"both declare": {
			entries:  `{"name": "p", "source": "./plugins/p", "strict": false, "skills": ["./skills/s"]}`,
			manifest: `{"name": "p", "hooks": "./more-hooks.json"}`,
			conflict: true,
		},
		"another entry installs it whole": {
			entries:  `{"name": "p", "source": "./plugins/p", "strict": false, "skills": ["./skills/s"]}, {"name": "p-full", "source": "./plugins/p"}`,
			manifest: `{"name": "p", "hooks": "./more-hooks.json"}`,
			conflict: true, runs: true,
		},
		"the manifest declares none": {
			entries:  `{"name": "p", "source": "./plugins/p", "strict": false, "skills": ["./skills/s"], "hooks": "./more-hooks.json"}`,
			manifest: `{"name": "p", "description": "no components"}`,
			runs:     true,
		},
		"the entry declares none": {
			entries:  `{"name": "p", "source": "./plugins/p", "strict": false}`,
			manifest: `{"name": "p", "hooks": "./more-hooks.json"}`,
			runs:     true,
		},
		"strict true": {
			entries:  `{"name": "p", "source": "./plugins/p", "strict": true, "skills": ["./skills/s"]}`,
			manifest: `{"name": "p", "hooks": "./more-hooks.json"}`,
			runs:     true,
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".claude-plugin/marketplace.json":      `{"name": "mk", "owner": {"name": "o"}, "plugins": [` + tc.entries + `]}`,
				"plugins/p/.claude-plugin/plugin.json": tc.manifest,
				"plugins/p/hooks/hooks.json":           stop,
				"plugins/p/more-hooks.json":            stop,
				"plugins/p/skills/s/SKILL.md":          "---\nname: s\ndescription: x\n---\nbody\n",
			})
			rep, err := Audit(context.Background(), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			var conflicts []report.Finding
			for _, f := range rep.Findings {
				if strings.Contains(f.Message, "conflicting manifests") {
					conflicts = append(conflicts, f)
				}
			}
			switch {
			case !tc.conflict && len(conflicts) > 0:
				t.Errorf("conflict said where there is none: %v", findingLines(conflicts))
			case tc.conflict && (len(conflicts) != 1 || conflicts[0].Severity != report.SeverityError || conflicts[0].Rule != RuleMalformed ||
				conflicts[0].Location.File != ".claude-plugin/marketplace.json" || conflicts[0].Location.Line != 1):
				t.Errorf("conflict findings %v, want one discovery/malformed error at the entry's strict", findingLines(conflicts))
			}
			if len(rep.Runs) == 0 {
				t.Fatal("no runs")
			}
			for _, r := range rep.Runs {
				if tc.runs && (r.Outcome != report.OutcomeAllowed || strings.TrimSpace(r.Stdout) != "ran") {
					t.Errorf("run %s: %s (%s), stdout %q; want it run", r.ID, r.Outcome, r.Reason, r.Stdout)
				}
				if !tc.runs && (r.Outcome != report.OutcomeNotExecutable || !strings.Contains(r.Reason, `"strict": false`)) {
					t.Errorf("run %s: %s (%s); want it listed, not run, as Claude Code fails to load the plugin", r.ID, r.Outcome, r.Reason)
				}
			}
		})
	}
}
