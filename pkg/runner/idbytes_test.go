package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
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
		{`a/"q/h.json`, `a/"q/h.json`},
		{`a/"q"/h.json`, `a/"\"q\""/h.json`},
		{`"q"/h.json`, `"\"q\""/h.json`},
		{"a/b/h\xff.json", `a/b/"h\xff.json"`},
		{".", "."},
	} {
		if got := idFile(tc.path); got != tc.want {
			t.Errorf("idFile(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestAuditIDsOfPathsThatAreNotUTF8: through real confined audits, two
// plugins under the directories p\xff and p\xfe, which JSON would both
// show as p\uFFFD, each with one Stop hook, get two run IDs that are
// valid UTF-8 and kept apart: in the report, in the baseline
// --update-baseline writes (which loads again, no key given twice), in
// an audit against that baseline (no drift; a change to one hook's
// command drifts that hook's ID alone), in the merge of two shards read
// back from JSON, and in checks that select a hook by its ID or by its
// file as the ID names it.
func TestAuditIDsOfPathsThatAreNotUTF8(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	hooks := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	dir := makeTree(t, map[string]string{
		"p\xff/.claude-plugin/plugin.json": `{"name": "ff"}`,
		"p\xff/hooks/hooks.json":           hooks("echo x > made"),
		"p\xfe/.claude-plugin/plugin.json": `{"name": "fe"}`,
		"p\xfe/hooks/hooks.json":           hooks("true"),
	})
	const (
		idFF = `"p\xff"/hooks/hooks.json#hooks.Stop[0].hooks[0]`
		idFE = `"p\xfe"/hooks/hooks.json#hooks.Stop[0].hooks[0]`
		base = ".vigiles/baseline.json"
	)
	ctx := context.Background()
	audit := func(o Options) *report.Report {
		t.Helper()
		o.Dir, o.Baseline, o.Sandbox = dir, base, "strict"
		rep, err := Audit(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	// JSON's own reading of a report, as vigiles merge and the Action
	// read one.
	viaJSON := func(rep *report.Report) *report.Report {
		t.Helper()
		data, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		var back report.Report
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		return &back
	}
	idsOf := func(rep *report.Report) []string {
		var ids []string
		for _, r := range rep.Runs {
			ids = append(ids, r.ID)
		}
		slices.Sort(ids)
		return ids
	}
	want := []string{idFE, idFF}

	rep := viaJSON(audit(Options{UpdateBaseline: true}))
	if got := idsOf(rep); !slices.Equal(got, want) {
		t.Fatalf("run ids %q, want %q; %v", got, want, findingLines(rep.Findings))
	}
	for _, r := range rep.Runs {
		if r.Tier != "confined" || r.ExitCode != 0 {
			t.Errorf("run %q: tier %q, exit %v, want confined and 0", r.ID, r.Tier, r.ExitCode)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range want {
		key, _ := json.Marshal(id)
		if !strings.Contains(string(data), string(key)+": {") {
			t.Errorf("the baseline keeps no run %s:\n%s", key, data)
		}
	}
	b, err := LoadBaseline(filepath.Join(dir, base))
	if err != nil {
		t.Fatalf("the baseline just written does not load: %v\n%s", err, data)
	}
	if got := slices.Sorted(func(yield func(string) bool) {
		for id := range b.Runs {
			if !yield(id) {
				return
			}
		}
	}); !slices.Equal(got, want) {
		t.Errorf("the baseline's runs %q, want %q", got, want)
	}

	// (This test binary has no egress layer: every audit has a
	// baseline/not-recorded error for its network, and fails on it.)
	rep = viaJSON(audit(Options{}))
	if len(rep.Drift) != 0 {
		t.Errorf("against the baseline it wrote: drift %q; %v", driftOf(rep), findingLines(rep.Findings))
	}
	for _, r := range rep.Runs {
		if r.Tier != "confined" {
			t.Errorf("run %q: tier %q, want confined", r.ID, r.Tier)
		}
	}

	// Two shards, each read back from JSON, merge into the whole.
	var parts []NamedReport
	for i := 1; i <= 2; i++ {
		p := viaJSON(audit(Options{Shard: fmt.Sprintf("%d/2", i)}))
		parts = append(parts, NamedReport{Name: fmt.Sprintf("part-%d.json", i), Report: p})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatalf("merging the shards: %v", err)
	}
	if got := idsOf(merged); !slices.Equal(got, want) {
		t.Errorf("merged run ids %q, want %q", got, want)
	}
	if len(merged.Drift) != 0 {
		t.Errorf("merged: drift %q", driftOf(merged))
	}

	// A change to one hook's command is drift of its ID alone.
	writeFile(t, dir, "p\xfe/hooks/hooks.json", hooks("exit 0"))
	rep = viaJSON(audit(Options{}))
	var drifted []string
	for _, d := range rep.Drift {
		drifted = append(drifted, d.Kind+" "+d.Hook)
	}
	if w := []string{DriftCommand + " " + idFE}; !slices.Equal(drifted, w) {
		t.Errorf("one hook's command changed: drift %q, want %q; %v", drifted, w, findingLines(rep.Findings))
	}
	writeFile(t, dir, "p\xfe/hooks/hooks.json", hooks("true"))

	// Checks select a hook by its ID, and by its file, as the ID names
	// them: p\xff's writes, p\xfe's does not.
	writeFile(t, dir, ".vigiles.yml", `checks:
  - name: fe by id
    hook: '`+idFE+`'
    event: Stop
    expect: {no-write: true}
  - name: ff by id
    hook: '`+idFF+`'
    event: Stop
    expect: {no-write: true}
  - name: fe by file
    hook: '"p\xfe"/hooks/hooks.json'
    event: Stop
    expect: {no-write: true}
`)
	rep, err = Test(ctx, Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	rep = viaJSON(rep)
	got := map[string]bool{}
	for _, r := range rep.Runs {
		got[r.ID] = r.Tier == "confined"
	}
	for _, id := range []string{"check:fe by id>" + idFE, "check:ff by id>" + idFF, "check:fe by file>" + idFE} {
		if !got[id] {
			t.Errorf("no confined run %q among %q; %v", id, idsOf(rep), findingLines(rep.Findings))
		}
	}
	if len(rep.Runs) != 3 {
		t.Errorf("runs %q, want three", idsOf(rep))
	}
	var fails []string
	for _, f := range rep.Findings {
		if f.Rule == "expect/no-write" {
			fails = append(fails, f.Hook)
		}
	}
	if w := []string{"check:ff by id>" + idFF}; !slices.Equal(fails, w) {
		t.Errorf("expect/no-write of %q, want %q", fails, w)
	}
	if msgs := messagesOf(rep.Findings, "check/no-hook"); len(msgs) != 0 {
		t.Errorf("check/no-hook: %q", msgs)
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
