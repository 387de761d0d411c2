package runner

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/reaper"
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
	// ID is stable across runs and unrelated edits: the declaring file
	// (as idFile names it: a name that is not UTF-8 quoted), the event,
	// and the indexes of the matcher group and handler, e.g.
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
	// Exec says the handler has `args`: Claude Code then spawns Command
	// (looked up in PATH) with Args as its argument vector, no shell
	// involved (exec form). Args are as declared; ExpandedArgs have the
	// placeholders substituted, each as a plain string.
	Exec         bool
	Args         []string
	ExpandedArgs []string
	// Shell is the handler's `shell` as declared ("" when absent). On
	// Linux Claude Code runs a shell-form command with `sh -c` for both
	// "" and "bash"; exec form ignores it.
	Shell string
	// Async says the handler runs in the background (`async` or
	// `asyncRewake`): Claude Code does not wait for it, so it cannot
	// block or decide anything.
	Async bool
	// Rewake says the handler sets `asyncRewake`: Claude Code runs it
	// in the background without taking its timeout off, as it does for
	// one that is only `async` (execCommandHook backgrounds that one,
	// which clears its timeout, and leaves an asyncRewake hook's).
	Rewake bool
	// FailBlocks says the handler sets onFailure "block" (Claude Code
	// 2.1.295 and later): where the hook fails (an exit status other
	// than 0 and 2, a kill, no start) Claude Code reads the failure as
	// it reads exit status 2, and blocks where that blocks (failBlocks).
	FailBlocks bool
	// NotRun, when set, says why vigiles lists this command hook without
	// running it (a shell it cannot honour, or settings that turn it off).
	NotRun string
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
	// SkillRoot is, for a hook of a project's skill (its SKILL.md's
	// frontmatter), the skill's directory relative to the work tree:
	// Claude Code runs it with CLAUDE_PLUGIN_ROOT set to that directory
	// (its registerSkillHooks passes the skill's root, which
	// execCommandHook exports so), though it substitutes no
	// ${CLAUDE_PLUGIN_ROOT} in its command, as it does for a plugin's.
	SkillRoot string
	// InstalledAs is the ID Claude Code installs the hook's plugin
	// directory under, name@marketplace (the marketplace entry's name,
	// or name@skills-dir for a skills-directory plugin), "" where no
	// marketplace of the tree's lists it: Claude Code names the plugin's
	// data directory after it (pluginDataID).
	InstalledAs string
	// Scoped says a skill, agent or command declares the hook in its
	// frontmatter: Claude Code runs it only while that one is active.
	Scoped bool
	// AlsoNamed holds, for a plugin's own declarations (its manifest's,
	// its hooks file's, its components'), the other names its directory
	// is installed under: the names of the marketplace entries that
	// reach it, and its own, that Plugin is not. The directory is read
	// once, under the first name that reaches it, but Claude Code installs
	// it under each: a settings key turns its hooks off only where it
	// turns off every one of them, and a remote source of any of them
	// next to the vendored copy is an error (remoteVendored).
	AlsoNamed []string
	// PluginOptions are, for a plugin's hook, its userConfig values
	// (pluginOptions) as Claude Code exports them to its hooks,
	// CLAUDE_PLUGIN_OPTION_<KEY>=VALUE.
	PluginOptions []string
	// SettingsEnv is the "env" of the settings of the session the hook
	// runs in (settingsOf), NAME=VALUE: Claude Code gives it to every
	// hook, under the variables it sets for the hook itself.
	SettingsEnv []string
	// PermissionMode is the permission mode the session the hook runs in
	// starts in, as its settings' defaultMode sets it (settingsMode): the
	// payloads' permission_mode.
	PermissionMode string
	// MainAgent is the agent the main thread of the hook's session runs
	// as, which its settings' "agent" names (settingsAgent): the
	// payloads' agent_type where they carry no agent's own.
	MainAgent string
	// relScript is, for a project hook, the first script of the project
	// it runs by a path relative to the directory it runs in, and for a
	// plugin's hook the first file of its plugin it runs so where the work
	// tree holds that path (checkScripts; RuleRelativePath); relPython
	// says a Python runs it.
	relScript string
	relPython bool
	// ProjectDir is, for a project hook (a settings file's, or a project
	// skill's, agent's or command's) declared in a .claude directory below
	// the work tree's own (a monorepo package's), that directory's parent,
	// relative to the work tree: the directory Claude Code is started in
	// (or, for a skill, works in) when it loads them. The hook runs there,
	// with CLAUDE_PROJECT_DIR naming it, as Claude Code would run it. ""
	// for every other hook: the work tree.
	ProjectDir string
	// Declared is the handler as declared, as a baseline keeps a hook
	// that is listed, not run (BaselineRun.Declared): its JSON, compact,
	// with keys sorted and the last of a key given twice (as Claude Code
	// reads it), a frontmatter's YAML as the JSON it reads as; for a
	// handler of markdown carried inline in a JSON string (whose hooks
	// are all placed at the string), "(inline markdown, sha256 <hex>)" of
	// the string. Filled in by discovery from what it parsed, so that it
	// is the declaration the audit saw; only for http, prompt, agent and
	// mcp_tool hooks, the ones a baseline keeps it of.
	Declared string
	// AgentType is, for a hook an agent declares in its frontmatter, the
	// agent_type Claude Code gives that agent (its name; for a plugin's
	// agent prefixed "<plugin>:"): the one a SubagentStop payload carries
	// when the agent stops. "" for every other hook.
	AgentType string
}

