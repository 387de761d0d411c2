package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// sum is the hex SHA-256 of s.
func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestServerFiles: the files of the tree a server's command runs are the
// program where it is a path in the tree and the script an interpreter
// is given, each hashed, sorted by path, [] where there are none: of a
// stdio server its expanded command and args, of a monitor or a settings
// command every command of its shell line (and of a line sh -c runs,
// after a cd where it leads); a path that holds a variable, begins with
// ~, leads out of the tree (by "..", or through a link), is not there,
// or is a directory, is not hashed.
func TestServerFiles(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "host.js")
	if err := os.WriteFile(outside, []byte("host"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := makeTree(t, map[string]string{
		"a/server.js":     "server",
		"a/lib/main.js":   "main",
		"a/bin/srv":       "srv",
		"a/watch.sh":      "watch",
		"a/fmt.js":        "fmt",
		"a/tool.py":       "tool",
		"a/dir/":          "",
		"tools/p.js":      "p",
		"packages/x/q.js": "q",
	})
	if err := os.Symlink(outside, filepath.Join(dir, "a/out.js")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("server.js", filepath.Join(dir, "a/in.js")); err != nil {
		t.Fatal(err)
	}
	s := &session{dir: dir}
	plugin := func(kind, command string, args ...string) *Server {
		typ := "stdio"
		if kind != ServerMCP {
			typ = ""
		}
		return &Server{Kind: kind, Type: typ, Command: command, Args: args, PluginRoot: "a", Plugin: "a"}
	}
	project := func(root, command string, args ...string) *Server {
		return &Server{Kind: ServerMCP, Type: "stdio", Command: command, Args: args, PluginRoot: root, InProject: true}
	}
	for _, c := range []struct {
		name string
		sv   *Server
		want []string // path=content
	}{
		{"node and its script", plugin(ServerMCP, "node", "${CLAUDE_PLUGIN_ROOT}/server.js", "--port", "1"), []string{"a/server.js=server"}},
		{"the program", plugin(ServerMCP, "${CLAUDE_PLUGIN_ROOT}/bin/srv"), []string{"a/bin/srv=srv"}},
		{"uv run", plugin(ServerMCP, "uv", "run", "${CLAUDE_PLUGIN_ROOT}/tool.py"), []string{"a/tool.py=tool"}},
		{"sh -c after a cd", plugin(ServerMCP, "sh", "-c", "cd ${CLAUDE_PLUGIN_ROOT} && node lib/main.js"), []string{"a/lib/main.js=main"}},
		{"a monitor's line", plugin(ServerMonitor, "bash ${CLAUDE_PLUGIN_ROOT}/watch.sh | node \"$CLAUDE_PLUGIN_ROOT\"/fmt.js; node ${CLAUDE_PLUGIN_ROOT}/server.js"),
			[]string{"a/fmt.js=fmt", "a/server.js=server", "a/watch.sh=watch"}},
		{"after a cd it cannot follow", plugin(ServerMonitor, "cd \"$X\" && node server.js && node ${CLAUDE_PLUGIN_ROOT}/fmt.js"), []string{"a/fmt.js=fmt"}},
		{"a link inside, by the name run", plugin(ServerMCP, "node", "${CLAUDE_PLUGIN_ROOT}/in.js"), []string{"a/in.js=server"}},
		{"a project's, from its directory", project(".", "node", "tools/p.js"), []string{"tools/p.js=p"}},
		{"a package's", project("packages/x", "node", "${CLAUDE_PROJECT_DIR}/q.js"), []string{"packages/x/q.js=q"}},
		{"a settings command", &Server{Kind: ServerSettings, Command: "node tools/p.js", PluginRoot: ".", InProject: true}, []string{"tools/p.js=p"}},
		{"a link leading out", plugin(ServerMCP, "node", "${CLAUDE_PLUGIN_ROOT}/out.js"), nil},
		{"an absolute path out", plugin(ServerMCP, "node", outside), nil},
		{"up and out", plugin(ServerMCP, "node", "../x.js"), nil},
		{"a variable", plugin(ServerMCP, "node", "${HOME}/server.js"), nil},
		{"the data directory", plugin(ServerMCP, "node", "${CLAUDE_PLUGIN_DATA}/server.js"), nil},
		{"not there", plugin(ServerMCP, "node", "${CLAUDE_PLUGIN_ROOT}/gone.js"), nil},
		{"a directory", plugin(ServerMCP, "python3", "${CLAUDE_PLUGIN_ROOT}/dir"), nil},
		{"a system program", plugin(ServerMCP, "/usr/bin/env", "node", "--version"), nil},
		{"a remote server", &Server{Kind: ServerMCP, Type: "http", URL: "https://x.test/", PluginRoot: "a"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			files, problems := s.serverFiles(c.sv, "~/.claude/plugins/data/a")
			if files == nil {
				t.Fatal("files nil: want [] where it runs none")
			}
			var got []string
			for _, f := range files {
				got = append(got, f.Path+"="+f.SHA256)
			}
			var want []string
			for _, w := range c.want {
				p, content, _ := strings.Cut(w, "=")
				want = append(want, p+"="+sum(content))
			}
			if d := cmp.Diff(want, got); d != "" || len(problems) > 0 {
				t.Errorf("files (-want +got):\n%s\nproblems: %q", d, problems)
			}
		})
	}
}

// TestServerFilesNotHashed: a file the server runs that vigiles does not
// hash (a FIFO, one larger than maxServerFileSize) is kept with SHA256
// "" and a problem that names it, and the files past maxServerFiles are
// left out with a problem that says so: never taken for unchanged.
func TestServerFilesNotHashed(t *testing.T) {
	dir := makeTree(t, map[string]string{"a/x": ""})
	if err := syscall.Mkfifo(filepath.Join(dir, "a/fifo.sh"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk used.
	if err := os.Truncate(filepath.Join(dir, "a/x"), maxServerFileSize+1); err != nil {
		t.Fatal(err)
	}
	var line []string
	for i := range maxServerFiles + 1 {
		name := fmt.Sprintf("a/s%02d.sh", i)
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		line = append(line, "sh "+name)
	}
	s := &session{dir: dir}
	files, problems := s.serverFiles(&Server{Kind: ServerMonitor, Command: "sh a/fifo.sh; a/x", PluginRoot: "a"}, "")
	want := []BaselineFile{{Path: "a/fifo.sh"}, {Path: "a/x"}}
	if d := cmp.Diff(want, files); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a/fifo.sh is a FIFO, not a file vigiles hashes", "a/x is larger than the 256 MiB vigiles hashes"}, problems); d != "" {
		t.Errorf("problems (-want +got):\n%s", d)
	}
	files, problems = s.serverFiles(&Server{Kind: ServerMonitor, Command: strings.Join(line, " && "), PluginRoot: "a"}, "")
	if len(files) != maxServerFiles || files[len(files)-1].Path != "a/s63.sh" || len(problems) != 1 || !strings.Contains(problems[0], "more than the 64 files") {
		t.Errorf("%d files, the last %s; problems %q", len(files), files[len(files)-1].Path, problems)
	}
}

// serverFilesTree is a repository whose plugin a starts an MCP server
// that runs a/server.js and a monitor that runs a/tail.sh and a/fmt.js,
// which is not there.
func serverFilesTree() map[string]string {
	return map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}]}`,
		"a/hooks/hooks.json":              serverStopHook,
		"a/.mcp.json":                     `{"db": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.js"]}}`,
		"a/server.js":                     "v1",
		"a/other.js":                      "other",
		"a/monitors/monitors.json":        `[{"name": "tail", "command": "sh ${CLAUDE_PLUGIN_ROOT}/tail.sh | node ${CLAUDE_PLUGIN_ROOT}/fmt.js", "description": "d"}]`,
		"a/tail.sh":                       "tail -F log",
	}
}

