package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestTestSaysNoAudit runs vigiles test over a tree whose discovery
// finds a hook that fetches its code and a marketplace plugin in a git
// submodule not checked out, with a check whose script a build makes:
// test shows each finding as an audit does, and none says "the audit",
// which test did not run. The fetched code's says where vigiles runs it,
// the submodule's to check them out before vigiles runs, the hook
// error's to build the file before vigiles runs.
func TestTestSaysNoAudit(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "npx lint-it"}]}], ` +
			`"Stop": [{"hooks": [{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/dist/gate.sh"}]}]}}`,
		".gitmodules":                     "[submodule \"sdk\"]\n\tpath = sdk-bridge\n\turl = https://git.example.test/sdk.git\n",
		"sdk-bridge/":                     "",
		".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "sdk", "source": "./sdk-bridge"}]}`,
		".vigiles.yml":                    "checks:\n  - {name: built, hook: .claude/settings.json, event: Stop, expect: {allowed: true}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ rule, says string }{
		{RuleFetchedCode, "; where vigiles runs it under egress deny, a fetch it tries is blocked"},
		{RuleMissingFile, "check the submodules out before vigiles runs (git submodule update --init --recursive; actions/checkout's submodules: recursive) so that it reads them"},
		{RuleRunHookError, "commit it, or build it before vigiles runs, as it is built where the hook is used"},
	} {
		if msgs := messagesOf(rep.Findings, want.rule); len(msgs) != 1 || !strings.Contains(msgs[0], want.says) {
			t.Errorf("%s: %q; want one that says %q", want.rule, msgs, want.says)
		}
	}
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "the audit") {
			t.Errorf("vigiles test's %s says \"the audit\", which it did not run: %s", f.Rule, f.Message)
		}
	}
}

// TestTestNamesTheAuditToRun runs vigiles test over a tree with a
// fixture's .claude (tests/fixtures/proj/.claude) beside a check: test
// shows the notice that vigiles does not run it, whose advice names the
// command that would (vigiles audit, with the fixture as its PATH), where
// it named "the audit's PATH", which a test has none of.
func TestTestNamesTheAuditToRun(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"tests/fixtures/proj/.claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo fixture"}]}]}}`,
		".vigiles.yml": "checks:\n  - name: c\n    trusted: true\n    event: Stop\n    command: \"echo ok\"\n    expect: {allowed: true}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var note string
	for _, f := range rep.Findings {
		if f.Rule == RuleNotExecutable && strings.Contains(f.Message, "lies in a test's directory") {
			note = f.Message
		}
		if strings.Contains(f.Message, "the audit") {
			t.Errorf("vigiles test's %s says \"the audit\", which it did not run: %s", f.Rule, f.Message)
		}
	}
	if !strings.HasSuffix(note, "; to audit it, name tests/fixtures/proj as the PATH of vigiles audit") {
		t.Errorf("the fixture's notice %q; want it to name vigiles audit's PATH as the way to audit it", note)
	}
}
