package runner

import (
	"context"
	"strings"
	"testing"
)

// TestBrokenPluginGuard: a plugin one of whose PreToolUse or
// PermissionRequest hooks cannot be loaded (in its hooks file or inline
// in its manifest) is one Claude Code fails to load: none of its hooks
// runs, the error says so, and another plugin's hooks run. A broken hook
// of another event is dropped alone.
func TestBrokenPluginGuard(t *testing.T) {
	const good = `"SessionStart": [{"hooks": [{"type": "command", "command": "true # start"}]}]`
	for _, tc := range []struct {
		name, hooks, manifest string
		skipped               bool
	}{
		{"a PreToolUse handler of the wrong type", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": "5"}]}], ` + good + `}}`, `{"name": "p"}`, true},
		{"a PermissionRequest inline in the manifest", `{"hooks": {` + good + `}}`, `{"name": "p", "hooks": {"PermissionRequest": [{"hooks": [{"type": "command"}]}]}}`, true},
		{"a PreToolUse handler with an empty command, which the schema takes", `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ""}]}], ` + good + `}}`, `{"name": "p"}`, false},
		{"a PreToolUse http hook without a url", `{"hooks": {"PreToolUse": [{"hooks": [{"type": "http"}]}], ` + good + `}}`, `{"name": "p"}`, true},
		{"a Stop prompt hook without a prompt", `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "model": "x"}]}], ` + good + `}}`, `{"name": "p"}`, false},
		{"an unknown event's handler of the wrong type", `{"hooks": {"NewEvent": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}], ` + good + `}}`, `{"name": "p"}`, false},
		{"a Stop handler of the wrong type", `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}], ` + good + `}}`, `{"name": "p"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"plugins/p/.claude-plugin/plugin.json": tc.manifest,
				"plugins/p/hooks/hooks.json":           tc.hooks,
				"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
				"plugins/q/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true # q"}]}]}}`,
			})
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Runs {
				skipped := strings.HasPrefix(r.Reason, "listed, not run: Claude Code fails to load plugin p")
				if want := tc.skipped && r.Plugin == "p"; skipped != want {
					t.Errorf("%s %s: %s %q, want it skipped %v", r.Plugin, r.Event, r.Outcome, r.Reason, want)
				}
			}
			says := false
			for _, f := range rep.Findings {
				says = says || strings.Contains(f.Message, "Claude Code fails to load a plugin one of whose PreToolUse or PermissionRequest hooks cannot be loaded: none of plugin p's hooks runs")
			}
			if says != tc.skipped {
				t.Errorf("an error says the plugin fails to load: %v, want %v\n%s", says, tc.skipped, findingLines(rep.Findings))
			}
		})
	}
}
