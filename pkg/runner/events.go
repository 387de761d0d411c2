package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// eventSpec says how vigiles builds an event's input.
type eventSpec struct {
	// Tool events carry tool_name/tool_input and match on the tool name;
	// the `if` condition applies to them only.
	Tool bool
	// NoMode says Claude Code sends the event's hooks no permission_mode:
	// "Not all events receive this field" (hooks.md, "Common input
	// fields"); the events whose input example in the reference lacks it
	// (the session's own events, and those outside a turn's tool loop).
	// A hook that finds the field where Claude Code never sends it could
	// tell an audit.
	NoMode bool
	// BeforePrompt says the event fires before the session's first user
	// input (SessionStart, Setup), and BeforePromptOn the values of
	// MatchField on which it does (the instructions loaded at session
	// start): such a payload has no prompt_id, "absent until the first
	// user input" (hooks.md, "Common input fields"). Every other payload
	// carries the id of the prompt being processed.
	BeforePrompt   bool
	BeforePromptOn []string
	// Effort says the event fires within a tool-use context, so that its
	// input carries effort, the effort level of the session's model,
	// where the model supports effort: "Present for events that fire
	// within a tool-use context, such as PreToolUse, PostToolUse, Stop,
	// and SubagentStop" (hooks.md, "Common input fields"). vigiles sends
	// it on the tool events, the batch after them, Stop, SubagentStop
	// and StopFailure (Claude Code builds their input with the turn's
	// tool-use context, its createBaseHookInput's last argument). Every
	// other event's input has none.
	Effort bool
	// EnvFile says Claude Code gives the event's hooks CLAUDE_ENV_FILE, a
	// file whose content it runs before each Bash command of the session.
	EnvFile bool
	// MatchField names the input field a matcher is compared with on
	// non-tool events ("" = the event ignores matchers).
	MatchField string
	// Values are the values of MatchField vigiles can send, the first
	// being the default.
	Values []string
	// Closed says Values are all Claude Code ever sends, so that a check
	// naming another would run a payload that never occurs. Open lists
	// (agent types, which custom and plugin agents extend; notification
	// types, which grow with Claude Code's features) take any value.
	Closed bool
	// Fields are the event's own fields (beyond the common ones and the
	// tool fields), with default values.
	Fields func(cwd string) map[string]any
	// ValueFields, when set, are fields that follow the value of
	// MatchField sent (a command's prompt follows its name).
	ValueFields func(cwd, value string) map[string]any
}

// Event names.
const (
	SessionStart       = "SessionStart"
	UserPromptSubmit   = "UserPromptSubmit"
	PreToolUse         = "PreToolUse"
	PostToolUse        = "PostToolUse"
	PostToolUseFailure = "PostToolUseFailure"
	PermissionRequest  = "PermissionRequest"
	Notification       = "Notification"
	Stop               = "Stop"
	SubagentStop       = "SubagentStop"
	PreCompact         = "PreCompact"
	PostCompact        = "PostCompact"
	SessionEnd         = "SessionEnd"
	Setup              = "Setup"
	CwdChanged         = "CwdChanged"
	FileChanged        = "FileChanged"

	// Events of Claude Code's hooks reference (hooks.md) added since the
	// fifteen above.
	UserPromptExpansion = "UserPromptExpansion"
	PermissionDenied    = "PermissionDenied"
	PostToolBatch       = "PostToolBatch"
	MessageDisplay      = "MessageDisplay"
	SubagentStart       = "SubagentStart"
	TaskCreated         = "TaskCreated"
	TaskCompleted       = "TaskCompleted"
	StopFailure         = "StopFailure"
	TeammateIdle        = "TeammateIdle"
	InstructionsLoaded  = "InstructionsLoaded"
	ConfigChange        = "ConfigChange"
	DirectoryAdded      = "DirectoryAdded"
	WorktreeCreate      = "WorktreeCreate"
	WorktreeRemove      = "WorktreeRemove"
	Elicitation         = "Elicitation"
	ElicitationResult   = "ElicitationResult"

	// The model-switch events (Claude Code 2.1.251 and later).
	PreModelSwitch  = "PreModelSwitch"
	PostModelSwitch = "PostModelSwitch"
)

// Values vigiles sends in the payloads of the events above.
const (
	defaultAgentID      = "a000000000000001" // the form of the Agent tool's agentId: "a" and 15 hex digits
	defaultTaskID       = "task-001"
	defaultWorktree     = "bold-oak-a3f2"
	defaultMCPServer    = "example" // the server of mcp__example__search (DefaultTools)
	defaultToolUseID    = "toolu_01VIGILES0000000000000000"
	defaultTurnID       = "00000000-0000-4000-8000-000000000001"
	defaultMessageID    = "00000000-0000-4000-8000-000000000002"
	defaultPromptID     = "00000000-0000-4000-8000-000000000003"
	defaultTeamName     = "session-00000000" // "session-" and sessionID's first 8 characters (runIdentity)
	defaultTeammateName = "researcher"
)

// defaultEffort is the effort level a default session sends (eventSpec.
// Effort): where no --effort, effortLevel setting or
// CLAUDE_CODE_EFFORT_LEVEL sets one, its model's default, "high" on
// every model that supports effort but Opus 4.7 (the model configuration
// reference, "Adjust effort level"). The session's model is defaultModel,
// which supports it; a model that reference does not list (Sonnet and
// Haiku 4.5, and older) sends none.
const defaultEffort = "high"

// defaultModel is the model of the session vigiles' payloads are of, as
// SessionStart's model names it: Sonnet 5, what the sonnet alias, Claude
// Code's default, resolves to on the Anthropic API (the model
// configuration reference), the model of the hooks reference's
// "SessionStart input" example, and one that supports effort, which
// every payload of a tool-use context carries (defaultEffort). The model
// switches switch from it (modelSwitchFields).
const defaultModel = "claude-sonnet-5"

