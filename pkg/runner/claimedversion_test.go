package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// harnessValue is an AI_AGENT value of Claude Code's harness as the docs
// spell it: claude-code_<version, dots as dashes>_harness.
var harnessValue = regexp.MustCompile(`claude-code_[0-9]+(?:-[0-9]+)+_harness`)

// TestDocsNameClaudeCodeVersion: every AI_AGENT value a doc shows for a
// hook (README.md, docs/*.md) is the one aiAgentEnv gives, of
// claudeCodeVersion, the release the hooks are checked against. Only
// hook-events.md is generated from the code (TestEventsDoc); the others
// write the value out, and a moved claudeCodeVersion left them naming the
// release before it.
func TestDocsNameClaudeCodeVersion(t *testing.T) {
	want := strings.TrimPrefix(aiAgentEnv, "AI_AGENT=")
	if !harnessValue.MatchString(want) {
		t.Fatalf("aiAgentEnv %q is not of the form the docs are read for", aiAgentEnv)
	}
	docs, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join("..", "..", "README.md"))
	seen := 0
	for _, path := range docs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, got := range harnessValue.FindAllString(line, -1) {
				seen++
				if got != want {
					t.Errorf("%s:%d names %s; claudeCodeVersion %s gives %s", filepath.Base(path), i+1, got, claudeCodeVersion, want)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no doc names the AI_AGENT value a hook gets; the test reads nothing")
	}
}
