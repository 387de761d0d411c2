package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/vigiles/action/internal/safewrite"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// BaselineSchema names the baseline document vigiles writes: one that
// keeps every key whose absence would leave something uncompared (see
// lacking), so that one without such a key is refused, not read as a
// baseline written before the key was kept. BaselineSchemaV1 names such
// older baselines, read as before, each key they lack said (outdated).
const (
	BaselineSchema   = "vigiles.baseline/v2"
	BaselineSchemaV1 = "vigiles.baseline/v1"
)

// Drift kinds.
const (
	DriftHost        = "host"
	DriftWrite       = "write"
	DriftOutcome     = "outcome"
	DriftEnv         = "env"
	DriftDeclared    = "declared"
	DriftHookAdded   = "hook-added"
	DriftHookRemoved = "hook-removed"
	DriftContext     = "context"
	DriftCommand     = "command"
	DriftDecides     = "decides"
)

// Rules of baseline findings.
const (
	RuleDriftPrefix      = "baseline/"
	RuleBaselineMissing  = "baseline/missing"
	RuleBaselineInvalid  = "baseline/invalid"
	RuleBaselineUnproven = "baseline/not-recorded"
	RuleBaselineOutdated = "baseline/outdated"
)

// Baseline is what an accepted audit saw, per run: stable and sorted so
// that a change reads as a small diff in a pull request.
type Baseline struct {
	Schema string                 `json:"schema"`
	Runs   map[string]BaselineRun `json:"runs"`
	// NotRun holds, by hook id, the command of each hook that Claude Code
	// may run and the audit did not (no payload of vigiles' selects it:
	// plan/not-run), which the baseline accepts so: nothing of it is
	// audited, and a new one is an error until a reviewer accepts that
	// (unrunAdded), for that command. Left out where there is none.
	NotRun map[string]string `json:"notRun,omitempty"`
	// NotRunFiles holds, by hook id, the files of the work tree the
	// command of each hook of NotRun runs (runFiles), as a run's Files:
	// each with its SHA-256, sorted by path, [] where it runs none. A
	// script rewritten under the command accepted as not run is not the
	// hook accepted, though nothing of it runs in the audit
	// (unrunAdded). Left out where NotRun is, and in a baseline written
	// before they were kept, whose hooks not run are compared by command
	// alone (filesUnkept); where it is there it keeps every hook of
	// NotRun, and no other (loadBaseline).
	NotRunFiles map[string][]BaselineFile `json:"notRunFiles,omitempty"`
	// Servers are the MCP servers, LSP servers and background monitors
	// of the plugins Claude Code starts (not those of a plugin the
	// settings turn off), which vigiles does not run: what a reviewer
	// accepted of each is what it starts (BaselineServer.Starts), sorted.
	// [] where there are none; nil (no "servers") in a baseline written
	// before they were kept, which accepts none and refuses none: their
	// findings stay warnings (compareServers).
	Servers []BaselineServer `json:"servers"`
	// ProjectServers are, as Servers, the MCP servers of the projects'
	// .mcp.json and the commands their settings name (ServerSettings)
	// that Claude Code starts, each with its project's context
	// (project:DIR). nil (no "projectServers") in a baseline written
	// before they were kept, which accepts none and refuses none.
	ProjectServers []BaselineServer `json:"projectServers"`
	// SkillShells are the shell lines of the skills and commands (the
	// plugins' and the projects') that Claude Code runs (RuleSkillShell),
	// which vigiles does not run: what a reviewer accepted of each is its
	// command and the allowed-tools entry that pre-approves it, sorted,
	// each once. Optional, in either schema: nil (no "skillShells", left
	// out where there are none) accepts none, so that each line stays a
	// warning and the key's deletion loosens nothing
	// (compareSkillShells).
	SkillShells []BaselineSkillShell `json:"skillShells,omitempty"`

	// lacks is what a v1 baseline lacks that a v2 one keeps (loadBaseline).
	lacks lacking
	// folded counts the written paths and links' targets its runs keep
	// as an earlier vigiles did, each run of bytes that is not UTF-8 one
	// U+FFFD (loadedName), which no run's compares equal to: foldedNames
	// says to rewrite it.
	folded int
	// foldedServers counts the servers, files they or runs run, and
	// shell lines it keeps with a name or text so folded (loadedName,
	// loadedPath): none of them matches one of the tree now.
	foldedServers int
}

// lacking counts what a baseline lacks whose absence leaves something
// uncompared: "servers" and "projectServers" (their servers stay
// warnings), and runs without
// "context" (not compared on it), without "command" though they ran (not
// compared on it) and without "deleted" beside a list of writes
// (compared by path only).
type lacking struct {
	servers, projectServers   bool
	context, command, deleted int
}

func (l lacking) any() bool {
	return l.servers || l.projectServers || l.context+l.command+l.deleted > 0
}

// BaselineServer is one server (or monitor) a baseline accepts.
type BaselineServer struct {
	// Plugin is its plugin's name, as a written name is kept
	// (baselineName: a directory's name p\xff is "p\xff"), not compared;
	// Context "plugin:" and its plugin's root, as a run's context (the
	// root tells two plugins of one name apart).
	Plugin  string `json:"plugin"`
	Context string `json:"context"`
	// Kind is mcp, lsp, monitor, settings or mod (Server.Kind), Name its
	// name in its declaration (a mod's: its module's path as its hooks
	// file lists it).
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Type is an MCP or LSP server's (stdio, http, sse, ws, sse-ide,
	// ws-ide, claudeai-proxy, sdk, bundle); left out for a monitor.
	Type string `json:"type,omitempty"`
	// Starts is what Claude Code starts, or connects to (Server.starts),
	// the work tree's path as workTreeMark.
	Starts string `json:"starts"`
	// When is a monitor's "when" (on-skill-invoke:SKILL), compared with
	// Starts: one accepted for when a skill is first used is changed if
	// it starts with every session. Left out where it is "always", and
	// for an MCP or LSP server.
	When string `json:"when,omitempty"`
	// File is the file that declares it, where a finding about it once
	// it is gone is placed; not compared (a server moved from .mcp.json
	// to the manifest starts the same).
	File string `json:"file"`
	// Files are the files of the work tree its command runs
	// (serverFiles), each with its SHA-256, sorted by path, compared as
	// Starts is: [] where it runs none; nil (no "files") in a baseline
	// written before they were kept, whose servers are compared on what
	// they start alone (compareServerList).
	Files []BaselineFile `json:"files"`
}

