package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestCommandSourceIsNamed: a marketplace entry whose source is a
// command ({"source": "command", "command": …}) is not fetched from
// anywhere: Claude Code runs the command itself, on the user's machine,
// at install and once a session, to find the plugin's directory. The
// finding names the command and says so, rather than asking to vendor a
// source as if it were a repository; the tree's own hooks run.
func TestCommandSourceIsNamed(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "owner": {"name": "o"}, "plugins": [
  {"name": "gen", "source": {"source": "command", "command": "my-tool plugin-path --emit", "mode": "link"}},
  {"name": "repo", "source": {"source": "github", "repo": "example/repo"}},
  {"name": "local", "source": "./local"}
]}`,
		"local/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo ran"}]}]}}`,
	})
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || strings.TrimSpace(rep.Runs[0].Stdout) != "ran" {
		t.Errorf("runs %+v; want the local plugin's hook run", rep.Runs)
	}
	var gen, repo []string
	for _, f := range rep.Findings {
		if f.Rule != RuleRemoteSource {
			continue
		}
		if f.Severity != report.SeverityNotice {
			t.Errorf("%s: %s, want a notice", f.Message, f.Severity)
		}
		switch {
		case strings.Contains(f.Message, "(gen)"):
			gen = append(gen, f.Message)
		case strings.Contains(f.Message, "(repo)"):
			repo = append(repo, f.Message)
		}
	}
	if len(gen) != 1 || !strings.Contains(gen[0], "my-tool plugin-path --emit") || !strings.Contains(gen[0], "once a session") ||
		!strings.Contains(gen[0], "unsandboxed") || strings.Contains(gen[0], "source is not fetched") {
		t.Errorf("command source findings %q; want one naming the command Claude Code runs, and when", gen)
	}
	if len(repo) != 1 || !strings.Contains(repo[0], "github source is not fetched or audited") {
		t.Errorf("github source findings %q; want the remote-source notice as before", repo)
	}
}
