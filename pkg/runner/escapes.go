package runner

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/vigiles/action/pkg/report"
)

// RuleEscapesPlugin is the error that a plugin's manifest names a file or
// directory outside the plugin's own directory (a "hooks" file, a
// "commands", "agents" or "skills" path, a monitors file), or that a
// plugin's hooks file lists a hooks module there (hooksModules).
// Claude Code resolves each such path against the plugin's directory and
// loads nothing that leaves it: it records a path-traversal error for the
// plugin and goes on without the component. An installed plugin is a
// copy of its own directory besides, so what lies next to it in the
// repository is not there. vigiles neither reads nor runs what such a
// path names: nothing of it runs in a session.
const RuleEscapesPlugin = "discovery/escapes-plugin"

// escapesPlugin reports whether the path v of a plugin's manifest, or
// a module its hooks file lists (file the file that declares it; what
// says what it names: "hooks file", "commands path", moduleWhat),
// resolved to p, leaves the plugin's directory, and
// says so with a discovery/escapes-plugin error at v. Claude Code's test
// is lexical: the path relative to the plugin's directory whose first
// element is ".." (leavesDir), whatever is on the disk (a symbolic link
// that leads out of the plugin is read by the tree's own rules,
// beneath). A path outside a context that is no plugin (a project's
// settings) is not tested.
func (c *claudeDisc) escapesPlugin(ctx hookCtx, file string, v *jnode, what, p string) bool {
	if !ctx.isPlugin {
		return false
	}
	rel, err := filepath.Rel(ctx.pluginRoot, p)
	if err == nil && !leavesDir(rel) {
		return false
	}
	root, _ := relTo(c.dir, ctx.pluginRoot)
	if root == "" {
		root = "."
	}
	why := "Claude Code loads nothing a plugin's manifest names outside it (a path-traversal error for the plugin), and an installed plugin is a copy of that directory alone, so none of it loads and vigiles does not run it"
	fix := "move it into the plugin and name it by a path that starts with \"./\""
	if what == moduleWhat {
		// A module's path is read from its hooks file's directory, not
		// from the manifest's: no hint of .claude-plugin/ applies.
		why = "Claude Code loads no hooks module whose path leaves it (its plugin validator: \"The module path leaves the plugin directory\"), and an installed plugin is a copy of that directory alone, so the module does not load, the plugin is no mod by it, and vigiles names no mod and keeps none in a baseline"
		fix = "move the module into the plugin and name it by a path from the hooks file's directory that stays inside it (\"./register.ts\")"
	} else if in := c.fromManifestDir(ctx, v.Str); in == claudeHooksJSON && what == "hooks file" {
		fix = fmt.Sprintf("written from .claude-plugin/, it names the plugin's own %s, which Claude Code loads by itself: remove it from the manifest", claudeHooksJSON)
	} else if in != "" {
		fix = fmt.Sprintf("written from .claude-plugin/, it names the plugin's own %s: Claude Code reads a manifest's paths from the plugin's directory, so write %s", shownName(in), strconv.Quote("./"+in))
	}
	c.find(RuleEscapesPlugin, report.SeverityError, c.loc(file, v.Pos),
		"%s %s leaves the plugin's directory %s: %s; %s",
		what, shownCut(strconv.Quote(v.Str), maxMonitorCommand), shownName(root), why, fix)
	return true
}

// moduleWhat is what escapesPlugin calls a hooks module a hooks file
// lists (hooksModules).
const moduleWhat = "hooks module"

// fromManifestDir is what the manifest's path s names when read, as its
// author may have meant it, from the .claude-plugin directory the
// manifest is in: a path of the plugin's (relative to its directory,
// with slashes) that is there; "" where it leaves the plugin too, or is
// not there.
func (c *claudeDisc) fromManifestDir(ctx hookCtx, s string) string {
	if filepath.IsAbs(s) {
		return ""
	}
	p := filepath.Join(ctx.pluginRoot, ".claude-plugin", s)
	rel, err := filepath.Rel(ctx.pluginRoot, p)
	if err != nil || leavesDir(rel) || rel == "." {
		return ""
	}
	if _, _, err := beneath(c.dir, c.dirReal, p); err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}

// manifestDirHint ends a discovery/missing-file error about the path s of
// a plugin's manifest, not found from the plugin's directory, where it is
// there read from the manifest's own .claude-plugin directory: it names
// what the author meant and how to write it; "" otherwise.
func (c *claudeDisc) manifestDirHint(ctx hookCtx, s string) string {
	if !ctx.isPlugin {
		return ""
	}
	in := c.fromManifestDir(ctx, s)
	if in == "" {
		return ""
	}
	return fmt.Sprintf("; written from .claude-plugin/, it names %s, which is there: Claude Code reads a manifest's paths from the plugin's directory, so write %s", shownName(in), strconv.Quote("./"+in))
}
