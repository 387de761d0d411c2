package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// maxNamedDeclaring bounds the plugins and settings files a
// discovery/no-hooks warning names one by one.
const maxNamedDeclaring = 5

// declaringIn names what discovery read under the audit path p ("." for
// the whole work tree) that Claude Code loads and that declares no hook:
// the plugins, the projects' settings files that are there, and a count
// of the servers and commands Claude Code runs itself (MCP, LSP, monitors,
// settings commands, skills' shell lines), each named in its own finding.
// Empty where discovery read nothing there: the audit looked in the wrong
// place, or the tree holds nothing of Claude Code's.
func (s *session) declaringIn(p string) []string {
	in := func(rel string) bool { return p == "." || s.within(rel, p) }
	var named []string
	for _, root := range s.plugins {
		if in(root) {
			named = append(named, "plugin "+shownName(root))
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
