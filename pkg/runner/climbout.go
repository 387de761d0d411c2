package runner

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// A plugin's hook that reaches above its plugin's directory (a command
// that runs ${CLAUDE_PLUGIN_ROOT}/../shared/x.sh, a script that sources
// "$SCRIPT_DIR/../../lib.sh") finds what it reaches in the repository
// vigiles audits, and runs; but Claude Code installs a plugin as a copy
// of its own directory (~/.claude/plugins/cache/<marketplace>/<plugin>/
// <version>/), where nothing of the repository lies above it, so there
// the same hook fails. The run vigiles records is not the one a user
// gets: hookClimbsOut says so, a discovery/escapes-plugin warning.

// scriptDirSet matches a shell line that sets a variable (group 1) to its
// script's own directory, or one a path from it leads to (group 2: "/.."
// for the script's parent): NAME="$(cd "$(dirname "${BASH_SOURCE[0]}")"
// && pwd)", NAME=$(dirname "$0"), NAME=$(cd "$(dirname "$0")/.." && pwd),
// with blanks inside the parentheses too ("$( cd "$( dirname "$0" )" &&
// pwd )").
var scriptDirSet = lazyRE(`^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_][A-Za-z0-9_]*)=["']?\$\(\s*(?:cd\s+["']?\$\(\s*)?dirname\s+["']?\$\{?(?:BASH_SOURCE(?:\[0\])?|0)\}?["']?\s*\)(/[^"'\s)]*)?`)

// maxClimbs bounds the places one finding names, and maxDirVars the
// variables of one script read as holding its directory.
const (
	maxClimbs  = 3
	maxDirVars = 64
)

// wordEnd holds the characters that end a path a shell line names.
const wordEnd = " \t\"'`;|&<>()$"

// climb is one place a hook reaches above its plugin's directory: where
// ("the command", "plugins/p/x.sh line 7"), the path as written, and the
// path it leads to, relative to the work tree.
type climb struct{ where, written, to string }

// hookClimbsOut warns of each plugin hook that runs (h.runs) whose
// command, or a line of a shell script of the plugin's that it runs
// (hookFiles), names a path above the plugin's directory: through
// ${CLAUDE_PLUGIN_ROOT}/.. or, in a script, a variable set to the
// script's own directory. The hooks of one plugin that reach out so are
// one finding (climbedOut): a marketplace whose plugins each source one
// shared library from every hook script made one warning a hook (27 in
// a field test), each saying the same.
func (s *session) hookClimbsOut() {
	type group struct {
		hooks  []*Hook
		climbs map[*Hook][]climb
	}
	groups := map[string]*group{}
	var order []*group
	for _, h := range s.hooks {
		if !h.InPlugin || !h.runs() {
			continue
		}
		root := path.Clean(h.PluginRoot)
		var cs []climb
		texts := []string{h.Command}
		if h.Exec {
			texts = h.argvOf()
		}
		for _, t := range texts {
			cs = append(cs, rootClimbs("the command", t, root)...)
		}
		for _, f := range s.hookFiles(h) {
			if under(f.Path, root) || root == "." {
				cs = append(cs, s.scriptClimbs(f.Path, root)...)
			}
		}
		// One place a path: a guarded use (if [ -f X ]; then . X) names
		// it twice.
		seen := map[string]bool{}
		cs = slices.DeleteFunc(cs, func(c climb) bool {
			dup := seen[c.to]
			seen[c.to] = true
			return dup
		})
		if len(cs) == 0 {
			continue
		}
		// Apart, the hooks that reach above the repository itself too:
		// their message says the run does not find it either.
		key := root + "\x00" + fmt.Sprint(slices.ContainsFunc(cs, climbOutside))
		g := groups[key]
		if g == nil {
			g = &group{climbs: map[*Hook][]climb{}}
			groups[key] = g
			order = append(order, g)
		}
		g.hooks = append(g.hooks, h)
		g.climbs[h] = cs
	}
	for _, g := range order {
		s.findings = append(s.findings, climbedOut(g.hooks, g.climbs))
	}
}

// maxGroupClimbs bounds the places a finding of several hooks names.
const maxGroupClimbs = 6

