package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/vigiles/action/internal/textcut"
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
		remote := map[string]bool{}          // by marketplace: a source that is not a local directory
		nowhere := map[string]unreadSource{} // by marketplace: a local source in the tree that vigiles did not read as one
		for name, src := range claudeMarkets {
			sources[name], remote[name] = src, true
		}
		for _, f := range s.settingsFiles(proj) {
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
			// additionalMarketplaces is Claude Code's alias of the key
			// (v2.1.232 and later): read as it, the canonical spelling
			// winning where a file sets both.
			km := root.get("extraKnownMarketplaces")
			if km == nil || km.Kind != jsonObject {
				km = root.get("additionalMarketplaces")
			}
			if km != nil && km.Kind == jsonObject {
				for _, m := range km.Members {
					if _, own := claudeMarkets[m.Key]; own {
						continue // Claude Code's own, whatever the settings say
					}
					if src := m.Value.get("source"); src != nil {
						if b, err := json.Marshal(src.toValue()); err == nil {
							sources[m.Key] = string(b)
						}
						remote[m.Key] = !s.auditedMarket(m.Key, proj, src)
						delete(nowhere, m.Key)
						if w, ok := s.marketNowhere(m.Key, proj, src); ok {
							nowhere[m.Key] = w
						}
					}
				}
			}
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		// One warning per settings file, marketplace and cause, at the
		// first key's line, naming every plugin it turns on: a file that
		// turns on forty plugins of one marketplace is one finding, not
		// forty alike.
		type group struct {
			file, market string
			inTree       bool
			keys         []string
			at           jpos
		}
		groups := map[string]*group{}
		var order []*group
		for _, k := range names {
			v := keys[k]
			name, market, _ := strings.Cut(k, "@")
			inTree := contains(s.markets[name], market)
			if !v.on || !s.inPart(v.file) || inTree && !remote[market] {
				continue
			}
			if _, ok := nowhere[market]; ok {
				inTree = false // the cause is the path, whatever of that name the tree holds
			}
			id := fmt.Sprintf("%s\x00%s\x00%v", v.file, market, inTree)
			g := groups[id]
			if g == nil {
				g = &group{file: v.file, market: market, inTree: inTree, at: v.at}
				groups[id] = g
				order = append(order, g)
			}
			g.keys = append(g.keys, k)
			if before(v.at, g.at) {
				g.at = v.at
			}
		}
		sort.SliceStable(order, func(a, b int) bool {
			if order[a].file != order[b].file {
				return order[a].file < order[b].file
			}
			return before(order[a].at, order[b].at)
		})
		for _, g := range order {
			sort.SliceStable(g.keys, func(a, b int) bool { return before(keys[g.keys[a]].at, keys[g.keys[b]].at) })
			s.outsideFinding(g.file, g.market, g.keys, g.at, g.inTree, sources, nowhere)
		}
	}
}

// maxOutsideNamed bounds the plugins one discovery/outside-plugin warning
// names; the rest it counts.
const maxOutsideNamed = 10

// maxOutsideName bounds, in characters, each name a discovery/outside-plugin
// warning quotes of the settings' (a plugin, its marketplace, a path, a
// file): a longer one is cut in its middle (textcut.Middle), so that the
// message, which quotes a marketplace's name up to three times, keeps
// what it is about and what to do within the 4,096 characters the
// annotations, the check run and SARIF show of a message, which they cut
// in its middle. Room for a name of a few hundred bytes whole: hostile
// text is shown, inert, as it is (TestRedteam36NewFindingsOfHostileTextAreInert).
const maxOutsideName = 400

// shownOutside is a name as a discovery/outside-plugin warning shows it:
// cut to maxOutsideName, then shownName. One within it is shown as it is,
// bytes that are no UTF-8 quoted by shownName, not replaced by the cut.
func shownOutside(s string) string {
	if utf8.RuneCountInString(s) > maxOutsideName {
		s = textcut.Middle(s, maxOutsideName)
	}
	return shownName(s)
}

