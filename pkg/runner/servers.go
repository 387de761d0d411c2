package runner

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleMCPServer and RuleLSPServer name a plugin's MCP and LSP servers,
// which Claude Code starts and vigiles does not run (servers).
const (
	RuleMCPServer = "discovery/mcp-server"
	RuleLSPServer = "discovery/lsp-server"
)

// Where a plugin declares its servers by default, and the manifest's
// fields that declare more (plugins-reference.md, "MCP servers", "LSP
// servers").
const (
	claudeMCPJSON = ".mcp.json"
	claudeLSPJSON = ".lsp.json"
)

// Server kinds (Server.Kind): a plugin's background monitor is one too,
// named the same way (monitors.go).
const (
	ServerMCP     = "mcp"
	ServerLSP     = "lsp"
	ServerMonitor = "monitor"
)

// maxServerLine bounds the command line or URL a server finding quotes;
// maxServerList the list of names (variables, headers, extensions) it
// gives after it. The names before it are cut as a monitor's are
// (maxMonitorName), so that none pushes the command out of what a surface
// shows of the message.
const (
	maxServerLine = 300
	maxServerList = 120
)

// Server is an MCP or LSP server a plugin declares (Discovery.Servers):
// Claude Code starts it (or connects to it) with the session, outside any
// sandbox, and vigiles names it in a finding once the session knows the
// plugin's settings and install ID (serverFindings).
type Server struct {
	// Kind is ServerMCP, ServerLSP or ServerMonitor.
	Kind string
	// Name is the server's key in its declaration.
	Name string
	// Plugin is the plugin's name, PluginRoot its directory (relative to
	// the work tree), AlsoNamed its other names (as Hook.AlsoNamed).
	Plugin     string
	PluginRoot string
	AlsoNamed  []string
	// Location is the server's name in the file that declares it.
	Location report.Location
	// Type is "stdio" (a command Claude Code starts), "http", "sse" or
	// "ws" (a remote server it connects to), or "bundle" (an MCP bundle
	// whose servers vigiles does not read: Bundle).
	Type string
	// Command and Args are the stdio command line as written; Env the
	// names of the variables it is given, sorted.
	Command string
	Args    []string
	Env     []string
	// URL, Headers (the names of the headers sent, in order) and
	// HeadersHelper (a command Claude Code runs for more) of a remote
	// server, as written.
	URL           string
	Headers       []string
	HeaderValues  []string
	HeadersHelper string
	// Bundle is the path or URL of an MCP bundle, as written.
	Bundle string
	// Extensions are the file extensions an LSP server is started for.
	Extensions []string
	// When is a monitor's "when" ("always" where it has none).
	When string
	// options are the plugin's userConfig values (pluginOptions).
	options map[string]string
}

// serverKind is what differs between MCP and LSP server declarations.
type serverKind struct {
	kind, file, field, what string
}

var (
	mcpKind = serverKind{kind: ServerMCP, file: claudeMCPJSON, field: "mcpServers", what: "MCP"}
	lspKind = serverKind{kind: ServerLSP, file: claudeLSPJSON, field: "lspServers", what: "LSP"}
)

// servers reads the MCP and LSP servers of the plugin at ctx: those of its
// default file (.mcp.json, .lsp.json) and then those its manifest's field
// (mcpServers, lspServers) declares, a server of a name declared before
// replacing it, as Claude Code merges them (the manifest's win).
func (c *claudeDisc) servers(ctx hookCtx, manifest *jnode, manifestRel string) {
	for _, k := range []serverKind{mcpKind, lspKind} {
		var got []*Server
		if p := filepath.Join(ctx.pluginRoot, k.file); c.exists(p) {
			got = c.serversFile(ctx, k, p, got)
		}
		if field := manifest.get(k.field); field != nil {
			got = c.serversIn(ctx, k, field, manifestRel, got)
		}
		c.addServers(ctx, got, true)
	}
}

