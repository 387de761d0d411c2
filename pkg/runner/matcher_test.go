package runner

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

func TestMatcher(t *testing.T) {
	tests := []struct {
		matcher string
		name    string
		want    bool
		invalid bool
	}{
		{"", "Bash", true, false},
		{"*", "mcp__x__y", true, false},
		{".*", "Write", true, false},
		{"Bash", "Bash", true, false},
		{"Bash", "BashOutput", false, false}, // exact, not a prefix
		{"Bash", "bash", false, false},       // case-sensitive
		{"Edit|Write", "Write", true, false},
		{"Edit|Write", "MultiEdit", false, false}, // a list of exact names
		{"Edit|Write", "Edit", true, false},
		{"mcp__memory", "mcp__memory__create", false, false}, // exact: matches no tool
		{"mcp__memory__.*", "mcp__memory__create", true, false},
		{"Notebook.*", "NotebookEdit", true, false},
		{"Notebook.*", "MyNotebookEdit", true, false}, // unanchored regex
		{"^Write$", "Write", true, false},
		{"^Write$", "WriteFile", false, false},
		{"Web(Fetch|Search)", "WebSearch", true, false},
		{"Bash(", "Bash", false, true}, // invalid regex never matches
		{"[", "[", false, true},
		{"startup|resume", "resume", true, false},
		{"my-agent", "my-agent", true, false},
		{"my-agent", "my-agents", false, false},
		// ',' separates too, with optional whitespace around each name.
		{"Edit, Write", "Edit", true, false},
		{"Edit, Write", "Write", true, false},
		{"Edit, Write", "MultiEdit", false, false},
		{"Edit,Write", "Write", true, false},
		{"Edit | Write", "Write", true, false},
		{" Edit ,Write ", "Edit", true, false},
		{"Edit, Write", "Edit, Write", false, false},
	}
	for _, tc := range tests {
		m, err := CompileMatcher(tc.matcher)
		if (err != nil) != tc.invalid {
			t.Errorf("CompileMatcher(%q) error = %v, want invalid=%v", tc.matcher, err, tc.invalid)
		}
		if got := m.Match(tc.name); got != tc.want {
			t.Errorf("matcher %q on %q = %v, want %v", tc.matcher, tc.name, got, tc.want)
		}
	}
}

// TestMatcherNarrowEvents: FileChanged and StopFailure compare only
// letters, digits, '_' and '|' as exact names; a ',' , space or '-' puts
// the matcher on the regular-expression path.
func TestMatcherNarrowEvents(t *testing.T) {
	tests := []struct {
		event, matcher, name string
		want                 bool
	}{
		{FileChanged, "envrc|env", "env", true},
		{FileChanged, "envrc|env", "xenv", false},
		{FileChanged, "a,b", "a,b", true},          // a regex matching itself
		{FileChanged, "a,b", "a", false},           // not a list
		{FileChanged, "my-file", "xmy-file", true}, // unanchored regex
		{PreToolUse, "a,b", "a", true},
	}
	for _, tc := range tests {
		m, err := compileMatcherFor(tc.event, tc.matcher)
		if err != nil {
			t.Fatalf("%s matcher %q: %v", tc.event, tc.matcher, err)
		}
		if got := m.Match(tc.name); got != tc.want {
			t.Errorf("%s matcher %q on %q = %v, want %v", tc.event, tc.matcher, tc.name, got, tc.want)
		}
	}
	h := &Hook{Event: PreToolUse, Matcher: "Edit, Write", HasMatcher: true, Type: TypeCommand, Command: "x"}
	ps, why := toolsFor(h, nil, "/w")
	var tools []string
	for _, p := range ps {
		tools = append(tools, p.Tool)
	}
	if len(tools) != 2 || tools[0] != "Edit" || tools[1] != "Write" {
		t.Errorf("toolsFor(%q) = %v (%s), want [Edit Write]", h.Matcher, tools, why)
	}
}

