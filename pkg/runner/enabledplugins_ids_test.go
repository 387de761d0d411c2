package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestSkillsDirKeyLeavesMarketplacePluginOfItsNameOn: "guard@skills-dir":
// false turns off the skills-directory plugin guard only; a marketplace's
// guard (guard@mk) is another plugin, which Claude Code runs, and which
// the audit must run too.
func TestSkillsDirKeyLeavesMarketplacePluginOfItsNameOn(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":                 `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"plugins/guard/hooks/hooks.json":                  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk"}]}]}}`,
		".claude/skills/guard/.claude-plugin/plugin.json": `{"name": "guard"}`,
		".claude/skills/guard/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo sd"}]}]}}`,
		".claude/settings.json":                           `{"enabledPlugins": {"guard@skills-dir": false}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]bool{}
	for _, r := range rep.Runs {
		off[r.Command] = r.Outcome == report.OutcomeNotExecutable
	}
	if off["echo mk"] || !off["echo sd"] {
		t.Errorf("off %v: want echo mk run and echo sd off\n%s\n%+v", off, findingLines(rep.Findings), rep.Findings)
	}
}

// TestOtherMarketKeyLeavesPluginOfItsNameOn: "guard@mk2": false turns off
// mk2's guard only; mk's guard is another plugin, which Claude Code runs
// and the audit must run too. (It was the one turned off: its hooks have
// no other name, mk2's have their directory's.)
func TestOtherMarketKeyLeavesPluginOfItsNameOn(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":       `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"other/.claude-plugin/marketplace.json": `{"name": "mk2", "plugins": [{"name": "guard", "source": "./g2"}]}`,
		"other/g2/hooks/hooks.json":             `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo sd"}]}]}}`,
		"plugins/guard/hooks/hooks.json":        `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk"}]}]}}`,
		".claude/settings.json":                 `{"enabledPlugins": {"guard@mk2": false}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	off := map[string]bool{}
	for _, r := range rep.Runs {
		off[r.Command] = r.Outcome == report.OutcomeNotExecutable
	}
	if off["echo mk"] {
		t.Errorf("off %v: want echo mk run\n%+v", off, rep.Findings)
	}
}

// TestOneOfTwoInstallKeysLeavesTheOtherOn: a plugin directory that a
// marketplace lists and .claude/skills links to is installed as
// guard@mk and as guard@skills-dir; "guard@skills-dir": false turns off
// that install only.
func TestOneOfTwoInstallKeysLeavesTheOtherOn(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":          `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"plugins/guard/.claude-plugin/plugin.json": `{"name": "guard"}`,
		"plugins/guard/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk"}]}]}}`,
		".claude/settings.json":                    `{"enabledPlugins": {"guard@skills-dir": false}}`,
		".claude/skills/":                          "",
	})
	if err := os.Symlink("../../plugins/guard", filepath.Join(dir, ".claude/skills/guard")); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Command == "echo mk" && r.Outcome == report.OutcomeNotExecutable {
			t.Errorf("guard turned off by guard@skills-dir alone: %+v\n%+v", r, rep.Findings)
		}
	}
}
