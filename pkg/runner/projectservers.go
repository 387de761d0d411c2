package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/vigiles/action/pkg/report"
)

// RuleSettingsCommand names a command a project's settings make Claude
// Code run, outside every hook and sandbox (settingsCommandKeys). A
// project's own MCP servers (its .mcp.json) are discovery/mcp-server, as
// a plugin's are.
const RuleSettingsCommand = "discovery/settings-command"

// ServerSettings is the kind (Server.Kind) of a settings command: its
// Name is the settings key, its Command the command as written.
const ServerSettings = "settings"

// settingsCommandKeys are the keys of a settings file whose value names a
// command Claude Code runs itself, not as a hook (code.claude.com/docs
// settings.md, "Available settings"; statusline.md; the Bedrock and Vertex
// pages' "Advanced credential configuration"), and what Claude Code runs
// it for. A string key holds the command; an object key holds
// {"type": "command", "command": …}.
var settingsCommandKeys = []struct {
	key, what string
	object    bool
}{
	{key: "apiKeyHelper", what: "with /bin/sh for the key it sends with every model request"},
	{key: "awsAuthRefresh", what: "to refresh the AWS credentials in ~/.aws it uses for Amazon Bedrock"},
	{key: "awsCredentialExport", what: "for the AWS credentials, as JSON, it uses for Amazon Bedrock"},
	{key: "gcpAuthRefresh", what: "to refresh the Google Cloud credentials it uses for Vertex AI"},
	{key: "otelHeadersHelper", what: "at start-up and every so often for the headers of its OpenTelemetry exports"},
	{key: "statusLine", what: "for the status line, each time the conversation updates", object: true},
	{key: "subagentStatusLine", what: "for the status line of each subagent", object: true},
	{key: "fileSuggestion", what: "for the @ file autocomplete, with the hooks' environment", object: true},
}

// projectMCP reads the MCP servers of the project at root's .mcp.json
// (its "mcpServers", which is all Claude Code reads of a project's
// file), each a Server of the project's (Server.InProject) named name.
// A directory below the work tree with no .claude of its own is a
// project here only where it is no plugin's root: a plugin's directory
// in a marketplace's repository keeps its .mcp.json the plugin's (named
// as such, in the forms a plugin's file takes). The work tree, or a
// directory with a .claude, that is a plugin's root too has its
// .mcp.json read as the plugin's as well (serversFile): a session
// started there reads it as the project's, whether the plugin is
// installed, or turned off under enabledPlugins, or not, so each reading
// is named (the file is parsed once, serversDoc).
func (c *claudeDisc) projectMCP(root, name string) {
	p := filepath.Join(root, claudeMCPJSON)
	if !c.present(p, false) {
		return
	}
	plugin := c.isPluginRoot(root)
	if _, err := os.Lstat(filepath.Join(root, ".claude")); err != nil && plugin {
		if rel, err := relTo(c.dir, root); err != nil || rel != "." {
			return
		}
	}
	rel, n := c.serversDoc(p)
	if n == nil {
		return
	}
	// A plugin's root's file is the plugin's first (its reading names and
	// checks what it declares, and a plugin may give an array, or an
	// array under "mcpServers"): where it is of a form the project's
	// reading does not take, Claude Code starts nothing of it as the
	// project's, which is no mistake of the plugin's.
	if n.Kind != jsonObject {
		if !plugin {
			c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "%s: want a JSON object with \"mcpServers\", found %s", rel, n.Kind)
		}
		return
	}
	if !plugin {
		c.repeatedKeys(rel, n, "", "mcpServers")
	}
	m := n.get("mcpServers")
	if m == nil {
		return
	}
	if m.Kind != jsonObject {
		if !plugin {
			c.find(RuleWrongType, report.SeverityError, c.loc(rel, m.Pos), "mcpServers: want an object of MCP servers, found %s", m.Kind)
		}
		return
	}
	var got serverSet
	c.serverEntries(hookCtx{}, mcpKind, m, rel, false, &got)
	c.addProjectServers(root, name, got.list)
}

// settingsCommands keeps the commands the settings file rel (parsed: n)
// of the project at root names (settingsCommandKeys), named name, in place
// of those of its keys a file read before named: Claude Code reads
// settings.local.json over settings.json, key by key. A value of another
// form than Claude Code's schema takes (settingsCommandForm) is a
// discovery/wrong-type error, as a server the schema refuses is: what
// Claude Code makes of it is not vigiles' to know, and it may run it, so
// it is not left unsaid; the value a file read before gave stays named.
//
// A key given twice, here or in an object value, is a warning, as a
// server's is: Claude Code runs the last, which is the one named, but a
// reader of the file or its diff meets the first.
func (c *claudeDisc) settingsCommands(root, rel, name string, n *jnode) {
	keys := make([]string, len(settingsCommandKeys))
	for i, k := range settingsCommandKeys {
		keys[i] = k.key
	}
	c.repeatedKeys(rel, n, "", keys...)
	for _, k := range settingsCommandKeys {
		cmd, loc := c.settingsCommand(rel, n, k.key, k.object)
		if cmd == "" {
			continue
		}
		if !c.countServer(loc) {
			return
		}
		s := &Server{Kind: ServerSettings, Name: k.key, Command: cmd, Plugin: name, Location: loc}
		if c.projCmds == nil {
			c.projCmds = map[string]map[string]*Server{}
		}
		if c.projCmds[root] == nil {
			c.projCmds[root] = map[string]*Server{}
		}
		c.projCmds[root][k.key] = s
	}
}