// before says whether the position a comes before b in its file.
func before(a, b jpos) bool {
	return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
}

// outsideFinding is the discovery/outside-plugin warning that the
// settings file turns on the plugins ks (name@market, at least one) of
// the marketplace market, at the first one's key (at): from outside, or
// (inTree) from a source other than the repository's audited marketplace
// of that name, or from a path that holds no marketplace (nowhere).
func (s *session) outsideFinding(file, market string, ks []string, at jpos, inTree bool, sources map[string]string, nowhere map[string]unreadSource) {
	what, them, it := "the plugin "+shownOutside(ks[0]), "them", "it"
	var pnames []string
	for _, k := range ks {
		name, _, _ := strings.Cut(k, "@")
		pnames = append(pnames, name)
	}
	noPlugin := "no plugin " + shownOutside(pnames[0])
	if len(ks) > 1 {
		shown := make([]string, 0, maxOutsideNamed)
		for _, k := range ks[:min(len(ks), maxOutsideNamed)] {
			shown = append(shown, shownOutside(k))
		}
		list := strings.Join(shown, ", ")
		if more := len(ks) - len(shown); more > 0 {
			list += fmt.Sprintf(" and %d more", more)
		}
		what, it = fmt.Sprintf("%d plugins (%s)", len(ks), list), "them"
		noPlugin = "none of them"
	}
	from := "a marketplace the user added"
	if src, ok := sources[market]; ok {
		from = "the marketplace " + shownOutside(market) + " that extraKnownMarketplaces names (source " + shownName(clip(src, 200)) + ")"
		if src == claudeMarkets[market] {
			from = "the marketplace " + shownOutside(market) + " that Claude Code adds by itself (source " + src + ")"
		}
	}
	msg := fmt.Sprintf("%s turns on %s, which Claude Code installs from %s, outside the repository, and whose hooks it runs in every session here: vigiles did not run or audit %s; vendor %s in the repository with a marketplace entry that points at %s%s, to audit %s",
		shownOutside(file), what, from, them, it, it, vendorHint(market), it)
	if inTree {
		// The repository holds a marketplace of that name, audited: the
		// source may well be this repository, which only a checkout's
		// origin remote tells.
		msg = fmt.Sprintf("%s turns on %s, which Claude Code installs from %s, outside the repository, not from the repository's marketplace of that name, which vigiles audited: the hooks Claude Code runs in every session here are the source's, which vigiles did not run or audit; where that source is this repository, audit a git checkout whose origin remote names it (vigiles then reads the source as the audited marketplace), else point the source at the repository's own directory",
			shownOutside(file), what, from)
	}
	if u, ok := nowhere[market]; ok {
		// The source names a place in the repository that holds no
		// marketplace, or a file whose root leaves it: Claude Code adds
		// none from the former, so nothing of it runs, whatever the
		// repository holds; vigiles read neither.
		literal, audited := "", ""
		if strings.Contains(u.path, "${") {
			literal = "; Claude Code reads the path as written, expanding no ${VAR} in it"
		}
		for _, n := range pnames {
			if contains(s.markets[n], market) {
				audited = "; vigiles audited the repository's marketplace of that name, which these settings do not install"
				break
			}
		}
		switch u.cause {
		case noMarketFile:
			msg = fmt.Sprintf("%s turns on %s from the marketplace %s, which extraKnownMarketplaces names by the file path %s, where the repository holds no marketplace (no file there%s): Claude Code adds no marketplace from it, so it installs %s from it and runs none of its hooks%s; point the path at the marketplace file, relative to the project's directory",
				shownOutside(file), what, shownOutside(market), shownOutside(u.path), literal, noPlugin, audited)
		case fileRootOutside:
			msg = fmt.Sprintf("%s turns on %s from the marketplace %s, which extraKnownMarketplaces names by the file path %s: Claude Code reads that file and takes the directory two levels above it as the marketplace's root, where its plugins' relative sources start, and that directory is outside the repository, so vigiles did not read the file, and ran and audited none of its plugins' hooks%s; keep the file at <root>/.claude-plugin/marketplace.json, where <root> is the directory of the repository that its plugins' relative sources start from, and point the path at it",
				shownOutside(file), what, shownOutside(market), shownOutside(u.path), audited)
		case notRead:
			why := "it is not a JSON object or gives no \"name\""
			if len(u.others) > 0 {
				shown := make([]string, 0, len(u.others))
				for _, o := range u.others {
					shown = append(shown, shownOutside(o))
				}
				why = "it names the marketplace " + strings.Join(shown, ", ")
			}
			msg = fmt.Sprintf("%s turns on %s from the marketplace %s, which extraKnownMarketplaces names by the path %s, whose marketplace file %s vigiles did not read as a marketplace of that name (%s), so it ran and audited none of its plugins' hooks%s; give the file the \"name\" %s, or point the path at the marketplace of that name",
				shownOutside(file), what, shownOutside(market), shownOutside(u.path), shownOutside(u.file), why, audited, shownOutside(market))
		default:
			msg = fmt.Sprintf("%s turns on %s from the marketplace %s, which extraKnownMarketplaces names by the path %s, where the repository holds no marketplace (no .claude-plugin/marketplace.json there%s): Claude Code adds no marketplace from it, so it installs %s from it and runs none of its hooks%s; point the path at the directory that holds .claude-plugin/marketplace.json, relative to the project's directory (\"./\" for its root)",
				shownOutside(file), what, shownOutside(market), shownOutside(u.path), literal, noPlugin, audited)
		}
	}
	s.findings = append(s.findings, report.Finding{Rule: RuleOutsidePlugin, Severity: report.SeverityWarning,
		Location: report.Location{File: file, Line: at.Line, Column: at.Col}, Title: "plugin from outside the repository",
		Message: msg})
}

