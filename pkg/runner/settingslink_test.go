package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestLinkedSettingsTurnHooksOff: a .claude/settings.json that is a
// symbolic link staying in the repository is read where it leads for
// disableAllHooks too, as discovery reads its hooks there: the hooks it
// turns off are listed, not run. One that leads out turns nothing off.
func TestLinkedSettingsTurnHooksOff(t *testing.T) {
	for _, tc := range []struct {
		name, target string
		off          bool
	}{
		{"a link in the repository", "../config/claude-settings.json", true},
		{"a link out of it", "/nonexistent-vigiles/settings.json", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"config/claude-settings.json": `{"disableAllHooks": true}`,
				"plugins/p/hooks/hooks.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
				".claude/":                    "",
			})
			if err := os.Symlink(tc.target, filepath.Join(dir, ".claude/settings.json")); err != nil {
				t.Fatal(err)
			}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != 1 {
				t.Fatalf("runs %+v, want one", rep.Runs)
			}
			if off := rep.Runs[0].Outcome == report.OutcomeNotExecutable; off != tc.off {
				t.Errorf("turned off %t, want %t: %+v", off, tc.off, rep.Runs[0])
			}
		})
	}
}
