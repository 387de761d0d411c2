package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/sandbox"
)

func TestEventsDoc(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "hook-events.md")
	got := EventsDoc()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("docs/hook-events.md is stale; run go test ./pkg/runner -run TestEventsDoc -update (-file +code):\n%s", diff)
	}
}

func TestPayloadFields(t *testing.T) {
	common := []string{"cwd", "hook_event_name", "permission_mode", "session_id", "transcript_path"}
	tests := []struct {
		event, tool string
		own         []string
	}{
		{SessionStart, "startup", []string{"model", "source"}},
		{SessionStart, "fork", []string{"model", "source"}},
		{Setup, "init", []string{"trigger"}},
		{UserPromptSubmit, "", []string{"prompt"}},
		{PreToolUse, "Bash", []string{"effort", "tool_input", "tool_name", "tool_use_id"}},
		{PostToolUse, "Write", []string{"duration_ms", "effort", "tool_input", "tool_name", "tool_response", "tool_use_id"}},
		{PostToolUseFailure, "Bash", []string{"duration_ms", "effort", "error", "is_interrupt", "tool_input", "tool_name", "tool_use_id"}},
		{PermissionRequest, "Bash", []string{"effort", "permission_suggestions", "tool_input", "tool_name"}}, // no tool_use_id
		{Notification, "idle_prompt", []string{"message", "notification_type", "title"}},
		{Notification, "agent_completed", []string{"message", "notification_type", "title"}},
		{Stop, "", []string{"background_tasks", "effort", "last_assistant_message", "session_crons", "stop_hook_active"}},
		{SubagentStop, "Explore", []string{"agent_id", "agent_transcript_path", "agent_type", "background_tasks", "effort", "last_assistant_message", "session_crons", "stop_hook_active"}},
		{PreCompact, "auto", []string{"custom_instructions", "trigger"}},
		{PostCompact, "manual", []string{"compact_summary", "trigger"}},
		{CwdChanged, "", []string{"new_cwd", "old_cwd"}},
		{FileChanged, ".env", []string{"event", "file_path"}},
		{StopFailure, "rate_limit", []string{"effort", "error", "last_assistant_message"}},
		{StopFailure, "invalid_request", []string{"effort", "error", "error_details", "last_assistant_message"}},
		{StopFailure, "account_on_hold", []string{"effort", "error", "last_assistant_message"}},
		{SessionEnd, "logout", []string{"reason"}},
		{SessionEnd, "resume", []string{"reason"}},
		{InstructionsLoaded, "nested_traversal", []string{"file_path", "load_reason", "memory_type", "trigger_file_path"}},
		{InstructionsLoaded, "path_glob_match", []string{"file_path", "globs", "load_reason", "memory_type", "trigger_file_path"}},
		{InstructionsLoaded, "include", []string{"file_path", "load_reason", "memory_type", "parent_file_path"}},
		{InstructionsLoaded, "compact", []string{"file_path", "load_reason", "memory_type"}},
	}
	for _, tc := range tests {
		t.Run(tc.event+"/"+tc.tool, func(t *testing.T) {
			p := BuildPayload(tc.event, tc.tool, "/repo", nil, nil)
			var m map[string]any
			if err := json.Unmarshal(p.JSON(), &m); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			want := append(append([]string{}, common...), tc.own...)
			if knownEvents[tc.event].NoMode {
				want = slices.DeleteFunc(want, func(k string) bool { return k == "permission_mode" })
			}
			if !knownEvents[tc.event].BeforePrompt {
				want = append(want, "prompt_id")
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, keys); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if m["hook_event_name"] != tc.event || m["cwd"] != "/repo" {
				t.Errorf("common fields wrong: %v", m)
			}
			if IsToolEvent(tc.event) && m["tool_name"] != tc.tool {
				t.Errorf("tool_name = %v", m["tool_name"])
			}
			if spec := knownEvents[tc.event]; spec.MatchField != "" && !slices.Contains(spec.Values, tc.tool) {
				t.Errorf("%s %q is not among the values vigiles sends: %v", spec.MatchField, tc.tool, spec.Values)
			}
			if tc.event == PostToolUseFailure && !strings.HasPrefix(m["error"].(string), "Exit code 1\n") {
				t.Errorf("a Bash failure's error starts with its exit code line: %q", m["error"])
			}
			if tc.event == FileChanged && m["file_path"] != "/repo/"+tc.tool {
				t.Errorf("file_path = %v", m["file_path"])
			}
		})
	}
}

