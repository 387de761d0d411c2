package runner

import (
	"slices"
	"strings"
	"testing"
)

// TestIDFile: a tree path is named in an ID as it is where each of its
// names is valid UTF-8 with no U+FFFD and no double quote first, and
// otherwise with each such name quoted alone, so that paths that JSON
// would show alike give IDs of their own.
func TestIDFile(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"plugins/guard/hooks/hooks.json", "plugins/guard/hooks/hooks.json"},
		{".claude/settings.json", ".claude/settings.json"},
		{"a b/x#y.json", "a b/x#y.json"},
		{`q"/a"b.json`, `q"/a"b.json`},
		{"p\xff/hooks/hooks.json", `"p\xff"/hooks/hooks.json`},
		{"p\xfe/hooks/hooks.json", `"p\xfe"/hooks/hooks.json`},
		{"p\uFFFD/hooks/hooks.json", "\"p\uFFFD\"/hooks/hooks.json"},
		{`"p\xff"/hooks/hooks.json`, `"\"p\\xff\""/hooks/hooks.json`},
		{`a/"q/h.json`, `a/"\"q"/h.json`},
		{"a/b/h\xff.json", `a/b/"h\xff.json"`},
		{".", "."},
	} {
		if got := idFile(tc.path); got != tc.want {
			t.Errorf("idFile(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestDiscoveryIDsOfPathsThatAreNotUTF8: discovery names a declaring file
// and a reading plugin's root that are not UTF-8 quoted in a hook's ID,
// and what it reads back from the ID stays right: a finding about a
// handler names its place in the file alone, and the hook a plugin reads
// from a plugin below it (#in: and the reader's root) is of the same
// declaration as the owner's.
func TestDiscoveryIDsOfPathsThatAreNotUTF8(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"q\xfe/.claude-plugin/plugin.json":       `{"name": "outer", "hooks": "./inner/hooks/hooks.json"}`,
		"q\xfe/inner/.claude-plugin/plugin.json": `{"name": "inner"}`,
		"q\xfe/inner/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}, {"command": "false"}]}]}}`,
	})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	const own = `"q\xfe"/inner/hooks/hooks.json#hooks.Stop[0].hooks[0]`
	var ids, decls []string
	for _, h := range d.Hooks {
		ids = append(ids, h.ID)
		decls = append(decls, h.decl())
	}
	slices.Sort(ids)
	if want := []string{own, own + `#in:"q\xfe"`}; !slices.Equal(ids, want) {
		t.Errorf("ids %q, want %q; %v", ids, want, findingLines(d.Findings))
	}
	if want := []string{own, own}; !slices.Equal(decls, want) {
		t.Errorf("declarations %q, want %q", decls, want)
	}
	var noType []string
	for _, f := range d.Findings {
		if strings.Contains(f.Message, `hook handler has no "type"`) {
			noType = append(noType, f.Message)
		}
	}
	if len(noType) == 0 {
		t.Fatalf("no finding of the handler with no type; %v", findingLines(d.Findings))
	}
	for _, m := range noType {
		if !strings.HasPrefix(m, `Stop[0].hooks[1]: hook handler has no "type"`) {
			t.Errorf("the handler with no type: %q, want it named Stop[0].hooks[1]", m)
		}
	}
}