// flushSettingsCommands adds the settings commands of the project at
// root, once both its settings files are read, in settingsCommandKeys'
// order.
func (c *claudeDisc) flushSettingsCommands(root string) {
	var got []*Server
	for _, k := range settingsCommandKeys {
		if s := c.projCmds[root][k.key]; s != nil {
			got = append(got, s)
		}
	}
	delete(c.projCmds, root)
	c.addProjectServers(root, "", got)
}

// addProjectServers adds servers of the project at root (name: the
// project's, where a server has none of its own).
func (c *claudeDisc) addProjectServers(root, name string, got []*Server) {
	rel, err := relTo(c.dir, root)
	if err != nil {
		return
	}
	for _, s := range got {
		if s.Plugin == "" {
			s.Plugin = name
		}
		s.PluginRoot, s.InProject = rel, true
		c.out.Servers = append(c.out.Servers, s)
	}
}

// settingsCommandForm is the command string of a settings command's
// value v, in the form Claude Code's schema takes: a string, or, for an
// object key, {"type": "command", "command": STRING} (other members
// aside). Any other form is a problem, which says what is wanted.
func settingsCommandForm(object bool, v *jnode) (*jnode, string) {
	if !object {
		if v.Kind != jsonString {
			return nil, fmt.Sprintf("want a string, the command, found %s", v.Kind)
		}
		return v, ""
	}
	const want = `want {"type": "command", "command": STRING}`
	if v.Kind != jsonObject {
		return nil, fmt.Sprintf("%s, found %s", want, v.Kind)
	}
	switch t := v.get("type"); {
	case t == nil:
		return nil, want + ", found no \"type\""
	case t.Kind != jsonString:
		return nil, fmt.Sprintf("%s, found a \"type\" that is %s", want, t.Kind)
	case t.Str != "command":
		return nil, fmt.Sprintf("%s, found the type %s", want, shownCut(t.Str, maxMonitorName))
	}
	switch cmd := v.get("command"); {
	case cmd == nil:
		return nil, want + ", found no \"command\""
	case cmd.Kind != jsonString:
		return nil, fmt.Sprintf("%s, found a \"command\" that is %s", want, cmd.Kind)
	default:
		return cmd, ""
	}
}

// settingsCommand is the command the settings file rel (parsed: n) gives
// its key (object: in the object form, settingsCommandForm), and where
// the key is; "" where the key is not given, names a command of nothing
// (Claude Code runs none), or holds another form than the schema takes,
// a discovery/wrong-type error. A key given twice in an object value is
// a warning (repeatedKeys).
func (c *claudeDisc) settingsCommand(rel string, n *jnode, key string, object bool) (string, report.Location) {
	m, ok := n.member(key)
	if !ok {
		return "", report.Location{}
	}
	loc := c.loc(rel, m.KeyPos)
	if object && m.Value.Kind == jsonObject {
		c.repeatedKeys(rel, m.Value, key, "type", "command")
	}
	v, problem := settingsCommandForm(object, m.Value)
	if problem != "" {
		c.find(RuleWrongType, report.SeverityError, loc, "%s: %s: vigiles cannot tell what Claude Code runs for it, which it may run unsandboxed outside every hook: review it by hand", key, problem)
		return "", loc
	}
	return v.Str, loc
}

// settingsCommandWhat is what Claude Code runs the command of key for.
func settingsCommandWhat(key string) string {
	for _, k := range settingsCommandKeys {
		if k.key == key {
			return k.what
		}
	}
	return ""
}

// projectOwner names the project a server of the project's belongs to in
// a sentence: "the project" for the work tree's, "the project
// packages/app" for a package's.
func projectOwner(root string) string {
	if root == "." || root == "" {
		return "the project"
	}
	return "the project " + shownCut(root, maxMonitorName)
}

