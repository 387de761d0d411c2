package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vigiles/action/internal/safewrite"
	"github.com/vigiles/action/pkg/report"
)

// beneath looks p up inside the repository dir (dirReal: its path with
// every symlink followed) as the kernel would, one component at a time,
// but follows a symbolic link only while it stays inside: a path that
// leaves the repository, by ".." or through a link, ends the lookup with
// ErrOutsideTree before anything outside is looked at. Whether a file of
// the host exists is not the repository's to learn, so discovery looks up
// every path a repository names through beneath before it stats or reads
// it. It returns the resolved path and its Lstat info; a missing component
// is fs.ErrNotExist, and so is a loop of links (nothing to read there;
// syscall.ELOOP too, to tell it apart).
// The lookup is safewrite.Resolve's, which the action's workspace checks
// share; beneath says its errors in the runner's words.
func beneath(dir, dirReal, p string) (string, fs.FileInfo, error) {
	rel, err := relTo(dir, p)
	if err != nil {
		return "", nil, err
	}
	resolved, fi, err := safewrite.Resolve(dirReal, rel, false)
	var lo *safewrite.LinkedOutError
	switch {
	case errors.As(err, &lo):
		link, _ := filepath.Rel(dirReal, lo.Link)
		return "", nil, &linkOutError{kindError{fmt.Errorf("%s leads outside the work tree %s", p, dir), ErrOutsideTree}, filepath.ToSlash(link), lo.Target}
	case errors.Is(err, safewrite.ErrOutside):
		return "", nil, errorf(ErrOutsideTree, "%s leads outside the work tree %s", p, dir)
	case errors.Is(err, syscall.ELOOP):
		return "", nil, fmt.Errorf("%s: %w: %w", p, syscall.ELOOP, fs.ErrNotExist)
	}
	return resolved, fi, err
}

// linkOutError is beneath's error for a path that a symbolic link on its
// way leads out of the repository: ErrOutsideTree, with the link (relative
// to the repository's real path, in slashes) and what it says, as
// written.
type linkOutError struct {
	kindError
	link, target string
}

// outsideMessage is the text of a discovery/outside-work-tree finding
// about what (a path the repository names, as the finding shows it; rel,
// where it is the tree's own path, relative to it) that beneath refused
// with err. Where a symbolic link on the way leads out, it names the link
// (where it is not rel itself) and its target, the tree's text quoted as
// a name is, and the fix: what the link leads to, committed in its place,
// or a relative link that stays inside. Else the path itself leaves the
// repository (a ".." or an absolute path).
func outsideMessage(what, rel string, err error) string {
	var lo *linkOutError
	if !errors.As(err, &lo) {
		return what + " is outside the repository; vigiles does not read it"
	}
	how := fmt.Sprintf("leads outside the repository through the symbolic link %s (-> %s)", shownName(lo.link), shownName(lo.target))
	if lo.link == rel {
		how = fmt.Sprintf("is a symbolic link to %s, outside the repository", shownName(lo.target))
	}
	return fmt.Sprintf("%s %s, so what Claude Code reads there is the machine's, not the repository's; vigiles does not read it: commit what the link leads to in its place, or make it a relative link that stays in the repository", what, how)
}

// exists reports whether p is there as the repository names it: a path
// whose link leads outside counts, so that reading it yields the finding.
func (c *claudeDisc) exists(p string) bool {
	_, _, err := beneath(c.dir, c.dirReal, p)
	return err == nil || errors.Is(err, ErrOutsideTree)
}

// present is exists for a declaration file or directory p where Claude
// Code would read one: where p is not there because a symbolic link on its
// way leads nowhere, that is said (deadLink); dir says that p is read as a
// directory, not a file.
// A p that cannot be looked up because a directory on its way may not be
// searched is not there to vigiles, and that directory is said
// (deniedOnWay).
func (c *claudeDisc) present(p string, dir bool) bool {
	_, _, err := beneath(c.dir, c.dirReal, p)
	if err == nil || errors.Is(err, ErrOutsideTree) {
		return true
	}
	if c.deniedOnWay(err) {
		return false
	}
	c.deadLink(p, err, dir)
	return false
}

