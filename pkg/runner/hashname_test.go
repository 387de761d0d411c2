package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlerPathInAHashName: a finding about a handler names its path
// in the declaring file, not a piece of the file's name, when the name
// holds a '#'.
func TestHandlerPathInAHashName(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/agents/a#b.md": "---\nhooks:\n  PreToolUse: [{hooks: [{type: command, command: 1}]}]\n---\n",
	})
	s := discoverAll(t, dir)
	if len(s.findings) != 1 || !strings.HasPrefix(s.findings[0].Message, "PreToolUse[0].hooks[0].command: want a string") {
		t.Errorf("findings %v", s.findings)
	}
}

// TestCheckSelectsByTheWholeFile: a check's hook: naming a declaring file
// selects the hooks declared in that file, not those of another file
// whose name merely begins with it and a '#'; a hook id still selects the
// declarations of that id kept apart with #2.
func TestCheckSelectsByTheWholeFile(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/commands/a.json#b.md":       "---\nhooks:\n  PreToolUse: [{hooks: [{type: command, command: echo b}]}]\n---\n",
		"plugins/p/commands/a.json":            `{}`,
		"plugins/p/commands/c.md":              "---\nhooks:\n  PreToolUse: [{hooks: [{type: command, command: echo c}]}]\n---\n",
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
	})
	check := func(hook string) []string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("checks:\n  - {name: x, hook: \""+hook+"\", tool: Bash, expect: {blocked: false}}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range rep.Runs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got := check("plugins/p/commands/a.json"); len(got) != 0 {
		t.Errorf("hook: plugins/p/commands/a.json selects %v", got)
	}
	if got := check("plugins/p/commands/a.json#b.md"); len(got) != 1 || !strings.HasSuffix(got[0], ">plugins/p/commands/a.json#b.md#hooks.PreToolUse[0].hooks[0]") {
		t.Errorf("hook: plugins/p/commands/a.json#b.md selects %v", got)
	}
	if got := check("plugins/p/commands/c.md#hooks.PreToolUse[0].hooks[0]"); len(got) != 1 {
		t.Errorf("a hook id selects %v", got)
	}
}
