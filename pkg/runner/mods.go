package runner

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleMod names a plugin's mod, which vigiles does not run (hooksModules).
const RuleMod = "discovery/mod"

// ServerMod is the kind (Server.Kind) of a mod: named, not run, and kept
// by a baseline as a monitor is.
const ServerMod = "mod"

// hooksModules names the mod a plugin's hooks file (rel, read in ctx)
// declares under "modules" (n): a plugin whose hooks file lists a hooks
// module, a JavaScript or TypeScript file exporting register(on), is a
// mod (Claude Code's documentation, plugins/mods; Anthropic's own mods,
// anthropics/claude-code mods/, each a hooks/hooks.json of "modules":
// ["./register.ts"] beside hooks/register.ts). Claude Code loads that
// module into its own process and calls its handlers on events (tool
// calls, prompts, requests, the interface being drawn), where they run
// with the user's rights, not sandboxed, and may watch, change or
// answer them. vigiles runs no mod: each module is a Server of kind
// ServerMod, named once the session knows the plugin's settings
// (serverFindings): a discovery/mod warning, a notice where they turn
// the plugin off, and kept by a baseline with the SHA-256 of its module
// and of what that imports from the tree (walkServer).
//
// A module's path is read from the directory of the hooks file that
// lists it, as Anthropic's mods write it and the mods reference says
// ("one path relative to this file"); the reference names no variable
// there, so "${CLAUDE_PLUGIN_ROOT}/…" is read as written, and is not
// there. A path that leaves the plugin's directory, by ".." or as an
// absolute path, is a discovery/escapes-plugin error (escapesPlugin),
// whether or not it stays in the repository: Claude Code's plugin
// validator refuses it by the same lexical test escapesPlugin applies
// (the path resolved from the hooks file's directory, relative to the
// plugin's, has ".." as its first element: "The module path leaves the
// plugin directory", claude plugin validate of 2.1.259), and an installed
// plugin is a copy of its own directory alone, so such a module is not
// there when Claude Code loads the installed plugin. It is named no mod
// and kept by no baseline. A module not there is a
// discovery/missing-file warning (Claude Code skips a module it cannot
// load, and the session goes on); one in the plugin's directory that a
// symbolic link on its way leads out of the repository a
// discovery/outside-work-tree error; a directory, or a "modules" of
// another form, a discovery/wrong-type error.
func (c *claudeDisc) hooksModules(ctx hookCtx, rel string, n *jnode) {
	if n.Kind != jsonArray {
		c.find(RuleWrongType, report.SeverityError, c.loc(rel, n.Pos), "\"modules\": want an array of module paths, found %s", n.Kind)
		return
	}
	var got []*Server
	for _, e := range n.Elems {
		if e.Kind != jsonString {
			c.find(RuleWrongType, report.SeverityError, c.loc(rel, e.Pos), "\"modules\" entries: want a path string, found %s", e.Kind)
			continue
		}
		shown := shownCut(strconv.Quote(e.Str), maxMonitorCommand)
		p := filepath.Clean(filepath.Join(c.dir, filepath.FromSlash(path.Dir(rel)), e.Str))
		if filepath.IsAbs(e.Str) {
			p = filepath.Clean(e.Str)
		}
		if c.escapesPlugin(ctx, rel, e, moduleWhat, p) {
			continue
		}
		_, fi, err := beneath(c.dir, c.dirReal, p)
		switch {
		case errors.Is(err, ErrOutsideTree):
			c.find(RuleOutsideTree, report.SeverityError, c.loc(rel, e.Pos), "%s", outsideMessage("hooks module "+shown, "", err))
			continue
		case err != nil:
			c.find(RuleMissingFile, report.SeverityWarning, c.loc(rel, e.Pos),
				"%s lists the hooks module %s, which is not in the tree (read from the hooks file's directory): Claude Code skips a module it cannot load, so this mod does nothing, and vigiles has nothing of it to name or keep",
				shownName(rel), shown)
			continue
		case fi.IsDir():
			c.find(RuleWrongType, report.SeverityError, c.loc(rel, e.Pos), "\"modules\": %s names a directory; want the path of the hooks module, a JavaScript or TypeScript file", shown)
			continue
		}
		if !c.countServer(c.loc(rel, e.Pos)) {
			break
		}
		entry, _ := relTo(c.dir, p)
		got = append(got, &Server{Kind: ServerMod, Name: e.Str, Command: entry, Location: c.loc(rel, e.Pos)})
	}
	c.addServers(ctx, got, ctx.entryName == "")
}