// deadLink says, where the path p (a declaration file, or a directory of
// them where dir), which beneath did not find with err, is not there
// because a symbolic link on its way, p itself or a directory above it,
// leads nowhere (what it names, or a directory on the way to that, is not
// in the repository, or its links go round in a loop), a
// discovery/missing-file warning at the link: it names the link and what
// it says (shownName: the tree's text), that Claude Code loads nothing
// from it, and the fix. Claude Code reads nothing there and runs nothing
// of it, so it is no error (an agent whose file is not committed is not
// loaded at all). Each link is said once, however many paths lead through
// it. It reports whether p is so.
func (c *claudeDisc) deadLink(p string, err error, dir bool) bool {
	rel, rerr := relTo(c.dir, p)
	if rerr != nil || rel == "." || c.plainlyMissing(rel, err) {
		return false
	}
	link, real, target, loop, ok := c.linkToNothing(rel)
	if !ok {
		return false
	}
	if c.deadLinks == nil {
		c.deadLinks = map[string]bool{}
	}
	if c.deadLinks[real] {
		return true
	}
	c.deadLinks[real] = true
	why, what := "nothing is there in the repository", "file"
	if loop {
		why = "its symbolic links go round in a loop"
	}
	if dir || link != rel {
		what = "directory"
	}
	if sub := c.inSubmodule(link, target); sub != "" && !loop {
		c.find(RuleMissingFile, report.SeverityWarning, report.Location{File: link},
			"%s is a symbolic link to %s, into the git submodule %s, which this checkout has not checked out: Claude Code clones a marketplace with its submodules, so what the link leads to loads there, and vigiles has not read it; check the submodules out before vigiles runs (git submodule update --init --recursive; actions/checkout's submodules: recursive) so that it reads them",
			shownName(link), shownName(target), shownName(sub))
		return true
	}
	c.find(RuleMissingFile, report.SeverityWarning, report.Location{File: link},
		"%s is a symbolic link to %s, which leads nowhere: %s, so Claude Code loads nothing from it; commit the %s it should lead to, or remove the link",
		shownName(link), shownName(target), why, what)
	return true
}

// inSubmodule is the path of the git submodule (as the work tree's
// .gitmodules names it) that target, what the symbolic link link of the
// tree says, leads into, "" where it leads into none. A relative target
// is read from the link's directory; an absolute one is no submodule's.
func (c *claudeDisc) inSubmodule(link, target string) string {
	if path.IsAbs(target) {
		return ""
	}
	return c.submoduleOf(path.Join(path.Dir(link), filepath.ToSlash(target)))
}

// submoduleOf is the submodule path rel (relative to the work tree) is,
// or lies below, "" for none: each of rel's directories is looked up
// once, whatever the number of submodules.
func (c *claudeDisc) submoduleOf(rel string) string {
	subs := c.submodules()
	if len(subs) == 0 {
		return ""
	}
	for d := path.Clean(rel); d != "." && d != "/" && d != ".."; d = path.Dir(d) {
		if subs[d] {
			return d
		}
	}
	return ""
}

// emptySubmodule is the path of the git submodule (as .gitmodules names
// it) that the directory dir is, or lies in, where that submodule's
// directory holds nothing, or is not there: not checked out; ""
// otherwise.
func (c *claudeDisc) emptySubmodule(dir string) string {
	rel, err := relTo(c.dir, dir)
	if err != nil {
		return ""
	}
	sub := c.submoduleOf(rel)
	if sub == "" {
		return ""
	}
	real, fi, err := beneath(c.dir, c.dirReal, filepath.Join(c.dir, filepath.FromSlash(sub)))
	if errors.Is(err, fs.ErrNotExist) {
		return sub
	}
	if err != nil || !fi.IsDir() {
		return ""
	}
	if ents, err := os.ReadDir(real); err == nil && len(ents) == 0 {
		return sub
	}
	return ""
}

// maxSubmodules bounds the submodule paths read from .gitmodules.
const maxSubmodules = 4096