// fileChangedDefault is the file a FileChanged hook is told changed when
// its matcher names none (a direnv setup's usual file).
const fileChangedDefault = ".envrc"

var knownEvents = map[string]eventSpec{
	SessionStart: {NoMode: true, BeforePrompt: true, MatchField: "source", Values: []string{"startup", "resume", "clear", "compact", "fork"}, Closed: true, EnvFile: true,
		Fields: func(string) map[string]any { return map[string]any{"model": defaultModel} }},
	UserPromptSubmit: {Fields: func(string) map[string]any {
		return map[string]any{"prompt": defaultUserPrompt}
	}},
	PreToolUse:  {Tool: true, Effort: true},
	PostToolUse: {Tool: true, Effort: true},
	// PostToolUseFailure's error depends on the tool: see BuildPayload.
	PostToolUseFailure: {Tool: true, Effort: true, Fields: func(string) map[string]any {
		return map[string]any{"error": "The tool failed", "is_interrupt": false, "duration_ms": 1200.0}
	}},
	PermissionRequest: {Tool: true, Effort: true, Fields: func(string) map[string]any {
		return map[string]any{"permission_suggestions": []any{}}
	}},
	Notification: {NoMode: true, MatchField: "notification_type", Values: []string{"permission_prompt", "idle_prompt", "auth_success", "elicitation_dialog",
		"elicitation_url_dialog", "elicitation_complete", "elicitation_response", "agent_needs_input", "agent_completed",
		// Claude Code 2.1.234 and later, around a claude.ai usage limit
		// (hooks.md, "Notification").
		"quota_auto_resume_fired", "quota_auto_resume_stale", "quota_auto_resume_disabled"},
		Fields: func(string) map[string]any {
			return map[string]any{"message": "Claude needs your permission to use Bash", "title": "Claude Code"}
		}},
	Stop: {Effort: true, Fields: func(string) map[string]any {
		return map[string]any{"stop_hook_active": false, "last_assistant_message": defaultAssistantMessage,
			"background_tasks": []any{}, "session_crons": []any{}}
	}},
	SubagentStop: {Effort: true, MatchField: "agent_type", Values: []string{"general-purpose", "Explore", "Plan"},
		Fields: func(cwd string) map[string]any {
			return map[string]any{"stop_hook_active": false, "agent_id": defaultAgentID,
				"agent_transcript_path":  transcriptDir(cwd) + "/" + sessionID + "/subagents/agent-" + defaultAgentID + ".jsonl",
				"last_assistant_message": defaultSubagentMessage,
				"background_tasks":       []any{}, "session_crons": []any{}}
		}},
	// PreCompact's custom_instructions is null for an automatic
	// compaction, and for a manual one whose /compact names none (the
	// hooks reference's "PreCompact input", whose example has null;
	// earlier copies of it said "empty" and showed ""): vigiles' /compact
	// names none.
	PreCompact: {NoMode: true, MatchField: "trigger", Values: []string{"manual", "auto"}, Closed: true,
		Fields: func(string) map[string]any { return map[string]any{"custom_instructions": nil} }},
	PostCompact: {NoMode: true, MatchField: "trigger", Values: []string{"manual", "auto"}, Closed: true,
		Fields: func(string) map[string]any {
			return map[string]any{"compact_summary": "Summary of the compacted conversation"}
		}},
	SessionEnd: {NoMode: true, MatchField: "reason", Values: []string{"other", "clear", "resume", "logout", "prompt_input_exit"}, Closed: true},
	// Setup, CwdChanged and FileChanged hooks get CLAUDE_ENV_FILE as
	// SessionStart hooks do (hooks.md, "Persist environment variables").
	Setup: {NoMode: true, BeforePrompt: true, MatchField: "trigger", Values: []string{"init", "maintenance"}, Closed: true, EnvFile: true},
	CwdChanged: {NoMode: true, EnvFile: true, Fields: func(cwd string) map[string]any {
		return map[string]any{"old_cwd": path.Dir(cwd), "new_cwd": cwd}
	}},
	// FileChanged's matcher names the files watched (split on '|', each a
	// literal name in the working directory): the payload's file_path is
	// the first of them (see toolsFor), Payload.Tool its name.
	FileChanged: {NoMode: true, EnvFile: true, Fields: func(cwd string) map[string]any {
		return map[string]any{"file_path": path.Join(cwd, fileChangedDefault), "event": "change"}
	}},

	// The events below are as hooks.md documents them (each event's
	// "input" section, and the "Matcher patterns" table for what a
	// matcher filters). A field the reference calls optional, or whose
	// value would depend on another in a way it does not spell out, is
	// left out rather than guessed.
	//
	// UserPromptExpansion matches the command's name; the prompt is the
	// command as typed.
	UserPromptExpansion: {MatchField: "command_name", Values: []string{"example-skill"},
		Fields: func(string) map[string]any {
			return map[string]any{"expansion_type": "slash_command", "command_args": "", "command_source": "plugin"}
		},
		ValueFields: func(_, v string) map[string]any { return map[string]any{"prompt": "/" + v} }},
	// PermissionDenied fires in auto mode only, and carries the tool call
	// (tool_use_id too) and the denial's reason.
	PermissionDenied: {Tool: true, Effort: true, Fields: func(string) map[string]any {
		return map[string]any{"reason": "Blocked by classifier", "permission_mode": "auto"}
	}},
	// PostToolBatch: one call per batch, no matcher; tool_response is the
	// serialized tool_result the model saw (for Read, numbered lines).
	PostToolBatch: {Effort: true, Fields: func(cwd string) map[string]any {
		return map[string]any{"tool_calls": []any{map[string]any{
			"tool_name": "Read", "tool_input": map[string]any{"file_path": path.Join(cwd, "README.md")},
			"tool_use_id": defaultToolUseID, "tool_response": "     1\tHello\n",
		}}}
	}},
	// MessageDisplay, as non-interactive runs send it: one call with the
	// whole message.
	MessageDisplay: {NoMode: true, Fields: func(string) map[string]any {
		return map[string]any{"turn_id": defaultTurnID, "message_id": defaultMessageID, "index": 0.0, "final": true,
			"delta": "I added the test and it passes.\n"}
	}},
	SubagentStart: {NoMode: true, MatchField: "agent_type", Values: []string{"general-purpose", "Explore", "Plan"},
		Fields: func(string) map[string]any { return map[string]any{"agent_id": defaultAgentID} }},
	TaskCreated: {Fields: func(string) map[string]any {
		return map[string]any{"task_id": defaultTaskID, "task_subject": "Implement user authentication",
			"task_description": "Add login and signup endpoints"}
	}},
	TaskCompleted: {Fields: func(string) map[string]any {
		return map[string]any{"task_id": defaultTaskID, "task_subject": "Implement user authentication",
			"task_description": "Add login and signup endpoints"}
	}},
	// StopFailure matches the error type; the error's own fields follow
	// it (stopFailureFields). The reference calls them optional; Claude
	// Code's code says when it sends them: last_assistant_message
	// whenever the error message has text, which it always has. The
	// error types are those the hooks reference lists ("StopFailure
	// input": overloaded among them, which vigiles follows, though it
	// found no path of Claude Code's that sets it, an overloaded API's
	// 529 ending the turn as server_error), and verification_required,
	// of the SDK's assistant-message error enum, which vigiles accepted
	// before; in the enum's order, the most common first
	// (cloud_credential_error since 2.1.267, for a cloud provider's
	// credentials).
	StopFailure: {NoMode: true, Effort: true, MatchField: "error", Values: []string{"rate_limit", "overloaded", "authentication_failed", "oauth_org_not_allowed",
		"account_on_hold", "verification_required", "billing_error", "invalid_request", "model_not_found", "server_error", "unknown",
		"max_output_tokens", "cloud_credential_error"}, Closed: true, ValueFields: stopFailureFields},
	TeammateIdle: {Fields: func(string) map[string]any {
		return map[string]any{"teammate_name": defaultTeammateName, "team_name": defaultTeamName}
	}},
	// InstructionsLoaded matches load_reason; the file loaded, and
	// globs, trigger_file_path and parent_file_path, follow it
	// (instructionsFields).
	InstructionsLoaded: {NoMode: true, BeforePromptOn: []string{"session_start"}, MatchField: "load_reason", Values: []string{"session_start", "nested_traversal", "path_glob_match", "include", "compact"}, Closed: true,
		Fields: func(cwd string) map[string]any {
			return map[string]any{"file_path": path.Join(cwd, "CLAUDE.md"), "memory_type": "Project"}
		},
		ValueFields: instructionsFields},
	// ConfigChange matches the source; file_path, which the reference's
	// example carries, is the file the source names.
	ConfigChange: {NoMode: true, MatchField: "source", Values: []string{"project_settings", "local_settings", "user_settings", "policy_settings", "skills"}, Closed: true,
		ValueFields: func(cwd, v string) map[string]any {
			f, ok := map[string]string{
				"project_settings": path.Join(cwd, ".claude/settings.json"),
				"local_settings":   path.Join(cwd, ".claude/settings.local.json"),
				"user_settings":    sandbox.Home + "/.claude/settings.json",
				"policy_settings":  "/etc/claude-code/managed-settings.json",
				"skills":           path.Join(cwd, ".claude/skills/example-skill/SKILL.md"),
			}[v]
			if !ok {
				return nil
			}
			return map[string]any{"file_path": f}
		}},
	DirectoryAdded: {NoMode: true, MatchField: "source", Values: []string{"slash_command", "register_repo_root"}, Closed: true,
		Fields: func(cwd string) map[string]any {
			return map[string]any{"directory": path.Join(path.Dir(cwd), "other-repo")}
		}},
	WorktreeCreate: {NoMode: true, Fields: func(string) map[string]any { return map[string]any{"name": defaultWorktree} }},
	WorktreeRemove: {NoMode: true, Fields: func(cwd string) map[string]any {
		return map[string]any{"worktree_path": path.Join(cwd, ".claude/worktrees", defaultWorktree)}
	}},
	// Elicitation and ElicitationResult match the MCP server's name; a
	// form-mode request, and the user's answer to it. Neither carries
	// permission_mode: the hooks reference's input examples of both carry
	// none (as fetched in October 2026; earlier copies of it showed
	// "default" there), as a payload Claude Code 2.1.148 sent does not.
	Elicitation: {NoMode: true, MatchField: "mcp_server_name", Values: []string{defaultMCPServer},
		Fields: func(string) map[string]any {
			return map[string]any{"message": "Please provide your credentials", "mode": "form",
				"requested_schema": map[string]any{"type": "object",
					"properties": map[string]any{"username": map[string]any{"type": "string", "title": "Username"}}}}
		}},
	// PreModelSwitch and PostModelSwitch match the canonical name of the
	// model switched to (to_model); the list is open. What re-sending the
	// conversation to it costs comes with it, as in the reference's
	// example.
	PreModelSwitch: {NoMode: true, MatchField: "to_model", Values: []string{"claude-opus-5", "claude-sonnet-5", "claude-haiku-5"},
		Fields: modelSwitchFields, ValueFields: func(_, v string) map[string]any { return map[string]any{"requested_model": v} }},
	PostModelSwitch: {NoMode: true, MatchField: "to_model", Values: []string{"claude-opus-5", "claude-sonnet-5", "claude-haiku-5"},
		Fields: modelSwitchFields, ValueFields: func(_, v string) map[string]any { return map[string]any{"requested_model": v} }},
	ElicitationResult: {NoMode: true, MatchField: "mcp_server_name", Values: []string{defaultMCPServer},
		Fields: func(string) map[string]any {
			return map[string]any{"action": "accept", "mode": "form", "content": map[string]any{"username": "alice"}}
		}},
}