// auditedMarket says whether the source src that extraKnownMarketplaces
// (in the settings of the project proj) gives the marketplace market is
// one vigiles read: a local source (localMarketRoot) inside the
// repository (a relative path from the project's directory), whose
// marketplace file discovery read as a marketplace of that name, which
// it reads wherever the settings put it, in a dot-directory too, and
// whatever a "file" source's file is named (marketsNamed). A remote
// source, or a directory elsewhere, is not, though the repository hold a
// marketplace of that name (a decoy).
//
// A GitHub source that names the repository the work tree is a checkout
// of (its origin remote) is the repository's own marketplace too, where
// discovery read one of that name at the work tree's root: Claude Code
// installs it from the repository's default branch, which the audits of
// that branch audit.
func (s *session) auditedMarket(market, proj string, src *jnode) bool {
	kind := src.get("source")
	if kind != nil && kind.Kind == jsonString && (kind.Str == "github" || kind.Str == "git") {
		where := src.get("repo")
		if kind.Str == "git" {
			where = src.get("url")
		}
		self := s.selfRepo()
		return where != nil && where.Kind == jsonString && self != "" && githubRepo(where.Str) == self && contains(s.marketDirs[market], ".")
	}
	root, file, ok := localMarketRoot(src, filepath.Join(s.dir, filepath.FromSlash(proj)))
	if !ok {
		return false
	}
	rel, ok := s.marketFileRel(root, file)
	return ok && contains(s.marketFiles[market], rel)
}

// marketFileRel is the marketplace file file of the root root as
// discovery names it (relative to the tree, reached through the root as
// it resolves: marketsNamed), where the root is a directory of the tree.
func (s *session) marketFileRel(root, file string) (string, bool) {
	a, fi, err := beneath(s.dir, s.dir, root)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	fileRel, err := filepath.Rel(root, file)
	if err != nil || leavesDir(fileRel) {
		return "", false
	}
	rel, err := relTo(s.dir, filepath.Join(a, fileRel))
	return rel, err == nil
}

