package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestNoHooksWhereClaudeCodeLoadsSomething: an audit path that holds what
// Claude Code loads but declares no hook (a plugin of MCP servers only, a
// project's settings of permissions only, a status line) is a
// discovery/no-hooks warning that names what it found (a plugin by its
// name, as other findings name it, and where it lies), and the audit can
// pass on the rest of its findings; a path that holds nothing of Claude
// Code's stays an error that says where vigiles looked.
func TestNoHooksWhereClaudeCodeLoadsSomething(t *testing.T) {
	mcpOnly := map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		"plugins/p/.mcp.json":                  `{"mcpServers": {"s": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.js"]}}}`,
		"plugins/p/server.js":                  "x\n",
		"docs/README.md":                       "hi\n",
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		paths []string
		sev   report.Severity
		want  string
		fail  bool // another finding fails the audit
	}{
		{name: "a plugin of MCP servers only", files: mcpOnly, sev: report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin p at plugins/p; 1 server or command that Claude Code runs itself, named in its own finding)"},
		{name: "its directory audited", files: mcpOnly, paths: []string{"plugins/p"}, sev: report.SeverityWarning,
			want: "no hooks are declared under plugins/p, so the audit ran no hook: what Claude Code loads from it declares none (plugin p at plugins/p; 1 server or command that Claude Code runs itself, named in its own finding)"},
		{name: "a directory beside it audited", files: mcpOnly, paths: []string{"docs"}, sev: report.SeverityError},
		{name: "permissions only", files: map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(ls)"]}}`, ".claude/settings.local.json": `{}`},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (settings .claude/settings.json, settings .claude/settings.local.json)"},
		{name: "a status line", files: map[string]string{".claude/settings.json": `{"statusLine": {"type": "command", "command": "echo hi"}}`},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (settings .claude/settings.json; 1 server or command that Claude Code runs itself, named in its own finding)"},
		{name: "six plugins", files: map[string]string{
			"a/.claude-plugin/plugin.json": `{"name": "a"}`, "b/.claude-plugin/plugin.json": `{"name": "b"}`,
			"c/.claude-plugin/plugin.json": `{"name": "c"}`, "d/.claude-plugin/plugin.json": `{"name": "d"}`,
			"e/.claude-plugin/plugin.json": `{"name": "e"}`, "f/.claude-plugin/plugin.json": `{"name": "f"}`,
		}, sev: report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin a, plugin b, plugin c, plugin d, plugin e and 1 more)"},
		{name: "a plugin at the root", files: map[string]string{".claude-plugin/plugin.json": `{"name": "aria"}`, "commands/x.md": "---\ndescription: x\n---\nhi\n"},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin aria at the work tree's root)"},
		{name: "a plugin named otherwise than its directory", files: map[string]string{"plugins/.claude-plugin/plugin.json": `{"name": "noxa"}`},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin noxa at plugins)"},
		{name: "a plugin of servers, one of them broken", files: map[string]string{
			"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
			"plugins/p/.mcp.json":                  `{"mcpServers": {"s": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/server.js"]}, "h": {"type": "streamable-http", "url": "http://localhost:1/mcp"}}}`,
			"plugins/p/server.js":                  "x\n",
		}, sev: report.SeverityWarning, fail: true,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin p at plugins/p; 1 server or command that Claude Code runs itself, named in its own finding)"},
		{name: "a project's skills only", files: map[string]string{".claude/skills/x/SKILL.md": "---\nname: x\ndescription: y\n---\nhi\n", ".claude/agents/a.md": "---\nname: a\ndescription: b\n---\nhi\n"},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (skills .claude/skills, agents .claude/agents)"},
		{name: "an empty skills directory", files: map[string]string{".claude/skills/": ""}, sev: report.SeverityError},
		{name: "nothing of Claude Code's", files: map[string]string{"README.md": "hi\n"}, sev: report.SeverityError},
		{name: "an empty .claude", files: map[string]string{".claude/": ""}, sev: report.SeverityError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			rep, err := Audit(context.Background(), Options{Dir: dir, Paths: tc.paths, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleNoHooks {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.sev || tc.want != "" && got[0].Message != tc.want {
				t.Fatalf("no-hooks findings %v, want one %s: %s", findingLines(got), tc.sev, tc.want)
			}
			wantVerdict := report.VerdictPass
			if tc.sev == report.SeverityError || tc.fail {
				wantVerdict = report.VerdictFail
			}
			if rep.Verdict != wantVerdict {
				t.Errorf("verdict %s, want %s: %v", rep.Verdict, wantVerdict, findingLines(rep.Findings))
			}
		})
	}
}

// TestNoHooksNamesStrayDeclarations: a tree with no hooks where Claude
// Code loads them, but JSON files that declare hooks in its form
// elsewhere (an installer's sources), is still an error, which names
// them and how to audit them; JSON with another "hooks", or under
// node_modules or a dot-directory, is not named.
func TestNoHooksNamesStrayDeclarations(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}}`
	dir := makeTree(t, map[string]string{
		"settings.hooks.json":               hooks,
		"profiles/_base/settings.base.json": hooks,
		"package.json":                      `{"name": "x", "hooks": {"pre-commit": "lint"}}`,
		"node_modules/y/settings.json":      hooks,
		".github/claude/settings.json":      hooks,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	want := "no hooks were found in the work tree where Claude Code loads them, so the audit ran nothing; profiles/_base/settings.base.json, settings.hooks.json declare hooks in Claude Code's form, but Claude Code does not load them from there"
	if len(rep.Findings) != 1 || rep.Findings[0].Rule != RuleNoHooks || rep.Findings[0].Severity != report.SeverityError ||
		!strings.HasPrefix(rep.Findings[0].Message, want) {
		t.Errorf("findings %v\nwant one error starting %q", findingLines(rep.Findings), want)
	}
}

// TestNoHooksLeavesOutTestData: hooks files in Claude Code's form under
// a test's directories (a plugin's tests/fixtures/…/hooks.json, a
// testdata/) are a test's input, which neither Claude Code loads nor an
// installer puts in place: discovery/no-hooks names an installer's file
// beside them alone, and they do not take its place among the five it
// names. An audit of a test directory itself names what is there.
func TestNoHooksLeavesOutTestData(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}}`
	files := map[string]string{
		".claude-plugin/plugin.json":   `{"name": "p"}`,
		"skills/s/SKILL.md":            "---\nname: s\ndescription: s\n---\nhi\n",
		"examples/settings.hooks.json": hooks,
	}
	for _, d := range []string{"tests/fixtures/a", "tests/fixtures/b", "test/c", "testdata/d", "src/__tests__/e", "src/__fixtures__/f"} {
		files[d+"/hooks.json"] = hooks
	}
	dir := makeTree(t, files)
	for _, tc := range []struct{ path, want string }{
		{"", "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (plugin p at the work tree's root); examples/settings.hooks.json declares hooks in Claude Code's form"},
		{"tests", "no hooks were found under tests where Claude Code loads them, so the audit ran nothing; tests/fixtures/a/hooks.json, tests/fixtures/b/hooks.json declare hooks in Claude Code's form"},
	} {
		o := Options{Dir: dir, Executor: fakeHooks()}
		if tc.path != "" {
			o.Paths = []string{tc.path}
		}
		rep, err := Audit(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range rep.Findings {
			if f.Rule == RuleNoHooks {
				n++
				if !strings.HasPrefix(f.Message, tc.want) {
					t.Errorf("audit of %q: no-hooks %q\nwant it to start %q", tc.path, f.Message, tc.want)
				}
			}
		}
		if n != 1 {
			t.Errorf("audit of %q: %d no-hooks findings; want 1: %v", tc.path, n, findingLines(rep.Findings))
		}
	}
}

// TestNoHooksNamesAProjectsHooksFile: a hooks file put in a project's
// .claude as if it were a plugin's (.claude/hooks/hooks.json, found in
// hundreds of public repositories) is not where Claude Code reads a
// project's hooks, so none of them runs; discovery/no-hooks names it,
// in the error of a tree with nothing else and in the warning of one
// whose settings declare no hook, where it said only what was searched,
// or named the settings alone.
func TestNoHooksNamesAProjectsHooksFile(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo guard"}]}]}}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		sev   report.Severity
		want  string
	}{
		{name: "alone", files: map[string]string{".claude/hooks/hooks.json": hooks}, sev: report.SeverityError,
			want: "no hooks were found in the work tree where Claude Code loads them, so the audit ran nothing; .claude/hooks/hooks.json declares hooks in Claude Code's form, but Claude Code does not load them from there"},
		{name: "a package's", files: map[string]string{"web/.claude/hooks.json": hooks, "web/.claude/settings.json": `{"permissions": {}}`}, sev: report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (settings web/.claude/settings.json); web/.claude/hooks.json declares hooks in Claude Code's form, but Claude Code does not load them from there"},
		{name: "beside settings of permissions", files: map[string]string{".claude/hooks/hooks.json": hooks, ".claude/settings.local.json": `{"permissions": {"allow": ["Bash(ls:*)"]}}`},
			sev:  report.SeverityWarning,
			want: "no hooks are declared in the work tree, so the audit ran no hook: what Claude Code loads from it declares none (settings .claude/settings.local.json); .claude/hooks/hooks.json declares hooks in Claude Code's form, but Claude Code does not load them from there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleNoHooks {
					got = append(got, f)
				}
			}
			if len(got) != 1 || got[0].Severity != tc.sev || !strings.HasPrefix(got[0].Message, tc.want) {
				t.Errorf("findings %v\nwant one no-hooks %s starting %q", findingLines(rep.Findings), tc.sev, tc.want)
			}
		})
	}
}

