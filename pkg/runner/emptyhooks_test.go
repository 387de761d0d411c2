package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/report"
)

// TestEmptyHooksFile: a plugin's hooks file that is {} (or holds notes
// alone) is an error that says what Claude Code does with it, refuses
// it for want of a "hooks" record, and what vigiles did: it runs nothing
// from the file and still runs the hooks the plugin's manifest declares.
func TestEmptyHooksFile(t *testing.T) {
	for _, body := range []string{`{}`, `{"description": "none yet"}`} {
		t.Run(body, func(t *testing.T) {
			s := discoverAll(t, makeTree(t, map[string]string{
				".claude-plugin/plugin.json": `{"name": "p", "hooks": {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "from-manifest"}]}]}}}`,
				"hooks/hooks.json":           body,
			}))
			var cmds []string
			for _, h := range s.hooks {
				cmds = append(cmds, h.Command)
			}
			if diff := cmp.Diff([]string{"from-manifest"}, cmds); diff != "" {
				t.Errorf("hooks read (-want +got):\n%s", diff)
			}
			var got []report.Finding
			for _, f := range s.findings {
				if f.Rule == RuleMalformed {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != report.SeverityError || got[0].Location.File != "hooks/hooks.json" {
				t.Fatalf("malformed findings %v, want one error at hooks/hooks.json", findingLines(got))
			}
			for _, say := range []string{
				`hooks/hooks.json has no "hooks" object: Claude Code's schema requires one and refuses the file ("Hook load failed"`,
				"recent versions then fail the whole plugin to load",
				"vigiles runs none from it, and still runs the plugin's other hooks (its manifest's",
				`write {"hooks": {}} or remove the file`,
			} {
				if !strings.Contains(got[0].Message, say) {
					t.Errorf("message %q does not say %q", got[0].Message, say)
				}
			}
		})
	}
}
