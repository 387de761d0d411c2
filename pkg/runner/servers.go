package runner

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
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

// maxServers bounds the MCP and LSP servers and the monitors one
// discovery reads (each declaration of one, also where a later one
// replaces it): each is a finding, and a repository could declare
// millions. Past it, what is left is not read, and an error says so, as
// past maxHandlers.
const maxServers = 10000

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
	// Type is "stdio" (a command Claude Code starts), "http", "sse",
	// "ws", "sse-ide", "ws-ide" or "claudeai-proxy" (a server it connects
	// to), "sdk" (one the program that drives it serves), or "bundle" (an
	// MCP bundle whose servers vigiles does not read: Bundle). A shell
	// line's (ServerSkillShell) is its form, inline or block.
	Type string
	// Command and Args are the stdio command line as written; Env the
	// names of the variables it is given, sorted, and EnvValues their
	// values as written: a value may choose what runs (NODE_OPTIONS,
	// LD_PRELOAD, PYTHONPATH).
	Command   string
	Args      []string
	Env       []string
	EnvValues []string
	// URL, Headers (the names of the headers sent, in order) and
	// HeadersHelper (a command Claude Code runs for more) of a remote
	// server, as written.
	URL           string
	Headers       []string
	HeaderValues  []string
	HeadersHelper string
	// Bundle is the path or URL of an MCP bundle, as written.
	Bundle string
	// ProxyID is the connector a claudeai-proxy server names, SDKName
	// the server an sdk server names.
	ProxyID, SDKName string
	// Extensions are the file extensions an LSP server is started for.
	Extensions []string
	// When is a monitor's "when" ("always" where it has none).
	When string
	// options are the plugin's userConfig values (pluginOptions).
	options map[string]string
	// id is Name as JSON.parse tells keys apart (jmember.ident): a
	// server replaces one declared before of the same id.
	id string
	// InProject says it is the project's, not a plugin's: an MCP server
	// of the .mcp.json at PluginRoot (the project's directory), or a
	// command its settings name (ServerSettings); Plugin is then the
	// project's name, as its hooks have it.
	InProject bool
	// Allowed is, for a skill's or command's shell line
	// (ServerSkillShell), the entry of its frontmatter's allowed-tools
	// that pre-approves it ("" for none).
	Allowed string
	// BashRules are, for a shell line, all its frontmatter's
	// allowed-tools entries that name Bash, whether or not they match it:
	// a finding says that none does.
	BashRules []string
	// Shell is, for a shell line, its frontmatter's shell where that is
	// not Claude Code's default ("" for none or "bash"): "powershell"
	// runs it with PowerShell, not Bash.
	Shell string
	// Arguments are, for a shell line, the names its frontmatter's
	// arguments declares that the command holds as $name or ${name},
	// sorted, parted by spaces: Claude Code puts the invocation's
	// argument, raw, in their place before the shell reads the line.
	Arguments string
	// InvokedBy is, for a shell line that holds an argument Claude Code
	// fills in, "user" where its frontmatter's disable-model-invocation
	// keeps Claude from invoking it ("" otherwise): who may invoke it
	// chooses what goes in the line.
	InvokedBy string
	// Invokers is, for a shell line, who its frontmatter lets invoke
	// the skill or command it is in, which its finding names: "user"
	// (disable-model-invocation: true), "claude" (user-invocable:
	// false), "neither" (both), "" for the user and Claude alike.
	// Unlike InvokedBy no baseline keeps it: a line without an argument
	// runs the same whoever invokes it.
	Invokers string
	// Unread is, for a shell line, why vigiles did not match it against
	// its frontmatter's allowed-tools and arguments ("" where it did):
	// they hold more than it reads (shellFrontmatterRead). Such a line
	// is never accepted by a baseline, nor kept in one.
	Unread string
	// Agent is, for an MCP server a project's agent defines inline in its
	// frontmatter's mcpServers (agentServers), the agent's file, relative
	// to the work tree: Claude Code starts it when that agent starts, not
	// with every session, and asks no .mcp.json approval for it.
	Agent string
	// Again is, for a shell line, where else its file holds the same line
	// (its form and command alike), in order: one line however often the
	// file repeats it, as a baseline keeps it (keptSkillShells).
	Again []report.Location
}

