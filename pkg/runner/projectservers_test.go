package runner

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/report"
)

// projectServerLines are the findings of rep about the projects' servers
// and settings commands, and the baseline's about any server, as
// "severity rule file:line:col message", sorted.
func projectServerLines(rep *report.Report) []string {
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleMCPServer, RuleSettingsCommand,
			RuleDriftPrefix + DriftServerAdded, RuleDriftPrefix + DriftServerChanged, RuleDriftPrefix + DriftServerRemoved:
			got = append(got, findingLine(f)+" "+f.Message)
		}
	}
	sort.Strings(got)
	return got
}

// projectServersTree is a repository whose project runs no plugin but
// names, in its settings, every command Claude Code runs itself, and
// declares MCP servers in its .mcp.json: one its settings approve, one
// they do not, one they turn off.
func projectServersTree() map[string]string {
	return map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]},
  "apiKeyHelper": "./bin/key.sh", "awsAuthRefresh": "aws sso login", "awsCredentialExport": "./bin/aws.sh",
  "gcpAuthRefresh": "gcloud auth application-default login", "otelHeadersHelper": "./bin/otel.sh",
  "statusLine": {"type": "command", "command": "./bin/status.sh"}, "subagentStatusLine": {"type": "command", "command": "./bin/sub.sh"},
  "fileSuggestion": {"type": "command", "command": "./bin/files.sh"},
  "enabledMcpjsonServers": ["db"], "disabledMcpjsonServers": ["off"]}`,
		".claude/settings.local.json": `{"statusLine": {"type": "command", "command": "./bin/mine.sh"}}`,
		".mcp.json":                   `{"mcpServers": {"db": {"command": "node", "args": ["server.js", "${HOME}/x"]}, "web": {"type": "http", "url": "https://mcp.example.test/"}, "off": {"command": "off"}}}`,
	}
}

// TestProjectServersNamed: the commands a project's settings name and
// the MCP servers of its .mcp.json, which Claude Code runs unsandboxed
// and vigiles does not, are each a finding: a warning that says whether
// the settings approve an MCP server, a notice where they turn it off
// (disabledMcpjsonServers). settings.local.json's statusLine is the one
// Claude Code runs.
// Before, vigiles said nothing of them.
func TestProjectServersNamed(t *testing.T) {
	dir := makeTree(t, projectServersTree())
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"notice discovery/mcp-server .mcp.json:1:141 turned off: .claude/settings.json lists it under disabledMcpjsonServers, so Claude Code does not start it while that holds; the project's .mcp.json declares the MCP server off, which Claude Code starts with every session and runs unsandboxed beside it: off; vigiles does not run MCP servers, so nothing of what it does is recorded: review it by hand",
		"warning discovery/mcp-server .mcp.json:1:17 approved by .claude/settings.json (enableAllProjectMcpServers or enabledMcpjsonServers), so Claude Code starts it without asking once the user trusts the folder: the project's .mcp.json declares the MCP server db, which Claude Code starts with every session and runs unsandboxed beside it: node server.js '${HOME}/x'; vigiles does not run MCP servers, so nothing of what it does is recorded: review it by hand",
		"warning discovery/mcp-server .mcp.json:1:80 not approved by the project's settings: Claude Code asks the user before it starts it in an interactive session, and starts it without asking in `claude -p` and the Agent SDK (what CI runs): the project's .mcp.json declares the remote MCP server web (http), which Claude Code connects to with every session: https://mcp.example.test/; vigiles does not connect to it, so nothing of what it is sent is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:2:3 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: apiKeyHelper, which it runs with /bin/sh for the key it sends with every model request: ./bin/key.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:2:35 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: awsAuthRefresh, which it runs to refresh the AWS credentials in ~/.aws it uses for Amazon Bedrock: aws sso login; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:2:70 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: awsCredentialExport, which it runs for the AWS credentials, as JSON, it uses for Amazon Bedrock: ./bin/aws.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:3:3 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: gcpAuthRefresh, which it runs to refresh the Google Cloud credentials it uses for Vertex AI: gcloud auth application-default login; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:3:62 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: otelHeadersHelper, which it runs at start-up and every so often for the headers of its OpenTelemetry exports: ./bin/otel.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:4:68 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: subagentStatusLine, which it runs for the status line of each subagent: ./bin/sub.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.json:5:3 the project's settings (.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook: fileSuggestion, which it runs for the @ file autocomplete, with the hooks' environment: ./bin/files.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
		"warning discovery/settings-command .claude/settings.local.json:1:2 the project's settings (.claude/settings.local.json) name a command Claude Code runs itself, unsandboxed and outside every hook: statusLine, which it runs for the status line, each time the conversation updates: ./bin/mine.sh; vigiles does not run it, so nothing of what it does is recorded: review it by hand",
	}
	if diff := cmp.Diff(want, projectServerLines(rep)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestProjectStatusLineOffWithHooks: disableAllHooks turns any custom
// status line off, and Claude Code runs neither statusLine nor
// subagentStatusLine: each is a notice; what it does not turn off
// (apiKeyHelper) stays a warning.
func TestProjectStatusLineOffWithHooks(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"disableAllHooks": true, "statusLine": {"type": "command", "command": "s"}, "subagentStatusLine": {"type": "command", "command": "u"}, "apiKeyHelper": "k"}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	sev := map[string]report.Severity{}
	for _, f := range rep.Findings {
		if f.Rule == RuleSettingsCommand {
			key, _, _ := strings.Cut(strings.SplitN(f.Message, "every hook: ", 2)[1], ",")
			sev[key] = f.Severity
			if f.Severity == report.SeverityNotice && !strings.HasPrefix(f.Message, "turned off: disableAllHooks is true in .claude/settings.json") {
				t.Errorf("notice %q does not say what turns it off", f.Message)
			}
		}
	}
	want := map[string]report.Severity{"statusLine": report.SeverityNotice, "subagentStatusLine": report.SeverityNotice, "apiKeyHelper": report.SeverityWarning}
	if diff := cmp.Diff(want, sev); diff != "" {
		t.Errorf("severities (-want +got):\n%s", diff)
	}
}

// TestProjectServersNested: a package's .claude (packages/app) is a
// project of its own, as its hooks are, and so are the commands its
// settings name and the servers of its .mcp.json; so are those of a
// directory with a .mcp.json and no .claude (packages/lib), which a
// session started there starts (the whole audit said nothing of them
// before, where an audit of packages/lib named them). A plugin's
// directory with no .claude (plugins/q) keeps its .mcp.json the
// plugin's; one with a .claude (plugins/p) is a project too, but a file
// of servers without "mcpServers" names none of the project's
// (TestProjectMCPOfAPluginRoot for one that has it).
func TestProjectServersNested(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"packages/app/.claude/settings.json":   `{"apiKeyHelper": "./key.sh", "enableAllProjectMcpServers": true}`,
		"packages/app/.mcp.json":               `{"mcpServers": {"db": {"command": "db"}}}`,
		"packages/lib/.mcp.json":               `{"mcpServers": {"lib": {"command": "lib"}}}`,
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/hooks/hooks.json":           serverStopHook,
		"plugins/p/.claude/settings.json":      `{}`,
		"plugins/p/.mcp.json":                  `{"ps": {"command": "ps-server"}}`,
		"plugins/q/.claude-plugin/plugin.json": `{"name": "q"}`,
		"plugins/q/.mcp.json":                  `{"mcpServers": {"qs": {"command": "qs-server"}}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleMCPServer || f.Rule == RuleSettingsCommand {
			got = append(got, f.Location.File+" "+strings.SplitN(f.Message, ":", 2)[0])
		}
	}
	sort.Strings(got)
	want := []string{
		"packages/app/.claude/settings.json the project packages/app's settings (packages/app/.claude/settings.json) name a command Claude Code runs itself, unsandboxed and outside every hook",
		"packages/app/.mcp.json approved by packages/app/.claude/settings.json (enableAllProjectMcpServers or enabledMcpjsonServers), so Claude Code starts it without asking once the user trusts the folder",
		"packages/lib/.mcp.json not approved by the project's settings",
		"plugins/p/.mcp.json plugin p declares the MCP server ps, which Claude Code starts with every session and runs unsandboxed beside it",
		"plugins/q/.mcp.json plugin q declares the MCP server qs, which Claude Code starts with every session and runs unsandboxed beside it",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestProjectMCPNeedsItsMember: a project's .mcp.json is read for its
// "mcpServers" alone, as Claude Code reads it; a file of servers without
// it (a plugin's form) names none, and a wrong type is an error.
func TestProjectMCPNeedsItsMember(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`{"db": {"command": "db"}}`, ""},
		{`{"mcpServers": ["x"]}`, "error discovery/wrong-type .mcp.json:1:16"},
		{`[]`, "error discovery/wrong-type .mcp.json:1:1"},
	} {
		dir := makeTree(t, map[string]string{".mcp.json": tc.file, ".claude/settings.json": `{}`})
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if f.Location.File == ".mcp.json" {
				got = append(got, findingLine(f))
			}
		}
		if want := strings.Fields(tc.want); tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 1 || got[0] != tc.want) {
			t.Errorf("%s: got %q, want %q", tc.file, got, want)
		}
	}
}