// entryServers reads the servers a marketplace entry declares (an entry
// may hold any field of the plugin manifest): installed under the entry's
// name, they are named as its own, whatever the plugin declares.
func (c *claudeDisc) entryServers(ctx hookCtx, entry *jnode, entryFile string) {
	for _, k := range []serverKind{mcpKind, lspKind} {
		if field := entry.get(k.field); field != nil {
			c.addServers(ctx, c.serversIn(ctx, k, field, entryFile, nil), false)
		}
	}
}

// addServers adds what one declaration of a plugin's servers gave.
func (c *claudeDisc) addServers(ctx hookCtx, got []*Server, own bool) {
	rel, err := relTo(c.dir, ctx.pluginRoot)
	if err != nil {
		return
	}
	for _, s := range got {
		s.Plugin, s.PluginRoot, s.options = ctx.plugin, rel, ctx.options
		if own {
			if c.ownServers == nil {
				c.ownServers = map[string][]int{}
			}
			c.ownServers[rel] = append(c.ownServers[rel], len(c.out.Servers))
		} else if ctx.entryName != "" && ctx.entryName != s.Plugin {
			s.AlsoNamed = []string{ctx.entryName}
		}
		c.out.Servers = append(c.out.Servers, s)
	}
}

// serversIn reads a manifest's (or an entry's) servers field in file: a
// path to a file of servers, an object of servers, or an array of either,
// each replacing what came before by name. An MCP field's path may name
// an MCP bundle (.mcpb), which vigiles does not open.
func (c *claudeDisc) serversIn(ctx hookCtx, k serverKind, field *jnode, file string, got []*Server) []*Server {
	switch field.Kind {
	case jsonString:
		return c.serversPath(ctx, k, field, file, got)
	case jsonObject:
		return c.serverEntries(ctx, k, field, file, false, got)
	case jsonArray:
		for _, e := range field.Elems {
			switch e.Kind {
			case jsonString:
				got = c.serversPath(ctx, k, e, file, got)
			case jsonObject:
				got = c.serverEntries(ctx, k, e, file, false, got)
			default:
				c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "%s: want a path to a JSON file of servers, or an object of servers, found %s", k.field, e.Kind)
			}
		}
		return got
	}
	c.find(RuleWrongType, report.SeverityError, c.loc(file, field.Pos), "%s: want a path to a JSON file of servers, an object of servers, or an array of them, found %s", k.field, field.Kind)
	return got
}

// isBundle says whether an MCP servers path names an MCP bundle, which
// Claude Code downloads or unpacks and starts.
func isBundle(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".mcpb") || strings.HasSuffix(l, ".dxt") || strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// serversPath reads the servers of the file a path field names (relative
// to the plugin root).
func (c *claudeDisc) serversPath(ctx hookCtx, k serverKind, field *jnode, file string, got []*Server) []*Server {
	if k.kind == ServerMCP && isBundle(field.Str) {
		return mergeServer(got, &Server{Kind: k.kind, Name: field.Str, Type: "bundle", Bundle: field.Str, Location: c.loc(file, field.Pos)})
	}
	p := filepath.Clean(filepath.Join(ctx.pluginRoot, field.Str))
	if _, fi, err := beneath(c.dir, c.dirReal, p); errors.Is(err, ErrOutsideTree) {
		c.find(RuleOutsideTree, report.SeverityError, c.loc(file, field.Pos), "%s file %s is outside the repository; vigiles does not read it", k.field, shownCut(field.Str, maxMonitorName))
		return got
	} else if err != nil {
		c.find(RuleMissingFile, report.SeverityError, c.loc(file, field.Pos), "%s file %s not found (resolved against the plugin root)", k.field, shownCut(field.Str, maxMonitorName))
		return got
	} else if fi.IsDir() {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, field.Pos), "%s: %s names a directory; want a path to a JSON file of servers", k.field, shownCut(field.Str, maxMonitorName))
		return got
	}
	return c.serversFile(ctx, k, p, got)
}