// serverFilesLines are serverFindingLines with baseline/not-recorded.
func serverFilesLines(rep *report.Report) []string {
	got := serverFindingLines(rep)
	for _, f := range rep.Findings {
		if f.Rule == RuleBaselineUnproven {
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	return got
}

// TestBaselineServerFiles: a baseline keeps the files of the tree each
// server runs, with their SHA-256; against it, a server that starts as
// accepted but runs a file whose content changed, one more (a script it
// names that is there now), one fewer (deleted, or a link that leads out
// of the tree now), is a baseline/server-changed error beside its
// discovery warning, naming the file and the first 12 hex digits of each
// hash, its evidence each side; a command that names another script is
// one as before; a file that cannot be hashed now is baseline/not-recorded
// besides. As it was, the audit passes.
func TestBaselineServerFiles(t *testing.T) {
	v1, v2, tail := sum("v1")[:12], sum("v2")[:12], sum("tail -F log")[:12]
	outside := filepath.Join(t.TempDir(), "host.js")
	if err := os.WriteFile(outside, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		edit     func(t *testing.T, dir string)
		want     []string
		evidence string
		drift    string
	}{
		{name: "unchanged", edit: func(*testing.T, string) {}, want: []string{
			"notice discovery/mcp-server a/.mcp.json:1:2 accepted in the baseline as it is: plugin a declares the MCP server db",
			"notice discovery/monitor a/monitors/monitors.json:1:2 accepted in the baseline as it is",
		}},
		{name: "edited", edit: func(t *testing.T, dir string) { rewrite(t, dir, "a/server.js", "v2") }, want: []string{
			"error baseline/server-changed a/.mcp.json:1:2 MCP server db of plugin a starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: a/server.js changed (sha256:" + v1 + ", now sha256:" + v2 + ")",
			"warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the MCP server db",
		}, evidence: "- the baseline, + now\n- a/server.js sha256:" + v1 + "\n+ a/server.js sha256:" + v2 + "\n",
			drift: "server-changed a#mcp:db a/server.js sha256:" + v1 + " → a/server.js sha256:" + v2},
		{name: "a script it names is there now", edit: func(t *testing.T, dir string) { rewrite(t, dir, "a/fmt.js", "fmt") }, want: []string{
			"error baseline/server-changed a/monitors/monitors.json:1:2 background monitor tail of plugin a starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: a/fmt.js is new to it (a/fmt.js sha256:" + sum("fmt")[:12] + ")",
		}, evidence: "- the baseline, + now\n+ a/fmt.js sha256:" + sum("fmt")[:12] + "\n"},
		{name: "deleted", edit: func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "a/tail.sh")) }, want: []string{
			"error baseline/server-changed a/monitors/monitors.json:1:2 background monitor tail of plugin a starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: it no longer runs a/tail.sh (a/tail.sh sha256:" + tail + ")",
		}, evidence: "- the baseline, + now\n- a/tail.sh sha256:" + tail + "\n"},
		{name: "a link that leads out", edit: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "a/server.js"))
			if err := os.Symlink(outside, filepath.Join(dir, "a/server.js")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"error baseline/server-changed a/.mcp.json:1:2 MCP server db of plugin a starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: it no longer runs a/server.js"}},
		{name: "another script named", edit: func(t *testing.T, dir string) {
			rewrite(t, dir, "a/.mcp.json", `{"db": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/other.js"]}}`)
		}, want: []string{"error baseline/server-changed a/.mcp.json:1:2 MCP server db of plugin a now starts otherwise than the baseline accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: node a/other.js"}},
		{name: "not hashed now", edit: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "a/tail.sh"))
			if err := syscall.Mkfifo(filepath.Join(dir, "a/tail.sh"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, want: []string{
			"error baseline/server-changed a/monitors/monitors.json:1:2 background monitor tail of plugin a starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: a/tail.sh changed (sha256:" + tail + ", now (not hashed))",
			"error baseline/not-recorded a/monitors/monitors.json:1:2 background monitor tail of plugin a runs files of the tree that vigiles could not hash, so a change to them since the baseline cannot be ruled out: a/tail.sh is a FIFO, not a file vigiles hashes",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := makeTree(t, serverFilesTree())
			serverAudit(t, dir, true)
			c.edit(t, dir)
			rep := serverAudit(t, dir, false)
			lacks(t, serverFilesLines(rep), c.want...)
			wantVerdict := report.VerdictFail
			if c.name == "unchanged" {
				wantVerdict = report.VerdictPass
			}
			if rep.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s: %v", rep.Verdict, wantVerdict, serverFilesLines(rep))
			}
			for _, f := range rep.Findings {
				if f.Rule == RuleDriftPrefix+DriftServerChanged && c.evidence != "" && f.Evidence != c.evidence {
					t.Errorf("evidence %q, want %q", f.Evidence, c.evidence)
				}
			}
			for _, d := range rep.Drift {
				if got := d.Kind + " " + d.Hook + " " + d.Was + " → " + d.Now; c.drift != "" && got != c.drift {
					t.Errorf("drift %s, want %s", got, c.drift)
				}
			}
		})
	}
}