// TestProjectHooksFileNotLoaded: a hooks file in a project's .claude
// (.claude/hooks/hooks.json, .claude/hooks.json) beside settings whose
// hooks run is a discovery/missing-file warning at it, naming where the
// project's hooks go, where the audit passed without a word of it; one
// that a marketplace lists as a plugin's is read as that plugin's, and
// one of another tool's form is left alone.
func TestProjectHooksFileNotLoaded(t *testing.T) {
	hooks := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo guard"}]}]}}`
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // rule and place of each finding
		msg   string
		runs  int
	}{
		{name: "beside the settings' hooks", files: map[string]string{".claude/settings.json": settings, ".claude/hooks/hooks.json": hooks},
			want: []string{"warning discovery/missing-file .claude/hooks/hooks.json:0:0"},
			msg:  ".claude/hooks/hooks.json is not where Claude Code reads a project's hooks (its .claude/settings.json and .claude/settings.local.json; a hooks file is a plugin's), so none of its hooks runs, and vigiles runs none: move its \"hooks\" into .claude/settings.json",
			runs: 1},
		{name: "a package's", files: map[string]string{".claude/settings.json": settings, "web/.claude/hooks.json": hooks, "web/.claude/settings.json": `{}`},
			want: []string{"warning discovery/missing-file web/.claude/hooks.json:0:0"},
			msg:  "web/.claude/hooks.json is not where Claude Code reads a project's hooks (its .claude/settings.json and .claude/settings.local.json; a hooks file is a plugin's), so none of its hooks runs, and vigiles runs none: move its \"hooks\" into web/.claude/settings.json",
			runs: 1},
		{name: "a marketplace's plugin", files: map[string]string{".claude/hooks/hooks.json": hooks,
			".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "dot", "source": "./.claude", "strict": false}]}`},
			runs: 1},
		{name: "another tool's", files: map[string]string{".claude/settings.json": settings, ".claude/hooks/hooks.json": `{"hooks": {"pre-commit": "lint"}}`},
			runs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, tc.files)
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			msg := ""
			for _, f := range rep.Findings {
				if f.Rule == "baseline/missing" {
					continue
				}
				got = append(got, fmt.Sprintf("%s %s %s:%d:%d", f.Severity, f.Rule, f.Location.File, f.Location.Line, f.Location.Column))
				msg = f.Message
			}
			if !slices.Equal(got, tc.want) || tc.msg != "" && msg != tc.msg {
				t.Errorf("findings %v\nwant %v: %s", findingLines(rep.Findings), tc.want, tc.msg)
			}
			if len(rep.Runs) != tc.runs {
				t.Errorf("%d runs, want %d", len(rep.Runs), tc.runs)
			}
		})
	}
}