// TestEndConversationSkipsToolHooks: Claude Code runs no PreToolUse,
// PostToolUse or PermissionRequest hook for an EndConversation call
// (hooks.md, "Hook lifecycle", "PreToolUse", "PermissionRequest"), so an
// audit sends none of those events a payload for it: a hook whose
// matcher selects it alone never runs, and one that selects other tools
// too runs for those. The reference says nothing of PostToolUseFailure
// and PermissionDenied, which keep theirs.
func TestEndConversationSkipsToolHooks(t *testing.T) {
	for _, tc := range []struct {
		event, matcher, ifCond string
		want                   []string // the tools run for; none: why names EndConversation
	}{
		{PreToolUse, "EndConversation", "", nil},
		{PostToolUse, "EndConversation", "", nil},
		{PermissionRequest, "EndConversation", "", nil},
		{PreToolUse, "^EndConversation$", "", nil},
		{PreToolUse, "*", "EndConversation", nil},
		{PreToolUse, "EndConversation|Bash", "", []string{"Bash"}},
		{PostToolUseFailure, "EndConversation", "", []string{"EndConversation"}},
		{PermissionDenied, "EndConversation", "", []string{"EndConversation"}},
	} {
		h := &Hook{Event: tc.event, Matcher: tc.matcher, HasMatcher: true, If: tc.ifCond, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		var tools []string
		for _, p := range ps {
			tools = append(tools, p.Tool)
		}
		if !slices.Equal(tools, tc.want) {
			t.Errorf("%s %q if %q: runs for %v (%s), want %v", tc.event, tc.matcher, tc.ifCond, tools, why, tc.want)
		}
		if tc.want == nil && !strings.Contains(why, "Claude Code runs no "+tc.event+" hook") {
			t.Errorf("%s %q if %q: why = %q, want it to say Claude Code runs no %s hook for EndConversation", tc.event, tc.matcher, tc.ifCond, why, tc.event)
		}
	}
}

func TestPayloadOverrides(t *testing.T) {
	p := BuildPayload(PreToolUse, "Bash", "/repo", map[string]any{"command": "rm -rf /"}, map[string]any{"permission_mode": "plan", "extra": 1.0})
	in := p.Input
	if got := in["tool_input"].(map[string]any)["command"]; got != "rm -rf /" {
		t.Errorf("tool_input.command = %v", got)
	}
	if in["permission_mode"] != "plan" || in["extra"] != 1.0 {
		t.Errorf("extra fields not merged: %v", in)
	}
	// Every default tool has an input, and tool events select by matcher.
	for _, tool := range DefaultTools {
		if len(DefaultToolInput(tool, "/repo")) == 0 {
			t.Errorf("no default input for %s", tool)
		}
	}
	h := &Hook{Event: PreToolUse, Matcher: "Edit|Write|NotebookEdit", HasMatcher: true, Type: TypeCommand, Command: "x"}
	ps, why := toolsFor(h, nil, "/repo")
	var tools []string
	for _, p := range ps {
		tools = append(tools, p.Tool)
	}
	if diff := cmp.Diff([]string{"Edit", "Write", "NotebookEdit"}, tools); diff != "" || why != "" {
		t.Errorf("tools (-want +got):\n%s %s", diff, why)
	}
	h = &Hook{Event: PreToolUse, Matcher: "Bash", HasMatcher: true, If: "Bash(git *)", Type: TypeCommand, Command: "x"}
	// The default `ls -la` does not pass the condition: the audit builds
	// an input that does, so the `if` cannot hide the hook.
	if ps, why := toolsFor(h, nil, "/repo"); len(ps) != 1 || ps[0].Input["tool_input"].(map[string]any)["command"] != "git example" {
		t.Errorf("if Bash(git *): %v %s", ps, why)
	}
	bad := &Hook{Event: PreToolUse, Matcher: "Bash", HasMatcher: true, If: "Bash(git *", Type: TypeCommand, Command: "x"}
	if ps, why := toolsFor(bad, nil, "/repo"); len(ps) != 0 || why == "" {
		t.Errorf("an unparsable if never runs: %v", ps)
	}
	if ps, _ := toolsFor(h, map[string]map[string]any{"Bash": {"command": "git status"}}, "/repo"); len(ps) != 1 {
		t.Errorf("if Bash(git *) with a git payload should run once, got %d", len(ps))
	}
	h = &Hook{Event: SessionStart, Matcher: "resume|compact", HasMatcher: true, Type: TypeCommand, Command: "x"}
	if ps, _ := toolsFor(h, nil, "/repo"); len(ps) != 1 || ps[0].Input["source"] != "resume" {
		t.Errorf("SessionStart resume matcher: %v", ps)
	}
	h = &Hook{Event: Stop, Matcher: "whatever", HasMatcher: true, Type: TypeCommand, Command: "x"}
	if ps, _ := toolsFor(h, nil, "/repo"); len(ps) != 1 {
		t.Errorf("Stop ignores matchers: %v", ps)
	}
}

// TestDocsNameEveryEnvFileEvent: a paragraph of the docs that tells which
// hooks get CLAUDE_ENV_FILE names every event EnvFileEvents lists
// (result-format.md said SessionStart alone, as did the baseline's env
// in report-format.md). hook-events.md is generated from the list.
func TestDocsNameEveryEnvFileEvent(t *testing.T) {
	evs := EnvFileEvents()
	if want := []string{SessionStart, Setup, CwdChanged, FileChanged}; !slices.Equal(evs, want) {
		t.Errorf("EnvFileEvents() = %v; want %v", evs, want)
	}
	docs, _ := filepath.Glob("../../docs/*.md")
	for _, f := range append(docs, "../../README.md") {
		if strings.HasSuffix(f, "hook-events.md") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range regexp.MustCompile(`\n\s*\n`).Split(string(b), -1) {
			if !strings.Contains(p, envFileVar) && !strings.Contains(p, "env file") {
				continue
			}
			var named, missing []string
			for _, ev := range evs {
				if strings.Contains(p, ev) {
					named = append(named, ev)
				} else {
					missing = append(missing, ev)
				}
			}
			if len(named) > 0 && len(missing) > 0 {
				t.Errorf("%s: a paragraph on the env file names %v, not %v:\n%s", f, named, missing, p)
			}
		}
	}
}

// TestDocsNameTheSessionEndBudgetVar: where the docs explain the 1.5 s
// that SessionEnd hooks share, they name the variable that sets another
// (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS, in Claude Code's
// environment): a reader whose sessions set it would take the 1.5 s for
// a fixed limit.
func TestDocsNameTheSessionEndBudgetVar(t *testing.T) {
	n := 0
	for _, p := range regexp.MustCompile(`\n\s*\n`).Split(EventsDoc(), -1) {
		if !strings.Contains(p, "1.5 s budget") {
			continue
		}
		n++
		if !strings.Contains(p, "`"+sessionEndTimeoutVar+"`") {
			t.Errorf("a paragraph on the SessionEnd budget does not name %s:\n%s", sessionEndTimeoutVar, p)
		}
	}
	if n == 0 {
		t.Errorf("no paragraph of hook-events.md explains the SessionEnd budget")
	}
}

// TestPermissionModeWhereClaudeCodeSendsIt: "Not all events receive"
// permission_mode (hooks.md, "Common input fields"); the input example of
// each event in the reference says which do. A hook that finds the field
// where Claude Code never sends it (on SessionStart, say) could tell an
// audit and behave; a check's payload: can still set it.
func TestPermissionModeWhereClaudeCodeSendsIt(t *testing.T) {
	without := []string{SessionStart, Setup, InstructionsLoaded, MessageDisplay, Notification, SubagentStart, StopFailure,
		ConfigChange, CwdChanged, DirectoryAdded, FileChanged, WorktreeCreate, WorktreeRemove, PreCompact, PostCompact, PreModelSwitch,
		PostModelSwitch, Elicitation, ElicitationResult, SessionEnd}
	for _, ev := range EventNames() {
		tool := ""
		if IsToolEvent(ev) {
			tool = "Bash"
		}
		var m map[string]any
		if err := json.Unmarshal(BuildPayload(ev, tool, "/repo", nil, nil).JSON(), &m); err != nil {
			t.Fatal(err)
		}
		_, has := m["permission_mode"]
		if want := !slices.Contains(without, ev); has != want {
			t.Errorf("%s: permission_mode sent %v, want %v (as the event's input in hooks.md)", ev, has, want)
		}
	}
	p := BuildPayload(SessionStart, "startup", "/repo", nil, map[string]any{"permission_mode": "plan"})
	if p.Input["permission_mode"] != "plan" {
		t.Errorf("a check's payload: no longer sets permission_mode: %v", p.Input)
	}
}

// TestEffortWhereClaudeCodeSendsIt: Claude Code adds effort, the effort
// level of the session's model, to the input of the events that fire
// within a tool-use context, where the model supports effort, as a
// default session's does: the tool events, the batch after them, Stop,
// SubagentStop and StopFailure (the hooks reference's "Common input
// fields" names PreToolUse, PostToolUse, Stop and SubagentStop); at its
// default level, "high" where nothing sets one. It sits after the common
// fields, before hook_event_name. A hook that finds it missing where a
// session sends it could tell an audit.
func TestEffortWhereClaudeCodeSendsIt(t *testing.T) {
	with := []string{PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, PermissionDenied, PostToolBatch, Stop, SubagentStop, StopFailure}
	for _, ev := range EventNames() {
		tool := ""
		if IsToolEvent(ev) {
			tool = "Bash"
		}
		got := string(BuildPayload(ev, tool, "/repo", nil, nil).JSON())
		has := strings.Contains(got, `"effort":`)
		if want := slices.Contains(with, ev); has != want {
			t.Errorf("%s: effort sent %v, want %v", ev, has, want)
		}
		if has && !strings.Contains(got, `"effort":{"level":"high"},"hook_event_name":`) {
			t.Errorf("%s: effort is not the default level right before hook_event_name: %s", ev, got)
		}
	}
	if got := string(BuildPayload(PreToolUse, "Bash", "/w", nil, nil).JSON()); !strings.Contains(got, `"permission_mode":"default","effort":`) {
		t.Errorf("effort follows permission_mode, as createBaseHookInput writes it: %s", got)
	}
}

// TestDocumentedToolsHaveTheirInput: the hooks reference documents the
// tool_input of Bash, PowerShell, Write, Edit, Read, Glob, Grep, WebFetch,
// WebSearch, Agent, AskUserQuestion and ExitPlanMode ("PreToolUse
// input"). A hook whose matcher names one of them runs for it; an empty
// tool_input, which Claude Code never sends for these tools, let a hook
// that reads its fields (an Agent hook reading subagent_type) find
// nothing, or tell an audit, and do nothing.
func TestDocumentedToolsHaveTheirInput(t *testing.T) {
	named := map[string][]string{
		"PowerShell":      {"command", "description"},
		"WebSearch":       {"query"},
		"Agent":           {"prompt", "description", "subagent_type"},
		"AskUserQuestion": {"questions"},
		"ExitPlanMode":    {"plan", "planFilePath"},
	}
	if len(named) != len(namedTools) {
		t.Errorf("namedTools %v; want the tools %v", namedTools, named)
	}
	for tool, fields := range named {
		in := DefaultToolInput(tool, "/repo")
		for _, f := range fields {
			if _, ok := in[f]; !ok {
				t.Errorf("%s: tool_input %v has no %s", tool, in, f)
			}
		}
		h := &Hook{Event: PreToolUse, Matcher: tool, HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || len(ps[0].Input["tool_input"].(map[string]any)) == 0 {
			t.Errorf("%s: payloads %v (%s), want one with the tool's input", tool, ps, why)
		}
	}
	q, _ := DefaultToolInput("AskUserQuestion", "/repo")["questions"].([]any)
	if len(q) == 0 {
		t.Fatalf("AskUserQuestion: questions %v, want an array of questions", q)
	}
	for _, f := range []string{"question", "header", "options", "multiSelect"} {
		if _, ok := q[0].(map[string]any)[f]; !ok {
			t.Errorf("AskUserQuestion: a question without %s: %v", f, q[0])
		}
	}
}

// TestPromptIDAfterTheFirstPrompt: prompt_id, the UUID of the user prompt
// being processed, is a common input field, "absent until the first user
// input" (hooks.md, "Common input fields"; its PreToolUse example carries
// it): a tool call's hook gets it, a SessionStart or Setup hook, or an
// InstructionsLoaded one at session start, does not. A hook that looked
// for it on a tool call could tell an audit that never sent it.
func TestPromptIDAfterTheFirstPrompt(t *testing.T) {
	before := map[string]string{SessionStart: "startup", Setup: "init", InstructionsLoaded: "session_start"}
	for _, ev := range EventNames() {
		tool := before[ev]
		if IsToolEvent(ev) {
			tool = "Bash"
		}
		p := BuildPayload(ev, tool, "/repo", nil, nil)
		_, has := p.Input["prompt_id"]
		if _, pre := before[ev]; has == pre {
			t.Errorf("%s: prompt_id sent %v, want %v", ev, has, !pre)
		}
	}
	if p := BuildPayload(InstructionsLoaded, "nested_traversal", "/repo", nil, nil); p.Input["prompt_id"] != defaultPromptID {
		t.Errorf("InstructionsLoaded of a nested CLAUDE.md, loaded in a turn: prompt_id %v", p.Input["prompt_id"])
	}
	got := string(BuildPayload(PreToolUse, "Bash", "/w", nil, nil).JSON())
	if !strings.Contains(got, `"cwd":"/w","prompt_id":"`+defaultPromptID+`","permission_mode":`) {
		t.Errorf("prompt_id follows cwd, as Claude Code's createBaseHookInput writes it (the reference's list names it second): %s", got)
	}
	// Each run sends an id of its own in its place, as it does the session's.
	if sent := newRunIdentity("r").send.Replace(got); strings.Contains(sent, defaultPromptID) {
		t.Errorf("the run sends the fixed prompt id: %s", sent)
	}
}

// TestNewerEventsKeyOrder: a payload's keys are in the order Claude Code
// writes them, the order of each event's input example in hooks.md (a
// hook that compares its raw input with what Claude Code sends would see
// a sorted one of vigiles' own otherwise).
func TestNewerEventsKeyOrder(t *testing.T) {
	for ev, want := range map[string][]string{
		InstructionsLoaded:  {"hook_event_name", "file_path", "memory_type", "load_reason"},
		UserPromptExpansion: {"hook_event_name", "expansion_type", "command_name", "command_args", "command_source", "prompt"},
		MessageDisplay:      {"hook_event_name", "turn_id", "message_id", "index", "final", "delta"},
		TaskCreated:         {"hook_event_name", "task_id", "task_subject", "task_description"},
		TaskCompleted:       {"hook_event_name", "task_id", "task_subject", "task_description"},
		TeammateIdle:        {"hook_event_name", "teammate_name", "team_name"},
		CwdChanged:          {"hook_event_name", "old_cwd", "new_cwd"},
		DirectoryAdded:      {"hook_event_name", "directory", "source"},
		Elicitation:         {"hook_event_name", "mcp_server_name", "message", "mode", "requested_schema"},
		ElicitationResult:   {"hook_event_name", "mcp_server_name", "action", "content", "mode"},
		StopFailure:         {"hook_event_name", "error", "error_details", "last_assistant_message"},
	} {
		tool := ""
		if spec := knownEvents[ev]; spec.MatchField != "" {
			tool = spec.Values[0]
		}
		if ev == StopFailure {
			tool = "invalid_request" // an error that has error_details
		}
		var got []string
		dec := json.NewDecoder(strings.NewReader(string(BuildPayload(ev, tool, "/repo", nil, nil).JSON())))
		dec.Token() // {
		for dec.More() {
			tok, _ := dec.Token()
			if k, _ := tok.(string); slices.Contains(want, k) {
				got = append(got, k)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: keys %v, want %v", ev, got, want)
		}
	}
}

// TestConfigChangeNamesItsFile: a ConfigChange payload carries the
// file_path of the file that changed (hooks.md, "ConfigChange input"),
// the one its source names; a hook that audits the change reads it. A
// PostToolUse payload carries duration_ms, as its example and
// PostToolUseFailure's do.
func TestConfigChangeNamesItsFile(t *testing.T) {
	for src, want := range map[string]string{
		"project_settings": "/repo/.claude/settings.json",
		"local_settings":   "/repo/.claude/settings.local.json",
		"user_settings":    sandbox.Home + "/.claude/settings.json",
		"policy_settings":  "/etc/claude-code/managed-settings.json",
		"skills":           "/repo/.claude/skills/example-skill/SKILL.md",
	} {
		if got := BuildPayload(ConfigChange, src, "/repo", nil, nil).Input["file_path"]; got != want {
			t.Errorf("ConfigChange %s: file_path %v, want %s", src, got, want)
		}
	}
	if _, ok := BuildPayload(PostToolUse, "Bash", "/repo", nil, nil).Input["duration_ms"].(float64); !ok {
		t.Errorf("PostToolUse has no duration_ms")
	}
}

// TestInstructionsLoadedFieldsFollowReason: the hooks reference's
// "InstructionsLoaded input" ties globs to a path_glob_match load,
// trigger_file_path to a lazy load (nested_traversal, path_glob_match)
// and parent_file_path to an include load; vigiles sent none of them,
// and the work tree's CLAUDE.md as the file of every load, so that a hook
// that reads globs, or the file that triggered the load, took a path no
// session takes.
func TestInstructionsLoadedFieldsFollowReason(t *testing.T) {
	for _, tc := range []struct {
		reason, file, trigger, parent string
		globs                         []any
	}{
		{reason: "session_start", file: "/repo/CLAUDE.md"},
		{reason: "nested_traversal", file: "/repo/src/CLAUDE.md", trigger: "/repo/src/main.go"},
		{reason: "path_glob_match", file: "/repo/.claude/rules/go.md", trigger: "/repo/src/main.go", globs: []any{"src/**/*.go"}},
		{reason: "include", file: "/repo/docs/conventions.md", parent: "/repo/CLAUDE.md"},
		{reason: "compact", file: "/repo/CLAUDE.md"},
	} {
		var in map[string]any
		if err := json.Unmarshal(BuildPayload(InstructionsLoaded, tc.reason, "/repo", nil, nil).JSON(), &in); err != nil {
			t.Fatal(err)
		}
		str := func(k string) string { s, _ := in[k].(string); return s }
		if in["load_reason"] != tc.reason || str("file_path") != tc.file || str("trigger_file_path") != tc.trigger || str("parent_file_path") != tc.parent {
			t.Errorf("%s: file_path %v, trigger_file_path %v, parent_file_path %v; want %q, %q, %q", tc.reason, in["file_path"], in["trigger_file_path"], in["parent_file_path"], tc.file, tc.trigger, tc.parent)
		}
		if got, _ := in["globs"].([]any); !slices.Equal(got, tc.globs) || (tc.globs == nil) != (in["globs"] == nil) {
			t.Errorf("%s: globs %v, want %v", tc.reason, in["globs"], tc.globs)
		}
	}
	// The reference's table lists them after load_reason.
	got := string(BuildPayload(InstructionsLoaded, "path_glob_match", "/repo", nil, nil).JSON())
	if !regexp.MustCompile(`"load_reason":"path_glob_match","globs":\[[^]]*\],"trigger_file_path":`).MatchString(got) {
		t.Errorf("globs and trigger_file_path do not follow load_reason: %s", got)
	}
}

// TestSessionModelSendsEffort: the payloads of a tool-use context carry
// effort, which Claude Code sends only where the session's model
// supports it (hooks.md, "Common input fields"), and the model
// configuration reference's "Adjust effort level" lists the models that
// do; SessionStart named claude-sonnet-4-5, which it does not list, so
// that one session's payloads disagreed. Every payload that names the
// session's model names the same one, one that sends effort.
func TestSessionModelSendsEffort(t *testing.T) {
	effortModels := []string{"claude-opus-5", "claude-sonnet-5", "claude-opus-4-8", "claude-opus-4-7", "claude-opus-4-6", "claude-sonnet-4-6"}
	if !knownEvents[PreToolUse].Effort {
		t.Fatal("PreToolUse carries no effort")
	}
	for _, tc := range []struct{ event, field string }{
		{SessionStart, "model"},
		{PreModelSwitch, "from_model"},
		{PostModelSwitch, "from_model"},
	} {
		spec := knownEvents[tc.event]
		got := BuildPayload(tc.event, spec.Values[0], "/repo", nil, nil).Input[tc.field]
		if got != defaultModel || !slices.Contains(effortModels, defaultModel) {
			t.Errorf("%s: %s %v, want %s, a model that sends effort (%v)", tc.event, tc.field, got, defaultModel, effortModels)
		}
	}
}

// TestSkillAndToolSearchHaveTheirInput: a tool event's matcher that
// selects Skill or ToolSearch ran its hook with an empty tool_input,
// which Claude Code never sends: Skill's input is a skill name and
// optional args, ToolSearch's a query and max_results. A hook that reads
// tool_input.skill took a path no session takes.
func TestSkillAndToolSearchHaveTheirInput(t *testing.T) {
	for tool, fields := range map[string][]string{"Skill": {"skill", "args"}, "ToolSearch": {"query", "max_results"}} {
		h := &Hook{Event: PreToolUse, Matcher: tool, HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Tool != tool {
			t.Fatalf("%s: payloads %v (%s), want one for the tool", tool, ps, why)
		}
		in := ps[0].Input["tool_input"].(map[string]any)
		if len(in) != len(fields) {
			t.Errorf("%s: tool_input %v, want the fields %v", tool, in, fields)
		}
		for _, f := range fields {
			if _, ok := in[f]; !ok {
				t.Errorf("%s: tool_input %v has no %s", tool, in, f)
			}
		}
	}
	if s, _ := DefaultToolInput("Skill", "/repo")["skill"].(string); s == "" {
		t.Errorf("Skill: tool_input.skill %q, want a skill's name", s)
	}
	if n, ok := DefaultToolInput("ToolSearch", "/repo")["max_results"].(int); !ok || n <= 0 {
		t.Errorf("ToolSearch: max_results %v, want a number", n)
	}
}

// TestPostToolUseResponseShapes: PostToolUse's tool_response has the
// shape the hooks reference shows ("PostToolUse input": Write's
// {filePath, type: "create"}; "PostToolUse decision control": Bash's
// {stdout, stderr, interrupted, isImage}), and Edit's the fields of the
// Agent SDK's FileEditOutput, not a success flag no tool returns; so do
// ExitPlanMode's and Agent's, whose sections of the reference name their
// fields (the plan and its filePath; a background subagent's status
// "async_launched", agentId, description and prompt) and which had the
// success flag.
func TestPostToolUseResponseShapes(t *testing.T) {
	for tool, want := range map[string]string{
		"Write": `"tool_response":{"filePath":"/repo/notes.txt","type":"create"}`,
		"Bash":  `"tool_response":{"stdout":"README.md\n","stderr":"","interrupted":false,"isImage":false}`,
		"Edit": `"tool_response":{"filePath":"/repo/README.md","oldString":"Hello","newString":"Hello, world","originalFile":"Hello\n",` +
			`"structuredPatch":[{"oldStart":1,"oldLines":1,"newStart":1,"newLines":1,"lines":["-Hello","+Hello, world"]}],"userModified":false,"replaceAll":false}`,
		// The reference's "ExitPlanMode" and "Agent" sections: the plan
		// and its file; a subagent launched in the background.
		"ExitPlanMode": `"tool_response":{"plan":"## Add a unit test for the parser\n1. Write the test\n2. Run it\n","isAgent":false,"filePath":"` + sandbox.Home + `/.claude/plans/add-parser-test.md"}`,
		"Agent":        `"tool_response":{"prompt":"` + defaultSubagentPrompt + `","description":"Find API endpoints","status":"async_launched","agentId":"` + defaultAgentID + `"}`,
	} {
		got := string(BuildPayload(PostToolUse, tool, "/repo", nil, nil).JSON())
		if !strings.Contains(got, want) {
			t.Errorf("%s: %s\nwant it to hold %s", tool, got, want)
		}
	}
}

// TestMCPServerOnMCPToolPayloads: the tool events' input for an MCP tool
// carries mcp_server, the server's name and where its definition came
// from (hooks.md, "PreToolUse input"; PermissionRequest, PostToolUse,
// PostToolUseFailure and PermissionDenied name it too); no other tool's
// input has it, nor does any other event's.
func TestMCPServerOnMCPToolPayloads(t *testing.T) {
	for _, ev := range EventNames() {
		tool := ""
		if IsToolEvent(ev) {
			tool = "mcp__example__search"
		}
		got := string(BuildPayload(ev, tool, "/repo", nil, nil).JSON())
		want := IsToolEvent(ev)
		if has := strings.Contains(got, `"mcp_server":`); has != want {
			t.Errorf("%s: mcp_server sent %v, want %v: %s", ev, has, want, got)
		}
		if want && !strings.Contains(got, `"mcp_server":{"name":"example","source":"project"}`) {
			t.Errorf("%s: mcp_server is not the project's server example: %s", ev, got)
		}
		if IsToolEvent(ev) && strings.Contains(string(BuildPayload(ev, "Bash", "/repo", nil, nil).JSON()), "mcp_server") {
			t.Errorf("%s: Bash, no MCP tool, carries mcp_server", ev)
		}
	}
	// A plugin's server (Claude Code names its tools mcp__plugin_<plugin>_<server>__<tool>).
	if got := string(BuildPayload(PreToolUse, "mcp__plugin_fmt_db__query", "/repo", nil, nil).JSON()); !strings.Contains(got, `"mcp_server":{"name":"plugin_fmt_db","source":"plugin"}`) {
		t.Errorf("a plugin's MCP tool: %s", got)
	}
	// mcp__ alone, or no tool after the server, is no MCP tool name.
	for _, tool := range []string{"mcp__", "mcp__srv", "mcp____x"} {
		if got := string(BuildPayload(PreToolUse, tool, "/repo", nil, nil).JSON()); strings.Contains(got, "mcp_server") {
			t.Errorf("%s: %s", tool, got)
		}
	}
}

// TestTaskAndMonitorToolsHaveTheirInput: TodoWrite, TaskCreate,
// TaskUpdate and Monitor, which plugins' matchers name
// (TaskCreate|TaskUpdate|TodoWrite), get the input Claude Code's schema
// for each gives (the Agent SDK's TodoWriteInput, TaskCreateInput,
// TaskUpdateInput, MonitorInput), never the empty one Claude Code never
// sends, which took a hook that branches on it down a path no session
// does and told it it was audited. The fields are the schema's own
// (TaskCreate's is strict) and in the order the schema lists them.
func TestTaskAndMonitorToolsHaveTheirInput(t *testing.T) {
	schema := map[string]struct{ required, allowed []string }{
		"TodoWrite":  {[]string{"todos"}, []string{"todos"}},
		"TaskCreate": {[]string{"subject", "description"}, []string{"subject", "description", "activeForm", "metadata"}},
		"TaskUpdate": {[]string{"taskId"}, []string{"taskId", "subject", "description", "activeForm", "status", "addBlocks", "addBlockedBy", "owner", "metadata"}},
		"Monitor":    {[]string{"description", "timeout_ms"}, []string{"description", "timeout_ms", "command", "ws"}},
	}
	for tool, s := range schema {
		in := DefaultToolInput(tool, "/repo")
		for _, f := range s.required {
			if _, ok := in[f]; !ok {
				t.Errorf("%s: tool_input %v has no %s", tool, in, f)
			}
		}
		for f := range in {
			if !slices.Contains(s.allowed, f) {
				t.Errorf("%s: tool_input has %s, which its schema does not", tool, f)
			}
		}
		h := &Hook{Event: PreToolUse, Matcher: "TaskCreate|TaskUpdate|TodoWrite|Monitor", HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		found := false
		for _, p := range ps {
			if p.Tool == tool {
				found = true
				if len(p.Input["tool_input"].(map[string]any)) == 0 {
					t.Errorf("%s: payload with an empty tool_input", tool)
				}
			}
		}
		if !found {
			t.Errorf("%s: payloads %v (%s), none for it", tool, ps, why)
		}
	}
	todos, _ := DefaultToolInput("TodoWrite", "/repo")["todos"].([]any)
	if len(todos) == 0 {
		t.Fatalf("TodoWrite: todos %v, want a list", todos)
	}
	for _, td := range todos {
		m := td.(map[string]any)
		for _, f := range []string{"content", "status", "activeForm"} {
			if _, ok := m[f].(string); !ok {
				t.Errorf("TodoWrite: a todo without %s: %v", f, m)
			}
		}
		if st := m["status"]; st != "pending" && st != "in_progress" && st != "completed" {
			t.Errorf("TodoWrite: status %v", st)
		}
	}
	for tool, want := range map[string]string{
		"TodoWrite":  `"tool_input":{"todos":[{"content":"Implement user authentication","status":"in_progress","activeForm":`,
		"TaskCreate": `"tool_input":{"subject":"Implement user authentication","description":"Add login and signup endpoints","activeForm":`,
		"TaskUpdate": `"tool_input":{"taskId":"` + defaultTaskID + `","status":"completed"}`,
		"Monitor":    `"tool_input":{"command":"tail -f build.log","description":"Watch the build log","timeout_ms":300000}`,
	} {
		if got := string(BuildPayload(PreToolUse, tool, "/repo", nil, nil).JSON()); !strings.Contains(got, want) {
			t.Errorf("%s: payload %s\nwant it to hold %s", tool, got, want)
		}
	}
}

// TestNotificationQuotaTypes: a Notification hook whose matcher selects
// the usage-limit notifications Claude Code 2.1.234 and later send
// (quota_auto_resume_fired, _stale, _disabled) gets one of those types, as
// Claude Code sends it, not a value vigiles built from the expression.
func TestNotificationQuotaTypes(t *testing.T) {
	for _, tc := range []struct{ matcher, want string }{
		{"^quota_auto_resume_", "quota_auto_resume_fired"},
		{"quota_auto_resume_(stale|disabled)", "quota_auto_resume_stale"},
		{"quota_auto_resume_disabled", "quota_auto_resume_disabled"},
	} {
		h := &Hook{Event: Notification, Matcher: tc.matcher, HasMatcher: true, Type: TypeCommand, Command: "x"}
		ps, why := toolsFor(h, nil, "/repo")
		if len(ps) != 1 || ps[0].Input["notification_type"] != tc.want {
			t.Errorf("matcher %q: payloads %v (%s); want one with notification_type %s", tc.matcher, ps, why, tc.want)
		}
	}
}