// inlineModules says, of a hooks object written inline in a plugin's
// manifest or a marketplace entry (v, at the path at of file; inner the
// events object read from it: v itself, or its "hooks"), that lists
// module paths under "modules", that Claude Code loads none of them: a
// discovery/malformed warning at the key, and no mod is named. Claude
// Code reads a hooks module from a hooks file alone: the mods reference
// puts "modules" in hooks/hooks.json, and its plugin validator (claude
// plugin validate of 2.1.259) gathers modules from hooks/hooks.json and
// from each path the manifest's "hooks" names, and passes over an
// inline object. A wrapper's other keys ("description") are notes and
// are passed over too; "modules" is told, since its author means a mod
// by it and gets none. Where v is the events object itself, a "modules"
// that lists paths (an array of strings) is left out of the events read
// (the result, a copy of inner without it), which would otherwise call
// it an unknown event whose matcher groups are strings: the warning says
// what it is. Any other "modules" there is read as an event is.
func (c *claudeDisc) inlineModules(file string, v, inner *jnode, at string) *jnode {
	m, ok := v.member("modules")
	if !ok {
		return inner
	}
	bare := inner == v
	var paths []string
	if m.Value.Kind == jsonArray {
		for _, e := range m.Value.Elems {
			if e.Kind != jsonString {
				paths = nil
				break
			}
			paths = append(paths, e.Str)
		}
	}
	if bare && (m.Value.Kind != jsonArray || len(paths) != len(m.Value.Elems)) {
		return inner
	}
	var listed string
	switch {
	case m.Value.Kind != jsonArray:
		listed = fmt.Sprintf("is %s, not a list of module paths", m.Value.Kind)
	case len(paths) != len(m.Value.Elems):
		listed = "holds other than module paths"
	case len(paths) == 0:
		listed = "lists no module"
	default:
		listed = "lists the hooks module " + shownCut(strconv.Quote(paths[0]), maxMonitorCommand)
		if len(paths) > 1 {
			listed += fmt.Sprintf(" and %d more", len(paths)-1)
		}
	}
	c.find(RuleMalformed, report.SeverityWarning, c.loc(file, m.KeyPos),
		"%s.modules %s, written inline in %s: Claude Code reads a hooks module only from a hooks file (the plugin's hooks/hooks.json, or one the manifest's \"hooks\" names by its path), so it loads none from here, the plugin is no mod by it, and vigiles names no mod: to make it one, move \"modules\" into the plugin's hooks/hooks.json, with a path from that file's directory (\"./register.ts\")",
		at, listed, shownName(file))
	if !bare {
		return inner
	}
	cp := *inner
	cp.Members = nil
	for _, mm := range inner.Members {
		if mm.Key != "modules" || mm.lone != "" {
			cp.Members = append(cp.Members, mm)
		}
	}
	return &cp
}

// modMessage is the finding's text for the mod s.
func (s *Server) modMessage() string {
	return fmt.Sprintf("plugin %s is a mod: its hooks file lists the hooks module %s (%s), which Claude Code loads into its own process and whose handlers it calls on events (tool calls, prompts, model requests, the interface being drawn), unsandboxed, with the user's rights, where they may watch, change or answer them; vigiles does not run mods, so nothing of what it does is recorded: review it, and what it imports, by hand",
		shownCut(s.Plugin, maxMonitorName), shownCut(s.Name, maxMonitorName), shownName(clip(s.Command, maxMonitorCommand)))
}

// modImports adds to the walk the files of the tree that the mod's
// module, the walk's first file, imports by a relative path (import … from "./x", import
// "./x", import("./x"), require("./x"); not a type-only import, which
// nothing runs), and theirs in turn, inside the plugin's root, to
// maxServerFiles files (fileWalk.add): a helper the module imports
// rewritten is the mod rewritten. A specifier built at run time, a
// package (node_modules) or a URL is not followed, nor is a relative
// one that leaves the plugin's root (relImport), into another plugin or
// out of the repository: a hooks module imports the plugin's own files,
// an installed plugin holds nothing else, and what lies beside it in
// the repository is not what an install loads.
func (w *fileWalk) modImports(root string) {
	for i := 0; i < len(w.files); i++ {
		f := w.files[i].Path
		src, ok := w.s.readTreeFile(f, maxScriptRead)
		if !ok {
			continue
		}
		looked := map[string]bool{}
		for _, m := range importSpecs().FindAllStringSubmatch(codeOf(src), -1) {
			spec := m[2]
			if m[1] != "" || looked[spec] || !(strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../")) {
				continue
			}
			looked[spec] = true
			if len(looked) > maxRelImports {
				break
			}
			if next, ok := relImport(f, spec, root, w.s); ok {
				w.add(next)
			}
		}
		if w.more {
			return
		}
	}
}