// climbOutside says whether c leads above the repository itself.
func climbOutside(c climb) bool { return leavesDir(c.to) }

// climbedOut is the discovery/escapes-plugin warning of the hooks hs of
// one plugin, each of which reaches above its directory at the places
// climbs gives it: one hook's names the hook, several hooks' stands at
// the first declared and names them (event, matcher, line) and their
// places, in that order, each once; a command's by its hook's line, and
// file where another file of the plugin declares it (placeNamed), as
// hooksNamed names the hook.
func climbedOut(hs []*Hook, climbs map[*Hook][]climb) report.Finding {
	sortByDeclaration(hs)
	var cs []climb
	seen := map[climb]bool{}
	for _, h := range hs {
		for _, c := range climbs[h] {
			if len(hs) > 1 && c.where == "the command" {
				c.where = "the command at " + placeNamed(h.Location, hs[0].Location)
			}
			if !seen[c] {
				seen[c] = true
				cs = append(cs, c)
			}
		}
	}
	first := hs[0]
	bound := maxClimbs
	if len(hs) > 1 {
		bound = maxGroupClimbs
	}
	var said []string
	// A path above the repository itself, named or counted: the run
	// does not find it either.
	out := slices.ContainsFunc(cs, climbOutside)
	for i, c := range cs {
		if i == bound {
			said = append(said, fmt.Sprintf("and %d more", len(cs)-bound))
			break
		}
		to := shownCut(c.to, maxFetchSpec)
		switch {
		case c.to == ".":
			to = "the repository's root"
		case climbOutside(c):
			to = "outside the repository too (" + to + ")"
		}
		said = append(said, fmt.Sprintf("%s names %s, which is %s", c.where, shownCut(c.written, maxFetchSpec), to))
	}
	root := shownName(path.Clean(first.PluginRoot))
	if len(hs) == 1 {
		here := "in the repository it finds what lies there, but"
		if out {
			here = "what lies outside the repository it does not find here either, and"
		}
		return report.Finding{Rule: RuleEscapesPlugin, Severity: report.SeverityWarning, Location: first.Location,
			Message: fmt.Sprintf("hook %s reaches above its plugin's directory %s: %s; %s Claude Code installs a plugin as a copy of its own directory (~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/), where nothing of the repository lies above it, so wherever the plugin is installed the hook does not find it there: it fails, or does other than this run did (where it falls back when the path is missing), and this run is not the one its users get: keep what it uses inside the plugin",
				shownCut(first.ID, maxServerLine), root, strings.Join(said, "; "), here)}
	}
	here := "in the repository they find what lies there, but"
	if out {
		here = "what lies outside the repository they do not find here either, and"
	}
	return report.Finding{Rule: RuleEscapesPlugin, Severity: report.SeverityWarning, Location: first.Location,
		Message: fmt.Sprintf("%d hooks of plugin %s (%s) reach above its directory %s: %s; %s Claude Code installs a plugin as a copy of its own directory (~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/), where nothing of the repository lies above it, so wherever the plugin is installed the hooks do not find it there: they fail, or do other than this run did (where they fall back when the path is missing), and this run is not the one its users get: keep what they use inside the plugin",
			len(hs), shownCut(first.Plugin, maxMonitorName), hooksNamed(hs), root, strings.Join(said, "; "), here)}
}

// rootClimbs lists the uses of ${CLAUDE_PLUGIN_ROOT} in text (where says
// whose) whose path leaves root.
func rootClimbs(where, text, root string) []climb {
	var out []climb
	for _, m := range varPath().FindAllStringSubmatch(text, 64) {
		if m[1] != "CLAUDE_PLUGIN_ROOT" {
			continue
		}
		if to := path.Join(root, m[2]); strings.Contains(m[2], "..") && leaves(to, root) {
			out = append(out, climb{where, m[0], to})
		}
	}
	return out
}

// leaves says whether to, a path relative to the work tree, lies outside
// root, the plugin's directory ("." for one at the tree's root).
func leaves(to, root string) bool {
	if root == "." {
		return leavesDir(to)
	}
	return to != root && !under(to, root)
}

