package main

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestProgressShowsHostileNamesAsEscapes: a plugin and a check named to
// rewrite a progress line on a terminal (a carriage return and a line
// that reads as another run's end, a backspace, ESC [2K that erases the
// line, a bidi override, a C1 CSI, a backslash) reach a real
// terminal with none of those sent: each shows as the escape the error
// printer shows, a backslash of the name's doubled, and the name, which
// holds a ':' and parentheses, is quoted: the line is the one run's, its
// outcome its own, and the name no other's. The runs are real, confined.
func TestProgressShowsHostileNamesAsEscapes(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	const forged = `[2/2] q: allowed (confined, 1 ms)`
	dir := writeFiles(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p\r` + forged + `\b\u001b[2K\u202e\u009b2J\\u000d"}`,
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".vigiles.yml": "checks:\n  - name: \"c\\r" + forged + "\\b\\e[2K\\u202e\\x9b2J\"\n" +
			"    hook: \"p\\r" + forged + "\\b\\e[2K\\u202e\\x9b2J\\\\u000d\"\n    event: Stop\n    expect: {allowed: true}\n",
	})
	const shownName = `p\u000d` + forged + `\u0008\u001b[2K\u202e\u009b2J\\u000d`
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--dir", dir, "--format", "json"}, `vigiles: [1/1] "` + shownName + `" Stop at hooks/hooks.json:1:`},
		{[]string{"test", "--dir", dir, "--format", "json"}, `vigiles: [1/1] check "c\u000d` + forged + `\u0008\u001b[2K\u202e\u009b2J": allowed (confined, `},
	} {
		term := onTerminal(t, nil, c.args...)
		var progress []string
		for _, l := range strings.Split(term, "\n") {
			if strings.HasPrefix(l, "vigiles: [") {
				progress = append(progress, l)
			}
		}
		if len(progress) != 1 || !strings.HasPrefix(progress[0], c.want) {
			t.Errorf("%s: the progress lines are %q, want one starting %q:\n%s", c.args[0], progress, c.want, term)
			continue
		}
		for _, ctl := range []string{"\r", "\b", "\x1b", "\u202e", "\u009b", annotate.Colon} {
			if strings.Contains(progress[0], ctl) {
				t.Errorf("%s: the progress line sends %q: %q", c.args[0], ctl, progress[0])
			}
		}
	}
}