// serversFile reads a JSON file of servers: for MCP, an object of servers
// or one whose "mcpServers" holds them (Claude Code takes that member
// when it is set); for LSP, an object of servers, which Claude Code
// loads whole or not at all.
func (c *claudeDisc) serversFile(ctx hookCtx, k serverKind, abs string, got []*Server) []*Server {
	rel, n := c.readJSON(abs)
	if n == nil {
		return got
	}
	if n.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "%s: want a JSON object of %s servers, found %s", rel, k.what, n.Kind)
		return got
	}
	if k.kind == ServerMCP {
		if m := n.get("mcpServers"); m != nil && truthy(m) {
			c.repeatedKeys(rel, n, "", "mcpServers")
			if m.Kind != jsonObject {
				c.find(RuleWrongType, report.SeverityError, c.loc(rel, m.Pos), "mcpServers: want an object of MCP servers, found %s", m.Kind)
				return got
			}
			n = m
		}
	}
	return c.serverEntries(ctx, k, n, rel, k.kind == ServerLSP, got)
}

// truthy says whether JavaScript takes the value v as true.
func truthy(v *jnode) bool {
	switch v.Kind {
	case jsonNull:
		return false
	case jsonBool:
		return v.Bool
	case jsonNumber:
		return v.Num != 0
	case jsonString:
		return v.Str != ""
	}
	return true
}

// serverEntries reads an object of servers in file, name by name (the
// last of a name given twice, as JSON.parse keeps it). A malformed server
// is an error, and Claude Code does not start it; with whole (a file of
// LSP servers), it starts none of the file's.
func (c *claudeDisc) serverEntries(ctx hookCtx, k serverKind, n *jnode, file string, whole bool, got []*Server) []*Server {
	c.repeatedKeys(file, n, k.field)
	var read []*Server
	bad := false
	for i, m := range n.Members {
		if givenAgain(n, i) {
			continue // the last of a key given twice is read
		}
		s, problem := readServer(k, m)
		if problem != "" {
			bad = true
			what := problem + ": Claude Code does not start it"
			if whole {
				what = problem + ": Claude Code starts none of the servers of this file"
			}
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.KeyPos), "%s server %s: %s", k.what, shownCut(m.Key, maxMonitorName), what)
			continue
		}
		s.Location = c.loc(file, m.KeyPos)
		read = append(read, s)
	}
	if whole && bad {
		return got
	}
	for _, s := range read {
		got = mergeServer(got, s)
	}
	return got
}

// givenAgain says whether a member after the i-th of the object n has its
// key (as JSON.parse tells keys apart), which then replaces it.
func givenAgain(n *jnode, i int) bool {
	return slices.ContainsFunc(n.Members[i+1:], func(m jmember) bool { return m.ident() == n.Members[i].ident() })
}

// mergeServer adds s to got, in place of a server of its name declared
// before.
func mergeServer(got []*Server, s *Server) []*Server {
	got = slices.DeleteFunc(got, func(o *Server) bool { return o.Name == s.Name })
	return append(got, s)
}

