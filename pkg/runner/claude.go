package runner

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vigiles/action/internal/textdist"
	"github.com/vigiles/action/pkg/report"
)

// maxDeclFile bounds the size of a declaration file vigiles reads.
const maxDeclFile = 4 << 20

// maxDeclTotal and maxHandlers bound one discovery: the bytes of the
// declaration files it reads again, in another context than the first,
// and the hook handlers it takes from them all. A
// file is read once in each context that reaches it, so a repository of
// many manifests naming one large hooks file could otherwise make
// discovery read it thousands of times. Past either, what is left is not
// read, and an error finding says so (nothing passes unread).
// maxHandlers is a variable so that tests can lower it.
const maxDeclTotal = 64 << 20

var maxHandlers = 50000

// maxDeclFirst bounds the bytes of the distinct declaration files one
// discovery reads (each once: maxDeclTotal counts the readings after),
// so that a tree of thousands of files of maxDeclFile bytes, one blob to
// git, does not take an hour to parse: a file past it is not read, and
// an error says so. No repository holds that much to declare. A variable
// so that tests can lower it.
var maxDeclFirst int64 = 512 << 20

// Claude Code declaration files, relative to a plugin or project root.
const (
	claudeSettings      = ".claude/settings.json"
	claudeSettingsLocal = ".claude/settings.local.json"
	claudePluginJSON    = ".claude-plugin/plugin.json"
	claudeMarketplace   = ".claude-plugin/marketplace.json"
	claudeHooksJSON     = "hooks/hooks.json"
)

// Rules of discovery findings.
const (
	RuleMalformed     = "discovery/malformed"
	RuleWrongType     = "discovery/wrong-type"
	RuleMissingScript = "discovery/missing-script"
	RuleMissingFile   = "discovery/missing-file"
	RuleBadMatcher    = "discovery/invalid-matcher"
	RuleUnknownEvent  = "discovery/unknown-event"
	RuleNotExecutable = "discovery/not-executable"
	RuleRemoteSource  = "discovery/remote-source"
	RuleOutsideTree   = "discovery/outside-work-tree"
	RuleNoHooks       = "discovery/no-hooks"
	// RuleFetchedCode names code a hook, server, monitor, settings
	// command or skill's shell line fetches from a registry or a URL
	// each time it starts, not from the tree (fetchedcode.go).
	RuleFetchedCode = "discovery/fetched-code"
	// RuleAgentStop is the notice that an agent's Stop hooks run as
	// SubagentStop (frontmatter.go).
	RuleAgentStop = "discovery/agent-stop"
	// RuleIgnoredMatcher names a matcher on an event whose matcher
	// Claude Code does not read (Stop, UserPromptSubmit, …): the hooks
	// run on every such event whatever it says.
	RuleIgnoredMatcher = "discovery/ignored-matcher"
)

// ClaudeAdapter discovers Claude Code hooks: project settings, plugin
// manifests, plugin hooks files, local marketplaces, and the frontmatter
// of skills, agents and commands (a plugin's and the project's).
type ClaudeAdapter struct{}

// Name implements Adapter.
func (ClaudeAdapter) Name() string { return "claude" }

// Discover implements Adapter.
func (ClaudeAdapter) Discover(dir, root string) (*Discovery, error) {
	c := newClaudeDisc(dir)
	rel, err := relTo(dir, root)
	if err != nil {
		return nil, err
	}
	c.rootRel = rel
	// At the work tree, the project before the plugin: its .claude is
	// its project's, which Claude Code loads in every session there; a
	// plugin of the work tree that names those files reads them too, in
	// its own context (readIn). Below it (an audit of some paths), the
	// plugin, then its marketplace (the marketplace first where the
	// plugin's manifest names it not: pluginAndMarket), then its
	// project, as the walk of a whole audit reads a directory, so that a
	// run keeps its context whichever the audit.
	if rel == "." {
		c.project(root)
	}
	c.pluginAndMarket(root, c.isPluginRoot(root) && !c.otherAgentsPlugin(root))
	if rel != "." {
		c.project(root)
	}
	c.below(root)
	c.fixtureNotices()
	c.strayProjectHooks()
	c.agentsReadElsewhere()
	c.skipConflictingPlugins()
	c.skipBrokenPlugins()
	c.alsoNamed()
	c.remoteVendored()
	c.unlistedFindings()
	return c.out, nil
}

// alsoNamed gives each plugin's own hooks the other names its directory
// is reached by (Hook.AlsoNamed).
func (c *claudeDisc) alsoNamed() {
	for rel, idx := range c.ownHooks {
		for _, i := range idx {
			h := c.out.Hooks[i]
			h.AlsoNamed = withNames(h.AlsoNamed, c.names[rel], h.Plugin)
		}
	}
	for rel, idx := range c.ownServers {
		for _, i := range idx {
			sv := c.out.Servers[i]
			sv.AlsoNamed = withNames(sv.AlsoNamed, c.names[rel], sv.Plugin)
		}
	}
}

// withNames returns have with the names of add that are neither "" nor
// own, sorted, each once: in time n log n, since a marketplace may give
// one directory a hundred thousand names.
func withNames(have, add []string, own string) []string {
	for _, n := range add {
		if n != "" && n != own {
			have = append(have, n)
		}
	}
	slices.Sort(have)
	return slices.Compact(have)
}

// remoteVendored makes an error of a marketplace entry whose source is
// remote where a plugin of its name is vendored in the tree: vigiles
// audits the vendored copy, and Claude Code installs the remote source,
// which nobody audited (a pull request that points the entry elsewhere
// and leaves the vetted copy in place passed on a notice). So is an
// entry whose local source is another directory than the one a plugin
// of its name is vendored in (a decoy beside the vetted copy).
func (c *claudeDisc) remoteVendored() {
	// A plugin is looked at once, not once per hook of it, and under
	// every name its directory is known by (Hook.AlsoNamed): an entry of
	// another name that reaches the directory first does not hide the
	// vendored plugin's own.
	// Every plugin directory read is looked at, whether it declares
	// hooks or not (one of commands and skills alone is as vendored,
	// and as audited); the hooks' own names and roots too.
	seen := map[[2]string]bool{}
	look := func(root string, names []string) {
		if c.skillsDirOnly(root) {
			// A skills-directory plugin is <name>@skills-dir, loaded in
			// place: a marketplace's plugin of its name is another one,
			// and it is no vetted copy of that one.
			return
		}
		for _, name := range names {
			if k := [2]string{name, root}; seen[k] {
				continue
			} else {
				seen[k] = true
			}
			c.vendoredAs(name, root)
		}
	}
	for _, h := range c.out.Hooks {
		if h.InPlugin {
			look(h.PluginRoot, append([]string{h.Plugin}, h.AlsoNamed...))
		}
	}
	for _, rel := range c.out.Plugins {
		look(rel, c.names[rel])
	}
	c.copyNotices()
}

// auditedPlugin says whether the tree directory dir is a plugin that
// discovery read, whose manifest names it name, and which declares hooks
// of its own (vendoredAs).
func (c *claudeDisc) auditedPlugin(dir, name string) bool {
	return c.readAs(dir, name) && len(c.ownHooks[dir]) > 0
}

// readAs says whether the tree directory dir is a plugin that discovery
// read, whose manifest names it name.
func (c *claudeDisc) readAs(dir, name string) bool {
	own, ok := c.seenPlugin[dir]
	return ok && own == name
}

// skillsDirOnly says whether the plugin directory root is installed as a
// skills-directory plugin alone (Discovery.Installs).
func (c *claudeDisc) skillsDirOnly(root string) bool {
	ids := c.out.Installs[root]
	return len(ids) > 0 && !slices.ContainsFunc(ids, func(id string) bool { return !isSkillsDirID(id) })
}

// vendoredAs makes the errors of remoteVendored for the plugin name
// vendored at root. An entry of a marketplace file inside root is none:
// that marketplace came with the vendored plugin (its upstream is a
// marketplace too), and users add it from there, not from this
// repository, which installs root itself. A plugin at the tree's root
// has no such marketplace of its own: every marketplace in the tree is
// the repository's (a decoy entry there is an error), but an entry whose
// source is this repository itself on GitHub (the plugin listing itself
// by its URL) installs what is audited here, and stays a notice. So is
// an entry whose local source is another plugin that vigiles read, which
// its manifest gives that name and which declares hooks of its own
// (auditedPlugin): it installs what is audited, and the copy at root is
// merely not it (a root manifest beside the plugin its marketplace lists
// from ./plugin). One without hooks is the decoy it was: the vetted
// copy's hooks passed for those installed; unless the copy at root
// declares none either (a backup of the plugins directory kept in the
// tree), whose runs pass for nothing: a notice too. The notices are
// made once every plugin is looked at, one per copy (copyNotices).
func (c *claudeDisc) vendoredAs(name, root string) {
	atRoot := path.Clean(root) == "."
	ownMarket := func(file string) bool { return !atRoot && under(path.Clean(file), path.Clean(root)) }
	es := slices.DeleteFunc(slices.Clone(c.local[name]), func(e localEntry) bool { return ownMarket(e.loc.File) })
	if len(es) > 0 && !slices.ContainsFunc(es, func(e localEntry) bool { return c.sameDir(e.dir, root) }) && !c.listedElsewhere(root, ownMarket) {
		for _, e := range es {
			if hooked := c.auditedPlugin(e.dir, name); hooked || c.readAs(e.dir, name) && len(c.ownHooks[root]) == 0 {
				// Said once per copy of the tree's plugins, after
				// every plugin is looked at (copyNotices).
				c.copies = append(c.copies, pluginCopy{name: name, dir: e.dir, root: root, loc: e.loc, hooked: hooked})
				continue
			}
			c.about(len(c.out.Findings), root, e.dir) // dropped by unlistedFindings where not listed
			c.find(RuleRemoteSource, report.SeverityError, e.loc, "the marketplace entry %s installs %s, but a plugin of that name is vendored at %s, which vigiles audits and Claude Code does not install from here: point the entry at the vetted directory, or remove the other",
				shownName(name), shownName(e.dir), shownName(root))
		}
	}
	for _, r := range c.remote[name] {
		i := r.finding
		f := &c.out.Findings[i]
		if f.Severity == report.SeverityError || ownMarket(f.Location.File) || atRoot && r.repo != "" && r.repo == c.selfRepo() {
			continue
		}
		c.about(i, root)
		f.Severity = report.SeverityError
		f.Message += fmt.Sprintf("; a plugin of that name is vendored at %s, which vigiles audits, but Claude Code installs this source instead: point the entry at the vendored directory", shownName(root))
	}
}

// listedElsewhere says whether an entry of a marketplace of the tree, not
// one inside root (ownMarket), lists the plugin directory root under
// another name: Claude Code installs it in its own right (plugins/x-copilot,
// whose manifest names it x, under the entry x-copilot), and vigiles
// audits it so, so it is neither a copy of the plugin the entry of its
// manifest's name installs nor a decoy beside it. The entries are
// indexed by the directories they list once.
func (c *claudeDisc) listedElsewhere(root string, ownMarket func(file string) bool) bool {
	if c.entriesOf == nil {
		c.entriesOf = map[string][]localEntry{}
		for _, es := range c.local {
			for _, e := range es {
				d := path.Clean(e.dir)
				c.entriesOf[d] = append(c.entriesOf[d], e)
			}
		}
	}
	return slices.ContainsFunc(c.entriesOf[path.Clean(root)], func(e localEntry) bool { return !ownMarket(e.loc.File) })
}

// pluginCopy is a plugin directory of the tree (root) of the name that a
// marketplace entry, declared at loc, installs from another directory
// (dir) that vigiles audits as well (vendoredAs): hooked where the
// installed plugin declares hooks of its own, else the copy declares
// none.
type pluginCopy struct {
	name, dir, root string
	loc             report.Location
	hooked          bool
}

// maxCopiesNamed bounds the copies a copyNotices notice names; the rest
// are counted.
const maxCopiesNamed = 5

// copyNotices makes the remote-source notices of the copies vendoredAs
// noted: one per copy of the tree's plugins, not one per entry. A copy
// is where a copied plugin lies, less the part of its path that the
// installed plugin's ends with too (plugins.bak of plugins/p at
// plugins.bak/p, old/2025 of plugins/p at old/2025/plugins/p); a copy of
// one plugin under another name is one of its own. A backup of a
// marketplace's plugins directory made a notice for each of its
// plugins, hundreds alike; its notice names the first of them and
// counts the rest, at the first entry's source.
func (c *claudeDisc) copyNotices() {
	type group struct {
		copyAt, from string
		members      []pluginCopy
	}
	groups := map[[2]string]*group{}
	var order []*group
	for _, pc := range c.copies {
		copyAt, from := copyBases(pc.root, pc.dir)
		k := [2]string{copyAt, from}
		g := groups[k]
		if g == nil {
			g = &group{copyAt: copyAt, from: from}
			groups[k] = g
			order = append(order, g)
		}
		g.members = append(g.members, pc)
	}
	c.copies = nil
	for _, g := range order {
		slices.SortStableFunc(g.members, func(a, b pluginCopy) int { return byDeclaration(a.loc, b.loc) })
		first := g.members[0]
		var dirs []string
		unloaded := 0
		for _, m := range g.members {
			dirs = append(dirs, m.root, m.dir)
			if c.unloadedCopy(m) {
				unloaded++
			}
		}
		slices.Sort(dirs)
		c.about(len(c.out.Findings), slices.Compact(dirs)...) // dropped by unlistedFindings where not listed
		// What vigiles does with the copies: Claude Code loads none that
		// no marketplace lists, and only those are left unrun.
		did := ""
		if unloaded > 0 {
			lists, whose, name := "them", "their", "one"
			switch {
			case len(g.members) == 1:
				lists, whose, name = "it", "its", "it"
			case unloaded < len(g.members):
				lists = fmt.Sprintf("%d of them", unloaded)
			}
			did = fmt.Sprintf("; no marketplace lists %s, and Claude Code loads a plugin no marketplace lists only where --plugin-dir names it, so vigiles runs none of %s hooks and names none of %s servers: name %s as the PATH of vigiles audit to audit it", lists, whose, whose, name)
		}
		switch {
		case len(g.members) == 1 && first.hooked:
			c.find(RuleRemoteSource, report.SeverityNotice, first.loc, "the marketplace entry %s installs %s, a plugin of that name with hooks of its own, which vigiles audits; the plugin of that name vendored at %s is not what Claude Code installs from here%s",
				shownName(first.name), shownName(first.dir), shownName(first.root), did)
		case len(g.members) == 1:
			c.find(RuleRemoteSource, report.SeverityNotice, first.loc, "the marketplace entry %s installs %s, a plugin of that name, which vigiles audits; the plugin of that name vendored at %s, which declares no hooks whose runs could pass for the installed plugin's, is not what Claude Code installs from here%s",
				shownName(first.name), shownName(first.dir), shownName(first.root), did)
		default:
			hooked := 0
			for _, m := range g.members {
				if m.hooked {
					hooked++
				}
			}
			named := namedUpTo(len(g.members), maxCopiesNamed, func(i int) string {
				return fmt.Sprintf("%s of %s", shownName(g.members[i].root), shownName(g.members[i].dir))
			})
			why := "each copy declares no hooks whose runs could pass for the installed plugin's"
			switch hooked {
			case len(g.members):
				why = "each installed plugin declares hooks of its own"
			case 0:
			default:
				why = fmt.Sprintf("%d of the installed plugins declare hooks of their own, and the copies of the others none whose runs could pass for theirs", hooked)
			}
			where := "the work tree's root"
			if g.copyAt != "." {
				where = shownName(g.copyAt)
			}
			c.find(RuleRemoteSource, report.SeverityNotice, first.loc, "%d marketplace entries install plugins of the tree that vigiles audits, and %s holds a copy of each (%s): the copies are not what Claude Code installs from here, and %s%s",
				len(g.members), where, JoinWords(named, "and"), why, did)
		}
	}
	c.dropUnloadedCopies()
}

// unloadedCopy says whether the copy pc is one Claude Code loads from no
// marketplace of the tree: no marketplace lists its directory (one of
// its own, inside it, that vendoredAs passes over, lists it for that
// marketplace's users) and it is not the work tree's root (a plugin
// developed there is loaded by --plugin-dir .). It notes it for
// dropUnloadedCopies.
func (c *claudeDisc) unloadedCopy(pc pluginCopy) bool {
	root := path.Clean(pc.root)
	if root == "." || c.listedDirs[root] {
		return false
	}
	if c.unloadedCopies == nil {
		c.unloadedCopies = map[string]bool{}
	}
	c.unloadedCopies[root] = true
	return true
}

// dropUnloadedCopies takes the copies unloadedCopy noted out of what
// discovery found, as Claude Code loads none of them: their own hooks,
// servers and skills' shell lines, and their directories from the
// plugins read (Discovery.Plugins, which discovery/no-hooks names), as
// a test's fixture plugin is never read (insidePlugin). An audit that
// names one as its PATH reads it from there, as it reads a fixture: the
// whole walk no longer holds its declarations.
func (c *claudeDisc) dropUnloadedCopies() {
	if len(c.unloadedCopies) == 0 {
		return
	}
	hooks, servers := map[*Hook]bool{}, map[*Server]bool{}
	for root := range c.unloadedCopies {
		for _, i := range c.ownHooks[root] {
			hooks[c.out.Hooks[i]] = true
		}
		for _, i := range c.ownServers[root] {
			servers[c.out.Servers[i]] = true
		}
	}
	c.out.Hooks = slices.DeleteFunc(c.out.Hooks, func(h *Hook) bool { return hooks[h] })
	c.out.Servers = slices.DeleteFunc(c.out.Servers, func(sv *Server) bool { return servers[sv] })
	// Their indexes are no longer those of out.Hooks and out.Servers.
	c.ownHooks, c.ownServers, c.fileHooks = nil, nil, nil
	c.out.Plugins = slices.DeleteFunc(c.out.Plugins, func(rel string) bool {
		_, ok := c.unloadedCopies[path.Clean(rel)]
		return ok
	})
}

// copyBases are where the plugin directory root, a copy of the plugin
// directory dir, and dir lie, less the path both end with: plugins.bak
// and plugins for plugins.bak/p and plugins/p, "." and plugins for p and
// plugins/p; root and dir themselves where they end alike in nothing.
func copyBases(root, dir string) (copyAt, from string) {
	r := strings.Split(path.Clean(root), "/")
	d := strings.Split(path.Clean(dir), "/")
	n := 0
	for n < len(r) && n < len(d) && r[len(r)-1-n] == d[len(d)-1-n] && r[len(r)-1-n] != "." {
		n++
	}
	join := func(parts []string) string {
		if len(parts) == 0 {
			return "."
		}
		return path.Join(parts...)
	}
	return join(r[:len(r)-n]), join(d[:len(d)-n])
}

// project reads the project hooks of root's .claude directory: its
// settings files' and the frontmatter of its skills, agents and commands;
// and what else of the project's Claude Code runs unsandboxed: the
// commands its settings name (settingsCommands) and the MCP servers of
// root's .mcp.json (projectMCP), each named once the session knows its
// settings (serverFindings).
// Those of the work tree's own are the "project"'s; those of a directory
// below it (a monorepo package's, met by below or named as an audit path)
// are named after that directory, the same whichever way it is reached,
// and run there (Hook.ProjectDir).
func (c *claudeDisc) project(root string) {
	rel, err := relTo(c.dir, root)
	if err != nil {
		return
	}
	name := "project"
	if rel != "." {
		name = filepath.Base(root)
	}
	if !c.projectSeen[rel] {
		if c.projectSeen == nil {
			c.projectSeen = map[string]bool{}
		}
		c.projectSeen[rel] = true
		c.out.Projects = append(c.out.Projects, rel)
	}
	c.settings(root, claudeSettings, name)
	c.settings(root, claudeSettingsLocal, name+"-local")
	c.flushSettingsCommands(root)
	c.projectMCP(root, name)
	c.projectComponents(root, name)
	named := c.namedMarkets
	c.namedMarkets = nil
	for _, m := range named {
		c.marketplaceAt(m.root, m.file)
	}
}

