package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRemoteSessionNamed: a command hook that reads CLAUDE_CODE_REMOTE,
// in its command or in a script of the tree it runs (a plugin's too), is
// a notice that says how to test it as a web session runs it (a script
// found past a cd and sh -c, as a server's are); one that does not is
// not named.
func TestRemoteSessionNamed(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [
  {"type": "command", "command": "[ \"$CLAUDE_CODE_REMOTE\" = true ] && echo web"},
  {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR\"/scripts/install_pkgs.sh"},
  {"type": "command", "command": "bash scripts/plain.sh"},
  {"type": "command", "command": "cd \"$CLAUDE_PROJECT_DIR\"/scripts && sh -c ./web.sh"}
]}]}}`,
		"scripts/install_pkgs.sh":         "#!/bin/bash\nif [ \"$CLAUDE_CODE_REMOTE\" != \"true\" ]; then exit 0; fi\npip install --user x\n",
		"scripts/web.sh":                  "#!/bin/sh\n[ -n \"$CLAUDE_CODE_REMOTE\" ] && apt-get install -y jq\n",
		"scripts/plain.sh":                "#!/bin/bash\necho hi\n",
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}]}`,
		"a/hooks/hooks.json":              `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "node ${CLAUDE_PLUGIN_ROOT}/stop.js"}]}]}}`,
		"a/stop.js":                       "if (process.env.CLAUDE_CODE_REMOTE) { console.log('cloud') }\n",
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRemoteSession {
			got = append(got, string(f.Severity)+" "+f.Message)
		}
	}
	const tail = ", which Claude Code sets to true in a web session: vigiles runs it as a local session runs it, where what it does only there (a setup script that installs tools in the cloud) does not run; test that with a check whose env is {CLAUDE_CODE_REMOTE: \"true\"}"
	want := []string{
		"notice hook .claude/settings.json#hooks.SessionStart[0].hooks[0] reads CLAUDE_CODE_REMOTE in its command" + tail,
		"notice hook .claude/settings.json#hooks.SessionStart[0].hooks[1] reads CLAUDE_CODE_REMOTE in its script scripts/install_pkgs.sh" + tail,
		"notice hook .claude/settings.json#hooks.SessionStart[0].hooks[3] reads CLAUDE_CODE_REMOTE in its script scripts/web.sh" + tail,
		"notice hook a/hooks/hooks.json#hooks.Stop[0].hooks[0] reads CLAUDE_CODE_REMOTE in its script a/stop.js" + tail,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	// Where a check already sets it, the notice says so, not to write one.
	if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("checks:\n  - {name: web, hook: a, event: Stop, env: {CLAUDE_CODE_REMOTE: true}, expect: {no-egress: true}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule != RuleRemoteSession {
			continue
		}
		n++
		if strings.Contains(f.Message, "test that with a check") || !strings.Contains(f.Message, "a check of .vigiles.yml that sets it runs that path") {
			t.Errorf("with a check that sets it: %s", f.Message)
		}
	}
	if n == 0 {
		t.Errorf("vigiles test names no hook that reads it: %+v", rep.Findings)
	}
}
