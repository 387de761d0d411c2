package runner

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommandsObjectRepeatedKey: a command named twice in a manifest's or
// a marketplace entry's "commands" object is a warning at the second
// name, as an event named twice is: Claude Code parses with JSON.parse
// and keeps only the last, so the first's hooks never run, and vigiles
// reads only the last's, under the id it would have alone.
func TestCommandsObjectRepeatedKey(t *testing.T) {
	first := strings.ReplaceAll(stopHook("echo first"), "\n", `\n`)
	second := strings.ReplaceAll(stopHook("echo second"), "\n", `\n`)
	manifest := "plugins/p/.claude-plugin/plugin.json"
	dir := makeTree(t, map[string]string{
		manifest: "{\"name\": \"p\", \"commands\": {\n" +
			"  \"a\": {\"content\": \"" + first + "\"},\n" +
			"  \"b\": {\"source\": \"./b.md\"},\n" +
			"  \"a\": {\"content\": \"" + second + "\"}\n}}",
		"plugins/p/b.md": stopHook("echo b"),
		"plugins/q/x.md": stopHook("echo x"),
		"plugins/q/y.md": stopHook("echo y"),
		".claude-plugin/marketplace.json": "{\"name\": \"m\", \"plugins\": [{\"name\": \"p\", \"source\": \"./plugins/p\"},\n" +
			"  {\"name\": \"q\", \"source\": \"./plugins/q\", \"commands\": {\"c\": {\"source\": \"./x.md\"},\n" +
			"    \"c\": {\"source\": \"./x.md\"},\n    \"c\": {\"source\": \"./y.md\"}}}]}",
	})
	s := discoverAll(t, dir)
	var got []string
	for _, h := range s.hooks {
		got = append(got, h.ID+" "+h.Command)
	}
	want := []string{
		"plugins/p/.claude-plugin/plugin.json#commands[a].hooks.Stop[0].hooks[0] echo second",
		"plugins/p/b.md#hooks.Stop[0].hooks[0] echo b",
		"plugins/q/y.md#hooks.Stop[0].hooks[0] echo y",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	wantFinds := []string{
		"warning discovery/malformed .claude-plugin/marketplace.json:3:5",
		"warning discovery/malformed .claude-plugin/marketplace.json:4:5",
		"warning discovery/malformed " + manifest + ":4:3",
	}
	if diff := cmp.Diff(wantFinds, findingLines(s.findings)); diff != "" {
		t.Fatalf("findings (-want +got):\n%s\n%v", diff, s.findings)
	}
	for _, f := range s.findings {
		msg := f.Message
		for _, say := range []string{" of commands is declared again here (first on line 2)", "never run"} {
			if !strings.Contains(msg, say) {
				t.Errorf("message %q does not say %q", msg, say)
			}
		}
	}
}
