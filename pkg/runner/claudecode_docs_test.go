package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAdditionalMarketplacesAlias: Claude Code (v2.1.232 and later) reads
// additionalMarketplaces as extraKnownMarketplaces. A decoy marketplace
// of the tree's name sent elsewhere through the alias is outside, as it
// is through the canonical key.
func TestAdditionalMarketplacesAlias(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"plugins/guard/hooks/hooks.json":  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude/settings.json":           `{"enabledPlugins": {"guard@mk": true}, "additionalMarketplaces": {"mk": {"source": {"source": "github", "repo": "evil/tools"}}}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleOutsidePlugin && strings.Contains(f.Message, "guard@mk") && strings.Contains(f.Message, "evil/tools") {
			return
		}
	}
	t.Errorf("no %s finding for guard@mk sent to evil/tools through additionalMarketplaces; got %v", RuleOutsidePlugin, findingLines(rep.Findings))
}

// TestPluginRootOnlyForBareNames: Claude Code resolves a source that
// starts with "./" against the marketplace root and ignores
// metadata.pluginRoot for it (plugin-marketplaces.md, "Relative paths");
// only a bare name resolves under pluginRoot. A strict:false entry's
// hooks then run with CLAUDE_PLUGIN_ROOT at the directory Claude Code
// installs, not at a decoy under pluginRoot.
func TestPluginRootOnlyForBareNames(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "metadata": {"pluginRoot": "./plugins"}, "plugins": [
  {"name": "guard", "source": "./guard", "strict": false, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/g.sh"}]}]}},
  {"name": "bare", "source": "bare", "strict": false, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/b.sh"}]}]}}]}`,
		"guard/g.sh":         "echo real",
		"plugins/guard/g.sh": "echo decoy",
		"plugins/bare/b.sh":  "echo bare",
	})
	s := discoverAll(t, dir)
	roots := map[string]string{}
	for _, h := range s.hooks {
		roots[h.Plugin] = h.PluginRoot
	}
	if roots["guard"] != "guard" {
		t.Errorf("guard's hooks run with plugin root %q, want guard (the ./ source, pluginRoot ignored)", roots["guard"])
	}
	if roots["bare"] != "plugins/bare" {
		t.Errorf("bare's hooks run with plugin root %q, want plugins/bare (a bare name under pluginRoot)", roots["bare"])
	}
}

// TestPluginRootMissingSourceSaysWhy: a "./" source that lies only under
// metadata.pluginRoot is missing, as Claude Code resolves it, and the
// error says where the author meant it and what to write.
func TestPluginRootMissingSourceSaysWhy(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "metadata": {"pluginRoot": "./plugins"}, "plugins": [{"name": "demo", "source": "./demo"}]}`,
		"plugins/demo/hooks/hooks.json":   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	s := discoverAll(t, dir)
	var msgs []string
	for _, f := range s.findings {
		if f.Rule == RuleMissingFile {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], `plugins[0] (demo): local source "./demo" does not exist: metadata.pluginRoot would put it at plugins/demo, which the tree has, but Claude Code resolves a source that holds a "/" from the marketplace's root, not under pluginRoot (anthropics/claude-code#68936); write "./plugins/demo"`) {
		t.Errorf("missing-file findings %q", msgs)
	}
}

// TestOtherMarketplaceKeyLeavesTheTreesPluginOn: with the tree's
// marketplace listing guard, "guard@elsewhere": false turns off another
// plugin (Claude Code matches the full plugin@marketplace ID,
// settings-reference.md); guard@mk, which a user may have installed and
// enabled, still runs, and so the audit runs it.
func TestOtherMarketplaceKeyLeavesTheTreesPluginOn(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":          `{"name": "mk", "plugins": [{"name": "guard", "source": "./plugins/guard"}]}`,
		"plugins/guard/.claude-plugin/plugin.json": `{"name": "guard"}`,
		"plugins/guard/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true block"}]}]}}`,
		".claude/settings.json":                    `{"enabledPlugins": {"guard@elsewhere": false}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Outcome == report.OutcomeNotExecutable {
		t.Errorf("guard@elsewhere false turned off the tree's guard@mk: runs %+v\n%s", rep.Runs, findingLines(rep.Findings))
	}
}

