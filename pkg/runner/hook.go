package runner

import (
	"time"

	"github.com/vigiles/action/pkg/report"
)

// Hook types as Claude Code names them. Only command hooks are executable
// by vigiles; the others are listed as declared.
const (
	TypeCommand = "command"
	TypeHTTP    = "http"
	TypePrompt  = "prompt"
	TypeAgent   = "agent"
	TypeMCPTool = "mcp_tool"
)

// Hook is one declared hook handler: an event, a matcher group, and one
// entry of its "hooks" array.
type Hook struct {
	// ID is stable across runs and unrelated edits: the declaring file,
	// the event, and the indexes of the matcher group and handler, e.g.
	// "plugins/guard/hooks/hooks.json#PreToolUse[0].hooks[1]".
	ID string
	// Adapter names the format that declared it ("claude").
	Adapter string
	// Plugin is the plugin's name (from its manifest, else its directory),
	// or "project" / "project-local" for settings files.
	Plugin string
	// PluginRoot is the plugin's directory, relative to the work tree
	// ("." for the repository itself).
	PluginRoot string
	Event      string
	// Matcher is the group's matcher as written; HasMatcher says whether
	// the field was present.
	Matcher    string
	HasMatcher bool
	Type       string
	// Command is the command as declared; Expanded has
	// ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PROJECT_DIR} substituted.
	Command  string
	Expanded string
	// If is the handler's `if` condition (permission-rule syntax).
	If string
	// Timeout is the handler's own timeout; 0 means the default.
	Timeout time.Duration
	// Location is the line of "command" (or of the handler when it has
	// none).
	Location report.Location
	// MatcherLocation points at the matcher (or the group) for matcher
	// findings.
	MatcherLocation report.Location
	// Trusted is set from .vigiles.yml: authored here, not vendored.
	Trusted bool
	// InPlugin says the hook belongs to a plugin, so it runs with
	// CLAUDE_PLUGIN_ROOT set (settings-file hooks do not).
	InPlugin bool
	// AgentType is, for a hook an agent declares in its frontmatter, the
	// agent_type Claude Code gives that agent (its name; for a plugin's
	// agent prefixed "<plugin>:"): the one a SubagentStop payload carries
	// when the agent stops. "" for every other hook.
	AgentType string
}

// Executable says whether vigiles can run the hook.
func (h *Hook) Executable() bool { return h.Type == TypeCommand && h.Command != "" }

// Discovery is what an adapter found under one root: hooks in declaration
// order and findings about malformed declarations.
type Discovery struct {
	Hooks    []*Hook
	Findings []report.Finding
	// Plugins lists the plugin roots (relative to the work tree) seen.
	Plugins []string
}

// Adapter discovers the hooks of one agent's plugin format. Another
// agent's format plugs in by implementing it and being added to Adapters.
type Adapter interface {
	// Name is a short identifier, e.g. "claude".
	Name() string
	// Discover looks for declarations under root (an absolute directory
	// inside the work tree dir). It never fails on malformed input: bad
	// files become findings. The error is for I/O the adapter could not do
	// at all.
	Discover(dir, root string) (*Discovery, error)
}

// Adapters are the formats vigiles knows, tried in order on every root.
var Adapters = []Adapter{ClaudeAdapter{}}