// alsoName adds n to AlsoNamed, kept sorted, unless it is "" or the
// hook's Plugin or there already.
func (h *Hook) alsoName(n string) {
	if n == "" || n == h.Plugin {
		return
	}
	if i, found := slices.BinarySearch(h.AlsoNamed, n); !found {
		h.AlsoNamed = slices.Insert(h.AlsoNamed, i, n)
	}
}

// context is where the hook runs (report.HookRun.Context): its plugin's
// root, or the directory whose .claude declares it.
func (h *Hook) context() string {
	if h.InPlugin {
		return "plugin:" + h.PluginRoot
	}
	if h.ProjectDir != "" {
		return "project:" + h.ProjectDir
	}
	return "project:."
}

// Executable says whether vigiles can run the hook.
func (h *Hook) Executable() bool { return h.Type == TypeCommand && h.Command != "" && h.NotRun == "" }

// pluginDataPrelude runs before a plugin hook, under sh: the command's
// HOME is known only inside the run (the sandbox's throwaway one, or the
// caller's on a direct run), so it sets CLAUDE_PLUGIN_DATA to
// $HOME/.claude/plugins/data/<id> ($1), exports the $2 variables that
// follow (the start-up variables its own shell started without: see
// argv), substitutes ${CLAUDE_PLUGIN_DATA} in each word of the hook's
// argv, which comes after them, as a plain string (POSIX pattern
// removal, no re-parsing), and execs the argv: builtins only, no process
// of its own once it exported them. Its own variables are named
// _vigiles_* and unset before the exec: a variable of the hook's
// environment (a settings env's "a" or "k") passes it untouched. The directory is Claude Code's to make: in a confined run the
// sandbox has made it (Spec.HomeDirs, so that it is no write of the
// hook's); a direct run makes it here, in the caller's HOME.
//
// Before the exec it looks the program up as execvp does (a name without
// '/' in each directory of PATH, an empty one the current directory; a
// path as it is): Claude Code spawns an exec-form command with no shell,
// so a program that is missing, or that no found file can execute, is the
// hook's failure, and it is said as a shell says its own, "bun: not
// found" with exit status 127, "<path>: Permission denied" with 126. An
// exec that failed would name this prelude and its line instead
// ("vigiles-plugin-data: 22: exec: bun: not found"), read as vigiles
// failing. Where PATH is unset a name is left to exec.
const pluginDataPrelude = `CLAUDE_PLUGIN_DATA="$HOME/.claude/plugins/data/$1"
export CLAUDE_PLUGIN_DATA
[ -d "$CLAUDE_PLUGIN_DATA" ] || mkdir -p -- "$CLAUDE_PLUGIN_DATA" || exit 1
_vigiles_k=$2
shift 2
while [ "$_vigiles_k" -gt 0 ]; do
	command export "$1" 2>/dev/null
	shift
	_vigiles_k=$((_vigiles_k - 1))
done
_vigiles_n=$#
while [ "$_vigiles_n" -gt 0 ]; do
	_vigiles_a=$1 _vigiles_r=
	while :; do
		case $_vigiles_a in
		*'${CLAUDE_PLUGIN_DATA}'*)
			_vigiles_r=$_vigiles_r${_vigiles_a%%'${CLAUDE_PLUGIN_DATA}'*}$CLAUDE_PLUGIN_DATA
			_vigiles_a=${_vigiles_a#*'${CLAUDE_PLUGIN_DATA}'}
			;;
		*) break ;;
		esac
	done
	shift
	set -- "$@" "$_vigiles_r$_vigiles_a"
	_vigiles_n=$((_vigiles_n - 1))
done
case $1 in
*/*)
	_vigiles_e=
	if [ ! -e "$1" ]; then
		_vigiles_e=127
	elif [ -d "$1" ] || [ ! -x "$1" ]; then
		_vigiles_e=126
	fi
	;;
*)
	_vigiles_e=${PATH+127} _vigiles_p=${PATH+$PATH:}
	while [ -n "$_vigiles_p" ]; do
		_vigiles_f=${_vigiles_p%%:*}
		_vigiles_p=${_vigiles_p#*:}
		_vigiles_f=${_vigiles_f:-.}/$1
		if [ -f "$_vigiles_f" ] && [ -x "$_vigiles_f" ]; then
			_vigiles_e=
			break
		fi
		[ ! -e "$_vigiles_f" ] || _vigiles_e=126
	done
	;;
esac
case $_vigiles_e in
127) printf '%s: not found\n' "$1" >&2 ;;
126) printf '%s: Permission denied\n' "$1" >&2 ;;
esac
[ -z "$_vigiles_e" ] || exit "$_vigiles_e"
unset _vigiles_a _vigiles_r _vigiles_n _vigiles_e _vigiles_p _vigiles_f _vigiles_k
exec "$@"`

