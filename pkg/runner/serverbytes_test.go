package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// bytesPlugin is a plugin under dir (p\xff, p\xfe) with one Stop hook,
// an MCP server db that runs the plugin's srv.sh (args), and a skill
// with one shell line, all alike but for dir.
func bytesPlugin(files map[string]string, dir, args string) {
	files[dir+"/.claude-plugin/plugin.json"] = `{"name": "n` + strings.TrimPrefix(dir, "p") + `"}`
	files[dir+"/hooks/hooks.json"] = serverStopHook
	files[dir+"/.mcp.json"] = `{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/srv.sh", "args": [` + args + `]}}`
	files[dir+"/srv.sh"] = "#!/bin/sh\nexit 0\n"
	files[dir+"/skills/s/SKILL.md"] = "---\nname: s\n---\nRun: !`echo hi`\n"
}

// TestAuditServersOfPathsThatAreNotUTF8: through real confined audits,
// two plugins under the directories p\xff and p\xfe, which JSON would
// both show as p\uFFFD, each with an MCP server of the same name that
// runs a file of the plugin, and a skill's shell line alike: the
// baseline --update-baseline writes keeps each server, each file it
// runs and each shell line apart, as a hook's id names its file; an
// audit against it has no drift and accepts each; a change to one
// plugin's server, or to the file it runs, is drift of that server
// alone, and a change to one shell line leaves the other accepted.
func TestAuditServersOfPathsThatAreNotUTF8(t *testing.T) {
	dir, audit := twoPluginsNotUTF8(t)
	audit(true)
	data, err := os.ReadFile(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatalf("the baseline just written does not load: %v\n%s", err, data)
	}
	var contexts, ran, shells []string
	idents := map[serverIdent]bool{}
	for _, s := range b.Servers {
		contexts = append(contexts, s.Context+" "+s.File)
		idents[s.ident()] = true
		for _, f := range s.Files {
			ran = append(ran, f.Path)
		}
	}
	for _, s := range b.SkillShells {
		shells = append(shells, s.Context+" "+s.File)
	}
	slices.Sort(contexts)
	slices.Sort(ran)
	slices.Sort(shells)
	if want := []string{`plugin:"p\xfe" "p\xfe"/.mcp.json`, `plugin:"p\xff" "p\xff"/.mcp.json`}; !slices.Equal(contexts, want) || len(idents) != 2 {
		t.Errorf("the baseline's servers %q (%d keys), want %q, two keys:\n%s", contexts, len(idents), want, data)
	}
	if want := []string{`"p\xfe"/srv.sh`, `"p\xff"/srv.sh`}; !slices.Equal(ran, want) {
		t.Errorf("the files the servers run %q, want %q", ran, want)
	}
	if want := []string{`plugin:"p\xfe" "p\xfe"/skills/s/SKILL.md`, `plugin:"p\xff" "p\xff"/skills/s/SKILL.md`}; !slices.Equal(shells, want) {
		t.Errorf("the baseline's shell lines %q, want %q", shells, want)
	}

	// (This test binary has no egress layer: every audit has a
	// baseline/not-recorded error for its network.)
	accepted := func(rep *report.Report) (servers, shells int) {
		for _, f := range rep.Findings {
			if f.Severity == report.SeverityNotice && strings.HasPrefix(f.Message, "accepted in the baseline as it is: ") {
				switch f.Rule {
				case RuleMCPServer:
					servers++
				case RuleSkillShell:
					shells++
				}
			}
		}
		return servers, shells
	}
	rep := audit(false)
	if len(rep.Drift) != 0 {
		t.Errorf("against the baseline it wrote: drift %q; %v", driftOf(rep), serverFindingLines(rep))
	}
	if sv, sh := accepted(rep); sv != 2 || sh != 2 {
		t.Errorf("accepted: %d server(s), %d shell line(s), want 2 of each; %v %v", sv, sh, serverFindingLines(rep), shellLines(rep))
	}

	drifted := func(rep *report.Report) []string {
		var out []string
		for _, d := range rep.Drift {
			out = append(out, d.Kind+" "+d.Hook)
		}
		return out
	}
	const fe = `"p\xfe"#mcp:db`
	// What p\xfe's server runs, changed: its drift alone.
	writeFile(t, dir, "p\xfe/srv.sh", "#!/bin/sh\nexit 1\n")
	rep = audit(false)
	if got, want := drifted(rep), []string{DriftServerChanged + " " + fe}; !slices.Equal(got, want) {
		t.Errorf("p\\xfe's srv.sh changed: drift %q, want %q; %v", got, want, serverFindingLines(rep))
	}
	writeFile(t, dir, "p\xfe/srv.sh", "#!/bin/sh\nexit 0\n")
	// How it starts, changed: its drift alone.
	writeFile(t, dir, "p\xfe/.mcp.json", `{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/srv.sh", "args": ["-v"]}}`)
	rep = audit(false)
	if got, want := drifted(rep), []string{DriftServerChanged + " " + fe}; !slices.Equal(got, want) {
		t.Errorf("p\\xfe's server changed: drift %q, want %q; %v", got, want, serverFindingLines(rep))
	}
	if sv, _ := accepted(rep); sv != 1 {
		t.Errorf("p\\xfe's server changed: %d server(s) accepted, want p\\xff's; %v", sv, serverFindingLines(rep))
	}
	writeFile(t, dir, "p\xfe/.mcp.json", `{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/srv.sh", "args": []}}`)
	// One shell line changed: the other is still accepted.
	writeFile(t, dir, "p\xfe/skills/s/SKILL.md", "---\nname: s\n---\nRun: !`echo ho`\n")
	rep = audit(false)
	if _, sh := accepted(rep); sh != 1 {
		t.Errorf("p\\xfe's shell line changed: %d accepted, want p\\xff's; %v", sh, shellLines(rep))
	}
	// p\xfe's server gone: told at its file as the repository names it.
	if err := os.Remove(filepath.Join(dir, "p\xfe/.mcp.json")); err != nil {
		t.Fatal(err)
	}
	rep = audit(false)
	var gone []string
	for _, d := range rep.Drift {
		gone = append(gone, d.Kind+" "+d.Hook+" at "+d.Location.File)
	}
	if want := []string{DriftServerRemoved + " " + fe + " at p\xfe/.mcp.json"}; !slices.Equal(gone, want) {
		t.Errorf("p\\xfe's server gone: drift %q, want %q", gone, want)
	}
}

