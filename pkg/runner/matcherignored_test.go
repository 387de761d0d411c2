package runner

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// matcherIgnoredTree declares matchers on events whose matcher Claude
// Code ignores (Stop, UserPromptSubmit, TeammateIdle, a skill's Stop),
// in a project's settings file, a plugin's hooks file and a skill's
// frontmatter, beside matchers that say nothing wrong: one that matches
// everything ("", "*", ".*"), one on an event that reads it
// (SessionStart, PreToolUse), and an agent's Stop, which runs as
// SubagentStop and reads it.
func matcherIgnoredTree(t *testing.T) string {
	return makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {
  "Stop": [
    {"matcher": "Bash", "hooks": [{"type": "command", "command": "cat"}]},
    {"matcher": "", "hooks": [{"type": "command", "command": "true empty"}]},
    {"matcher": "*", "hooks": [{"type": "command", "command": "true star"}]}],
  "UserPromptSubmit": [{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "true prompt"}]}],
  "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "true start"}]}],
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true guard"}]}]}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/hooks/hooks.json": `{"hooks": {
  "TeammateIdle": [{"matcher": "researcher", "hooks": [{"type": "command", "command": "true idle"}]}],
  "Stop": [{"matcher": ".*", "hooks": [{"type": "command", "command": "true all"}]}]}}`,
		".claude/skills/s/SKILL.md": "---\nname: s\ndescription: a skill\nhooks:\n  Stop:\n    - matcher: Bash\n      hooks:\n        - type: command\n          command: true skill\n---\nBody.\n",
		".claude/agents/rev.md":     "---\nname: rev\ndescription: an agent\nhooks:\n  Stop:\n    - matcher: rev\n      hooks:\n        - type: command\n          command: true agent\n---\nBody.\n",
	})
}

// TestIgnoredMatcherWarns: a matcher on an event whose matcher Claude
// Code ignores warns at the matcher, in a settings file, a plugin's
// hooks file and a skill's frontmatter alike, saying that Claude Code
// ignores it and runs the hooks on every such event; a matcher that
// matches everything, one on an event that reads it and one on an
// agent's Stop do not.
func TestIgnoredMatcherWarns(t *testing.T) {
	dir := matcherIgnoredTree(t)
	s := discoverAll(t, dir)
	var got []string
	for _, f := range s.findings {
		if f.Rule != RuleIgnoredMatcher {
			continue
		}
		got = append(got, findingLine(f))
		if f.Severity != report.SeverityWarning {
			t.Errorf("%s: severity %s, want warning", findingLine(f), f.Severity)
		}
		for _, ev := range []string{Stop, UserPromptSubmit, TeammateIdle} {
			if strings.HasPrefix(f.Message, ev+"[") && (!strings.Contains(f.Message, "Claude Code ignores the matcher on "+ev) || !strings.Contains(f.Message, "runs the group's hooks on every "+ev)) {
				t.Errorf("message %q does not say Claude Code ignores the matcher on %s and runs the hooks on every %s", f.Message, ev, ev)
			}
		}
	}
	slices.Sort(got)
	want := []string{
		"warning discovery/ignored-matcher .claude/settings.json:3:17",
		"warning discovery/ignored-matcher .claude/settings.json:6:36",
		"warning discovery/ignored-matcher .claude/skills/s/SKILL.md:6:16",
		"warning discovery/ignored-matcher plugins/p/hooks/hooks.json:2:32",
	}
	if !slices.Equal(got, want) {
		t.Errorf("ignored-matcher findings\n got %q\nwant %q\nall: %q", got, want, findingLines(s.findings))
	}
	for _, f := range s.findings {
		if f.Rule == RuleBadMatcher {
			t.Errorf("a valid matcher is said to be invalid: %s %s", findingLine(f), f.Message)
		}
	}
}