// serverSet is the servers one plugin's declarations of a kind give, in
// order, each in place of one declared before of its name, as Claude Code
// merges the objects of servers it reads ({...before, ...later}).
type serverSet struct {
	list []*Server
	at   map[string]int // index in list, by Server.id
}

// put adds s, in place of a server of its id.
func (ss *serverSet) put(s *Server) {
	if i, ok := ss.at[s.id]; ok {
		ss.list[i] = s
		return
	}
	if ss.at == nil {
		ss.at = map[string]int{}
	}
	ss.at[s.id] = len(ss.list)
	ss.list = append(ss.list, s)
}

// mcpTypes are the types of MCP server Claude Code's schema takes
// (McpServerConfigSchema): besides stdio and the remote http, sse and ws,
// those it gives IDEs' servers (sse-ide, ws-ide), claude.ai's connectors
// (claudeai-proxy) and an SDK's (sdk). A plugin may declare any of them:
// Claude Code connects to the URL of each but sdk.
var mcpTypes = []string{"stdio", "http", "sse", "ws", "sse-ide", "ws-ide", "claudeai-proxy", "sdk"}

const mcpTypesList = `"stdio", "http", "sse", "ws", "sse-ide", "ws-ide", "claudeai-proxy" or "sdk"`

// typeNeeds are the strings the schema requires of a type of MCP server
// besides its url.
var typeNeeds = map[string][]string{"sse-ide": {"ideName"}, "ws-ide": {"ideName"}, "claudeai-proxy": {"id"}}

// byName sorts names and their values by name.
type byName struct{ names, values []string }

func (b byName) Len() int           { return len(b.names) }
func (b byName) Less(i, j int) bool { return b.names[i] < b.names[j] }
func (b byName) Swap(i, j int) {
	b.names[i], b.names[j] = b.names[j], b.names[i]
	b.values[i], b.values[j] = b.values[j], b.values[i]
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
		var got serverSet
		if p := filepath.Join(ctx.pluginRoot, k.file); c.present(p, false) {
			c.serversFile(ctx, k, p, &got)
		}
		if field := manifest.get(k.field); field != nil {
			c.serversIn(ctx, k, field, manifestRel, &got)
		}
		c.addServers(ctx, got.list, true)
	}
}

