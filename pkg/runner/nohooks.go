package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// maxNamedDeclaring bounds the plugins and settings files a
// discovery/no-hooks warning names one by one.
const maxNamedDeclaring = 5

// declaringIn names what discovery read under the audit path p ("." for
// the whole work tree) that Claude Code loads and that declares no hook:
// the plugins, the projects' settings files that are there and their
// skills, agents and commands directories that hold anything, and a count
// of the servers and commands Claude Code runs itself (MCP, LSP, monitors, mods,
// settings commands, skills' shell lines), each named in its own finding.
// Empty where discovery read nothing there: the audit looked in the wrong
// place, or the tree holds nothing of Claude Code's.
func (s *session) declaringIn(p string) []string {
	in := func(rel string) bool { return p == "." || s.within(rel, p) }
	var named []string
	for _, root := range s.plugins {
		if in(root) {
			named = append(named, s.pluginAt(root))
		}
	}
	for _, proj := range s.projects {
		for _, f := range []string{claudeSettings, claudeSettingsLocal} {
			rel := filepath.ToSlash(filepath.Join(proj, f))
			if !in(rel) {
				continue
			}
			if _, _, err := beneath(s.dir, s.dir, s.abs(rel)); !errors.Is(err, fs.ErrNotExist) {
				named = append(named, "settings "+shownName(rel))
			}
		}
		// The project's skills, agents and commands, whose frontmatter
		// discovery read, as a plugin of skills only is named.
		for _, d := range []struct{ dir, what string }{{claudeProjectSkills, "skills"}, {claudeProjectAgents, "agents"}, {claudeProjectCommands, "commands"}} {
			rel := filepath.ToSlash(filepath.Join(proj, d.dir))
			if !in(rel) {
				continue
			}
			if a, fi, err := beneath(s.dir, s.dir, s.abs(rel)); err == nil && fi.IsDir() {
				if ents, err := os.ReadDir(a); err == nil && len(ents) > 0 {
					named = append(named, d.what+" "+shownName(rel))
				}
			}
		}
	}
	var out []string
	if len(named) > maxNamedDeclaring {
		out = append(out, strings.Join(named[:maxNamedDeclaring], ", ")+fmt.Sprintf(" and %d more", len(named)-maxNamedDeclaring))
	} else if len(named) > 0 {
		out = append(out, strings.Join(named, ", "))
	}
	n := 0
	for _, sv := range s.servers {
		if in(sv.Location.File) || sv.PluginRoot != "" && in(sv.PluginRoot) {
			n++
		}
	}
	switch {
	case n == 1:
		out = append(out, "1 server or command that Claude Code runs itself, named in its own finding")
	case n > 1:
		out = append(out, fmt.Sprintf("%d servers and commands that Claude Code runs itself, each named in its own finding", n))
	}
	return out
}

// pluginAt names the plugin at root as other findings name it, by its
// name (the manifest's, Discovery.PluginNames), with where it lies
// where the name does not say: "plugin p", "plugin noxa at plugins",
// "plugin aria at the work tree's root".
func (s *session) pluginAt(root string) string {
	name := s.pluginNames[root]
	switch {
	case name == "" || name == root:
		return "plugin " + shownName(root)
	case root == ".":
		return "plugin " + shownName(name) + " at the work tree's root"
	}
	return "plugin " + shownName(name) + " at " + shownName(root)
}

// Bounds of the look for hooks Claude Code does not load (strayHooks).
const (
	maxStrayEntries = 20000
	maxStrayFile    = 1 << 20
	maxStrayNamed   = 5
)

// strayHooks names the JSON files under p ("." for the work tree) that
// declare hooks in Claude Code's form (an object whose "hooks" holds an
// event vigiles knows with an array of matcher groups) where Claude Code
// does not load them: a repository of hooks that an installer copies
// into ~/.claude or a project's .claude (settings.hooks.json,
// profiles/base/settings.json), and a hooks file put in a project's
// .claude as if it were a plugin's (.claude/hooks/hooks.json), where
// Claude Code reads a project's hooks from its settings files only. At
// most maxStrayNamed, in the order met, after a walk of at most
// maxStrayEntries entries that skips what discovery's does (unsearched)
// but for .claude directories, whose settings files it passes over
// (discovery reads them); files over maxStrayFile are not read. It
// skips a test's directories too (testDirs), below p where p lies in
// none: a hooks file there is a test's input, which no installer puts in
// place, and naming it as one would be noise (a plugin's
// tests/fixtures/…/hooks.json), and would take the place of an
// installer's own file among the maxStrayNamed.
func (s *session) strayHooks(p string) []string {
	root := s.dir
	if p != "." {
		root = filepath.Join(s.dir, filepath.FromSlash(p))
	}
	tests := !inTestDir(p)
	var out []string
	seen := 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxStrayEntries || len(out) == maxStrayNamed {
			return fs.SkipAll
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (unsearched(name) && name != ".claude" || tests && testDirs[name]) {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(name, ".json") {
			return nil
		}
		if filepath.Base(filepath.Dir(path)) == ".claude" && (name == "settings.json" || name == "settings.local.json") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil
		}
		data, err := io.ReadAll(io.LimitReader(f, maxStrayFile+1))
		f.Close()
		if err != nil || len(data) > maxStrayFile || !declaresHooks(data) {
			return nil
		}
		if rel, err := relTo(s.dir, path); err == nil {
			out = append(out, shownName(rel))
		}
		return nil
	})
	return out
}