// TestSkillsDirPluginAndRootSkill: a folder of the project's
// .claude/skills with a plugin manifest is a plugin (<name>@skills-dir)
// whose hooks Claude Code runs; a plugin with a SKILL.md at its root and
// no skills directory or field loads that SKILL.md as its skill.
func TestSkillsDirPluginAndRootSkill(t *testing.T) {
	skill := "---\nname: s\ndescription: x\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo %s\n---\nbody\n"
	dir := makeTree(t, map[string]string{
		".claude/skills/myplug/.claude-plugin/plugin.json": `{"name": "myplug"}`,
		".claude/skills/myplug/hooks/hooks.json":           `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo skills-dir"}]}]}}`,
		".claude/skills/myplug/skills/inner/SKILL.md":      strings.Replace(skill, "%s", "inner", 1),
		"plugins/one/.claude-plugin/plugin.json":           `{"name": "one"}`,
		"plugins/one/SKILL.md":                             strings.Replace(skill, "%s", "root-skill", 1),
	})
	s := discoverAll(t, dir)
	got := map[string]string{}
	for _, h := range s.hooks {
		got[h.Command] = h.Plugin + "@" + h.PluginRoot
	}
	for cmd, want := range map[string]string{
		"echo skills-dir": "myplug@.claude/skills/myplug",
		"echo inner":      "myplug@.claude/skills/myplug",
		"echo root-skill": "one@plugins/one",
	} {
		if got[cmd] != want {
			t.Errorf("%q: got %q, want %q (all: %v)", cmd, got[cmd], want, got)
		}
	}
}

// TestHookSeesClaudeCodeSessionEnv: Claude Code sets CLAUDE_CODE_SESSION_ID
// (the payload's session_id) and CLAUDE_CODE_CHILD_SESSION=1 in every
// hook command it spawns (env-vars.md); a hook that acts only when they
// are set must act in the audit too.
func TestHookSeesClaudeCodeSessionEnv(t *testing.T) {
	cmd := `in=$(cat); sid=$(printf '%s' "$in" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p'); ` +
		`[ -n "$CLAUDE_CODE_SESSION_ID" ] && [ "$CLAUDE_CODE_SESSION_ID" = "$sid" ] && echo SID-MATCH; [ "$CLAUDE_CODE_CHILD_SESSION" = 1 ] && echo CHILD; [ -n "$CLAUDE_PID" ] && [ "$CLAUDE_PID" = "$PPID" ] && echo PID-IS-PARENT; exit 0`
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(hooks)})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || !strings.Contains(rep.Runs[0].Stdout, "SID-MATCH\n") || !strings.Contains(rep.Runs[0].Stdout, "CHILD\n") || !strings.Contains(rep.Runs[0].Stdout, "PID-IS-PARENT\n") {
		t.Errorf("runs %+v; want the hook to see CLAUDE_CODE_SESSION_ID, CLAUDE_CODE_CHILD_SESSION and CLAUDE_PID (its parent's pid, as under Claude Code)", rep.Runs)
	}
}

// TestHookSeesClaudeEffort: Claude Code (2.1.133 and later) gives a hook
// the effort level its input carries in CLAUDE_EFFORT too; a hook that
// acts only where it is set must act in the audit too. An event whose
// input carries no effort gets none.
func TestHookSeesClaudeEffort(t *testing.T) {
	cmd := `echo "effort=${CLAUDE_EFFORT-unset}"`
	hook := []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": hook, "UserPromptSubmit": hook}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(hooks)})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rep.Runs {
		got[r.Event] = r.Stdout
	}
	want := map[string]string{"Stop": "effort=high\n", "UserPromptSubmit": "effort=unset\n"}
	if !maps.Equal(got, want) {
		t.Errorf("hooks saw %q, want %q (CLAUDE_EFFORT where the payload carries effort.level)", got, want)
	}
}