// marketsNamed notes the marketplaces that the settings n of the project
// at root name by a local source inside the work tree (localMarketRoot,
// under extraKnownMarketplaces or its alias additionalMarketplaces, as
// outsidePlugins reads them), for project to read after the project's
// own files: Claude Code adds such a marketplace wherever it is, so
// discovery reads it wherever it is, in a dot-directory too
// (.claude/plugins), which the walk does not search (below), and a
// "file" source's file whatever its name (marketplaces/team.json), from
// the marketplace root Claude Code takes for it. Only what settings name
// is read so; a source that leaves the tree, or a file whose root does,
// is not read, and outsidePlugins says so.
func (c *claudeDisc) marketsNamed(root string, n *jnode) {
	km := n.get("extraKnownMarketplaces")
	if km == nil || km.Kind != jsonObject {
		km = n.get("additionalMarketplaces")
	}
	if km == nil || km.Kind != jsonObject {
		return
	}
	for _, m := range km.Members {
		if _, own := claudeMarkets[m.Key]; own {
			continue // Claude Code's own, whatever the settings say
		}
		p, file, ok := localMarketRoot(m.Value.get("source"), root)
		if !ok {
			continue
		}
		a, fi, err := beneath(c.dir, c.dirReal, p)
		if err != nil || !fi.IsDir() {
			continue
		}
		rel, err := relTo(c.dirReal, a)
		if err != nil {
			continue
		}
		// The file as the root reaches it: a link on the way to the
		// root is the root's, as Claude Code resolves both.
		fileRel, err := filepath.Rel(p, file)
		if err != nil || leavesDir(fileRel) {
			continue
		}
		at := filepath.Join(c.dir, filepath.FromSlash(rel))
		c.namedMarkets = append(c.namedMarkets, namedMarket{root: at, file: filepath.Join(at, fileRel)})
	}
}

// namedMarket is a marketplace that settings name by a local source
// (marketsNamed): its root, which its plugins' relative sources resolve
// from, and its file, both absolute under the tree's path.
type namedMarket struct{ root, file string }

func newClaudeDisc(dir string) *claudeDisc {
	c := &claudeDisc{dir: dir, dirReal: dir, seenFile: map[string]bool{}, seenPlugin: map[string]string{}, seenID: map[string]bool{}, out: &Discovery{}}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		c.dirReal = real
	}
	return c
}

// isPluginRoot says whether dir holds a plugin: a manifest or a default
// hooks file. A manifest that a symbolic link leaves not there is said
// (deadLink); a hooks file so is said where the directory is a plugin's
// (plugin), not of every directory with a hooks link to nothing.
func (c *claudeDisc) isPluginRoot(dir string) bool {
	if c.present(filepath.Join(dir, claudePluginJSON), false) {
		return true
	}
	return c.exists(filepath.Join(dir, claudeHooksJSON)) && !c.installerProfiles(dir)
}

// installerProfiles says whether dir, which holds no plugin manifest, has
// a hooks/hooks.json that is an installer's profiles, not a hooks file:
// no "hooks" at its top, and hooks one level down ({"essential":
// {"hooks": {…}}, "full": {…}}), which an installer merges into a
// settings file. Claude Code reads no such file as a plugin's hooks, so
// dir is no plugin; the first time, a notice says so.
func (c *claudeDisc) installerProfiles(dir string) bool {
	p := filepath.Join(dir, claudeHooksJSON)
	if v, ok := c.profiles[p]; ok {
		return v
	}
	if c.profiles == nil {
		c.profiles = map[string]bool{}
	}
	c.profiles[p] = false
	_, fi, err := beneath(c.dir, c.dirReal, p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDeclFile {
		return false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	keys := profileKeys(data)
	if len(keys) == 0 {
		return false
	}
	c.profiles[p] = true
	rel, _ := relTo(c.dir, p)
	c.find(RuleNotExecutable, report.SeverityNotice, report.Location{File: rel},
		"%s has no \"hooks\" at its top but hooks one level down (%s): an installer's profiles, which it merges into a settings file, not a hooks file Claude Code reads; vigiles does not run them: audit a checkout where they are installed",
		shownName(rel), strings.Join(keys, ", "))
	return true
}

// profileKeys are the members of the JSON object data, a file with no
// "hooks" at its top, whose value holds a "hooks" object of a known
// event's array (shown, sorted, at most five); none where data is no
// such file.
func profileKeys(data []byte) []string {
	n, err := parseJSON(data)
	if err != nil || n.Kind != jsonObject || n.get("hooks") != nil {
		return nil
	}
	var keys []string
	for _, m := range n.Members {
		if m.Value.Kind != jsonObject {
			continue
		}
		if h := m.Value.get("hooks"); h != nil && h.Kind == jsonObject && declaresEvents(h) {
			keys = append(keys, shownCut(m.Key, maxMonitorName)+".hooks")
		}
	}
	slices.Sort(keys)
	if len(keys) > 5 {
		keys = append(keys[:5], "…")
	}
	return keys
}

// below discovers the plugins and marketplaces in the directories under
// root, so that an audit of a tree (or of plugins/) finds a plugin that no
// marketplace lists, and the project hooks of every .claude directory
// below root's own (project): Claude Code loads a nested
// .claude/skills/<name>/SKILL.md once it works on a file in that
// directory, even in a session started at the repository root, and the
// .claude/settings.json, agents and commands there in a session started
// in that directory (a monorepo's package); not a .claude in a test's
// directory below root (inTests: tests/fixtures/proj/.claude), a test's
// input, which a notice names (fixtureProject). It walks in name order, depth
// first, and looks into a plugin's own directories too (a repository that
// is a plugin may hold more); a plugin met twice is read once
// (seenPlugin), and a file once in each context that reaches it
// (seenFile, readIn). It skips directories whose name starts with "."
// (.git, and .claude and .claude-plugin, which are read by name, not
// searched; a marketplace there that settings name is read by its name
// too: marketsNamed) and node_modules, and it follows no symbolic link: whatever a
// link leads to, inside the tree or out of it, is not searched (a plugin
// reached through one is audited when a marketplace or an audit path
// names it, through beneath); a .claude that is itself a link is read as
// the work tree's own is, through beneath, only while it stays inside.
func (c *claudeDisc) below(root string) {
	ents, err := os.ReadDir(root)
	if err != nil {
		c.unreadDir(root, err)
	}
	c.caseVariants(root, ents)
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || unsearched(name) {
			continue // e.IsDir is false for a symbolic link
		}
		sub := filepath.Join(root, name)
		c.pluginAndMarket(sub, c.isPluginRoot(sub) && !c.otherAgentsPlugin(sub) && !c.insidePlugin(sub))
		// After the plugin: a plugin may keep its components under its
		// own .claude (commands: ./.claude/commands), which are the
		// plugin's (its name, CLAUDE_PLUGIN_ROOT), not a package's; a
		// file read once is not read again.
		_, err := os.Lstat(filepath.Join(sub, ".claude"))
		switch {
		case c.inTests(sub):
			// A test's input (tests/fixtures/proj/.claude), no package:
			// not read as a project, its .mcp.json neither.
			if err == nil {
				c.fixtureProject(sub)
			}
		case err == nil:
			c.project(sub)
		default:
			// No .claude, and no project hooks; but a session started
			// there starts the servers of its .mcp.json all the same
			// (and an audit of this PATH names them: Discover).
			c.projectMCP(sub, name)
		}
		c.below(sub)
	}
}

// pluginAndMarket reads, where the walk meets the directory dir, the
// plugin dir is (isPlugin) and the marketplace it holds: the plugin
// first, as the walk reads a directory, unless its manifest gives it no
// name. Then the marketplace comes first: an entry of it that lists dir
// itself ("source": "./", a plugin repository that is its own
// marketplace) names the plugin, as Claude Code installs it
// (name@marketplace), where the plugin read first would take the
// directory's name, which only --plugin-dir gives it (a checkout's
// directory, my-plugin-main or a CI workspace's), for its hooks,
// servers and messages.
func (c *claudeDisc) pluginAndMarket(dir string, isPlugin bool) {
	named := isPlugin && c.manifestNamed(dir)
	if named {
		c.plugin(dir, "", nil, "", report.Location{})
	}
	c.marketplace(dir)
	if isPlugin && !named {
		c.plugin(dir, "", nil, "", report.Location{})
	}
}

// manifestNamed says whether the plugin directory dir has a manifest
// that names it: a "name" string that is not empty (manifest reads it,
// and says what is wrong with one that is not so).
func (c *claudeDisc) manifestNamed(dir string) bool {
	var name string
	return json.Unmarshal(c.manifestTop(dir)["name"], &name) == nil && name != ""
}

// manifestTop is the top-level members of the plugin directory dir's
// manifest, as written; none where it has none, or none that is a JSON
// object of at most maxDeclFile bytes in the tree. A light read, which
// counts no bytes and says nothing: manifest reads it for the plugin.
func (c *claudeDisc) manifestTop(dir string) map[string]json.RawMessage {
	p := filepath.Join(dir, claudePluginJSON)
	_, fi, err := beneath(c.dir, c.dirReal, p)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDeclFile {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	return top
}

// manifestComponentKeys are the keys of a plugin manifest, or of a
// marketplace entry, that declare components: what a "strict": false
// entry and the manifest may not both declare (strictConflict).
var manifestComponentKeys = []string{claudeSkills, claudeAgents, claudeCommands, "hooks", mcpKind.field, lspKind.field, "outputStyles"}

// strictConflict says whether the marketplace entry e (plugins[i] of the
// marketplace file rel, named name) installs the plugin at dir in a form
// Claude Code fails to load: "strict": false makes the entry the whole
// definition of the plugin, and where the plugin's manifest declares
// components too, Claude Code refuses both ("Plugin … has conflicting
// manifests: both plugin.json and marketplace entry specify components";
// plugin-marketplaces.md, "Strict mode"), so none of the plugin's hooks,
// skills, commands, agents or servers is loaded. The error
// (RuleMalformed) is at the entry's "strict"; skipConflictingPlugins lists the plugin's hooks, not
// runs them, where every entry that installs it so fails.
func (c *claudeDisc) strictConflict(rel string, e *jnode, i int, name, dir string) bool {
	st, ok := e.member("strict")
	if !ok || st.Value.Kind != jsonBool || st.Value.Bool {
		return false
	}
	var inEntry, inManifest []string
	top := c.manifestTop(dir)
	for _, k := range manifestComponentKeys {
		if _, ok := e.member(k); ok {
			inEntry = append(inEntry, k)
		}
		if _, ok := top[k]; ok {
			inManifest = append(inManifest, k)
		}
	}
	if len(inEntry) == 0 || len(inManifest) == 0 {
		return false
	}
	mrel, _ := relTo(c.dir, filepath.Join(dir, claudePluginJSON))
	c.find(RuleMalformed, report.SeverityError, c.loc(rel, st.Value.Pos),
		"plugins[%d] (%s): \"strict\": false makes this entry the whole definition of the plugin, and both it (%s) and the plugin's manifest %s (%s) declare components: Claude Code fails to load the plugin as this entry installs it (\"conflicting manifests: both plugin.json and marketplace entry specify components\"), none of its hooks, skills, commands, agents or servers: set \"strict\": true, or declare the components in one place",
		i, shownCut(name, maxMonitorName), strings.Join(inEntry, ", "), shownName(mrel), strings.Join(inManifest, ", "))
	return true
}

// skipConflictingPlugins lists, not runs, every hook of a plugin that
// the tree's marketplaces install only by entries Claude Code fails to
// load it from (strictConflict), and says so in the first such error.
// A plugin another entry installs whole runs as that one loads it.
func (c *claudeDisc) skipConflictingPlugins() {
	for root, l := range c.entryLoads {
		if l.whole > 0 || len(l.conflicts) == 0 {
			continue
		}
		f := &c.out.Findings[l.conflicts[0]]
		n := 0
		for _, h := range c.out.Hooks {
			if h.InPlugin && h.PluginRoot == root && h.NotRun == "" {
				h.NotRun = fmt.Sprintf("Claude Code fails to load plugin %s: its marketplace entry says \"strict\": false and both the entry and its manifest declare components (%s, line %d)", shownName(h.Plugin), shownName(f.Location.File), f.Location.Line)
				n++
			}
		}
		if n > 0 {
			f.Message += fmt.Sprintf("; no entry of the tree installs it otherwise: vigiles lists its %d hook(s) and runs none", n)
		}
	}
}

// entryLoad counts, of one plugin directory, the marketplace entries
// that install it whole and the errors (out.Findings indices) of those
// Claude Code fails to load it from (strictConflict).
type entryLoad struct {
	whole     int
	conflicts []int
}

// otherAgentsPlugin says whether dir, which the walk met, is another
// agent's plugin, not a Claude Code plugin: a Gemini CLI extension's
// (gemini-extension.json) or an OpenAI Codex plugin's
// (.codex-plugin/plugin.json), with no Claude Code manifest. Its
// hooks/hooks.json is that agent's (its events, its ${extensionPath} or
// ${PLUGIN_ROOT}), which Claude Code loads only as a plugin a marketplace
// lists (read there, not here): the walk does not read it as one, and
// says so once.
func (c *claudeDisc) otherAgentsPlugin(dir string) bool {
	if c.exists(filepath.Join(dir, claudePluginJSON)) {
		return false
	}
	for _, other := range []struct{ manifest, whose string }{
		{"gemini-extension.json", "a Gemini CLI extension's"},
		{".codex-plugin/plugin.json", "an OpenAI Codex plugin's"},
	} {
		if _, fi, err := beneath(c.dir, c.dirReal, filepath.Join(dir, filepath.FromSlash(other.manifest))); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		rel, _ := relTo(c.dir, dir)
		if _, listed := c.seenPlugin[rel]; !listed {
			// A marketplace of the tree's that lists it has had it
			// read as a plugin already: nothing to say.
			c.find(RuleNotExecutable, report.SeverityNotice, report.Location{File: path.Join(rel, claudeHooksJSON)},
				"%s is %s (%s, no .claude-plugin/plugin.json): Claude Code loads its hooks only where a marketplace lists the directory as a plugin, and vigiles does not run them otherwise", shownName(rel), other.whose, other.manifest)
		}
		return true
	}
	return false
}

// insidePlugin says whether dir, a plugin the walk met that no
// marketplace of the tree lists, lies inside the directory of a plugin a
// marketplace of the tree does list: a test's fixture plugin, kept with
// the plugin it tests. Claude Code installs a listed plugin's directory
// whole, and reads the directories inside it only as that plugin's files,
// by their standard names or its manifest's paths: never as a plugin of
// their own. The walk does not read it as one, and says so once the walk
// is over, unless a marketplace met later lists it (fixtureNotices); an
// audit that names it as its PATH reads it (Discover). A plugin inside one
// that no marketplace lists (a directory of plugins, or a work tree, made
// a plugin) is read as before: nothing says which of them the author
// loads with --plugin-dir.
func (c *claudeDisc) insidePlugin(dir string) bool {
	rel, err := relTo(c.dir, dir)
	if err != nil || rel == "." || c.listedDirs[rel] {
		return false
	}
	if _, read := c.seenPlugin[rel]; read {
		return false
	}
	for up := path.Dir(rel); ; up = path.Dir(up) {
		if c.listedDirs[up] {
			file := path.Join(rel, claudeHooksJSON)
			if c.exists(filepath.Join(dir, claudePluginJSON)) {
				file = path.Join(rel, claudePluginJSON)
			}
			c.fixtures = append(c.fixtures, fixturePlugin{rel: rel, file: file, in: up})
			return true
		}
		if up == "." {
			return false
		}
	}
}

// fixturePlugin is a plugin-shaped directory insidePlugin did not read:
// rel, its manifest or hooks file (file), and the listed plugin it lies
// in (in).
type fixturePlugin struct{ rel, file, in string }

// fixtureNotices says of each directory insidePlugin did not read, once
// the walk is over, that it is not run, unless a marketplace met after it
// listed it (and had it read as the plugin it is).
func (c *claudeDisc) fixtureNotices() {
	for _, f := range c.fixtures {
		if c.listedDirs[f.rel] {
			continue
		}
		whose := "the plugin " + shownName(f.in)
		if f.in == "." {
			whose = "the work tree's plugin"
		}
		if c.find(RuleNotExecutable, report.SeverityNotice, report.Location{File: f.file},
			"%s lies inside %s, which a marketplace lists, and is listed by no marketplace itself (a test's fixture): Claude Code installs it as that plugin's files and loads none of them as a plugin, so vigiles does not run its hooks; to audit it, name it as the PATH of vigiles audit",
			shownName(f.rel), whose) {
			c.unread(f.rel)
		}
	}
}

// inTests says whether dir, a directory the walk met below the audit's
// root, lies in a test's directory (testDirs) below that root: a
// .claude there is a test's input (tests/fixtures/proj/.claude,
// testdata/x/.claude), not a package's. Where the root itself lies in one
// (an audit of tests/fixtures), none is: the audit asked for them, as the
// look for hooks Claude Code does not load has it (strayHooks).
func (c *claudeDisc) inTests(dir string) bool {
	rel, err := relTo(c.dir, dir)
	if err != nil || inTestDir(c.rootRel) {
		return false
	}
	if c.rootRel != "." {
		rel = strings.TrimPrefix(rel, c.rootRel+"/")
	}
	return inTestDir(rel)
}

// fixtureProject says of dir, a directory with a .claude that lies in a
// test's directory (inTests), that vigiles does not read it as a
// project: Claude Code reads a project's .claude where its session
// starts (and ~/.claude), and a nested one's skills once it works on a
// file there; no session of the repository starts in a test's input, and
// what a test holds there is often broken on purpose. An audit that
// names dir as its PATH reads it (Discover), and drops the notice
// (Discovery.UnreadFixtures).
func (c *claudeDisc) fixtureProject(dir string) {
	rel, err := relTo(c.dir, dir)
	if err != nil {
		return
	}
	if c.find(RuleNotExecutable, report.SeverityNotice, report.Location{File: path.Join(rel, ".claude")},
		"%s lies in a test's directory (%s): a test's input, not a project of the repository's (Claude Code reads a project's .claude where its session starts, and a nested one's skills once it works on a file there), so vigiles reads neither it nor %s's .mcp.json as a project's, and runs none of its hooks; to audit it, name %s as the PATH of vigiles audit",
		shownName(path.Join(rel, ".claude")), strings.Join(testDirNames, ", "), shownName(rel), shownName(rel)) {
		c.unread(rel)
	}
}

// unread notes that the finding just made says the directory rel is a
// test's fixture discovery did not read (Discovery.UnreadFixtures).
func (c *claudeDisc) unread(rel string) {
	if c.out.UnreadFixtures == nil {
		c.out.UnreadFixtures = map[int]string{}
	}
	c.out.UnreadFixtures[len(c.out.Findings)-1] = rel
}

// unsearched says whether below, which searches the tree for what Claude
// Code loads, skips the directory name: a dot-directory (.git; .claude
// and .claude-plugin are read by name) or node_modules.
func unsearched(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

type claudeDisc struct {
	dir      string
	dirReal  string // dir with every symlink followed
	rootRel  string // the audit's root, relative to dir ("." for the tree)
	seenFile map[string]bool
	// projectSeen holds out.Projects as a set: a monorepo of thousands
	// of packages searched the list for each.
	projectSeen map[string]bool
	// agentWarns are the warnings that a plugin's agent's hooks never
	// run (agentsReadElsewhere).
	agentWarns []agentWarn
	// seenPlugin holds the name a plugin root's manifest gives ("" for
	// none) once its own declarations are read.
	seenPlugin map[string]string
	// options holds, by plugin root, the values its manifest's
	// userConfig gives its hooks where the user sets none (pluginOptions).
	options map[string]map[string]string
	// seenID holds the hook IDs given out, so that no two declarations
	// share one (the session keeps one hook per ID).
	seenID map[string]bool
	// declBytes and handlers count what maxDeclTotal and maxHandlers
	// bound.
	declBytes int64
	handlers  int
	// firstBytes counts what maxDeclFirst bounds.
	firstBytes int64
	readOnce   map[string]bool
	// installIDs holds each plugin directory and ID installed notes
	// ("rel\x00id"), so that a marketplace of a hundred thousand entries
	// with one source is noted in linear time.
	installIDs map[string]bool
	// deadLinks holds, by real path, the symbolic links said to lead
	// nowhere (deadLink).
	deadLinks map[string]bool
	// unlisted counts the findings past maxFindings, unlistedSev is the
	// highest of their severities and unlistedAt where the first is;
	// lastKept says whether the last finding is listed (find).
	unlisted    int
	unlistedSev report.Severity
	unlistedAt  report.Location
	lastKept    bool
	lastDropped report.Finding // the last not listed
	// drops counts the findings not listed, and errDrop is the last of
	// them that may make Claude Code skip a file (an error of
	// RuleWrongType or RuleMalformed, not loadsAnyway's), the drops-th
	// (errDropAt; 0 for none).
	drops     int
	errDrop   report.Finding
	errDropAt int
	// unreadDirs holds the directories said to be unreadable
	// (unreadDir), relative to the tree.
	unreadDirs map[string]bool
	// gitmodules holds the work tree's submodule paths once read
	// (submodules).
	gitmodules map[string]bool
	// namedHooks holds the hooks files (absolute) a manifest's "hooks"
	// names (strayPluginHooks).
	namedHooks map[string]bool
	// profiles holds, by the path of a manifest-less directory's
	// hooks/hooks.json, whether it is an installer's profiles
	// (installerProfiles).
	profiles map[string]bool
	// fileHooks holds the indexes in out.Hooks of the hooks each file
	// gave in each context (fileRead, nameAgain).
	fileHooks map[string][]int
	// mdFiles counts the markdown files met below skills, agents and
	// commands directories (see maxComponentFiles).
	mdFiles int
	out     *Discovery
	// brokenPlugins holds, by plugin root (absolute), the first error
	// with which Claude Code fails to load the whole plugin: a PreToolUse
	// or PermissionRequest hook of it that cannot be loaded, or a hooks
	// file of it that its loader refuses (skipBrokenPlugins).
	brokenPlugins map[string]brokenPlugin
	// entryLoads holds, by plugin directory (relative to the work tree),
	// how the marketplace entries that list it install it
	// (skipConflictingPlugins).
	entryLoads map[string]*entryLoad
	// loadable holds the indexes in out.Findings of errors about a hook
	// that Claude Code's schema takes all the same (loadsAnyway): it
	// loads the hook, and fails it only when it would run it.
	loadable map[int]bool
	// remote holds, by plugin name, each marketplace entry whose source
	// is remote (remoteVendored).
	remote map[string][]remoteEntry
	self   *string // selfRepo, once read
	// local holds, by plugin name, the marketplace entries whose source
	// is a directory of the tree (remoteVendored).
	local map[string][]localEntry
	// copies holds the copies of listed plugins met (vendoredAs), for
	// copyNotices.
	copies []pluginCopy
	// unloadedCopies holds the directories of the copies no
	// marketplace lists (unloadedCopy).
	unloadedCopies map[string]bool
	// entriesOf indexes the local entries of c.local by the directory
	// each lists (listedElsewhere).
	entriesOf map[string][]localEntry
	// listedDirs holds the plugin directories a marketplace of the tree
	// lists by a local source, relative to the tree (insidePlugin).
	listedDirs map[string]bool
	// fixtures holds the plugin-shaped directories insidePlugin did not
	// read (fixtureNotices).
	fixtures []fixturePlugin
	// namedMarkets holds the marketplaces the settings of the project
	// being read name (marketsNamed).
	namedMarkets []namedMarket
	// names holds, by plugin root (as seenPlugin), every name it was
	// reached by: the entries' and its own; ownHooks the indexes in
	// out.Hooks of its own declarations' hooks (alsoNamed).
	names    map[string][]string
	nameSet  map[string]bool // "root\x00name" for each of names
	ownHooks map[string][]int
	// ownServers holds, by plugin root, the indexes in out.Servers of
	// the servers of its own declarations (alsoNamed).
	ownServers map[string][]int
	// serverDocs holds the files of servers read (serversDoc), by path;
	// serverCount counts the servers and monitors read (countServer).
	serverDocs  map[string]serverDoc
	serverCount int
	// projCmds holds, by project directory, the commands its settings
	// files name, by key (settingsCommands), until both are read.
	projCmds map[string]map[string]*Server
}

// localEntry is a marketplace entry with a local source: the directory
// it installs (relative to the tree) and where the source is declared.
type localEntry struct {
	dir string
	loc report.Location
}

// relTo returns p relative to dir with forward slashes, or an error when p
// is outside dir.
func relTo(dir, p string) (string, error) {
	r, err := filepath.Rel(dir, p)
	if err != nil {
		return "", fmt.Errorf("relating %s to %s: %w", p, dir, err)
	}
	if leavesDir(r) {
		return "", errorf(ErrOutsideTree, "%s is outside the work tree %s", p, dir)
	}
	return filepath.ToSlash(r), nil
}

// ErrOutsideTree is returned for paths that leave the work tree.
var ErrOutsideTree = errors.New("path outside the work tree")

// sameDir reports whether a and b (relative to the tree) are one
// directory, through symbolic links (plugins/foo -> ../packages/foo),
// followed through beneath like every path the repository names: a link
// out of the tree is no directory of it.
func (c *claudeDisc) sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, _, err1 := beneath(c.dir, c.dirReal, filepath.Join(c.dir, filepath.FromSlash(a)))
	rb, _, err2 := beneath(c.dir, c.dirReal, filepath.Join(c.dir, filepath.FromSlash(b)))
	return err1 == nil && err2 == nil && ra == rb
}

// remoteEntry is a marketplace entry whose source is remote: the index in
// out.Findings of its notice, and the GitHub repository its source names
// (githubRepo; "" for another source).
type remoteEntry struct {
	finding int
	repo    string
}

// noteRemote records that the finding just made is of a remote source,
// from the GitHub repository repo ("" for another), for plugin name
// (remoteVendored).
func (c *claudeDisc) noteRemote(name, repo string) {
	if name == "" {
		return
	}
	if c.remote == nil {
		c.remote = map[string][]remoteEntry{}
	}
	if !c.lastKept {
		return // not listed (maxFindings)
	}
	c.remote[name] = append(c.remote[name], remoteEntry{len(c.out.Findings) - 1, repo})
}

// sourceRepo is the GitHub repository a marketplace entry's source
// object of kind installs whole, read from the key Claude Code reads for
// that kind: a github source's repo, a url source's url, a git-subdir's
// url where its path is the repository's root; "" for any other (an npm
// or pip package, a subdirectory, one pinned to a ref or sha, which
// need not be what a checkout holds).
func sourceRepo(kind string, src *jnode) string {
	str := func(k string) (string, bool) {
		v := src.get(k)
		if v == nil {
			return "", false
		}
		return v.Str, v.Kind == jsonString
	}
	if _, ok := str("ref"); ok {
		return ""
	}
	if _, ok := str("sha"); ok {
		return ""
	}
	key := map[string]string{"github": "repo", "url": "url", "git-subdir": "url"}[kind]
	if kind == "git-subdir" {
		if p, ok := str("path"); !ok || path.Clean(strings.TrimPrefix(p, "/")) != "." {
			return ""
		}
	}
	if v, ok := str(key); ok && key != "" {
		return githubRepo(v)
	}
	return ""
}

// selfRepo is the GitHub repository the work tree is a checkout of
// (repoOf), read once.
func (c *claudeDisc) selfRepo() string {
	if c.self == nil {
		self := repoOf(c.dir)
		c.self = &self
	}
	return *c.self
}

// maxFindings bounds the findings one discovery lists: a declaration file
// of maxDeclFile bytes can hold two million array elements, each of them
// wrong (`[1,1,…]` where matcher groups go), and a tree many such files
// (one blob to git). Past it, a finding is counted, not kept, and one
// finding at the end says how many were not listed (unlisted).
// What is read and run does not change. A variable so that tests can
// lower it.
var maxFindings = 10000

// find adds a finding, and reports whether it is listed: past
// maxFindings it is only counted (unlisted).
func (c *claudeDisc) find(rule string, sev report.Severity, loc report.Location, format string, args ...any) bool {
	if c.lastKept = len(c.out.Findings) < maxFindings; !c.lastKept {
		c.lastDropped = report.Finding{Rule: rule, Severity: sev, Location: loc, Message: fmt.Sprintf(format, args...)}
		if c.drops++; sev == report.SeverityError && (rule == RuleWrongType || rule == RuleMalformed) {
			c.errDrop, c.errDropAt = c.lastDropped, c.drops
		}
		if c.unlisted == 0 || sev.Rank() > c.unlistedSev.Rank() {
			c.unlistedSev = sev
		}
		if c.unlisted == 0 {
			c.unlistedAt = loc
		}
		c.unlisted++
		return false
	}
	c.out.Findings = append(c.out.Findings, report.Finding{
		Rule: rule, Severity: sev, Location: loc, Message: fmt.Sprintf(format, args...),
	})
	return true
}

// keepLast returns the index of the last finding, listed past
// maxFindings if it was not: an error that decides what is skipped (a
// settings file, a plugin) names the line the skipped hooks point at,
// and is said whatever the count.
func (c *claudeDisc) keepLast() int {
	if !c.lastKept {
		c.out.Findings = append(c.out.Findings, c.lastDropped)
		c.unlisted--
		c.lastKept = true
	}
	return len(c.out.Findings) - 1
}

// unlistedFindings ends a discovery that found more than maxFindings:
// one finding, of the highest severity among those not listed (as found),
// at the first of them, says how many were not and why, as a bound of the
// discovery (Discovery.Bounded: they may concern any part of the tree).
func (c *claudeDisc) unlistedFindings() {
	if c.unlisted == 0 {
		return
	}
	for i := range c.out.About {
		if i >= len(c.out.Findings) {
			delete(c.out.About, i) // of a finding not listed
		}
	}
	c.out.Bounded = append(c.out.Bounded, len(c.out.Findings))
	c.out.Findings = append(c.out.Findings, report.Finding{
		Rule: RuleMalformed, Severity: c.unlistedSev, Location: c.unlistedAt,
		Message: fmt.Sprintf("%d more findings of discovery, from here on, are not listed: more than the %d vigiles lists in one discovery (the worst of them is of severity %s); what is read and run is the same: fix those listed, and run vigiles again to see the rest", c.unlisted, maxFindings, c.unlistedSev),
	})
}

// about marks the finding at index i as concerning the directories
// dirs (relative to the tree, or absolute), wherever it points
// (Discovery.About).
func (c *claudeDisc) about(i int, dirs ...string) {
	if c.out.About == nil {
		c.out.About = map[int][]string{}
	}
	for _, d := range dirs {
		if rel, err := relTo(c.dir, d); err == nil {
			d = rel
		}
		c.out.About[i] = append(c.out.About[i], d)
	}
}

// bound is the error that a bound of one discovery (maxDeclTotal,
// maxHandlers, maxComponentFiles) left declarations unread: it is
// marked (Discovery.Bounded), as it concerns every part of the tree.
func (c *claudeDisc) bound(loc report.Location, format string, args ...any) {
	// Listed past maxFindings too: said once each, and what it left
	// unread matters more than any other finding.
	c.out.Bounded = append(c.out.Bounded, len(c.out.Findings))
	c.out.Findings = append(c.out.Findings, report.Finding{
		Rule: RuleMalformed, Severity: report.SeverityError, Location: loc, Message: fmt.Sprintf(format, args...),
	})
	c.lastKept = true
	// vigiles' bound, not the file's fault: Claude Code loads it.
	c.loadsAnyway()
}

func (c *claudeDisc) loc(file string, p jpos) report.Location {
	return report.Location{File: file, Line: p.Line, Column: p.Col}
}

// repeatedKeys warns at each member of the object n whose key a member
// before it has: of the keys named in only, or of every key when only is
// empty. Claude Code parses with JSON.parse, which keeps the last, and
// discovery reads the last too (get, member), so the last is what runs;
// but a reader of the file, or of its diff, meets the first, and a
// handler could show one command and run another. where names the object
// in the message ("" for a file's top level).
func (c *claudeDisc) repeatedKeys(file string, n *jnode, where string, only ...string) {
	c.repeatedKeysLosing(file, n, where, "the one declared before is ignored", only...)
}

// repeatedKeysLosing is repeatedKeys, with lost saying in the message what
// the earlier copies cost ("the command declared before, and its hooks,
// never run").
func (c *claudeDisc) repeatedKeysLosing(file string, n *jnode, where, lost string, only ...string) {
	again, first := n.repeats()
	for i, m := range again {
		if len(only) > 0 && !slices.Contains(only, m.Key) {
			continue
		}
		what := strconv.Quote(m.Key)
		if where != "" {
			what += " of " + where
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
			"%s is declared again here (first on line %d); Claude Code reads only the last one, so %s: keep one",
			what, first[i].KeyPos.Line, lost)
	}
}

// readJSON reads and parses a declaration file; a failure is a finding and
// a nil node.
func (c *claudeDisc) readJSON(abs string) (string, *jnode) {
	return c.readJSONIn("", "", abs)
}

// readObject is readJSON of the declaration file at abs where it exists
// and holds a JSON object: its path in the tree and the object; the
// object nil where the file is missing (said where a symbolic link leads
// nowhere: present), unreadable (said by readJSON) or holds anything else
// (a discovery/wrong-type error).
func (c *claudeDisc) readObject(abs string) (string, *jnode) {
	if !c.present(abs, false) {
		return "", nil
	}
	rel, n := c.readJSON(abs)
	if n != nil && n.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "%s: want a JSON object, found %s", rel, n.Kind)
		return rel, nil
	}
	return rel, n
}

