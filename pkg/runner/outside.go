package runner

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vigiles/action/pkg/report"
)

// RuleOutsidePlugin is the warning that a project's settings turn on a
// plugin the repository does not hold: Claude Code installs it from
// outside, and its hooks run in the project's sessions unaudited.
const RuleOutsidePlugin = "discovery/outside-plugin"

// claudeMarkets are the marketplaces Claude Code adds by itself, by name,
// with their sources: a marketplace of that name in the repository is not
// the one a settings key of that name installs from.
var claudeMarkets = map[string]string{
	"claude-plugins-official": `{"repo":"anthropics/claude-plugins-official","source":"github"}`,
}

// outsidePlugins warns, for every "name@marketplace" a project's
// settings set true under "enabledPlugins" that no marketplace of the
// tree lists with a local source (s.markets), that Claude Code runs that
// plugin from outside the repository and vigiles did not audit it. The
// work tree's settings are read, and those of every package whose .claude
// discovery read (s.projects). A marketplace that extraKnownMarketplaces
// points at a source outside the repository is outside, whatever
// marketplace of that name the repository holds: Claude Code installs
// from the source the settings name.
func (s *session) outsidePlugins() {
	projs := []string{""}
	for _, p := range s.projects {
		if p != "." && p != "" {
			projs = append(projs, p)
		}
	}
	sort.Strings(projs)
	for _, proj := range projs {
		// settings.local.json over settings.json, key by key, as
		// switchesOff reads them: the last file that sets a key decides.
		type said struct {
			on   bool
			file string
			at   jpos
		}
		keys := map[string]said{}
		sources := map[string]string{}
		remote := map[string]bool{} // by marketplace: a source that is not a local directory
		for name, src := range claudeMarkets {
			sources[name], remote[name] = src, true
		}
		for _, f := range settingsFiles(s.dir, proj) {
			root, err := parseJSON(f.data)
			if err != nil || root.Kind != jsonObject {
				continue
			}
			if ep := root.get("enabledPlugins"); ep != nil && ep.Kind == jsonObject {
				for _, m := range ep.Members {
					if m.Value.Kind == jsonBool && strings.Contains(m.Key, "@") {
						keys[m.Key] = said{on: m.Value.Bool, file: f.name, at: m.KeyPos}
					}
				}
			}
			if km := root.get("extraKnownMarketplaces"); km != nil && km.Kind == jsonObject {
				for _, m := range km.Members {
					if _, own := claudeMarkets[m.Key]; own {
						continue // Claude Code's own, whatever the settings say
					}
					if src := m.Value.get("source"); src != nil {
						if b, err := json.Marshal(src.toValue()); err == nil {
							sources[m.Key] = string(b)
						}
						remote[m.Key] = !s.auditedMarket(m.Key, proj, src)
					}
				}
			}
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			v := keys[k]
			name, market, _ := strings.Cut(k, "@")
			inTree := contains(s.markets[name], market)
			if !v.on || !s.inPart(v.file) || inTree && !remote[market] {
				continue
			}
			from := "a marketplace the user added"
			if src, ok := sources[market]; ok {
				from = "the marketplace " + shownName(market) + " that extraKnownMarketplaces names (source " + shownName(clip(src, 200)) + ")"
				if src == claudeMarkets[market] {
					from = "the marketplace " + shownName(market) + " that Claude Code adds by itself (source " + src + ")"
				}
			}
			if inTree {
				from += ", not from the repository's marketplace of that name, which vigiles audited"
			}
			s.findings = append(s.findings, report.Finding{Rule: RuleOutsidePlugin, Severity: report.SeverityWarning,
				Location: report.Location{File: v.file, Line: v.at.Line, Column: v.at.Col}, Title: "plugin from outside the repository",
				Message: fmt.Sprintf("%s turns on the plugin %s, which Claude Code installs from %s, outside the repository, and whose hooks it runs in every session here: vigiles did not run or audit them; vendor it in the repository with a marketplace entry that points at it, to audit it",
					shownName(v.file), shownName(k), from)})
		}
	}
}

// auditedMarket says whether the source src that extraKnownMarketplaces
// (in the settings of the project proj) gives the marketplace market is
// one vigiles read: a local directory, inside the repository (a relative
// path from the project's directory), where discovery read a marketplace
// of that name. A remote source, or a directory elsewhere, is not, though
// the repository hold a marketplace of that name (a decoy).
func (s *session) auditedMarket(market, proj string, src *jnode) bool {
	kind, path := src.get("source"), src.get("path")
	if kind == nil || kind.Kind != jsonString || kind.Str != "directory" || path == nil || path.Kind != jsonString {
		return false
	}
	p := path.Str
	if strings.HasPrefix(p, "~") {
		return false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.dir, filepath.FromSlash(proj), p)
	}
	a, fi, err := beneath(s.dir, s.dir, filepath.Clean(p))
	if err != nil || !fi.IsDir() {
		return false
	}
	rel, err := relTo(s.dir, a)
	return err == nil && contains(s.marketDirs[market], rel)
}