// unreadSource is a local source of an extraKnownMarketplaces entry
// inside the repository that vigiles did not read as a marketplace
// (marketNowhere): its path as written, and why.
type unreadSource struct {
	path  string
	cause unreadCause
	// file and others, for notRead: the marketplace file, and the
	// names of the marketplaces discovery read from it.
	file   string
	others []string
}

// unreadCause is why vigiles did not read a local marketplace source
// inside the repository.
type unreadCause int

const (
	// noMarketDir: a "directory" source names a place that holds no
	// .claude-plugin/marketplace.json; Claude Code adds nothing from it.
	noMarketDir unreadCause = iota
	// noMarketFile: a "file" source names a file the repository does
	// not hold; Claude Code adds nothing from it.
	noMarketFile
	// fileRootOutside: a "file" source names a file of the repository
	// that lies less than two directories below it, so that the
	// marketplace root Claude Code takes (two directories up) is outside
	// the repository, and its plugins' relative sources with it.
	fileRootOutside
	// notRead: the source's marketplace file is in the repository, and
	// discovery read no marketplace of the entry's name from it (the file
	// does not parse, gives no "name", or gives another).
	notRead
)

// marketNowhere says what of the local source src of an
// extraKnownMarketplaces entry (in the settings of the project proj)
// inside the repository vigiles did not read, and why: a directory that
// is not there (one through ${CLAUDE_PROJECT_DIR}, which Claude Code does
// not expand in a marketplace source's path), or one with no
// .claude-plugin/marketplace.json (the .claude-plugin directory itself);
// a "file" source's file that is not there; or a file whose marketplace
// root, two directories above it, is outside the repository. Claude Code
// adds no marketplace from the first two, so it installs nothing from
// them. Last, a marketplace file that is there, from which discovery read
// no marketplace of the entry's name market. A path that leaves the
// repository is not looked at (what lies there is the machine's): ok is
// false for it.
func (s *session) marketNowhere(market, proj string, src *jnode) (unreadSource, bool) {
	root, file, ok := localMarketRoot(src, filepath.Join(s.dir, filepath.FromSlash(proj)))
	if !ok {
		return unreadSource{}, false
	}
	w := src.get("path").Str
	if src.get("source").Str == "file" {
		_, fi, err := beneath(s.dir, s.dir, file)
		switch {
		case errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular():
			return unreadSource{path: w, cause: noMarketFile}, true
		case err != nil:
			return unreadSource{}, false
		}
		if _, rerr := relTo(s.dir, root); rerr != nil {
			return unreadSource{path: w, cause: fileRootOutside}, true
		}
		return s.marketNotRead(market, w, root, file)
	}
	_, fi, err := beneath(s.dir, s.dir, root)
	if errors.Is(err, fs.ErrNotExist) {
		return unreadSource{path: w, cause: noMarketDir}, true
	}
	if err != nil || !fi.IsDir() {
		return unreadSource{}, false
	}
	_, fi, err = beneath(s.dir, s.dir, filepath.Join(root, ".claude-plugin", "marketplace.json"))
	if errors.Is(err, fs.ErrNotExist) || err == nil && !fi.Mode().IsRegular() {
		return unreadSource{path: w, cause: noMarketDir}, true
	}
	return s.marketNotRead(market, w, root, file)
}

// marketNotRead says, of the marketplace file file (of the root root)
// that a local source, written w, names and the repository holds, where
// discovery read no marketplace of the name market from it: notRead,
// with the names it did read from it.
func (s *session) marketNotRead(market, w, root, file string) (unreadSource, bool) {
	rel, ok := s.marketFileRel(root, file)
	if !ok || contains(s.marketFiles[market], rel) {
		return unreadSource{}, false
	}
	var others []string
	for name, files := range s.marketFiles {
		if contains(files, rel) {
			others = append(others, name)
		}
	}
	sort.Strings(others)
	return unreadSource{path: w, cause: notRead, file: rel, others: others}, true
}