// readJSONIn is readJSON of a file read once in the context key (readIn).
func (c *claudeDisc) readJSONIn(key, also, abs string) (string, *jnode) {
	rel, n, _ := c.parseJSONIn(key, also, abs)
	return rel, n
}

// parseJSONIn is readJSONIn, and whether the file was read and is not
// valid JSON (said as a finding), which Claude Code's loaders refuse too.
func (c *claudeDisc) parseJSONIn(key, also, abs string) (rel string, n *jnode, invalid bool) {
	rel, data, _ := c.readDeclIn(key, also, abs, false)
	if data == nil {
		return rel, nil, false
	}
	n, err := parseJSON(data)
	if err != nil {
		loc := report.Location{File: rel}
		var se *JSONSyntaxError
		if errors.As(err, &se) {
			loc.Line, loc.Column = se.Line, se.Col
		}
		if se != nil && se.Deep {
			// Valid JSON, maybe: it is vigiles' bound that stops it.
			c.find(RuleMalformed, report.SeverityError, loc, "%s nests values more than %d levels deep (line %d, column %d), deeper than vigiles reads; JSON sets no such bound, and Claude Code reads the file, but vigiles reads nothing of it: nest less deeply", rel, maxJSONDepth, se.Line, se.Col)
			return rel, nil, false
		}
		c.find(RuleMalformed, report.SeverityError, loc, "%s is not valid JSON: %v", rel, err)
		return rel, nil, true
	}
	return rel, n, false
}

// readDecl reads a declaration file once: inside the repository, not
// through a link out of it (one that stays in is followed), a regular
// file of at most maxDeclFile bytes. With prefix, a larger file is not refused:
// its first maxDeclFile bytes are read, and more says that the file goes
// on. Any failure is a finding and nil data (nil too for a file read
// before): a discovery/missing-file warning where a symbolic link leads
// nowhere (deadLink), an error where the file cannot be read otherwise.
func (c *claudeDisc) readDecl(abs string, prefix bool) (rel string, data []byte, more bool) {
	return c.readDeclIn("", "", abs, prefix)
}

// readDeclIn is readDecl of a file read once in the context key
// (readIn): once per context that reaches it; not where the key also
// holds it already.
func (c *claudeDisc) readDeclIn(key, also, abs string, prefix bool) (rel string, data []byte, more bool) {
	rel, err := relTo(c.dir, abs)
	if err != nil {
		c.find(RuleOutsideTree, report.SeverityError, report.Location{}, "a declaration file outside the repository is not read")
		return "", nil, false
	}
	// A symlink on the way, or the file itself, may lead out of the
	// repository: what leads out is not read. One that stays in is
	// followed, as Claude Code's reading of the file follows it
	// (.claude/agents/x.md -> ../../src/agents/x.md): its target is
	// read, which no link is on the way to.
	real, fi, err := beneath(c.dir, c.dirReal, abs)
	if errors.Is(err, ErrOutsideTree) {
		c.find(RuleOutsideTree, report.SeverityError, report.Location{File: rel}, "%s", outsideMessage(shownName(rel), rel, err))
		return rel, nil, false
	}
	if c.seenFile[fileKey(key, rel)] || also != "" && c.seenFile[fileKey(also, rel)] {
		return rel, nil, false
	}
	if c.declBytes > maxDeclTotal || c.firstBytes > maxDeclFirst {
		return rel, nil, false // said once, where it passed the bound
	}
	c.seenFile[fileKey(key, rel)] = true
	if err != nil {
		if !c.deadLink(abs, err, false) {
			c.find(RuleMissingFile, report.SeverityError, report.Location{File: rel}, "cannot read %s: %s", shownName(rel), c.treeErr(rel, err))
		}
		return rel, nil, false
	}
	if !fi.Mode().IsRegular() {
		c.find(RuleMalformed, report.SeverityError, report.Location{File: rel}, "%s is %s, not a regular file", rel, fileKind(fi.Mode()))
		return rel, nil, false
	}
	if fi.Size() > maxDeclFile && !prefix {
		c.find(RuleMalformed, report.SeverityError, report.Location{File: rel}, "%s is %d bytes: larger than the %d vigiles reads", rel, fi.Size(), maxDeclFile)
		return rel, nil, false
	}
	// Opened without following a link: the target, which had none, is
	// what is read.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err == nil {
		data, err = io.ReadAll(io.LimitReader(f, maxDeclFile+1))
		f.Close()
	}
	if err != nil {
		c.find(RuleMissingFile, report.SeverityError, report.Location{File: rel}, "cannot read %s: %s", shownName(rel), c.treeErr(rel, err))
		return rel, nil, false
	}
	// A file's first reading is bounded by maxDeclFile and
	// maxComponentFiles; its readings in more contexts, or by more names
	// (a directory link gives it as many), count here: it is known by
	// its device and inode.
	id := rel
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id = fmt.Sprintf("%d:%d", st.Dev, st.Ino)
	}
	if !c.readOnce[id] {
		if c.readOnce == nil {
			c.readOnce = map[string]bool{}
		}
		c.readOnce[id] = true
		if c.firstBytes += int64(len(data)); c.firstBytes > maxDeclFirst {
			c.bound(report.Location{File: rel},
				"the distinct declaration files read up to %s pass %d bytes in all, more than vigiles reads in one discovery; Claude Code reads them all, so the hooks of this file and those after it are not read", rel, maxDeclFirst)
			return rel, nil, false
		}
	} else if c.declBytes += int64(len(data)); c.declBytes > maxDeclTotal {
		c.bound(report.Location{File: rel},
			"the declaration files read up to %s pass %d bytes in all, more than vigiles reads in one discovery; Claude Code reads them all, so the hooks of this file and those after it are not read", rel, maxDeclTotal)
		return rel, nil, false
	}
	if len(data) > maxDeclFile {
		if !prefix {
			c.find(RuleMalformed, report.SeverityError, report.Location{File: rel}, "%s is larger than the %d bytes vigiles reads", rel, maxDeclFile)
			return rel, nil, false
		}
		data, more = data[:maxDeclFile], true
	}
	return rel, data, more // io.ReadAll's data is never nil, even empty
}

// settings reads a project settings file's "hooks", and the commands and
// env it gives, where Claude Code applies the file: one it skips
// entirely (brokenGuard) gives nothing.
func (c *claudeDisc) settings(root, name, plugin string) {
	rel, n := c.readObject(filepath.Join(root, name))
	if n == nil {
		return
	}
	c.repeatedKeys(rel, n, "", "hooks")
	c.marketsNamed(root, n)
	firstFind, firstHook := len(c.out.Findings), len(c.out.Hooks)
	fatal := -1
	if hooks := n.get("hooks"); hooks != nil {
		ctx := hookCtx{file: rel, plugin: plugin, pluginRoot: root, projectDir: root, isPlugin: false}
		fatal = c.events(ctx, hooks, "hooks.")
	}
	if fatal < 0 {
		if at := guardOutsideHooks(n); at != nil {
			what := fmt.Sprintf("%q is declared outside \"hooks\" (at the top level)", at.Key)
			if !guardEvents[at.Key] {
				what = fmt.Sprintf("%q holds PreToolUse or PermissionRequest hooks outside \"hooks\"", at.Key)
			}
			c.find(RuleMalformed, report.SeverityError, c.loc(rel, at.KeyPos),
				"%s: Claude Code reads no hook there, and it skips a settings file that declares PreToolUse or PermissionRequest hooks anywhere but under \"hooks\", whose guard they may be; move them under \"hooks\"", what)
			fatal = c.keepLast()
		}
	}
	if fatal >= 0 {
		c.skipBrokenSettings(rel, fatal, firstHook)
		return
	}
	for k := firstFind; k < len(c.out.Findings); k++ {
		// Another event's entry that cannot be loaded: Claude Code
		// drops it alone ("This entry was ignored").
		if f := &c.out.Findings[k]; f.Severity == report.SeverityError && f.Location.File == rel && (f.Rule == RuleWrongType || f.Rule == RuleMalformed) && !c.loadable[k] {
			f.Message += "; Claude Code ignores this entry and applies the rest of the file"
		}
	}
	c.settingsCommands(root, rel, plugin, n)
	c.settingsEnv(rel, n)
}