// BaselineFile is a file of the work tree a server runs, as a baseline
// keeps it: its path, relative to the work tree and slash-separated, and
// the hex SHA-256 of its content, "" where it could not be hashed
// (hashTreeFile), which no later audit takes for unchanged.
type BaselineFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// keptFiles is fs, the files of the work tree a command runs as a walk
// found them, as a baseline keeps them: each path as a hook's id names a
// file (idFile), so that p\xff/s.sh and p\xfe/s.sh are two, sorted by
// that path; nil where fs is.
func keptFiles(fs []BaselineFile) []BaselineFile {
	if fs == nil {
		return nil
	}
	out := make([]BaselineFile, len(fs))
	for i, f := range fs {
		out[i] = BaselineFile{Path: idFile(f.Path), SHA256: f.SHA256}
	}
	slices.SortFunc(out, func(a, b BaselineFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// MarshalJSON writes bs as a baseline file holds it: "files" left out
// where it keeps none (nil), [] where it keeps that the server runs no
// file of the tree.
func (bs BaselineServer) MarshalJSON() ([]byte, error) {
	type plain BaselineServer // without this method
	j := struct {
		plain
		Files any `json:"files,omitempty"`
	}{plain: plain(bs)}
	if bs.Files != nil {
		j.Files = bs.Files
	}
	return marshalReadable(j)
}

// BaselineSkillShell is one shell line of a skill or command a baseline
// accepts: all of it is compared but Plugin, and not where in its file
// it stands (text moved within a file runs the same).
type BaselineSkillShell struct {
	// Plugin is its plugin's name (its project's, for a project's line),
	// kept as a server's (BaselineServer.Plugin), Context "plugin:" and
	// its plugin's root, or "project:" and its
	// project's directory, as a server's (BaselineServer).
	Plugin  string `json:"plugin"`
	Context string `json:"context"`
	// File is the markdown file (or the manifest or marketplace whose
	// entry holds the markdown inline) that holds the line.
	File string `json:"file"`
	// Form is inline (!`cmd`) or block (```!).
	Form string `json:"form"`
	// Command is the command Claude Code runs, as the finding shows it
	// (uncut).
	Command string `json:"command"`
	// Allowed is the entry of the file's allowed-tools that pre-approves
	// the line (Server.Allowed), left out where none does: a line that
	// gains or loses its approval is not the line accepted.
	Allowed string `json:"allowed,omitempty"`
	// Shell is the frontmatter's shell where it is not the default
	// (Server.Shell), left out where it is: the same text run by
	// PowerShell is not the line accepted.
	Shell string `json:"shell,omitempty"`
	// Arguments are the names of the frontmatter's arguments that the
	// command holds (Server.Arguments), left out where none: Claude Code
	// puts the invocation's text in their place before the shell reads
	// the line, where the same text without them reads a shell variable.
	Arguments string `json:"arguments,omitempty"`
	// InvokedBy is "user" where only the user may invoke a line that
	// holds an argument (Server.InvokedBy), left out otherwise: one that
	// Claude may invoke, filling its arguments, is not the line accepted.
	InvokedBy string `json:"invokedBy,omitempty"`
}

// shellKey is what tells one shell line a baseline accepts from another:
// all of BaselineSkillShell but its plugin's name (its context names the
// plugin's root).
type shellKey struct{ context, file, form, command, allowed, shell, arguments, invokedBy string }

func (bs BaselineSkillShell) key() shellKey {
	return shellKey{bs.Context, bs.File, bs.Form, bs.Command, bs.Allowed, bs.Shell, bs.Arguments, bs.InvokedBy}
}

// shellKey is the shellKey of the shell line sv, each text as a baseline
// keeps it: its context and file as a hook's id names them (keptContext,
// idFile), its command, approval, shell and arguments as a written name
// (baselineName), so that a line that is not UTF-8 is kept exact (JSON
// would make U+FFFD of each byte that is not) and matches the baseline
// written from it, and the same line in p\xff and p\xfe is two.
func (sv *Server) shellKey() shellKey {
	t := baselineName
	return shellKey{sv.context(), idFile(sv.Location.File), sv.Type, t(sv.Command), t(sv.Allowed), t(sv.Shell), t(sv.Arguments), sv.InvokedBy}
}

// loadedPath is a tree path read from a baseline's servers, shell lines
// or files run (a context's root, a declaring file) as vigiles compares
// it (idFile's form), each name of it as loadedName reads a written
// name, and whether an earlier vigiles folded one of its names (each run
// of bytes that is not UTF-8 one U+FFFD), which matches none now.
func loadedPath(k string) (string, bool) {
	names := strings.Split(k, "/")
	folded := false
	for i, n := range names {
		var f bool
		names[i], f = loadedName(n)
		folded = folded || f
	}
	return strings.Join(names, "/"), folded
}

// loadedContext is a context read from a baseline's servers or shell
// lines (plugin:ROOT, project:DIR) as vigiles compares it: its root or
// directory as loadedPath reads it (keptContext's form).
func loadedContext(c string) (string, bool) {
	kind, dir, ok := strings.Cut(c, ":")
	if !ok {
		return c, false
	}
	dir, folded := loadedPath(dir)
	return kind + ":" + dir, folded
}

// loadedTexts reads each of texts, from a baseline's servers or shell
// lines, as loadedName reads a written name, and paths as loadedPath
// does, in place, and counts those an earlier vigiles folded.
func loadedTexts(texts, paths []*string) (folded int) {
	for _, t := range texts {
		var f bool
		if *t, f = loadedName(*t); f {
			folded++
		}
	}
	for _, p := range paths {
		var f bool
		if *p, f = loadedPath(*p); f {
			folded++
		}
	}
	return folded
}

// MarshalJSON writes b as a baseline file holds it: "servers" left out
// where b keeps none (nil: NewBaseline, which has no discovery at hand),
// [] where it keeps that there are none; "skillShells" after them, left
// out where there is none.
func (b Baseline) MarshalJSON() ([]byte, error) {
	type plain Baseline // without this method
	j := struct {
		plain
		Servers        any `json:"servers,omitempty"`
		ProjectServers any `json:"projectServers,omitempty"`
		SkillShells    any `json:"skillShells,omitempty"`
	}{plain: plain(b)}
	if b.Servers != nil {
		j.Servers = b.Servers
	}
	if b.ProjectServers != nil {
		j.ProjectServers = b.ProjectServers
	}
	if len(b.SkillShells) > 0 {
		j.SkillShells = b.SkillShells
	}
	return marshalReadable(j)
}

// sortServers orders a baseline's servers as a file holds them.
func sortServers(l []BaselineServer) {
	slices.SortFunc(l, func(a, b BaselineServer) int {
		for _, p := range [][2]string{{a.Context, b.Context}, {a.Kind, b.Kind}, {a.Name, b.Name}, {a.Type, b.Type}, {a.Starts, b.Starts}, {a.When, b.When}, {a.File, b.File}, {a.Plugin, b.Plugin}} {
			if c := strings.Compare(p[0], p[1]); c != 0 {
				return c
			}
		}
		return 0
	})
}

// BaselineRun is one run's accepted behaviour.
type BaselineRun struct {
	// Plugin is its hook's plugin (or project) name, kept as a written
	// name is (baselineName), not compared: it names the run in findings.
	Plugin  string `json:"plugin"`
	Event   string `json:"event"`
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	// Type and Declared are kept for a hook that is listed, not run
	// (outcome not-executable): Type is its type where that is not
	// command (http, prompt, agent, mcp_tool), and Declared its handler
	// as declared (Hook.Declared, as discovery read it), so that a changed URL, server, tool or
	// prompt is drift although nothing of it runs. Both are left out for
	// every other run, and in a baseline written before they were kept.
	Type     string `json:"type,omitempty"`
	Declared string `json:"declared,omitempty"`
	// Context is where the run's hook ran (report.HookRun.Context, its
	// root named as in the id: keptContext): a file that another plugin
	// or package comes to read first keeps its run id but runs in another
	// context, perhaps with another script, and that is drift. "" (left out) in a baseline written before it
	// was kept, which is not compared.
	Context string `json:"context,omitempty"`
	Outcome string `json:"outcome"`
	// Decides is what the run's JSON told Claude Code to do with the call
	// besides blocking it (report.HookRun.Decides): left out where it
	// told nothing, as in a baseline written before it was kept, whose
	// runs that tell something are then drift once (compareRuns).
	Decides string   `json:"decides,omitempty"`
	Hosts   []string `json:"hosts"`
	Writes  []string `json:"writes"`
	// Deleted are the paths among Writes that the run deleted
	// (deletedOf): [] where it deleted none, nil where its writes were
	// not recorded, and nil too in a baseline written before deletes were
	// kept, whose writes are then compared by path only (compareRuns). A
	// file holds nil as null beside a "writes" of null, and leaves
	// "deleted" out beside a list, as such a baseline does: see MarshalJSON.
	Deleted []string `json:"deleted"`
	// Links are the symbolic links among Writes that the run created or
	// modified, by path, to their targets (linksOf): a link pointed
	// elsewhere is drift, though its path is the same. Left out where
	// there are none, as in a baseline written before they were kept,
	// whose links are then drift once (compareRuns).
	Links map[string]string `json:"links,omitempty"`
	// Env is what the run left for Claude Code to run before each Bash
	// command, as envText gives it (its env file, CLAUDE_ENV_FILE, then
	// its other session-env scripts): "" for nothing, nil where it was not
	// recorded (baselineEnv). A file holds nil as null, and "" as no "env"
	// at all, as baselines did before the two were told apart (so an
	// update adds no line to every run): see MarshalJSON.
	Env *string `json:"env"`
	// Lingered says the run left processes running when it exited, which
	// were ended after the linger: what they did next is not recorded,
	// and the baseline accepts that (a hook meant to start a daemon).
	// Left out where it did not, as in a baseline written before it was
	// kept.
	Lingered bool `json:"lingered,omitempty"`
	// File is the file the hook was declared in, where a finding about
	// the run once it is no longer declared is placed: the id cannot
	// always tell (a file or a directory named "a.json#b.md"). Always
	// the start of the run's id, up to a '#'; "" (left out) in a
	// baseline written before it was kept, which falls back to
	// declaringFile.
	File string `json:"file,omitempty"`
	// Files are the files of the work tree the run's command runs
	// (runFiles), each with its SHA-256, sorted by path: [] where it
	// runs none. Compared as the command is (compareRuns): a script
	// rewritten under the same command is not the hook accepted, whatever
	// the audit's payloads show of it. nil (no "files") for a hook that is
	// listed, not run, and in a baseline written before they were kept,
	// whose runs are not compared on them; a baseline keeps them for every
	// run that ran or for none (loadBaseline).
	Files []BaselineFile `json:"files"`
}

// MarshalJSON writes r as a baseline file holds it: "env" left out for
// nothing, null where it was not recorded; "deleted" null where the writes
// were not recorded, and left out where only they were kept.
func (r BaselineRun) MarshalJSON() ([]byte, error) {
	type plain BaselineRun // without these methods
	// Deleted, Links, Env, Lingered, File and Files are the last fields: written
	// again here they take their places and hide plain's. Deleted and Env
	// are interfaces, so that they can be left out (omitempty: a nil
	// interface) or null (a nil slice or *string in one is no nil
	// interface).
	j := struct {
		plain
		Deleted  any               `json:"deleted,omitempty"`
		Links    map[string]string `json:"links,omitempty"`
		Env      any               `json:"env,omitempty"`
		Lingered bool              `json:"lingered,omitempty"`
		File     string            `json:"file,omitempty"`
		Files    any               `json:"files,omitempty"`
	}{plain: plain(r), Links: r.Links, Lingered: r.Lingered, File: r.File}
	if r.Files != nil {
		j.Files = r.Files // [] where it runs no file of the tree
	}
	if r.Deleted != nil || r.Writes == nil {
		j.Deleted = r.Deleted // the list, or null beside "writes": null
	}
	switch {
	case r.Env == nil:
		j.Env = (*string)(nil) // null
	case *r.Env != "":
		j.Env = *r.Env
	}
	return marshalReadable(j)
}

// UnmarshalJSON reads r as MarshalJSON writes it: no "env" is "" (nothing
// left). loadBaseline, which says where a file is wrong, is the reader
// vigiles itself uses.
func (r *BaselineRun) UnmarshalJSON(b []byte) error {
	type plain BaselineRun // without these methods
	p := plain{Env: new(string)}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = BaselineRun(p)
	return nil
}

// loadNames turns the names r, read from a baseline file, keeps of its
// writes, deletes and links into the form vigiles compares (loadedName),
// and counts those folded by an earlier vigiles.
func (r *BaselineRun) loadNames() (folded int) {
	names := func(l []string) {
		for i, k := range l {
			var f bool
			l[i], f = loadedName(k)
			if f {
				folded++
			}
		}
	}
	names(r.Writes)
	var deleted []string
	if r.Deleted != nil {
		// Counted among the writes already.
		deleted = make([]string, len(r.Deleted))
		for i, k := range r.Deleted {
			deleted[i], _ = loadedName(k)
		}
		r.Deleted = deleted
	}
	if r.Links != nil {
		links := make(map[string]string, len(r.Links))
		for p, t := range r.Links {
			ts := strings.Split(t, "\n")
			names(ts)
			k, _ := loadedName(p)
			links[k] = strings.Join(ts, "\n")
		}
		r.Links = links
	}
	return folded
}

// foldedAs is the name an earlier vigiles kept in a baseline for the
// written name w (baselineName's form), each run of bytes that is not
// UTF-8 one U+FFFD (loadedName): "" where w holds none of those, or that
// name is w's own.
func foldedAs(w string) string {
	p, quoted := baselineNameOf(w)
	if f := evidence.ShownPath(p); quoted && strings.ContainsRune(f, utf8.RuneError) {
		return f
	}
	return ""
}

// sessionEnvDir is where Claude Code keeps a session's env scripts: it runs
// every hook's there before each Bash command, not only the file it gave a
// hook, so a script any run writes there is env evidence too.
const sessionEnvDir = "~/.claude/session-env/"

// envText is what a run left for Claude Code to run before each Bash
// command, as text a baseline keeps and a drift shows: its env file's
// content (a note where it was cut, or the kind of thing left where it is
// no file), then a line for every other file it wrote under sessionEnvDir,
// whose content is not read; "" for nothing. recorded is false when its env
// file's content was not recorded whole (not at all, or cut at 64 KiB: a
// change past the cut must not pass for none).
func envText(r report.HookRun) (text string, recorded bool) {
	ef := r.EnvFile
	recorded = true
	var b strings.Builder
	switch {
	case ef == nil: // the event has none
	case ef.Content == nil:
		recorded = false
	case ef.Kind == "file":
		b.WriteString(ef.Text())
		if ef.Truncated {
			fmt.Fprintf(&b, "\n… (cut at %d of its %d bytes)", ef.Kept(), ef.Size)
			recorded = false
		}
	case ef.Kind == "none" || ef.Kind == "":
	default:
		b.WriteString("(a " + ef.Kind + ", not read)")
	}
	for _, w := range sessionEnvScripts(r) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		// One line per script, whatever its name holds, so that envSaid
		// counts them apart from the env file's lines; each name of its
		// path as a baseline keeps a written name (idFile), so that
		// scripts named x\xff.sh and x\xfe.sh are two.
		fmt.Fprintf(&b, "(%s %s%s", w.Op, oneLineName.Replace(idFile(w.Path)), scriptNote)
	}
	return b.String(), recorded
}

// sessionEnvScripts are the files a run created or modified under
// sessionEnvDir besides its own env file: Claude Code runs them too. None
// where its writes were not recorded (r.Writes nil: callers ask first).
func sessionEnvScripts(r report.HookRun) []evidence.Write {
	var out []evidence.Write
	for _, w := range r.Writes {
		p := evidence.ShownPath(w.Path)
		// Where names fold (macOS), ~/.Claude/session-env/ is the same
		// directory.
		if w.Op == evidence.OpDelete || w.Kind == "dir" || !inSessionEnv(p) || (r.EnvFile != nil && p == r.EnvFile.Path) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// inSessionEnv is strings.HasPrefix(FoldPath(p), sessionEnvDir), for p
// valid UTF-8 (a shown path), without folding the whole of every path of
// a record: of a million, 57 MiB allocated, for a test of a hook that
// wrote none there. FoldPath folds name by name and keeps every '/' (no
// character folds to one or from one), and its area prefixes end in '/'
// before the third: so its fold up to its third '/' is the fold of p up
// to p's third, and a path with fewer is under no directory of three.
// And only '~' folds to '~', and what folding drops (the code points
// HFS+ ignores) is past ASCII: a path whose first byte is ASCII and not
// '~' folds to no "~/…".
func inSessionEnv(p string) bool {
	if p == "" || p[0] != '~' && p[0] < utf8.RuneSelf {
		return false
	}
	end := 0
	for range strings.Count(sessionEnvDir, "/") {
		i := strings.IndexByte(p[end:], '/')
		if i < 0 {
			return false
		}
		end += i + 1
	}
	return FoldPath(p[:end]) == sessionEnvDir
}

// baselineEnv is what a baseline keeps of a run's env (envText): nil where
// there is no record to keep, its env file's content or its writes (which
// hold the other session-env scripts) not recorded; the text, with its
// note, where the env file was only cut (compareBaseline then compares
// nothing, and says so).
func baselineEnv(r report.HookRun) *string {
	if r.Writes == nil || (r.EnvFile != nil && r.EnvFile.Content == nil) {
		return nil
	}
	t, _ := envText(r)
	return &t
}

// hostsOf lists the destinations of a run, sorted and deduplicated; nil
// when they were not recorded, or not all one by one: a record past the
// cap names only the first (evidence.Egress.Lumped), and a list of those
// would claim to be complete.
func hostsOf(r report.HookRun) []string {
	if r.Egress == nil || lumpedOf(r.Egress) != nil {
		return nil // not recorded: null in a baseline, never "none"
	}
	return namedHosts(r.Egress)
}

// noHost stands in a baseline's hosts for the attempts that named no host
// and no address (a proxy request with no Host header, or a malformed
// one): an attempt all the same, which must not read as none tried. No
// host name holds a space or a parenthesis (hostText), so it is never one.
const noHost = "(no host)"

// unbracketedAsNow is a baseline's hosts with each IPv6 address and port
// that an earlier vigiles wrote unbracketed (::1:4000) read as now, the
// bracketed form (evidence.WithPort), where now holds it: that form is
// the same host, not a new one. An entry that matches nothing now stays
// as it was (unbracketed, ::1:4000 is also an address without a port).
func unbracketedAsNow(old, now []string) []string {
	legacy := map[string]string{}
	for _, h := range now {
		if a, port, ok := strings.Cut(strings.TrimPrefix(h, "["), "]:"); ok && strings.HasPrefix(h, "[") {
			legacy[a+":"+port] = h
		}
	}
	if len(legacy) == 0 {
		return old
	}
	out := slices.Clone(old)
	for i, o := range out {
		if h, ok := legacy[o]; ok {
			out[i] = h
		}
	}
	return out
}

// unnamedOf is the entries of es that namedHosts keeps as noHost.
func unnamedOf(es []evidence.Egress) []evidence.Egress {
	var out []evidence.Egress
	for _, e := range es {
		if !e.Lumped() && egressHost(e) == "" && !(e.Host == "" && e.HasPort()) {
			out = append(out, e)
		}
	}
	return out
}

// namedHosts lists the destinations es names, sorted and deduplicated,
// never nil; entries with no host and no address are noHost, and attempts
// past the record's cap (which hostsOf and the audit account for on their
// own) are not among them.
func namedHosts(es []evidence.Egress) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, e := range es {
		if e.Lumped() {
			continue
		}
		h := strings.ToLower(egressHost(e))
		if e.Host == "" && e.HasPort() {
			h = evidence.WithPort(h, e.Port)
		}
		if h == "" {
			h = noHost
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	sort.Strings(out)
	return out
}

// baselineName is a written path, or a link's target, as a baseline keeps
// it: as it is where JSON holds it exactly and it reads as no other (valid
// UTF-8 with no U+FFFD, and not itself a Go quote: readsAsQuote), and
// quoted in Go syntax (strconv.Quote, evidence.ShownName's form)
// otherwise, so that a name that is not UTF-8 is kept exact: a\xff, a\xfe
// and a\uFFFD are "a\xff", "a\xfe" and "a\uFFFD" (the last as the
// character itself), never one entry. A name such a baseline keeps
// unquoted is one vigiles kept so before (baselineNameOf), and existing
// baselines keep working. A text with a double quote first that is no
// quote, as a settings command's "$CLAUDE_PROJECT_DIR"/hooks/x.sh is,
// stays as it is: it reads as nothing else.
func baselineName(p string) string {
	if utf8.ValidString(p) && !strings.ContainsRune(p, utf8.RuneError) && !readsAsQuote(p) {
		return p
	}
	return strconv.Quote(p)
}

// readsAsQuote says whether s is a string in Go syntax, quotes and all,
// as baselineName's quoted form is, so that kept as it is it would read
// as the name it unquotes to.
func readsAsQuote(s string) bool {
	if !strings.HasPrefix(s, `"`) {
		return false
	}
	_, err := strconv.Unquote(s)
	return err == nil
}

// baselineNameOf is the path a name a baseline keeps stands for
// (baselineName's inverse), and whether it is of the quoted form: one
// that begins with a double quote and is baselineName's quote of what it
// unquotes to. Any other name stands for itself.
func baselineNameOf(k string) (p string, quoted bool) {
	if strings.HasPrefix(k, `"`) {
		if p, err := strconv.Unquote(k); err == nil && baselineName(p) == k {
			return p, true
		}
	}
	return k, false
}

// shownKept is a name a baseline keeps (baselineName's form: a plugin's,
// a server's) as a finding shows the name it stands for (shownName), so
// that one kept as "p\xff" shows so, not quoted twice.
func shownKept(k string) string {
	p, _ := baselineNameOf(k)
	return shownName(p)
}

// loadedName is a name read from a baseline file's writes, deleted or
// links as vigiles compares it (baselineName's form). One an earlier
// vigiles kept as the report's "path" showed it, each run of bytes that
// is not UTF-8 one U+FFFD, is folded: it stood for every name that shows
// so (a\xff, a\xfe and a\uFFFD alike), and which of them was written is
// lost. It is kept as it is, which no name of a run compares equal to
// (each with U+FFFD is quoted now): a hook that writes any of them is
// drift, never accepted unseen, and the baseline/outdated notice says to
// rewrite the baseline (foldedNames). One an earlier vigiles kept as it
// is that reads as a Go quote (a file named "q", quotes and all) is its
// name's quote now.
func loadedName(k string) (name string, folded bool) {
	if _, quoted := baselineNameOf(k); quoted {
		return k, false
	}
	if strings.ContainsRune(k, utf8.RuneError) {
		return k, true
	}
	return baselineName(k), false
}

// writesOf lists the paths a run wrote, as a baseline keeps them
// (baselineName), sorted, without its throwaway $TMPDIR (scratch that
// differs on every run); nil when they were not recorded.
func writesOf(r report.HookRun) []string {
	if r.Writes == nil {
		return nil // not recorded: null in a baseline, never "none"
	}
	seen := map[string]bool{}
	out := []string{}
	for _, w := range r.Writes {
		p := baselineName(w.Path)
		if strings.HasPrefix(w.Path, "$TMPDIR/") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// deletedOf lists the paths among writesOf's that a run deleted, named and
// sorted as writesOf's, $TMPDIR/ left out; [] where it deleted none, nil
// when its writes were not recorded. The recorder lists a path once (one
// deleted and made again is a modify); a path listed more than once that
// the run also created or modified is not among these.
func deletedOf(r report.HookRun) []string {
	if r.Writes == nil {
		return nil // not recorded: null in a baseline, never "none"
	}
	deleted := map[string]bool{} // path: every entry of it a delete
	for _, w := range r.Writes {
		if strings.HasPrefix(w.Path, "$TMPDIR/") {
			continue
		}
		p := baselineName(w.Path)
		if was, seen := deleted[p]; !seen || was {
			deleted[p] = w.Op == evidence.OpDelete
		}
	}
	out := []string{}
	for p, d := range deleted {
		if d {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// linksOf maps each symbolic link among writesOf's paths that a run
// created or modified to its target, both named as writesOf names paths
// (baselineName); nil where there are none, or the writes were not
// recorded. A target in the run's throwaway TMPDIR, /dev/shm or /var/tmp (a mktemp
// directory's name, new each run) is kept as that place alone
// ("$TMPDIR/…"), as writes there are not kept at all. Where a path is
// listed as two links, each target is kept, sorted, one per line.
func linksOf(r report.HookRun) map[string]string {
	var all map[string][]string
	for _, w := range r.Writes {
		if w.Kind != "symlink" || w.Op == evidence.OpDelete || w.Target == "" || strings.HasPrefix(w.Path, "$TMPDIR/") {
			continue
		}
		p, t := baselineName(w.Path), baselineName(throwawayTarget(w.Target))
		if all == nil {
			all = map[string][]string{}
		}
		if !slices.Contains(all[p], t) {
			all[p] = append(all[p], t)
		}
	}
	if all == nil {
		return nil
	}
	out := make(map[string]string, len(all))
	for p, ts := range all {
		slices.Sort(ts)
		out[p] = strings.Join(ts, "\n")
	}
	return out
}

// throwawayTarget is a link's target as a baseline keeps it: one that
// leads into the run's throwaway TMPDIR, /dev/shm or /var/tmp (its text cleaned, so
// that /tmp/../root/.bashrc is not among them) with the name there, a
// mktemp one new each run, as "…" ($TMPDIR/…/rest); any other as it is.
func throwawayTarget(t string) string {
	if !path.IsAbs(t) {
		return t
	}
	c := path.Clean(t)
	for _, a := range []struct{ dir, name string }{{"/tmp/", "$TMPDIR/"}, {shmDir, shmDir}, {varTmpDir, varTmpDir}} {
		if r, ok := strings.CutPrefix(c, a.dir); ok {
			if _, rest, more := strings.Cut(r, "/"); more {
				return a.name + "…/" + rest
			}
			return a.name + "…"
		}
	}
	return t
}

// NewBaseline records the runs of a report. The declarations of hooks
// that are listed, not run, are not at hand here: see newBaseline.
func NewBaseline(rep *report.Report) *Baseline {
	return newBaseline(rep, nil, nil, nil)
}

// newBaseline records the runs of a report; decl holds, by run id, the
// handler of each hook that is listed, not run (declarations), and
// servers and projectServers the plugins' and the projects' servers
// Claude Code starts (keptServers): both nil keep none and write the form
// before they were kept (v1), both lists a v2 baseline, which must have
// them; one without the other is a caller's mistake.
func newBaseline(rep *report.Report, decl map[string]string, servers, projectServers []BaselineServer, unrun ...*Hook) *Baseline {
	if (servers == nil) != (projectServers == nil) {
		panic("newBaseline: servers and projectServers are kept together")
	}
	b := &Baseline{Schema: BaselineSchema, Runs: map[string]BaselineRun{}, Servers: servers, ProjectServers: projectServers}
	if servers == nil {
		// A baseline that keeps no servers is of the form before they
		// were kept.
		b.Schema = BaselineSchemaV1
	}
	for _, h := range unrun {
		if b.NotRun == nil {
			b.NotRun = map[string]string{}
		}
		b.NotRun[h.ID] = h.shownCommand()
	}
	for _, r := range rep.Runs {
		run := BaselineRun{Plugin: baselineName(r.Plugin), Event: r.Event, Tool: r.Tool, Command: r.Command, Context: keptContext(r.Context),
			Outcome: r.Outcome, Decides: r.Decides, Hosts: hostsOf(r), Writes: writesOf(r), Deleted: deletedOf(r), Links: linksOf(r), Env: baselineEnv(r), Lingered: len(r.Lingered) > 0, File: runFile(r)}
		if r.Outcome == report.OutcomeNotExecutable {
			run.Type, run.Declared = listedType(r), decl[r.ID]
		}
		b.Runs[r.ID] = run
	}
	return b
}

// contextDrift is drift where a run the baseline knows runs in another
// context than it did (BaselineRun.Context): its id names the same
// declaration, but another plugin or package reads it now, with its own
// root, directory and scripts. A baseline written before contexts were
// kept is not compared.
func contextDrift(add func(report.HookRun, string, string, string, string, report.Severity), r report.HookRun, old BaselineRun, sev report.Severity) {
	now := keptContext(r.Context)
	if old.Context == "" || r.Context == "" || old.Context == now {
		return
	}
	add(r, DriftContext, old.Context, now, fmt.Sprintf("%s %s%s now runs as %s's; the baseline ran it as %s's: another plugin or package reads its declaration now, with its own root and scripts, so what runs under this id may be another script than the one the baseline accepted",
		shownName(r.ID), r.Event, toolSuffix(r.Tool), shownName(now), shownName(old.Context)), sev)
}

// listedType is the type a baseline keeps of a hook that is listed, not
// run: "" for a command hook (its command is kept).
func listedType(r report.HookRun) string {
	if r.Type == TypeCommand {
		return ""
	}
	return r.Type
}

// declaredOf is, by run id, the handler as declared (Hook.Declared, which
// discovery fills in from what it parsed) of every hook that is listed,
// not run and is no command hook: the decl a baseline keeps and compares
// (newBaseline, compareRuns). Such a hook has one run, whose id is the
// hook's.
func declaredOf(hooks []*Hook) map[string]string {
	out := map[string]string{}
	for _, h := range hooks {
		if h.Executable() || h.Type == TypeCommand {
			continue
		}
		out[h.ID] = h.Declared
	}
	return out
}

// runFile is the file a run's hook was declared in, as its id names it
// (idFile: discovery places every hook in the file its id begins with,
// a name that is not UTF-8 quoted there); "" where the location does
// not begin the id.
func runFile(r report.HookRun) string {
	if f := idFile(r.Location.File); f != "" && strings.HasPrefix(r.ID, f+"#") {
		return f
	}
	return ""
}

// Marshal writes the baseline as indented JSON with sorted keys and a
// final newline.
func (b *Baseline) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b); err != nil {
		return nil, fmt.Errorf("encoding baseline: %w", err)
	}
	return buf.Bytes(), nil
}

// BaselineError is a baseline file vigiles cannot use: where, what is
// wrong with it, and (in Error) what to do: rewrite it, where it is a
// baseline, or name the baseline, where it is not one.
type BaselineError struct {
	File         string // as the caller named it
	Line, Column int    // 0 when it concerns the whole file
	Msg          string
	// NotBaseline is a file that is no vigiles baseline at all (see
	// isBaseline): --baseline naming another file (the policy file, a
	// file of the host's), which --update-baseline must not overwrite.
	NotBaseline bool
	// Rewrite is how to rewrite it (Options.rewriteBaseline), and Fix
	// what to do where it is no baseline (Options.notBaselineFix), as
	// the audit was invoked; "" for the CLI's in the work tree, with
	// --baseline File.
	Rewrite, Fix string
}

func (e *BaselineError) Error() string {
	where := e.File
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.NotBaseline {
		fix := e.Fix
		if fix == "" {
			fix = Options{Baseline: e.File}.notBaselineFix()
		}
		return fmt.Sprintf("%s: %s; %s", where, e.Msg, fix)
	}
	rewrite := e.Rewrite
	if rewrite == "" {
		rewrite = Options{Baseline: e.File}.rewriteBaseline()
	}
	return fmt.Sprintf("%s: %s; run %s to rewrite it from this audit (and review the diff)", where, e.Msg, rewrite)
}

// notBaselineFix is what a BaselineError of a file that is no baseline
// says to do: name the baseline, as --update-baseline refuses to
// overwrite such a file (WhyNotBaseline); in the GitHub Action, with its
// inputs (Invoked).
func (o Options) notBaselineFix() string {
	what := `this is not a vigiles baseline (JSON with "schema": "` + BaselineSchema + `"), `
	if o.Invoked.Action {
		return what + `which the action's update-baseline input will not overwrite: set its baseline input to the baseline file, such as ` + DefaultBaseline +
			` (the policy file goes to its config input), or leave it empty to compare with nothing`
	}
	return what + `which --update-baseline will not overwrite: ` +
		`name the baseline file with --baseline (default ` + DefaultBaseline + `; the policy file goes to --config), or give --baseline "" to compare with nothing`
}

// baselineSchemaPrefix begins the "schema" of every vigiles baseline, of
// any version.
const baselineSchemaPrefix = "vigiles.baseline/"

// baselineSchemaRE finds a baseline's "schema" in text that is not valid
// JSON: a baseline cut short, or left with a merge's conflict markers.
var baselineSchemaRE = lazyRE(`"schema"\s*:\s*"vigiles\.baseline/`)

// isBaseline says whether a file (data, parsed as root; nil where it is
// not valid JSON) is a vigiles baseline, valid or not: an object with a
// "schema" of vigiles' baselines (vigiles.baseline/…, of any version),
// or text that is not valid JSON, begins as an object or a merge's
// conflict marker does, and holds one (a baseline damaged by hand or by
// a merge). An empty file is one too: it holds nothing to
// lose. Any other file (the policy file, another tool's JSON, a file of
// the host's) is not one, and --update-baseline does not overwrite it.
func isBaseline(data []byte, root *jnode) bool {
	if root == nil {
		// Damaged JSON begins as JSON does, or a merge's conflict
		// marker does: a document that only quotes the schema (a
		// README, a policy file's comment) is none.
		t := bytes.TrimSpace(data)
		return len(t) == 0 || (bytes.HasPrefix(t, []byte("{")) || bytes.HasPrefix(t, []byte("<<<<<<< "))) && baselineSchemaRE().Match(data)
	}
	if root.Kind != jsonObject {
		return false
	}
	for _, m := range root.Members {
		if m.Key == "schema" && m.Value.Kind == jsonString && strings.HasPrefix(m.Value.Str, baselineSchemaPrefix) {
			return true
		}
	}
	return false
}

// WhyNotBaseline says why the file at path may not be overwritten by
// --update-baseline ("" where it may: there is no file there, or it is
// a vigiles baseline, valid or not, as isBaseline tells): it is not a
// regular file, or not one vigiles reads, or its text is not JSON, or is
// JSON without a baseline's "schema". A symbolic link there is followed.
// A directory is not said: the write cannot replace it, and says so. The
// caller refuses the update before the audit runs (WriteBaseline refuses
// it too).
func WhyNotBaseline(path string) string {
	// O_NONBLOCK: opening a FIFO with no writer would wait for one.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		// Not there, or not readable: nothing of it would be lost that
		// the write's own error does not say.
		return ""
	}
	defer f.Close()
	return notBaselineFile(f)
}

// HoldsBaseline says whether the file at path is a vigiles baseline, valid
// or not (isBaseline), with something in it: a report written there would
// replace it. What is not there, cannot be read, or is no regular file
// vigiles reads as a baseline is none. A symbolic link there is followed.
func HoldsBaseline(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // O_NONBLOCK: as WhyNotBaseline
	if err != nil {
		return false
	}
	defer f.Close()
	data, err := readBaselineFile(f)
	if err != nil || len(bytes.TrimSpace(data)) == 0 {
		return false
	}
	root, err := parseJSON(data)
	if err != nil {
		root = nil
	}
	return isBaseline(data, root)
}

// notBaselineFile is WhyNotBaseline of a file opened (with O_NONBLOCK).
func notBaselineFile(f *os.File) string {
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return ""
	}
	data, err := readBaselineFile(f)
	switch {
	case errors.Is(err, errBaselineFile):
		return strings.TrimPrefix(err.Error(), errBaselineFile.Error()+": ")
	case err != nil:
		return ""
	}
	return notBaselineData(data)
}

// notBaselineData is WhyNotBaseline of a file's text.
func notBaselineData(data []byte) string {
	root, err := parseJSON(data)
	if err != nil {
		root = nil
	}
	switch {
	case isBaseline(data, root):
		return ""
	case root == nil:
		return "it is not JSON"
	}
	return `it is JSON without the "schema": "` + BaselineSchema + `" of a baseline`
}

// LoadBaseline reads a baseline file; errors name it as path.
func LoadBaseline(path string) (*Baseline, error) {
	return loadBaseline(path, path, Options{Baseline: path})
}

// loadBaseline reads the baseline at abs; errors name it as shown, and
// say what to do as the audit o was invoked (BaselineError.Rewrite, Fix).
// A file that is not a baseline is a *BaselineError at the place that
// says so.
func loadBaseline(abs, shown string, o Options) (*Baseline, error) {
	foreign := false // no baseline at all (isBaseline)
	bad := func(p jpos, format string, args ...any) error {
		return &BaselineError{File: shown, Line: p.Line, Column: p.Col, Msg: fmt.Sprintf(format, args...), NotBaseline: foreign,
			Rewrite: o.rewriteBaseline(), Fix: o.notBaselineFix()}
	}
	data, err := readBaseline(abs)
	if errors.Is(err, errBaselineFile) {
		foreign = true
		return nil, bad(jpos{}, "%v", err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading baseline %s: %w", shown, err)
	}
	root, err := parseJSON(data)
	if err != nil {
		foreign = !isBaseline(data, nil)
		var se *JSONSyntaxError
		if errors.As(err, &se) {
			return nil, bad(jpos{Line: se.Line, Col: se.Col}, "not valid JSON: %s", se.Msg)
		}
		return nil, bad(jpos{}, "not valid JSON: %v", err)
	}
	// Every mistake found below is one of a baseline, or of a file that
	// is none, whose "schema" may come after it.
	foreign = !isBaseline(data, root)
	// vigiles never writes a key twice; a reader keeps one copy or the
	// other, so a pull request could show one in its diff and have the
	// other compared.
	if again, first := repeatedMember(root); again != nil {
		return nil, bad(again.KeyPos, "%q is given again here (first on line %d): a baseline holds each key once; keep one", again.Key, first.KeyPos.Line)
	}
	const want = `a JSON object with "schema": "` + BaselineSchema + `" (or "` + BaselineSchemaV1 + `") and "runs"`
	if root.Kind != jsonObject {
		return nil, bad(root.Pos, "want %s, found %s", want, root.Kind)
	}
	b := &Baseline{Runs: map[string]BaselineRun{}}
	str := func(v *jnode, what string, dst *string) error {
		if v.Kind != jsonString {
			return bad(v.Pos, "%s: want a string, found %s", what, v.Kind)
		}
		*dst = v.Str
		return nil
	}
	strs := func(v *jnode, what string, dst *[]string) error {
		if v.Kind == jsonNull {
			return nil
		}
		if v.Kind != jsonArray {
			return bad(v.Pos, "%s: want a list of strings, found %s", what, v.Kind)
		}
		*dst = []string{}
		for _, e := range v.Elems {
			if e.Kind != jsonString {
				return bad(e.Pos, "%s: want a list of strings, found %s in it", what, e.Kind)
			}
			*dst = append(*dst, e.Str)
		}
		return nil
	}
	hasSchema, hasServers, hasProjectServers := false, false, false
	var runLacks error // the first run that lacks what a v2 baseline keeps
	// The first run that ran and keeps no "files", and whether any keeps
	// them: vigiles keeps them for every run that ran, or (before it kept
	// them) for none.
	var noFiles *jmember
	anyFiles := false
	// "notRunFiles", checked against "notRun" once both are read.
	var notRunFiles *jnode
	for _, m := range root.Members {
		switch m.Key {
		case "schema":
			hasSchema = true
			if err := str(m.Value, `"schema"`, &b.Schema); err != nil {
				return nil, err
			}
			if b.Schema != BaselineSchema && b.Schema != BaselineSchemaV1 {
				return nil, bad(m.Value.Pos, `"schema" is %q: want %q, or %q (a file of another tool, or of another version of vigiles)`, b.Schema, BaselineSchema, BaselineSchemaV1)
			}
		case "runs":
			if m.Value.Kind == jsonNull {
				continue
			}
			if m.Value.Kind != jsonObject {
				return nil, bad(m.Value.Pos, `"runs": want an object from hook run id to what the run did, found %s`, m.Value.Kind)
			}
			for _, r := range m.Value.Members {
				if r.Value.Kind != jsonObject {
					return nil, bad(r.Value.Pos, "run %q: want an object, found %s", r.Key, r.Value.Kind)
				}
				run := BaselineRun{Env: new(string)} // no "env": nothing left
				var deleted *jnode                   // "deleted", checked against "writes" once both are read
				var links *jnode                     // "links", as "deleted"
				hasOutcome, hasContext, hasCommand, hasFiles := false, false, false, false
				for _, f := range r.Value.Members {
					what := fmt.Sprintf("run %q: %q", r.Key, f.Key)
					var err error
					switch f.Key {
					case "plugin":
						err = str(f.Value, what, &run.Plugin)
					case "event":
						err = str(f.Value, what, &run.Event)
					case "tool":
						err = str(f.Value, what, &run.Tool)
					case "command":
						// "" is compared with nothing (compareRuns), as no
						// "command": vigiles writes none for a run that ran.
						err = str(f.Value, what, &run.Command)
						hasCommand = run.Command != ""
					case "type":
						err = str(f.Value, what, &run.Type)
					case "decides":
						err = str(f.Value, what, &run.Decides)
					case "declared":
						err = str(f.Value, what, &run.Declared)
					case "context":
						hasContext = true
						if err = str(f.Value, what, &run.Context); err == nil && !strings.HasPrefix(run.Context, "plugin:") && !strings.HasPrefix(run.Context, "project:") {
							err = bad(f.Value.Pos, "%s: %q is no context: want plugin:ROOT or project:DIR", what, run.Context)
						}
						// As vigiles compares it (keptContext).
						var folded bool
						if run.Context, folded = loadedContext(run.Context); folded {
							b.foldedServers++
						}
					case "outcome":
						hasOutcome = true
						// One of the four: the text reaches findings
						// ("the baseline says …"), and a pull request
						// can edit the file.
						if err = str(f.Value, what, &run.Outcome); err == nil && !knownOutcome(run.Outcome) {
							err = bad(f.Value.Pos, "%s: %q is no outcome: want %s, %s, %s or %s", what, run.Outcome,
								report.OutcomeAllowed, report.OutcomeBlocked, report.OutcomeError, report.OutcomeNotExecutable)
						}
					case "hosts":
						err = strs(f.Value, what, &run.Hosts)
					case "writes":
						err = strs(f.Value, what, &run.Writes)
					case "deleted":
						// Absent or null: a baseline written before
						// deletes were kept, or writes not recorded.
						deleted = f.Value
						err = strs(f.Value, what, &run.Deleted)
					case "links":
						// Absent: a baseline written before links'
						// targets were kept, or a run that made none.
						links = f.Value
						if f.Value.Kind != jsonObject {
							err = bad(f.Value.Pos, "%s: want an object from written path to the target of the link there, found %s", what, f.Value.Kind)
							break
						}
						run.Links = map[string]string{}
						for _, l := range f.Value.Members {
							var t string
							if err = str(l.Value, fmt.Sprintf("%s: %q", what, l.Key), &t); err != nil {
								break
							}
							if t == "" {
								err = bad(l.Value.Pos, "%s: %q links to \"\": a link's target is never empty", what, l.Key)
								break
							}
							run.Links[l.Key] = t
						}
						if len(run.Links) == 0 {
							run.Links = nil // as vigiles writes none
						}
					case "env":
						run.Env = nil // null: not recorded
						if f.Value.Kind != jsonNull {
							run.Env = new(string)
							err = str(f.Value, what, run.Env)
						}
					case "lingered":
						if f.Value.Kind != jsonBool {
							err = bad(f.Value.Pos, "%s: want true or false, found %s", what, f.Value.Kind)
						} else {
							run.Lingered = f.Value.Bool
						}
					case "file":
						// Where a finding about the run may be placed:
						// only the file its id names, never another.
						if err = str(f.Value, what, &run.File); err == nil && (run.File == "" || !strings.HasPrefix(r.Key, run.File+"#")) {
							err = bad(f.Value.Pos, "%s: %q is not the file the run's id begins with", what, run.File)
						}
					case "files":
						hasFiles = f.Value.Kind != jsonNull
						run.Files, err = loadServerFiles(f.Value, bad, fmt.Sprintf("run %q", r.Key), &b.foldedServers)
					default:
						err = bad(f.KeyPos, "run %q: unknown field %q: want plugin, event, tool, command, context, type, declared, outcome, decides, hosts, writes, deleted, links, env, lingered, file and files", r.Key, f.Key)
					}
					if err != nil {
						return nil, err
					}
				}
				// An earlier vigiles kept a deny, which is a block, and
				// fields Claude Code does not read (decidesOf), once the
				// run's event is known.
				run.Decides = decidesAsKept(run.Event, run.Decides)
				// Every run has an outcome: a run without one would be
				// written back as "outcome": "", which no reader takes.
				if !hasOutcome {
					return nil, bad(r.Value.Pos, "run %q: no \"outcome\": want %s, %s, %s or %s", r.Key,
						report.OutcomeAllowed, report.OutcomeBlocked, report.OutcomeError, report.OutcomeNotExecutable)
				}
				// A deleted path is one of the written ones: the two
				// lists cannot say different things of a path.
				if deleted != nil && deleted.Kind == jsonArray {
					written := setOf(run.Writes)
					for _, e := range deleted.Elems {
						if !written[e.Str] {
							return nil, bad(e.Pos, "run %q: \"deleted\" lists %q, which its \"writes\" does not: a deleted path is one of the written ones", r.Key, e.Str)
						}
					}
				}
				// A link is a path written, and not deleted: its
				// target is what the run left there.
				if links != nil && links.Kind == jsonObject {
					written, gone := setOf(run.Writes), setOf(run.Deleted)
					for _, l := range links.Members {
						if !written[l.Key] || gone[l.Key] {
							return nil, bad(l.KeyPos, "run %q: \"links\" names %q, which its \"writes\" does not list as created or modified: a link is a path written and left there", r.Key, l.Key)
						}
					}
				}
				if hasFiles {
					anyFiles = true
				} else if run.Outcome != report.OutcomeNotExecutable && noFiles == nil {
					noFiles = &r
				}
				// What a v2 baseline keeps of every run (checked once the
				// schema is known, below).
				var lacks []string
				if !hasContext {
					b.lacks.context++
					lacks = append(lacks, `"context"`)
				}
				if !hasCommand && run.Outcome != report.OutcomeNotExecutable {
					b.lacks.command++
					lacks = append(lacks, `"command" (one that is not "")`)
				}
				if run.Writes != nil && run.Deleted == nil {
					b.lacks.deleted++
					lacks = append(lacks, `"deleted" (a list, beside its list of "writes")`)
				}
				if len(lacks) > 0 && runLacks == nil {
					runLacks = bad(r.Value.Pos, "run %q has no %s, which a %s baseline keeps for every run: without it the run is not compared on it, so a key deleted from the file would turn that comparison off; restore it", r.Key, strings.Join(lacks, ", "), BaselineSchema)
				}
				b.folded += run.loadNames()
				b.Runs[r.Key] = run
			}
		case "notRun":
			if m.Value.Kind != jsonObject {
				return nil, bad(m.Value.Pos, `"notRun": want an object from hook id to the command accepted as not run, found %s`, m.Value.Kind)
			}
			for _, h := range m.Value.Members {
				var c string
				if err := str(h.Value, fmt.Sprintf(`"notRun": %q`, h.Key), &c); err != nil {
					return nil, err
				}
				if b.NotRun == nil {
					b.NotRun = map[string]string{}
				}
				b.NotRun[h.Key] = c
			}
		case "notRunFiles":
			if m.Value.Kind == jsonNull {
				continue // none kept, as where it is left out
			}
			if m.Value.Kind != jsonObject {
				return nil, bad(m.Value.Pos, `"notRunFiles": want an object from hook id to the files of the tree its command runs, found %s`, m.Value.Kind)
			}
			notRunFiles = m.Value
			b.NotRunFiles = map[string][]BaselineFile{}
			for _, h := range m.Value.Members {
				at := fmt.Sprintf(`"notRunFiles": hook %q`, h.Key)
				if h.Value.Kind != jsonArray {
					// Never null: vigiles keeps a list for each hook,
					// [] where it runs none.
					return nil, bad(h.Value.Pos, "%s: want a list of the files of the tree its command runs, found %s", at, h.Value.Kind)
				}
				fs, err := loadServerFiles(h.Value, bad, at, &b.foldedServers)
				if err != nil {
					return nil, err
				}
				b.NotRunFiles[h.Key] = fs
			}
		case "projectServers":
			hasProjectServers = true
			if b.ProjectServers, err = loadServers(m.Value, bad, "projectServers", "project:", &b.foldedServers); err != nil {
				return nil, err
			}
		case "servers":
			hasServers = true
			if b.Servers, err = loadServers(m.Value, bad, "servers", "plugin:", &b.foldedServers); err != nil {
				return nil, err
			}
		case "skillShells":
			if b.SkillShells, err = loadSkillShells(m.Value, bad, &b.foldedServers); err != nil {
				return nil, err
			}
		default:
			return nil, bad(m.KeyPos, "unknown field %q: want %s only (and notRun, notRunFiles, servers, projectServers, skillShells)", m.Key, want)
		}
	}
	if !hasSchema {
		return nil, bad(root.Pos, "want %s; it has no \"schema\"", want)
	}
	if lack, kept := filesLacking(root); lack != nil {
		// vigiles keeps every server's files, or (before it kept them)
		// none's: one without them beside another's was taken out, and
		// would not be compared.
		return nil, bad(lack.Pos, "a server with no \"files\" (or null), where %s keeps them: vigiles keeps the files of every server or of none, so one deleted would turn the comparison of what it runs off; restore it", kept)
	}
	if anyFiles && noFiles != nil {
		// One without them beside another's was taken out, and would
		// not be compared on what its command runs.
		return nil, bad(noFiles.Value.Pos, "run %q has no \"files\" (or null), where other runs keep them: vigiles keeps the files of the tree the command of every run that ran runs, or of none, so one deleted would turn the comparison of its scripts off; restore it", noFiles.Key)
	}
	if notRunFiles != nil {
		// vigiles keeps the files of every hook it accepts as not run,
		// or (before it kept them) leaves the key out: a hook's entry
		// taken out would turn the comparison of its scripts off, and
		// one of a hook not accepted so is not vigiles'.
		for _, h := range notRunFiles.Members {
			if _, ok := b.NotRun[h.Key]; !ok {
				return nil, bad(h.KeyPos, `"notRunFiles" keeps the files of hook %q, which "notRun" does not accept as not run: vigiles keeps them for the hooks of "notRun" alone; remove it`, h.Key)
			}
		}
		ids := slices.Sorted(maps.Keys(b.NotRun))
		for _, id := range ids {
			if _, ok := b.NotRunFiles[id]; !ok {
				return nil, bad(notRunFiles.Pos, `"notRunFiles" has no files of hook %q, which "notRun" accepts as not run: vigiles keeps them for every hook of "notRun", or (in a baseline written before it kept them) leaves "notRunFiles" out, so one deleted would turn the comparison of its scripts off; restore it`, id)
			}
		}
	}
	b.lacks.servers, b.lacks.projectServers = !hasServers, !hasProjectServers
	if b.Schema == BaselineSchema {
		// Written by a vigiles that keeps them all: one missing was
		// taken out, and would turn its comparison off.
		if b.lacks.servers {
			return nil, bad(root.Pos, "no \"servers\", which a %s baseline keeps (\"servers\": [] where the tree declares none): without it no server is compared, so its deletion would turn server-added and server-changed errors into warnings; restore it", BaselineSchema)
		}
		if b.lacks.projectServers {
			return nil, bad(root.Pos, "no \"projectServers\", which a %s baseline keeps (\"projectServers\": [] where the projects' .mcp.json and settings start nothing): without it none of them is compared, so its deletion would turn server-added and server-changed errors into warnings; restore it", BaselineSchema)
		}
		if runLacks != nil {
			return nil, runLacks
		}
		b.lacks = lacking{}
	}
	return b, nil
}

// maxBaseline bounds the baseline file vigiles reads: its parse takes
// about 30 times the file's size in memory, so an unbounded one (a file
// of a pull request, or --baseline naming anything) could take all of it.
// 16 MiB holds some 50,000 runs of a few writes each.
const maxBaseline = 16 << 20

// errBaselineFile is a baseline path that names no file vigiles reads: not
// a regular file, or one larger than maxBaseline.
var errBaselineFile = errors.New("not a baseline file")

// readBaseline reads a baseline: a regular file (a FIFO or a device is
// refused before anything is read from it, so it cannot block the audit)
// of at most maxBaseline bytes.
func readBaseline(abs string) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO with no writer would wait for one.
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBaselineFile(f)
}

// readBaselineFile is readBaseline of a file opened (with O_NONBLOCK).
func readBaselineFile(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: it is %s, not a regular file", errBaselineFile, fileKind(fi.Mode()))
	}
	if fi.Size() > maxBaseline {
		return nil, fmt.Errorf("%w: it is %d bytes, more than the %d (%d MiB) vigiles reads", errBaselineFile, fi.Size(), maxBaseline, maxBaseline>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxBaseline+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxBaseline {
		return nil, fmt.Errorf("%w: it is more than the %d (%d MiB) bytes vigiles reads", errBaselineFile, maxBaseline, maxBaseline>>20)
	}
	return data, nil
}

// beforeBaselineWrite, when set (by tests), runs as WriteBaseline starts,
// after the caller checked the path (linkedOut) and before the directory
// is opened: where a link put in place at the last moment would be.
var beforeBaselineWrite func()

// WriteBaseline writes b to path (absolute, or relative to the working
// directory) atomically: to a temporary file in its directory, renamed
// over the name, a link at the name replaced, not followed. The directory
// is opened first and held. Where path lies in the repository repo (its
// real path; "" for none), a symbolic link on the way is followed only
// while it stays inside (.vigiles -> ../shared/vigiles), so that one put in place after
// the caller's check (linkedOut), by a hook that still runs or anything
// else in the repository, cannot lead the write out (an error that is
// ErrOutsideTree), and every missing directory on the way is made in the
// one before it (.vigiles on the first --update-baseline). Elsewhere the
// path is the caller's own choice: its links are followed before the
// directory is opened, and no directory is made. A file at the name that
// is not a vigiles baseline (the policy file, a file of the host's) is
// not replaced: the error is ErrBadOption and says why (WhyNotBaseline).
func WriteBaseline(repo, path string, b *Baseline) error {
	data, err := b.Marshal()
	if err != nil {
		return err
	}
	if len(data) > maxBaseline {
		// One the next audit refuses to read (baseline/invalid) accepts
		// nothing: a hook that writes a million files would leave the
		// repository with no baseline a reviewer can use.
		return fmt.Errorf("writing baseline: it would be %d MiB, more than the %d MiB vigiles reads back; %s", len(data)>>20, maxBaseline>>20, largestRun(b))
	}
	if beforeBaselineWrite != nil {
		beforeBaselineWrite()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	dir, name := filepath.Split(abs)
	d, err := openBaselineDir(repo, filepath.Clean(dir))
	if err != nil {
		if errors.Is(err, ErrOutsideTree) {
			return fmt.Errorf("writing baseline %s: %w", path, err)
		}
		return fmt.Errorf("writing baseline: %w", err)
	}
	defer d.Close()
	if why := notBaselineIn(d, name); why != "" {
		return errorf(ErrBadOption, "writing baseline: --update-baseline would overwrite %s, which is not a vigiles baseline (%s); name the baseline file with --baseline (default %s)", path, why, DefaultBaseline)
	}
	if err := safewrite.Replace(d, dir, name, data, 0o644); err != nil {
		return fmt.Errorf("writing baseline: %w", err)
	}
	return nil
}

// largestRun names the run of b that keeps the most writes and hosts,
// which a baseline too large to read is most likely made of, and the fix.
func largestRun(b *Baseline) string {
	var id string
	most := -1
	for k, r := range b.Runs {
		if n := len(r.Writes) + len(r.Hosts); n > most || n == most && k < id {
			id, most = k, n
		}
	}
	if id == "" {
		// Not "audit fewer hooks": --update-baseline takes no PATH.
		return "it keeps no run: what it keeps of servers, monitors and hooks not run makes it so large"
	}
	return fmt.Sprintf("the run %s keeps %d writes and hosts: make it write fewer files (a directory it keeps them in, removed at its end), or leave its plugin out of the audit", shownName(id), most)
}

// notBaselineIn is WhyNotBaseline of the file name in the directory d, as
// the write would replace it: a symbolic link there is replaced, not
// what it leads to, and so is not read.
func notBaselineIn(d *os.File, name string) string {
	fd, err := syscall.Openat(int(d.Fd()), name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		// Not there, or a link (ELOOP): nothing read is overwritten.
		return ""
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return notBaselineFile(f)
}

// knownOutcome reports whether o is an outcome a run can have.
func knownOutcome(o string) bool {
	switch o {
	case report.OutcomeAllowed, report.OutcomeBlocked, report.OutcomeError, report.OutcomeNotExecutable:
		return true
	}
	return false
}

// openBaselineDir opens the baseline's directory dir (absolute, clean):
// where dir lies in the repository repo, with each link on the way
// followed only while it stays inside (safewrite.OpenDirWithin: one put
// in place since the caller's check is refused, ErrOutsideTree) and each
// missing directory made; else with its links followed, and none made.
func openBaselineDir(repo, dir string) (*os.File, error) {
	if _, err := relTo(repo, dir); repo != "" && err == nil {
		d, err := safewrite.OpenDirWithin(repo, dir)
		var lo *safewrite.LinkedOutError
		if errors.As(err, &lo) {
			return nil, errorf(ErrOutsideTree, "%v", err)
		}
		return d, err
	}
	parent, last := filepath.Split(dir)
	rp, err := filepath.EvalSymlinks(parent)
	if err != nil {
		return nil, err
	}
	if _, err := relTo(repo, filepath.Join(rp, last)); repo != "" && err == nil {
		// The repository spelled through a link of the caller's.
		return openBaselineDir(repo, filepath.Join(rp, last))
	}
	return safewrite.OpenDir(filepath.Join(rp, last))
}

// compareBaseline returns the drift of runs from the baseline and a
// finding per drift at the hook's declaration. allIDs is every run ID of
// the whole (unsharded) plan, so that a shard does not take another
// shard's runs for removed ones; a removed run is reported only where
// removedIn (nil: nowhere) says its declaring file, or the root of the
// plugin whose context ran it, is covered. sev is the
// severity of new hosts, writes and outcomes (notice when the baseline is
// being updated). failed holds the IDs of runs the report already calls
// refused or failed (run/refused, run/failed: verdict error), whose
// missing evidence needs no finding of its own; a run that only timed out
// is not one of them (run/timeout is a warning), or a hook that times out
// could have its records lost without the audit saying so. Advice to
// accept something in the baseline names the CLI's command in the work
// tree, for the default baseline.
func compareBaseline(b *Baseline, runs []report.HookRun, failed, allIDs map[string]bool, removedIn func(file string) bool, sev report.Severity) ([]report.Drift, []report.Finding) {
	return compareRuns(b, runs, nil, nil, failed, allIDs, nil, removedIn, sev, Options{Baseline: DefaultBaseline}.rewriteBaseline())
}

// compareRuns is compareBaseline with decl, the declarations of the hooks
// that are listed, not run, by run id (declarations), handlers, the ids
// of every hook discovery found, planned or not, and rewrite, how to
// rewrite the baseline as the audit was invoked (Options.rewriteBaseline),
// which a finding that says to accept something in it names.
func compareRuns(b *Baseline, runs []report.HookRun, decl map[string]string, ran *ranFiles, failed, allIDs, handlers map[string]bool, removedIn func(file string) bool, sev report.Severity, rewrite string) ([]report.Drift, []report.Finding) {
	var drift []report.Drift
	var finds []report.Finding
	add := func(r report.HookRun, kind, was, now, msg string, s report.Severity) {
		drift = append(drift, report.Drift{Hook: r.ID, Kind: kind, Was: was, Now: now, Location: r.Location})
		finds = append(finds, report.Finding{Rule: RuleDriftPrefix + kind, Severity: s, Location: r.Location,
			Title: "changed since the baseline", Message: msg, Hook: r.ID})
	}
	lower := func(s report.Severity) report.Severity {
		if sev == report.SeverityNotice {
			return report.SeverityNotice
		}
		return s
	}
	namedLeft := maxNewPathsNamed // new paths still named one by one
	for _, r := range runs {
		if old, ok := b.Runs[r.ID]; ok {
			contextDrift(add, r, old, sev)
		}
		if r.Outcome == report.OutcomeNotExecutable {
			// Nothing of it runs, so nothing of it is recorded: what a
			// baseline accepts of it is that it is not run, and its
			// declaration (type, URL, server and tool, prompt, command).
			now := listedDecl(listedType(r), r.Command, decl[r.ID])
			old, ok := b.Runs[r.ID]
			// A command hook's runs were ID@tool (or @source, @matcher
			// value) where its event has one; listed, it has one run,
			// ID. A command hook turned http is that hook no longer
			// audited, not a new hook beside a removed one.
			var ran []string
			if !ok {
				ran = ranAs(b, r.ID)
			}
			switch {
			case len(ran) > 0:
				var was, tools []string
				for _, id := range ran {
					if o := b.Runs[id].Outcome; !slices.Contains(was, o) {
						was = append(was, o)
					}
					tools = append(tools, strings.TrimPrefix(id, r.ID+"@"))
				}
				add(r, DriftOutcome, strings.Join(was, ", "), r.Outcome, fmt.Sprintf("%s %s is now a hook of type %s, which vigiles lists and does not run (%s); the baseline says %s for %s, so what it does is no longer audited: %s",
					shownName(r.Plugin), r.Event, r.Type, r.Reason, strings.Join(was, ", "), shownName(strings.Join(tools, ", ")), cutBytes(now, maxEvidence)), sev)
			case !ok:
				// Nothing of it is recorded, so nothing of it can be
				// compared: a new hook no audit vouches for (an http
				// hook's URL gets every call it sees) is an error, where
				// a new command hook's hosts and writes are.
				add(r, DriftHookAdded, "", r.Type, fmt.Sprintf("new %s hook of %s for %s, not in the baseline, which vigiles lists and does not run, so what it does is not audited: %s", r.Type, shownName(r.Plugin), r.Event, cutBytes(now, maxEvidence)), lower(report.SeverityError))
			case old.Outcome != r.Outcome:
				add(r, DriftOutcome, old.Outcome, r.Outcome, fmt.Sprintf("%s %s%s is now a hook of type %s, which vigiles lists and does not run (%s); the baseline says %s, so what it does is no longer audited: %s",
					shownName(r.Plugin), r.Event, toolSuffix(r.Tool), r.Type, r.Reason, old.Outcome, cutBytes(now, maxEvidence)), sev)
			default:
				was := listedDecl(old.Type, old.Command, old.Declared)
				if was == now {
					continue
				}
				why := ""
				if old.Type == "" && old.Declared == "" && r.Type != TypeCommand {
					why = " (a baseline written before vigiles kept the declarations of such hooks: review it, and update the baseline)"
				}
				add(r, DriftDeclared, cutBytes(was, maxEvidence), cutBytes(now, maxEvidence), fmt.Sprintf("%s %s%s, a hook of type %s that vigiles lists and does not run, is declared otherwise than the baseline says%s",
					shownName(r.Plugin), r.Event, toolSuffix(r.Tool), r.Type, why), sev)
				finds[len(finds)-1].Evidence = fmt.Sprintf("- %s\n+ %s\n", cutBytes(was, maxEvidence), cutBytes(now, maxEvidence))
			}
			continue
		}
		old, ok := b.Runs[r.ID]
		if !ok {
			// A run the baseline does not know accepted nothing: the
			// hook is a warning, and each host it tries and path it
			// writes is new, as for any other run (else a change adds a
			// hook that exfiltrates and passes on a warning).
			msg, s := fmt.Sprintf("new hook run %s (%s %s%s), not in the baseline: outcome %s, tried %s, wrote %s",
				shownName(r.ID), shownName(r.Plugin), r.Event, toolSuffix(r.Tool), r.Outcome, countOf(hostsOf(r), "host(s)"), countOf(writesOf(r), "path(s)")), report.SeverityWarning
			if r.TimedOut {
				// Cut at its timeout (a PR can lower defaults.timeout,
				// or make the hook wait): what it did after is not
				// recorded, and no baseline has accepted any of it.
				msg, s = msg+"; it was ended at its timeout, so what it would have done after is not recorded", report.SeverityError
			}
			add(r, DriftHookAdded, "", r.Outcome, msg, lower(s))
		} else if old.Outcome != r.Outcome && !failed[r.ID] {
			// A run refused or failed (run/refused, run/failed, errors
			// already) has vigiles' outcome, not the hook's.
			add(r, DriftOutcome, old.Outcome, r.Outcome, fmt.Sprintf("%s %s%s now leaves the call %s; the baseline says %s%s",
				shownName(r.Plugin), r.Event, toolSuffix(r.Tool), r.Outcome, old.Outcome, reasonSuffix(r.Reason)), sev)
		}
		if !failed[r.ID] && (r.Decides != "" && !ok || ok && old.Decides != r.Decides) {
			// Approving the call without asking the user, or making it
			// with other input, is no block and no host or write: a
			// guard that now rewrites git status into curl … | sh. (A
			// run vigiles refused or failed said nothing: its run/
			// finding says why.)
			add(r, DriftDecides, cutBytes(orDefault(old.Decides, nothingSaid), maxEvidence), cutBytes(orDefault(r.Decides, nothingSaid), maxEvidence),
				fmt.Sprintf("%s %s%s now tells Claude Code %s about the call; the baseline says %s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool),
					shownName(cutBytes(orDefault(r.Decides, nothingSaid), 400)), shownName(cutBytes(orDefault(old.Decides, nothingSaid), 400))), sev)
		}
		if ok && old.Command != "" && old.Command != r.Command {
			// Another command under the same id is another hook: what
			// the audit's payloads show of it (a guard replaced by true
			// allows them all, as the guard did) is not what was reviewed.
			add(r, DriftCommand, cutBytes(old.Command, maxEvidence), cutBytes(r.Command, maxEvidence), fmt.Sprintf("%s %s%s now runs another command than the baseline accepted: what runs under this id was not reviewed, whatever this audit's payloads show of it",
				shownName(r.Plugin), r.Event, toolSuffix(r.Tool)), sev)
			finds[len(finds)-1].Evidence = fmt.Sprintf("- %s\n+ %s\n", shownName(cutBytes(old.Command, maxEvidence)), shownName(cutBytes(r.Command, maxEvidence)))
		} else if now, have := ran.of(r.ID); have && ok && old.Files != nil {
			// The same command running another script is as much
			// another hook: a guard script gutted to exit 0 allows the
			// audit's payloads as the guard did.
			if d := filesChanged(old.Files, now); d.said != "" {
				add(r, DriftCommand, d.was, d.now, fmt.Sprintf("%s %s%s runs the command the baseline accepted, but files of the tree other than it accepted: what runs under this id was not reviewed, whatever this audit's payloads show of it: %s",
					shownName(r.Plugin), r.Event, toolSuffix(r.Tool), d.said), sev)
				finds[len(finds)-1].Evidence = d.evidence
			}
			if p := ran.unhashed[r.ID]; len(p) > 0 {
				finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
					Message: fmt.Sprintf("%s runs files of the tree that vigiles could not hash, so a change to them since the baseline cannot be ruled out: %s", shownName(r.ID), strings.Join(p, "; "))})
			}
		}
		if r.Egress == nil && !failed[r.ID] {
			finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
				Message: fmt.Sprintf("network attempts of %s were not recorded (%s), so new hosts cannot be ruled out", shownName(r.ID), unrecordedWhy(r.Tier, "egress"))})
		} else {
			if past := lumpedName(r.Egress); past != "" {
				// The named hosts are still compared below: a new one
				// among them is drift whatever the rest were.
				finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
					Message:  fmt.Sprintf("%s made %s: they cannot be compared with the baseline, so new hosts among them cannot be ruled out (a baseline written from this run keeps its hosts as null)", shownName(r.ID), past),
					Evidence: egressEvidence(lumpedOf(r.Egress))})
			}
			now := namedHosts(r.Egress)
			oldHosts := unbracketedAsNow(old.Hosts, now)
			known := setOf(oldHosts)
			gone := goneOf(oldHosts, func(a string) bool { _, found := slices.BinarySearch(now, a); return found })
			for _, h := range now {
				if !known[h] {
					said, ev := notAgain(h, gone.all, len(gone.all), "host", "", "try")
					what := "tries to reach " + shownName(h)
					if h == noHost {
						// The detail (the request it made) is the
						// evidence: the name says nothing.
						what = "makes network attempts that name no host (a proxy request with no Host header, or a malformed one: " + strconv.Quote(noHost) + " in a baseline)"
						ev += egressEvidence(unnamedOf(r.Egress))
					}
					add(r, DriftHost, "", h, fmt.Sprintf("%s %s%s now %s, which the baseline does not list%s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), what,
						said+lingerNote(old, ok)), sev)
					finds[len(finds)-1].Evidence = ev
				}
			}
		}
		// Accepted only for the command the baseline saw: what a new
		// command leaves running is not what was reviewed.
		if len(r.Lingered) > 0 && !failed[r.ID] && !(ok && old.Lingered && old.Command == r.Command) {
			// Ended after the linger (or at the timeout, beside the
			// hook's own process), its leftovers did not do what they
			// would have under Claude Code, which lets them run.
			how := "left processes running when it exited, which were ended after the linger period; Claude Code lets them run on, so what they did next (new hosts, writes) cannot be ruled out: raise defaults.linger in .vigiles.yml so that they finish within the run, "
			if r.TimedOut {
				how = "reached its timeout with processes running beside its own; Claude Code ends the hook's process then and lets those run on, so what they did next (new hosts, writes) cannot be ruled out: make the hook finish within its timeout and wait for what it starts, "
			}
			finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
				Message: fmt.Sprintf("%s %s"+
					"or, where the hook is meant to leave them (a daemon), accept that in the baseline: %s keeps it (review its diff)", shownName(r.ID), how, rewrite),
				Evidence: cutBytes(strings.Join(r.Lingered, "\n"), maxEvidence)})
		}
		if now, recorded := envText(r); !recorded {
			if !failed[r.ID] {
				why := unrecordedWhy(r.Tier, "env file")
				if r.EnvFile != nil && r.EnvFile.Truncated {
					why = fmt.Sprintf("only its first %d of %d bytes are kept", r.EnvFile.Kept(), r.EnvFile.Size)
				}
				finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
					Message: fmt.Sprintf("the env file of %s was not recorded whole (%s), so a change to the session's environment cannot be ruled out", shownName(r.ID), why)})
			}
		} else if now != orNothing(old.Env) {
			// Where the two part, not their heads: a change may lie deep
			// in a long file, or be a single tab turned newline.
			line, was, is, ev := envDiff(old.Env, now)
			add(r, DriftEnv, was, is, fmt.Sprintf("%s %s%s now leaves %s in CLAUDE_ENV_FILE, which Claude Code runs before each Bash command of the session; the baseline says %s; the first change is at line %d",
				shownName(r.Plugin), r.Event, toolSuffix(r.Tool), envSaid(now), baselineSaid(old.Env), line), sev)
			finds[len(finds)-1].Evidence = ev
		}
		if r.Writes == nil && !failed[r.ID] {
			finds = append(finds, report.Finding{Rule: RuleBaselineUnproven, Severity: lower(report.SeverityError), Location: r.Location, Hook: r.ID,
				Message: fmt.Sprintf("writes of %s were not recorded (%s), so new writes cannot be ruled out", shownName(r.ID), unrecordedWhy(r.Tier, "writes"))})
		} else {
			// A path the baseline lists is compared by what was done
			// to it too, deleted or not (deletedOf), where the baseline
			// says: one written before it kept deletes (old.Deleted nil)
			// accepted the path, whatever was done to it.
			// A path is the one the baseline lists that differs from it
			// in its date and time stamps alone (stampless): a log named
			// after the day is the same write each day, and the path
			// the baseline lists is what it was then.
			known, wasDeleted := setOf(old.Writes), setOf(old.Deleted)
			stamped := map[string]string{}
			for _, o := range old.Writes {
				if k := stampless(o); stamped[k] == "" {
					stamped[k] = o // the first, as the baseline sorts them
				}
			}
			nowDeleted := setOf(deletedOf(r))
			nowLinks := linksOf(r)
			nowWrites := writesOf(r)
			wrote := map[string]bool{}
			for _, w := range nowWrites {
				wrote[stampless(w)] = true
			}
			gone := goneOf(old.Writes, func(a string) bool { return wrote[stampless(a)] })
			var unnamed []string // new paths past maxNewPathsNamed
			for _, w := range nowWrites {
				listed, listedAt := w, known[w]
				if !listedAt {
					listed, listedAt = stamped[stampless(w)]
				}
				switch {
				case !listedAt && namedLeft == 0:
					unnamed = append(unnamed, w)
					continue
				case !listedAt:
					namedLeft--
					verb := "writes"
					if nowDeleted[w] {
						verb = "deletes"
					}
					var link string
					if t := nowLinks[w]; t != "" {
						link = ", a symbolic link to " + shownName(t) + ","
					}
					first, n := gone.near(w)
					said, ev := notAgain(w, first, n, "path", " next to it", "write")
					if f := foldedAs(w); f != "" && known[f] {
						said += fmt.Sprintf("; the baseline lists %s, as an earlier vigiles kept every name that shows so, each run of bytes that is not UTF-8 one U+FFFD (a\\xff and a\\xfe alike), which cannot tell which it accepted: rewrite the baseline (the baseline/outdated notice says how), and review its diff", shownName(f))
					}
					add(r, DriftWrite, "", w, fmt.Sprintf("%s %s%s now %s %s%s which the baseline does not list%s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), verb, shownName(w), orDefault(link, ","),
						said+lingerNote(old, ok)), sev)
					finds[len(finds)-1].Evidence = ev
					continue
				case old.Deleted == nil:
					// Accepted by path: whether it was deleted is not
					// kept. (Its link's target is compared below: such
					// a baseline kept none.)
				case nowDeleted[w] && !wasDeleted[listed]:
					add(r, DriftWrite, opCreatedOrModified, w, fmt.Sprintf("%s %s%s now deletes %s, which the baseline says it created or modified", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(w)), sev)
					continue
				case !nowDeleted[w] && wasDeleted[listed]:
					add(r, DriftWrite, opDeleted, w, fmt.Sprintf("%s %s%s now creates or modifies %s, which the baseline says it deleted", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(w)), sev)
					continue
				}
				// Where a link leads is what a write through it later
				// changes: a link pointed elsewhere is a new write.
				was, now := old.Links[listed], nowLinks[w]
				switch {
				case was == now:
				case was == "":
					add(r, DriftWrite, noLink, w, fmt.Sprintf("%s %s%s now makes %s a symbolic link to %s, which the baseline does not list (a baseline written before vigiles kept links' targets lists none: update it, and review the diff)", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(w), shownName(now)), sev)
				case now == "":
					add(r, DriftWrite, linkTo+was, w, fmt.Sprintf("%s %s%s now writes %s as no symbolic link; the baseline says it linked to %s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(w), shownName(was)), sev)
				default:
					add(r, DriftWrite, linkTo+was, w, fmt.Sprintf("%s %s%s now points the symbolic link %s to %s; the baseline says it linked to %s", shownName(r.Plugin), r.Event, toolSuffix(r.Tool), shownName(w), shownName(now), shownName(was)), sev)
				}
			}
			if len(unnamed) > 0 {
				// One drift for the rest, so that a hook that writes a
				// million new files makes a report of a bounded size
				// (and a bounded audit's memory): the run's writes name
				// every one.
				add(r, DriftWrite, "", "", fmt.Sprintf("%s %s%s now writes %d more path(s) the baseline does not list, past the %d new paths one audit names one by one: the run's writes list every one (named in the evidence, up to %d)",
					shownName(r.Plugin), r.Event, toolSuffix(r.Tool), len(unnamed), maxNewPathsNamed, maxNotAgain), sev)
				var ev strings.Builder
				for _, w := range firstN(unnamed, maxNotAgain) {
					ev.WriteString("+ " + shownName(w) + "\n")
				}
				finds[len(finds)-1].Evidence = ev.String()
			}
		}
	}
	if removedIn != nil {
		// The handlers that have a run planned: a handler still
		// declared that has none is a hook no longer audited.
		planned := map[string]bool{}
		for id := range allIDs {
			planned[id] = true
			for i, c := range id {
				if c == '@' {
					planned[id[:i]] = true
				}
			}
		}
		ids := make([]string, 0, len(b.Runs))
		for id := range b.Runs {
			// Planned itself, or ID@… of a handler ID planned as one
			// run (a command hook now listed, whose outcome drift
			// speaks for it, in whichever shard has the listed run):
			// not removed.
			if handlerOf(id, allIDs) == "" {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			old := b.Runs[id]
			file := old.File
			if file == "" {
				file = declaringFile(id) // a baseline written before "file" was kept
			}
			// The file and root as the tree names them, not as the id
			// does ("p\xff"/hooks/hooks.json).
			loc := report.Location{File: fileOfID(file)}
			covered := removedIn(loc.File)
			if root, ok := strings.CutPrefix(old.Context, "plugin:"); ok && !covered {
				// Read by a plugin there from a file elsewhere: the
				// plugin no longer reading it is a change there.
				covered = removedIn(fileOfID(root))
			}
			if !covered {
				continue
			}
			drift = append(drift, report.Drift{Hook: id, Kind: DriftHookRemoved, Was: old.Outcome, Location: loc})
			msg, s := fmt.Sprintf("hook run %s (%s %s%s) is in the baseline but no longer declared", shownName(id), shownKept(old.Plugin), shownName(old.Event), toolSuffix(old.Tool)), report.SeverityNotice
			switch h := handlerOf(id, handlers); {
			case h != "" && !planned[h]:
				// Declared still, and run no more (plan/not-run says
				// why): what it does is no longer audited.
				msg, s = fmt.Sprintf("hook run %s (%s %s%s) is in the baseline, and its hook is still declared, but it is no longer run (see plan/not-run): what it does is no longer audited", shownName(id), shownKept(old.Plugin), shownName(old.Event), toolSuffix(old.Tool)), sev
			case old.Outcome == report.OutcomeBlocked:
				// A guard gone: what it blocked goes on.
				msg, s = msg+"; it blocked the call, which now goes on", sev
			}
			finds = append(finds, report.Finding{Rule: RuleDriftPrefix + DriftHookRemoved, Severity: s, Location: loc, Hook: id,
				Title: "changed since the baseline", Message: msg})
		}
	}
	return drift, finds
}

// notAgain says, for the drift of a new host or path (added), what the
// baseline lists where near it (a path next to it; any host) that this
// run did not reach or write (count of them, first the first of them in
// goneNames' order): a name the hook draws anew each run (a mktemp name
// in the tree or HOME, a random mirror) reads as the change it is, one
// name for another, not as a new one alone. The message's part counts
// them; the evidence names them, up to maxNotAgain, as "- " lines (the
// baseline) before the new one's "+ " line (now), so that what code
// scanning tells findings apart by, the message and the drift's own name,
// holds no name of another. Both "" where there is none.
func notAgain(added string, first []string, count int, what, where, verb string) (said, evidence string) {
	if count == 0 {
		return "", ""
	}
	var b strings.Builder
	b.WriteString("- the baseline, + now\n")
	for _, g := range first[:min(len(first), maxNotAgain)] {
		b.WriteString("- " + shownName(g) + "\n")
	}
	if count > maxNotAgain {
		fmt.Fprintf(&b, "- and %d more\n", count-maxNotAgain) // as firstN names the rest
	}
	b.WriteString("+ " + shownName(added) + "\n")
	n := fmt.Sprintf("%d %ss", count, what)
	if count == 1 {
		n = "1 " + what
	}
	return fmt.Sprintf("; the baseline lists %s%s that this run did not %s (named in the evidence)", n, where, verb), b.String()
}

// goneNames are the names a baseline lists that a run did not reach or
// write, sorted (as a baseline file holds them, whoever edited it), and
// grouped by their directory for paths. They are found once a run, not
// once a new name: a hook that writes a hundred thousand new files next
// to as many the baseline lists is compared in time near linear in them,
// not in their product (which took hours).
type goneNames struct {
	all   []string
	set   map[string]bool
	byDir map[string][]string // path.Dir of each → those, sorted
}

// goneOf returns what accepted lists that did says the run did not
// reach or write (a path matched as baseline writes are: stampless).
func goneOf(accepted []string, did func(string) bool) goneNames {
	g := goneNames{set: map[string]bool{}, byDir: map[string][]string{}}
	for _, a := range accepted {
		if !did(a) && !g.set[a] {
			g.set[a] = true
			g.all = append(g.all, a)
		}
	}
	slices.Sort(g.all)
	for _, a := range g.all {
		// By the directory of the path it stands for: a quoted name
		// (baselineName) is next to the others in its directory.
		p, _ := baselineNameOf(a)
		d := path.Dir(p)
		g.byDir[d] = append(g.byDir[d], a)
	}
	return g
}

// near returns the first (up to maxNotAgain, sorted) of the gone paths
// next to w, and how many there are. Next to it: in its directory, that
// directory itself, or in it where it is one (git's index rewritten in
// one checkout, only .git's index.lock made and removed, a modify of
// .git, in another).
func (g goneNames) near(w string) (first []string, count int) {
	w, _ = baselineNameOf(w) // the path, as byDir is keyed
	dir := path.Dir(w)
	groups := [][]string{g.byDir[dir]}
	if w != dir {
		groups = append(groups, g.byDir[w])
	}
	if up := path.Dir(dir); g.set[baselineName(dir)] && up != dir && up != w {
		// dir is in a group above only where it is its own
		// directory's (".", "/") or w's.
		groups = append(groups, []string{baselineName(dir)})
	}
	for _, grp := range groups {
		count += len(grp)
		first = append(first, grp[:min(len(grp), maxNotAgain)]...)
	}
	slices.Sort(first)
	return first[:min(len(first), maxNotAgain)], count
}

// lingerNote is what a host or path drift adds where the baseline's run
// (known: the baseline has one) left processes running that were ended
// after the linger period: what they did was not all recorded then, and a
// process that races its hook's exit (at linger 0s) is ended early one
// audit and gets further, or finishes, the next. "" otherwise.
func lingerNote(old BaselineRun, known bool) string {
	if !known || !old.Lingered {
		return ""
	}
	return "; the baseline's run left processes running that were ended after the linger period, so what they did was not all recorded then: raise defaults.linger in .vigiles.yml so that they finish within every run, and update the baseline"
}

// maxNotAgain bounds the names notAgain gives.
const maxNotAgain = 3

// maxNewPathsNamed bounds the new paths one audit's drift names one by
// one (a baseline/write finding each); past it, each run's rest is one
// finding that counts them.
const maxNewPathsNamed = 1000

// handlerOf returns the handler among handlers that run id is of (id
// itself, or ID of ID@…), or "".
func handlerOf(id string, handlers map[string]bool) string {
	if handlers[id] {
		return id
	}
	for i, c := range id {
		if c == '@' && handlers[id[:i]] {
			return id[:i]
		}
	}
	return ""
}

// ranAs lists, sorted, the baseline's runs of handler id when it ran as a
// command hook on an event with a tool, source or matcher value (id@…).
func ranAs(b *Baseline, id string) []string {
	var out []string
	for k := range b.Runs {
		if strings.HasPrefix(k, id+"@") && b.Runs[k].Outcome != report.OutcomeNotExecutable {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// nothingSaid is a side of decides drift where the hook told Claude Code
// nothing besides its outcome.
const nothingSaid = "(nothing)"

// The was of a write drift on a path the baseline lists, whose op changed:
// what the baseline accepted it as; its now is the path.
const (
	opCreatedOrModified = "created or modified"
	opDeleted           = "deleted"
)

// The was of a write drift on a path the baseline lists, whose link
// changed: "a link to TARGET", or noLink where the baseline lists no
// target for it (not a link, or a baseline written before targets were
// kept).
const (
	linkTo = "a link to "
	noLink = "no link"
)

// listedDecl is what a baseline compares of a hook that is listed, not
// run: its type (not for a command hook), command and declaration, in one
// line.
func listedDecl(typ, command, declared string) string {
	var parts []string
	if typ != "" {
		parts = append(parts, "type "+typ)
	}
	if command != "" {
		parts = append(parts, "command "+strconv.Quote(command))
	}
	if declared != "" {
		parts = append(parts, "declared "+declared)
	}
	if len(parts) == 0 {
		return "(nothing kept)"
	}
	return strings.Join(parts, "; ")
}

// orNothing is a baseline's env as compared: one that was not recorded
// accepted nothing, as hosts and writes that were not recorded accept none.
func orNothing(env *string) string {
	if env == nil {
		return ""
	}
	return *env
}

// baselineSaid names, in a sentence, what a baseline's env says.
func baselineSaid(env *string) string {
	if env == nil {
		return "it was not recorded (null)"
	}
	return envSaid(*env)
}

// countOf says how many of what a list holds, or that it was not recorded.
func countOf(l []string, what string) string {
	if l == nil {
		return "(not recorded) " + what
	}
	return fmt.Sprintf("%d %s", len(l), what)
}

func toolSuffix(t string) string {
	if t == "" {
		return ""
	}
	return " " + shownName(t)
}

func setOf(s []string) map[string]bool {
	m := make(map[string]bool, len(s))
	for _, e := range s {
		m[e] = true
	}
	return m
}

func sortDrift(d []report.Drift) {
	sort.SliceStable(d, func(i, j int) bool {
		if d[i].Hook != d[j].Hook {
			return d[i].Hook < d[j].Hook
		}
		if d[i].Kind != d[j].Kind {
			return d[i].Kind < d[j].Kind
		}
		return d[i].Now < d[j].Now
	})
}

// unrecordedWhy explains why evidence is missing and what to do.
func unrecordedWhy(tier, what string) string {
	switch tier {
	case "direct":
		return "the run was direct; audit confined, without --sandbox off"
	case "confined":
		if what == "egress" {
			return "confined, but this vigiles build has no egress layer to record the network"
		}
		if what == "env file" {
			return "confined, but the sandbox returned no env file"
		}
		return "confined, but the sandbox returned no write record"
	}
	return "the run did not complete"
}

// declaringFile guesses the file part of a hook run ID ("file#path@tool")
// for a baseline run that has no "file": declaration files end in .json,
// or .md for a skill's, an agent's or a command's frontmatter. The guess
// is wrong where a name before the file holds ".json#" or ".md#"; where
// the hook is at hand its own location names the file.
func declaringFile(id string) string {
	if i := strings.Index(id, ".json#"); i >= 0 {
		return id[:i+len(".json")]
	}
	if i := strings.Index(id, ".md#"); i >= 0 {
		return id[:i+len(".md")]
	}
	file, _, _ := strings.Cut(id, "#")
	return file
}

var oneLineName = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// envSaid names, in a sentence, what envText said a run left: the lines of
// its env file (at least that many where it was cut) and the other
// session-env scripts it wrote, counted apart from the notes envText adds.
func envSaid(t string) string {
	if t == "" {
		return "nothing"
	}
	lines := strings.Split(t, "\n")
	scripts := 0
	for len(lines) > 0 && isScriptNote(lines[len(lines)-1]) {
		scripts++
		lines = lines[:len(lines)-1]
	}
	atLeast := ""
	if n := len(lines); n > 0 && strings.HasPrefix(lines[n-1], cutNote) {
		atLeast = "at least "
		lines = lines[:n-1]
	}
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1] // the newline that ends the last line
	}
	var parts []string
	switch {
	case len(lines) == 1 && strings.HasPrefix(lines[0], "(a ") && strings.HasSuffix(lines[0], ", not read)"):
		parts = append(parts, strings.TrimSuffix(strings.TrimPrefix(lines[0], "("), ", not read)")+" (not read)")
	case len(lines) == 1:
		parts = append(parts, atLeast+"1 line")
	case len(lines) > 1:
		parts = append(parts, fmt.Sprintf("%s%d lines", atLeast, len(lines)))
	}
	switch {
	case scripts == 1:
		parts = append(parts, "1 other session-env script")
	case scripts > 1:
		parts = append(parts, fmt.Sprintf("%d other session-env scripts", scripts))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " and ")
}

// The notes envText adds after an env file's content.
const (
	cutNote    = "… (cut at "
	scriptNote = " too, where Claude Code runs every session-env script: content not read)"
)

func isScriptNote(l string) bool {
	return strings.HasPrefix(l, "(") && strings.HasSuffix(l, scriptNote) && strings.Contains(FoldPath(l), " "+sessionEnvDir)
}

// maxEnvDiffLines bounds the lines of each side a drift's evidence shows.
const maxEnvDiffLines = 5

// envDiff shows where a baseline's env text (nil: not recorded) and a
// run's part: the first line that differs (its number, and that line on
// each side, cut to maxEvidence) and, as evidence, up to maxEnvDiffLines
// lines of each side from there. A line one side does not have, and an
// empty line, are named, never left blank.
func envDiff(old *string, now string) (line int, was, is, ev string) {
	a, b := strings.Split(orNothing(old), "\n"), strings.Split(now, "\n")
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	noneA := "(nothing)"
	if old == nil {
		noneA = "(not recorded)"
	}
	// none is what a side that holds nothing shows.
	show := func(l []string, j int, none string) string {
		switch {
		case len(l) == 1 && l[0] == "":
			return none
		case j >= len(l):
			return fmt.Sprintf("(no line %d)", j+1)
		case l[j] == "" && j == len(l)-1:
			return "(end of file after a newline)"
		case l[j] == "":
			return "(an empty line)"
		}
		return cutBytes(l[j], maxEvidence)
	}
	var e strings.Builder
	fmt.Fprintf(&e, "first change at line %d (- the baseline, + now)\n", i+1)
	for _, side := range []struct {
		mark, none string
		lines      []string
	}{{"- ", noneA, a}, {"+ ", "(nothing)", b}} {
		for j := i; j < i+maxEnvDiffLines && (j == i || j < len(side.lines)); j++ {
			e.WriteString(side.mark + show(side.lines, j, side.none) + "\n")
		}
		if rest := len(side.lines) - (i + maxEnvDiffLines); rest > 0 {
			fmt.Fprintf(&e, "%s… %d more line(s)\n", side.mark, rest)
		}
	}
	return i + 1, show(a, i, noneA), show(b, i, "(nothing)"), e.String()
}

// cutBytes cuts s to at most n bytes at a character boundary, saying how
// much was left out; unlike clip it keeps the spaces at either end, which
// may be the change. What the saying would make no shorter is kept
// whole: "@Bash", not "@Ba… (2 bytes more)".
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := runeStart(s, n)
	more := fmt.Sprintf("… (%d bytes more)", len(s)-cut)
	if len(s) <= cut+len(more) {
		return s
	}
	return s[:cut] + more
}

// runeStart is the last index at or before i (i < len(s)) where a
// character of s begins: where s can be cut without splitting one.
func runeStart(s string, i int) int {
	for i > 0 && (s[i]&0xC0) == 0x80 {
		i--
	}
	return i
}

// repeatedMember returns a member of an object anywhere within n whose key
// an earlier member of that object has (the outermost object's first),
// and that earlier member; nil when there is none.
func repeatedMember(n *jnode) (again, first *jmember) {
	if a, f := n.repeats(); len(a) > 0 {
		return a[0], f[0]
	}
	for i := range n.Members {
		if a, f := repeatedMember(n.Members[i].Value); a != nil {
			return a, f
		}
	}
	for _, e := range n.Elems {
		if a, f := repeatedMember(e); a != nil {
			return a, f
		}
	}
	return nil, nil
}

// loadServers reads a baseline's "servers" (field; "projectServers"): a
// list of the servers it accepts (BaselineServer), never nil, each field
// a string and none unknown, as vigiles writes them, each context of the
// list's (prefix: "plugin:", "project:"). bad makes the error at a place.
func loadServers(v *jnode, bad func(jpos, string, ...any) error, field, prefix string, folded *int) ([]BaselineServer, error) {
	if v.Kind != jsonArray {
		return nil, bad(v.Pos, `%q: want a list of the servers and monitors the baseline accepts, found %s`, field, v.Kind)
	}
	kinds, want := []string{ServerMCP, ServerLSP, ServerMonitor, ServerSettings, ServerMod}, "mcp, lsp, monitor, settings or mod"
	if prefix == "project:" {
		kinds, want = []string{ServerMCP, ServerSettings}, "mcp or settings"
	}
	out := []BaselineServer{}
	for i, e := range v.Elems {
		if e.Kind != jsonObject {
			return nil, bad(e.Pos, `%q[%d]: want an object, found %s`, field, i, e.Kind)
		}
		var sv BaselineServer
		if err := stringFields(e, field, i, bad, []stringField{{"plugin", &sv.Plugin}, {"context", &sv.Context}, {"kind", &sv.Kind}, {"name", &sv.Name},
			{"type", &sv.Type}, {"starts", &sv.Starts}, {"when", &sv.When}, {"file", &sv.File}, {key: "files"}}); err != nil {
			return nil, err
		}
		if f := e.get("files"); f != nil {
			var err error
			if sv.Files, err = loadServerFiles(f, bad, fmt.Sprintf("%q[%d]", field, i), folded); err != nil {
				return nil, err
			}
		}
		switch {
		case !strings.HasPrefix(sv.Context, prefix):
			return nil, bad(e.Pos, `%q[%d]: "context" %q is no %s: want %sROOT`, field, i, sv.Context, map[string]string{"plugin:": "plugin's", "project:": "project's"}[prefix], prefix)
		case !slices.Contains(kinds, sv.Kind):
			return nil, bad(e.Pos, `%q[%d]: "kind" %q: want %s`, field, i, sv.Kind, want)
		case sv.File == "":
			return nil, bad(e.Pos, `%q[%d]: no "file": want the file that declares it`, field, i)
		}
		// As vigiles compares them (keptServers).
		var f bool
		sv.Context, f = loadedContext(sv.Context)
		n := loadedTexts([]*string{&sv.Name, &sv.Type, &sv.Starts, &sv.When}, []*string{&sv.File})
		if f || n > 0 {
			*folded++
		}
		out = append(out, sv)
	}
	return out, nil
}

// filesLacking is the first entry of a baseline's "servers" and
// "projectServers" (root's) that has no "files" (or null) where another
// entry has a list, and where that one is ("servers"[3]); nil where all
// or none have one.
func filesLacking(root *jnode) (*jnode, string) {
	var lack *jnode
	kept := ""
	for _, m := range root.Members {
		if (m.Key != "servers" && m.Key != "projectServers") || m.Value.Kind != jsonArray {
			continue
		}
		for i, e := range m.Value.Elems {
			switch f := e.get("files"); {
			case f == nil || f.Kind == jsonNull:
				if lack == nil {
					lack = e
				}
			case kept == "":
				kept = fmt.Sprintf("%q[%d]", m.Key, i)
			}
		}
	}
	if kept == "" {
		return nil, ""
	}
	return lack, kept
}

// loadServerFiles reads a server's "files" (v; at names the server in
// an error): null, as a baseline written before they were kept, is nil;
// else a list of the files it runs (BaselineFile), never nil, each path
// once, relative to the work tree and clean, as vigiles writes them, and
// each sha256 64 lower-case hex digits or "" (not hashed). bad makes the
// error at a place.
func loadServerFiles(v *jnode, bad func(jpos, string, ...any) error, at string, folded *int) ([]BaselineFile, error) {
	if v.Kind == jsonNull {
		return nil, nil
	}
	if v.Kind != jsonArray {
		return nil, bad(v.Pos, `%s: "files": want a list of the files of the tree it runs, found %s`, at, v.Kind)
	}
	out := []BaselineFile{}
	seen := map[string]bool{}
	for j, e := range v.Elems {
		if e.Kind != jsonObject {
			return nil, bad(e.Pos, `%s: "files"[%d]: want an object, found %s`, at, j, e.Kind)
		}
		var f BaselineFile
		if err := stringFields(e, "files", j, bad, []stringField{{"path", &f.Path}, {"sha256", &f.SHA256}}); err != nil {
			return nil, err
		}
		switch {
		case f.Path == "" || path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path || f.Path == ".." || strings.HasPrefix(f.Path, "../"):
			return nil, bad(e.Pos, `%s: "files"[%d]: "path" %q: want a clean path relative to the work tree`, at, j, f.Path)
		case !isSHA256Hex(f.SHA256) && f.SHA256 != "":
			return nil, bad(e.Pos, `%s: "files"[%d]: "sha256" %q: want 64 lower-case hex digits, or "" for a file that could not be hashed`, at, j, f.SHA256)
		}
		// As vigiles compares it (keptFiles).
		var fold bool
		if f.Path, fold = loadedPath(f.Path); fold {
			*folded++
		}
		switch {
		case seen[f.Path]:
			return nil, bad(e.Pos, `%s: "files"[%d]: %q is listed again: vigiles keeps each file once`, at, j, f.Path)
		}
		seen[f.Path] = true
		out = append(out, f)
	}
	return out, nil
}

// isSHA256Hex says whether s is a SHA-256 as hex.EncodeToString writes
// it.
func isSHA256Hex(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// stringField is a field of a baseline's list entry that holds a string,
// by its key; one with no dst is the caller's to read, of another kind.
type stringField struct {
	key string
	dst *string
}

// stringFields reads the members of e, entry i of the list field, into
// fields: each a string, and none unknown (the error names those it
// takes, in order). bad makes the error at a place.
func stringFields(e *jnode, field string, i int, bad func(jpos, string, ...any) error, fields []stringField) error {
	for _, m := range e.Members {
		k := slices.IndexFunc(fields, func(f stringField) bool { return f.key == m.Key })
		if k < 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			return bad(m.KeyPos, `%q[%d]: unknown field %q: want %s and %s`, field, i, m.Key, strings.Join(keys[:len(keys)-1], ", "), keys[len(keys)-1])
		}
		if fields[k].dst == nil {
			continue
		}
		if m.Value.Kind != jsonString {
			return bad(m.Value.Pos, `%q[%d]: %q: want a string, found %s`, field, i, m.Key, m.Value.Kind)
		}
		*fields[k].dst = m.Value.Str
	}
	return nil
}

// loadSkillShells reads a baseline's "skillShells": a list of the shell
// lines it accepts (BaselineSkillShell), each field a string and none
// unknown, as vigiles writes them, and each line once: vigiles writes
// one entry for lines alike, and two would say nothing more. bad makes
// the error at a place.
func loadSkillShells(v *jnode, bad func(jpos, string, ...any) error, folded *int) ([]BaselineSkillShell, error) {
	const field = "skillShells"
	if v.Kind != jsonArray {
		return nil, bad(v.Pos, `%q: want a list of the skills' and commands' shell lines the baseline accepts, found %s`, field, v.Kind)
	}
	out := []BaselineSkillShell{}
	at := map[shellKey]int{}
	for i, e := range v.Elems {
		if e.Kind != jsonObject {
			return nil, bad(e.Pos, `%q[%d]: want an object, found %s`, field, i, e.Kind)
		}
		var sl BaselineSkillShell
		if err := stringFields(e, field, i, bad, []stringField{{"plugin", &sl.Plugin}, {"context", &sl.Context}, {"file", &sl.File}, {"form", &sl.Form},
			{"command", &sl.Command}, {"allowed", &sl.Allowed}, {"shell", &sl.Shell}, {"arguments", &sl.Arguments}, {"invokedBy", &sl.InvokedBy}}); err != nil {
			return nil, err
		}
		switch {
		case !strings.HasPrefix(sl.Context, "plugin:") && !strings.HasPrefix(sl.Context, "project:"):
			return nil, bad(e.Pos, `%q[%d]: "context" %q is no context: want plugin:ROOT or project:DIR`, field, i, sl.Context)
		case sl.File == "":
			return nil, bad(e.Pos, `%q[%d]: no "file": want the file that holds the line`, field, i)
		case sl.Form != shellFormInline && sl.Form != shellFormBlock:
			return nil, bad(e.Pos, `%q[%d]: "form" %q: want %s or %s`, field, i, sl.Form, shellFormInline, shellFormBlock)
		case sl.Command == "":
			return nil, bad(e.Pos, `%q[%d]: no "command": want the command the line runs`, field, i)
		}
		// As vigiles compares them (shellKey).
		var f bool
		sl.Context, f = loadedContext(sl.Context)
		n := loadedTexts([]*string{&sl.Command, &sl.Allowed, &sl.Shell, &sl.Arguments}, []*string{&sl.File})
		if f || n > 0 {
			*folded++
		}
		if j, dup := at[sl.key()]; dup {
			return nil, bad(e.Pos, `%q[%d]: the same line as %q[%d] (context, file, form, command, allowed, shell, arguments and invokedBy alike): vigiles keeps each line once`, field, i, field, j)
		}
		at[sl.key()] = i
		out = append(out, sl)
	}
	return out, nil
}

// keptSkillShells is what a baseline keeps of the shell lines Claude Code
// runs (session.shells): each line once (lines alike in a file, as
// shellKey tells them, are one), sorted; nil where there is none, which
// a baseline leaves out.
func keptSkillShells(shells []startedServer) []BaselineSkillShell {
	var out []BaselineSkillShell
	seen := map[shellKey]bool{}
	for _, st := range shells {
		sv := st.sv
		k := sv.shellKey()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, BaselineSkillShell{Plugin: baselineName(sv.Plugin), Context: k.context, File: k.file, Form: k.form, Command: k.command, Allowed: k.allowed, Shell: k.shell, Arguments: k.arguments, InvokedBy: k.invokedBy})
	}
	slices.SortFunc(out, func(a, b BaselineSkillShell) int {
		for _, p := range [][2]string{{a.Context, b.Context}, {a.File, b.File}, {a.Form, b.Form}, {a.Command, b.Command}, {a.Allowed, b.Allowed}, {a.Shell, b.Shell}, {a.Arguments, b.Arguments}, {a.InvokedBy, b.InvokedBy}, {a.Plugin, b.Plugin}} {
			if c := strings.Compare(p[0], p[1]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// compareSkillShells compares the shell lines Claude Code runs
// (session.shells) with those the baseline b accepts, in finds, as
// compareServers: a line b keeps as it is (its context, file, form,
// command, approval, shell, arguments and invoker) is a notice that says so; any
// other stays the warning it is, which says that the baseline does not
// keep it (but
// where the audit writes the baseline: serversKept). A line is no drift
// error, new or changed: "skillShells" is optional, and an error that
// exists only where the key does would make its deletion loosen the
// audit (error to warning); as it is, deleting it, or an entry, only
// turns notices back into warnings. A line b keeps that the tree no
// longer has is not told: it accepts nothing there any more.
func (s *session) compareSkillShells(b *Baseline, finds []report.Finding, writing bool) {
	kept := map[shellKey]bool{}
	for _, bs := range b.SkillShells {
		kept[bs.key()] = true
	}
	for _, st := range s.shells {
		f := &finds[st.finding]
		switch {
		case kept[st.sv.shellKey()]:
			f.Severity = report.SeverityNotice
			f.Message = "accepted in the baseline as it is: " + f.Message
		case writing:
			// The baseline written keeps it (serversKept).
		case b.SkillShells == nil:
			f.Message += "; the baseline keeps no shell line (it has no \"skillShells\"): " + s.o.rewriteBaseline() + " keeps it (review its diff), and later audits accept it while it stays as it is"
		default:
			f.Message += "; the baseline does not keep it as it is (its file, form, command, allowed-tools approval, shell, arguments and who may invoke it): " + s.o.rewriteBaseline() + " keeps it (review its diff)"
		}
	}
}

// Drift kinds and rules of a plugin's servers and monitors against a
// baseline that keeps them.
const (
	DriftServerAdded   = "server-added"
	DriftServerChanged = "server-changed"
	DriftServerRemoved = "server-removed"
)

// serverSubject is what a server's drift names in place of a hook:
// its plugin's root, its kind and its name (plugins/x#mcp:db); a
// project's context, its kind and its name (project:.#settings:statusLine).
func serverSubject(id serverIdent) string {
	return id.root + "#" + id.kind + ":" + id.name
}

// keptServers is what a baseline keeps of started (session.started,
// session.projectStarted), sorted, in the tree's form (as starts made
// it), each with the files it runs (hashServerFiles: nil, kept as none
// recorded, where they were not hashed): never nil.
func keptServers(started []startedServer) []BaselineServer {
	out := []BaselineServer{}
	for _, st := range started {
		sv, f := st.sv, st.form()
		out = append(out, BaselineServer{Plugin: baselineName(sv.Plugin), Context: sv.context(), Kind: sv.Kind, Name: baselineName(sv.Name), Type: f.typ,
			Starts: f.starts, When: f.when, File: idFile(sv.Location.File), Files: keptFiles(st.files)})
	}
	sortServers(out)
	return out
}

// compareServers compares the servers Claude Code starts (session.started)
// with those the baseline b accepts, in finds, which begins with the
// session's findings (the first shard's report: a server's finding is
// there at its index). b keeps none (a baseline written before servers
// were kept): each stays a warning, which says that --update-baseline
// keeps it. Else a server the baseline accepts as it is now (its plugin,
// kind and name, type and what it starts) is a notice that says so: the
// report has no other place that names it, as its runs name an accepted
// hook. A new one is a server-added error, one whose type or what it
// starts differs a server-changed error (sev: notice with
// --update-baseline), each at the declaration, with what changed as
// evidence, beside its discovery warning; one the baseline has that no
// plugin declares any more, or whose plugin is now turned off, is a
// server-removed notice where removedIn (nil: nowhere) covers its file or
// its plugin's root.
func (s *session) compareServers(b *Baseline, finds []report.Finding, sev report.Severity, removedIn func(string) bool) ([]report.Drift, []report.Finding) {
	rewrite := s.o.rewriteBaseline()
	drift, out := compareServerList(b.Servers, s.started, s.offServers, finds, sev, removedIn, rewrite,
		"the baseline, written before vigiles kept servers and monitors, does not keep it")
	// The projects' own, kept apart: a baseline written before vigiles
	// named them keeps the plugins' servers but not theirs (no
	// "projectServers"), and they stay warnings there.
	pd, pf := compareServerList(b.ProjectServers, s.projectStarted, s.offProject, finds, sev, removedIn, rewrite,
		"the baseline, written before vigiles kept a project's MCP servers and settings commands, does not keep it")
	return append(drift, pd...), append(out, pf...)
}

// compareServerList is compareServers of one of a baseline's lists
// (kept; nil where the baseline has none, which before says) against the
// servers Claude Code starts that it would hold (started), those turned
// off being off; its advice says to rewrite the baseline as rewrite does
// (Options.rewriteBaseline).
func compareServerList(kept []BaselineServer, started []startedServer, offIdents []serverIdent, finds []report.Finding, sev report.Severity, removedIn func(string) bool, rewrite, before string) ([]report.Drift, []report.Finding) {
	if kept == nil {
		if sev == report.SeverityNotice {
			return nil, nil // --update-baseline keeps them now (serversKept)
		}
		for _, st := range started {
			f := &finds[st.finding]
			f.Message += "; " + before + ": " + rewrite + " keeps it (review its diff), and later audits compare it"
		}
		return nil, nil
	}
	was := map[serverIdent][]BaselineServer{}
	for _, bs := range kept {
		id := bs.ident()
		was[id] = append(was[id], bs)
	}
	now := map[serverIdent][]startedServer{}
	var order []serverIdent
	for _, st := range started {
		id := st.sv.ident()
		if _, seen := now[id]; !seen {
			order = append(order, id)
		}
		now[id] = append(now[id], st)
	}
	shown := func(f serverForm) string {
		when := ""
		if f.when != "" {
			when = " (when: " + f.when + ")"
		}
		if f.typ == "" || f.typ == "stdio" {
			return f.starts + when
		}
		return "(" + f.typ + ") " + f.starts + when
	}
	var drift []report.Drift
	var out []report.Finding
	for _, id := range order {
		all := was[id]
		delete(was, id)
		// The baseline's entries under this name by what they start, each
		// form's in the file's order: a lookup a server, not a scan of
		// them all (a baseline may list many under one name).
		byForm := map[serverForm][]int{}
		for i, bs := range all {
			byForm[bs.form()] = append(byForm[bs.form()], i)
		}
		used := make([]bool, len(all))
		var changed []startedServer
		for _, st := range now[id] {
			f := st.form()
			// The same server accepted as it is: each accepted one
			// vouches for one declared now.
			if q := byForm[f]; len(q) > 0 {
				used[q[0]], byForm[f] = true, q[1:]
				sd, ff := filesDrift(id, st, all[q[0]], sev)
				drift, out = append(drift, sd...), append(out, ff...)
				if len(ff) > 0 {
					continue // stays its warning, beside them
				}
				fd := &finds[st.finding]
				fd.Severity = report.SeverityNotice
				fd.Message = "accepted in the baseline as it is: " + fd.Message
				if all[q[0]].Files == nil && sev != report.SeverityNotice {
					fd.Message += "; the baseline keeps no hashes of the files of the tree it runs yet (written before vigiles kept them), so a script of it rewritten under the same command line is not compared: " + rewrite + " keeps them (review its diff)"
				}
				continue
			}
			changed = append(changed, st)
		}
		var olds []BaselineServer // not accepted as they are, in the file's order
		for i, bs := range all {
			if !used[i] {
				olds = append(olds, bs)
			}
		}
		what, plugin := kindName(id.kind), ""
		for _, st := range changed {
			f := st.form()
			plugin = st.sv.owner()
			name := shownCut(st.sv.Name, maxMonitorName)
			nowShown := cutBytes(shown(f), maxEvidence)
			if len(olds) == 0 {
				drift = append(drift, report.Drift{Hook: serverSubject(id), Kind: DriftServerAdded, Now: nowShown, Location: st.sv.Location})
				starts := "starts unsandboxed"
				if id.kind == ServerMod {
					starts = "loads into its own process, unsandboxed,"
				}
				out = append(out, report.Finding{Rule: RuleDriftPrefix + DriftServerAdded, Severity: sev, Location: st.sv.Location, Title: "changed since the baseline",
					Message: fmt.Sprintf("new %s %s of %s, not in the baseline, which Claude Code %s and vigiles does not run, so nothing of what it does is audited: %s",
						what, name, plugin, starts, shownName(clip(shown(f), maxServerLine))),
					Evidence: "+ " + shownName(nowShown) + "\n"})
				continue
			}
			// Paired with one the baseline accepted under its name,
			// in the order the file lists them.
			old := olds[0]
			olds = olds[1:]
			wasShown := cutBytes(shown(old.form()), maxEvidence)
			drift = append(drift, report.Drift{Hook: serverSubject(id), Kind: DriftServerChanged, Was: wasShown, Now: nowShown, Location: st.sv.Location})
			out = append(out, report.Finding{Rule: RuleDriftPrefix + DriftServerChanged, Severity: sev, Location: st.sv.Location, Title: "changed since the baseline",
				Message: fmt.Sprintf("%s %s of %s now starts otherwise than the baseline accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: %s",
					what, name, plugin, shownName(clip(shown(f), maxServerLine))),
				Evidence: "- the baseline, + now\n- " + shownName(wasShown) + "\n+ " + shownName(nowShown) + "\n"})
		}
		if len(olds) > 0 {
			was[id] = olds // accepted, and declared no more under this name
		}
	}
	if removedIn == nil {
		return drift, out
	}
	var gone []BaselineServer
	for _, l := range was {
		gone = append(gone, l...)
	}
	off := make(map[serverIdent]bool, len(offIdents))
	for _, id := range offIdents {
		off[id] = true
	}
	sortServers(gone)
	for _, bs := range gone {
		// The file and root as the tree names them (fileOfID).
		_, root, _ := strings.Cut(bs.Context, ":")
		file, root := fileOfID(bs.File), fileOfID(root)
		if !removedIn(file) && !removedIn(root) {
			continue
		}
		id := bs.ident()
		project := strings.HasPrefix(bs.Context, "project:")
		why := "no plugin declares it any more"
		switch {
		case project && off[id]:
			why = "the project's settings now turn it off, so Claude Code does not start it"
		case project:
			why = "the project declares it no more"
		case off[id] && bs.Kind == ServerMod:
			why = "its plugin is now turned off (enabledPlugins, or disableAllHooks), so Claude Code does not load it"
		case off[id]:
			why = "its plugin is now turned off under enabledPlugins, so Claude Code does not start it"
		}
		owner := "plugin " + cutBytes(shownKept(bs.Plugin), maxMonitorName)
		if project {
			owner = projectOwner(root)
		}
		loc := report.Location{File: file}
		drift = append(drift, report.Drift{Hook: serverSubject(id), Kind: DriftServerRemoved, Was: cutBytes(shown(bs.form()), maxEvidence), Location: loc})
		out = append(out, report.Finding{Rule: RuleDriftPrefix + DriftServerRemoved, Severity: report.SeverityNotice, Location: loc, Title: "changed since the baseline",
			Message: fmt.Sprintf("%s %s of %s is in the baseline, but %s", kindName(bs.Kind), cutBytes(shownKept(bs.Name), maxMonitorName), owner, why)})
	}
	return drift, out
}

// filesDrift compares the files of the tree st runs now (serverFiles)
// with those bs keeps, bs being the server the baseline accepts with
// st's form (id): none where it keeps none (a baseline written before
// they were kept, compared on what the server starts alone). A file
// whose hash differs (hashed now where the baseline's could not be, or
// the other way), that it runs now and did not, or ran and does not, is a
// server-changed drift and error (sev), naming each with the first 12
// hex digits of its hash on each side; a file it runs that could not be
// hashed now, or one past maxServerFiles, is a baseline/not-recorded
// error (sev) besides: a change there cannot be ruled out.
func filesDrift(id serverIdent, st startedServer, bs BaselineServer, sev report.Severity) ([]report.Drift, []report.Finding) {
	if bs.Files == nil {
		return nil, nil
	}
	sv := st.sv
	what, name, plugin := kindName(id.kind), shownCut(sv.Name, maxMonitorName), sv.owner()
	var drift []report.Drift
	var out []report.Finding
	if d := filesChanged(bs.Files, st.files); d.said != "" {
		drift = append(drift, report.Drift{Hook: serverSubject(id), Kind: DriftServerChanged, Was: d.was, Now: d.now, Location: sv.Location})
		out = append(out, report.Finding{Rule: RuleDriftPrefix + DriftServerChanged, Severity: sev, Location: sv.Location, Title: "changed since the baseline",
			Message: fmt.Sprintf("%s %s of %s starts as the baseline accepted, but runs files of the tree other than it accepted, unsandboxed, and vigiles does not run it, so what it does now was not reviewed: %s",
				what, name, plugin, d.said),
			Evidence: d.evidence})
	}
	if len(st.unhashed) > 0 {
		out = append(out, report.Finding{Rule: RuleBaselineUnproven, Severity: sev, Location: sv.Location,
			Message: fmt.Sprintf("%s %s of %s runs files of the tree that vigiles could not hash, so a change to them since the baseline cannot be ruled out: %s",
				what, name, plugin, strings.Join(st.unhashed, "; "))})
	}
	return drift, out
}

// ranFiles are, by run id, the files of the tree each run's command runs
// and what of them could not be hashed (runFiles); nil where none were
// read (no baseline), and nothing is compared on them.
type ranFiles struct {
	files    map[string][]BaselineFile
	unhashed map[string][]string
}

// of is the files run id's command runs, and whether they were read.
func (rf *ranFiles) of(id string) ([]BaselineFile, bool) {
	if rf == nil {
		return nil, false
	}
	f, ok := rf.files[id]
	return f, ok
}

// filesUnkept is the baseline/outdated notice, at loc, of a baseline
// written before vigiles kept the files of the tree commands run: where b
// keeps the files of no run, it counts the runs it knows whose command
// runs files of the tree now (ran), and where it has no "notRunFiles",
// the hooks it accepts as not run (NotRun) whose command does (unrun):
// those a script rewritten under is not compared for. nil where it keeps
// both, or none of its runs and hooks runs a file of the tree. Its fix
// rewrites the baseline as rewrite does (Options.rewriteBaseline).
func (b *Baseline) filesUnkept(loc report.Location, ran, unrun *ranFiles, rewrite string) *report.Finding {
	keepsRuns := false
	for _, r := range b.Runs {
		keepsRuns = keepsRuns || r.Files != nil
	}
	runs, hooks := 0, 0
	if ran != nil && !keepsRuns {
		for id, fs := range ran.files {
			if _, known := b.Runs[id]; known && len(fs) > 0 {
				runs++
			}
		}
	}
	if unrun != nil && b.NotRunFiles == nil {
		for id, fs := range unrun.files {
			if _, known := b.NotRun[id]; known && len(fs) > 0 {
				hooks++
			}
		}
	}
	var keeps, count []string
	if runs > 0 {
		keeps, count = append(keeps, `no "files" for its runs`), append(count, fmt.Sprintf("%d run(s)", runs))
	}
	if hooks > 0 {
		keeps, count = append(keeps, `no "notRunFiles" for the hooks it accepts as not run`), append(count, fmt.Sprintf("%d hook(s) not run", hooks))
	}
	if len(keeps) == 0 {
		return nil
	}
	return &report.Finding{Rule: RuleBaselineOutdated, Severity: report.SeverityNotice, Location: loc, Title: "baseline of an older form",
		Message: fmt.Sprintf("the baseline keeps %s (written before vigiles kept them), so %s that run files of the tree are not compared on them: a script rewritten under the same command is not told; fix: %s keeps them (review its diff)",
			strings.Join(keeps, " and "), strings.Join(count, " and "), rewrite)}
}

// foldedNames is the baseline/outdated notice, at loc, of a baseline
// whose runs keep written paths or links' targets (Baseline.folded), or
// that keeps servers, shell lines, runs' contexts or files run
// (Baseline.foldedServers), as an earlier vigiles did, each run of bytes
// that is not UTF-8 one U+FFFD: such a name stood for every name that
// shows so, and matches none now, so a run that writes one, or a server
// of that name, drifts until the baseline is rewritten, as rewrite does
// (Options.rewriteBaseline). nil where it keeps none.
func (b *Baseline) foldedNames(loc report.Location, rewrite string) *report.Finding {
	var kept, drift []string
	if b.folded > 0 {
		kept, drift = append(kept, fmt.Sprintf("%d written path(s) or link target(s)", b.folded)), append(drift, "a run that writes one is baseline/write drift")
	}
	if b.foldedServers > 0 {
		kept = append(kept, fmt.Sprintf("%d server(s), shell line(s), run context(s) or file(s) run", b.foldedServers))
		drift = append(drift, "a server or file run that is one is baseline/server-added, server-changed or command drift, a run so placed baseline/context drift, and a shell line a warning")
	}
	if len(kept) == 0 {
		return nil
	}
	return &report.Finding{Rule: RuleBaselineOutdated, Severity: report.SeverityNotice, Location: loc, Title: "baseline of an older form",
		Message: fmt.Sprintf("the baseline keeps %s with U+FFFD as vigiles kept a name that is not UTF-8 before it kept such names exact: each run of such bytes one U+FFFD, so a\\xff, a\\xfe and a\\uFFFD were one entry, and which of them was accepted is lost; none of them matches a name now, so %s; fix: %s keeps them exact (review its diff)",
			strings.Join(kept, " and "), strings.Join(drift, ", and "), rewrite)}
}

// filesDiff is what filesChanged found, in the forms a drift and its
// finding take: the baseline's and now's short forms of the files that
// differ, joined and cut to maxEvidence (for report.Drift's Was and Now),
// what the message says of them (the first maxNotAgain, then how many
// more), and the evidence, "- " the baseline's and "+ " now's. said is ""
// where nothing differs.
type filesDiff struct{ was, now, said, evidence string }

// filesChanged compares the files of the tree a command runs now (now)
// with those a baseline keeps of it (was): each changed, new or gone.
func filesChanged(was, now []BaselineFile) filesDiff {
	var olds, nows, said []string
	hash := func(f BaselineFile) string {
		if f.SHA256 == "" {
			return "(not hashed)"
		}
		return "sha256:" + f.SHA256[:12]
	}
	short := func(f BaselineFile) string { return shownName(f.Path) + " " + hash(f) }
	kept := make(map[string]BaselineFile, len(was))
	for _, f := range was {
		kept[f.Path] = f
	}
	var ev strings.Builder
	ev.WriteString("- the baseline, + now\n")
	for _, f := range now {
		// As a baseline keeps it (keptFiles): a name that is not UTF-8
		// is the one it was written from, not a new one.
		f.Path = idFile(f.Path)
		old, ok := kept[f.Path]
		delete(kept, f.Path)
		switch {
		case !ok:
			nows = append(nows, short(f))
			said = append(said, shownName(f.Path)+" is new to it ("+short(f)+")")
			ev.WriteString("+ " + short(f) + "\n")
		case old.SHA256 != f.SHA256:
			olds, nows = append(olds, short(old)), append(nows, short(f))
			said = append(said, shownName(f.Path)+" changed ("+hash(old)+", now "+hash(f)+")")
			ev.WriteString("- " + short(old) + "\n+ " + short(f) + "\n")
		}
	}
	for _, f := range was {
		if _, gone := kept[f.Path]; gone {
			olds = append(olds, short(f))
			said = append(said, "it no longer runs "+shownName(f.Path)+" ("+short(f)+")")
			ev.WriteString("- " + short(f) + "\n")
		}
	}
	if len(said) == 0 {
		return filesDiff{}
	}
	more := ""
	if len(said) > maxNotAgain {
		more = fmt.Sprintf(", and %d more", len(said)-maxNotAgain)
		said = said[:maxNotAgain]
	}
	return filesDiff{cutBytes(strings.Join(olds, "; "), maxEvidence), cutBytes(strings.Join(nows, "; "), maxEvidence), strings.Join(said, "; ") + more, ev.String()}
}

// serverForm is what a baseline compares of a server under its ident:
// an MCP or LSP server's type and what it starts, a monitor's what it
// starts and its when (monitorWhen).
type serverForm struct{ typ, starts, when string }

// form is st's serverForm.
func (st startedServer) form() serverForm {
	if st.sv.Kind == ServerMonitor {
		return serverForm{"", baselineName(st.starts), baselineName(monitorWhen(st.sv))}
	}
	return serverForm{baselineName(st.sv.Type), baselineName(st.starts), ""}
}

// form is the serverForm bs accepts.
func (bs BaselineServer) form() serverForm {
	return serverForm{bs.Type, bs.Starts, bs.When}
}

// monitorWhen is what a baseline keeps of a monitor's when: "" for
// "always", which starts it with every session.
func monitorWhen(sv *Server) string {
	if sv.When == "always" {
		return ""
	}
	return sv.When
}

// serversKept makes the finding of each server Claude Code starts, and of
// each shell line it runs (in finds, as compareServers,
// compareSkillShells), that the baseline did not accept as it is a
// notice that says the update keeps it, worded as the audit was invoked
// (Options.rewriteBaseline): the baseline it writes accepts it.
func (s *session) serversKept(finds []report.Finding) {
	for _, st := range slices.Concat(s.started, s.projectStarted, s.shells) {
		f := &finds[st.finding]
		if f.Severity == report.SeverityNotice {
			continue // accepted as it is already
		}
		f.Severity = report.SeverityNotice
		f.Message = "kept in the baseline by " + s.o.rewriteBaseline() + "; review its diff: " + f.Message
	}
}

// outdated is an error, at the baseline file, where a v1 baseline lacks
// what a v2 one keeps (lacking): what it turns off, said in every audit
// against it. An error, not a warning: each such key turns off
// comparisons whose drift is an error, and vigiles cannot tell a baseline
// written before it kept them from one a pull request turned back to v1
// and deleted them from, which must not pass where the v2 form of that
// deletion is refused (baseline/invalid). The fix, one update, is named.
// nil where it lacks nothing. servers and projectServers say whether
// the tree has servers of each list: a list the baseline lacks turns
// nothing off where the tree has none, and is not told. The fix rewrites
// the baseline as rewrite does (Options.rewriteBaseline).
func (b *Baseline) outdated(loc report.Location, servers, projectServers bool, rewrite string) *report.Finding {
	l := b.lacks
	l.servers = l.servers && servers
	l.projectServers = l.projectServers && projectServers
	if !l.any() {
		return nil
	}
	var parts []string
	if l.servers {
		parts = append(parts, `no "servers" (no MCP server, LSP server or monitor is compared: each stays a warning, never a baseline/server-added or baseline/server-changed error)`)
	}
	if l.projectServers {
		parts = append(parts, `no "projectServers" (no server of a project's .mcp.json and no command its settings name is compared: each stays a warning)`)
	}
	for _, c := range []struct {
		n    int
		what string
	}{
		{l.context, `"context" (not compared on where the hook runs: no baseline/context)`},
		{l.command, `"command" (not compared on the command that runs: no baseline/command)`},
		{l.deleted, `"deleted" (written paths compared by path only, not by whether the run deleted them)`},
	} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d run(s) without %s", c.n, c.what))
		}
	}
	return &report.Finding{Rule: RuleBaselineOutdated, Severity: report.SeverityError, Location: loc, Title: "baseline of an older form",
		Message: fmt.Sprintf("the baseline is %s, which this vigiles compares less of: it has %s. "+
			"A pull request that turns a baseline back to %s, or deletes these keys from one, would turn those comparisons off, so this is an error; "+
			"fix: %s rewrites it as %s, which keeps them all and is refused without them (review its diff)",
			BaselineSchemaV1, strings.Join(parts, "; "), BaselineSchemaV1, rewrite, BaselineSchema)}
}

// fileKind names what a file that is not a regular one is, by its mode:
// a directory, a FIFO, a socket, a device, or a special file.
func fileKind(m os.FileMode) string {
	switch t := m.Type(); {
	case t&os.ModeNamedPipe != 0:
		return "a FIFO"
	case t&os.ModeSocket != 0:
		return "a socket"
	case t&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

// marshalReadable is json.Marshal of v without its HTML escapes, as a
// baseline file holds its values: a command's "2>&1" stays readable.
func marshalReadable(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