// TestBaselineServerFilesUpdate: --update-baseline keeps each server's
// files ("files", [] for none) and, after a script changed, makes its
// server-changed a notice and keeps the new hash, so that the next audit
// passes.
func TestBaselineServerFilesUpdate(t *testing.T) {
	dir := makeTree(t, serverFilesTree())
	serverAudit(t, dir, true)
	if got := baselineServerFiles(t, dir); !cmp.Equal(got, map[string][]BaselineFile{
		"db":   {{Path: "a/server.js", SHA256: sum("v1")}},
		"tail": {{Path: "a/tail.sh", SHA256: sum("tail -F log")}},
	}) {
		t.Errorf("the baseline keeps %v", got)
	}
	rewrite(t, dir, "a/server.js", "v2")
	rep := serverAudit(t, dir, true)
	lacks(t, serverFilesLines(rep), "notice baseline/server-changed a/.mcp.json:1:2 MCP server db of plugin a starts as the baseline accepted, but runs files")
	if got := baselineServerFiles(t, dir)["db"]; !cmp.Equal(got, []BaselineFile{{Path: "a/server.js", SHA256: sum("v2")}}) {
		t.Errorf("the baseline keeps %v of db", got)
	}
	if rep := serverAudit(t, dir, false); rep.Verdict != report.VerdictPass || len(rep.Drift) != 0 {
		t.Errorf("verdict %s, drift %v: %v", rep.Verdict, rep.Drift, serverFilesLines(rep))
	}
}