// guardEvents are the events whose hooks may guard a permission
// (PreToolUse, PermissionRequest): Claude Code skips a whole settings
// file in which one of theirs cannot be loaded ("a
// PreToolUse/PermissionRequest hook that cannot be loaded may be what
// guards the permissions declared beside it, so nothing it sits in is
// applied until the entry is fixed or removed"); another event's entry
// that cannot be loaded is ignored alone, and the rest of the file
// applies.
var guardEvents = map[string]bool{PreToolUse: true, PermissionRequest: true}

// settingsUnscanned are the keys of a settings file whose values Claude
// Code does not search for hooks declared outside "hooks" (their values
// are servers, plugins, variables and the like).
var settingsUnscanned = map[string]bool{"mcpServers": true, "managedMcpServers": true, "lspServers": true, "pluginConfigs": true, "enabledPlugins": true, "extraKnownMarketplaces": true, "env": true, "skillOverrides": true, "modelSettings": true}

// maxGuardDepth bounds how deep below a top-level key guardOutsideHooks
// looks, as Claude Code's scan is bounded.
const maxGuardDepth = 4

// declaresGuard says whether m is a PreToolUse or PermissionRequest key
// that holds something (not null, not an empty array).
func declaresGuard(m jmember) bool {
	return guardEvents[m.Key] && m.Value.Kind != jsonNull && !(m.Value.Kind == jsonArray && len(m.Value.Elems) == 0)
}

// holdsGuard says whether n holds a PreToolUse or PermissionRequest key
// that holds something (not null, not an empty array), or, where
// matchers, is an object shaped as a matcher group (a "hooks" list that
// is not empty), at depth or below it, to maxGuardDepth. Below a
// settings file's top level but outside "hooks" the keys of
// settingsUnscanned are passed over (skip); under "hooks" none is.
func holdsGuard(n *jnode, depth int, skip, matchers bool) bool {
	if n == nil || depth > maxGuardDepth {
		return false
	}
	switch n.Kind {
	case jsonArray:
		return slices.ContainsFunc(n.Elems, func(e *jnode) bool { return holdsGuard(e, depth+1, skip, matchers) })
	case jsonObject:
		if h := n.get("hooks"); matchers && h != nil && h.Kind == jsonArray && len(h.Elems) > 0 {
			return true
		}
		for _, m := range n.Members {
			if declaresGuard(m) || !(skip && settingsUnscanned[m.Key]) && holdsGuard(m.Value, depth+1, skip, matchers) {
				return true
			}
		}
	}
	return false
}

// guardOutsideHooks is the member of a settings file's object n that
// declares PreToolUse or PermissionRequest hooks outside "hooks": such a
// key at the top level (holding something: not null, not an empty
// array), or a key other than "hooks" and settingsUnscanned's that holds
// one a few levels below (holdsGuard); nil where there is none.
func guardOutsideHooks(n *jnode) *jmember {
	for i := range n.Members {
		m := &n.Members[i]
		if declaresGuard(*m) {
			return m
		}
	}
	for i := range n.Members {
		if m := &n.Members[i]; m.Key != "hooks" && !settingsUnscanned[m.Key] && holdsGuard(m.Value, 1, true, false) {
			return m
		}
	}
	return nil
}

// skipBrokenSettings lists, not runs, the hooks a settings file declared
// (from out.Hooks[firstHook]) where Claude Code skips the file entirely:
// a PreToolUse or PermissionRequest hook in it cannot be loaded
// (guardEvents), its "hooks" is no object, or such hooks are declared
// outside it (the finding at out.Findings[fatal] says which). Its
// hooks do not run, the valid ones included, and nothing else of the file
// applies either (its env, enabledPlugins, disableAllHooks: out.Skipped
// keeps the file for the session's settings to leave out). The finding
// says so.
func (c *claudeDisc) skipBrokenSettings(rel string, fatal, firstHook int) {
	f := &c.out.Findings[fatal]
	why := fmt.Sprintf("Claude Code skips %s entirely: a PreToolUse or PermissionRequest hook in it that cannot be loaded (line %d) may be what guards the permissions declared beside it, so nothing in the file applies", shownName(rel), f.Location.Line)
	if c.out.Skipped == nil {
		c.out.Skipped = map[string]string{}
	}
	c.out.Skipped[rel] = why
	n := 0
	for _, h := range c.out.Hooks[firstHook:] {
		if h.NotRun == "" {
			h.NotRun = why
			n++
		}
	}
	f.Message += fmt.Sprintf("; Claude Code skips a settings file in which a PreToolUse or PermissionRequest hook cannot be loaded entirely: none of its hooks runs (vigiles lists its %d and runs none), and nothing else of it applies (its env, enabledPlugins, disableAllHooks, permissions)", n)
}

type hookCtx struct {
	file       string
	plugin     string
	pluginRoot string // absolute
	// projectDir is, for project hooks, the directory whose .claude
	// declares them (absolute): CLAUDE_PROJECT_DIR, and where they run.
	// "" for a plugin's: the work tree.
	projectDir string
	isPlugin   bool
	// skillRoot is, for the hooks of a project's skill (its SKILL.md's
	// frontmatter), the skill's directory (absolute), which Claude Code
	// gives them as CLAUDE_PLUGIN_ROOT (Hook.SkillRoot); "" elsewhere.
	skillRoot string
	// options are the plugin's userConfig values its hooks get
	// (pluginOptions): KEY (as declared) → value.
	options map[string]string
	// agent says the hooks are an agent's own (its frontmatter): Claude
	// Code runs their Stop when the agent stops, as SubagentStop.
	agent bool
	// ignored, when set, says why Claude Code never runs the hooks of
	// this context though they are declared (pluginAgentIgnored): they
	// are listed, not run (Hook.NotRun).
	ignored string
	// agentNS is, below a plugin's agents directory, the directories on
	// the way to the file, each followed by ":" (mdDir); agentType the
	// agent's type once its frontmatter is read (agentType).
	agentNS, agentType string
	// scoped says the hooks are a skill's, agent's or command's own (its
	// frontmatter, in a file or inline): Hook.Scoped.
	scoped bool
	// inlineDecl is, for the hooks of markdown carried in a JSON string
	// (inlineCommand), what stands for each of their declarations
	// (Hook.Declared): the string's digest, as every one of them is
	// placed at the string. "" elsewhere.
	inlineDecl string
	// idSuffix follows the id of every hook of a file that the context
	// reads but does not hold (a hooks file or markdown under another
	// plugin's directory, named by this one's manifest or marketplace
	// entry): "#in:" and the reader's plugin root as idFile names it
	// (readIn).
	idSuffix string
	// entryName is, for what a marketplace entry's own paths name, the
	// entry's name: a file two entries of one directory name is read
	// once, and its hooks are of both names (nameAgain).
	entryName string
	// entry says the context is a marketplace entry's own paths'
	// (named or not).
	entry bool
}

// readIn says where the context ctx reads the declaration file rel: the
// key under which the file is read once in that context (a file is read
// once per context that reaches it, as Claude Code loads it in each), a
// key that holds it already when the context's own does not (also), and
// ctx with idSuffix set where the file is another plugin's: outside the
// reading plugin's root, or below a plugin root deeper than it (the work
// tree itself, or a directory holding plugins, being a plugin too). So the
// hooks a file gets from a reader that does not hold it keep ids of their
// own whichever reader comes first, and its owner's keep theirs.
func (c *claudeDisc) readIn(ctx hookCtx, rel string) (key, also string, _ hookCtx) {
	if !ctx.isPlugin {
		proj := "."
		if ctx.projectDir != "" {
			if r, err := relTo(c.dir, ctx.projectDir); err == nil {
				proj = r
			}
		}
		// A plugin's own .claude is the plugin's: a package whose
		// directory has been read as a plugin does not read those files
		// again as project hooks; it does not keep the plugin from
		// reading them when it comes later.
		return "project:" + proj, "plugin:" + proj, ctx
	}
	root, err := relTo(c.dir, ctx.pluginRoot)
	if err != nil {
		return "plugin:" + ctx.pluginRoot, "", ctx
	}
	if !within(root, rel) || c.pluginBetween(root, rel) {
		ctx.idSuffix = "#in:" + idFile(root)
	}
	return "plugin:" + root, "", ctx
}

// within says whether the tree path rel is root or below it.
func within(root, rel string) bool {
	return root == "." || rel == root || strings.HasPrefix(rel, root+"/")
}

// pluginBetween says whether a directory below root, on the way to the
// file rel (inside root), is a plugin's root (a manifest or a default
// hooks file): the file is that plugin's, not root's.
func (c *claudeDisc) pluginBetween(root, rel string) bool {
	d := path.Dir(rel)
	for d != root && d != "." && d != "/" {
		if c.isPluginRoot(filepath.Join(c.dir, filepath.FromSlash(d))) {
			return true
		}
		d = path.Dir(d)
	}
	return false
}

// plugin discovers one plugin directory: its manifest's hooks, its default
// hooks file, the frontmatter of its skills, agents and commands
// (frontmatter.go),
// and hooks given by a marketplace entry. A directory's own
// declarations are read once; the hooks of every marketplace entry that
// names it are read too, however many there are and in whatever order the
// directory is met (Claude Code installs each entry with its own hooks).
func (c *claudeDisc) plugin(root, nameHint string, entry *jnode, entryFile string, entryLoc report.Location) {
	rel, err := relTo(c.dir, root)
	if err != nil {
		c.find(RuleOutsideTree, report.SeverityError, entryLoc, "plugin source %v", err)
		return
	}
	manifestName, seen := c.seenPlugin[rel]
	var manifest *jnode
	var manifestRel string
	if !seen {
		c.out.Plugins = append(c.out.Plugins, rel)
		manifestRel, manifest, manifestName = c.manifest(root, nameHint)
		c.seenPlugin[rel] = manifestName
		if opts := pluginOptions(manifest); opts != nil {
			if c.options == nil {
				c.options = map[string]map[string]string{}
			}
			c.options[rel] = opts
		}
	}
	dirName := filepath.Base(root)
	if rel == "." {
		dirName = filepath.Base(c.dir)
	}
	ctx := hookCtx{plugin: orDefault(manifestName, orDefault(nameHint, dirName)), pluginRoot: root, isPlugin: true, options: c.options[rel]}
	if !seen {
		if c.out.PluginNames == nil {
			c.out.PluginNames = map[string]string{}
		}
		c.out.PluginNames[rel] = ctx.plugin
	}
	if c.names == nil {
		c.names, c.nameSet, c.ownHooks = map[string][]string{}, map[string]bool{}, map[string][]int{}
	}
	// Its names: every entry's that installs it, and its own (the
	// manifest's, else the directory's), which the walk gives it, also
	// when an entry read it first: a remote entry of that name beside it
	// is then an error, as it is where the walk came first (an error
	// that may be of another plugin of the same name is said rather
	// than a vendored copy hidden by the order of the reads).
	for _, n := range []string{ctx.plugin, nameHint} {
		if k := rel + "\x00" + n; n != "" && !c.nameSet[k] {
			c.nameSet[k] = true
			c.names[rel] = append(c.names[rel], n)
		}
	}
	if !seen {
		first := len(c.out.Hooks)
		// The default hooks file is always loaded.
		if hj := filepath.Join(root, claudeHooksJSON); c.present(hj, false) {
			c.hooksFile(ctx, hj, report.Location{})
		}
		if manifest != nil {
			if m, ok := manifest.member("hooks"); ok {
				c.hooksField(ctx, manifestRel, m.Value, "")
			}
		}
		c.pluginComponents(ctx, manifest, manifestRel)
		c.monitors(ctx, manifest, manifestRel)
		c.servers(ctx, manifest, manifestRel)
		c.pluginSettings(ctx)
		for i := first; i < len(c.out.Hooks); i++ {
			c.ownHooks[rel] = append(c.ownHooks[rel], i)
		}
		if len(c.ownHooks[rel]) > 0 {
			c.unsetOptions(manifestRel, manifest, ctx.plugin)
		}
		c.strayPluginHooks(root)
	}
	if entry != nil {
		first := len(c.out.Hooks)
		ectx := ctx
		ectx.entryName, ectx.entry = nameHint, true
		if m, ok := entry.member("hooks"); ok {
			c.hooksField(ectx, entryFile, m.Value, fmt.Sprintf("plugins[%s].", nameHint))
		}
		c.componentPaths(ectx, entry, entryFile, fmt.Sprintf("plugins[%s].", nameHint))
		c.entryMonitors(ectx, entry, entryFile)
		c.entryServers(ectx, entry, entryFile)
		// The entry's own declarations are installed under its name
		// alone, whatever name the manifest gives the directory.
		for _, h := range c.out.Hooks[first:] {
			h.alsoName(nameHint)
		}
	}
}

// RuleUnsetOption is the notice that a plugin's userConfig option is
// required and has no default: Claude Code asks the user for it, and
// its hooks run with it set; vigiles runs them without it.
const RuleUnsetOption = "discovery/unset-option"

// unsetOptions says, of each userConfig option of the plugin name's
// manifest (read from manifestRel) that is required and has no default,
// that its hooks run without it here (RuleUnsetOption).
func (c *claudeDisc) unsetOptions(manifestRel string, manifest *jnode, name string) {
	if manifest == nil {
		return
	}
	uc := manifest.get("userConfig")
	if uc == nil || uc.Kind != jsonObject {
		return
	}
	for _, m := range uc.Members {
		opt := uc.get(m.Key)
		if opt == nil || opt.Kind != jsonObject || !optionKey().MatchString(m.Key) || opt.get("default") != nil {
			continue
		}
		if req := opt.get("required"); req == nil || req.Kind != jsonBool || !req.Bool {
			continue
		}
		c.find(RuleUnsetOption, report.SeverityNotice, c.loc(manifestRel, m.KeyPos),
			"plugin %s's option %s is required and has no default: Claude Code asks the user for it and gives its hooks the value (CLAUDE_PLUGIN_OPTION_%s), and vigiles runs them without it, so what they do only with it set (an upload to a service, say) is not recorded here",
			shownCut(name, maxMonitorName), shownCut(m.Key, maxMonitorName), strings.ToUpper(m.Key))
	}
}

// optionKey is a userConfig key, which must be a valid identifier
// (plugins-reference.md, "User configuration").
var optionKey = lazyRE(`^[A-Za-z_][A-Za-z0-9_]*$`)

// pluginOptions are the values a plugin manifest's userConfig gives its
// hooks where the user sets none: each option's default, as Claude Code
// exports it (a string as it is, a number as JavaScript writes it, a
// boolean, a list of strings joined by commas). An option without a
// default, which the user would set, has none: its variable is unset.
// nil when the manifest declares no default.
func pluginOptions(manifest *jnode) map[string]string {
	if manifest == nil {
		return nil
	}
	uc := manifest.get("userConfig")
	if uc == nil || uc.Kind != jsonObject {
		return nil
	}
	var out map[string]string
	for _, m := range uc.Members {
		opt := uc.get(m.Key) // the last of a key given twice
		if opt == nil || opt.Kind != jsonObject || !optionKey().MatchString(m.Key) {
			continue
		}
		d := opt.get("default")
		if d == nil {
			continue
		}
		var v string
		switch d.Kind {
		case jsonString:
			v = d.Str
		case jsonNumber:
			v = jsNumberString(d.Num)
		case jsonBool:
			v = strconv.FormatBool(d.Bool)
		case jsonArray:
			var parts []string
			for _, e := range d.Elems {
				if e.Kind != jsonString {
					parts = nil
					break
				}
				parts = append(parts, e.Str)
			}
			if parts == nil {
				continue
			}
			v = strings.Join(parts, ",")
		default:
			continue
		}
		if strings.ContainsRune(v, 0) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[m.Key] = v
	}
	return out
}

// installed notes that Claude Code installs the plugin directory rel
// (relative to the tree) under the ID id (Discovery.Installs).
func (c *claudeDisc) installed(rel, id string) {
	if c.out.Installs == nil {
		c.out.Installs = map[string][]string{}
		c.installIDs = map[string]bool{}
	}
	if k := rel + "\x00" + id; !c.installIDs[k] {
		c.installIDs[k] = true
		c.out.Installs[rel] = append(c.out.Installs[rel], id)
	}
}

// manifest reads the plugin manifest under root, if there is one: its
// path in the tree, its object (nil when missing or not an object) and
// the name it gives ("" for none). entryName is the name of the
// marketplace entry that reads it, if one does: the plugin's name where
// the manifest gives none.
func (c *claudeDisc) manifest(root, entryName string) (rel string, n *jnode, name string) {
	if rel, n = c.readObject(filepath.Join(root, claudePluginJSON)); n == nil {
		return rel, nil, ""
	}
	// The fields discovery reads; componentKinds' too.
	c.repeatedKeys(rel, n, "", "name", "hooks", claudeSkills, claudeAgents, claudeCommands, mcpKind.field, lspKind.field)
	m, ok := n.member("name")
	switch {
	case !ok:
		if entryName != "" {
			c.find(RuleMalformed, report.SeverityWarning, c.loc(rel, n.Pos), "plugin manifest has no \"name\"; using the marketplace entry's, %q", entryName)
		} else {
			c.find(RuleMalformed, report.SeverityWarning, c.loc(rel, n.Pos), "plugin manifest has no \"name\"; using the directory name")
		}
	case m.Value.Kind == jsonString && m.Value.Str != "":
		name = m.Value.Str
	default:
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, m.Value.Pos), "plugin \"name\": want a non-empty string, found %s", m.Value.Kind)
	}
	return rel, n, name
}

// hooksField handles a manifest's "hooks": a path, a list of paths, or an
// inline hooks object. A marketplace entry's "hooks" may be the object
// alone: Claude Code does not support its path and list forms there,
// reports a plugin error and loads none of it, and vigiles reads none.
func (c *claudeDisc) hooksField(ctx hookCtx, file string, v *jnode, prefix string) {
	if ctx.entry && (v.Kind == jsonString || v.Kind == jsonArray) {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, v.Pos), "%shooks: a marketplace entry's hooks may be an inline hooks object only; Claude Code does not support a path or a list of paths there, reports a plugin error (\"Hook load failed\"), and loads none of it: declare them in the plugin's own hooks/hooks.json (or its plugin.json), or inline here", prefix)
		return
	}
	inline := func(v *jnode, at string) {
		ictx := ctx
		ictx.file = file
		inner := v
		if h := v.get("hooks"); h != nil && h.Kind == jsonObject {
			c.repeatedKeys(file, v, at, "hooks")
			inner = h
		}
		inner = c.inlineModules(file, v, inner, at)
		c.pluginFatal(ictx, c.events(ictx, inner, at+"."))
	}
	switch v.Kind {
	case jsonString:
		c.hookPath(ctx, file, v)
	case jsonArray:
		// Each entry a path or an inline hooks object, as a manifest's
		// schema takes them (PluginManifestHooksSchema).
		for i, e := range v.Elems {
			switch e.Kind {
			case jsonString:
				c.hookPath(ctx, file, e)
			case jsonObject:
				if !eventsObject(e) {
					// Another tool's shape ({"event": …, "script": …}):
					// no event of it would be read.
					keys := make([]string, 0, len(e.Members))
					for _, m := range e.Members {
						keys = append(keys, strconv.Quote(m.Key))
					}
					c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "\"hooks\" entries: an object none of whose keys (%s) is an event or \"hooks\": want a path string or a hooks object ({\"PreToolUse\": [ … ]})", shownName(cutBytes(strings.Join(keys, ", "), maxEvidence)))
					continue
				}
				inline(e, fmt.Sprintf("%shooks[%d]", prefix, i))
			default:
				c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "\"hooks\" entries: want a path string or a hooks object, found %s", e.Kind)
			}
		}
	case jsonObject:
		inline(v, prefix+"hooks")
	default:
		c.find(RuleWrongType, report.SeverityError, c.loc(file, v.Pos), "\"hooks\": want a path, a list of paths or a hooks object, found %s", v.Kind)
	}
}

// eventsObject says whether n, an object in a manifest's hooks list, is
// a hooks object: one of its keys is spelled as an event is (a capital
// first, PreToolUse; one newer than vigiles is read as an unknown event),
// or is "hooks", or it is empty (and declares nothing). Another tool's
// shape ({"event": …, "script": …}) is not.
func eventsObject(n *jnode) bool {
	if len(n.Members) == 0 {
		return true
	}
	for _, m := range n.Members {
		if m.Key == "hooks" || m.Key != "" && 'A' <= m.Key[0] && m.Key[0] <= 'Z' {
			return true
		}
	}
	return false
}