// readServer reads one server's declaration, or says what is wrong with
// it, as Claude Code's schema would refuse it.
func readServer(k serverKind, m jmember) (*Server, string) {
	v := m.Value
	if v.Kind != jsonObject {
		return nil, fmt.Sprintf("want an object, found %s", v.Kind)
	}
	s := &Server{Kind: k.kind, Name: m.Key, Type: "stdio"}
	strs := func(key string) ([]string, string) {
		a := v.get(key)
		if a == nil {
			return nil, ""
		}
		if a.Kind != jsonArray {
			return nil, fmt.Sprintf("%q: want an array of strings, found %s", key, a.Kind)
		}
		var out []string
		for _, e := range a.Elems {
			if e.Kind != jsonString {
				return nil, fmt.Sprintf("%q: want an array of strings, found %s in it", key, e.Kind)
			}
			out = append(out, e.Str)
		}
		return out, ""
	}
	object := func(key string) ([]string, []string, string) {
		o := v.get(key)
		if o == nil {
			return nil, nil, ""
		}
		if o.Kind != jsonObject {
			return nil, nil, fmt.Sprintf("%q: want an object of strings, found %s", key, o.Kind)
		}
		var keys, vals []string
		for i, e := range o.Members {
			if givenAgain(o, i) {
				continue
			}
			if e.Value.Kind != jsonString {
				return nil, nil, fmt.Sprintf("%q: want an object of strings, found %s in it", key, e.Value.Kind)
			}
			keys, vals = append(keys, e.Key), append(vals, e.Value.Str)
		}
		return keys, vals, ""
	}
	if t := v.get("type"); k.kind == ServerMCP && t != nil {
		if t.Kind != jsonString {
			return nil, fmt.Sprintf("\"type\": want \"stdio\", \"http\", \"sse\" or \"ws\", found %s", t.Kind)
		}
		switch t.Str {
		case "stdio":
		case "http", "sse", "ws":
			s.Type = t.Str
		default:
			return nil, fmt.Sprintf("\"type\" %s: want \"stdio\", \"http\", \"sse\" or \"ws\"", shownCut(t.Str, maxMonitorName))
		}
	}
	var problem string
	if s.Type != "stdio" {
		u := v.get("url")
		if u == nil || u.Kind != jsonString {
			return nil, fmt.Sprintf("a %s server needs a \"url\" string", s.Type)
		}
		s.URL = u.Str
		if s.Headers, s.HeaderValues, problem = object("headers"); problem != "" {
			return nil, problem
		}
		if h := v.get("headersHelper"); h != nil {
			if h.Kind != jsonString {
				return nil, fmt.Sprintf("\"headersHelper\": want a string, found %s", h.Kind)
			}
			s.HeadersHelper = h.Str
		}
		return s, ""
	}
	cmd := v.get("command")
	if cmd == nil || cmd.Kind != jsonString || cmd.Str == "" {
		return nil, "it needs a non-empty \"command\" string"
	}
	s.Command = cmd.Str
	if s.Args, problem = strs("args"); problem != "" {
		return nil, problem
	}
	if s.Env, _, problem = object("env"); problem != "" {
		return nil, problem
	}
	sort.Strings(s.Env)
	if k.kind == ServerLSP {
		if s.Extensions, _, problem = object("extensionToLanguage"); problem != "" {
			return nil, problem
		}
		if len(s.Extensions) == 0 {
			return nil, "it needs an \"extensionToLanguage\" object with at least one file extension"
		}
	}
	return s, ""
}

// envRef is a variable reference as Claude Code expands it in a server's
// declaration: ${NAME} or ${NAME:-default}.
var envRef = regexp.MustCompile(`\$\{([^}]+)\}`)

// expand is v as Claude Code would start the server with it, as far as
// vigiles knows the values: ${CLAUDE_PLUGIN_ROOT} is the plugin's
// directory in the tree, ${CLAUDE_PLUGIN_DATA} its data directory under
// HOME (dataDir), ${user_config.KEY} an option's default, and
// ${CLAUDE_PROJECT_DIR} the work tree (.); any other ${VAR} is the
// user's environment's and stays as written.
func (s *Server) expand(v, dataDir string) string {
	v = strings.ReplaceAll(v, "${CLAUDE_PLUGIN_ROOT}", s.PluginRoot)
	v = strings.ReplaceAll(v, "${CLAUDE_PLUGIN_DATA}", dataDir)
	keys := make([]string, 0, len(s.options))
	for k := range s.options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v = strings.ReplaceAll(v, "${user_config."+k+"}", s.options[k])
	}
	return strings.ReplaceAll(v, "${CLAUDE_PROJECT_DIR}", ".")
}

// commandLine is the stdio command line, expanded, each word quoted as sh
// would need it: Claude Code spawns it with no shell, so where one
// argument ends stays visible.
func (s *Server) commandLine(dataDir string) string {
	words := []string{shQuote(s.expand(s.Command, dataDir))}
	for _, a := range s.Args {
		words = append(words, shQuote(s.expand(a, dataDir)))
	}
	return strings.Join(words, " ")
}

// shownList is names, quoted where they need it, joined and cut.
func shownList(names []string) string {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = shownName(n)
	}
	return cutBytes(strings.Join(shown, ", "), maxServerList)
}