// scriptClimbs lists, for the tree's shell script rel of the plugin at
// root, the places its lines reach above root: through
// ${CLAUDE_PLUGIN_ROOT}, or through a variable a line before set to the
// script's own directory: each path once, at the first line that names
// it, and all of them, not the first few, so that a finding counts those
// it does not name (the read is bounded: shellScriptLines). Each script
// is read once a plugin root (s.climbs), as its shell reads it.
func (s *session) scriptClimbs(rel, root string) []climb {
	key := rel + "\x00" + root
	if cs, ok := s.climbs[key]; ok {
		return cs
	}
	var out []climb
	seen := map[string]bool{}   // the paths out names, each once
	dirs := map[string]string{} // variable: the directory it holds
	var names []string          // dirs' keys, sorted
	add := func(cs ...climb) {
		for _, c := range cs {
			if !seen[c.to] {
				seen[c.to] = true
				out = append(out, c)
			}
		}
	}
	for _, l := range s.shellScriptLines(rel) {
		line := l.text
		where := fmt.Sprintf("%s line %d", shownName(rel), l.at)
		if m := scriptDirSet().FindStringSubmatch(line); m != nil {
			if _, set := dirs[m[1]]; set || len(dirs) < maxDirVars {
				if !set {
					i, _ := slices.BinarySearch(names, m[1])
					names = slices.Insert(names, i, m[1])
				}
				dirs[m[1]] = path.Join(path.Dir(rel), m[2])
			}
			continue
		}
		add(rootClimbs(where, line, root)...)
		for _, name := range names {
			dir := dirs[name]
			for _, ref := range []string{"${" + name + "}", "$" + name} {
				for rest := line; ; {
					j := strings.Index(rest, ref)
					if j < 0 {
						break
					}
					rest = rest[j+len(ref):]
					p := rest
					if k := strings.IndexAny(rest, wordEnd); k >= 0 {
						p = rest[:k]
					}
					if ref == "$"+name && p != "" && !strings.HasPrefix(p, "/") {
						continue // $NAMEX: another variable
					}
					// The variable may hold a directory above root
					// already (ROOT=$(cd "$(dirname "$0")/../.." && pwd)).
					if to := path.Join(dir, p); leaves(to, root) {
						add(climb{where, ref + p, to})
					}
				}
			}
		}
	}
	if s.climbs == nil {
		s.climbs = map[string][]climb{}
	}
	s.climbs[key] = out
	return out
}

// sortByDeclaration sorts hooks in the order of their declarations
// (byDeclaration).
func sortByDeclaration(hs []*Hook) {
	slices.SortStableFunc(hs, func(a, b *Hook) int { return byDeclaration(a.Location, b.Location) })
}

// byDeclaration orders two declarations by where they stand: by file,
// line and column. A finding of several hooks, or of several hooks' runs,
// stands at the first so and names the rest in that order.
func byDeclaration(a, b report.Location) int {
	if c := strings.Compare(a.File, b.File); c != 0 {
		return c
	}
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Column - b.Column
}

// placeNamed names where at is declared, in a finding that stands at
// first: "line N", or "file:N" where another file declares it.
func placeNamed(at, first report.Location) string {
	if at.File != first.File {
		return fmt.Sprintf("%s:%d", shownName(at.File), at.Line)
	}
	return fmt.Sprintf("line %d", at.Line)
}

// namedUpTo names n things (name(i) the i-th), max at most, the rest
// counted ("3 more").
func namedUpTo(n, max int, name func(i int) string) []string {
	named := make([]string, 0, min(n, max+1))
	for i := range n {
		if i == max {
			return append(named, fmt.Sprintf("%d more", n-i))
		}
		named = append(named, name(i))
	}
	return named
}

// hooksNamed names the hooks hs (sorted by declaration) in a finding of
// them all, at the first: each by its event, its matcher and its line
// (file and line where another file declares it: placeNamed),
// maxHooksNamed at most, the rest counted.
func hooksNamed(hs []*Hook) string {
	return JoinWords(namedUpTo(len(hs), maxHooksNamed, func(i int) string {
		h := hs[i]
		what := h.Event
		if h.HasMatcher && h.Matcher != "" && h.Matcher != "*" {
			what += " " + shownCut(h.Matcher, maxMonitorName)
		}
		return what + " at " + placeNamed(h.Location, hs[0].Location)
	}), "and")
}
