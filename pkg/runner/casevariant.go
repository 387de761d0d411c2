package runner

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleCaseVariant names a file or directory whose name differs only in
// case from one Claude Code reads (.Claude/settings.json,
// .claude/Settings.local.json, a plugin's Hooks/hooks.json). vigiles
// reads the tree on Linux, where the two are different names and the
// variant is read by nothing; a checkout on a case-insensitive file
// system (macOS's and Windows' by default) opens the variant when Claude
// Code asks for the name, and runs what it declares. The audit would pass
// a hook it never saw: an error.
const RuleCaseVariant = "discovery/case-variant"

// caseNames are, by the directory a name lies in, the names Claude Code
// reads there, whose case variants discovery looks for: "" is any
// directory the walk meets (a project's or a plugin's), the others the
// directories of those names.
var caseNames = map[string][]string{
	"":               {".claude", ".claude-plugin", ".mcp.json"},
	".claude":        {"settings.json", "settings.local.json", "skills", "agents", "commands"},
	".claude-plugin": {"plugin.json", "marketplace.json"},
	"hooks":          {"hooks.json"},
}

// caseVariants reports the case variants among ents, the entries of the
// directory dir of the walk, of the names Claude Code reads there, and
// those in its .claude, .claude-plugin and (a plugin's) hooks
// directories, whichever case those are spelled in.
func (c *claudeDisc) caseVariants(dir string, ents []os.DirEntry) {
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	c.variantsIn(dir, names, caseNames[""])
	plugin := false
	for _, n := range names {
		if strings.EqualFold(n, ".claude-plugin") {
			plugin = true
		}
	}
	if plugin {
		// A plugin's default hooks file's directory.
		c.variantsIn(dir, names, []string{"hooks"})
	}
	for _, n := range names {
		for _, sub := range []string{".claude", ".claude-plugin", "hooks"} {
			if !strings.EqualFold(n, sub) || sub == "hooks" && !plugin {
				continue
			}
			sents, err := os.ReadDir(filepath.Join(dir, n))
			if err != nil {
				continue
			}
			subNames := make([]string, len(sents))
			for i, e := range sents {
				subNames[i] = e.Name()
			}
			c.variantsIn(filepath.Join(dir, n), subNames, caseNames[sub])
		}
	}
}

// variantsIn reports each of names (the entries of dir) that differs from
// one of want only in case.
func (c *claudeDisc) variantsIn(dir string, names, want []string) {
	for _, n := range names {
		for _, w := range want {
			if n == w || !strings.EqualFold(n, w) {
				continue
			}
			rel, err := relTo(c.dir, filepath.Join(dir, n))
			if err != nil {
				continue
			}
			exact := path.Join(path.Dir(rel), w)
			msg := "%s differs from %s, which Claude Code reads, only in case: on a case-insensitive file system (macOS's and Windows' by default) Claude Code opens it as %s and loads what it declares, and vigiles, reading the tree as Linux does, neither reads nor runs it; rename it %s"
			args := []any{shownName(rel), shownName(exact), shownName(exact), shownName(w)}
			for _, other := range names {
				if other == w {
					msg = "%s differs from %s, which the tree has too, only in case: a checkout on a case-insensitive file system (macOS's and Windows' by default) keeps one of the two, whichever git writes last, so what Claude Code loads there may be the one vigiles did not read; keep one (%s)"
					args = []any{shownName(rel), shownName(exact), shownName(w)}
				}
			}
			c.find(RuleCaseVariant, report.SeverityError, report.Location{File: rel}, msg, args...)
		}
	}
}