// TestIgnoredMatcherStillRuns: the Stop hook whose matcher names Bash
// runs in the audit as Claude Code runs it, for the Stop event itself,
// with Stop's payload and no tool in it, in the real sandbox.
func TestIgnoredMatcherStillRuns(t *testing.T) {
	dir := matcherIgnoredTree(t)
	sandboxtest.RequireConfinement(t)
	rep, err := Audit(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	id := ".claude/settings.json#hooks.Stop[0].hooks[0]"
	var runs []report.HookRun
	for _, r := range rep.Runs {
		if r.ID == id {
			runs = append(runs, r)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs of %s, want 1; runs: %+v", len(runs), id, rep.Runs)
	}
	r := runs[0]
	if r.Event != Stop || r.Tool != "" || !strings.Contains(r.Stdout, `"hook_event_name":"Stop"`) || strings.Contains(r.Stdout, `"tool_name"`) {
		t.Errorf("run of %s: event %q, tool %q, stdin as it saw it %q; want Stop's payload, no tool", id, r.Event, r.Tool, r.Stdout)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && strings.Contains(f.Message, "Stop[0]") {
			t.Errorf("the hook is said not to run: %s", f.Message)
		}
	}
}

// TestEventsIgnoringMatchersAsReference: the events whose matcher vigiles
// reads as ignored are those the hooks reference's "Matcher patterns"
// table lists with "no matcher support" (UserPromptSubmit, PostToolBatch,
// Stop, TeammateIdle, TaskCreated, TaskCompleted, WorktreeCreate,
// WorktreeRemove, MessageDisplay, and CwdChanged in a row of its own),
// no more and no fewer: SubagentStop's matcher selects the agent type.
func TestEventsIgnoringMatchersAsReference(t *testing.T) {
	var got []string
	for _, ev := range EventNames() {
		if !readsMatcher(ev) {
			got = append(got, ev)
		}
	}
	want := []string{CwdChanged, MessageDisplay, PostToolBatch, Stop, TaskCompleted, TaskCreated, TeammateIdle, UserPromptSubmit, WorktreeCreate, WorktreeRemove}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("events that ignore matchers %q, want the reference's %q", got, want)
	}
}

// TestUnsentMatcherValueWarns: on an event whose matcher values are a
// closed list, an exact name that is none of them ("Startup" on
// SessionStart, "Init" on Setup in a plugin's hooks file, SessionEnd's
// "bypass_permissions_disabled", which Claude Code no longer sends) never
// matches in Claude Code, which compares it exactly: discovery warns at
// the matcher and names the value it is nearly. A name beside that value
// (Startup|startup), a regular expression, a value sent, and a name on an
// open list (Notification's types) are left alone.
func TestUnsentMatcherValueWarns(t *testing.T) {
	group := func(m string) string {
		return `[{"matcher": "` + m + `", "hooks": [{"type": "command", "command": "true ` + m + `"}]}]`
	}
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {
  "SessionStart": ` + group("Startup") + `,
  "SessionEnd": ` + group("bypass_permissions_disabled|other") + `,
  "PreCompact": ` + group("auto") + `,
  "PostCompact": ` + group("Manual|manual") + `,
  "InstructionsLoaded": ` + group("^session") + `,
  "Notification": ` + group("custom_type") + `}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"}]}`,
		"plugins/p/hooks/hooks.json":      `{"hooks": {"Setup": ` + group("Init") + `}}`,
	})
	s := discoverAll(t, dir)
	got := map[string]string{}
	for _, f := range s.findings {
		if f.Rule == RuleBadMatcher {
			got[findingLine(f)] = f.Message
		}
	}
	want := map[string][]string{
		"warning discovery/invalid-matcher .claude/settings.json:2:32": {`SessionStart[0].matcher names "Startup", which Claude Code never sends as SessionStart's source`,
			`did you mean "startup"?`, "case and all, so the hook never runs (vigiles lists it, not run)"},
		"warning discovery/invalid-matcher .claude/settings.json:3:30": {`SessionEnd[0].matcher names "bypass_permissions_disabled", which Claude Code never sends as SessionEnd's reason (it sends other, clear, resume, logout or prompt_input_exit);`,
			"so the hook never runs for it"},
		"warning discovery/invalid-matcher plugins/p/hooks/hooks.json:1:34": {`Setup[0].matcher names "Init", which Claude Code never sends as Setup's trigger (it sends init or maintenance): did you mean "init"?`},
	}
	if len(got) != len(want) {
		t.Errorf("invalid-matcher findings %q, want those at %q", findingLines(s.findings), slices.Sorted(maps.Keys(want)))
	}
	for at, parts := range want {
		msg, ok := got[at]
		if !ok {
			t.Errorf("no finding at %s; all: %q", at, findingLines(s.findings))
			continue
		}
		for _, p := range parts {
			if !strings.Contains(msg, p) {
				t.Errorf("%s: message %q does not say %q", at, msg, p)
			}
		}
	}
}