func (c *claudeDisc) hookPath(ctx hookCtx, file string, v *jnode) {
	p := expandVars(v.Str, ctx.pluginRoot, c.dir)
	if !filepath.IsAbs(p) {
		p = filepath.Join(ctx.pluginRoot, p)
	}
	p = filepath.Clean(p)
	if c.escapesPlugin(ctx, file, v, "hooks file", p) {
		c.meantHooks(ctx, v.Str)
		return
	}
	// A path the repository names outside itself (by "..", an absolute
	// path or a symlink) is neither read nor probed.
	real, fi, err := beneath(c.dir, c.dirReal, p)
	if errors.Is(err, ErrOutsideTree) {
		c.find(RuleOutsideTree, report.SeverityError, c.loc(file, v.Pos), "%s", outsideMessage(fmt.Sprintf("hooks file %q", v.Str), "", err))
		return
	} else if err != nil {
		c.find(RuleMissingFile, report.SeverityError, c.loc(file, v.Pos), "hooks file %q not found (resolved against the plugin root)%s", v.Str, c.manifestDirHint(ctx, v.Str))
		c.meantHooks(ctx, v.Str)
		return
	} else if fi.IsDir() {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, v.Pos), "hooks file %q names a directory: Claude Code wants a hooks JSON file there, reads no directory's files, and loads nothing from it (a plugin error): name the file, \"./hooks/extra.json\"", v.Str)
		return
	}
	if c.standardAgain(ctx, real) {
		c.find(RuleMalformed, report.SeverityError, c.loc(file, v.Pos), "hooks file %s is the plugin's standard %s, which Claude Code loads by itself: naming it again is a plugin error (\"Hook load failed: Duplicate hooks file detected\"), and recent versions fail the whole plugin to load, its hooks, skills, commands and servers alike (earlier ones loaded the file once): remove it from the manifest's \"hooks\", which is for other hooks files",
			shownCut(strconv.Quote(v.Str), maxMonitorCommand), claudeHooksJSON)
		c.pluginRefused(ctx, c.keepLast())
		return
	}
	if c.namedHooks == nil {
		c.namedHooks = map[string]bool{}
	}
	c.namedHooks[p] = true
	c.hooksFile(ctx, p, c.loc(file, v.Pos))
}

// meantHooks marks as named the file the manifest's hooks path s names
// where read from the manifest's own .claude-plugin directory
// (fromManifestDir), as its author meant it: the error at s says that
// Claude Code does not load it and how to write the path, so
// strayPluginHooks does not say again, of the same file, that nothing
// names it.
func (c *claudeDisc) meantHooks(ctx hookCtx, s string) {
	in := c.fromManifestDir(ctx, s)
	if in == "" {
		return
	}
	if c.namedHooks == nil {
		c.namedHooks = map[string]bool{}
	}
	c.namedHooks[filepath.Join(ctx.pluginRoot, filepath.FromSlash(in))] = true
}

// strayPluginHooks says, of a hooks.json at the plugin root's top or in
// its .claude-plugin directory that its manifest does not name, and
// that declares hooks in Claude Code's form (declaresHooks), that
// Claude Code does not load it: a plugin's hooks are read from
// hooks/hooks.json and from the paths the manifest's "hooks" names, so
// none of that file's hooks runs (and vigiles runs none).
func (c *claudeDisc) strayPluginHooks(root string) {
	for _, name := range []string{"hooks.json", ".claude-plugin/hooks.json"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if c.namedHooks[p] {
			continue
		}
		if _, fi, err := beneath(c.dir, c.dirReal, p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxStrayFile {
			continue
		}
		if data, err := os.ReadFile(p); err != nil || !declaresHooks(data) {
			continue // another tool's file, or none of Claude Code's form
		}
		rel, _ := relTo(c.dir, p)
		c.find(RuleMissingFile, report.SeverityWarning, report.Location{File: rel},
			"%s is not where Claude Code reads a plugin's hooks (hooks/hooks.json, and the files the manifest's \"hooks\" names), so none of its hooks runs, and vigiles runs none: move it to hooks/hooks.json, or name it in the manifest's \"hooks\"", shownName(rel))
	}
}

// standardAgain says whether real, the real path of a hooks file a
// plugin's manifest names, is the plugin's standard hooks/hooks.json
// (where the two lead to one file), which Claude Code has loaded
// already: a marketplace entry's "hooks" is not the manifest's, and is
// not asked about.
func (c *claudeDisc) standardAgain(ctx hookCtx, real string) bool {
	if !ctx.isPlugin || ctx.entry {
		return false
	}
	std, _, err := beneath(c.dir, c.dirReal, filepath.Join(ctx.pluginRoot, claudeHooksJSON))
	return err == nil && std == real
}

// hooksFile reads a hooks file: {"description": ..., "hooks": {...}}.
func (c *claudeDisc) hooksFile(ctx hookCtx, abs string, from report.Location) {
	rel, _ := relTo(c.dir, abs)
	key, also, ctx := c.readIn(ctx, rel)
	if c.nameAgain(key, rel, ctx) {
		return
	}
	defer c.fileRead(key, rel, len(c.out.Hooks))
	rel, n, invalid := c.parseJSONIn(key, also, abs)
	if n == nil {
		if invalid {
			// Claude Code's loader refuses it ("Hook load failed"), and
			// fails the plugin.
			c.pluginRefused(ctx, c.keepLast())
		}
		return
	}
	c.hooksDoc(ctx, rel, n)
}

// fileKey is what seenFile and fileHooks hold the file rel by, as read
// in the context key (readIn).
func fileKey(key, rel string) string { return key + "\x00" + rel }

// fileRead notes the hooks the file rel gave in the context key: those
// from first on.
func (c *claudeDisc) fileRead(key, rel string, first int) {
	if c.fileHooks == nil {
		c.fileHooks = map[string][]int{}
	}
	for i := first; i < len(c.out.Hooks); i++ {
		c.fileHooks[fileKey(key, rel)] = append(c.fileHooks[fileKey(key, rel)], i)
	}
}

// nameAgain says whether the file rel was read in the context key
// already; if so, and a marketplace entry of another name names it again,
// its hooks are of that entry's name too (Hook.AlsoNamed): Claude Code
// installs the directory under each entry.
func (c *claudeDisc) nameAgain(key, rel string, ctx hookCtx) bool {
	if !c.seenFile[fileKey(key, rel)] {
		return false
	}
	for _, i := range c.fileHooks[fileKey(key, rel)] {
		c.out.Hooks[i].alsoName(ctx.entryName)
	}
	return true
}

// hooksDoc walks a parsed hooks file.
func (c *claudeDisc) hooksDoc(ctx hookCtx, rel string, n *jnode) {
	ctx.file = rel
	if n.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "%s: want a JSON object with \"hooks\", found %s", rel, n.Kind)
		c.pluginRefused(ctx, c.keepLast())
		return
	}
	mods, hasMods := n.member("modules")
	if hasMods {
		c.hooksModules(ctx, rel, mods.Value)
	}
	h, ok := n.member("hooks")
	if !ok && hasMods {
		return // its module declares what it declares
	}
	if !ok {
		// Events at the top level: Claude Code's schema wants a "hooks"
		// record and refuses the file (a hook-load-failed error of the
		// plugin, which recent versions show as failed to load), so
		// none of them runs, and none is read.
		for _, m := range n.Members {
			if _, known := knownEvents[m.Key]; known {
				c.find(RuleMalformed, report.SeverityError, c.loc(rel, n.Pos), "%s has events at the top level (%s): Claude Code wants them under \"hooks\" and refuses the file (\"Hook load failed\"; recent versions then fail the whole plugin), so none of its hooks runs and vigiles runs none: put them in {\"hooks\": {…}}", shownName(rel), shownCut(m.Key, maxMonitorName))
				c.pluginRefused(ctx, c.keepLast())
				return
			}
		}
		// {} (or notes alone): the schema's "hooks" record is required,
		// so Claude Code refuses the file as it refuses events at the
		// top level (anthropics/claude-code#31763: "expected record,
		// received undefined" at "hooks").
		c.find(RuleMalformed, report.SeverityError, c.loc(rel, n.Pos),
			"%s has no \"hooks\" object: Claude Code's schema requires one and refuses the file (\"Hook load failed\": expected record at \"hooks\"; recent versions then fail the whole plugin to load, its other hooks, skills, commands and servers alike), though it declares no hook: to declare no hooks, write {\"hooks\": {}} or remove the file (and any manifest entry that names it)", shownName(rel))
		c.pluginRefused(ctx, c.keepLast())
		return
	}
	if other := otherAgentsHooks(n, h.Value); other != "" {
		c.find(RuleNotExecutable, report.SeverityNotice, c.loc(rel, n.Pos),
			"%s is a hooks file in another agent's form, not Claude Code's: a top-level \"version\" and events in lower camel case (%s), as GitHub Copilot CLI and Cursor write theirs; Claude Code knows none of these events and runs none of its hooks, and vigiles runs none: where the plugin is meant for Claude Code too, give it a hooks file in Claude Code's form (PreToolUse, matcher groups with a \"hooks\" array)",
			shownName(rel), other)
		return
	}
	c.repeatedKeys(rel, n, "", "hooks")
	if h.Value.Kind != jsonObject {
		// "hooks": [] and the like: refused as {} is.
		c.pluginRefused(ctx, c.events(ctx, h.Value, "hooks."))
		return
	}
	c.pluginFatal(ctx, c.events(ctx, h.Value, "hooks."))
}

// otherAgentsHooks says, of a hooks file n whose "hooks" is h, whether
// it is another agent's hooks file (GitHub Copilot CLI's or Cursor's,
// which a plugin directory for that agent holds at hooks/hooks.json):
// a number "version" at its top, which Claude Code's form has not, and
// events, at least one, each in lower camel case (preToolUse, stop,
// beforeShellExecution), none an event Claude Code knows, since Claude
// Code matches an event's name exactly. It returns up to three of the
// events, joined, to name them; "" where n is not such a file.
func otherAgentsHooks(n, h *jnode) string {
	v, ok := n.member("version")
	if !ok || v.Value.Kind != jsonNumber || h.Kind != jsonObject || len(h.Members) == 0 {
		return ""
	}
	var names []string
	for _, ev := range h.Members {
		if _, known := knownEvents[ev.Key]; known || !lowerEvent(ev.Key) {
			return ""
		}
		if len(names) < 3 {
			names = append(names, shownCut(ev.Key, maxMonitorName))
		}
	}
	shown := strings.Join(names, ", ")
	if more := len(h.Members) - len(names); more > 0 {
		shown += fmt.Sprintf(" and %d more", more)
	}
	return shown
}

// loadsAnyway marks the finding just made as one about a hook Claude
// Code's schema takes all the same (a NUL in its command, an if rule it
// cannot read, ${user_config.*} in shell form): no reason to skip the
// file or fail the plugin that holds it (events).
func (c *claudeDisc) loadsAnyway() {
	if !c.lastKept {
		if c.errDropAt == c.drops {
			c.errDropAt = 0 // not listed (maxFindings), and no reason to skip
		}
		return
	}
	if c.loadable == nil {
		c.loadable = map[int]bool{}
	}
	c.loadable[len(c.out.Findings)-1] = true
}

// pluginFatal notes, of a plugin's hooks read in ctx, the error at
// out.Findings[fatal] (none where fatal < 0) that one of its PreToolUse
// or PermissionRequest hooks cannot be loaded: Claude Code then fails
// to load the plugin (skipBrokenPlugins).
func (c *claudeDisc) pluginFatal(ctx hookCtx, fatal int) {
	c.pluginBroken(ctx, brokenPlugin{at: fatal})
}

// pluginRefused notes, of a plugin's hooks file read in ctx, the error at
// out.Findings[at] that Claude Code's loader refuses the file: not valid
// JSON, no object, or no "hooks" record in it ({}, events at its top
// level, "hooks": []), or the standard hooks/hooks.json named again in
// the manifest ("Duplicate hooks file detected"). It reports "Hook load failed" and fails the whole
// plugin to load (anthropics/claude-code#31763; "Status: failed to load"
// in claude plugin list), so none of the plugin's hooks runs, those its
// manifest declares inline or in other files too (skipBrokenPlugins).
func (c *claudeDisc) pluginRefused(ctx hookCtx, at int) {
	c.pluginBroken(ctx, brokenPlugin{at: at, refused: true})
}

// brokenPlugin is why Claude Code fails to load a plugin: the error at
// out.Findings[at], that one of its PreToolUse or PermissionRequest hooks
// cannot be loaded, or, where refused, that its loader refuses one of its
// hooks files.
type brokenPlugin struct {
	at      int
	refused bool
}

func (c *claudeDisc) pluginBroken(ctx hookCtx, b brokenPlugin) {
	if b.at < 0 || !ctx.isPlugin {
		return
	}
	if c.brokenPlugins == nil {
		c.brokenPlugins = map[string]brokenPlugin{}
	}
	if _, ok := c.brokenPlugins[ctx.pluginRoot]; !ok {
		c.brokenPlugins[ctx.pluginRoot] = b
	}
}

// skipBrokenPlugins lists, not runs, every hook of a plugin one of whose
// PreToolUse or PermissionRequest hooks cannot be loaded (pluginFatal):
// Claude Code's loader fails the plugin on it, as it skips a settings
// file, since such a hook may be what guards the plugin's calls; a
// broken hook of another event is dropped alone. So too of a plugin one
// of whose hooks files the loader refuses (pluginRefused). The error
// says so.
func (c *claudeDisc) skipBrokenPlugins() {
	for abs, b := range c.brokenPlugins {
		f := &c.out.Findings[b.at]
		root, _ := relTo(c.dir, abs)
		name := ""
		n := 0
		for _, h := range c.out.Hooks {
			if !h.InPlugin || h.PluginRoot != root {
				continue
			}
			name = h.Plugin
			if h.NotRun == "" {
				if b.refused {
					h.NotRun = fmt.Sprintf("Claude Code fails to load plugin %s: it refuses a hooks file of it (\"Hook load failed\"; %s, line %d), so none of the plugin is loaded", shownName(h.Plugin), shownName(f.Location.File), f.Location.Line)
				} else {
					h.NotRun = fmt.Sprintf("Claude Code fails to load plugin %s: a PreToolUse or PermissionRequest hook of it that cannot be loaded (%s, line %d) may be what guards its calls, so none of it is loaded", shownName(h.Plugin), shownName(f.Location.File), f.Location.Line)
				}
				n++
			}
		}
		switch {
		case name == "":
		case b.refused:
			f.Message += fmt.Sprintf("; Claude Code fails to load a plugin one of whose hooks files it refuses: none of plugin %s's hooks runs, those its manifest or its other hooks files declare too (vigiles lists its %d and runs none)", shownName(name), n)
		default:
			f.Message += fmt.Sprintf("; Claude Code fails to load a plugin one of whose PreToolUse or PermissionRequest hooks cannot be loaded: none of plugin %s's hooks runs (vigiles lists its %d and runs none)", shownName(name), n)
		}
	}
}

// events walks {"Event": [ {matcher, hooks: [...]}, ... ], ...}.
func (c *claudeDisc) events(ctx hookCtx, n *jnode, prefix string) (fatal int) {
	file := ctx.file
	if n.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, n.Pos), "\"hooks\": want an object keyed by event name, found %s", n.Kind)
		return c.keepLast()
	}
	fatal = -1
	// Claude Code parses with JSON.parse: of an event named twice, only
	// the last array is read. The earlier ones never run; say so.
	last := map[string]int{}
	for i, ev := range n.Members {
		last[ev.ident()] = i
	}
	for i, ev := range n.Members {
		if j := last[ev.ident()]; j != i {
			again := n.Members[j].KeyPos
			c.find(RuleMalformed, report.SeverityWarning, c.loc(file, ev.KeyPos),
				"event %q is declared again on line %d; Claude Code reads only the last one, so the hooks declared here never run: merge them into one %q array",
				ev.Key, again.Line, ev.Key)
			continue
		}
		before, dropsBefore := len(c.out.Findings), c.drops
		g := c.event(ctx, ev, prefix)
		if fatal >= 0 {
			continue
		}
		if g >= 0 {
			fatal = g
			continue
		}
		if !guardEvents[ev.Key] {
			continue // another event's broken entry is dropped alone
		}
		for k := before; k < len(c.out.Findings); k++ {
			if f := c.out.Findings[k]; f.Severity == report.SeverityError && f.Location.File == file && (f.Rule == RuleWrongType || f.Rule == RuleMalformed) && !c.loadable[k] {
				fatal = k
				break
			}
		}
		if fatal < 0 && c.errDropAt > dropsBefore && c.errDrop.Location.File == file {
			// Such an error past maxFindings: listed all the same, as
			// what Claude Code skips the file or the plugin for.
			c.out.Findings = append(c.out.Findings, c.errDrop)
			c.unlisted--
			c.errDropAt = 0
			fatal = len(c.out.Findings) - 1
		}
	}
	return fatal
}

// event reads one event's member ev of a "hooks" object: its matcher
// groups, each with its handlers.
//
// It returns the index in out.Findings of the first error with which
// Claude Code skips a settings file or fails a plugin whatever the event:
// ev is no event, or no list, or an element of its list is no matcher
// group, and it holds PreToolUse or PermissionRequest hooks; -1 where
// there is none.
func (c *claudeDisc) event(ctx hookCtx, ev jmember, prefix string) (fatal int) {
	file := ctx.file
	if strings.TrimSpace(ev.Key) == "" {
		c.find(RuleMalformed, report.SeverityError, c.loc(file, ev.KeyPos), "an empty event name declares nothing: want an event such as PreToolUse")
		return -1
	}
	if _, known := knownEvents[ev.Key]; !known {
		// Its value is a top-level value of the hooks object: depth 1,
		// as Claude Code's scan counts; a matcher group alone counts
		// where it is no list.
		if holdsGuard(ev.Value, 1, false, ev.Value.Kind != jsonArray) {
			// "hooks": {"hooks": {"PreToolUse": …}}, a plugin's hooks
			// file pasted whole: Claude Code skips the file.
			c.find(RuleMalformed, report.SeverityError, c.loc(file, ev.KeyPos),
				"%q is no hook event, but it holds PreToolUse or PermissionRequest hooks: Claude Code reads none of them, and skips a settings file (or fails a plugin) that holds such hooks where no event is: put them under \"hooks\" by their event", ev.Key)
			return c.keepLast()
		}
		runs := ", so it runs its hooks once with the common fields only and ignores their matcher"
		spelt := caseOfEvent(ev.Key)
		if (lowerEvent(ev.Key) || spelt != "") && ev.Value.Kind == jsonArray {
			// No event of Claude Code's is named so, nor will be: not a
			// newer one.
			runs = ", and Claude Code runs none of its hooks, under any version: vigiles lists them and runs none"
			defer c.eventNotRun(ev.Key, spelt, len(c.out.Hooks))
		}
		if ev.Value.Kind != jsonArray {
			// Its discovery/wrong-type, below: nothing of it runs.
			runs = fmt.Sprintf(", and its value is %s, not an array of matcher groups, so no hook of it runs", ev.Value.Kind)
		}
		like := ""
		if n := nearEvent(ev.Key); n != "" {
			like = fmt.Sprintf(" did you mean %s? Claude Code matches an event's name exactly, case and all, and runs no hook of an event it does not know;", n)
		}
		why := "newer than it, or a typo"
		switch {
		case lowerEvent(ev.Key):
			why = "no event of Claude Code's is named in lower camel case: another agent's name, GitHub Copilot CLI's or Cursor's, or a typo"
		case spelt != "":
			why = "it differs from " + spelt + " only in case, so it is no newer event"
		}
		c.find(RuleUnknownEvent, report.SeverityWarning, c.loc(file, ev.KeyPos),
			"hook event %q is an event vigiles does not know (%s):%s vigiles has no payload for it%s (known: %s)",
			ev.Key, why, like, runs, strings.Join(EventNames(), ", "))
	}
	if ev.Value.Kind != jsonArray {
		if guardEvents[ev.Key] && ev.Value.Kind == jsonNull {
			return -1 // null declares nothing, and breaks nothing
		}
		c.find(RuleWrongType, report.SeverityError, c.loc(file, ev.Value.Pos), "%s: want an array of matcher groups, found %s", ev.Key, ev.Value.Kind)
		if holdsGuard(ev.Value, 1, false, false) {
			// Not dropped alone: what it holds may be a guard.
			return c.keepLast()
		}
		return -1
	}
	fatal = -1
	for gi, g := range ev.Value.Elems {
		if groupHoldsGuard(g) {
			c.find(RuleMalformed, report.SeverityError, c.loc(file, g.Pos),
				"%s[%d] holds PreToolUse or PermissionRequest hooks where a matcher group was expected: Claude Code reads none of them, and skips a settings file (or fails a plugin) that holds such hooks there: put them under \"hooks\" by their event", ev.Key, gi)
			if fatal < 0 {
				fatal = c.keepLast()
			}
			continue
		}
		c.group(ctx, ev.Key, gi, g, prefix)
	}
	return fatal
}

