package runner

import (
	"fmt"
	"strings"
	"testing"
)

// TestJSONDeeperThanVigilesReadsSaysTheBound: a declaration file that
// nests values deeper than vigiles reads (100,000 levels of "[") is
// valid JSON, which Claude Code reads: its error names vigiles' bound
// and where it was hit, not a mistake of the file's; one as deep as the
// bound is read.
func TestJSONDeeperThanVigilesReadsSaysTheBound(t *testing.T) {
	nested := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	hooks := `"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]}`
	dir := makeTree(t, map[string]string{
		".claude/settings.json":        `{"x":` + nested(100000) + `,` + hooks + `}`,
		"p/.claude-plugin/plugin.json": `{"name":"p"}`,
		"p/hooks/hooks.json":           `{"x":` + nested(maxJSONDepth) + `,` + hooks + `}`,
	})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.Findings {
		if f.Rule == RuleMalformed {
			got = append(got, fmt.Sprintf("%s %s:%d:%d %s", f.Severity, f.Location.File, f.Location.Line, f.Location.Column, f.Message))
		}
	}
	want := []string{fmt.Sprintf("error .claude/settings.json:1:%d .claude/settings.json nests values more than 256 levels deep (line 1, column %[1]d), deeper than vigiles reads; JSON sets no such bound, and Claude Code reads the file, but vigiles reads nothing of it: nest less deeply", len(`{"x":`)+maxJSONDepth+1)}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
	if len(d.Hooks) != 1 || !strings.HasPrefix(d.Hooks[0].ID, "p/hooks/hooks.json#") {
		var ids []string
		for _, h := range d.Hooks {
			ids = append(ids, h.ID)
		}
		t.Errorf("hooks read: %q, want the one of p/hooks/hooks.json, %d levels deep", ids, maxJSONDepth)
	}
}
