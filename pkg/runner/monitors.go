package runner

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/report"
)

// RuleMonitor names a plugin's background monitor, which vigiles does not
// run (monitors).
const RuleMonitor = "discovery/monitor"

// claudeMonitorsJSON is where a plugin declares its monitors by default.
const claudeMonitorsJSON = "monitors/monitors.json"

// maxMonitorCommand bounds the command a monitor finding quotes.
const maxMonitorCommand = 200

// maxMonitorName and maxMonitorWhen bound the names a monitor finding
// quotes before the command, as quoted (a name of control characters is
// four times as long quoted): the plugin chooses them, and unbounded they
// would push the command, which the finding is there to show, past what
// every surface shows of a message (the job summary's cell, 600
// characters; annotations and SARIF, 4096).
const (
	maxMonitorName = 64
	maxMonitorWhen = 40
)

// shownCut is shownName of s cut to n bytes once quoted. A quoted name
// (one of control characters, or of more than one line) is cut between
// two of its characters' escapes and its quote closed before the cut's
// note ("\"x\\n::error …\"… (246 bytes more)"), so that the reader sees
// where the text the plugin chose ends: cut as any string, its closing
// quote went with its tail, and the note read as part of the name.
func shownCut(s string, n int) string {
	q := shownName(s)
	if q == s {
		return cutBytes(q, n)
	}
	if cut := cutBytes(q, n); cut == q {
		return q
	}
	// strconv.Quote escapes s a character at a time (an invalid byte
	// alone), so the quoted prefix grows by each one's escape.
	size, i := 1, 0 // the opening quote
	for i < len(s) {
		_, w := utf8.DecodeRuneInString(s[i:])
		e := len(strconv.Quote(s[i:i+w])) - 2
		if size+e+1 > n {
			break
		}
		size += e
		i += w
	}
	return strconv.Quote(s[:i]) + fmt.Sprintf("… (%d bytes more)", len(q)-size-1)
}

// monitors names each background monitor the plugin at ctx declares: in
// monitors/monitors.json, or in its manifest's experimental.monitors (or
// the older top-level monitors), an array of entries or a path to a file
// of one, which replaces the default file. Claude Code starts a monitor
// with the session (or when one of the plugin's skills is first used)
// and runs its command unsandboxed beside it for the session's lifetime
// (plugins-reference.md, "Monitors"). vigiles does not run monitors: each
// is a warning that names it, so that an audit is never silent about
// code a plugin runs.
//
// Each is named once the session knows the plugin's settings
// (serverFindings), as its MCP and LSP servers are: a notice where they
// turn the plugin off.
func (c *claudeDisc) monitors(ctx hookCtx, manifest *jnode, manifestRel string) {
	field := monitorsField(manifest)
	if field == nil {
		if p := filepath.Join(ctx.pluginRoot, claudeMonitorsJSON); c.present(p, false) {
			c.addServers(ctx, c.monitorsFile(p), true)
		}
		return
	}
	c.addServers(ctx, c.monitorsIn(ctx, field, manifestRel), true)
}

// entryMonitors names the monitors a marketplace entry declares (an
// entry may hold any field of the plugin manifest): where it declares
// none, the plugin's own were named already.
func (c *claudeDisc) entryMonitors(ctx hookCtx, entry *jnode, entryFile string) {
	if field := monitorsField(entry); field != nil {
		c.addServers(ctx, c.monitorsIn(ctx, field, entryFile), false)
	}
}

// monitorsField is a manifest's (or a marketplace entry's) monitors
// field: experimental.monitors, else the older top-level monitors.
func monitorsField(manifest *jnode) *jnode {
	var field *jnode
	if x := manifest.get("experimental"); x != nil && x.Kind == jsonObject {
		field = x.get("monitors")
	}
	if field == nil {
		field = manifest.get("monitors")
	}
	return field
}

