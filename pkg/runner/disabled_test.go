package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDisabledNamesBounded: the discovery/disabled notice of a settings
// file that turns off the hooks of many plugins names maxOffNamed of
// them, in sorted order, and counts the rest, both of the plugins it
// turns off and of those a marketplace of the tree lists; at the bound
// it names them all. Before, it named every one, however many.
func TestDisabledNamesBounded(t *testing.T) {
	for _, n := range []int{maxOffNamed, maxOffNamed + 1, 300} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			files := map[string]string{}
			var entries, keys, names []string
			for i := range n {
				name := fmt.Sprintf("p%03d", i)
				names = append(names, name)
				entries = append(entries, fmt.Sprintf(`{"name": %q, "source": "./plugins/%s"}`, name, name))
				keys = append(keys, fmt.Sprintf(`"%s@m": false`, name))
				files["plugins/"+name+"/.claude-plugin/plugin.json"] = fmt.Sprintf(`{"name": %q}`, name)
				files["plugins/"+name+"/hooks/hooks.json"] = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
			}
			files[".claude-plugin/marketplace.json"] = `{"name": "m", "plugins": [` + strings.Join(entries, ", ") + `]}`
			files[".claude/settings.json"] = `{"enabledPlugins": {` + strings.Join(keys, ", ") + `}}`
			rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			got := messagesOf(rep.Findings, RuleDisabled)
			if len(got) != 1 {
				t.Fatalf("disabled notices %q, want one", got)
			}
			named := strings.Join(names[:min(n, maxOffNamed)], ", ")
			if n > maxOffNamed {
				named += fmt.Sprintf(", and %d more", n-maxOffNamed)
			}
			for _, want := range []string{
				fmt.Sprintf("turns off %d hook(s) (of %s): Claude Code", n, named),
				fmt.Sprintf("; a marketplace of this tree lists %s, and a session", named),
			} {
				if !strings.Contains(got[0], want) {
					t.Errorf("notice %q\ndoes not say %q", got[0], want)
				}
			}
		})
	}
}