func TestIfCondition(t *testing.T) {
	bash := func(c string) map[string]any { return map[string]any{"command": c} }
	file := func(p string) map[string]any { return map[string]any{"file_path": p} }
	tests := []struct {
		cond, event, tool string
		input             map[string]any
		want              bool
	}{
		{"", PreToolUse, "Bash", bash("ls"), true},
		{"Bash", PreToolUse, "Bash", bash("ls"), true},
		{"Bash(*)", PreToolUse, "Bash", bash("ls"), true},
		{"Bash(git *)", PreToolUse, "Bash", bash("git push"), true},
		{"Bash(git *)", PreToolUse, "Bash", bash("gitk"), false},
		{"Bash(git *)", PreToolUse, "Bash", bash("ls && git push --force"), true}, // compound
		{"Bash(git *)", PreToolUse, "Bash", bash("FOO=1 git status"), true},       // env prefix
		{"Bash(rm -rf:*)", PreToolUse, "Bash", bash("rm -rf /"), true},            // legacy prefix
		{"Bash(npm run build)", PreToolUse, "Bash", bash("npm run build"), true},
		{"Bash(npm run build)", PreToolUse, "Bash", bash("npm run build:prod"), false},
		{"Bash(git *)", PreToolUse, "Write", file("/x/a.go"), false}, // other tool
		{"Edit(*.ts)", PostToolUse, "Edit", file("/repo/src/a.ts"), true},
		{"Edit(*.ts)", PostToolUse, "Edit", file("/repo/src/a.go"), false},
		{"Edit(src/**)", PostToolUse, "Edit", file("/repo/src/deep/a.go"), true},
		{"Edit(src/**)", PostToolUse, "Edit", file("/repo/lib/a.go"), false},
		// A single-segment dir/** is the cwd's dir only (Claude Code
		// 2.1.214 and later); **/dir/** is any depth.
		{"Edit(src/**)", PostToolUse, "Edit", file("/repo/packages/web/src/a.go"), false},
		{"Edit(./src/**)", PostToolUse, "Edit", file("/repo/packages/web/src/a.go"), false},
		{"Edit(src/**)", PostToolUse, "Edit", file("packages/web/src/a.go"), false},
		{"Edit(src/**)", PostToolUse, "Edit", file("src/a.go"), true},
		{"Edit(**/src/**)", PostToolUse, "Edit", file("/repo/packages/web/src/a.go"), true},
		{"Edit(src/**)", PostToolUse, "Edit", file("/repository/src/a.go"), false},
		{"Write(//etc/*)", PreToolUse, "Write", file("/etc/passwd"), true},
		// ~/ is the home directory payloads name, the sandbox's HOME.
		{"Read(~/.ssh/**)", PreToolUse, "Read", file(sandbox.Home + "/.ssh/id_rsa"), true},
		{"Read(~/.ssh/**)", PreToolUse, "Read", file("/repo/.ssh/id_rsa"), false},
		{"WebFetch(domain:example.test)", PreToolUse, "WebFetch", map[string]any{"url": "https://example.test/x"}, true},
		{"WebFetch(domain:example.test)", PreToolUse, "WebFetch", map[string]any{"url": "https://evil.test/x"}, false},
		{"Skill(commit)", PreToolUse, "Skill", map[string]any{"skill": "commit", "args": "-m x"}, true},
		{"Skill(deploy *)", PreToolUse, "Skill", map[string]any{"skill": "deploy", "args": "prod"}, true},
		{"Skill(plugin:*)", PreToolUse, "Skill", map[string]any{"skill": "plugin:review", "args": ""}, true},
		{"Skill(commit)", PreToolUse, "Skill", map[string]any{"skill": "review-pr", "args": "123"}, false},
		{"mcp__github", PreToolUse, "mcp__github__create_issue", nil, true}, // a server's every tool
		{"mcp__github__*", PreToolUse, "mcp__github__create_issue", nil, true},
		{"mcp__github", PreToolUse, "mcp__github_enterprise__x", nil, false},
		{"mcp__github(x)", PreToolUse, "mcp__github__create_issue", nil, false},
		{"Bash(git *)", Stop, "", nil, false},                  // never runs on a non-tool event
		{"Bash(git *", PreToolUse, "Bash", bash("git"), false}, // unparsable never matches
		{"Bash(git *)", PermissionRequest, "Bash", bash("git log"), true},
		{"Bash(git *)", PostToolUseFailure, "Bash", bash("git log"), true},
		// The reference's "Bash matching" table: commands inside $() and
		// backticks are checked; a specifier naming more than the command
		// fails open on a substitution or $VAR; an unparsable command
		// matches.
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo $(rm -rf /)"), true},
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo `rm -rf /`"), true},
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo $(ls $(rm -rf /))"), true},
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo $(date)"), false},
		{"Bash(git push *)", PreToolUse, "Bash", bash("echo $(date)"), true},
		{"Bash(git push *)", PreToolUse, "Bash", bash("echo `date`"), true},
		{"Bash(git push *)", PreToolUse, "Bash", bash("echo $HOME"), true},
		{"Bash(git push *)", PreToolUse, "Bash", bash("echo hi"), false},
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo $(date"), true},
		{"Bash(rm *)", PreToolUse, "Bash", bash("echo `date"), true},
	}
	for _, tc := range tests {
		if got := IfMatches(tc.cond, tc.event, tc.tool, "/repo", tc.input); got != tc.want {
			t.Errorf("if %q on %s %s %v = %v, want %v", tc.cond, tc.event, tc.tool, tc.input, got, tc.want)
		}
	}
}

// TestDecideReadsBase64Output checks that output the result had to base64
// (not valid UTF-8) is decided on and quoted as the hook wrote it: one stray
// byte must neither hide a JSON decision nor turn the reason a hook blocks
// with into base64.
func TestDecideReadsBase64Output(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name, stdout, stderr string
		code                 int
		want, reason         string
	}{
		{"exit 2 quotes stderr", "", "do not push to main \xff\n", 2, report.OutcomeBlocked, "exit status 2: do not push to main \uFFFD"},
		{"a JSON deny is read", "{\"decision\":\"block\",\"reason\":\"no \xff\"}", "", 0, report.OutcomeBlocked, "decision block: no \uFFFD"},
	}
	for _, tc := range tests {
		res := &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: tc.code}
		if tc.stdout != "" {
			res.Stdout, res.StdoutEncoding = b64([]byte(tc.stdout)), "base64"
		}
		if tc.stderr != "" {
			res.Stderr, res.StderrEncoding = b64([]byte(tc.stderr)), "base64"
		}
		d := Decide(PreToolUse, res, nil)
		if d.Outcome != tc.want || d.Reason != tc.reason {
			t.Errorf("%s: %s %q, want %s %q", tc.name, d.Outcome, d.Reason, tc.want, tc.reason)
		}
	}
}