// TestCheckEnvCannotSetClaudeEffort: a check's env cannot set
// CLAUDE_EFFORT, which Claude Code derives from the payload's effort;
// the error names the payload's field instead.
func TestCheckEnvCannotSetClaudeEffort(t *testing.T) {
	_, err := ParseConfig(".vigiles.yml", []byte("checks:\n  - name: e\n    hook: p\n    env: {CLAUDE_EFFORT: low}\n    expect: {exit-code: 0}\n"))
	if err == nil || !strings.Contains(err.Error(), "effort.level") {
		t.Errorf("ParseConfig: %v; want an error naming the payload's effort.level", err)
	}
}

// TestPluginCommandsLinkedFromTheMarketplace: a plugin's commands
// directory may link to a directory elsewhere in its marketplace;
// installing the plugin copies the target in the link's place, so Claude
// Code loads the commands there, and the hooks they declare.
func TestPluginCommandsLinkedFromTheMarketplace(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json":      `{"name": "mk", "plugins": [{"name": "a", "source": "./plugins/a"}]}`,
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"plugins/a/commands/":                  "",
		"shared/cmds/deploy.md":                "---\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: echo shared\n---\nbody\n",
	})
	if err := os.Symlink("../../../shared/cmds", filepath.Join(dir, "plugins/a/commands/shared")); err != nil {
		t.Fatal(err)
	}
	s := discoverAll(t, dir)
	for _, h := range s.hooks {
		if h.Command == "echo shared" && h.Plugin == "a" {
			return
		}
	}
	t.Errorf("the hook of a command linked into plugin a is not discovered; hooks %v, findings %v", s.hooks, findingLines(s.findings))
}

// TestRootSettingsDoNotTurnOffAPackageSessionsPlugins: Claude Code reads
// .claude/settings.json only from the folder it starts in (settings.md);
// a session started in a package does not read the root's
// disableAllHooks, and runs the plugins' hooks.
func TestRootSettingsDoNotTurnOffAPackageSessionsPlugins(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json":              `{"disableAllHooks": true}`,
		"packages/web/.claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"plugins/g/hooks/hooks.json":         `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true block"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Plugin == "g" && r.Outcome == report.OutcomeNotExecutable {
			t.Errorf("plugin g's hook turned off by the root's settings, which a session in packages/web does not read: %+v", r)
		}
	}
}

// TestMonitorsAreNamed: a plugin's background monitors (its
// monitors/monitors.json, or experimental.monitors in its manifest, an
// array or a path replacing the default file), which Claude Code runs
// unsandboxed beside an interactive session (plugins-reference.md,
// "Monitors"), are each named in a warning: vigiles does not run them,
// and an audit must not be silent about code a plugin runs.
func TestMonitorsAreNamed(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b"}, {"name": "c", "source": "./c"}]}`,
		"a/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"a/monitors/monitors.json":        `[{"name": "tail", "command": "tail -F ./logs/error.log", "description": "d"}]`,
		"b/.claude-plugin/plugin.json":    `{"name": "b", "experimental": {"monitors": [{"name": "poll", "command": "curl -s x.test\nid", "description": "d", "when": "on-skill-invoke:debug"}]}}`,
		"b/monitors/monitors.json":        `[{"name": "replaced", "command": "true", "description": "d"}]`,
		"c/.claude-plugin/plugin.json":    `{"name": "c", "experimental": {"monitors": "./config/m.json"}}`,
		"c/config/m.json":                 `[{"name": "other", "command": "sleep 1", "description": "d"}, 7]`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleMonitor:
			if f.Severity != report.SeverityWarning {
				t.Errorf("%s: severity %s, want warning", f.Message, f.Severity)
			}
			got = append(got, f.Location.File+": "+f.Message)
		case RuleWrongType:
			got = append(got, f.Location.File+": "+f.Rule)
		}
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		"a/monitors/monitors.json: plugin a declares the background monitor tail (when: always)",
		"tail -F ./logs/error.log; vigiles does not run monitors",
		// Claude Code starts it the first time the skill is dispatched,
		// not with the session.
		`b/.claude-plugin/plugin.json: plugin b declares the background monitor poll (when: on-skill-invoke:debug), whose command Claude Code starts unsandboxed in an interactive session the first time that skill is invoked, and runs until the session ends:`,
		"a/monitors/monitors.json: plugin a declares the background monitor tail (when: always), whose command Claude Code runs unsandboxed beside an interactive session for its whole length:",
		`"curl -s x.test\nid"`, // quoted: a newline could pass for a line of its own
		"c/config/m.json: plugin c declares the background monitor other",
		"c/config/m.json: " + RuleWrongType,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("findings lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "replaced") {
		t.Errorf("experimental.monitors replaces monitors/monitors.json, which was read too:\n%s", all)
	}
}