// lowerEvent says whether name, an event vigiles does not know, starts
// with a lower-case letter (preToolUse, stop, sessionStart): no event of
// Claude Code's is named so, as GitHub Copilot CLI's and Cursor's are,
// so Claude Code, which matches an event's name exactly, runs its hooks
// under no version, where a name it may have added since vigiles was
// written (upper camel case) is run once with the common fields.
func lowerEvent(name string) bool {
	return name != "" && name[0] >= 'a' && name[0] <= 'z'
}

// eventNotRun marks the hooks of the event name, a lowerEvent or a case
// variant of the event spelt (caseOfEvent; "" where it is none), those
// read since out.Hooks held from of them, as not run.
func (c *claudeDisc) eventNotRun(name, spelt string, from int) {
	why := fmt.Sprintf("Claude Code runs no hook of %q: its events are named in upper camel case (PreToolUse), and it matches an event's name exactly", name)
	if spelt != "" && !lowerEvent(name) {
		why = fmt.Sprintf("Claude Code runs no hook of %q: it matches an event's name exactly, case and all, and its event is spelt %s", name, spelt)
	}
	for _, h := range c.out.Hooks[from:] {
		if h.Event == name && h.NotRun == "" {
			h.NotRun = why
		}
	}
}

// groupHoldsGuard says whether g, an element of an event's list, holds
// PreToolUse or PermissionRequest hooks where a matcher group belongs
// ({"PreToolUse": […]} pasted into a list, or beside a group's keys):
// its handlers (objects with a string "type") are not looked into.
func groupHoldsGuard(g *jnode) bool {
	if g == nil || g.Kind != jsonObject {
		return holdsGuard(g, 1, false, false)
	}
	for _, m := range g.Members {
		if declaresGuard(m) {
			return true
		}
		if m.Key != "hooks" || m.Value.Kind != jsonArray {
			if holdsGuard(m.Value, 2, false, false) {
				return true
			}
			continue
		}
		for _, e := range m.Value.Elems {
			if t := e.get("type"); e.Kind == jsonObject && t != nil && t.Kind == jsonString {
				continue // a handler
			}
			if holdsGuard(e, 3, false, false) {
				return true
			}
		}
	}
	return false
}

func (c *claudeDisc) group(ctx hookCtx, event string, gi int, g *jnode, prefix string) {
	file := ctx.file
	if g.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, g.Pos), "%s[%d]: want a matcher group object, found %s", event, gi, g.Kind)
		return
	}
	c.repeatedKeys(file, g, fmt.Sprintf("%s%s[%d]", strings.TrimPrefix(prefix, "hooks."), event, gi))
	c.offKeys(file, g, fmt.Sprintf("%s%s[%d]", strings.TrimPrefix(prefix, "hooks."), event, gi), "matcher group")
	c.misspeltKeys(file, g, fmt.Sprintf("%s%s[%d]", strings.TrimPrefix(prefix, "hooks."), event, gi), "matcher group", groupKeys)
	c.unreadKeys(file, g, event, fmt.Sprintf("%s%s[%d]", strings.TrimPrefix(prefix, "hooks."), event, gi), "matcher group", groupKeys)
	matcher, hasMatcher := "", false
	mloc := c.loc(file, g.Pos)
	if m, ok := g.member("matcher"); ok {
		mloc = c.loc(file, m.Value.Pos)
		switch m.Value.Kind {
		case jsonString:
			matcher, hasMatcher = m.Value.Str, true
		default:
			// null too: the schema's matcher is an optional string,
			// not a nullable one (leave the key out to match all).
			c.find(RuleWrongType, report.SeverityError, mloc, "%s[%d].matcher: want a string (or no matcher key, which matches all), found %s", event, gi, m.Value.Kind)
			return
		}
	}
	if hasMatcher && readsMatcher(event) {
		if _, err := compileMatcherFor(event, matcher); errors.Is(err, ErrUnsupportedMatcher) {
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].%v; it is treated as matching everything so the hook is not missed, and a check that selects the hook by it is an error", event, gi, err)
		} else if err != nil {
			c.find(RuleBadMatcher, report.SeverityError, mloc, "%s[%d].matcher %q is not a valid regular expression, so it never matches: %v%s", event, gi, matcher, err, ruleMatcherHint(matcher))
		} else if m, _ := compileMatcherFor(event, matcher); ruleNeverMatches(event, matcher, m) {
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].matcher %q matches no tool Claude Code has: it reads the matcher as a regular expression of the tool's name, which this matches only where the name holds %q, and %s, so the hook never runs (vigiles lists it, not run)%s", event, gi, matcher, m.Example(), ruleNeverMatchesWhy(m.Example()), ruleMatcherHint(matcher))
		} else if name, like := misspeltTool(event, matcher); like != "" {
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].matcher names %q, which is no tool of Claude Code's: did you mean %q? Claude Code matches a tool's name exactly, case and all, so the hook never runs for it (vigiles runs it for %q all the same, in case it is a tool of yours)", event, gi, name, like, name)
		} else if name, like, sent, none := unsentValue(event, matcher); name != "" {
			mean := ";"
			if like != "" {
				mean = fmt.Sprintf(": did you mean %q?", like)
			}
			runs := "the hook never runs for it"
			if none {
				// toolsFor tries the event's values alone (valuesToTry).
				runs = "the hook never runs (vigiles lists it, not run)"
			}
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].matcher names %q, which Claude Code never sends as %s's %s (it sends %s)%s Claude Code compares a matcher of plain names with the value exactly, case and all, so %s",
				event, gi, cutBytes(name, maxMonitorName), event, knownEvents[event].MatchField, JoinWords(sent, "or"), mean, runs)
		} else if name := mcpServerMatcher(event, matcher); name != "" {
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].matcher names %q, an MCP server, not a tool: an MCP tool's name is mcp__<server>__<tool>, and Claude Code compares a matcher of letters, digits, _, -, spaces, commas and | with tools' names exactly, so this matches none of the server's tools and the hook never runs for them (vigiles does not run it for %q either): write %q to match every tool of the server", event, gi, name, name, name+"__.*")
		} else if negationMatcher(matcher) && event != FileChanged {
			// A negation, as a permission rule or a glob might write it:
			// Claude Code has none, and reads the "!" as a regular
			// expression's own character.
			c.find(RuleBadMatcher, report.SeverityWarning, mloc, "%s[%d].matcher %q: Claude Code has no negation in a matcher; it reads this as a regular expression that matches only a name holding %q, which no tool or agent has, so the hook never runs (vigiles lists it, not run): match the names it should run for, and skip the others in the hook", event, gi, matcher, matcher)
		}
	}
	hm, ok := g.member("hooks")
	if !ok {
		how := ""
		if _, has := g.member("command"); has {
			// A handler's keys written in the group itself.
			how = ": it holds a handler's keys (command) itself; put them in a handler under it, \"hooks\": [{\"type\": \"command\", \"command\": …}]"
		}
		c.find(RuleMalformed, report.SeverityError, c.loc(file, g.Pos), "%s[%d]: matcher group has no \"hooks\" array, so none of it runs%s", event, gi, how)
		return
	}
	if hm.Value.Kind != jsonArray {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, hm.Value.Pos), "%s[%d].hooks: want an array of hook handlers, found %s", event, gi, hm.Value.Kind)
		return
	}
	if hasMatcher && ignoresMatcher(ctx, event, matcher) {
		c.find(RuleIgnoredMatcher, report.SeverityWarning, mloc,
			"%s[%d].matcher %q: Claude Code ignores the matcher on %s, an event it has no tool or value to match against, and runs the group's hooks on every %s whatever the matcher says; vigiles runs them so: leave the matcher out, and to narrow them test the payload in the hook",
			event, gi, cutBytes(matcher, maxMonitorName), event, event)
	}
	for hi, h := range hm.Value.Elems {
		id := fmt.Sprintf("%s#%s%s[%d].hooks[%d]", idFile(file), prefix, event, gi, hi)
		c.handler(ctx, id, event, matcher, hasMatcher, mloc, h)
	}
}

// ignoresMatcher reports whether matcher, declared on event in ctx, is
// one Claude Code ignores though it reads as narrowing the group: the
// event is one vigiles knows whose matcher Claude Code does not read
// (readsMatcher: Stop, UserPromptSubmit, … as the hooks reference's
// "Matcher patterns" lists them, "no matcher support"), and the matcher
// is not one that matches everything (matchesAll), which narrows nothing
// wherever it is. An agent's Stop is not such an event: Claude Code runs
// it as SubagentStop, whose matcher selects the agent type.
func ignoresMatcher(ctx hookCtx, event, matcher string) bool {
	_, known := knownEvents[event]
	return known && !readsMatcher(event) && !(ctx.agent && event == Stop) && !matchesAll(matcher)
}

func (c *claudeDisc) handler(ctx hookCtx, id, event, matcher string, hasMatcher bool, mloc report.Location, h *jnode) {
	file := ctx.file
	// The handler's path: the id after its file, which may hold a '#'.
	where := strings.TrimPrefix(strings.TrimPrefix(id, idFile(file)+"#"), "hooks.")
	if h.Kind != jsonObject {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, h.Pos), "%s: want a hook handler object, found %s", where, h.Kind)
		return
	}
	c.repeatedKeys(file, h, where)
	c.offKeys(file, h, where, "hook handler")
	c.misspeltKeys(file, h, where, "hook handler", handlerKeys)
	c.unreadKeys(file, h, event, where, "hook handler", handlerKeys)
	if c.handlers++; c.handlers > maxHandlers {
		if c.handlers == maxHandlers+1 {
			c.bound(c.loc(file, h.Pos),
				"more than %d hook handlers are declared, more than vigiles reads in one discovery; Claude Code reads them all, so this one and those after it are not read", maxHandlers)
		}
		return
	}
	id += ctx.idSuffix
	// Declarations that would share an ID (marketplace entries with one
	// name) each keep their own: the session keeps one hook per ID.
	if c.seenID[id] {
		base := id
		for n := 2; c.seenID[id]; n++ {
			id = fmt.Sprintf("%s#%d", base, n)
		}
	}
	c.seenID[id] = true
	rel, _ := relTo(c.dir, ctx.pluginRoot)
	runAs := event
	if ctx.agent && event == Stop {
		runAs = SubagentStop // the id keeps the path as declared
	}
	hook := &Hook{
		ID: id, Adapter: "claude", Plugin: ctx.plugin, PluginRoot: rel, Event: runAs,
		Matcher: matcher, HasMatcher: hasMatcher, Location: c.loc(file, h.Pos), MatcherLocation: mloc,
		InPlugin: ctx.isPlugin, AgentType: ctx.agentType, Scoped: ctx.scoped,
	}
	projDir := c.projectDirOf(ctx)
	if r, err := relTo(c.dir, projDir); err == nil && r != "." {
		hook.ProjectDir = r
	}
	if ctx.skillRoot != "" {
		if r, err := relTo(c.dir, ctx.skillRoot); err == nil {
			hook.SkillRoot = r
		}
	}
	bad := false
	if m, ok := h.member("type"); ok {
		if m.Value.Kind != jsonString {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.type: want a string, found %s", where, m.Value.Kind)
			bad = true
		} else {
			hook.Type = m.Value.Str
		}
	} else {
		c.find(RuleMalformed, report.SeverityError, c.loc(file, h.Pos), "%s: hook handler has no \"type\" (want command, http, prompt, agent or mcp_tool)", where)
		bad = true
	}
	// A key of another type's handler (url on a command hook, command on
	// an http one) Claude Code ignores: its value is neither checked nor
	// read, and otherTypeKeys says so.
	reads := func(k string) bool { return readsKey(hook.Type, k) }
	c.otherTypeKeys(file, h, where, hook.Type)
	if m, ok := h.member("command"); ok && reads("command") {
		hook.Location = c.loc(file, m.Value.Pos)
		if m.Value.Kind != jsonString {
			c.find(RuleWrongType, report.SeverityError, hook.Location, "%s.command: want a string, found %s", where, m.Value.Kind)
			bad = true
		} else {
			hook.Command = m.Value.Str
		}
	}
	if m, ok := h.member("args"); ok && reads("args") {
		// Exec form: each element is one argument exactly as written.
		if m.Value.Kind != jsonArray {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.args: want an array of strings (one per argument, e.g. [\"${CLAUDE_PLUGIN_ROOT}/scripts/guard.js\"]), found %s", where, describeNode(m.Value))
			bad = true
		} else {
			hook.Exec, hook.Args = true, []string{}
			for i, e := range m.Value.Elems {
				if e.Kind != jsonString {
					c.find(RuleWrongType, report.SeverityError, c.loc(file, e.Pos), "%s.args[%d]: want a string (write a number or flag as \"--n=3\"), found %s", where, i, describeNode(e))
					bad = true
					continue
				}
				hook.Args = append(hook.Args, e.Str)
			}
		}
	}
	if m, ok := h.member("shell"); ok && reads("shell") {
		if m.Value.Kind != jsonString || (m.Value.Str != "bash" && m.Value.Str != "powershell") {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.shell: want \"bash\" or \"powershell\" (Claude Code accepts no other shell; on Linux both absent and \"bash\" mean sh -c), found %s", where, describeNode(m.Value))
			bad = true
		} else {
			hook.Shell = m.Value.Str
		}
	}
	if m, ok := h.member("statusMessage"); ok && m.Value.Kind != jsonString {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.statusMessage: want a string, found %s", where, describeNode(m.Value))
		bad = true
	}
	for _, k := range []string{"async", "asyncRewake"} {
		if m, ok := h.member(k); ok && reads(k) {
			if m.Value.Kind != jsonBool {
				c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.%s: want true or false, found %s", where, k, describeNode(m.Value))
				bad = true
			} else if m.Value.Bool {
				hook.Async = true // asyncRewake implies async
				hook.Rewake = hook.Rewake || k == "asyncRewake"
			}
		}
	}
	if m, ok := h.member("onFailure"); ok {
		// What Claude Code does with the call when the hook fails:
		// "continue" (its default) lets it through, "block" blocks it.
		if m.Value.Kind != jsonString || (m.Value.Str != "block" && m.Value.Str != "continue") {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.onFailure: want \"block\" or \"continue\", found %s", where, describeNode(m.Value))
			bad = true
		} else {
			hook.FailBlocks = m.Value.Str == "block"
		}
	}
	if m, ok := h.member("timeout"); ok {
		// Claude Code takes any positive number of seconds: a run
		// waits no longer than its own bound all the same
		// (maxHookTimeout), so a large one is read, not refused.
		if n := m.Value.Num; m.Value.Kind != jsonNumber || !(n > 0) || math.IsInf(n, 0) {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.timeout: want a positive number of seconds, found %s", where, describeNode(m.Value))
			bad = true
		} else {
			hook.Timeout = time.Duration(min(n, maxTimeoutSeconds) * float64(time.Second))
			switch {
			case n > maxTimerSeconds:
				c.find(RuleWrongType, report.SeverityWarning, c.loc(file, m.Value.Pos), "%s.timeout: %s seconds is past the longest timer Node.js keeps (%d seconds, about 24.8 days), which it replaces with one of a millisecond: Claude Code may end the hook at once; write the seconds it may take", where, strconv.FormatFloat(n, 'f', -1, 64), maxTimerSeconds)
			case n >= 1000 && n == math.Trunc(n) && math.Mod(n, 1000) == 0:
				c.find(RuleWrongType, report.SeverityWarning, c.loc(file, m.Value.Pos), "%s.timeout: %s is read in seconds (%s), not milliseconds: if %g seconds were meant, write %g", where, strconv.FormatFloat(n, 'f', -1, 64), report.ShortDuration(time.Duration(n*float64(time.Second))), n/1000, n/1000)
			}
		}
	}
	if m, ok := h.member("if"); ok {
		if m.Value.Kind != jsonString {
			c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.if: want a permission rule string such as \"Bash(git *)\", found %s", where, m.Value.Kind)
			bad = true
		} else if m.Value.Str == "" {
			// No condition: Claude Code's filter (getMatchingHooks)
			// passes over a handler whose "if" is empty, as over one with
			// none, on every event (the hooks reference does not say), so
			// the handler runs for every call its matcher selects, and
			// is merged with one alike that has no "if".
			c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.Value.Pos),
				"%s.if \"\" is no condition: Claude Code runs the handler as if it had no \"if\", for every call its matcher selects and on any event, and vigiles runs it so: write a permission rule such as \"Bash(git *)\", or remove \"if\"", where)
		} else {
			hook.If = m.Value.Str
			if _, err := parseRule(hook.If); err != nil {
				c.find(RuleMalformed, report.SeverityError, c.loc(file, m.Value.Pos), "%s.if %q: %v", where, hook.If, err)
				c.loadsAnyway()
			}
		}
	}
	// once (a skill's handler runs once per session) changes no run of an
	// audit: any of the payloads could be the session's first. Claude
	// Code honours it only in a skill's frontmatter (a command's is a
	// skill's); elsewhere it ignores it, which its author may not know.
	if m, ok := h.member("once"); ok && m.Value.Kind != jsonBool {
		c.find(RuleWrongType, report.SeverityError, c.loc(file, m.Value.Pos), "%s.once: want true or false, found %s", where, describeNode(m.Value))
		bad = true
	} else if ok && m.Value.Bool && (ctx.agent || !ctx.scoped) {
		in := "a settings file"
		switch {
		case ctx.agent:
			in = "an agent's frontmatter"
		case ctx.isPlugin:
			in = "a plugin's hooks"
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.Value.Pos),
			"%s.once: true runs a hook once per session only in a skill's frontmatter; Claude Code ignores it in %s, so the hook runs each time its event fires, and vigiles runs it so: move the hook to a skill, or remove \"once\"", where, in)
	}
	if bad {
		return
	}
	switch hook.Type {
	case TypeCommand:
		if strings.ContainsRune(hook.Command, 0) {
			c.find(RuleMalformed, report.SeverityError, hook.Location, "%s.command contains a NUL character, which no shell can run", where)
			c.loadsAnyway()
			return
		}
		if hook.Command == "" {
			c.find(RuleMalformed, report.SeverityError, hook.Location, "%s: command hook without a \"command\" string", where)
			if m, ok := h.member("command"); ok && m.Value.Kind == jsonString {
				// "": the schema takes an empty string, and Claude Code
				// loads the hook, which runs nothing.
				c.loadsAnyway()
			}
			return
		}
		expand := func(s string) string {
			if !ctx.isPlugin {
				// Outside a plugin Claude Code leaves ${CLAUDE_PLUGIN_ROOT} alone.
				return expandProject(s, projDir)
			}
			return expandVars(s, ctx.pluginRoot, projDir)
		}
		if ctx.isPlugin {
			// Its userConfig values: exported to the hook, and, in exec
			// form only, substituted as plain strings.
			keys := make([]string, 0, len(ctx.options))
			for k := range ctx.options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var subst []string
			for _, k := range keys {
				hook.PluginOptions = append(hook.PluginOptions, "CLAUDE_PLUGIN_OPTION_"+strings.ToUpper(k)+"="+ctx.options[k])
				subst = append(subst, "${user_config."+k+"}", ctx.options[k])
			}
			if hook.Exec && len(subst) > 0 {
				plain := expand
				r := strings.NewReplacer(subst...)
				expand = func(s string) string { return plain(r.Replace(s)) }
			}
		}
		hook.Expanded = expand(hook.Command)
		for i, a := range hook.Args {
			if strings.ContainsRune(a, 0) {
				c.find(RuleMalformed, report.SeverityError, hook.Location, "%s.args[%d] contains a NUL character, which no program can be given", where, i)
				c.loadsAnyway()
				return
			}
			hook.ExpandedArgs = append(hook.ExpandedArgs, expand(a))
		}
		if hook.Exec && !strings.Contains(hook.Command, "/") && strings.ContainsAny(strings.TrimSpace(hook.Command), " \t") {
			c.find(RuleMalformed, report.SeverityWarning, hook.Location, "%s.command %q: with \"args\" the command is one executable name, and no program of that name exists: move the extra words into \"args\"", where, hook.Command)
		}
		if ctx.ignored != "" {
			hook.NotRun = ctx.ignored // the frontmatter's finding says so, once
		} else if ctx.isPlugin && !hook.Exec && strings.Contains(hook.Command, "${user_config.") {
			// Claude Code substitutes user_config values in exec form only;
			// a shell-form plugin command that names one fails with an
			// error instead of running (hooks.md, "Exec form and shell
			// form"). sh would run it and fail on the substitution with
			// exit 2, which blocks: a guard Claude Code never runs would
			// pass for one that blocks.
			hook.NotRun = userConfigRefused
			c.find(RuleMalformed, report.SeverityError, hook.Location, "%s.command references ${user_config.*} in shell form: Claude Code refuses to run it (an error, and the event goes on without it), so this hook never runs; use exec form (\"args\"), where the value is substituted, or read $CLAUDE_PLUGIN_OPTION_<KEY>", where)
			c.loadsAnyway()
		} else if hook.Shell == "powershell" && !hook.Exec {
			hook.NotRun = "its shell is powershell, which vigiles cannot run"
			c.find(RuleNotExecutable, report.SeverityWarning, hook.Location, "%s: \"shell\": \"powershell\" runs only on Windows and vigiles does not run it, so this hook is not audited: write it for sh (drop \"shell\"), or use exec form (\"args\"), to have it audited", where)
		}
		c.checkScripts(hook, ctx)
	}
	// What the other types' schemas require: without it Claude Code
	// does not load the hook (and skips the settings file, or fails the
	// plugin, where it is a PreToolUse or PermissionRequest one).
	for _, k := range map[string][]string{TypeHTTP: {"url"}, TypePrompt: {"prompt"}, TypeAgent: {"prompt"}, TypeMCPTool: {"server", "tool"}}[hook.Type] {
		if v := h.get(k); v == nil || v.Kind != jsonString {
			what := "none"
			if v != nil {
				what = v.Kind.String()
			}
			c.find(RuleWrongType, report.SeverityError, hook.Location, "%s: %s hook without a %q string (found %s), which Claude Code's schema requires: it does not load the hook", where, hook.Type, k, what)
			return
		}
	}
	if hook.Type != TypeCommand && ctx.ignored != "" {
		// Listed, not run, for that reason alone (the frontmatter's
		// finding says so, once): what vigiles does not run of its
		// type is nothing Claude Code would run either.
		hook.NotRun = ctx.ignored
	}
	switch hook.Type {
	case TypeCommand:
		// Read above.
	case TypeHTTP:
		// Claude Code POSTs the event's input (a command, a file's
		// content, a prompt) to the URL, with the variables of
		// allowedEnvVars in its headers: a channel out that no run
		// records, said where it leads.
		hook.Declared = declaredText(ctx, h)
		if noHTTPEvents[event] {
			c.find(RuleNotExecutable, report.SeverityWarning, hook.Location, "%s: http hook on %s, where Claude Code runs command and mcp_tool hooks only (the hooks reference, \"Prompt-based hooks\"), so it never runs and sends nothing: write it as a command hook", where, event)
			break
		}
		url := "(no url)"
		if u := h.get("url"); u != nil && u.Kind == jsonString {
			url = fmt.Sprintf("%q", cutBytes(u.Str, 200))
		}
		vars := ""
		if a := h.get("allowedEnvVars"); a != nil && a.Kind == jsonArray {
			var names []string
			for _, e := range a.Elems {
				if e.Kind == jsonString {
					names = append(names, fmt.Sprintf("%q", cutBytes(e.Str, 64)))
				}
			}
			if len(names) > 0 {
				vars = ", with the environment variables " + strings.Join(names, ", ") + " in its headers"
			}
		}
		if ctx.ignored == "" {
			c.find(RuleNotExecutable, report.SeverityWarning, hook.Location, "%s: http hook: Claude Code sends each %s input to %s%s; vigiles runs only command hooks, so what it sends is not recorded", where, event, url, vars)
		}
	case TypePrompt, TypeAgent, TypeMCPTool:
		hook.Declared = declaredText(ctx, h) // a baseline keeps it (declaredOf): listed, not run
		if hook.Type != TypeMCPTool && noPromptEvents[event] {
			runs := "command, http and mcp_tool"
			if noHTTPEvents[event] {
				runs = "command and mcp_tool"
			}
			c.find(RuleNotExecutable, report.SeverityWarning, hook.Location, "%s: %s hook on %s, where Claude Code runs %s hooks only, no prompt or agent hook (the hooks reference, \"Prompt-based hooks\"), so it never runs and guards nothing: write it as a command hook", where, hook.Type, event, runs)
			break
		}
		if ctx.ignored == "" {
			c.find(RuleNotExecutable, report.SeverityNotice, hook.Location, "%s: %s hook is listed as declared; vigiles runs only command hooks", where, hook.Type)
		}
	default:
		c.find(RuleMalformed, report.SeverityError, hook.Location, "%s.type %q: want command, http, prompt, agent or mcp_tool", where, hook.Type)
		return
	}
	c.out.Hooks = append(c.out.Hooks, hook)
}

