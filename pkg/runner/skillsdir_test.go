package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestSkillsDirPluginOnlyItsOwnKeyTurnsItOff: a skills-directory plugin's
// ID is <name>@skills-dir (plugins-reference.md, "Skills-directory
// plugins"); Claude Code matches enabledPlugins keys by the full ID, so
// a key of another marketplace of its name is another plugin and leaves
// it on. Its own key turns it off.
func TestSkillsDirPluginOnlyItsOwnKeyTurnsItOff(t *testing.T) {
	for key, wantOff := range map[string]bool{"myplug@elsewhere": false, "myplug@skills-dir": true} {
		dir := makeTree(t, map[string]string{
			".claude/skills/myplug/.claude-plugin/plugin.json": `{"name": "myplug"}`,
			".claude/skills/myplug/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true block"}]}]}}`,
			".claude/settings.json":                            `{"enabledPlugins": {"` + key + `": false}}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 1 || (rep.Runs[0].Outcome == report.OutcomeNotExecutable) != wantOff {
			t.Errorf("%s false: runs %+v, want off %v\n%s", key, rep.Runs, wantOff, findingLines(rep.Findings))
		}
	}
}

// TestPluginDataDirNamedAfterItsInstall: Claude Code names a plugin's
// data directory after the ID it installs it under: the marketplace
// entry's name @ the marketplace's (whatever name the manifest gives),
// <name>@skills-dir for a skills-directory plugin. A name listed by two
// marketplaces of the tree is each one's; the name alone, which no
// installed plugin has, would tell a hook it is audited.
func TestPluginDataDirNamedAfterItsInstall(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":                  `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}, {"name": "entry", "source": "./plugins/e"}]}`,
		"other/.claude-plugin/marketplace.json":            `{"name": "mk2", "plugins": [{"name": "guard", "source": "./g2"}]}`,
		"other/g2/hooks/hooks.json":                        `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo g2"}]}]}}`,
		"plugins/guard/hooks/hooks.json":                   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo g1"}]}]}}`,
		"plugins/e/.claude-plugin/plugin.json":             `{"name": "manifest-name"}`,
		"plugins/e/hooks/hooks.json":                       `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo e"}]}]}}`,
		".claude/skills/myplug/.claude-plugin/plugin.json": `{"name": "myplug"}`,
		".claude/skills/myplug/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo sd"}]}]}}`,
	})
	s := discoverAll(t, dir)
	got := map[string]string{}
	for _, h := range s.hooks {
		got[h.Command] = h.dataID()
	}
	for cmd, want := range map[string]string{"echo g1": "guard-mk", "echo g2": "guard-mk2", "echo e": "entry-mk", "echo sd": "myplug-skills-dir"} {
		if got[cmd] != want {
			t.Errorf("%q: data directory %q, want %q (all %v)", cmd, got[cmd], want, got)
		}
	}
}

// TestMarketplaceEntryMonitorsAreNamed: a marketplace entry may hold any
// field of the plugin manifest (plugin-marketplaces.md), monitors too;
// Claude Code runs them, so they are named as the manifest's are.
func TestMarketplaceEntryMonitorsAreNamed(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [
  {"name": "a", "source": "./a", "strict": false, "experimental": {"monitors": [{"name": "evil", "command": "curl a.example.test", "description": "d"}]}},
  {"name": "b", "source": "./b", "monitors": [{"name": "evil2", "command": "curl b.example.test", "description": "d"}]}]}`,
		"a/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"b/.claude-plugin/plugin.json": `{"name": "b"}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	all := messagesOf(rep.Findings, RuleMonitor)
	for _, want := range []string{"curl a.example.test", "curl b.example.test"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("no %s finding names %q: %v", RuleMonitor, want, findingLines(rep.Findings))
		}
	}
}

// TestLinkedSkillsDirPlugin: Claude Code follows a symlinked entry of
// .claude/skills (skills.md, plugin-marketplaces.md "Check files behind
// symlinks"); one that leads to a plugin directory in the repository is a
// skills-directory plugin, <name>@skills-dir, which a key of another
// marketplace of its name does not turn off.
func TestLinkedSkillsDirPlugin(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"vendor/myplug/.claude-plugin/plugin.json": `{"name": "myplug"}`,
		"vendor/myplug/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true block"}]}]}}`,
		".claude/skills/":                          "",
		".claude/settings.json":                    `{"enabledPlugins": {"myplug@elsewhere": false}}`,
	})
	if err := os.Symlink("../../vendor/myplug", filepath.Join(dir, ".claude/skills/myplug")); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Outcome == report.OutcomeNotExecutable {
		t.Errorf("the linked skills-directory plugin myplug@skills-dir: runs %+v\n%s", rep.Runs, findingLines(rep.Findings))
	}
}

// TestSkillsDirPluginIsNoVendoredCopy: a skills-directory plugin guard
// (guard@skills-dir, loaded in place) beside a marketplace's guard
// (guard@mk, installed from ./plugins/guard) is another plugin, not a
// vetted copy the entry should point at: no discovery/remote-source
// error, and both run.
func TestSkillsDirPluginIsNoVendoredCopy(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":                 `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"plugins/guard/hooks/hooks.json":                  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo mk"}]}]}}`,
		".claude/skills/guard/.claude-plugin/plugin.json": `{"name": "guard"}`,
		".claude/skills/guard/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo sd"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleRemoteSource {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}
	ran := map[string]bool{}
	for _, r := range rep.Runs {
		ran[r.Command] = r.Outcome != report.OutcomeNotExecutable
	}
	if !ran["echo mk"] || !ran["echo sd"] {
		t.Errorf("runs %v: want both plugins' hooks run", ran)
	}
}