// modelSwitchFields are a model switch's own fields (PreModelSwitch,
// PostModelSwitch), with the reference's example's values: a switch from
// Sonnet; to_model, and the requested_model that names it by its ID, are
// the matcher value the run is for.
func modelSwitchFields(string) map[string]any {
	return map[string]any{"from_model": defaultModel, "to_model": "claude-opus-5", "source": "command",
		"context_tokens": 182340.0, "prompt_cache_warm": true, "cache_ttl": "5m", "estimated_cache_write_usd": 1.1396, "pricing": "catalog"}
}

// instructionsFields are an InstructionsLoaded's fields for the load
// reason v, as the hooks reference's "InstructionsLoaded input" ties them
// to it: a lazy load (nested_traversal, path_glob_match) carries
// trigger_file_path, the file whose access loaded it; a path_glob_match
// load, a rule of .claude/rules loaded for the paths: globs of its
// frontmatter, carries those globs; an include load carries
// parent_file_path, the file whose import loaded it. A nested_traversal
// loads the CLAUDE.md of the subdirectory Claude reads in, not the work
// tree's own. session_start and compact load the work tree's CLAUDE.md
// and carry none of the three.
func instructionsFields(cwd, v string) map[string]any {
	trigger := path.Join(cwd, "src/main.go")
	switch v {
	case "nested_traversal":
		return map[string]any{"file_path": path.Join(cwd, "src/CLAUDE.md"), "trigger_file_path": trigger}
	case "path_glob_match":
		return map[string]any{"file_path": path.Join(cwd, ".claude/rules/go.md"), "globs": []any{"src/**/*.go"}, "trigger_file_path": trigger}
	case "include":
		return map[string]any{"file_path": path.Join(cwd, "docs/conventions.md"), "parent_file_path": path.Join(cwd, "CLAUDE.md")}
	}
	return nil
}