// TestSettingsEnvDoesNotOverrideHookVariables: Claude Code sets CLAUDECODE,
// CLAUDE_CODE_CHILD_SESSION and CLAUDE_CODE_SESSION_ID (which "matches
// the session_id field in the hook JSON input") in every hook command it
// spawns (env-vars.md), over the session's settings env. A repository
// whose settings env names them must not hand its hook a value of its
// own choosing in the audit alone: the hook would know it is audited.
func TestSettingsEnvDoesNotOverrideHookVariables(t *testing.T) {
	cmd := `in=$(cat); sid=$(printf '%s' "$in" | sed -n 's/.*"session_id":"\([^"]*\)".*/\1/p'); ` +
		`echo "sid=$([ "$CLAUDE_CODE_SESSION_ID" = "$sid" ] && echo payload || echo "$CLAUDE_CODE_SESSION_ID") child=$CLAUDE_CODE_CHILD_SESSION cc=$CLAUDECODE entry=$CLAUDE_CODE_ENTRYPOINT other=$OTHER"`
	settings, _ := json.Marshal(map[string]any{
		"env":   map[string]any{"CLAUDE_CODE_SESSION_ID": "audit-marker", "CLAUDE_CODE_CHILD_SESSION": "0", "CLAUDECODE": "0", "OTHER": "kept"},
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(settings)})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || !strings.Contains(rep.Runs[0].Stdout, "sid=payload child=1 cc=1 entry=cli other=kept\n") {
		t.Errorf("runs %+v; want the hook to see Claude Code's own values over the settings env, and the settings env besides", rep.Runs)
	}
}

// TestHookSeesAIAgent: Claude Code (2.1.120 and later) sets AI_AGENT in
// the commands it starts, claude-code_<version>_harness in a hook of the
// session's (a Bash command's is _agent), and keeps one its environment
// already holds: a hook that keys on it (skips itself where it reads
// _agent, a subagent's session) acts in the audit as under Claude Code,
// and its absence tells no hook it is audited. The session's settings
// env, which Claude Code's environment takes in, wins.
func TestHookSeesAIAgent(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	for _, tc := range []struct {
		name string
		env  map[string]any
		want string
	}{
		{"claude code's own", nil, "agent=claude-code_2-1-296_harness\n"},
		{"the settings' env", map[string]any{"AI_AGENT": "wrapper"}, "agent=wrapper\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			settings, _ := json.Marshal(map[string]any{"env": tc.env,
				"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": `echo "agent=$AI_AGENT"`}}}}}})
			dir := makeTree(t, map[string]string{".claude/settings.json": string(settings)})
			rep, err := Audit(context.Background(), Options{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != 1 || rep.Runs[0].Stdout != tc.want {
				t.Errorf("runs %+v; want stdout %q", rep.Runs, tc.want)
			}
		})
	}
}