// testDirs are the names of the directories that hold a project's tests
// and their data, by the common conventions (Go's testdata, JavaScript's
// __tests__ and __fixtures__): Claude Code loads nothing from them, and
// an installer copies nothing from them (strayHooks).
var testDirs = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range testDirNames {
		m[n] = true
	}
	return m
}()

// testDirNames are testDirs' names, in the order messages list them.
var testDirNames = []string{"test", "tests", "testdata", "__tests__", "fixtures", "__fixtures__"}

// inTestDir says whether the slash path rel has a test's directory
// (testDirs) among its parts.
func inTestDir(rel string) bool {
	return slices.ContainsFunc(strings.Split(rel, "/"), func(n string) bool { return testDirs[n] })
}

// declaresHooks says whether data is a JSON object whose "hooks" is an
// object holding an event vigiles knows as an array: hooks in the form
// Claude Code's settings and a plugin's hooks.json declare them; or,
// with no "hooks" at its top, one whose members hold such hooks (an
// installer's profiles, profileKeys).
func declaresHooks(data []byte) bool {
	n, err := parseJSON(data)
	if err != nil || n.Kind != jsonObject {
		return false
	}
	h := n.get("hooks")
	if h == nil || h.Kind != jsonObject {
		return len(profileKeys(data)) > 0
	}
	return declaresEvents(h)
}

// declaresEvents says whether the hooks object h holds a known event's
// array.
func declaresEvents(h *jnode) bool {
	for ev := range knownEvents {
		if e := h.get(ev); e != nil && e.Kind == jsonArray {
			return true
		}
	}
	return false
}

// strayUnloaded says of the files strayHooks names that Claude Code does
// not load their hooks, and how to audit them.
func strayUnloaded(stray []string) string {
	verb := "declare"
	if len(stray) == 1 {
		verb = "declares"
	}
	return fmt.Sprintf("%s %s hooks in Claude Code's form, but Claude Code does not load them from there (an installer copies such files into ~/.claude or a project's .claude, most often; a project's own hooks go in its .claude/settings.json, not in a hooks file of its .claude): to audit them, audit a checkout where they are in place (one copied to .claude/settings.json, or to a plugin's hooks/hooks.json)",
		strings.Join(stray, ", "), verb)
}

// projectHooksFiles are where a project's hooks are often put, in its
// .claude as if it were a plugin (hundreds of public repositories hold
// a .claude/hooks/hooks.json): Claude Code reads a project's hooks from
// its settings files alone.
var projectHooksFiles = []string{".claude/hooks/hooks.json", ".claude/hooks.json"}

// strayProjectHooks says, of a file of projectHooksFiles in a project
// discovery read that declares hooks in Claude Code's form
// (declaresHooks) and that discovery did not read otherwise (as the
// hooks file of a plugin a marketplace lists at .claude), that Claude
// Code does not load it, so none of its hooks runs, and vigiles runs
// none: its author may think them at work beside the hooks that do run.
func (c *claudeDisc) strayProjectHooks() {
	read := map[string]bool{}
	for k := range c.seenFile {
		if _, rel, ok := strings.Cut(k, "\x00"); ok {
			read[rel] = true
		}
	}
	for _, proj := range c.out.Projects {
		for _, name := range projectHooksFiles {
			rel := path.Join(proj, name)
			if read[rel] {
				continue
			}
			p := filepath.Join(c.dir, filepath.FromSlash(rel))
			if _, fi, err := beneath(c.dir, c.dirReal, p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStrayFile {
				continue
			}
			if data, err := os.ReadFile(p); err != nil || !declaresHooks(data) {
				continue
			}
			c.find(RuleMissingFile, report.SeverityWarning, report.Location{File: rel},
				"%s is not where Claude Code reads a project's hooks (its .claude/settings.json and .claude/settings.local.json; a hooks file is a plugin's), so none of its hooks runs, and vigiles runs none: move its \"hooks\" into %s",
				shownName(rel), shownName(path.Join(proj, claudeSettings)))
		}
	}
}

// serverFile says whether rel is a file of MCP or LSP servers alone (a
// .mcp.json or .lsp.json, or another JSON file a server discovery read
// comes from, such as the one a manifest's mcpServers names), which
// declares no hooks: its errors are no reason the audit found none. A
// manifest, a marketplace, settings or an agent's frontmatter, which
// declare servers beside hooks, are not.
func (s *session) serverFile(rel string) bool {
	switch b := path.Base(rel); {
	case b == ".mcp.json" || b == ".lsp.json":
		return true
	case b == "plugin.json" || b == "marketplace.json" || b == "settings.json" || b == "settings.local.json" || !strings.HasSuffix(b, ".json"):
		return false
	}
	for _, sv := range s.servers {
		if sv.Location.File == rel {
			return true
		}
	}
	return false
}
