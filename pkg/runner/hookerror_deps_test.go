package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestTimeoutAdvisesInstallingDeps: a plugin's hook whose wrapper falls
// back to npx tsx (node_modules absent, tsx in package.json's
// dependencies) and that timed out waiting on hosts the egress policy
// blocked is told to install its dependencies in the tree, as
// run/hook-error tells it for the same cause, not to allow the hosts;
// without a dependency manifest, the advice stays to allow them.
func TestTimeoutAdvisesInstallingDeps(t *testing.T) {
	files := map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
  {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/run.sh timeout host:pkgs.example.test"}]}]}}`,
		"plugins/p/hooks/run.sh": "#!/bin/sh\nif [ -x node_modules/.bin/tsx ]; then exec node_modules/.bin/tsx hook.ts; fi\nexec npx tsx hook.ts\n",
		"plugins/p/package.json": `{"name": "p", "dependencies": {"tsx": "4.19.2"}}`,
	}
	timeoutMsg := func(files map[string]string) string {
		rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: fakeHooks(), Jobs: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			if f.Rule == RuleRunTimeout {
				return f.Message
			}
		}
		t.Fatalf("no run/timeout: %+v", rep.Findings)
		return ""
	}
	msg := timeoutMsg(files)
	if !strings.Contains(msg, "install its dependencies in the tree") || !strings.Contains(msg, "plugins/p/package.json") || strings.Contains(msg, auditReachable) {
		t.Errorf("run/timeout: %s\nwant the dependency-install advice, naming plugins/p/package.json, not allowing the host", msg)
	}
	delete(files, "plugins/p/package.json")
	if msg := timeoutMsg(files); !strings.Contains(msg, "--egress allow") || strings.Contains(msg, "install its dependencies") {
		t.Errorf("run/timeout without a manifest: %s\nwant the advice to allow the host", msg)
	}
}

// TestCommentedFetcherIsNoFetcher: a script that names npx only in a
// comment runs no fetcher; its blocked host keeps the advice to allow it.
func TestCommentedFetcherIsNoFetcher(t *testing.T) {
	tree := t.TempDir()
	writeFile(t, tree, "plugins/p/run.sh", "#!/bin/sh\n# formerly: npx tsx hook.ts\n  // npx too\ncurl https://collector.example.test/x\n")
	writeFile(t, tree, "plugins/p/package.json", `{"dependencies": {"tsx": "4.0.0"}}`)
	r := report.HookRun{Command: "sh ${CLAUDE_PLUGIN_ROOT}/run.sh", Context: "plugin:plugins/p",
		Egress: []evidence.Egress{{Host: "collector.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1}}}
	if d := fetchedDeps(r, tree); d != "" {
		t.Errorf("fetchedDeps = %q, want none: the script runs no fetcher", d)
	}
	for _, script := range []string{"#!/bin/sh\nnpx tsx hook.ts\n", "#!/usr/bin/env -S npx -y tsx\nconsole.log(1)\n"} {
		writeFile(t, tree, "plugins/p/run.sh", script)
		if d := fetchedDeps(r, tree); !strings.Contains(d, "install its dependencies") {
			t.Errorf("%q: fetchedDeps = %q, want the install advice (a shebang runs what it names)", script, d)
		}
	}
}