// TestInterpreterCachesAreNotWritten: a Python hook that imports a
// module beside it writes no __pycache__ (named by the interpreter's
// version, and there only where no earlier run left it: a fresh CI
// checkout drifted from the baseline of the machine that made it); a
// settings env that sets PYTHONDONTWRITEBYTECODE otherwise wins, and a
// .pyc the hook writes itself is recorded.
func TestInterpreterCachesAreNotWritten(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		sandboxtest.Missing(t, "/usr/bin/python3, which the hook's PATH finds")
	}
	sandboxtest.RequireConfinement(t)
	audit := func(env map[string]any, cmd string) []string {
		t.Helper()
		settings, _ := json.Marshal(map[string]any{"env": env,
			"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}}})
		dir := makeTree(t, map[string]string{
			".claude/settings.json": string(settings),
			".claude/hooks/h.py":    "import lib\nprint(lib.X)\n",
			".claude/hooks/lib.py":  "X = 'ok'\n",
		})
		rep, err := Audit(context.Background(), Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Runs) != 1 || rep.Runs[0].Stdout != "ok\n" {
			t.Fatalf("runs %+v; want the hook to print ok", rep.Runs)
		}
		var paths []string
		for _, w := range rep.Runs[0].Writes {
			paths = append(paths, w.Path)
		}
		return paths
	}
	run := `python3 "$CLAUDE_PROJECT_DIR/.claude/hooks/h.py"`
	if w := audit(nil, run); strings.Contains(strings.Join(w, " "), "__pycache__") {
		t.Errorf("writes %q; want no __pycache__ of the import", w)
	}
	if w := audit(map[string]any{"PYTHONDONTWRITEBYTECODE": ""}, run); !strings.Contains(strings.Join(w, " "), ".claude/hooks/__pycache__/lib.") {
		t.Errorf("writes %q; want the settings env's empty PYTHONDONTWRITEBYTECODE to win, and the import's cache recorded", w)
	}
	own := `cd "$CLAUDE_PROJECT_DIR/.claude/hooks" && python3 -c 'import py_compile; py_compile.compile("lib.py", cfile="lib.pyc")' && ` + run
	if w := audit(nil, own); !strings.Contains(strings.Join(w, " "), ".claude/hooks/lib.pyc") {
		t.Errorf("writes %q; want the .pyc the hook wrote itself", w)
	}
}

// TestBunTranspilerCacheIsNotWritten: Bun caches the transpiled output
// of a large source in HOME, under a name from its hash: a comment's edit
// of a .ts hook would write a new file, drift no behaviour caused.
func TestBunTranspilerCacheIsNotWritten(t *testing.T) {
	if !slices.ContainsFunc([]string{"/usr/local/bin/bun", "/usr/bin/bun"}, func(p string) bool { _, err := os.Stat(p); return err == nil }) {
		sandboxtest.Missing(t, "bun in /usr/local/bin or /usr/bin, which the hook's PATH finds (scripts/install-deps.sh installs it with npm)")
	}
	sandboxtest.RequireConfinement(t)
	var ts strings.Builder
	for i := range 3000 { // above the 50KB Bun caches from
		fmt.Fprintf(&ts, "const v%d: number = %d;\n", i, i)
	}
	ts.WriteString("console.log(\"ok\");\n")
	settings, _ := json.Marshal(map[string]any{
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": `bun "$CLAUDE_PROJECT_DIR/.claude/hooks/h.ts"`}}}}}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(settings), ".claude/hooks/h.ts": ts.String()})
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Stdout != "ok\n" || rep.Runs[0].Writes == nil || len(rep.Runs[0].Writes) != 0 {
		t.Errorf("runs %+v; want the hook to print ok and write nothing", rep.Runs)
	}
}

// TestSettingsOTELNotGivenToHooks: hooks do not inherit OTEL_* variables
// (hooks.md, "Common input fields": Claude Code removes them from every
// subprocess it spawns, hooks included; changelog). A settings env that
// sets them (telemetry is configured there) must not reach the hook in
// the audit alone, where it would see a variable no session gives it.
func TestSettingsOTELNotGivenToHooks(t *testing.T) {
	settings, _ := json.Marshal(map[string]any{
		"env":   map[string]any{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.example.test:4317", "OTEL_MARK": "x", "OTHER": "kept"},
		"hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": `echo "[$OTEL_EXPORTER_OTLP_ENDPOINT][$OTEL_MARK][$OTHER]"`}}}}}})
	dir := makeTree(t, map[string]string{".claude/settings.json": string(settings)})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Stdout != "[][][kept]\n" {
		t.Errorf("runs %+v; want the hook to see no OTEL_* variable, and the rest of the settings env", rep.Runs)
	}
}
