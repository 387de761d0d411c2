package runner

import (
	"slices"
	"strings"
	"testing"
)

// TestCaseVariants: a declaration file or directory whose name differs
// from the one Claude Code reads only in case, which a case-insensitive
// checkout (macOS, Windows) loads and vigiles on Linux does not, is a
// discovery/case-variant error at the variant; where the tree has both,
// the message says a checkout keeps one. Names Claude Code does not read
// there (a Hooks directory outside a plugin, a Commands directory outside
// .claude) are left alone.
func TestCaseVariants(t *testing.T) {
	stop := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	dir := makeTree(t, map[string]string{
		".claude/settings.json":                `{}`,
		".claude/Settings.local.json":          stop,
		"pkg/.Claude/settings.json":            stop,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/Hooks/hooks.json":           stop,
		"plugins/q/.claude-plugin/Plugin.json": `{"name": "q"}`,
		"plugins/q/hooks/HOOKS.json":           stop,
		".mcp.json":                            `{"mcpServers": {}}`,
		".MCP.json":                            `{"mcpServers": {}}`,
		"docs/Hooks/hooks.json":                stop,
		"Commands/x.md":                        "x",
	})
	s := discoverAll(t, dir)
	var got []string
	for _, f := range s.findings {
		if f.Rule == RuleCaseVariant {
			got = append(got, f.Location.File)
			if !strings.Contains(f.Message, "only in case") {
				t.Errorf("%s: %s", f.Location.File, f.Message)
			}
			if f.Location.File == ".MCP.json" && !strings.Contains(f.Message, "which the tree has too") {
				t.Errorf(".MCP.json beside .mcp.json: %s", f.Message)
			}
			if f.Location.File == ".claude/Settings.local.json" && !strings.Contains(f.Message, "Claude Code opens it as .claude/settings.local.json") {
				t.Errorf("the local settings' variant: %s", f.Message)
			}
		}
	}
	slices.Sort(got)
	want := []string{".MCP.json", ".claude/Settings.local.json", "pkg/.Claude", "plugins/p/Hooks", "plugins/q/.claude-plugin/Plugin.json", "plugins/q/hooks/HOOKS.json"}
	if !slices.Equal(got, want) {
		t.Errorf("case variants %q, want %q", got, want)
	}
}