// noPromptEvents are the events on which Claude Code runs no prompt or
// agent hook, only command, http and mcp_tool ones, and noHTTPEvents
// those on which it runs no http hook either (hooks.md, "Prompt-based
// hooks": SessionStart and Setup "support command and mcp_tool hooks").
// On the others it runs all five types (PreToolUse, Stop, TeammateIdle,
// …). PreModelSwitch is newer than that list, and read as before.
var (
	noPromptEvents = map[string]bool{"ConfigChange": true, "CwdChanged": true, "DirectoryAdded": true, "Elicitation": true,
		"ElicitationResult": true, "FileChanged": true, "InstructionsLoaded": true, "MessageDisplay": true, "Notification": true,
		"PostCompact": true, "PreCompact": true, "PreModelSwitch": true, "SessionEnd": true, "SessionStart": true, "Setup": true,
		"StopFailure": true, "SubagentStart": true, "WorktreeCreate": true, "WorktreeRemove": true}
	noHTTPEvents = map[string]bool{"SessionStart": true, "Setup": true}
)

// declaredText is handler h of ctx as declared (Hook.Declared): its JSON,
// compact, keys sorted, the last of a key given twice (as Claude Code
// reads it), a frontmatter's YAML as the JSON it reads as; for a handler
// of markdown carried in a JSON string, ctx.inlineDecl.
func declaredText(ctx hookCtx, h *jnode) string {
	if ctx.inlineDecl != "" {
		return ctx.inlineDecl
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h.toValue()); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// projectDirOf is the directory the hooks of ctx run in, which
// CLAUDE_PROJECT_DIR names: a project hook's own (hookCtx.projectDir),
// else the work tree.
func (c *claudeDisc) projectDirOf(ctx hookCtx) string {
	if !ctx.isPlugin && ctx.projectDir != "" {
		return ctx.projectDir
	}
	return c.dir
}

func describeNode(n *jnode) string {
	switch n.Kind {
	case jsonNumber:
		return fmt.Sprintf("%g", n.Num)
	case jsonString:
		return fmt.Sprintf("the string %q", n.Str)
	}
	return n.Kind.String()
}

// checkScripts reports a command's script that does not exist: what
// scriptsRun names of its first command, the program when it is a path
// and the script of a known interpreter.
//
// In exec form the words are the expanded command and args, each taken
// as written: no shell expands or splits them.
func (c *claudeDisc) checkScripts(h *Hook, ctx hookCtx) {
	// The hook runs in its project directory: a relative path is that
	// directory's, as ${CLAUDE_PROJECT_DIR} is.
	projDir := c.projectDirOf(ctx)
	pluginRoot := ctx.pluginRoot
	switch {
	case ctx.isPlugin:
	case ctx.skillRoot != "":
		// A project skill's hook: Claude Code leaves ${CLAUDE_PLUGIN_ROOT}
		// in its command as written, and the shell reads it from the
		// environment, where it is the skill's directory.
		pluginRoot = ctx.skillRoot
	default:
		// A project's hook: Claude Code sets no ${CLAUDE_PLUGIN_ROOT}
		// for it, and the shell makes it empty.
		pluginRoot = noPluginRoot
	}
	var words []string
	if h.Exec {
		words = append([]string{h.Expanded}, h.ExpandedArgs...)
	} else {
		words = shellWords(expandVars(strings.NewReplacer("$CLAUDE_PLUGIN_ROOT", "${CLAUDE_PLUGIN_ROOT}", "$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}").Replace(h.Command), pluginRoot, projDir))
	}
	cands := scriptsRun(words)
	for _, p := range cands {
		if rest, ok := strings.CutPrefix(p, noPluginRoot); ok && !h.Exec {
			c.find(RuleMissingScript, report.SeverityError, h.Location, "%s", projectPluginRoot(rest, c.dir, projDir))
			continue
		}
		if !h.Exec && (strings.ContainsAny(p, "$`*?[") || strings.HasPrefix(p, "~")) {
			continue // left to the shell: ~ is the user's home, outside the tree
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(projDir, abs)
		}
		abs = filepath.Clean(abs)
		if _, err := relTo(c.dir, abs); err != nil {
			continue // a system program such as /usr/bin/env
		}
		// A plugin's hook reads a relative path from the project's
		// directory, the user's project once the plugin is installed,
		// not from the plugin's: where it names a file of the plugin,
		// inPlugin is that file, relative to the plugin's root (and
		// pluginFile relative to the tree).
		inPlugin, pluginFile := "", ""
		if ctx.isPlugin && !filepath.IsAbs(p) {
			own := filepath.Clean(filepath.Join(ctx.pluginRoot, p))
			if r, err := relTo(ctx.pluginRoot, own); err == nil && r != "." {
				if _, pfi, err := beneath(c.dir, c.dirReal, own); err == nil && pfi.Mode().IsRegular() {
					inPlugin = r
					pluginFile, _ = relTo(c.dir, own)
				}
			}
		}
		// Through a link that leads out, nothing is said either way.
		_, fi, err := beneath(c.dir, c.dirReal, abs)
		if err == nil && (!ctx.isPlugin || inPlugin != "") && !filepath.IsAbs(p) && fi.Mode().IsRegular() {
			if w := commandWords(words); h.relScript == "" {
				h.relScript, h.relPython = p, len(w) > 0 && strings.HasPrefix(path.Base(w[0]), "python") && p != w[0]
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			shown, _ := relTo(c.dir, abs)
			how := ""
			const blocks = ", which Claude Code reads as a blocking error where the event takes one (a PreToolUse hook then blocks every call it matches, a Stop hook keeps the turn from ending)"
			if w := commandWords(words); len(w) > 0 && p != w[0] {
				// python's status for a script it cannot open is 2,
				// the status Claude Code reads as a block; so is
				// dash's, the sh of Debian and Ubuntu (bash's is 127).
				switch base := path.Base(w[0]); {
				case strings.HasPrefix(base, "python"):
					how = " with exit status 2" + blocks
				case base == "sh" || base == "dash":
					how = " with exit status 2 where sh is dash, as on Debian and Ubuntu" + blocks
				}
			}
			if inPlugin != "" {
				// A plugin's own file by a relative path: read from the
				// project's directory.
				how += fmt.Sprintf("; the tree has %s: the path is read from the project's directory, not the plugin's: name it ${CLAUDE_PLUGIN_ROOT}/%s", shownName(pluginFile), shownName(inPlugin))
			} else if other := sameNameElsewhere(c.dir, shown); other != "" {
				// Named from a directory not its own: a relative path
				// is the project's directory's; a path under
				// ${CLAUDE_PLUGIN_ROOT} is the plugin's, and for a
				// skill another plugin carries that is the carrying
				// plugin's.
				from := "the project's directory"
				if ctx.isPlugin && filepath.IsAbs(p) && within(ctx.pluginRoot, abs) {
					root, _ := relTo(c.dir, ctx.pluginRoot)
					from = fmt.Sprintf("plugin %s's directory %s, which ${CLAUDE_PLUGIN_ROOT} names here", shownCut(ctx.plugin, maxMonitorName), shownName(orDefault(root, ".")))
				}
				how += fmt.Sprintf("; the tree has %s: the path is read from %s, not from where the file is", shownName(other), from)
			}
			c.find(RuleMissingScript, report.SeverityError, h.Location, "hook script %s does not exist: the hook fails every time it runs%s", shown, how)
		}
	}
}

// noPluginRoot stands for ${CLAUDE_PLUGIN_ROOT} in a project's hook,
// where it is empty, while its scripts are checked (checkScripts): a
// path no tree holds, that checkScripts tells from one the hook names.
const noPluginRoot = "/\x00no-plugin-root"

// projectPluginRoot says what a project's hook (of its settings, an
// agent or a command; not a skill, whose directory it is) runs that names
// ${CLAUDE_PLUGIN_ROOT}rest as a script: Claude Code sets it for a
// plugin's and a skill's hooks only, so here it is empty, and the path is
// /rest, which no repository holds; where the project's .claude directory
// (projDir's, in tree) holds rest, the fix names it so.
func projectPluginRoot(rest, tree, projDir string) string {
	msg := fmt.Sprintf("the hook's command names ${CLAUDE_PLUGIN_ROOT}%s, and Claude Code sets ${CLAUDE_PLUGIN_ROOT} for a plugin's and a skill's hooks only: this hook is the project's, where it is empty, so the command runs %s, which no repository holds, and fails every time it runs", shownName(rest), shownName(path.Clean("/"+rest)))
	inProject := path.Join(".claude", rest)
	full := filepath.Join(projDir, filepath.FromSlash(inProject))
	if rel, err := relTo(tree, full); err == nil && !strings.HasPrefix(path.Clean("/"+rest), "/..") {
		if fi := treeEntry(tree, rel); fi != nil && fi.Mode().IsRegular() {
			return msg + fmt.Sprintf("; the project has %s: name it \"$CLAUDE_PROJECT_DIR\"/%s", shownName(rel), shownName(inProject))
		}
	}
	return msg + "; name the project's files with \"$CLAUDE_PROJECT_DIR\"/…"
}

// offKeys warns of a key of the matcher group or hook handler n (what,
// at where in file) that reads as turning its hooks off but is none that
// Claude Code reads: "enabled": false, "disabled": true. Claude Code
// ignores a key it does not know, so those hooks run all the same.
func (c *claudeDisc) offKeys(file string, n *jnode, where, what string) {
	for _, k := range []struct {
		key string
		off bool
	}{{"enabled", false}, {"disabled", true}} {
		m, ok := n.member(k.key)
		if !ok || m.Value.Kind != jsonBool || m.Value.Bool != k.off {
			continue
		}
		runs := "the hook runs; to turn it off, remove the handler"
		if what == "matcher group" {
			runs = "its hooks run; to turn them off, remove the group"
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.Value.Pos),
			"%s.%s: %t turns nothing off: Claude Code reads no %q key on a %s and ignores it, so %s", where, k.key, k.off, k.key, what, runs)
	}
}

// groupKeys and handlerKeys are the keys Claude Code reads on a matcher
// group and on a hook handler (of any type), as the hooks reference and
// the settings schema list them (rewakeMessage and rewakeSummary, what an
// asyncRewake hook wakes the model with, only the schema, as internal): those a key it does not read may have
// been meant as (misspeltKeys); any other is unreadKeys'.
var (
	groupKeys   = []string{"matcher", "hooks"}
	handlerKeys = []string{"type", "command", "args", "shell", "timeout", "statusMessage", "once", "async", "asyncRewake",
		"rewakeMessage", "rewakeSummary", "if", "onFailure", "url", "headers", "allowedEnvVars", "prompt", "model", "continueOnBlock", "server", "tool", "input"}
)

// handlerTypeKeys are the keys Claude Code reads on a hook handler of
// some types only, as the hooks reference's tables of each type's fields
// list them ("Command hook fields", "HTTP hook fields", "MCP tool hook
// fields", "Prompt hook configuration", "Agent hook configuration"; async
// "is only available on type: command hooks"); type, if, timeout,
// statusMessage, once and onFailure it reads on every type. On a handler
// of another type it ignores them (otherTypeKeys).
var handlerTypeKeys = map[string][]string{
	TypeCommand: {"command", "args", "shell", "async", "asyncRewake", "rewakeMessage", "rewakeSummary"},
	TypeHTTP:    {"url", "headers", "allowedEnvVars"},
	TypeMCPTool: {"server", "tool", "input"},
	TypePrompt:  {"prompt", "model", "continueOnBlock"},
	TypeAgent:   {"prompt", "model"},
}

// handlerTypes are the types of handlerTypeKeys in the order the
// reference lists them.
var handlerTypes = []string{TypeCommand, TypeHTTP, TypeMCPTool, TypePrompt, TypeAgent}

// readsKey says whether Claude Code reads key on a handler of type typ:
// false only for a key of other types alone (handlerTypeKeys) on a
// handler of a type it knows; an unknown type's handler is not loaded,
// and its keys are read as before (its own error says why).
func readsKey(typ, key string) bool {
	own, known := handlerTypeKeys[typ]
	if !known || slices.Contains(own, key) {
		return true
	}
	for _, keys := range handlerTypeKeys {
		if slices.Contains(keys, key) {
			return false
		}
	}
	return true
}

// aHandler is "a command hook", "an http hook", "prompt and agent hooks".
func aHandler(types []string) string {
	if len(types) > 1 {
		return strings.Join(types, " and ") + " hooks"
	}
	if strings.ContainsAny(types[0][:1], "aehimo") {
		return "an " + types[0] + " hook"
	}
	return "a " + types[0] + " hook"
}

// otherTypeKeys warns of each key of the handler h, of type typ, that
// Claude Code reads on a handler of another type only (handlerTypeKeys):
// "url" on a command hook, "command" on an http one, "async" on a prompt
// one. Claude Code ignores it, so what its author meant by it does not
// happen; the warning names the key and the type it belongs to. A key
// given twice is told once.
func (c *claudeDisc) otherTypeKeys(file string, h *jnode, where, typ string) {
	if _, known := handlerTypeKeys[typ]; !known {
		return
	}
	told := map[string]bool{}
	for _, m := range h.Members {
		if readsKey(typ, m.Key) || told[m.Key] {
			continue
		}
		if (m.Key == "async" || m.Key == "asyncRewake") && m.Value.Kind == jsonBool && !m.Value.Bool {
			continue // false: what the hook does anyway
		}
		told[m.Key] = true
		var of []string
		for _, t := range handlerTypes {
			if slices.Contains(handlerTypeKeys[t], m.Key) {
				of = append(of, t)
			}
		}
		effect := "so it changes nothing of what the hook does"
		switch {
		case typ == TypeAgent && m.Key == "continueOnBlock":
			// The reference: an agent hook's ok: false is handled as a
			// prompt hook's with continueOnBlock true.
			c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
				"%s: %q is a key of a prompt hook, and this is an agent hook: Claude Code ignores it here, and handles an agent hook's ok: false as a prompt hook's with continueOnBlock true whatever it says", where, m.Key)
			continue
		case m.Key == "command" || m.Key == "args":
			effect = fmt.Sprintf("so no command runs: Claude Code runs the %s hook alone, and vigiles runs no command of it either", typ)
		case m.Key == "async" || m.Key == "asyncRewake":
			effect = "so the hook does not run in the background: Claude Code waits for it"
		case typ == TypeCommand:
			effect = "so the command runs as if it were not there, and vigiles runs it so"
		}
		quoted := make([]string, len(of))
		for i, t := range of {
			quoted[i] = strconv.Quote(t)
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
			"%s: %q is a key of %s, and this is %s: Claude Code ignores it here, %s; for what it means, declare a handler of type %s", where, m.Key, aHandler(of), aHandler([]string{typ}), effect, strings.Join(quoted, " or "))
	}
}

// noteKey says whether key, which Claude Code does not read on a matcher
// group or a hook handler, is a note for a reader ("description",
// "_comment", "$schema", "//"): one that no author expects to change
// when the hooks run, so unreadKeys leaves it alone.
func noteKey(key string) bool {
	switch strings.ToLower(key) {
	case "description", "comment", "comments", "note", "notes", "name", "title":
		return true
	}
	return strings.HasPrefix(key, "_") || strings.HasPrefix(key, "$") || strings.HasPrefix(key, "//") || strings.HasPrefix(key, "#")
}

