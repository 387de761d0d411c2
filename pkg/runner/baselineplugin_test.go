package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestBaselinePluginNamesThatAreNotUTF8: through real confined audits,
// two plugins whose manifests name none, so that each is named after its
// directory, p\xff and p\xfe (which JSON would both show as p\uFFFD),
// each with a Stop hook, an MCP server and a skill's shell line: the
// baseline --update-baseline writes keeps each one's "plugin" as a
// written name is kept, quoted, so the two stay two in its runs,
// servers and shell lines; an audit against it has no drift; and a hook
// gone from one is told with its plugin named once quoted, as the tree
// names it.
func TestBaselinePluginNamesThatAreNotUTF8(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	files := map[string]string{}
	for _, dir := range []string{"p\xff", "p\xfe"} {
		bytesPlugin(files, dir, "")
		files[dir+"/.claude-plugin/plugin.json"] = `{}`
	}
	dir := makeTree(t, files)
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: serversBase, UpdateBaseline: update, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := audit(true)
	var ran []string
	for _, r := range rep.Runs {
		ran = append(ran, r.Plugin)
	}
	slices.Sort(ran)
	if want := []string{"p\xfe", "p\xff"}; !slices.Equal(ran, want) {
		t.Fatalf("the runs' plugins %q, want %q; %v", ran, want, findingLines(rep.Findings))
	}
	data, err := os.ReadFile(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatalf("the baseline just written does not load: %v\n%s", err, data)
	}
	want := []string{`"p\xfe"`, `"p\xff"`}
	plugins := func(what string, got []string) {
		t.Helper()
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("the baseline's %s keep the plugins %q, want %q:\n%s", what, got, want, data)
		}
	}
	var runs, servers, shells []string
	for _, r := range b.Runs {
		runs = append(runs, r.Plugin)
	}
	for _, s := range b.Servers {
		servers = append(servers, s.Plugin)
	}
	for _, s := range b.SkillShells {
		shells = append(shells, s.Plugin)
	}
	plugins("runs", runs)
	plugins("servers", servers)
	plugins("shell lines", shells)
	if strings.Contains(string(data), "\uFFFD") || strings.Contains(string(data), `\ufffd`) {
		t.Errorf("the baseline holds U+FFFD:\n%s", data)
	}

	// (This test binary has no egress layer: every audit has a
	// baseline/not-recorded error for its network.)
	if rep := audit(false); len(rep.Drift) != 0 {
		t.Errorf("against the baseline it wrote: drift %q; %v", driftOf(rep), findingLines(rep.Findings))
	}

	// p\xff's hook and server gone: each told naming the plugin as the
	// tree does, quoted once.
	writeFile(t, dir, "p\xff/hooks/hooks.json", `{"hooks": {}}`)
	if err := os.Remove(filepath.Join(dir, "p\xff/.mcp.json")); err != nil {
		t.Fatal(err)
	}
	rep = audit(false)
	var told []string
	for _, f := range rep.Findings {
		if f.Rule == RuleDriftPrefix+DriftHookRemoved || f.Rule == RuleDriftPrefix+DriftServerRemoved {
			told = append(told, f.Message)
		}
	}
	if len(told) != 2 {
		t.Fatalf("p\\xff's hook and server gone: told %q, want two", told)
	}
	for _, m := range told {
		if !strings.Contains(m, strconv.Quote("p\xff")) || strings.Contains(m, strconv.Quote(strconv.Quote("p\xff"))) {
			t.Errorf("p\\xff's hook or server gone: %q, want the plugin named %s", m, strconv.Quote("p\xff"))
		}
	}
}
