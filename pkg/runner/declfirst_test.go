package runner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestDistinctDeclarationBytesAreBounded: the distinct declaration files
// one discovery reads are bounded in bytes all together (maxDeclFirst),
// not each alone: past the bound a file is not read, an error names the
// bound where it was passed (a bound of the whole discovery), and the
// files read before it keep their hooks.
func TestDistinctDeclarationBytesAreBounded(t *testing.T) {
	defer func(n int64) { maxDeclFirst = n }(maxDeclFirst)
	settings := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	maxDeclFirst = int64(len(settings)) * 3 / 2
	dir := makeTree(t, map[string]string{
		".claude/settings.json":   settings,
		"a/.claude/settings.json": settings,
		"b/.claude/settings.json": settings,
	})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, h := range d.Hooks {
		ids = append(ids, strings.SplitN(h.ID, "#", 2)[0])
	}
	if !slices.Equal(ids, []string{".claude/settings.json"}) {
		t.Errorf("hooks read from %q, want those of .claude/settings.json alone", ids)
	}
	want := fmt.Sprintf("the distinct declaration files read up to a/.claude/settings.json pass %d bytes in all, more than vigiles reads in one discovery; Claude Code reads them all, so the hooks of this file and those after it are not read", maxDeclFirst)
	i := slices.IndexFunc(d.Findings, func(f report.Finding) bool { return f.Message == want })
	if i < 0 || d.Findings[i].Rule != RuleMalformed || d.Findings[i].Location.File != "a/.claude/settings.json" || !slices.Contains(d.Bounded, i) {
		t.Errorf("findings %v (bounded %v), want one error, a bound of the discovery: %s", d.Findings, d.Bounded, want)
	}
}
