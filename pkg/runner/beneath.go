package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the symbolic links one lookup follows, as the kernel's
// ELOOP does.
const maxLinks = 40

// beneath looks p up inside the repository dir (dirReal: its path with
// every symlink followed) as the kernel would, one component at a time,
// but follows a symbolic link only while it stays inside: a path that
// leaves the repository, by ".." or through a link, ends the lookup with
// ErrOutsideTree before anything outside is looked at. Whether a file of
// the host exists is not the repository's to learn, so discovery looks up
// every path a repository names through beneath before it stats or reads
// it. It returns the resolved path and its Lstat info; a missing component
// is fs.ErrNotExist.
func beneath(dir, dirReal, p string) (string, fs.FileInfo, error) {
	rel, err := relTo(dir, p)
	if err != nil {
		return "", nil, err
	}
	outside := errorf(ErrOutsideTree, "%s leads outside the work tree %s", p, dir)
	cur, todo, links := dirReal, strings.Split(rel, "/"), 0
	var fi fs.FileInfo // of cur, once looked up
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if cur == dirReal {
				return "", nil, outside
			}
			cur, fi = filepath.Dir(cur), nil
			continue
		}
		next := filepath.Join(cur, name)
		nfi, err := os.Lstat(next)
		if err != nil {
			return next, nil, err
		}
		if nfi.Mode()&fs.ModeSymlink == 0 {
			cur, fi = next, nfi
			continue
		}
		if links++; links > maxLinks {
			return "", nil, fmt.Errorf("%s: too many levels of symbolic links: %w", p, fs.ErrNotExist)
		}
		t, err := os.Readlink(next)
		if err != nil {
			return next, nil, err
		}
		if filepath.IsAbs(t) {
			r, err := relTo(dirReal, filepath.Clean(t))
			if err != nil {
				return "", nil, outside
			}
			cur, fi, t = dirReal, nil, r
		}
		todo = append(strings.Split(filepath.ToSlash(t), "/"), todo...)
	}
	if fi == nil {
		var err error
		if fi, err = os.Lstat(cur); err != nil {
			return cur, nil, err
		}
	}
	return cur, fi, nil
}

// exists reports whether p is there as the repository names it: a path
// whose link leads outside counts, so that reading it yields the finding.
func (c *claudeDisc) exists(p string) bool {
	_, _, err := beneath(c.dir, c.dirReal, p)
	return err == nil || errors.Is(err, ErrOutsideTree)
}
