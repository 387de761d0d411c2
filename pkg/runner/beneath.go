package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/vigiles/action/internal/safewrite"
)

// beneath looks p up inside the repository dir (dirReal: its path with
// every symlink followed) as the kernel would, one component at a time,
// but follows a symbolic link only while it stays inside: a path that
// leaves the repository, by ".." or through a link, ends the lookup with
// ErrOutsideTree before anything outside is looked at. Whether a file of
// the host exists is not the repository's to learn, so discovery looks up
// every path a repository names through beneath before it stats or reads
// it. It returns the resolved path and its Lstat info; a missing component
// is fs.ErrNotExist, and so is a loop of links (nothing to read there).
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
		return "", nil, fmt.Errorf("%s: too many levels of symbolic links: %w", p, fs.ErrNotExist)
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