// baselineServerFiles is what the baseline in dir keeps of each server's
// files, by its name.
func baselineServerFiles(t *testing.T, dir string) map[string][]BaselineFile {
	t.Helper()
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]BaselineFile{}
	for _, s := range b.Servers {
		out[s.Name] = s.Files
	}
	return out
}

// TestBaselineServerFilesBefore: a baseline written before vigiles kept
// the files servers run (no "files") loads, and compares what each
// starts alone: a script rewritten is accepted, and the accepted notice
// says that the baseline keeps no hashes of its files yet and which
// update keeps them; --update-baseline writes them.
func TestBaselineServerFilesBefore(t *testing.T) {
	dir := makeTree(t, serverFilesTree())
	serverAudit(t, dir, true)
	editBaseline(t, dir, serversBase, func(b map[string]any) {
		for _, sv := range b["servers"].([]any) {
			delete(sv.(map[string]any), "files")
		}
	})
	rewrite(t, dir, "a/server.js", "v2")
	rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: serversBase, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictPass {
		t.Errorf("verdict %s, want pass: %v", rep.Verdict, serverFilesLines(rep))
	}
	lacks(t, serverFilesLines(rep),
		"notice discovery/mcp-server a/.mcp.json:1:2 accepted in the baseline as it is: plugin a declares the MCP server db, which Claude Code starts with every session and runs unsandboxed beside it: node a/server.js; vigiles does not run MCP servers, so nothing of what it does is recorded: review it by hand; the baseline keeps no hashes of the files of the tree it runs yet (written before vigiles kept them), so a script of it rewritten under the same command line is not compared: `vigiles audit --update-baseline` keeps them (review its diff)")
	serverAudit(t, dir, true)
	if got := baselineServerFiles(t, dir)["db"]; !cmp.Equal(got, []BaselineFile{{Path: "a/server.js", SHA256: sum("v2")}}) {
		t.Errorf("the update keeps %v of db", got)
	}
}