// dataID is the directory name Claude Code gives the hook's plugin's
// data: pluginDataID of plugin@marketplace where the tree's marketplace
// that lists it is known (formatter@my-marketplace's is
// formatter-my-marketplace: a name alone, which no installed plugin has,
// would tell a hook it is audited), else of its name alone.
func (h *Hook) dataID() string {
	if h.InstalledAs != "" {
		return pluginDataID(h.InstalledAs)
	}
	return pluginDataID(h.Plugin)
}

// pluginDataID is the directory name Claude Code gives a plugin's data
// (plugins-reference.md, "Persistent data directory"): its identifier
// with every character outside a-z, A-Z, 0-9, '_' and '-' made '-'.
func pluginDataID(plugin string) string {
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, plugin)
	if id == "" {
		id = "-"
	}
	return id
}

// dataDir is the hook's plugin's data directory relative to HOME.
func (h *Hook) dataDir() string {
	return ".claude/plugins/data/" + h.dataID()
}

// argv is the command line Claude Code would start for the hook on Linux:
// exec form spawns the expanded command with the expanded args; shell form
// passes the expanded command to `sh -c` (Claude Code's shell on macOS and
// Linux, whether `shell` is absent or "bash").
//
// A plugin's hook also gets CLAUDE_PLUGIN_DATA, its placeholder
// substituted, through pluginDataPrelude. The prelude is a shell of
// vigiles' that Claude Code does not start: the loader's and shells'
// start-up variables of env (reaper.StartupVar: LD_PRELOAD, …) come to it
// as arguments, which it exports just before it becomes the hook, so that
// a preloaded library runs where it runs under Claude Code and not once
// more; the environment returned is env without them.
func (h *Hook) argv(env []string) (argv, rest []string) {
	argv = []string{"/bin/sh", "-c", h.Expanded}
	if h.Exec {
		argv = append([]string{h.Expanded}, h.ExpandedArgs...)
	}
	if !h.InPlugin {
		return argv, env
	}
	var late []string
	for _, kv := range env {
		// A name no shell can export stays in the environment: the
		// sandbox refuses a run that has one (reaper.shellCommand).
		if name, _, _ := strings.Cut(kv, "="); reaper.StartupVar(name) && reaper.ShellName(name) {
			late = append(late, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	prelude := []string{"/bin/sh", "-c", pluginDataPrelude, "vigiles-plugin-data", h.dataID(), strconv.Itoa(len(late))}
	return append(append(prelude, late...), argv...), rest
}

// Discovery is what an adapter found under one root: hooks in declaration
// order and findings about malformed declarations.
type Discovery struct {
	Hooks    []*Hook
	Findings []report.Finding
	// Skipped holds, by name (relative to the tree), the settings files
	// Claude Code skips entirely (skipBrokenSettings), with why: none of
	// their keys applies.
	Skipped map[string]string
	// Plugins lists the plugin roots (relative to the work tree) seen.
	Plugins []string
	// PluginNames holds, by plugin root, the name its hooks run under
	// (Hook.Plugin: its manifest's, else that of the entry or the
	// directory it was first reached by), hooks or none.
	PluginNames map[string]string
	// Markets holds, by plugin name, the names of the tree's marketplaces
	// that list it with a local source: an "enabledPlugins" key
	// "name@marketplace" of one of them is the one that decides.
	Markets map[string][]string
	// Installs holds, by plugin root (relative to the tree), the IDs
	// (name@marketplace, name@skills-dir) Claude Code installs it under.
	Installs map[string][]string
	// Bounded holds the indexes in Findings of the errors that a bound
	// of the discovery left declarations unread: they hold for every
	// part of the tree, wherever they point.
	Bounded []int
	// About holds, by index in Findings, the directories (relative to
	// the tree) a finding concerns that it does not point into: an
	// entry of a marketplace elsewhere that installs another source
	// than a plugin vendored here. An audit of some PATHs keeps a
	// finding about a directory under them.
	About map[int][]string
	// Projects lists the directories (relative to the tree, "." for
	// the tree) whose .claude discovery read as a project's.
	Projects []string
	// UnreadFixtures holds, by index in Findings, the directory
	// (relative to the tree) of each notice that a test's fixture is
	// not read: a plugin inside a listed plugin (fixtureNotices), a
	// .claude in a test's directory (fixtureProject). An audit that
	// names that directory as a PATH reads it, and drops the notice.
	UnreadFixtures map[int]string
	// MarketDirs holds, by marketplace name, the directories (relative
	// to the tree) of the marketplaces of that name discovery read.
	MarketDirs map[string][]string
	// MarketFiles holds, by marketplace name, the marketplace files
	// (relative to the tree) of that name discovery read: a root's
	// .claude-plugin/marketplace.json, or a file settings name.
	MarketFiles map[string][]string
	// Servers are the MCP and LSP servers plugins declare (servers.go),
	// named in findings once the session knows its settings.
	Servers []*Server
}

// decl is h's ID without what tells the context that read the handler
// ("#in:" and its root) or a second declaration of it ("#2"): the file
// and the handler's place in it (which holds no '#'), whoever reads it.
func (h *Hook) decl() string {
	file := idFile(h.Location.File)
	rest, ok := strings.CutPrefix(h.ID, file+"#")
	if !ok {
		return h.ID
	}
	place, _, _ := strings.Cut(rest, "#")
	return file + "#" + place
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

// shownCommand is the command as a report names it: as declared, and in
// exec form followed by its args, each quoted as sh would need it so
// that where one argument ends stays visible (and a change to one is a
// change to the command a baseline accepted).
func (h *Hook) shownCommand() string {
	if !h.Exec {
		return h.Command
	}
	var b strings.Builder
	b.WriteString(h.Command)
	for _, a := range h.Args {
		b.WriteByte(' ')
		b.WriteString(shQuote(a))
	}
	return b.String()
}

// shQuote quotes s for sh when it needs it.
func shQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