// message is the finding's text for s, whose plugin's data directory is
// dataDir (under HOME).
func (s *Server) message(dataDir string) string {
	if s.Kind == ServerMonitor {
		return s.monitorMessage()
	}
	plugin, name := shownCut(s.Plugin, maxMonitorName), shownCut(s.Name, maxMonitorName)
	if s.Type == "bundle" {
		return fmt.Sprintf("plugin %s declares MCP servers in the MCP bundle %s, which Claude Code unpacks and whose servers it starts with every session, unsandboxed; vigiles does not read bundles or run MCP servers, so nothing of what they do is recorded: review it by hand",
			plugin, shownName(clip(s.Bundle, maxServerLine)))
	}
	if s.Type != "stdio" {
		var vars []string
		for _, hv := range s.HeaderValues {
			for _, m := range envRef.FindAllStringSubmatch(hv, -1) {
				n, _, _ := strings.Cut(m[1], ":-")
				if !slices.Contains(vars, n) && !strings.HasPrefix(n, "CLAUDE_PLUGIN_") {
					vars = append(vars, n)
				}
			}
		}
		extra := ""
		if len(s.Headers) > 0 {
			extra = " (headers sent: " + shownList(s.Headers)
			if len(vars) > 0 {
				extra += "; with the values of " + shownList(vars)
			}
			extra += ")"
		}
		if s.HeadersHelper != "" {
			extra += "; its headersHelper runs unsandboxed for more: " + shownName(clip(s.expand(s.HeadersHelper, dataDir), maxServerLine))
		}
		return fmt.Sprintf("plugin %s declares the remote MCP server %s (%s), which Claude Code connects to with every session: %s%s; vigiles does not connect to it, so nothing of what it is sent is recorded: review it by hand",
			plugin, name, s.Type, shownName(clip(s.expand(s.URL, dataDir), maxServerLine)), extra)
	}
	env := ""
	if len(s.Env) > 0 {
		env = " (environment: " + shownList(s.Env) + ")"
	}
	if s.Kind == ServerLSP {
		return fmt.Sprintf("plugin %s declares the LSP server %s, which Claude Code starts with the session, unsandboxed, for %s files: %s%s; vigiles does not run LSP servers, so nothing of what it does is recorded: review it by hand",
			plugin, name, shownList(s.Extensions), shownName(clip(s.commandLine(dataDir), maxServerLine)), env)
	}
	return fmt.Sprintf("plugin %s declares the MCP server %s, which Claude Code starts with every session and runs unsandboxed beside it: %s%s; vigiles does not run MCP servers, so nothing of what it does is recorded: review it by hand",
		plugin, name, shownName(clip(s.commandLine(dataDir), maxServerLine)), env)
}

// rule is the finding's rule for s.
func (s *Server) rule() string {
	switch s.Kind {
	case ServerLSP:
		return RuleLSPServer
	case ServerMonitor:
		return RuleMonitor
	}
	return RuleMCPServer
}

// key tells one server's declaration from another's: a file another
// plugin's manifest names too is that plugin's declaration as well.
func (s *Server) key() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", s.Kind, s.Location.File, s.Location.Line, s.Location.Column, s.PluginRoot)
}

// serverFindings names each server (and monitor) discovery found: a warning, or a
// notice where the settings of a session at the tree's root turn its
// plugin off (and no package's turn it on), as they turn its hooks off.
func (s *session) serverFindings() {
	st := s.settingsOf("")
	for _, sv := range s.servers {
		h := &Hook{Plugin: sv.Plugin, PluginRoot: sv.PluginRoot, AlsoNamed: sv.AlsoNamed, InPlugin: true}
		h.InstalledAs = s.installedAs(sv.PluginRoot)
		msg := sv.message("~/" + h.dataDir())
		sev := report.SeverityWarning
		if off, file := s.pluginOff(st, h); off && !s.onInAPackage(h) {
			sev = report.SeverityNotice
			msg = fmt.Sprintf("turned off: its plugin is set false under enabledPlugins in %s, so Claude Code does not start it while that holds; ", file) + msg
		}
		s.findings = append(s.findings, report.Finding{Rule: sv.rule(), Severity: sev, Location: sv.Location, Message: msg})
	}
}