// TestBaselineKeepsProjectServers: --update-baseline keeps the projects'
// servers and settings commands Claude Code runs under
// "projectServers" (not one turned off); an audit against it accepts each
// as a notice, and a changed one is baseline/server-changed, a new one
// baseline/server-added, each an error; one gone is a
// baseline/server-removed notice.
func TestBaselineKeepsProjectServers(t *testing.T) {
	dir := makeTree(t, projectServersTree())
	serverAudit(t, dir, true)
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, bs := range b.ProjectServers {
		kept = append(kept, bs.Context+" "+bs.Plugin+" "+bs.Kind+":"+bs.Name+" "+bs.Type+" "+bs.Starts+" "+bs.File)
	}
	want := []string{
		"project:. project mcp:db stdio node server.js '${HOME}/x' .mcp.json",
		"project:. project mcp:web http https://mcp.example.test/ .mcp.json",
		"project:. project settings:apiKeyHelper  ./bin/key.sh .claude/settings.json",
		"project:. project settings:awsAuthRefresh  aws sso login .claude/settings.json",
		"project:. project settings:awsCredentialExport  ./bin/aws.sh .claude/settings.json",
		"project:. project settings:fileSuggestion  ./bin/files.sh .claude/settings.json",
		"project:. project settings:gcpAuthRefresh  gcloud auth application-default login .claude/settings.json",
		"project:. project settings:otelHeadersHelper  ./bin/otel.sh .claude/settings.json",
		"project:. project-local settings:statusLine  ./bin/mine.sh .claude/settings.local.json",
		"project:. project settings:subagentStatusLine  ./bin/sub.sh .claude/settings.json",
	}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("projectServers (-want +got):\n%s", diff)
	}
	if b.Servers == nil || len(b.Servers) != 0 {
		t.Errorf("servers = %v, want []", b.Servers)
	}

	rep := serverAudit(t, dir, false)
	if rep.Verdict != report.VerdictPass {
		t.Errorf("verdict %s against the baseline that keeps them, want pass: %v", rep.Verdict, projectServerLines(rep))
	}
	for _, l := range projectServerLines(rep) {
		if !strings.HasPrefix(l, "notice ") || !strings.Contains(l, "accepted in the baseline as it is: ") && !strings.Contains(l, "turned off") {
			t.Errorf("not accepted: %s", l)
		}
	}

	// Changed, added, removed.
	rewrite(t, dir, ".claude/settings.local.json", `{"statusLine": {"type": "command", "command": "./bin/other.sh"}}`)
	rewrite(t, dir, ".mcp.json", `{"mcpServers": {"db": {"command": "node", "args": ["server.js", "${HOME}/x"]}, "new": {"command": "n"}}}`)
	rep = serverAudit(t, dir, false)
	var drift []string
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, RuleDriftPrefix+"server-") {
			drift = append(drift, string(f.Severity)+" "+f.Rule+" "+f.Message)
		}
	}
	sort.Strings(drift)
	wantDrift := []string{
		"error baseline/server-added new MCP server new of the project, not in the baseline, which Claude Code starts unsandboxed and vigiles does not run, so nothing of what it does is audited: n",
		"error baseline/server-changed settings command statusLine of the project now starts otherwise than the baseline accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: ./bin/other.sh",
		"notice baseline/server-removed MCP server web of the project is in the baseline, but the project declares it no more",
	}
	if diff := cmp.Diff(wantDrift, drift); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", rep.Verdict)
	}
	for _, d := range rep.Drift {
		if d.Kind == DriftServerChanged && d.Hook != "project:.#settings:statusLine" {
			t.Errorf("drift subject %q, want project:.#settings:statusLine", d.Hook)
		}
	}
}