// stopFailureMessages are the texts of the API error messages that end a
// turn in a -p session, by error type, as Claude Code writes them; an
// error type without one here gets the text Claude Code falls back on.
var stopFailureMessages = map[string]string{
	"rate_limit":            "API Error: Request rejected (429) · this may be a temporary capacity issue — check status.anthropic.com",
	"authentication_failed": `Failed to authenticate. API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
	"oauth_org_not_allowed": "Your organization does not have access to Claude. Please login again or contact your administrator.",
	"billing_error":         "Credit balance is too low",
	"invalid_request":       "Prompt is too long",
	"server_error":          "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.",
	"overloaded":            "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.",
	"max_output_tokens":     "API Error: Claude's response exceeded the 32000 output token maximum. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable.",
	"unknown":               "Request timed out",
}

// stopFailureFields are a StopFailure's fields for the error type v, in
// the order Claude Code writes them after the error (its
// executeStopFailureHooks): error_details, the API's raw error, which it
// keeps beside the message for a few errors only (a prompt too long, a
// PDF or an image too large) and otherwise leaves out, and
// last_assistant_message, the text of the error message that ended the
// turn.
func stopFailureFields(_, v string) map[string]any {
	msg, ok := stopFailureMessages[v]
	if !ok {
		msg = "API Error"
	}
	out := map[string]any{"last_assistant_message": msg}
	if v == "invalid_request" {
		out["error_details"] = `400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}`
	}
	return out
}

// EventNames lists the events vigiles has payloads for, sorted.
func EventNames() []string {
	out := make([]string, 0, len(knownEvents))
	for k := range knownEvents {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// nearEvent is the event vigiles knows that name, an event it does not
// know, is a slip of the keys away from (textdist.Nearest), or "".
func nearEvent(name string) string {
	return textdist.Nearest(name, EventNames())
}

// caseOfEvent is the event of Claude Code's that name, which vigiles does
// not know, differs from only in case (PreToolUse for PreTooluse or
// pretooluse); "" where it is none. Claude Code matches an event's name
// exactly, so it runs no hook of such a name, under any version: it
// would not add an event that differs from one of its own only in case.
func caseOfEvent(name string) string {
	for _, e := range EventNames() {
		if strings.EqualFold(e, name) {
			return e
		}
	}
	return ""
}

// unknownCheckEvent is what a check whose event: names an event vigiles
// does not know is told: that vigiles has neither a payload nor Claude
// Code's reading of an outcome for it, so that no check can run it
// (an audit runs such a hook once, with the common fields only, or, of
// an event no version of Claude Code runs, none:
// discovery/unknown-event), the known event it is nearly, if any, and
// the events a check can name.
func unknownCheckEvent(name string) string {
	if strings.TrimSpace(name) == "" {
		return fmt.Sprintf("event %q: want one of %s", name, strings.Join(EventNames(), ", "))
	}
	why := "an event newer than this vigiles, or a typo"
	if like := nearEvent(name); like != "" {
		why = fmt.Sprintf("did you mean %s? Claude Code matches an event's name exactly, case and all", like)
	}
	audit := "an audit runs its hooks once, with the common fields only, and warns discovery/unknown-event"
	if lowerEvent(name) || caseOfEvent(name) != "" {
		// No event Claude Code runs, under any version (claude.go's event).
		audit = "an audit lists its hooks, runs none, as Claude Code runs none, and warns discovery/unknown-event"
	}
	return fmt.Sprintf("event %q: vigiles does not know it (%s): it has no payload for it, nor Claude Code's reading of its outcome, so no check can run it (%s); want one of %s",
		name, why, audit, strings.Join(EventNames(), ", "))
}

// readsMatcher reports whether Claude Code reads a hook's matcher on
// event: a tool event's, one with a matcher value (SessionStart's
// source), FileChanged's files; an event vigiles does not know, or one
// that ignores matchers (Stop), runs its hooks whatever the matcher says.
// Those it ignores are the events the hooks reference's "Matcher
// patterns" table gives "no matcher support"; a matcher written on one
// is a discovery/ignored-matcher warning (ignoresMatcher).
func readsMatcher(event string) bool {
	spec, known := knownEvents[event]
	return known && (spec.Tool || spec.MatchField != "" || event == FileChanged)
}

// IsToolEvent reports whether event carries a tool call.
func IsToolEvent(event string) bool { return knownEvents[event].Tool }

// DefaultTools is the documented default tool set: one payload per tool a
// tool event's matcher selects, in this order.
var DefaultTools = []string{"Bash", "Edit", "Write", "Read", "Glob", "Grep", "WebFetch", "mcp__example__search"}

// namedTools are the tools outside DefaultTools whose input the hooks
// reference documents: a matcher that names one gets that input
// (DefaultToolInput).
var namedTools = []string{"PowerShell", "WebSearch", "Agent", "AskUserQuestion", "ExitPlanMode"}

// kindTools are the tools matchers name whose input the hooks reference
// does not document, which get the input of their kind, or the one
// Claude Code's own schema for the tool gives (Skill, ToolSearch,
// TodoWrite, TaskCreate, TaskUpdate, Monitor) (DefaultToolInput).
var kindTools = []string{"MultiEdit", "NotebookEdit", "Task", "Skill", "ToolSearch", "TodoWrite", "TaskCreate", "TaskUpdate", "Monitor"}

// DefaultToolInput returns the default tool_input of a tool, with file
// paths under cwd (Claude Code sends absolute paths). Unknown tools get an
// empty object.
func DefaultToolInput(tool, cwd string) map[string]any {
	switch tool {
	case "Bash":
		return map[string]any{"command": "ls -la", "description": "List files in the current directory"}
	case "Edit":
		return map[string]any{"file_path": path.Join(cwd, "README.md"), "old_string": "Hello", "new_string": "Hello, world", "replace_all": false}
	case "Write":
		return map[string]any{"file_path": path.Join(cwd, "notes.txt"), "content": "remember the milk\n"}
	case "Read":
		return map[string]any{"file_path": path.Join(cwd, "README.md")}
	case "Glob":
		return map[string]any{"pattern": "**/*.go"}
	case "Grep":
		return map[string]any{"pattern": "TODO", "path": cwd, "output_mode": "files_with_matches"}
	case "WebFetch":
		return map[string]any{"url": "https://docs.example.test/guide", "prompt": "Summarise this page"}
	case "mcp__example__search":
		return map[string]any{"query": "open issues"}

	// Tools the hooks reference documents the input of ("PreToolUse
	// input") outside the default set: a matcher that names one runs for
	// it, with the input Claude Code sends it, never an empty one.
	case "PowerShell":
		return map[string]any{"command": "Get-ChildItem", "description": "List files in the current directory"}
	case "WebSearch":
		return map[string]any{"query": "react hooks best practices"}
	case "Agent":
		return map[string]any{"description": "Find API endpoints", "prompt": defaultSubagentPrompt, "subagent_type": "Explore"}
	case "AskUserQuestion":
		// As Claude Code's schema for the tool has it (the Agent SDK's
		// AskUserQuestionInput, sdk-tools.d.ts): one to four questions,
		// each with its question, a header of at most 12 characters, two
		// to four options, each with a label and a description, both
		// required, and multiSelect.
		return map[string]any{"questions": []any{map[string]any{"question": "Which framework?", "header": "Framework",
			"options": []any{map[string]any{"label": "React", "description": "A library for building user interfaces from components"},
				map[string]any{"label": "Vue", "description": "A progressive framework for building user interfaces"}},
			"multiSelect": false}}}
	// Tools matchers name that the reference does not document the
	// input of (MultiEdit, of earlier versions; NotebookEdit; Task,
	// Agent's earlier name): the input of their kind, not an empty one
	// that a hook reading tool_input.file_path fails on.
	case "MultiEdit":
		return map[string]any{"file_path": path.Join(cwd, "README.md"), "edits": []any{map[string]any{"old_string": "Hello", "new_string": "Hello, world", "replace_all": false}}}
	case "NotebookEdit":
		return map[string]any{"notebook_path": path.Join(cwd, "analysis.ipynb"), "cell_id": "cell-1", "new_source": "print('hello')\n", "cell_type": "code", "edit_mode": "replace"}
	case "Task":
		return map[string]any{"description": "Find API endpoints", "prompt": defaultSubagentPrompt, "subagent_type": "Explore"}
	// Skill and ToolSearch: the input Claude Code's schema for the tool
	// gives (Skill: a skill name and optional args; ToolSearch: a query
	// and max_results, which it defaults to 5), never an empty one that
	// a hook reading tool_input.skill finds nothing in.
	case "Skill":
		return map[string]any{"skill": "review-pr", "args": "123"}
	case "ToolSearch":
		return map[string]any{"query": "notebook jupyter", "max_results": 5}
	// TodoWrite, TaskCreate, TaskUpdate and Monitor: the input of the
	// Agent SDK's TodoWriteInput, TaskCreateInput, TaskUpdateInput and
	// MonitorInput (sdk-tools.d.ts, generated from Claude Code's own
	// schemas): TodoWrite never comes without its todos, each with
	// content, status and activeForm; TaskCreate with a subject and a
	// description (the task TaskCreated shows), activeForm optional;
	// TaskUpdate with the taskId and what changes, here the task marked
	// done, the call a hook that gates completion is for; Monitor with
	// a description and timeout_ms, and the command it watches. An
	// empty input, which Claude Code never sends, took a hook that
	// branches on it down a path no session does, and told it it was
	// audited.
	case "TodoWrite":
		return map[string]any{"todos": []any{
			map[string]any{"content": "Implement user authentication", "status": "in_progress", "activeForm": "Implementing user authentication"},
			map[string]any{"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"}}}
	case "TaskCreate":
		return map[string]any{"subject": "Implement user authentication", "description": "Add login and signup endpoints",
			"activeForm": "Implementing user authentication"}
	case "TaskUpdate":
		return map[string]any{"taskId": defaultTaskID, "status": "completed"}
	case "Monitor":
		return map[string]any{"command": "tail -f build.log", "description": "Watch the build log", "timeout_ms": 300000.0}
	case "ExitPlanMode":
		// Claude Code injects the plan and its file (written under HOME)
		// before the hooks run.
		return map[string]any{"plan": "## Add a unit test for the parser\n1. Write the test\n2. Run it\n",
			"planFilePath": sandbox.Home + "/.claude/plans/add-parser-test.md"}
	}
	return map[string]any{}
}

// defaultToolResponse is what PostToolUse sends as the tool's response:
// for Write and Bash the shapes the hooks reference shows (Write's
// {filePath, type: "create"} in "PostToolUse input", Bash's {stdout,
// stderr, interrupted, isImage} in "PostToolUse decision control"); for
// Edit, which it shows none of, the fields of the Agent SDK's
// FileEditOutput, the edit of the call's input made to a file that held
// its old_string; for Read, a text file read; for ExitPlanMode and
// Agent, the fields the reference's sections of those tools name.
func defaultToolResponse(tool string, input map[string]any) map[string]any {
	switch tool {
	case "Bash":
		return map[string]any{"stdout": "README.md\n", "stderr": "", "interrupted": false, "isImage": false}
	case "Write":
		return map[string]any{"filePath": input["file_path"], "type": "create"}
	case "Edit":
		oldS, _ := input["old_string"].(string)
		newS, _ := input["new_string"].(string)
		all, _ := input["replace_all"].(bool)
		oldL, newL := strings.Split(oldS, "\n"), strings.Split(newS, "\n")
		lines := make([]any, 0, len(oldL)+len(newL))
		for _, l := range oldL {
			lines = append(lines, "-"+l)
		}
		for _, l := range newL {
			lines = append(lines, "+"+l)
		}
		return map[string]any{"filePath": input["file_path"], "oldString": oldS, "newString": newS, "originalFile": oldS + "\n",
			"structuredPatch": []any{map[string]any{"oldStart": 1.0, "oldLines": float64(len(oldL)), "newStart": 1.0, "newLines": float64(len(newL)), "lines": lines}},
			"userModified":    false, "replaceAll": all}
	case "Read":
		return map[string]any{"type": "text", "file": map[string]any{"filePath": input["file_path"], "content": "Hello\n"}}
	case "ExitPlanMode":
		// "an object with plan and filePath fields holding the approved
		// plan" (hooks.md, "ExitPlanMode"), with isAgent, which the Agent
		// SDK's ExitPlanModeOutput requires: false, the main thread's.
		return map[string]any{"plan": input["plan"], "isAgent": false, "filePath": input["planFilePath"]}
	case "Agent":
		// A subagent runs in the background where the call sets no
		// run_in_background (Claude Code 2.1.198 and later), and the tool
		// returns as it launches: status "async_launched", with agentId,
		// description and prompt (hooks.md, "Agent"; the Agent SDK's
		// AgentOutput). Its outputFile, whose path neither says the form
		// of, and resolvedModel, the model of the subagent type, are left
		// out rather than guessed.
		return map[string]any{"status": "async_launched", "agentId": defaultAgentID, "description": input["description"], "prompt": input["prompt"]}
	}
	return map[string]any{"success": true}
}

// Payload is one event input vigiles sends a hook.
type Payload struct {
	Event string
	// Tool is the tool name of a tool event, or the matcher value of a
	// non-tool event (e.g. "startup"); "" when the event has neither.
	Tool  string
	Input map[string]any
}

// JSON returns the payload as the bytes sent on stdin, as Claude Code
// writes them: keys in its order (keyOrder; others after them, sorted),
// and '<', '>' and '&' as they are, not escaped as Go's encoder would
// (a hook that looks for "&&" in its raw input finds it). The bytes are
// deterministic.
func (p Payload) JSON() []byte {
	b, err := appendJSON(nil, p.Input)
	if err != nil {
		// Inputs are built from JSON and YAML values only.
		panic("runner: marshalling payload: " + err.Error())
	}
	return b
}

// keyOrder is the order Claude Code writes a hook input's keys in: the
// common fields (its createBaseHookInput's: session_id, transcript_path,
// cwd, prompt_id, permission_mode, agent_id, agent_type, effort), then
// the event's, then those of tool inputs and responses. A key holds one
// place at every depth. createBaseHookInput's scratchpad_dir, after cwd,
// is not sent: Claude Code sends it only where the session's scratchpad
// is on, which a feature gate of its server's (tengu_scratch) decides
// per account and which is off where that gate is not known.
var keyOrder = func() map[string]int {
	m := map[string]int{}
	for i, k := range []string{
		"session_id", "transcript_path", "cwd", "prompt_id", "permission_mode", "agent_id", "agent_type", "effort", "hook_event_name",
		"tool_name", "tool_input", "tool_response", "tool_use_id", "error", "error_details", "is_interrupt", "duration_ms", "permission_suggestions", "mcp_server",
		"expansion_type", "command_name", "command_args", "command_source",
		"prompt", "mcp_server_name", "message", "title", "notification_type", "directory", "name", "source", "model", "reason", "trigger",
		"custom_instructions", "compact_summary", "turn_id", "message_id", "index", "final", "delta",
		"task_id", "task_subject", "task_description", "teammate_name", "team_name", "old_cwd", "new_cwd",
		"stop_hook_active", "agent_transcript_path", "last_assistant_message",
		"todos", "taskId", "subject",
		"command", "label", "description", "timeout", "timeout_ms", "run_in_background", "subagent_type",
		"questions", "question", "header", "options", "multiSelect", "plan", "planFilePath", "isAgent",
		"filePath", "type", "file", "file_path", "memory_type", "load_reason", "globs", "trigger_file_path", "parent_file_path", "old_string", "new_string", "replace_all",
		"oldString", "newString", "originalFile", "structuredPatch", "oldStart", "oldLines", "newStart", "newLines", "lines", "userModified", "replaceAll",
		"action", "content", "status", "agentId", "activeForm", "mode", "requested_schema", "elicitation_id",
		"from_model", "to_model", "requested_model", "context_tokens", "prompt_cache_warm", "cache_ttl", "estimated_cache_write_usd", "pricing",
		"pattern", "path", "glob", "output_mode", "url", "query",
		"stdout", "stderr", "interrupted", "isImage", "success",
	} {
		m[k] = i
	}
	return m
}()

// appendJSON appends v as JSON: objects' keys in keyOrder, no HTML
// escaping.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			ri, iok := keyOrder[keys[i]]
			rj, jok := keyOrder[keys[j]]
			if iok != jok {
				return iok
			}
			if iok && ri != rj {
				return ri < rj
			}
			return keys[i] < keys[j]
		})
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendScalar(b, k); err != nil {
				return nil, err
			}
			b = append(b, ':')
			if b, err = appendJSON(b, x[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendScalar(b, v)
}

func appendScalar(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// transcriptDir is where Claude Code keeps the transcripts of sessions
// started in cwd: under HOME's .claude/projects, in a directory named
// after cwd with every character but ASCII letters and digits made '-',
// one for each UTF-16 unit, as a JavaScript regular expression replaces
// them (one for "é", two for a character past U+FFFF).
func transcriptDir(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return sandbox.Home + "/.claude/projects/" + b.String()
}

// sessionID is the session id a plan's payloads hold; each run sends
// its hook a fresh one in its place (runIdentity).
const sessionID = "00000000-0000-4000-8000-000000000000"

// BuildPayload builds the input of event for tool (or matcher value) with
// the common fields; toolInput overrides the default tool_input when not
// nil, and extra is merged over the top level last.
func BuildPayload(event, tool, cwd string, toolInput map[string]any, extra map[string]any) Payload {
	in := map[string]any{
		"session_id":      sessionID,
		"transcript_path": transcriptDir(cwd) + "/" + sessionID + ".jsonl",
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": event,
	}
	spec, known := knownEvents[event]
	if spec.NoMode {
		delete(in, "permission_mode")
	}
	if known && !spec.BeforePrompt && !slices.Contains(spec.BeforePromptOn, tool) {
		in["prompt_id"] = defaultPromptID
	}
	if spec.Effort {
		in["effort"] = map[string]any{"level": defaultEffort}
	}
	if known && spec.Fields != nil {
		for k, v := range spec.Fields(cwd) {
			in[k] = v
		}
	}
	if known && spec.Tool {
		ti := toolInput
		if ti == nil {
			ti = DefaultToolInput(tool, cwd)
		}
		in["tool_name"] = tool
		in["tool_input"] = ti
		if event != PermissionRequest { // it gets no tool_use_id
			in["tool_use_id"] = defaultToolUseID
		}
		if srv, ok := mcpServerOf(tool); ok {
			in["mcp_server"] = srv
		}
		if event == PostToolUse {
			in["tool_response"] = defaultToolResponse(tool, ti)
			in["duration_ms"] = 12.0
		}
		if event == PostToolUseFailure && tool == "Bash" {
			// A command that ran and failed: "Exit code N", then its
			// output, stdout and stderr interleaved.
			in["error"] = "Exit code 1\nError: Cannot find module 'express'"
		}
	} else if known && spec.MatchField != "" && tool != "" {
		in[spec.MatchField] = tool
		if spec.ValueFields != nil {
			for k, v := range spec.ValueFields(cwd, tool) {
				in[k] = v
			}
		}
	} else if event == FileChanged && tool != "" {
		in["file_path"] = path.Join(cwd, tool)
	}
	for k, v := range extra {
		in[k] = v
	}
	return Payload{Event: event, Tool: tool, Input: in}
}

// mcpServerOf is the mcp_server a tool event's input carries for the MCP
// tool mcp__<server>__<tool> (hooks.md, "PreToolUse input", which
// PermissionRequest, PostToolUse, PostToolUseFailure and PermissionDenied
// refer to; Claude Code 2.1.274 and later): the server's name, from the
// tool's name, and source, where its definition came from. A payload does
// not know where the server was found, so source is one the reference
// lists for the server vigiles audits: "plugin" for a plugin's server
// (whose tools Claude Code names mcp__plugin_<plugin>_<server>__…), else
// "project", a server of the work tree's .mcp.json. ok is false for a
// tool that is no MCP tool.
func mcpServerOf(tool string) (map[string]any, bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return nil, false
	}
	name, toolName, ok := strings.Cut(rest, "__")
	if !ok || name == "" || toolName == "" {
		return nil, false
	}
	source := "project"
	if strings.HasPrefix(name, "plugin_") {
		source = "plugin"
	}
	return map[string]any{"name": name, "source": source}, true
}

// sessionEndTimeoutVar is the variable of Claude Code's environment that
// sets, in milliseconds, the budget its SessionEnd hooks share in place
// of 1.5 s (claudeWait reckons with the 1.5 s).
const sessionEndTimeoutVar = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"

// The budget Claude Code's SessionEnd hooks share (hooks.md,
// "SessionEnd"): 1.5 s, "automatically raised to the highest per-hook
// timeout configured in settings files, up to 60 seconds. Timeouts set on
// plugin-provided hooks don't raise the budget."
const (
	sessionEndBudget    = 1500 * time.Millisecond
	sessionEndBudgetMax = 60 * time.Second
)

// sessionEndWait is how long Claude Code lets the SessionEnd hook h run,
// and why: its own timeout where the budget allows it, else the budget;
// the budget is 1.5 s, raised by the hook's own timeout, up to 60 s, only
// where a settings file declares it (a plugin's, or a skill's, agent's or
// command's frontmatter, raises it not). Other hooks' timeouts, which may
// raise it further, are not reckoned with, nor sessionEndTimeoutVar.
func sessionEndWait(h *Hook) (time.Duration, string) {
	budget := sessionEndBudget
	raises := !h.InPlugin && !h.Scoped
	if raises && h.Timeout > budget {
		budget = min(h.Timeout, sessionEndBudgetMax)
	}
	switch {
	case h.Timeout > 0 && h.Timeout <= budget:
		return h.Timeout, "its own timeout"
	case h.Timeout > 0 && raises:
		return budget, fmt.Sprintf("the budget SessionEnd hooks share, which its own timeout raises to %s at most", report.ShortDuration(sessionEndBudgetMax))
	case h.Timeout > 0 && h.InPlugin:
		return budget, "the budget SessionEnd hooks share, which a plugin's own timeout does not raise"
	case h.Timeout > 0:
		return budget, "the budget SessionEnd hooks share, which the own timeout of a frontmatter's hook does not raise"
	}
	return budget, "the budget SessionEnd hooks share"
}

// envFileVar is the variable that names a hook's env file to it.
const envFileVar = "CLAUDE_ENV_FILE"

// EnvFileEvents are the events whose hooks Claude Code gives
// CLAUDE_ENV_FILE (eventSpec.EnvFile), in the order of a session: the
// one list the messages, the help and the generated docs name.
func EnvFileEvents() []string {
	return eventsWhere(func(s eventSpec) bool { return s.EnvFile })
}

// eventsWhere lists the events whose spec keep holds, in the order of a
// session.
func eventsWhere(keep func(eventSpec) bool) []string {
	var out []string
	for _, ev := range docEvents {
		if keep(knownEvents[ev]) {
			out = append(out, ev)
		}
	}
	return out
}

// JoinWords joins words as a sentence lists them: "a, b and c" with conj
// "and".
func JoinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// envFileOf is where, relative to HOME, a hook of event finds its env
// file, as Claude Code lays it out (the session's directory, the event,
// the hook's index: each vigiles run is one hook alone); "" for an event
// whose hooks get none.
func envFileOf(event string) string {
	if !knownEvents[event].EnvFile {
		return ""
	}
	return ".claude/session-env/" + sessionID + "/" + strings.ToLower(event) + "-hook-0.sh"
}

// settingsMode is the permission mode a session whose settings files are
// files (settingsFiles: settings.local.json over settings.json) starts
// in, as its hooks' permission_mode says it: the permissions.defaultMode
// of the last file that sets one, where Claude Code takes that value from
// a project's files, else "default", the mode of a session that sets none
// (a non-interactive one, as the agent in CI is; a throwaway HOME has no
// user settings). Claude Code's settings reference ("permissions.
// defaultMode") lists default, acceptEdits, plan, auto, dontAsk and
// bypassPermissions, and manual, an alias of default (which hooks are
// sent); auto (since 2.1.142) and bypassPermissions (since 2.1.257) "don't
// take effect from project or local settings", and the session then
// starts in Manual mode, the file's value dropped rather than another
// file's taken (the Agent SDK's filterEscalatingDefaultMode, "the same
// trust-tier filter the CLI applies", drops it so too). A value Claude
// Code does not know is no mode either.
func settingsMode(files []settingsFile) string {
	for i := len(files) - 1; i >= 0; i-- {
		// A map, not a struct: Claude Code reads the key as spelt.
		var perms map[string]json.RawMessage
		raw, ok := files[i].keys["permissions"]
		if !ok || json.Unmarshal(raw, &perms) != nil || perms["defaultMode"] == nil {
			continue
		}
		var m string
		if json.Unmarshal(perms["defaultMode"], &m) != nil {
			return "default"
		}
		switch m {
		case "acceptEdits", "plan", "dontAsk":
			return m
		}
		return "default"
	}
	return "default"
}

// settingsAgent is the agent the main thread of a session runs as, which
// the "agent" of its settings files names (settings.local.json over
// settings.json; the settings reference's "agent"): Claude Code then sends
// it as agent_type in every hook's input (hooks.md, "Common input
// fields": present when the session uses --agent, which the setting is
// the default of). "" where no file sets it to a string, or the last
// that does sets it empty: the main thread is Claude Code's default
// agent. A value that is no string is passed over.
func settingsAgent(files []settingsFile) string {
	for i := len(files) - 1; i >= 0; i-- {
		var a string
		if raw, ok := files[i].keys["agent"]; ok && json.Unmarshal(raw, &a) == nil {
			return a
		}
	}
	return ""
}

// withMode is p with the permission mode of h's session (Hook.
// PermissionMode) where p carries the default one: a payload of an event
// that has no permission_mode, or another (PermissionDenied's auto), is
// kept, and so is one over (a check's payload:) sets. Where the session's
// main thread runs as an agent (Hook.MainAgent), p carries its type as
// agent_type, unless it carries an agent's own (a subagent's, which
// takes precedence, SubagentStart's and SubagentStop's among them) or
// over sets one.
func withMode(h *Hook, p Payload, over map[string]any) Payload {
	if _, set := over["agent_type"]; !set && h.MainAgent != "" && p.Input["agent_type"] == nil {
		p.Input["agent_type"] = h.MainAgent
	}
	if _, set := over["permission_mode"]; set || h.PermissionMode == "" || h.PermissionMode == "default" || p.Input["permission_mode"] != "default" {
		return p
	}
	p.Input["permission_mode"] = h.PermissionMode
	return p
}
