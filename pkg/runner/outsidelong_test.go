package runner

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestOutsidePluginLongMarketNameKeepsTheFinding: a marketplace named
// with 5,000 bytes is cut in its middle where a discovery/outside-plugin
// warning names it, so the message keeps the settings file, what it
// turns on, why vigiles did not audit it and what to do within the 4,096
// characters the annotations, the check run and SARIF show of a message,
// where the name whole, twice or thrice, made them cut the message's
// middle, and with it what the finding was about.
func TestOutsidePluginLongMarketNameKeepsTheFinding(t *testing.T) {
	long := "m" + strings.Repeat("é", 2499) + "z" // 5,000 bytes
	for _, tc := range []struct{ source, want string }{
		{`{"source": "github", "repo": "acme/tools"}`, "that extraKnownMarketplaces names (source {\"repo\":\"acme/tools\",\"source\":\"github\"}), outside the repository, and whose hooks it runs in every session here: vigiles did not run or audit them; vendor it in the repository with a marketplace entry that points at it, to audit it"},
		{`{"source": "file", "path": "./marketplaces/other.json"}`, `whose marketplace file marketplaces/other.json vigiles did not read as a marketplace of that name (it names the marketplace other), so it ran and audited none of its plugins' hooks; give the file the "name" m`},
		{`{"source": "file", "path": "./marketplaces/gone.json"}`, "where the repository holds no marketplace (no file there): Claude Code adds no marketplace from it, so it installs no plugin p from it and runs none of its hooks; point the path at the marketplace file, relative to the project's directory"},
		{`{"source": "file", "path": "./team.json"}`, "keep the file at <root>/.claude-plugin/marketplace.json, where <root> is the directory of the repository that its plugins' relative sources start from, and point the path at it"},
	} {
		dir := makeTree(t, map[string]string{
			".claude/settings.json":   `{"enabledPlugins": {"p@` + long + `": true}, "extraKnownMarketplaces": {"` + long + `": {"source": ` + tc.source + `}}}`,
			"team.json":               `{"name": "` + long + `", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"marketplaces/other.json": `{"name": "other", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./p"}]}`,
			"p/hooks/hooks.json":      `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		msgs := messagesOf(rep.Findings, RuleOutsidePlugin)
		if len(msgs) != 1 {
			t.Errorf("source %s: outside-plugin findings %d, want 1: %v", tc.source, len(msgs), findingLines(rep.Findings))
			continue
		}
		m := msgs[0]
		if n := utf8.RuneCountInString(m); n > 4096 || !utf8.ValidString(m) ||
			!strings.HasPrefix(m, ".claude/settings.json turns on the plugin p@m") || !strings.Contains(m, " … (cut) … ") || !strings.Contains(m, tc.want) {
			t.Errorf("source %s: a message of %d characters: %.300q … %.600q", tc.source, n, m, m[max(0, len(m)-600):])
		}
	}
}