// settingsMessage is the finding's text for the settings command s.
func (s *Server) settingsMessage() string {
	owner := s.owner()
	return fmt.Sprintf("%s's settings (%s) name a command Claude Code runs itself, unsandboxed and outside every hook: %s, which it runs %s: %s; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		owner, shownName(s.Location.File), s.Name, settingsCommandWhat(s.Name), shownName(clip(s.Command, maxServerLine)))
}

// projectMCPApproval is what the settings of a session started in the
// project proj (settingsFiles) say of its .mcp.json server name: the
// file that rejects it (disabledMcpjsonServers, in any of them), or the
// file that approves it (enableAllProjectMcpServers, local over shared;
// enabledMcpjsonServers, in any of them), "" for neither. Claude Code
// merges arrays across settings files, and honours a rejection wherever
// it is (mcp.md, "Project scope").
func projectMCPApproval(files []settingsFile, name string) (rejected, approved string) {
	all, listed := boolTrueIn(files, "enableAllProjectMcpServers"), ""
	for _, f := range files {
		if rejected == "" && inStringList(f.keys["disabledMcpjsonServers"], name) {
			rejected = f.name
		}
		if listed == "" && inStringList(f.keys["enabledMcpjsonServers"], name) {
			listed = f.name
		}
	}
	if all != "" {
		return rejected, all
	}
	return rejected, listed
}

// inStringList says whether the JSON value raw is a list of strings
// holding s.
func inStringList(raw json.RawMessage, s string) bool {
	var l []any
	if raw == nil || json.Unmarshal(raw, &l) != nil {
		return false
	}
	return slices.Contains(l, any(s))
}

// projectServerFinding names sv, a server or settings command of a
// project's, as serverFindings names a plugin's: a warning, or a notice
// where the settings of a session started in the project turn it off
// (an MCP server listed under disabledMcpjsonServers; a status line where
// disableAllHooks is true, which turns any custom status line off), which
// a baseline does not keep. An MCP server's finding says whether the
// settings approve it or Claude Code asks the user first; it stays a
// warning either way: `claude -p` and the Agent SDK (what CI runs)
// start it without asking, and an approval holds for the server's name,
// not for what it starts.
func (s *session) projectServerFinding(sv *Server) {
	proj := sv.PluginRoot
	if proj == "." {
		proj = ""
	}
	if sv.Kind == ServerSkillShell {
		s.skillShellFinding(sv, false, "", proj)
		return
	}
	st := s.settingsOf(proj)
	msg, off := sv.message(""), ""
	switch {
	case sv.Agent != "":
		msg = "an agent's own: Claude Code asks no .mcp.json approval for it, and starts it once the user has trusted the folder (the trust `claude -p` and the Agent SDK give settings files' hooks does not count): " + msg
	case sv.Kind == ServerMCP:
		rejected, approved := projectMCPApproval(st.files, sv.Name)
		switch {
		case rejected != "":
			off = fmt.Sprintf("turned off: %s lists it under disabledMcpjsonServers, so Claude Code does not start it while that holds; ", shownName(rejected))
		case approved != "":
			msg = fmt.Sprintf("approved by %s (enableAllProjectMcpServers or enabledMcpjsonServers), so Claude Code starts it without asking once the user trusts the folder: ", shownName(approved)) + msg
		default:
			msg = "not approved by the project's settings: Claude Code asks the user before it starts it in an interactive session, and starts it without asking in `claude -p` and the Agent SDK (what CI runs): " + msg
		}
	case sv.Kind == ServerSettings && (sv.Name == "statusLine" || sv.Name == "subagentStatusLine"):
		if st.all != "" {
			off = fmt.Sprintf("turned off: disableAllHooks is true in %s, which turns any custom status line off too, so Claude Code does not run it while that holds; ", shownName(st.all))
		}
	}
	sev := report.SeverityWarning
	if off != "" {
		sev, msg = report.SeverityNotice, off+msg
		s.offProject = append(s.offProject, sv.ident())
	} else {
		s.projectStarted = append(s.projectStarted, startedServer{sv: sv, starts: sv.starts("", newTreeForm(s.dir)), finding: len(s.findings)})
	}
	s.findings = append(s.findings, report.Finding{Rule: sv.rule(), Severity: sev, Location: sv.Location, Message: msg})
	s.serverFetchedCode(sv, off)
	s.serverMissingScripts(sv, "", off)
}

// pluginSettings names the command the settings.json at the root of the
// plugin at ctx makes Claude Code run: its subagentStatusLine, which
// Claude Code takes from a plugin's settings (plugins-reference.md,
// "Standard plugin layout"; statusline.md) and runs for the status line
// of each subagent, as a project's is (settingsCommands, which reads its
// form). The plugin's other key there, agent, runs nothing of its own.
// It is the plugin's (a ServerSettings of its plugin's), named, turned
// off and kept in a baseline's servers as its other servers are.
func (c *claudeDisc) pluginSettings(ctx hookCtx) {
	rel, n := c.readObject(filepath.Join(ctx.pluginRoot, claudeSettingsName))
	if n == nil {
		return
	}
	const key = "subagentStatusLine"
	c.repeatedKeys(rel, n, "", key)
	cmd, loc := c.settingsCommand(rel, n, key, true)
	if cmd == "" || !c.countServer(loc) {
		return
	}
	c.addServers(ctx, []*Server{{Kind: ServerSettings, Name: key, Command: cmd, Location: loc}}, ctx.entryName == "")
}

// claudeSettingsName is the settings file at a plugin's root.
const claudeSettingsName = "settings.json"