// localMarketRoot is the root and the file of the marketplace that the
// source src of an extraKnownMarketplaces entry names by a local path,
// resolved as Claude Code resolves a relative one, from projDir (the
// directory of the project whose settings name it): a "directory"
// source's path is the root, its .claude-plugin/marketplace.json the
// file; a "file" source's path is the file, whatever its name, and the
// root the directory two levels above it, where Claude Code resolves its
// plugins' relative sources from (marketplace-reference.md, "Fields by
// type"): <root>/.claude-plugin/marketplace.json's root is <root>, and
// marketplaces/team.json's the directory that holds marketplaces. ok is
// false for any other source and a path in the home directory (~);
// beneath says whether what it returns is inside the work tree.
func localMarketRoot(src *jnode, projDir string) (root, file string, ok bool) {
	kind, path := src.get("source"), src.get("path")
	if kind == nil || kind.Kind != jsonString || path == nil || path.Kind != jsonString || path.Str == "" || strings.HasPrefix(path.Str, "~") {
		return "", "", false
	}
	p := resolvePath(projDir, filepath.FromSlash(path.Str))
	switch kind.Str {
	case "directory":
		return p, filepath.Join(p, claudeMarketplace), true
	case "file":
		return filepath.Dir(filepath.Dir(p)), p, true
	}
	return "", "", false
}

// selfRepo is the GitHub repository ("owner/name", lower case) the work
// tree is a checkout of, by the origin remote of its git config; "" where
// it has none, or it is not read (a .git that leads outside the tree).
func (s *session) selfRepo() string {
	if s.self == nil {
		self := repoOf(s.dir)
		s.self = &self
	}
	return *s.self
}

// repoOf is selfRepo of the work tree dir, read anew.
func repoOf(dir string) string {
	gd := filepath.Join(dir, ".git")
	if fi, err := os.Lstat(gd); err == nil && fi.Mode().IsRegular() {
		b, err := readSmall(gd, 4096)
		t, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if err != nil || !ok || filepath.IsAbs(strings.TrimSpace(t)) {
			return ""
		}
		gd = filepath.Join(dir, strings.TrimSpace(t))
	}
	a, fi, err := beneath(dir, dir, filepath.Join(gd, "config"))
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	b, err := readSmall(a, 1<<20)
	if err != nil {
		return ""
	}
	origin := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			origin = strings.EqualFold(strings.ReplaceAll(line, " ", ""), `[remote"origin"]`)
			continue
		}
		if k, v, ok := strings.Cut(line, "="); origin && ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			return githubRepo(strings.Trim(strings.TrimSpace(v), `"`))
		}
	}
	return ""
}

// githubRepo is "owner/name" (lower case) of a GitHub repository named as
// "owner/name", by an https, ssh or scp-like URL of github.com; "" for
// anything else.
func githubRepo(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/"), ".git")
	for _, p := range []string{"https://github.com/", "http://github.com/", "ssh://git@github.com/", "git@github.com:", "git://github.com/"} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = s[len(p):]
			break
		}
	}
	if strings.Contains(s, "://") || strings.Contains(s, "@") {
		return ""
	}
	owner, name, ok := strings.Cut(s, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return ""
	}
	return strings.ToLower(owner + "/" + name)
}

// vendorHint is what the advice to vendor a plugin adds for a marketplace
// Claude Code adds by itself: a vendored copy needs a marketplace of
// another name, since that one's is Claude Code's.
func vendorHint(market string) string {
	if _, own := claudeMarkets[market]; own {
		return ", in a marketplace of another name than " + market + " (Claude Code's own)"
	}
	return ""
}