// submodules are the paths the work tree's .gitmodules gives its
// submodules, as a set (read once, at most maxSubmodules; none where
// there is no such file, or one that a link leads out of the tree).
func (c *claudeDisc) submodules() map[string]bool {
	if c.gitmodules != nil {
		return c.gitmodules
	}
	c.gitmodules = map[string]bool{}
	p := filepath.Join(c.dir, ".gitmodules")
	if _, fi, err := beneath(c.dir, c.dirReal, p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDeclFile {
		return c.gitmodules
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return c.gitmodules
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.TrimSpace(k) != "path" {
			continue
		}
		if v = path.Clean(strings.Trim(strings.TrimSpace(v), `"`)); v != "." && !leavesDir(v) && !path.IsAbs(v) {
			c.gitmodules[v] = true
		}
		if len(c.gitmodules) == maxSubmodules {
			break
		}
	}
	return c.gitmodules
}

// plainlyMissing says whether beneath's err, looking up the tree path
// rel, is that a directory of rel's own, as written, lacks the next of
// its components: the lookup failed at dirReal/<the first components of
// rel>, a path that holds no link (a link's target is looked up at its
// real path, never by the link's name), so no link is why rel is not
// there. The common case of a file not there, said so at the cost of no
// more lookups.
func (c *claudeDisc) plainlyMissing(rel string, err error) bool {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	r, rerr := filepath.Rel(c.dirReal, pe.Path)
	r = filepath.ToSlash(r)
	return rerr == nil && r != "." && !leavesDir(r) && (r == rel || strings.HasPrefix(rel, r+"/"))
}

// linkToNothing finds the symbolic link that leaves the tree path rel not
// there (deadLink): rel itself, or the link of a directory above it, the
// first on the way that leads nowhere. It returns the link's path as rel
// reaches it, its real path, what it says and whether it is part of a
// loop; ok is false where rel is missing for any other reason (a file not
// there, a permission denied, a link out of the repository).
func (c *claudeDisc) linkToNothing(rel string) (link, real, target string, loop, ok bool) {
	parent := c.dirReal
	if d := path.Dir(rel); d != "." {
		r, fi, err := beneath(c.dir, c.dirReal, filepath.Join(c.dir, filepath.FromSlash(d)))
		switch {
		case err == nil && fi.IsDir():
			parent = r
		case err != nil && leadsNowhere(err):
			return c.linkToNothing(d)
		default:
			return "", "", "", false, false
		}
	}
	real = filepath.Join(parent, path.Base(rel))
	if fi, err := os.Lstat(real); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return "", "", "", false, false
	}
	_, _, err := beneath(c.dir, c.dirReal, filepath.Join(c.dir, filepath.FromSlash(rel)))
	if err == nil || !leadsNowhere(err) {
		return "", "", "", false, false
	}
	target, rerr := os.Readlink(real)
	if rerr != nil {
		return "", "", "", false, false
	}
	return rel, real, target, errors.Is(err, syscall.ELOOP), true
}

// leadsNowhere says whether beneath's err is that nothing is at the path:
// a component missing, or no directory where the path goes on below it,
// or a loop of links. A link out of the repository, or a permission
// denied, is not.
func leadsNowhere(err error) bool {
	return !errors.Is(err, ErrOutsideTree) && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR))
}

// treeErr is the text of err, an error of looking up or reading a path of
// the work tree, with the tree's paths relative to it: where the tree is
// on the host is no finding's business ("lstat /tmp/x/agents: no such
// file or directory" is "agents: no such file or directory"). A
// *fs.PathError of rel itself is its cause alone.
func (c *claudeDisc) treeErr(rel string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		for _, base := range []string{c.dirReal, c.dir} {
			if r, rerr := relTo(base, pe.Path); rerr == nil {
				if r == rel {
					return pe.Err.Error()
				}
				return shownName(r) + ": " + pe.Err.Error()
			}
		}
		return pe.Err.Error()
	}
	msg := err.Error()
	for _, base := range []string{c.dirReal, c.dir} {
		msg = strings.ReplaceAll(msg, base+string(filepath.Separator), "")
	}
	return msg
}

// deniedOnWay says, where beneath's err is that a directory on the way
// may not be searched, that the directory cannot be read (unreadDir),
// and reports whether it is so.
func (c *claudeDisc) deniedOnWay(err error) bool {
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) {
		return false
	}
	c.unreadDir(filepath.Dir(pe.Path), pe)
	return true
}

// unreadDir says of the directory p (below the tree by its path or its
// real path), which could not be read or searched (err: no permission,
// for the user vigiles runs as, or a path longer than the system opens),
// that none of what Claude Code may load
// from it is read: a discovery/missing-file error, once a directory, as
// of a declaration file that cannot be read. Nothing passes unread.
func (c *claudeDisc) unreadDir(p string, err error) {
	rel, rerr := relTo(c.dirReal, p)
	if rerr != nil {
		if rel, rerr = relTo(c.dir, p); rerr != nil {
			return
		}
	}
	if c.unreadDirs == nil {
		c.unreadDirs = map[string]bool{}
	}
	if c.unreadDirs[rel] {
		return
	}
	c.unreadDirs[rel] = true
	why := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	fix := "Claude Code may load them"
	if errors.Is(err, fs.ErrPermission) {
		fix = "a user who may read it loads them: make it readable to the user vigiles runs as"
	}
	c.find(RuleMissingFile, report.SeverityError, report.Location{File: rel},
		"cannot read the directory %s: %s, so nothing Claude Code may load from it (settings, plugins, marketplaces, hooks files, skills, agents, commands) is read; %s", shownName(rel), why, fix)
}

// leavesDir says whether rel, a clean path relative to a directory (as
// filepath.Rel and path.Clean give it), leads out of it: its first
// element is "..", as Claude Code also tests a plugin's paths (rel ===
// ".." or one that starts with "../", in its plugin validator). A name
// that merely begins with two dots ("..x.ts") is the directory's own.
func leavesDir(rel string) bool {
	return rel == ".." || strings.HasPrefix(rel, "../")
}