// unreadKeys warns of each key of n, a matcher group or a hook handler
// (what), that Claude Code does not read (known are those it does), which
// is neither nearly one it reads (misspeltKeys names it, or leaves alone
// a spare beside the key it is like), nor a note (noteKey), nor "enabled"
// or "disabled" (offKeys says what they do):
// "conditions": {"fileExtensions": [".rs"]}, which reads as narrowing the
// group. Claude Code ignores it, so the group's hooks run for everything
// its matcher selects, and vigiles runs them so.
//
// A group with no "hooks" array is left alone: none of it runs, which its
// own error says. A key given twice is told once, at the first.
func (c *claudeDisc) unreadKeys(file string, n *jnode, event, where, what string, known []string) {
	if h := n.get("hooks"); what == "matcher group" && (h == nil || h.Kind != jsonArray) {
		return
	}
	told := map[string]bool{}
	for _, m := range n.Members {
		if slices.Contains(known, m.Key) || textdist.Nearest(m.Key, known) != "" || noteKey(m.Key) || m.Key == "enabled" || m.Key == "disabled" || told[m.Key] {
			continue
		}
		told[m.Key] = true
		if what == "matcher group" && m.Key != "if" && slices.Contains(handlerKeys, m.Key) {
			// A handler's key written a level up ("once", "timeout",
			// "async"): it means nothing of narrowing, so the fix is to
			// move it, not to test the payload.
			means := ""
			if m.Key == "once" {
				means = " (and a handler's \"once\" runs a hook once per session only in a skill's frontmatter)"
			}
			c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
				"%s: %q is a hook handler's key, not a matcher group's: Claude Code ignores it here, so the group's hooks run as if it were not there, each time the event fires, and vigiles runs them so; to mean it, put it on the handlers under \"hooks\"%s", where, m.Key, means)
			continue
		}
		runs := "so the hook runs as if it were not there, and vigiles runs it so"
		if what == "matcher group" {
			runs = "so it narrows nothing: the group's hooks run for everything the event fires for"
			if mt := n.get("matcher"); mt != nil && mt.Kind == jsonString && mt.Str != "" && mt.Str != "*" && mt.Str != ".*" && readsMatcher(event) {
				runs = fmt.Sprintf("so it narrows nothing: the group's hooks run for everything its matcher %q selects", cutBytes(mt.Str, maxMonitorName))
			}
			runs += ", and vigiles runs them so; to narrow them, test the payload in the hook"
			if IsToolEvent(event) {
				runs += " or give a handler an \"if\" permission rule"
			}
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
			"%s: %q is no key Claude Code reads on a %s: it ignores it, %s", where, cutBytes(m.Key, maxMonitorName), what, runs)
	}
}

// misspeltKeys warns of each key of n, a matcher group or a hook handler
// (what), that Claude Code does not read but that is nearly one it does
// (known) which n does not hold: "matchr", "timeot", "Matcher". Claude
// Code ignores it, so the group matches every tool, the handler keeps
// its default timeout, and nothing says so. Other keys it does not read
// are unreadKeys'.
func (c *claudeDisc) misspeltKeys(file string, n *jnode, where, what string, known []string) {
	for _, m := range n.Members {
		if slices.Contains(known, m.Key) {
			continue
		}
		like := textdist.Nearest(m.Key, known)
		if like == "" {
			continue
		}
		if _, has := n.member(like); has {
			continue // a spare key beside the real one
		}
		effect := ""
		switch like {
		case "matcher":
			effect = ", so the group has no matcher and its hooks run for everything the event fires for"
		case "timeout":
			effect = ", so the hook gets its event's default timeout"
		case "hooks":
			effect = ", so the group has no hooks array and none of it runs"
		}
		c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
			"%s: %q is no key of a %s: did you mean %q? Claude Code matches keys exactly, case and all, and ignores one it does not read%s", where, m.Key, what, like, effect)
	}
}

// mcpServerMatcher finds, in matcher on the tool event event, a name of
// the exact-names form (mcp__memory, Bash|mcp__memory) that names an MCP
// server, not a tool: an MCP tool's name is mcp__<server>__<tool>, so a
// name with no "__" after its "mcp__" is no tool's, and Claude Code
// compares such a matcher with names exactly (the hooks reference, "Match
// MCP tools": "The .* is required"). The first such name; "" where there
// is none.
func mcpServerMatcher(event, matcher string) string {
	if !IsToolEvent(event) {
		return ""
	}
	m, err := compileMatcherFor(event, matcher)
	if err != nil {
		return ""
	}
	for _, n := range m.Names() {
		if mcpServerName(n) {
			return n
		}
	}
	return ""
}

// mcpServerName says whether name, a tool name in an exact matcher,
// starts as an MCP tool's does but has no "__" before a tool's name
// (mcp__memory, mcp__plugin_p_db): no tool has such a name.
func mcpServerName(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && !strings.Contains(rest, "__")
}

// claudeTools are the names of Claude Code's own tools: those a matcher
// that names another may have meant (misspeltTool), those a matcher
// written as a permission rule may select (ruleNeverMatches), and those
// a regular expression that selects none of the default tools runs for
// (toolsFor). They hold each tool of the tools reference's table, whose
// names are "the exact strings you use in … hook matchers"
// (tools-reference.md: CronCreate, EnterWorktree, LSP, SendMessage, …),
// and the earlier names matchers still write (LS, MultiEdit, Task, …).
var claudeTools = []string{"Agent", "Artifact", "AskUserQuestion", "Bash", "BashOutput", "CronCreate", "CronDelete", "CronList", "Edit",
	"EndConversation", "EnterPlanMode", "EnterWorktree", "ExitPlanMode", "ExitWorktree", "Glob", "Grep", "KillShell", "LS", "LSP",
	"ListAgents", "ListMcpResourcesTool", "Monitor", "MultiEdit", "NotebookEdit", "NotebookRead", "PowerShell", "PushNotification", "Read",
	"ReadMcpResourceTool", "RemoteTrigger", "ReportFindings", "ScheduleWakeup", "SendMessage", "SendUserFile", "ShareOnboardingGuide",
	"Skill", "SlashCommand", "Task", "TaskCreate", "TaskGet", "TaskList", "TaskOutput", "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch",
	"WaitForMcpServers", "WebFetch", "WebSearch", "Workflow", "Write"}

// misspeltTool finds, in matcher on the tool event event, a name of the
// exact-names form (Bash|Write) that is no tool of Claude Code's but
// nearly one (Bahs, bash, Writes): the first such name and the tool it
// is like; "" where there is none. An MCP tool's name (mcp__…) is never
// one: its server chooses it.
func misspeltTool(event, matcher string) (name, like string) {
	if !IsToolEvent(event) || !plainMatcher(matcher) {
		return "", ""
	}
	names := strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' })
	for i := range names {
		names[i] = strings.TrimSpace(names[i])
	}
	for _, n := range names {
		if n == "" || strings.HasPrefix(n, "mcp__") || slices.Contains(claudeTools, n) {
			continue
		}
		if t := textdist.Nearest(n, claudeTools); t != "" && !slices.Contains(names, t) {
			// (Bash|bash: the tool is named too, the other is a spare.)
			return n, t
		}
	}
	return "", ""
}

// unsentValue finds, in matcher on event, where the values Claude Code
// matches are a closed list (SessionStart's source, SessionEnd's reason,
// PreCompact's trigger, …: eventSpec.Closed), a name of the exact-names
// form that is none of them ("Startup", or "bypass_permissions_disabled",
// which 2.1.234 stopped sending), the value it is nearly ("startup"), if
// any, and the values sent. Claude Code
// compares such a name exactly: the hook never runs for it. A name beside
// the value it is nearly (Startup|startup) is a spare, and left alone, as
// is a regular expression. none says no name of the matcher is a value
// Claude Code sends: it never runs the hook.
func unsentValue(event, matcher string) (name, like string, sent []string, none bool) {
	spec := knownEvents[event]
	if !spec.Closed || spec.MatchField == "" {
		return "", "", nil, false
	}
	m, err := compileMatcherFor(event, matcher)
	if err != nil {
		return "", "", nil, false
	}
	names := m.Names()
	for _, n := range names {
		if n == "" || slices.Contains(spec.Values, n) {
			continue
		}
		like := textdist.Nearest(n, spec.Values)
		if like != "" && slices.Contains(names, like) {
			continue
		}
		return n, like, spec.Values, !slices.ContainsFunc(names, func(v string) bool { return slices.Contains(spec.Values, v) })
	}
	return "", "", nil, false
}

// negationMatcher reports whether matcher is written as a negation,
// !Bash, as a permission rule or a glob might write it: Claude Code has
// none, and reads the "!" as a regular expression's own character, which
// no tool's or agent's name holds.
func negationMatcher(matcher string) bool {
	rest, ok := strings.CutPrefix(matcher, "!")
	if inner, grouped := strings.CutPrefix(rest, "("); grouped {
		// !(Grep|Glob|Read), as a glob's extended pattern writes it.
		rest, ok = strings.CutSuffix(inner, ")")
	}
	return ok && rest != "" && plainMatcher(rest)
}

// ruleNeverMatches reports whether matcher (compiled as m) on the tool
// event event is written as a permission rule, Bash(git status:*), that
// is a valid regular expression but matches no tool: one that selects
// none of the tools Claude Code has, and either names one of them with
// an argument, Skill(prp-execute), whatever characters that holds, or
// has an example (Matcher.Example, "Bashgit status") that holds a
// character no tool's name holds (ruleExampleUnnamable). An MCP rule,
// mcp__srv__(.*), is not one: it selects that server's tools.
func ruleNeverMatches(event, matcher string, m *Matcher) bool {
	if m == nil || !IsToolEvent(event) {
		return false
	}
	r, err := parseRule(matcher)
	if err != nil || !r.has || strings.HasPrefix(r.tool, "mcp__") || !plainMatcher(r.tool) || strings.ContainsAny(r.tool, "|, ") {
		return false // not Tool(…): !(Grep|Glob) is a negation
	}
	x := m.Example()
	if x == "" || !ruleExampleUnnamable(x) && (r.spec == "" || !slices.Contains(claudeTools, r.tool)) {
		return false
	}
	return !slices.ContainsFunc(claudeTools, m.Match)
}

// ruleExampleUnnamable reports whether x holds a character no tool's
// name holds: names hold letters, digits, _ and -; an MCP tool's too.
func ruleExampleUnnamable(x string) bool {
	return strings.ContainsFunc(x, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-')
	})
}

// ruleNeverMatchesWhy says why no tool's name holds x, the example of a
// matcher ruleNeverMatches reports.
func ruleNeverMatchesWhy(x string) string {
	if ruleExampleUnnamable(x) {
		return "no tool's name holds a space or punctuation"
	}
	return "no tool Claude Code has holds it"
}

// ruleMatcherHint is, for a matcher written as a permission rule
// (Write(docs/**), as parseRule reads the handler's "if"), the way to
// say it: the tool as the matcher, the rule as the handler's "if"; ""
// for any other matcher.
func ruleMatcherHint(matcher string) string {
	r, err := parseRule(matcher)
	if err != nil || !r.has {
		return ""
	}
	return fmt.Sprintf(`; it reads as a permission rule, which a matcher is not: to run the hook for %s calls that match it, write "matcher": %q and, on the handler, "if": %q`, r.tool, r.tool, matcher)
}

// maxTimerSeconds is the longest timeout, in seconds, Node.js keeps
// (2^31-1 ms); maxTimeoutSeconds bounds the one vigiles reads, so that
// its duration does not overflow.
const (
	maxTimerSeconds   = 2147483
	maxTimeoutSeconds = 1e9
)

// userConfigRefused is why a shell-form plugin hook that references
// ${user_config.*} is not run (Hook.NotRun): Claude Code never runs it.
const userConfigRefused = "Claude Code refuses to run a shell-form plugin command that references ${user_config.*}"

// expandVars substitutes ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PROJECT_DIR}
// the way Claude Code does before running a plugin's command.
func expandVars(s, pluginRoot, projectDir string) string {
	return strings.NewReplacer("${CLAUDE_PLUGIN_ROOT}", pluginRoot, "${CLAUDE_PROJECT_DIR}", projectDir).Replace(s)
}

func expandProject(s, projectDir string) string {
	return strings.ReplaceAll(s, "${CLAUDE_PROJECT_DIR}", projectDir)
}

// shellWords splits the first simple command of s into words, honouring
// quotes and backslashes, as shellCommands splits every command of it: a
// comment, a redirection and its file descriptor are no words.
func shellWords(s string) []string {
	if cmds := shellCommands(s); len(cmds) > 0 {
		return cmds[0].words
	}
	return nil
}

// marketplace reads root's .claude-plugin/marketplace.json and discovers
// every plugin with a local source.
func (c *claudeDisc) marketplace(root string) {
	c.marketplaceAt(root, filepath.Join(root, claudeMarketplace))
}

// marketplaceAt reads the marketplace file file, whose marketplace root
// (where its plugins' relative sources resolve from) is root, and
// discovers every plugin with a local source: root's
// .claude-plugin/marketplace.json, or the file a settings' "file" source
// names, whatever its name, whose root Claude Code takes two directories
// above it (marketsNamed).
func (c *claudeDisc) marketplaceAt(root, file string) {
	rel, n := c.readObject(file)
	if n == nil {
		return
	}
	c.repeatedKeys(rel, n, "", "metadata", "plugins")
	market := ""
	if nm := n.get("name"); nm != nil && nm.Kind == jsonString {
		market = nm.Str
		if dir, err := relTo(c.dir, root); err == nil {
			if c.out.MarketDirs == nil {
				c.out.MarketDirs = map[string][]string{}
			}
			if !slices.Contains(c.out.MarketDirs[market], dir) {
				c.out.MarketDirs[market] = append(c.out.MarketDirs[market], dir)
			}
		}
		if c.out.MarketFiles == nil {
			c.out.MarketFiles = map[string][]string{}
		}
		if !slices.Contains(c.out.MarketFiles[market], rel) {
			c.out.MarketFiles[market] = append(c.out.MarketFiles[market], rel)
		}
	}
	base := root
	if md := n.get("metadata"); md != nil && md.Kind == jsonObject {
		c.repeatedKeys(rel, md, "metadata", "pluginRoot")
		if pr, ok := md.member("pluginRoot"); ok {
			if pr.Value.Kind == jsonString {
				base = resolvePath(root, pr.Value.Str)
			} else {
				c.find(RuleWrongType, report.SeverityError, c.loc(rel, pr.Value.Pos), "metadata.pluginRoot: want a path string, found %s", pr.Value.Kind)
			}
		}
	}
	pm, ok := n.member("plugins")
	if !ok {
		c.find(RuleMalformed, report.SeverityError, c.loc(rel, n.Pos), "%s has no \"plugins\" array", rel)
		return
	}
	if pm.Value.Kind != jsonArray {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, pm.Value.Pos), "plugins: want an array, found %s", pm.Value.Kind)
		return
	}
	for i, e := range pm.Value.Elems {
		if e.Kind != jsonObject {
			c.find(RuleWrongType, report.SeverityError, c.loc(rel, e.Pos), "plugins[%d]: want an object, found %s", i, e.Kind)
			continue
		}
		c.repeatedKeys(rel, e, fmt.Sprintf("plugins[%d]", i), "name", "source", "hooks", claudeSkills, claudeAgents, claudeCommands, mcpKind.field, lspKind.field)
		name := ""
		if nm := e.get("name"); nm != nil && nm.Kind == jsonString {
			name = nm.Str
		} else {
			c.find(RuleMalformed, report.SeverityError, c.loc(rel, e.Pos), "plugins[%d]: want a \"name\" string", i)
		}
		src, ok := e.member("source")
		if !ok {
			c.find(RuleMalformed, report.SeverityError, c.loc(rel, e.Pos), "plugins[%d] (%s): no \"source\"", i, name)
			continue
		}
		sloc := c.loc(rel, src.Value.Pos)
		switch src.Value.Kind {
		case jsonString:
			s := src.Value.Str
			if strings.Contains(s, "://") || strings.HasPrefix(s, "git@") {
				c.find(RuleRemoteSource, report.SeverityNotice, sloc, "plugins[%d] (%s): remote source %q is not fetched or audited; vendor it to audit it", i, name, s)
				c.noteRemote(name, githubRepo(s))
				continue
			}
			// metadata.pluginRoot is where a bare name (no "/") resolves;
			// Claude Code ignores it for a source that starts with "./"
			// (or names more than one directory), which resolves against
			// the marketplace root.
			dirp := resolvePath(root, s)
			if !strings.Contains(s, "/") {
				dirp = resolvePath(base, s)
			}
			_, fi, err := beneath(c.dir, c.dirReal, dirp)
			if errors.Is(err, ErrOutsideTree) {
				c.find(RuleOutsideTree, report.SeverityError, sloc, "%s", outsideMessage(fmt.Sprintf("plugins[%d] (%s): local source %q", i, name, s), "", err))
				continue
			}
			if sub := c.emptySubmodule(dirp); sub != "" && (err == nil && fi.IsDir() || errors.Is(err, fs.ErrNotExist)) {
				c.find(RuleMissingFile, report.SeverityError, sloc, "plugins[%d] (%s): local source %q is in the git submodule %s, which this checkout has not checked out: Claude Code clones a marketplace with its submodules and installs the plugin from it, and vigiles has not read it; check the submodules out before vigiles runs (git submodule update --init --recursive; actions/checkout's submodules: recursive) so that it reads them",
					i, shownCut(name, maxMonitorName), s, shownName(sub))
				continue
			}
			if err != nil || !fi.IsDir() {
				what := "is not a directory"
				if errors.Is(err, fs.ErrNotExist) {
					what = "does not exist"
				}
				hint := ""
				if base != root && strings.Contains(s, "/") {
					// The author meant pluginRoot to come first.
					if _, bfi, berr := beneath(c.dir, c.dirReal, resolvePath(base, s)); berr == nil && bfi.IsDir() {
						if at, rerr := relTo(c.dir, resolvePath(base, s)); rerr == nil {
							hint = fmt.Sprintf(": metadata.pluginRoot would put it at %s, which the tree has, but Claude Code resolves a source that holds a \"/\" from the marketplace's root, not under pluginRoot (anthropics/claude-code#68936); write \"./%s\"", shownName(at), shownName(at))
						}
					}
				}
				c.find(RuleMissingFile, report.SeverityError, sloc, "plugins[%d] (%s): local source %q %s%s", i, name, s, what, hint)
				continue
			}
			if name != "" {
				if d, err := relTo(c.dir, dirp); err == nil {
					if c.local == nil {
						c.local = map[string][]localEntry{}
					}
					c.local[name] = append(c.local[name], localEntry{dir: d, loc: sloc})
				}
				if market != "" {
					if c.out.Markets == nil {
						c.out.Markets = map[string][]string{}
					}
					c.out.Markets[name] = append(c.out.Markets[name], market)
					if d, err := relTo(c.dir, dirp); err == nil {
						c.installed(d, name+"@"+market)
					}
				}
			}
			if d, err := relTo(c.dir, dirp); err == nil {
				if c.listedDirs == nil {
					c.listedDirs = map[string]bool{}
				}
				c.listedDirs[d] = true
			}
			if d, err := relTo(c.dir, dirp); err == nil {
				if c.entryLoads == nil {
					c.entryLoads = map[string]*entryLoad{}
				}
				l := c.entryLoads[d]
				if l == nil {
					l = &entryLoad{}
					c.entryLoads[d] = l
				}
				if c.strictConflict(rel, e, i, name, dirp) {
					l.conflicts = append(l.conflicts, c.keepLast())
				} else {
					l.whole++
				}
			}
			c.plugin(dirp, name, e, rel, sloc)
		case jsonObject:
			kind := ""
			if k := src.Value.get("source"); k != nil && k.Kind == jsonString {
				kind = k.Str
			}
			if kind == "command" {
				// Not fetched from anywhere: a command of the tree's that
				// Claude Code runs on the user's machine, which prints
				// the directory of the plugin it loads
				// (plugin-marketplaces.md, "Command sources").
				cmd := "(no command string)"
				if v := src.Value.get("command"); v != nil && v.Kind == jsonString {
					cmd = shownName(cutBytes(v.Str, 300))
				}
				c.find(RuleRemoteSource, report.SeverityNotice, sloc, "plugins[%d] (%s): its source is a command, which Claude Code runs itself through sh, from the user's home directory, unsandboxed and outside every hook, when the plugin is installed or updated and again once a session, to find the directory of the plugin it loads: %s; vigiles does not run it, and audits nothing of the plugin it prints: review the command by hand, and vendor the plugin in the repository to audit it", i, name, cmd)
			} else {
				c.find(RuleRemoteSource, report.SeverityNotice, sloc, "plugins[%d] (%s): %s source is not fetched or audited; vendor it to audit it", i, name, orDefault(kind, "non-local"))
			}
			c.noteRemote(name, sourceRepo(kind, src.Value))
		default:
			c.find(RuleWrongType, report.SeverityError, sloc, "plugins[%d].source: want a path string or a source object, found %s", i, src.Value.Kind)
		}
	}
}

// resolvePath resolves a path a declaration names against base as Claude
// Code does: an absolute path stands for itself (beneath then says it is
// outside), not for a directory of that name under base.
func resolvePath(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Clean(filepath.Join(base, p))
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// sortFindings orders findings for stable reports: by file, line, column,
// rule, hook and message.
func sortFindings(fs []report.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Location.File != b.Location.File {
			return a.Location.File < b.Location.File
		}
		if a.Location.Line != b.Location.Line {
			return a.Location.Line < b.Location.Line
		}
		if a.Location.Column != b.Location.Column {
			return a.Location.Column < b.Location.Column
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		if a.Hook != b.Hook {
			return a.Hook < b.Hook
		}
		return a.Message < b.Message
	})
}