// entryServers reads the servers a marketplace entry declares (an entry
// may hold any field of the plugin manifest): installed under the entry's
// name, they are named as its own, whatever the plugin declares.
func (c *claudeDisc) entryServers(ctx hookCtx, entry *jnode, entryFile string) {
	for _, k := range []serverKind{mcpKind, lspKind} {
		if field := entry.get(k.field); field != nil {
			var got serverSet
			c.serversIn(ctx, k, field, entryFile, &got)
			c.addServers(ctx, got.list, false)
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

// serversIn reads a manifest's (or an entry's) servers field in file into
// got: a path to a file of servers, an object of servers, or an array of
// either, each replacing what came before by name. An MCP field's path
// may name an MCP bundle (.mcpb), which vigiles does not open.
func (c *claudeDisc) serversIn(ctx hookCtx, k serverKind, field *jnode, file string, got *serverSet) {
	switch field.Kind {
	case jsonString:
		c.serversPath(ctx, k, field, file, got)
		return
	case jsonObject:
		c.serverEntries(ctx, k, field, file, false, got)
		return
	case jsonArray:
		for _, e := range field.Elems {
			switch e.Kind {
			case jsonString:
				c.serversPath(ctx, k, e, file, got)
			case jsonObject:
				c.serverEntries(ctx, k, e, file, false, got)
			default:
				c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "%s: want a path to a JSON file of servers, or an object of servers, found %s", k.field, e.Kind)
			}
		}
		return
	}
	c.find(RuleWrongType, report.SeverityError, c.loc(file, field.Pos), "%s: want a path to a JSON file of servers, an object of servers, or an array of them, found %s", k.field, field.Kind)
}

// isBundle says whether an MCP servers path names an MCP bundle, which
// Claude Code downloads or unpacks and starts.
func isBundle(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".mcpb") || strings.HasSuffix(l, ".dxt") || strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// serversPath reads the servers of the file a path field names (relative
// to the plugin root) into got.
func (c *claudeDisc) serversPath(ctx hookCtx, k serverKind, field *jnode, file string, got *serverSet) {
	if k.kind == ServerMCP && isBundle(field.Str) {
		// Its servers' names are the bundle's to say: none that vigiles
		// reads is one of them.
		got.put(&Server{Kind: k.kind, Name: field.Str, id: "\xffbundle\x00" + field.Str, Type: "bundle", Bundle: field.Str, Location: c.loc(file, field.Pos)})
		return
	}
	if p, ok := c.fileField(ctx, file, field, k.field, "servers"); ok {
		c.serversFile(ctx, k, p, got)
	}
}

// serversDoc is a file of servers, read once however many declarations
// name it (Claude Code reads it for each: a manifest may name .mcp.json
// again, after servers that replaced some of its own), and apart from
// what reads it as something else (a hooks, monitors or manifest file).
func (c *claudeDisc) serversDoc(abs string) (string, *jnode) {
	if d, ok := c.serverDocs[abs]; ok {
		return d.rel, d.n
	}
	rel, n := c.readJSONIn("servers", "", abs)
	if c.serverDocs == nil {
		c.serverDocs = map[string]serverDoc{}
	}
	c.serverDocs[abs] = serverDoc{rel, n}
	return rel, n
}

// serverDoc is a file of servers as serversDoc read it.
type serverDoc struct {
	rel string
	n   *jnode
}

// serversFile reads a JSON file of servers into got: for MCP, an object
// of servers or one whose "mcpServers" holds them (Claude Code takes that
// member when it is set); for LSP, an object of servers, which Claude Code
// loads whole or not at all.
func (c *claudeDisc) serversFile(ctx hookCtx, k serverKind, abs string, got *serverSet) {
	rel, n := c.serversDoc(abs)
	if n == nil {
		return
	}
	if k.kind == ServerMCP {
		// Claude Code takes Object.entries of the file (or of its
		// mcpServers): an array's servers are named by their indexes.
		if n.Kind == jsonArray {
			c.serverEntries(ctx, k, indexed(n), rel, false, got)
			return
		}
		if m := n.get("mcpServers"); m != nil && truthy(m) {
			c.repeatedKeys(rel, n, "", "mcpServers")
			switch m.Kind {
			case jsonObject:
				n = m
			case jsonArray:
				n = indexed(m)
			default:
				c.find(RuleWrongType, report.SeverityError, c.loc(rel, m.Pos), "mcpServers: want an object of MCP servers, found %s", m.Kind)
				return
			}
		}
	}
	if n.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "%s: want a JSON object of %s servers, found %s", rel, k.what, n.Kind)
		return
	}
	c.serverEntries(ctx, k, n, rel, k.kind == ServerLSP, got)
}

