package runner

import (
	"errors"
	"fmt"
	"io/fs"
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
	case errors.As(err, &lo) || errors.Is(err, safewrite.ErrOutside):
		return "", nil, errorf(ErrOutsideTree, "%s leads outside the work tree %s", p, dir)
	case errors.Is(err, syscall.ELOOP):
		return "", nil, fmt.Errorf("%s: too many levels of symbolic links: %w", p, fs.ErrNotExist)
	}
	return resolved, fi, err
}

// exists reports whether p is there as the repository names it: a path
// whose link leads outside counts, so that reading it yields the finding.
func (c *claudeDisc) exists(p string) bool {
	_, _, err := beneath(c.dir, c.dirReal, p)
	return err == nil || errors.Is(err, ErrOutsideTree)
}