// TestBaselineWithoutProjectServers: a baseline written before vigiles
// kept the projects' servers (it has "servers" but no "projectServers")
// accepts none of them and refuses none: each stays the warning it is
// without a baseline, and says --update-baseline keeps it; the audit
// fails on baseline/outdated alone, which names that update. A plugin's
// server there is compared as before.
func TestBaselineWithoutProjectServers(t *testing.T) {
	files := projectServersTree()
	files[serversBase] = `{"schema": "vigiles.baseline/v1", "runs": {".claude/settings.json#hooks.Stop[0].hooks[0]": {"plugin": "project", "event": "Stop", "command": "true", "context": "project:.", "outcome": "allowed", "hosts": [], "writes": [], "deleted": [], "file": ".claude/settings.json"}}, "servers": []}`
	dir := makeTree(t, files)
	rep := serverAudit(t, dir, false)
	lines := projectServerLines(rep)
	if len(lines) == 0 {
		t.Fatal("no findings")
	}
	for _, l := range lines {
		if strings.Contains(l, "baseline/server-") {
			t.Errorf("drift against a baseline without projectServers: %s", l)
		}
		if strings.HasPrefix(l, "warning ") && !strings.HasSuffix(l, "written before vigiles kept a project's MCP servers and settings commands, does not keep it: `vigiles audit --update-baseline` keeps it (review its diff), and later audits compare it") {
			t.Errorf("warning does not say the baseline does not keep it: %s", l)
		}
	}
	onlyOutdatedFails(t, rep)
}

