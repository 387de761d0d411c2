package runner

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestDiscoveryCarriesTheDeclaration: discovery keeps each handler as
// declared (Hook.Declared), in the form a baseline keeps it: compact JSON,
// keys sorted, the last of a key given twice (as Claude Code reads it),
// whitespace and key order no part of it; a frontmatter's YAML as the
// JSON it reads as; a handler of inline markdown as the string's digest.
// declaredOf gives them by run id, for the hooks listed, not run that are
// no command hooks.
func TestDiscoveryCarriesTheDeclaration(t *testing.T) {
	inline := "---\nhooks:\n  Stop:\n    - hooks:\n        - type: prompt\n          prompt: check\n---\nbody\n"
	inlineJSON := strings.ReplaceAll(strings.ReplaceAll(inline, "\n", `\n`), `"`, `\"`)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks":{"Stop":[{"hooks":[
			{ "url" : "https://a.example.test/x", "type" : "http", "headers": {"B": "2", "A": "<&>"} },
			{"type":"mcp_tool","server":"s","tool":"t","server":"s2"},
			{"type":"command","command":"true"}]}]}}`,
		".claude/agents/rev.md":                "---\nname: rev\nhooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - type: agent\n          prompt: \"review\"\n          timeout: 30\n---\n",
		"plugins/p/.claude-plugin/plugin.json": `{"name":"p","commands":{"c":{"content":"` + inlineJSON + `"}}}`,
	})
	s := discoverAll(t, dir)
	got := map[string]string{}
	for _, h := range s.hooks {
		got[h.ID] = h.Declared
	}
	want := map[string]string{
		".claude/settings.json#hooks.Stop[0].hooks[0]":                            `{"headers":{"A":"<&>","B":"2"},"type":"http","url":"https://a.example.test/x"}`,
		".claude/settings.json#hooks.Stop[0].hooks[1]":                            `{"server":"s2","tool":"t","type":"mcp_tool"}`,
		".claude/settings.json#hooks.Stop[0].hooks[2]":                            "", // a command hook: the baseline keeps what it did
		".claude/agents/rev.md#hooks.PreToolUse[0].hooks[0]":                      `{"prompt":"review","timeout":30,"type":"agent"}`,
		"plugins/p/.claude-plugin/plugin.json#commands[c].hooks.Stop[0].hooks[0]": fmt.Sprintf("(inline markdown, sha256 %x)", sha256.Sum256([]byte(inline))),
	}
	for id, w := range want {
		if g, ok := got[id]; !ok {
			t.Errorf("%s: not discovered (have %v)", id, got)
		} else if g != w {
			t.Errorf("%s: Declared %s, want %s", id, g, w)
		}
	}
	decl := declaredOf(s.hooks)
	if len(decl) != 4 || decl[".claude/settings.json#hooks.Stop[0].hooks[2]"] != "" {
		t.Errorf("declaredOf: %v, want the four hooks that are no command hooks", decl)
	}
	for id, d := range decl {
		if d != want[id] {
			t.Errorf("declaredOf[%s] = %s, want %s", id, d, want[id])
		}
	}
}

// TestBaselineKeepsTheAuditedDeclaration: the declaration a baseline
// keeps is the one discovery read and the audit listed, in the bytes the
// baseline has always held it in.
func TestBaselineKeepsTheAuditedDeclaration(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks":{"Stop":[{"hooks":[{"url":"https://a.example.test/x?a=1&b=<2>","type":"http"}]}]}}`,
	})
	s := discoverAll(t, dir)
	decl := declaredOf(s.hooks)
	id := ".claude/settings.json#hooks.Stop[0].hooks[0]"
	rep := &report.Report{Runs: []report.HookRun{{ID: id, Plugin: "project", Event: Stop, Type: TypeHTTP, Outcome: report.OutcomeNotExecutable,
		Location: report.Location{File: ".claude/settings.json", Line: 1, Column: 29}}}}
	path := filepath.Join(dir, "b.json")
	if err := WriteBaseline(dir, path, newBaseline(rep, decl, nil, nil)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"declared": "{\"type\":\"http\",\"url\":\"https://a.example.test/x?a=1&b=<2>\"}"`) {
		t.Errorf("baseline:\n%s", data)
	}
	// Compared with itself, nothing drifts.
	b, err := LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := compareRuns(b, rep.Runs, decl, nil, nil, map[string]bool{id: true}, nil, nil, report.SeverityError, ""); len(d) != 0 {
		t.Errorf("drift against its own baseline: %v", d)
	}
}
