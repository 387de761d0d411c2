package runner

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleSameName names enabled plugins of one name in different
// directories (guard@mk and guard@mk2, each its own guard). Claude Code
// runs the hooks of one of them and leaves out the others' (its /plugin
// says so of the one left out from 2.1.296 on); which one it keeps its
// docs do not say. vigiles runs the hooks of each: a hook of the one left
// out that blocks, or a check of it that passes, is then of a hook no
// session runs, which the audit would report as the guard it is not.
const RuleSameName = "discovery/same-name"

// maxSameNamed bounds the directories a discovery/same-name warning
// names, as maxOffNamed bounds a discovery/disabled notice's plugins.
const maxSameNamed = 10

// sameNamePlugins warns, per name, of the plugins of that name whose
// hooks the audit runs from more than one directory: those the session
// at the tree's root does not turn off (applySettings lists those and
// runs none of them). The name is the plugin's as discovery reads it
// (Hook.Plugin: its manifest's, else its marketplace entry's or its
// directory's), compared exactly.
func (s *session) sameNamePlugins() {
	sw := s.settingsOf("")
	if sw.all != "" {
		return
	}
	roots := map[string][]string{}
	for _, h := range s.hooks {
		if !h.InPlugin || h.Plugin == "" || s.pluginOffIn(sw, h) {
			continue
		}
		if !slices.Contains(roots[h.Plugin], h.PluginRoot) {
			roots[h.Plugin] = append(roots[h.Plugin], h.PluginRoot)
		}
	}
	names := make([]string, 0, len(roots))
	for n, r := range roots {
		if len(r) > 1 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		dirs := roots[n]
		sort.Strings(dirs)
		shown := make([]string, len(dirs))
		for i, d := range dirs {
			shown[i] = shownName(d)
		}
		msg := fmt.Sprintf("%d enabled plugins share the name %s (%s): Claude Code runs the hooks of one of them and leaves out the others' (its /plugin says so from 2.1.296 on), and which one it keeps its docs do not say; vigiles runs the hooks of each, so a guard of a plugin left out, which this audit sees block or a check sees pass, is one no session runs: rename all but one, or turn the others off under enabledPlugins",
			len(dirs), shownName(n), strings.Join(firstN(shown, maxSameNamed), ", "))
		s.findings = append(s.findings, report.Finding{Rule: RuleSameName, Severity: report.SeverityWarning,
			Location: report.Location{File: dirs[0]}, Title: "plugins of one name", Message: msg})
	}
}