// onlyOutdatedFails fails t unless rep fails on one error, a
// baseline/outdated one, and has no drift.
func onlyOutdatedFails(t *testing.T, rep *report.Report) {
	t.Helper()
	var errs []string
	for _, f := range rep.Findings {
		if f.Severity == report.SeverityError {
			errs = append(errs, f.Rule)
		}
	}
	if rep.Verdict == report.VerdictPass || len(errs) != 1 || errs[0] != RuleBaselineOutdated || len(rep.Drift) != 0 {
		t.Errorf("verdict %s, errors %v, drift %d; want a fail on baseline/outdated alone: %v", rep.Verdict, errs, len(rep.Drift), findingLines(rep.Findings))
	}
}

// TestBaselineProjectServersRefused: a "projectServers" entry of a
// plugin's context, or of a plugin's kind, is baseline/invalid.
func TestBaselineProjectServersRefused(t *testing.T) {
	for _, entry := range []string{
		`{"plugin": "a", "context": "plugin:a", "kind": "mcp", "name": "s", "starts": "x", "file": ".mcp.json"}`,
		`{"plugin": "project", "context": "project:.", "kind": "monitor", "name": "s", "starts": "x", "file": ".mcp.json"}`,
	} {
		p := filepath.Join(t.TempDir(), "b.json")
		if err := os.WriteFile(p, []byte(`{"schema": "vigiles.baseline/v1", "runs": {}, "projectServers": [`+entry+`]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadBaseline(p); err == nil {
			t.Errorf("%s: loaded", entry)
		}
	}
}

// TestSettingsCommandOfAnotherForm: a settings command's value of a form
// Claude Code's schema does not take (a status line given as a string, a
// type other than "command", a helper that is no string) is a
// discovery/wrong-type error, as a server the schema refuses is: vigiles
// cannot tell what Claude Code runs for it, and it was silence before.
// Members besides type and command do not hide the command; a value the
// local file gives in another form leaves the shared file's named.
func TestSettingsCommandOfAnotherForm(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"apiKeyHelper": ["./key.sh"], "statusLine": "./status.sh",
  "subagentStatusLine": {"type": "shell", "command": "./sub.sh"}, "fileSuggestion": {"command": "./files.sh"},
  "awsAuthRefresh": null, "gcpAuthRefresh": {"type": "command", "command": "./g.sh"},
  "otelHeadersHelper": "./otel.sh", "awsCredentialExport": ""}`,
		".claude/settings.local.json": `{"otelHeadersHelper": {"type": "command", "command": "./o.sh"},
  "statusLine": {"type": "command", "command": "./mine.sh", "padding": 2, "refreshInterval": 5}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleWrongType:
			got = append(got, findingLine(f)+" "+strings.SplitN(f.Message, ": vigiles cannot tell", 2)[0])
		case RuleSettingsCommand:
			key, _, _ := strings.Cut(strings.SplitN(f.Message, "every hook: ", 2)[1], ",")
			got = append(got, findingLine(f)+" "+key)
		}
	}
	sort.Strings(got)
	want := []string{
		`error discovery/wrong-type .claude/settings.json:1:2 apiKeyHelper: want a string, the command, found an array`,
		`error discovery/wrong-type .claude/settings.json:1:32 statusLine: want {"type": "command", "command": STRING}, found a string`,
		`error discovery/wrong-type .claude/settings.json:2:3 subagentStatusLine: want {"type": "command", "command": STRING}, found the type shell`,
		`error discovery/wrong-type .claude/settings.json:2:67 fileSuggestion: want {"type": "command", "command": STRING}, found no "type"`,
		`error discovery/wrong-type .claude/settings.json:3:27 gcpAuthRefresh: want a string, the command, found an object`,
		`error discovery/wrong-type .claude/settings.json:3:3 awsAuthRefresh: want a string, the command, found null`,
		`error discovery/wrong-type .claude/settings.local.json:1:2 otelHeadersHelper: want a string, the command, found an object`,
		`warning discovery/settings-command .claude/settings.json:4:3 otelHeadersHelper`,
		`warning discovery/settings-command .claude/settings.local.json:2:3 statusLine`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestProjectMCPOfAPluginRoot: a repository that is a plugin (its root
// holds a manifest or hooks/hooks.json) has its .mcp.json read by Claude
// Code twice: as the plugin's where it is installed, and as the
// project's in a session started there, whatever enabledPlugins says.
// Before, vigiles named it as the plugin's alone, so a pull request that
// made the root a plugin and set it false under enabledPlugins turned the
// server into a notice no baseline kept, while Claude Code started it in
// every session of the project.
func TestProjectMCPOfAPluginRoot(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude-plugin/plugin.json": `{"name": "p"}`,
		"hooks/hooks.json":           serverStopHook,
		".mcp.json":                  `{"mcpServers": {"db": {"command": "db"}}}`,
		".claude/settings.json":      `{"enabledPlugins": {"p@m": false}}`,
	})
	serverAudit(t, dir, true)
	b, err := LoadBaseline(filepath.Join(dir, serversBase))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, bs := range b.ProjectServers {
		kept = append(kept, bs.Context+" "+bs.Kind+":"+bs.Name+" "+bs.Starts)
	}
	if diff := cmp.Diff([]string{"project:. mcp:db db"}, kept); diff != "" {
		t.Errorf("projectServers (-want +got):\n%s", diff)
	}
	rewrite(t, dir, ".mcp.json", `{"mcpServers": {"db": {"command": "db"}, "evil": {"command": "evil"}}}`)
	rep := serverAudit(t, dir, false)
	var got []string
	for _, l := range projectServerLines(rep) {
		got = append(got, strings.SplitN(l, ": ", 2)[0])
	}
	want := []string{
		"error baseline/server-added .mcp.json:1:42 new MCP server evil of the project, not in the baseline, which Claude Code starts unsandboxed and vigiles does not run, so nothing of what it does is audited",
		"notice discovery/mcp-server .mcp.json:1:17 accepted in the baseline as it is",
		"notice discovery/mcp-server .mcp.json:1:17 turned off",
		"notice discovery/mcp-server .mcp.json:1:42 turned off",
		"warning discovery/mcp-server .mcp.json:1:42 not approved by the project's settings",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", rep.Verdict)
	}
}

// TestSettingsCommandGivenTwice: a settings command's key given twice
// (or its object's "command" or "type") is a discovery/malformed warning
// at the later one, as a server's is: Claude Code runs the last, which
// the finding names, but a reader of the diff meets the first. Before,
// only "hooks" given twice was said.
func TestSettingsCommandGivenTwice(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"apiKeyHelper": "./key.sh",
  "statusLine": {"type": "command", "command": "./status.sh", "command": "./other.sh"},
  "apiKeyHelper": "./evil.sh"}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleMalformed:
			got = append(got, findingLine(f)+" "+f.Message)
		case RuleSettingsCommand:
			got = append(got, findingLine(f)+" "+f.Message[strings.LastIndex(f.Message, ": ./")+2:strings.Index(f.Message, "; vigiles")])
		}
	}
	sort.Strings(got)
	want := []string{
		`warning discovery/malformed .claude/settings.json:2:63 "command" of statusLine is declared again here (first on line 2); Claude Code reads only the last one, so the one declared before is ignored: keep one`,
		`warning discovery/malformed .claude/settings.json:3:3 "apiKeyHelper" is declared again here (first on line 1); Claude Code reads only the last one, so the one declared before is ignored: keep one`,
		`warning discovery/settings-command .claude/settings.json:2:3 ./other.sh`,
		`warning discovery/settings-command .claude/settings.json:3:3 ./evil.sh`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}

// TestProjectMCPOfAPluginRootInThePluginsForm: a repository that is a
// plugin may write its .mcp.json in a form only plugins take (an array of
// servers, or one under "mcpServers"). Read as the project's too, it was a
// discovery/wrong-type error, and failed every audit of such a plugin;
// Claude Code starts nothing of it as the project's, and the plugin's
// reading names its servers.
func TestProjectMCPOfAPluginRootInThePluginsForm(t *testing.T) {
	for _, file := range []string{`[{"command": "db"}]`, `{"mcpServers": [{"command": "db"}]}`} {
		dir := makeTree(t, map[string]string{
			".claude-plugin/plugin.json": `{"name": "p"}`,
			"hooks/hooks.json":           serverStopHook,
			".mcp.json":                  file,
		})
		rep := serverAudit(t, dir, false)
		for _, f := range rep.Findings {
			if f.Severity == report.SeverityError {
				t.Errorf("%s: %s %v %s", file, f.Rule, f.Location, f.Message)
			}
		}
		if !hasFinding(rep.Findings, RuleMCPServer, "plugin p declares the MCP server 0") {
			t.Errorf("%s: the plugin's server is not named: %v", file, findingLines(rep.Findings))
		}
	}
}