// indexed is the array a as JavaScript's Object.entries sees it: an
// object whose keys are its indexes, each at its element.
func indexed(a *jnode) *jnode {
	o := &jnode{Kind: jsonObject, Pos: a.Pos, Members: make([]jmember, len(a.Elems))}
	for i, e := range a.Elems {
		o.Members[i] = jmember{Key: strconv.Itoa(i), KeyPos: e.Pos, Value: e}
	}
	return o
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

// serverEntries reads an object of servers in file into got, name by name
// (the last of a name given twice, as JSON.parse keeps it). A malformed
// server is an error, and Claude Code does not start it; with whole (a
// file of LSP servers), it starts none of the file's.
func (c *claudeDisc) serverEntries(ctx hookCtx, k serverKind, n *jnode, file string, whole bool, got *serverSet) {
	c.repeatedKeys(file, n, k.field)
	var read []*Server
	bad := false
	last := lastOfKeys(n)
	for i, m := range n.Members {
		if !last[i] {
			continue // the last of a key given twice is read
		}
		if !c.countServer(c.loc(file, m.KeyPos)) {
			break
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
		s.id, s.Location = m.ident(), c.loc(file, m.KeyPos)
		read = append(read, s)
	}
	if whole && bad {
		return
	}
	for _, s := range read {
		got.put(s)
	}
}

// lastOfKeys says, by index in n's members, whether no member after it
// has its key (as JSON.parse tells keys apart): the one JSON.parse keeps.
func lastOfKeys(n *jnode) []bool {
	last := make([]bool, len(n.Members))
	seen := make(map[string]bool, len(n.Members))
	for i := len(n.Members) - 1; i >= 0; i-- {
		id := n.Members[i].ident()
		last[i] = !seen[id]
		seen[id] = true
	}
	return last
}

// countServer counts one more server (or monitor) read against
// maxServers; past it, nothing more is read, and an error at loc says so
// once.
func (c *claudeDisc) countServer(loc report.Location) bool {
	if c.serverCount++; c.serverCount <= maxServers {
		return true
	}
	if c.serverCount == maxServers+1 {
		c.bound(loc, "more than %d MCP servers, LSP servers, monitors and mods are declared, more than vigiles names in one discovery; Claude Code starts or loads them all, so this one and those after it are not named", maxServers)
	}
	return false
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
		last := lastOfKeys(o)
		for i, e := range o.Members {
			if !last[i] {
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
			return nil, fmt.Sprintf("\"type\": want one of %s, found %s", mcpTypesList, t.Kind)
		}
		if !slices.Contains(mcpTypes, t.Str) {
			return nil, fmt.Sprintf("\"type\" %s: want one of %s", shownCut(t.Str, maxMonitorName), mcpTypesList)
		}
		s.Type = t.Str
	}
	var problem string
	if s.Type == "sdk" {
		// No URL and no command: the program that drives Claude Code
		// through its SDK serves it, under the name given.
		nm := v.get("name")
		if nm == nil || nm.Kind != jsonString {
			return nil, "an sdk server needs a \"name\" string"
		}
		s.SDKName = nm.Str
		return s, ""
	}
	if s.Type != "stdio" {
		u := v.get("url")
		if u == nil || u.Kind != jsonString {
			return nil, fmt.Sprintf("a %s server needs a \"url\" string", s.Type)
		}
		s.URL = u.Str
		// What Claude Code's schema requires besides, of the servers of
		// IDEs and of claude.ai's proxy.
		for _, f := range typeNeeds[s.Type] {
			if x := v.get(f); x == nil || x.Kind != jsonString {
				return nil, fmt.Sprintf("a %s server needs a %q string", s.Type, f)
			}
		}
		if id := v.get("id"); s.Type == "claudeai-proxy" {
			s.ProxyID = id.Str
		}
		if s.Type == "sse-ide" || s.Type == "ws-ide" || s.Type == "claudeai-proxy" {
			return s, ""
		}
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
	if s.Env, s.EnvValues, problem = object("env"); problem != "" {
		return nil, problem
	}
	sort.Sort(byName{s.Env, s.EnvValues})
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
var envRef = lazyRE(`\$\{([^}]+)\}`)

// expand is v as Claude Code would start the server with it, as far as
// vigiles knows the values: ${CLAUDE_PLUGIN_ROOT} is the plugin's
// directory in the tree, ${CLAUDE_PLUGIN_DATA} its data directory under
// HOME (dataDir), ${user_config.KEY} an option's default, and
// ${CLAUDE_PROJECT_DIR} the work tree (.); any other ${VAR} is the
// user's environment's and stays as written.
func (s *Server) expand(v, dataDir string) string {
	if s.InProject {
		// No plugin's variables; the user's environment's stay as
		// written.
		return v
	}
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
	return s.commandLineIn(dataDir, treeForm{})
}

// commandLineIn is commandLine with the work tree's path made
// workTreeMark (tf) in each word before it is quoted: quoted after, a
// checkout whose path needs quoting (a space in it) would give another
// line than one whose path does not.
func (s *Server) commandLineIn(dataDir string, tf treeForm) string {
	words := []string{shQuote(tf.text(s.expand(s.Command, dataDir)))}
	for _, a := range s.Args {
		words = append(words, shQuote(tf.text(s.expand(a, dataDir))))
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
	switch s.Kind {
	case ServerMonitor:
		return s.monitorMessage()
	case ServerSettings:
		return s.settingsMessage()
	case ServerSkillShell:
		return s.skillShellMessage()
	case ServerMod:
		return s.modMessage()
	}
	plugin, name := s.declarer(), shownCut(s.Name, maxMonitorName)
	when := "with every session"
	if s.Agent != "" {
		when = "each time that agent starts (and with the session where the session runs as that agent)"
	}
	if s.Type == "bundle" {
		return fmt.Sprintf("%s declares MCP servers in the MCP bundle %s, which Claude Code unpacks and whose servers it starts with every session, unsandboxed; vigiles does not read bundles or run MCP servers, so nothing of what they do is recorded: review it by hand",
			plugin, shownName(clip(s.Bundle, maxServerLine)))
	}
	switch s.Type {
	case "sdk":
		return fmt.Sprintf("%s declares the MCP server %s (sdk), which Claude Code takes from the program that drives it through its SDK, as that program's server %s: review what that server does, which vigiles does not see",
			plugin, name, shownCut(s.SDKName, maxMonitorName))
	case "claudeai-proxy":
		return fmt.Sprintf("%s declares the MCP server %s (claudeai-proxy), which Claude Code connects to with every session through claude.ai's proxy, signed in as the user, as the claude.ai connector %s (url: %s); vigiles does not connect to it, so nothing of what it is sent is recorded: review it by hand",
			plugin, name, shownCut(s.ProxyID, maxMonitorName), shownName(clip(s.URL, maxServerLine)))
	case "sse-ide", "ws-ide":
		// Claude Code takes an IDE's URL as written: nothing expanded.
		if s.URL == "" {
			return fmt.Sprintf("%s declares the remote MCP server %s (%s) with an empty URL, so Claude Code fails to connect to it: give it its URL, or remove it",
				plugin, name, s.Type)
		}
		return fmt.Sprintf("%s declares the remote MCP server %s (%s), which Claude Code connects to with every session as an IDE's: %s; vigiles does not connect to it, so nothing of what it is sent is recorded: review it by hand",
			plugin, name, s.Type, shownName(clip(s.URL, maxServerLine)))
	}
	if s.Type != "stdio" {
		vars := s.headerVars()
		extra := ""
		if len(s.Headers) > 0 {
			extra = " (headers sent: " + shownList(s.Headers)
			if len(vars) > 0 {
				extra += "; with the values of " + shownList(vars)
			}
			extra += ")"
		}
		if s.HeadersHelper != "" {
			// Claude Code expands nothing in it: sh does, from the
			// user's environment, where no CLAUDE_PLUGIN_ROOT is set.
			extra += "; its headersHelper, which Claude Code runs unsandboxed with sh -c for more, as written: " + shownName(clip(s.HeadersHelper, maxServerLine))
		}
		if s.URL == "" {
			// "url": "", a placeholder: the schema takes it, and the
			// connection fails; quoting it made "connects to …: ;".
			return fmt.Sprintf("%s declares the remote MCP server %s (%s) with an empty URL, so Claude Code fails to connect to it %s%s; give it its URL, or remove it",
				plugin, name, s.Type, when, extra)
		}
		return fmt.Sprintf("%s declares the remote MCP server %s (%s), which Claude Code connects to %s: %s%s; vigiles does not connect to it, so nothing of what it is sent is recorded: review it by hand",
			plugin, name, s.Type, when, shownName(clip(s.expand(s.URL, dataDir), maxServerLine)), extra)
	}
	env := ""
	if len(s.Env) > 0 {
		// The list is cut as the command line is.
		env = " (environment: " + shownName(cutBytes(s.envSet(dataDir, treeForm{}), maxServerLine)) + ")"
	}
	if s.Kind == ServerLSP {
		return fmt.Sprintf("%s declares the LSP server %s, which Claude Code starts with the session, unsandboxed, for %s files: %s%s; vigiles does not run LSP servers, so nothing of what it does is recorded: review it by hand",
			plugin, name, shownList(s.Extensions), shownName(clip(s.commandLine(dataDir), maxServerLine)), env)
	}
	return fmt.Sprintf("%s declares the MCP server %s, which Claude Code starts %s and runs unsandboxed beside it: %s%s; vigiles does not run MCP servers, so nothing of what it does is recorded: review it by hand",
		plugin, name, when, shownName(clip(s.commandLine(dataDir), maxServerLine)), env)
}

// headerVars are the variables whose values the headers of a remote
// server take (${VAR}, ${VAR:-default}), each once, in order; the
// plugin's own (CLAUDE_PLUGIN_*) are not the user's.
func (s *Server) headerVars() []string {
	var vars []string
	seen := map[string]bool{}
	for _, hv := range s.HeaderValues {
		for _, m := range envRef().FindAllStringSubmatch(hv, -1) {
			n, _, _ := strings.Cut(m[1], ":-")
			if !seen[n] && !strings.HasPrefix(n, "CLAUDE_PLUGIN_") {
				seen[n] = true
				vars = append(vars, n)
			}
		}
	}
	return vars
}

// envSet is the environment a stdio server is given, as sh would take it
// before the command: NAME=value, each value expanded as the command line
// is, the work tree's path made workTreeMark (tf) as commandLineIn does,
// and quoted, sorted by name.
func (s *Server) envSet(dataDir string, tf treeForm) string {
	set := make([]string, len(s.Env))
	for i, n := range s.Env {
		set[i] = shownName(n) + "=" + shQuote(tf.text(s.expand(s.EnvValues[i], dataDir)))
	}
	return strings.Join(set, " ")
}

// starts is what Claude Code starts for s, or connects to, as its finding
// shows it (message), whole: nothing cut, no space trimmed, so that a
// change past what the finding quotes is a change too. A stdio server's
// command line and the environment it is given; a remote server's URL,
// the names of the headers it sends and of the variables their values
// take, and its headersHelper as written; an IDE's or claude.ai's URL as
// written (and the connector); an sdk server's name; a bundle's path; a
// monitor's command as written. This is what a baseline keeps of it
// (BaselineServer.Starts) and compares; the type is kept beside it, as a
// stdio command line can read as a URL does. The work tree's path is made
// workTreeMark (tf) in each word of a command line and each env value
// before it is quoted, and in the rest (startsUnquoted) whole: starts is
// in the tree's form once, as the baseline keeps and compares it (a
// second pass would escape the marks the first made).
func (s *Server) starts(dataDir string, tf treeForm) string {
	if s.Kind != ServerMonitor && s.Type == "stdio" {
		line := s.commandLineIn(dataDir, tf)
		if len(s.Env) > 0 {
			line += " (environment: " + s.envSet(dataDir, tf) + ")"
		}
		return line
	}
	return tf.text(s.startsUnquoted(dataDir))
}

// startsUnquoted is starts of a server that is no stdio command line (a
// monitor's command, a URL, a bundle), as the checkout has it.
func (s *Server) startsUnquoted(dataDir string) string {
	if s.Kind == ServerMonitor || s.Kind == ServerSettings || s.Kind == ServerMod {
		return s.Command
	}
	switch s.Type {
	case "bundle":
		return s.Bundle
	case "sdk":
		return "the SDK program's server " + s.SDKName
	case "claudeai-proxy":
		return "the claude.ai connector " + s.ProxyID + " (url: " + s.URL + ")"
	case "sse-ide", "ws-ide":
		return s.URL
	}
	line := s.expand(s.URL, dataDir)
	if len(s.Headers) > 0 {
		line += " (headers sent: " + strings.Join(s.Headers, ", ")
		if vars := s.headerVars(); len(vars) > 0 {
			line += "; with the values of " + strings.Join(vars, ", ")
		}
		line += ")"
	}
	if s.HeadersHelper != "" {
		line += "; headersHelper: " + s.HeadersHelper
	}
	return line
}

// declarer names what declares s in its finding: "plugin NAME", or the
// project's .mcp.json.
func (s *Server) declarer() string {
	if s.Agent != "" {
		return projectOwner(s.PluginRoot) + "'s agent " + shownName(s.Agent)
	}
	if s.InProject {
		return projectOwner(s.PluginRoot) + "'s " + claudeMCPJSON
	}
	return "plugin " + shownCut(s.Plugin, maxMonitorName)
}

// kindName names a server's kind in a sentence.
func kindName(kind string) string {
	switch kind {
	case ServerMCP:
		return "MCP server"
	case ServerLSP:
		return "LSP server"
	case ServerMonitor:
		return "background monitor"
	case ServerSettings:
		return "settings command"
	case ServerSkillShell:
		return "shell line"
	case ServerMod:
		return "mod"
	}
	return kind + " server"
}

// rule is the finding's rule for s.
func (s *Server) rule() string {
	switch s.Kind {
	case ServerLSP:
		return RuleLSPServer
	case ServerMonitor:
		return RuleMonitor
	case ServerSettings:
		return RuleSettingsCommand
	case ServerSkillShell:
		return RuleSkillShell
	case ServerMod:
		return RuleMod
	}
	return RuleMCPServer
}

// key tells one server's declaration from another's: a file another
// plugin's manifest names too is that plugin's declaration as well, and
// a plugin root's .mcp.json is its project's too (projectMCP).
func (s *Server) key() string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s\x00%t", s.Kind, s.Location.File, s.Location.Line, s.Location.Column, s.PluginRoot, s.InProject)
}

// serverFindings names each server (and monitor) discovery found: a warning, or a
// notice where the settings of a session at the tree's root turn its
// plugin off (and no package's turn it on), as they turn its hooks off.
func (s *session) serverFindings() {
	st := s.settingsOf("")
	// What the settings say of a plugin, asked once for all its servers
	// (onInAPackage looks at every package's .claude).
	type plugin struct {
		dataDir, offIn string
		off            bool
	}
	of := map[string]plugin{}
	for _, sv := range s.servers {
		if sv.InProject {
			s.projectServerFinding(sv)
			continue
		}
		k := sv.Plugin + "\x00" + sv.PluginRoot + "\x00" + strings.Join(sv.AlsoNamed, "\x00")
		p, ok := of[k]
		if !ok {
			h := &Hook{Plugin: sv.Plugin, PluginRoot: sv.PluginRoot, AlsoNamed: sv.AlsoNamed, InPlugin: true}
			h.InstalledAs = s.installedAs(sv.PluginRoot)
			p.dataDir = "~/" + h.dataDir()
			if off, file := s.pluginOff(st, h); off && !s.onInAPackage(h) {
				p.off, p.offIn = true, file
			}
			of[k] = p
		}
		if sv.Kind == ServerSkillShell {
			// Named apart, and kept apart (skillShellFinding).
			s.skillShellFinding(sv, p.off, p.offIn, "")
			continue
		}
		msg := sv.message(p.dataDir)
		sev := report.SeverityWarning
		all := ""
		if (sv.Kind == ServerSettings || sv.Kind == ServerMod) && !p.off {
			all = st.all
		}
		off := ""
		switch {
		case p.off && sv.Kind == ServerMod:
			off = fmt.Sprintf("turned off: its plugin is set false under enabledPlugins in %s, so Claude Code does not load it while that holds; ", p.offIn)
		case p.off:
			off = fmt.Sprintf("turned off: its plugin is set false under enabledPlugins in %s, so Claude Code does not start it while that holds; ", p.offIn)
		case all != "" && sv.Kind == ServerMod:
			// Claude Code's mods documentation: disableAllHooks turns
			// hooks modules off.
			off = fmt.Sprintf("turned off: disableAllHooks is true in %s, which turns hooks modules off too, so Claude Code does not load it while that holds; ", shownName(all))
		case all != "":
			// A plugin's subagentStatusLine, which disableAllHooks turns
			// off as it turns any custom status line off.
			off = fmt.Sprintf("turned off: disableAllHooks is true in %s, which turns any custom status line off too, so Claude Code does not run it while that holds; ", shownName(all))
		}
		if off != "" {
			sev, msg = report.SeverityNotice, off+msg
			s.offServers = append(s.offServers, sv.ident())
		} else {
			s.started = append(s.started, startedServer{sv: sv, starts: sv.starts(p.dataDir, newTreeForm(s.dir)), dataDir: p.dataDir, finding: len(s.findings)})
		}
		s.findings = append(s.findings, report.Finding{Rule: sv.rule(), Severity: sev, Location: sv.Location, Message: msg})
		s.serverFetchedCode(sv, off)
		s.serverMissingScripts(sv, p.dataDir, off)
	}
}

// startedServer is a server (or monitor) Claude Code starts, as
// serverFindings named it: what it starts (Server.starts), and the index
// of its finding in the session's findings, which a baseline that keeps
// it makes a notice (compareServers).
type startedServer struct {
	sv      *Server
	starts  string
	finding int
	// dataDir is its plugin's data directory, as Server.expand takes it
	// ("" for a project's).
	dataDir string
	// files are the files of the tree it runs, hashed, and unhashed what
	// of them could not be (serverFiles): nil until hashServerFiles,
	// which an audit against a baseline calls.
	files    []BaselineFile
	unhashed []string
}

// context is s's context as a baseline keeps it: "plugin:" and its
// plugin's root, or "project:" and its project's directory, named as a
// run's (keptContext): plugin:"p\xff" is not plugin:"p\xfe".
func (s *Server) context() string {
	if s.Agent != "" {
		// Apart from a server of the same name in .mcp.json, or in
		// another agent: each is started on its own.
		return keptContext("project:" + s.PluginRoot + "#agent:" + s.Agent)
	}
	if s.InProject {
		return keptContext("project:" + s.PluginRoot)
	}
	return keptContext("plugin:" + s.PluginRoot)
}

// owner names whose s is in a sentence: "plugin NAME", or the project.
func (s *Server) owner() string {
	if s.InProject {
		return projectOwner(s.PluginRoot)
	}
	return "plugin " + shownCut(s.Plugin, maxMonitorName)
}

// ident is s's serverIdent: a plugin's by its root, a project's by its
// context, so that neither is taken for the other; each name as a
// baseline keeps it (idFile, baselineName), so that servers of one name
// in p\xff and p\xfe are two.
func (s *Server) ident() serverIdent {
	if s.InProject {
		return serverIdent{s.context(), s.Kind, baselineName(s.Name)}
	}
	return serverIdent{idFile(s.PluginRoot), s.Kind, baselineName(s.Name)}
}

// ident is the serverIdent of the server bs keeps (Server.ident).
func (bs BaselineServer) ident() serverIdent {
	if root, ok := strings.CutPrefix(bs.Context, "plugin:"); ok {
		return serverIdent{root, bs.Kind, bs.Name}
	}
	return serverIdent{bs.Context, bs.Kind, bs.Name}
}

// serverIdent is what tells a server from another for a baseline: its
// plugin's root, its kind and its name. A declaration may name a server
// of an ident twice (two monitors of one name, a marketplace entry's
// server beside the plugin's own): they are compared as a group.
type serverIdent struct{ root, kind, name string }