func TestDecide(t *testing.T) {
	res := func(code int, stdout, stderr string) *sandbox.Result {
		return &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: code, Stdout: stdout, Stderr: stderr}
	}
	const (
		denyPre  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"nope"}}`
		nonBlock = ": a non-blocking error, the agent carries on"
	)
	tests := []struct {
		name   string
		event  string // PreToolUse when ""
		res    *sandbox.Result
		err    error
		want   string
		reason string
	}{
		{"exit 0, no output", "", res(0, "", ""), nil, report.OutcomeAllowed, ""},
		{"exit 0, plain text", "", res(0, "all good\n", ""), nil, report.OutcomeAllowed, ""},
		{"exit 2 blocks", "", res(2, "", "rm -rf is dangerous\n"), nil, report.OutcomeBlocked, "exit status 2: rm -rf is dangerous"},
		{"exit 2 ignores JSON allow", "", res(2, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "no"), nil, report.OutcomeBlocked, "exit status 2: no"},
		{"exit 2 takes the JSON's reason", "", res(2, denyPre, "stderr text"), nil, report.OutcomeBlocked, "exit status 2: permissionDecision deny: nope"},
		{"exit 2 with invalid JSON takes stderr", "", res(2, `{"decision":"deny","reason":"r"}`, "stderr text"), nil, report.OutcomeBlocked, "exit status 2: stderr text"},
		{"exit 1 is non-blocking", "", res(1, "", "oops"), nil, report.OutcomeAllowed, "exit status 1" + nonBlock},
		{"exit 1 plain text is non-blocking", "", res(1, "denied!\n", "oops"), nil, report.OutcomeAllowed, "exit status 1" + nonBlock},
		{"exit 1 with deny JSON blocks", "", res(1, denyPre, ""), nil, report.OutcomeBlocked, "permissionDecision deny: nope"},
		{"exit 3 with decision block blocks", UserPromptSubmit, res(3, `{"decision":"block","reason":"secret"}`, ""), nil, report.OutcomeBlocked, "decision block: secret"},
		{"permissionDecision deny", "", res(0, denyPre, ""), nil, report.OutcomeBlocked, "permissionDecision deny: nope"},
		{"permissionDecision allow", "", res(0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, ""), nil, report.OutcomeAllowed, "permissionDecision allow: the call skips the permission prompt, but not the settings' rules: a deny rule still refuses it, an ask rule still asks"},
		{"PreToolUse deprecated decision approve", "", res(0, `{"decision":"approve"}`, ""), nil, report.OutcomeAllowed, "decision approve (permissionDecision allow): the call skips the permission prompt, but not the settings' rules: a deny rule still refuses it, an ask rule still asks"},
		{"permissionDecision ask", "", res(0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask"}}`, ""), nil, report.OutcomeAllowed, "permissionDecision ask: the agent asks the user"},
		// passthrough is Claude Code's own behaviour of a hook that makes
		// no decision, not a value its schema takes from one.
		{"permissionDecision passthrough fails the schema", "", res(0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"passthrough"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput.permissionDecision must be "allow", "deny", "ask" or "defer", not "passthrough"): a non-blocking error, the agent carries on`},
		{"legacy decision block", PostToolUse, res(0, `{"decision":"block","reason":"lint failed"}`, ""), nil, report.OutcomeBlocked, "decision block: lint failed"},
		{"PreToolUse deprecated decision block", "", res(0, `{"decision":"block"}`, ""), nil, report.OutcomeBlocked, "decision block: (no reason)"},
		{"continue false", "", res(0, `{"continue":false,"stopReason":"done for today"}`, ""), nil, report.OutcomeBlocked, "continue: false: done for today"},
		{"continue true", "", res(0, `{"continue":true}`, ""), nil, report.OutcomeAllowed, ""},
		{"PermissionRequest deny", PermissionRequest, res(0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no"}}}`, ""), nil, report.OutcomeBlocked, "decision.behavior deny: no"},
		{"JSON with leading space", Stop, res(0, "  \n{\"decision\":\"block\"}\n", ""), nil, report.OutcomeBlocked, "decision block: (no reason)"},
		{"two JSON values are not JSON", Stop, res(0, `{"decision":"block"}{}`, ""), nil, report.OutcomeAllowed, ""},
		{"an array is text", "", res(0, `[{"continue":false}]`, ""), nil, report.OutcomeAllowed, ""},

		// Output that fails Claude Code's schema is a non-blocking error.
		{"deny without hookEventName", "", res(0, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput has no hookEventName (want "PreToolUse"))` + nonBlock},
		{"deny for another event", "", res(0, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","permissionDecision":"deny"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput.hookEventName is "PostToolUse", not "PreToolUse")` + nonBlock},
		{"hookEventName is case-sensitive", "", res(0, `{"hookSpecificOutput":{"hookEventName":"pretooluse","permissionDecision":"deny"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput.hookEventName is "pretooluse", not "PreToolUse")` + nonBlock},
		{"permissionDecision DENY", "", res(0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"DENY"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput.permissionDecision must be "allow", "deny", "ask" or "defer", not "DENY")` + nonBlock},
		{"decision deny", Stop, res(0, `{"decision":"deny","reason":"r"}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (decision must be "approve" or "block", not "deny")` + nonBlock},
		{"decision Block", Stop, res(0, `{"decision":"Block"}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (decision must be "approve" or "block", not "Block")` + nonBlock},
		{"continue as a string", "", res(0, `{"continue":"false"}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (continue must be true or false)` + nonBlock},
		{"behavior Deny", PermissionRequest, res(0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"Deny"}}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput.decision.behavior must be "allow" or "deny", not "Deny")` + nonBlock},
		{"exit 1 with invalid JSON", "", res(1, `{"hookSpecificOutput":{"permissionDecision":"deny"}}`, ""), nil, report.OutcomeAllowed,
			`the JSON output fails Claude Code's schema (hookSpecificOutput has no hookEventName (want "PreToolUse"))` + nonBlock},

		// Each event's own exit-2 and decision rules.
		{"PermissionRequest ignores exit 2", PermissionRequest, res(2, "", "no"), nil, report.OutcomeAllowed, "exit status 2 does not block PermissionRequest" + nonBlock},
		{"PermissionRequest exit 2 with deny JSON", PermissionRequest, res(2, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny"}}}`, "no"), nil, report.OutcomeBlocked, "decision.behavior deny: (no message)"},
		{"PermissionRequest ignores permissionDecision", PermissionRequest, res(0, `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","permissionDecision":"deny"}}`, ""), nil, report.OutcomeAllowed, ""},
		{"Notification ignores exit 2", Notification, res(2, "", "no"), nil, report.OutcomeAllowed, "Notification ignores the hook's exit status and decision fields: the agent carries on"},
		{"Notification ignores continue false", Notification, res(0, `{"continue":false}`, ""), nil, report.OutcomeAllowed, "Notification ignores the hook's exit status and decision fields: the agent carries on"},
		{"SessionEnd ignores decision block", SessionEnd, res(0, `{"decision":"block"}`, ""), nil, report.OutcomeAllowed, "SessionEnd ignores the hook's exit status and decision fields: the agent carries on"},
		{"SessionStart exit 2 shows stderr", SessionStart, res(2, "", "no"), nil, report.OutcomeAllowed, "exit status 2 does not block SessionStart" + nonBlock},
		{"SessionStart ignores decision block", SessionStart, res(0, `{"decision":"block"}`, ""), nil, report.OutcomeAllowed, ""},
		{"SessionStart honours continue false", SessionStart, res(0, `{"continue":false}`, ""), nil, report.OutcomeBlocked, "continue: false: (no stopReason)"},
		{"PostCompact exit 2", PostCompact, res(2, "", "no"), nil, report.OutcomeAllowed, "exit status 2 does not block PostCompact" + nonBlock},
		{"PreCompact exit 2 blocks", PreCompact, res(2, "", "no"), nil, report.OutcomeBlocked, "exit status 2: no"},
		{"PreCompact discards continue", PreCompact, res(0, `{"continue":false}`, ""), nil, report.OutcomeAllowed, ""},
		{"CwdChanged discards continue", CwdChanged, res(0, `{"continue":false}`, ""), nil, report.OutcomeAllowed, ""},
		{"unknown event: exit 2 blocks", "TaskCompleted", res(2, "", "no"), nil, report.OutcomeBlocked, "exit status 2: no"},

		{"timed out", "", &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, DurationMs: 1000}, nil, report.OutcomeError, "timed out after 1000 ms; the agent cancels the hook and carries on"},
		{"refused", "", &sandbox.Result{Tier: sandbox.TierRefused, Refusal: "no bwrap"}, nil, report.OutcomeError, "refused: no bwrap"},
		{"killed", "", &sandbox.Result{Tier: sandbox.TierConfined, ExitCode: 137, Signal: "SIGKILL"}, nil, report.OutcomeAllowed, "killed by SIGKILL" + nonBlock},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := Decide(orDefault(tc.event, PreToolUse), tc.res, tc.err)
			if d.Outcome != tc.want || d.Reason != tc.reason {
				t.Errorf("Decide = %q %q, want %q %q", d.Outcome, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

func TestGlobAndHosts(t *testing.T) {
	paths := []struct {
		pat, path string
		want      bool
	}{
		{"*.log", "a.log", true},
		{"*.log", "deep/dir/a.log", true}, // no '/': base name anywhere
		{"logs/*.log", "logs/a.log", true},
		{"logs/*.log", "logs/x/a.log", false},
		{"logs/**", "logs/x/a.log", true},
		{"**/secret*", "a/b/secret.txt", true},
		{"~/.cache/**", "~/.cache/tool/x", true},
		{"re:^\\.git/", ".git/config", true},
		{"re:^\\.git/", "a/.git/config", false},
		{"src/[ab].go", "src/a.go", true},
		{"src/[!ab].go", "src/a.go", false},
		{"?.txt", "x.txt", true},
		// The tree's own directories named "~" and "$TMPDIR" are
		// recorded with "./" in front (evidence.TreePath): HOME's and
		// TMPDIR's patterns do not take them, "./~/**" does.
		{"~/**", "./~/.config/evil", false},
		{"$TMPDIR/**", "./$TMPDIR/payload.sh", false},
		{"./~/**", "./~/.config/evil", true},
		{"./~/**", "~/.config/evil", false},
		{"./$TMPDIR/*", "./$TMPDIR/payload.sh", true},
		{"./src/*.go", "src/a.go", true},
		{"**", "./~/x", true},
	}
	for _, tc := range paths {
		p, err := ParsePathPattern(tc.pat)
		if err != nil {
			t.Fatalf("ParsePathPattern(%q): %v", tc.pat, err)
		}
		if got := p.Match(tc.path); got != tc.want {
			t.Errorf("pattern %q on %q = %v, want %v", tc.pat, tc.path, got, tc.want)
		}
	}
	hosts := []struct {
		pat, host string
		port      int
		want      bool
	}{
		{"api.example.test", "api.example.test", 443, true},
		{"api.example.test", "API.Example.Test.", 443, true},
		{"api.example.test", "evil.example.test", 443, false},
		{"*.example.test", "a.b.example.test", 443, true},
		{"*.example.test", "example.test", 443, false},
		{"*.example.test", "badexample.test", 443, false},
		{"api.example.test:443", "api.example.test", 80, false},
		{"api.example.test:443", "api.example.test", 443, true},
		{"10.0.0.1", "10.0.0.1", 53, true},
		{"[::1]:8080", "::1", 8080, true},
	}
	for _, tc := range hosts {
		p, err := ParseHostPattern(tc.pat)
		if err != nil {
			t.Fatalf("ParseHostPattern(%q): %v", tc.pat, err)
		}
		if got := p.Match(tc.host, tc.port); got != tc.want {
			t.Errorf("host %q on %q:%d = %v, want %v", tc.pat, tc.host, tc.port, got, tc.want)
		}
	}
	for _, bad := range []string{"", "a.*.test", "https://x.test/", "x.test:99999", "**.x"} {
		if _, err := ParseHostPattern(bad); err == nil {
			t.Errorf("ParseHostPattern(%q) accepted it", bad)
		}
	}
}

func TestUnsupportedMatcherMatchesEverything(t *testing.T) {
	for _, m := range []string{"^(?!Bash).*", "(?<=mcp__)x", `(a)\1`} {
		c, err := CompileMatcher(m)
		if !errors.Is(err, ErrUnsupportedMatcher) {
			t.Errorf("CompileMatcher(%q) = %v, want ErrUnsupportedMatcher", m, err)
		}
		if !c.Match("Bash") || !c.Match("Write") {
			t.Errorf("unsupported matcher %q must match everything", m)
		}
	}
	// Plainly invalid in both engines: never matches.
	if c, err := CompileMatcher("(Bash"); errors.Is(err, ErrUnsupportedMatcher) || c.Match("Bash") {
		t.Errorf("(Bash: %v", err)
	}
}

// TestMatcherRE2RefusesJSTakes checks that a matcher RE2 refuses and
// JavaScript takes (each selects Bash in Node.js's new RegExp(m).test)
// is read as matching everything, with ErrUnsupportedMatcher, not as one
// that never matches: such a hook runs in Claude Code, so it runs in an
// audit. Before, a repetition count above 1000, an escape of a digit or
// a backspace and an expression nested past RE2's depth were "not a valid
// regular expression, so it never matches", and the hook never ran. One
// both engines refuse (Node.js: "numbers out of order", "Range out of
// order") still never matches.
func TestMatcherRE2RefusesJSTakes(t *testing.T) {
	for _, m := range []string{
		`Bash|x{1001}`, `^(Bash|Write){0,2000}$`, `Bash|(?:x{999}){999}`, `Bash|x{99999999999}`,
		`Bash|\8`, `Bash|\3`, `Bash|[a-\d]`, `Bash|[\b]`,
		"Bash|" + strings.Repeat("(", 1001) + "x" + strings.Repeat(")", 1001),
	} {
		c, err := CompileMatcher(m)
		if !errors.Is(err, ErrUnsupportedMatcher) || !c.Match("Bash") {
			t.Errorf("CompileMatcher(%.40q) = %v, selects Bash %v; want ErrUnsupportedMatcher, matching everything", m, err, c.Match("Bash"))
		}
		h := &Hook{Event: PreToolUse, Matcher: m, HasMatcher: true, Type: TypeCommand, Command: "x"}
		if ps, why := toolsFor(h, nil, "/repo"); !slices.ContainsFunc(ps, func(p Payload) bool { return p.Tool == "Bash" }) {
			t.Errorf("matcher %.40q: payloads %v (%s), want one for Bash", m, ps, why)
		}
	}
	for _, m := range []string{`Bash|x{2,1}`, `Bash|x{1001,1000}`, `Bash|[z-a]`} {
		if c, err := CompileMatcher(m); err == nil || errors.Is(err, ErrUnsupportedMatcher) || c.Match("Bash") {
			t.Errorf("CompileMatcher(%q) = %v, selects Bash %v; want an invalid matcher", m, err, c.Match("Bash"))
		}
	}
}

func TestSynthInput(t *testing.T) {
	tests := []struct {
		cond, tool, key, want string
	}{
		{"Bash(git push:*)", "Bash", "command", "git push"},
		{"Bash(npm run *)", "Bash", "command", "npm run example"},
		{"Bash(rm -rf /)", "Bash", "command", "rm -rf /"},
		{"Edit(*.ts)", "Edit", "file_path", "/repo/src/example.ts"},
		{"Edit(src/**/*.go)", "Edit", "file_path", "/repo/src/src/example.go"},
		{"Write(//etc/*)", "Write", "file_path", "/etc/example"},
		{"WebFetch(domain:*.example.test)", "WebFetch", "url", "https://www.example.test/"},
		{"Grep(./lib/**)", "Grep", "path", "/repo/lib/src"},
		{"Read(~/.ssh/**)", "Read", "file_path", sandbox.Home + "/.ssh/src"},
		{"Skill(deploy *)", "Skill", "skill", "deploy"},
		{"Skill(plugin:*)", "Skill", "skill", "plugin:example"},
	}
	for _, tc := range tests {
		in := SynthInput(tc.cond, tc.tool, "/repo", DefaultToolInput(tc.tool, "/repo"))
		if in == nil || in[tc.key] != tc.want {
			t.Errorf("SynthInput(%q) %s = %v, want %q", tc.cond, tc.key, in[tc.key], tc.want)
			continue
		}
		if !IfMatches(tc.cond, PreToolUse, tc.tool, "/repo", in) {
			t.Errorf("SynthInput(%q) builds %v, which the condition does not select", tc.cond, in)
		}
	}
	for _, c := range []string{"Edit(~/.bashrc)", "Bash", "Bash(x", "Read(*.md)"} {
		if in := SynthInput(c, "Bash", "/repo", map[string]any{}); in != nil && c != "Bash(x" {
			if c == "Read(*.md)" || c == "Edit(~/.bashrc)" || c == "Bash" {
				t.Errorf("SynthInput(%q) for Bash = %v, want nil", c, in)
			}
		}
	}
}

// TestGlobMatchesNamesWithNewlines: "**" matches any name, a newline in it
// included (a hook cannot hide a write from no-write by naming it so).
func TestGlobMatchesNamesWithNewlines(t *testing.T) {
	for pat, name := range map[string]string{"**": "nl\nname", "a/**": "a/x\ny", "**/*.sh": "d\ne/run.sh"} {
		p, err := ParsePathPattern(pat)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Match(name) {
			t.Errorf("%q does not match %q", pat, name)
		}
	}
}

// TestRegexMatcherGetsAValueItSelects: a regular-expression matcher that
// selects none of the values vigiles sends by default (an MCP server's
// tools, mcp__memory__.*, as hooks.md's "Match MCP tools" writes them; a
// plugin's agents, ^my-plugin:.*$) still names calls Claude Code runs
// the hook for: the audit runs it for a value the matcher selects, one of
// Claude Code's own tools where it selects one (Notebook.* runs for
// NotebookEdit, with that tool's input), else built from the expression,
// rather than not at all. A closed list (a
// SessionStart source) takes no value from outside it.
func TestRegexMatcherGetsAValueItSelects(t *testing.T) {
	for _, tc := range []struct {
		event, matcher, want string
	}{
		{PreToolUse, "mcp__memory__.*", "mcp__memory__example"},
		{PostToolUse, "^mcp__brave-search__(web|local)_search$", "mcp__brave-search__web_search"},
		{PreToolUse, "mcp__.*__write.*", "mcp__example__writeexample"},
		// One of Claude Code's own tools that it selects, with that
		// tool's input, not a name built to fit (Notebook, with none).
		{PermissionRequest, "^Notebook", "NotebookEdit"},
		{PreToolUse, "Notebook.*", "NotebookEdit"},
		{PostToolUse, "^Todo", "TodoWrite"},
		{SubagentStart, "^my-plugin:reviewer$", "my-plugin:reviewer"},
		{UserPromptExpansion, "deploy-(prod|staging)", "deploy-prod"},
		{Elicitation, "^github.+", "githubexample"},
		{SessionStart, "^re", "resume"},
		// A class's character is one a name holds, never a control
		// character: [^a-z] gave mcp__srv__\x00.
		{PreToolUse, "^mcp__srv__[^a-z]+$", "mcp__srv__0"},
		{PreToolUse, "^mcp__srv__[^a-z0-9]$", "mcp__srv__A"},
		{PreToolUse, "^mcp__srv__[\\x00-\\x1f_]x$", "mcp__srv___x"},
		{SubagentStart, "^plugin:[^\\w-]", "plugin:!"},
	} {
		h := &Hook{Event: tc.event, Matcher: tc.matcher, HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Tool != tc.want {
			t.Errorf("%s %q: payloads %v (%s), want one for %s", tc.event, tc.matcher, ps, why, tc.want)
		}
	}
	for _, m := range []string{"^begin", "Startup", "Startup|Resume", "Init"} {
		// Nor a name it writes out (Startup: the source is startup).
		h := &Hook{Event: SessionStart, Matcher: m, HasMatcher: true, Type: TypeCommand, Command: "x"}
		if ps, why := toolsFor(h, nil, "/repo"); len(ps) != 0 || why == "" {
			t.Errorf("a SessionStart matcher %q that selects no source Claude Code sends runs: %v", m, ps)
		}
	}
	h := &Hook{Event: SessionStart, Matcher: "Startup|resume", HasMatcher: true, Type: TypeCommand, Command: "x"}
	if ps, why := toolsFor(h, nil, "/repo"); len(ps) != 1 || ps[0].Tool != "resume" {
		t.Errorf("SessionStart matcher Startup|resume: payloads %v (%s), want one for resume", ps, why)
	}
}

// TestIfOnDocumentedTools: an `if` condition is permission-rule syntax
// (hooks.md, "Common fields"), and the rules name Agent calls by subagent
// type (Agent(Explore), sub-agents.md), PowerShell calls by command
// (PowerShell(Remove-Item *), hooks.md's own example) and WebSearch calls
// by query. A handler with such an `if` ran for none of vigiles'
// payloads, and so not at all: it runs for an input its condition
// selects, as for Bash and the file tools.
func TestIfOnDocumentedTools(t *testing.T) {
	for _, tc := range []struct {
		tool, cond, field, want string
	}{
		{"Agent", "Agent(Explore)", "subagent_type", "Explore"},
		{"Agent", "Agent(my-reviewer)", "subagent_type", "my-reviewer"},
		{"PowerShell", "PowerShell(Remove-Item *)", "command", "Remove-Item example"},
		{"WebSearch", "WebSearch(react*)", "query", "react hooks best practices"},
		{"WebSearch", "WebSearch(vue*)", "query", "vueexample"},
	} {
		h := &Hook{Event: PreToolUse, Matcher: tc.tool, HasMatcher: true, If: tc.cond, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Input["tool_input"].(map[string]any)[tc.field] != tc.want {
			t.Errorf("%s: payloads %v (%s), want one whose %s is %q", tc.cond, ps, why, tc.field, tc.want)
		}
	}
	if IfMatches("Agent(Plan)", PreToolUse, "Agent", "/repo", DefaultToolInput("Agent", "/repo")) {
		t.Errorf("Agent(Plan) matches an Explore call")
	}
}

// TestIfNamesTheToolARegexMatcherSelects: a handler whose `if` names a tool
// (mcp__github__create_issue) runs, under Claude Code, for that tool alone,
// when its matcher selects it (mcp__.*, every MCP tool). The audit sent
// only its defaults and the tool built from the matcher
// (mcp__example), which the `if` refuses, so the hook was not run: an
// `if` hid it from the audit. The tool the `if` names is sent too; a
// matcher that does not select it still keeps the hook from running, as
// under Claude Code.
func TestIfNamesTheToolARegexMatcherSelects(t *testing.T) {
	for _, tc := range []struct {
		matcher, cond, want string
	}{
		{"mcp__.*", "mcp__github__create_issue", "mcp__github__create_issue"},
		{"mcp__.*__exec", "mcp__srv__exec", "mcp__srv__exec"},
		{"^mcp__", "mcp__memory__write(*)", "mcp__memory__write"},
		{"mcp__github__.*", "mcp__srv__exec", ""},
		// A rule naming a server's every tool selects each of them, as
		// a permission rule does: the audit sends one.
		{"mcp__github__.*", "mcp__github", "mcp__github__example"},
		{"mcp__github__.*", "mcp__github__*", "mcp__github__example"},
		{"mcp__.*", "mcp__github", "mcp__github__example"},
	} {
		h := &Hook{Event: PreToolUse, Matcher: tc.matcher, HasMatcher: true, If: tc.cond, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if tc.want == "" {
			if len(ps) != 0 {
				t.Errorf("matcher %q, if %q: payloads %v; want none (the matcher does not select the tool)", tc.matcher, tc.cond, ps)
			}
			continue
		}
		if len(ps) != 1 || ps[0].Tool != tc.want {
			t.Errorf("matcher %q, if %q: payloads %v (%s), want one for %s", tc.matcher, tc.cond, ps, why, tc.want)
		}
	}
}

// TestClaudeToolsHoldTheNamedOnes: the one list of Claude Code's tools
// that matchers are judged against holds every tool vigiles sends or
// names an input for (an MCP tool aside, whose server names it).
func TestClaudeToolsHoldTheNamedOnes(t *testing.T) {
	for _, tools := range [][]string{DefaultTools, namedTools, kindTools} {
		for _, n := range tools {
			if !strings.HasPrefix(n, "mcp__") && !slices.Contains(claudeTools, n) {
				t.Errorf("claudeTools lacks %s", n)
			}
		}
	}
}

// TestReferenceToolsAreClaudeTools: the tools of the tools reference's
// table are Claude Code's own: a regular expression that selects one of
// them and none of the default tools runs for that tool, not for a name
// built from the expression that no session sends (^Cron ran for
// "Cron"), and a matcher that nearly names one is told which it is
// like. EndConversation is one, for which no PreToolUse hook runs: the
// expression's own fallback, a name built from it, stays as it was.
func TestReferenceToolsAreClaudeTools(t *testing.T) {
	for _, tc := range []struct{ event, matcher, want string }{
		{PreToolUse, "^Cron", "CronCreate"},
		{PreToolUse, "Worktree$", "EnterWorktree"},
		{PostToolUse, "^LSP$", "LSP"},
		{PreToolUse, "^Send", "SendMessage"},
		{PreToolUse, "ListMcp.*", "ListMcpResourcesTool"},
		{PostToolUseFailure, "^EndConv", "EndConversation"},
	} {
		h := &Hook{Event: tc.event, Matcher: tc.matcher, HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Tool != tc.want || ps[0].Input["tool_name"] != tc.want {
			t.Errorf("%s matcher %q: payloads %v (%s), want one for %s", tc.event, tc.matcher, ps, why, tc.want)
		}
	}
	h := &Hook{Event: PreToolUse, Matcher: "^EndConv", HasMatcher: true, Type: TypeCommand, Command: "x"}
	if ps, _ := toolsFor(h, nil, "/repo"); slices.ContainsFunc(ps, func(p Payload) bool { return p.Tool == "EndConversation" }) {
		t.Errorf("PreToolUse matcher ^EndConv: payloads %v, want none for EndConversation, for which Claude Code runs no PreToolUse hook", ps)
	}
	for _, tc := range []struct{ matcher, like string }{
		{"ExitWorktre", "ExitWorktree"},
		{"CronCreat", "CronCreate"},
		{"SendMesage", "SendMessage"},
		{"LSP|EnterWorktree|ScheduleWakeup", ""},
	} {
		if _, like := misspeltTool(PreToolUse, tc.matcher); like != tc.like {
			t.Errorf("matcher %q: like %q, want %q", tc.matcher, like, tc.like)
		}
	}
}

// TestTaskMatcherSelectsAgent: a tool event's matcher that names Task,
// the Agent tool's name before Claude Code 2.1.63, exactly or by a
// regular expression, selects Agent, as Claude Code resolves the alias;
// the audit runs such a hook for Agent, with tool_name Agent, never for a
// tool named Task that no call has. Elsewhere (an agent type) the name
// is only itself.
func TestTaskMatcherSelectsAgent(t *testing.T) {
	for _, m := range []string{"Task", "Task|Write", "^Task$"} {
		c, err := compileMatcherFor(PreToolUse, m)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Match("Agent") || c.Match("Bash") {
			t.Errorf("%q on PreToolUse: Agent %t, Bash %t; want Agent only", m, c.Match("Agent"), c.Match("Bash"))
		}
	}
	if c, _ := compileMatcherFor(SubagentStart, "Task"); c.Match("Agent") {
		t.Errorf("Task on SubagentStart selects the agent type Agent")
	}
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "command": "true"}]}]}}`})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, r := range rep.Runs {
		tools = append(tools, r.Tool)
	}
	if len(tools) != 1 || tools[0] != "Agent" {
		t.Errorf("runs for %q, want one for Agent", tools)
	}
}

// TestIfTaskIsAgent: an `if` that names Task, the Agent tool's name
// before Claude Code 2.1.63, selects Agent calls, as a matcher's Task
// does: a plugin hook with if Task(Explore), under the matcher Task or
// Agent, never ran in an audit, whose calls name Agent, and runs there
// for an Explore subagent (and Task(code-*) for code-example, an input
// built for it); Task(Plan) still refuses an Explore call.
func TestIfTaskIsAgent(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"plugins/a/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Task", "hooks": [{"type": "command", "if": "Task(Explore)", "command": "true one"}]},
 {"matcher": "Agent", "hooks": [{"type": "command", "if": "Task(code-*)", "command": "true two"}]}]}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}]}`,
	})
	ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: ex}); err != nil {
		t.Fatal(err)
	}
	// What each run was sent, read once the audit is done: its runs
	// run in parallel.
	var got []string
	for i, spec := range ex.Specs {
		var in struct {
			Tool  string         `json:"tool_name"`
			Input map[string]any `json:"tool_input"`
		}
		if err := json.Unmarshal(ex.Stdin[i], &in); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %s %v", spec.Command[len(spec.Command)-1], in.Tool, in.Input["subagent_type"]))
	}
	slices.Sort(got)
	if want := []string{"true one Agent Explore", "true two Agent code-example"}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	if IfMatches("Task(Plan)", PreToolUse, "Agent", "/repo", DefaultToolInput("Agent", "/repo")) {
		t.Errorf("Task(Plan) matches an Explore call")
	}
}