// TestLoadedServerNames: a baseline's servers and shell lines are read as
// vigiles keeps them now: a name kept unquoted with " first that reads
// as no Go quote ("$X"/s.sh, as settings commands begin) is itself, as an
// earlier vigiles kept it (the server it accepted is still accepted); one
// with U+FFFD, as an earlier vigiles folded a name that
// is not UTF-8, stays as it is, which matches none now, and the
// baseline/outdated notice counts it.
func TestLoadedServerNames(t *testing.T) {
	b := loadDoc(t, `{"schema": "vigiles.baseline/v2", "runs": {}, "projectServers": [],
  "servers": [
    {"plugin": "a", "context": "plugin:a", "kind": "settings", "name": "statusLine", "starts": "\"$X\"/s.sh", "file": "a/settings.json", "files": [{"path": "a/\"q.sh", "sha256": ""}]},
    {"plugin": "p", "context": "plugin:p`+"\uFFFD"+`", "kind": "mcp", "name": "db", "type": "stdio", "starts": "x", "file": "p`+"\uFFFD"+`/.mcp.json", "files": []}],
  "skillShells": [{"plugin": "a", "context": "plugin:a", "file": "a/s/SKILL.md", "form": "inline", "command": "\"$X\" a"}]}`)
	sv := b.Servers[0]
	if sv.Starts != `"$X"/s.sh` || sv.Files[0].Path != `a/"q.sh` {
		t.Errorf("a name with \" first: starts %q, files %v", sv.Starts, sv.Files)
	}
	st := startedServer{sv: &Server{Kind: ServerSettings, Name: "statusLine", PluginRoot: "a"}, starts: `"$X"/s.sh`}
	if st.form() != sv.form() || st.sv.ident() != sv.ident() {
		t.Errorf("the server kept is not the one now: %+v %+v, %+v %+v", st.form(), st.sv.ident(), sv.form(), sv.ident())
	}
	if c := b.SkillShells[0].Command; c != `"$X" a` {
		t.Errorf("a shell line with \" first: %q", c)
	}
	if b.foldedServers != 1 || b.folded != 0 {
		t.Errorf("folded: %d server name(s), %d written, want 1 and 0", b.foldedServers, b.folded)
	}
	f := b.foldedNames(report.Location{File: DefaultBaseline}, "vigiles audit --update-baseline")
	if f == nil || f.Severity != report.SeverityNotice || !strings.Contains(f.Message, "keeps 1 server(s), shell line(s), run context(s) or file(s) run with U+FFFD") {
		t.Errorf("the notice: %+v", f)
	}
	if id := (&Server{Kind: ServerMCP, Name: "db", PluginRoot: "p\xff"}).ident(); id == b.Servers[1].ident() {
		t.Errorf("p\\xff's server is taken for the folded one: %+v", id)
	}
}