// monitorsIn reads the monitors of a monitors field in manifestRel:
// entries, or a path to a file of them.
func (c *claudeDisc) monitorsIn(ctx hookCtx, field *jnode, manifestRel string) []*Server {
	switch {
	case field.Kind == jsonString:
		if p, ok := c.fileField(ctx, manifestRel, field, "monitors", "monitor entries"); ok {
			return c.monitorsFile(p)
		}
	default:
		return c.monitorEntries(manifestRel, field)
	}
	return nil
}

// fileField is the file a path field of file names (what: "monitors",
// "mcpServers"), resolved against the plugin root, or false where it is
// none vigiles reads: out of the repository, missing, or a directory
// (want says what the file should hold), each an error at the field. The
// path is the plugin's to choose: quoted and cut, as its names are.
func (c *claudeDisc) fileField(ctx hookCtx, file string, field *jnode, what, want string) (string, bool) {
	p := filepath.Clean(filepath.Join(ctx.pluginRoot, field.Str))
	shown := shownCut(strconv.Quote(field.Str), maxMonitorCommand)
	if what == "monitors" && c.escapesPlugin(ctx, file, field, "monitors file", p) {
		return "", false
	}
	if _, fi, err := beneath(c.dir, c.dirReal, p); errors.Is(err, ErrOutsideTree) {
		c.find(RuleOutsideTree, report.SeverityError, c.loc(file, field.Pos), "%s", outsideMessage(what+" file "+shown, "", err))
	} else if err != nil {
		c.find(RuleMissingFile, report.SeverityError, c.loc(file, field.Pos), "%s file %s not found (resolved against the plugin root)", what, shown)
	} else if fi.IsDir() {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, field.Pos), "%s: %s names a directory; want a path to a JSON file of %s", what, shown, want)
	} else {
		return p, true
	}
	return "", false
}

func (c *claudeDisc) monitorsFile(abs string) []*Server {
	if rel, n := c.readJSON(abs); n != nil {
		return c.monitorEntries(rel, n)
	}
	return nil
}

// monitorEntries reads an array of monitor entries in file.
func (c *claudeDisc) monitorEntries(file string, n *jnode) []*Server {
	if n.Kind != jsonArray {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, n.Pos), "monitors: want an array of monitor entries, found %s", n.Kind)
		return nil
	}
	var got []*Server
	for _, e := range n.Elems {
		if !c.countServer(c.loc(file, e.Pos)) {
			break
		}
		cmd := e.get("command")
		if e.Kind != jsonObject || cmd == nil || cmd.Kind != jsonString {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "monitors: want an entry with a \"command\" string, found %s", e.Kind)
			continue
		}
		name, when := "", "always"
		if v := e.get("name"); v != nil && v.Kind == jsonString {
			name = v.Str
		}
		if v := e.get("when"); v != nil && v.Kind == jsonString {
			when = v.Str
		}
		got = append(got, &Server{Kind: ServerMonitor, Type: "monitor", Name: name, When: when, Command: cmd.Str, Location: c.loc(file, e.Pos)})
	}
	return got
}

// monitorMessage is the finding's text for the monitor s.
// Claude Code starts a monitor whose when is "always" with the session
// (and on the plugin's reload), one whose when is on-skill-invoke:SKILL
// the first time that skill of the plugin is dispatched; either runs
// until the session ends.
func (s *Server) monitorMessage() string {
	runs := "runs unsandboxed beside an interactive session for its whole length"
	if skill, ok := strings.CutPrefix(s.When, "on-skill-invoke:"); ok && skill != "" {
		// The skill is named once, in the when quoted before: the words
		// keep the command within the job summary's 600 characters.
		runs = "starts unsandboxed in an interactive session the first time that skill is invoked, and runs until the session ends"
	}
	return fmt.Sprintf("plugin %s declares the background monitor %s (when: %s), whose command Claude Code %s: %s; vigiles does not run monitors, so nothing of what it does is recorded: review it by hand",
		shownCut(s.Plugin, maxMonitorName), shownCut(s.Name, maxMonitorName), shownCut(s.When, maxMonitorWhen), runs, shownName(clip(s.Command, maxMonitorCommand)))
}