// TestIfDirGlobIsTheCwdsDir: Claude Code (2.1.214 and later) reads a
// single-segment `dir/**` in an `if` as the cwd's dir only, so a check of
// an Edit under a package's src runs no hook guarded by Edit(src/**), and
// one of the work tree's src runs it.
func TestIfDirGlobIsTheCwdsDir(t *testing.T) {
	check := "  - name: %s\n    hook: project\n    tool: Edit\n    input: {file_path: %q, old_string: a, new_string: b}\n    expect: {blocked: true}\n"
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "if": "Edit(src/**)", "command": "true block"}]}]}}`,
		".vigiles.yml":          "checks:\n" + fmt.Sprintf(check, "nested", "packages/web/src/a.ts") + fmt.Sprintf(check, "top", "src/a.ts"),
	})
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ran []string
	for _, r := range rep.Runs {
		ran = append(ran, r.ID)
	}
	if len(ran) != 1 || !strings.HasPrefix(ran[0], "check:top") {
		t.Errorf("runs %q, want the top check's alone", ran)
	}
	if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool {
		return strings.Contains(f.Message, `"nested"`) && strings.Contains(f.Message, "does not match this Edit call")
	}) {
		t.Errorf("no finding that the nested check runs no hook: %v", findingLines(rep.Findings))
	}
}

// TestMatcherJSIdentityEscapes: Claude Code applies a matcher as a
// JavaScript RegExp without the u flag, which reads an escaped letter it
// gives no meaning as the letter (`B\ash` selects Bash; RE2 reads \a as a
// bell and rejects \i), \uHHHH as a code unit and \cX as a control
// character. The names each selects are Node.js's.
func TestMatcherJSIdentityEscapes(t *testing.T) {
	names := []string{"Bash", "Write", "B\x01sh", "Bx4", "kBash", "Ba sh", "Wri\tte", "Wri\te"}
	for _, tc := range []struct {
		matcher string
		want    []string
	}{
		{`B\ash`, []string{"Bash", "kBash"}},
		{`Wr\ite`, []string{"Write"}},
		{`^Bas\h$`, []string{"Bash"}},
		{`\u0042ash`, []string{"Bash", "kBash"}},
		{`\x42ash`, []string{"Bash", "kBash"}},
		{`B\x4`, []string{"Bx4"}},
		{`\kBash`, []string{"kBash"}},
		{`B\cash`, []string{"B\x01sh"}},
		{`\d`, []string{"Bx4"}},
		{`Ba\sh`, nil},
		{`Wri\te`, []string{"Wri\te"}},          // \t is a tab in both
		{`Bash[^]*`, []string{"Bash", "kBash"}}, // [^] is any character
		{`Ba[]sh`, nil},                         // [] is none
		{`B[\]a]sh`, []string{"Bash", "kBash"}},
	} {
		m, err := CompileMatcher(tc.matcher)
		if err != nil {
			t.Errorf("CompileMatcher(%q): %v", tc.matcher, err)
			continue
		}
		var got []string
		for _, n := range names {
			if m.Match(n) {
				got = append(got, n)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("matcher %q selects %q, want %q", tc.matcher, got, tc.want)
		}
	}
	h := &Hook{Event: PreToolUse, Matcher: `B\ash`, HasMatcher: true, Type: TypeCommand, Command: "x"}
	if ps, why := toolsFor(h, nil, "/repo"); len(ps) != 1 || ps[0].Tool != "Bash" {
		t.Errorf(`matcher B\ash: payloads %v (%s), want one for Bash`, ps, why)
	}
}

// TestIfDirectoryRuleCoversWhatIsBelow checks that a file rule of a
// handler's `if` that names a directory matches every path below it, as a
// .gitignore line does (Claude Code's Read and Edit rules follow the
// gitignore specification), and that one ending in '/' matches a file in
// that directory and not a file of that name. Before, Write(.github/)
// matched no path at all: the audit could build no call for it and never
// ran the hook (plan/not-run, a warning), and a check's call that wrote
// .github/workflows/ci.yml skipped the hook that Claude Code runs for it.
func TestIfDirectoryRuleCoversWhatIsBelow(t *testing.T) {
	for _, tc := range []struct {
		cond, tool, p string
		want          bool
	}{
		{"Write(.github/)", "Write", "/repo/.github/workflows/ci.yml", true},
		{"Write(.github)", "Write", "/repo/.github/workflows/ci.yml", true},
		{"Write(.github/workflows)", "Write", "/repo/.github/workflows/ci.yml", true},
		{"Edit(docs/)", "Edit", "/repo/docs/guide.md", true},
		{"Edit(docs/)", "Edit", "/repo/packages/web/docs/guide.md", true}, // no '/' but the last: any depth
		{"Edit(docs)", "Edit", "/repo/packages/web/docs/guide.md", true},
		{"Edit(/docs/)", "Edit", "/repo/docs/a/b.md", true},
		{"Edit(docs/**/)", "Edit", "/repo/docs/a/b.md", true},
		{"Read(//etc/)", "Read", "/etc/ssl/openssl.cnf", true},
		{"Read(~/.ssh/)", "Read", sandbox.Home + "/.ssh/id_rsa", true},
		{"Edit(docs/)", "Edit", "/repo/docs", false}, // a file named docs: '/' names directories alone
		{"Edit(docs/)", "Edit", "/repo/docsite/guide.md", false},
		{"Edit(src/*.ts)", "Edit", "/repo/src/a/b.ts", false}, // '*' spans no '/'
		{"Edit(repo)", "Edit", "/repo/guide.md", false},       // above the directory the rule is relative to
	} {
		if got := IfMatches(tc.cond, PreToolUse, tc.tool, "/repo", map[string]any{"file_path": tc.p}); got != tc.want {
			t.Errorf("if %q on %s %s = %v, want %v", tc.cond, tc.tool, tc.p, got, tc.want)
		}
	}
	for _, cond := range []string{"Write(.github/)", "Edit(docs/)", "Write(//etc/cron.d/)"} {
		tool, _, _ := strings.Cut(cond, "(")
		h := &Hook{Event: PreToolUse, Matcher: "Edit|Write", HasMatcher: true, Type: TypeCommand, Command: "x", If: cond}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Tool != tool {
			t.Errorf("if %q: payloads %v (%s), want one for %s", cond, ps, why, tool)
			continue
		}
		fp, _ := ps[0].Input["tool_input"].(map[string]any)["file_path"].(string)
		if !IfMatches(cond, PreToolUse, tool, "/repo", map[string]any{"file_path": fp}) || !strings.Contains(fp, strings.Trim(cond[len(tool)+1:len(cond)-1], "/")+"/") {
			t.Errorf("if %q: the audit's call names %q, want a file in that directory", cond, fp)
		}
	}
}

// TestIfBashRuleAsClaudeCodeMatchesIt checks a handler's Bash `if` against
// the calls Claude Code runs it for and vigiles skipped: a bare command
// under a rule whose only wildcard is a trailing " *" (Bash(git *) is
// ^git( .*)?$ in Claude Code's matchWildcardPattern), and a command behind
// the wrappers the permissions reference's "Wrappers" says Claude Code
// strips before it matches (timeout, time, nice, nohup, stdbuf, command,
// builtin, noglob, xargs without flags). Before, a check whose call was
// `timeout 30 npm test` or a bare `git` skipped such a hook ("would not
// run: its if condition … does not match"), where Claude Code runs it,
// and a check of several hooks passed without it. What Claude Code does
// not strip (command -v, xargs -n1, a timeout option holding a
// substitution) still does not match.
func TestIfBashRuleAsClaudeCodeMatchesIt(t *testing.T) {
	for _, tc := range []struct {
		cond, cmd string
		want      bool
	}{
		{"Bash(git *)", "git", true},
		{"Bash(npm test *)", "npm test", true},
		{"Bash(npm test *)", "timeout 30 npm test", true},
		{"Bash(npm test *)", "timeout -k 5 --preserve-status 30s npm test --watch", true},
		{"Bash(npm test *)", "nice -n 10 npm test", true},
		{"Bash(npm test *)", "nice -5 npm test", true},
		{"Bash(npm test *)", "nohup npm test", true},
		{"Bash(npm test *)", "time npm test", true},
		{"Bash(npm test *)", "stdbuf -oL -e 0 npm test", true},
		{"Bash(npm test *)", "command npm test", true},
		{"Bash(npm test *)", "builtin npm test", true},
		{"Bash(npm test *)", "noglob npm test", true},
		{"Bash(npm test *)", "timeout 5 nice nohup npm test", true},
		{"Bash(npm test *)", "ls && timeout 30 npm test", true},
		{"Bash(grep *)", "xargs grep pattern", true},
		{"Bash(rm *)", "FOO=1 timeout 9 rm -rf /", true},
		{"Bash(git *)", "gitk", false},
		{"Bash(git * main)", "git", false}, // the trailing wildcard is not the only one
		{"Bash(grep *)", "xargs -n1 grep pattern", false},
		{"Bash(ls *)", "command -v ls", false},
		{"Bash(npm test *)", "timeout npm test", false}, // no duration: npm is timeout's
		{"Bash(rm *)", "timeout -k$(id) 10 rm x", false},
		{"Bash(npm test *)", "sudo npm test", false},
	} {
		if got := IfMatches(tc.cond, PreToolUse, "Bash", "/repo", map[string]any{"command": tc.cmd}); got != tc.want {
			t.Errorf("if %q on Bash %q = %v, want %v", tc.cond, tc.cmd, got, tc.want)
		}
	}
}