// TestPartialAuditOfPathsThatAreNotUTF8: through real confined audits,
// an audit of the PATH p\xff tells a hook and a server of the plugin
// there that the baseline keeps and the tree no longer declares, though
// the baseline names its file and root as the hook's id does
// ("p\xff"/hooks/hooks.json, plugin:"p\xff"): the removed hook is placed
// at its file as the repository names it, with its "file" kept or, as a
// baseline written before it was kept, left out; and p\xfe's, outside
// the PATH, are not told.
func TestPartialAuditOfPathsThatAreNotUTF8(t *testing.T) {
	dir, audit := twoPluginsNotUTF8(t)
	audit(true)
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	for id, r := range b.Runs {
		if want, _, _ := strings.Cut(id, "#"); r.File != want {
			t.Errorf("run %q keeps the file %q, want %q", id, r.File, want)
		}
	}
	writeFile(t, dir, "p\xff/hooks/hooks.json", `{"hooks": {}}`)
	writeFile(t, dir, "p\xfe/hooks/hooks.json", `{"hooks": {}}`)
	if err := os.Remove(filepath.Join(dir, "p\xff/.mcp.json")); err != nil {
		t.Fatal(err)
	}
	const id = `"p\xff"/hooks/hooks.json#hooks.Stop[0].hooks[0]`
	check := func(how string) {
		t.Helper()
		rep := audit(false, "p\xff")
		var got []string
		for _, d := range rep.Drift {
			got = append(got, d.Kind+" "+d.Hook+" at "+d.Location.File)
		}
		slices.Sort(got)
		want := []string{
			DriftHookRemoved + " " + id + " at p\xff/hooks/hooks.json",
			DriftServerRemoved + ` "p\xff"#mcp:db at p` + "\xff/.mcp.json",
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: an audit of p\\xff: drift %q, want %q; %v", how, got, want, findingLines(rep.Findings))
		}
	}
	check(`the baseline keeps "file"`)

	// A baseline written before runs kept "file": the file is read from
	// the id.
	path := filepath.Join(dir, serversBase)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc["runs"].(map[string]any) {
		delete(r.(map[string]any), "file")
	}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	check(`the baseline keeps no "file"`)
}

// twoPluginsNotUTF8 makes a tree of the plugins p\xff and p\xfe
// (bytesPlugin) and returns it with an audit of it, confined, against
// the baseline serversBase (update: --update-baseline; paths: PATHs).
func twoPluginsNotUTF8(t *testing.T) (string, func(update bool, paths ...string) *report.Report) {
	t.Helper()
	sandboxtest.RequireConfinement(t)
	files := map[string]string{}
	bytesPlugin(files, "p\xff", "")
	bytesPlugin(files, "p\xfe", "")
	dir := makeTree(t, files)
	return dir, func(update bool, paths ...string) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Paths: paths, Baseline: serversBase, UpdateBaseline: update, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
}
