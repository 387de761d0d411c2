package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrOutside is a lookup by Resolve that a ".." climbs out of its root
// through no symbolic link; one that climbs out through a link is that
// link's *LinkedOutError.
var ErrOutside = errors.New(`a ".." climbs out of the root`)

// Resolve looks rel (a path relative to root) up inside root, a path with
// no symbolic link on it (a repository's or a workspace's real path), as
// the kernel would, one component at a time, but follows a symbolic link
// only while it stays inside: a relative target, or an absolute one under
// root's path, which is re-based there. What leaves root is refused before
// anything outside is looked at, so that a tree another party controls
// cannot make a check of its paths learn whether a file of the host
// exists: a link with an absolute target outside, or a ".." that climbs
// out of root after a link was followed, is a *LinkedOutError of that (the
// last) link, Within being root; a ".." that climbs out through no link
// wraps ErrOutside. A lookup that follows more than MaxLinks links wraps
// unix.ELOOP, as the kernel's would.
//
// It returns the path rel leads to, under root's path, whose existing part
// holds no link, and its Lstat info. A component that is not there ends
// the lookup with its Lstat error (fs.ErrNotExist) and its path, as the
// kernel's would, unless missingOK: a caller about to make what is missing
// (a file to write, its directories) then gets the rest of rel as text,
// joined to the last directory found and cleaned, with nil info; that text
// must stay inside root too, or the lookup fails as for a "..". A flag,
// rather than a missing tail always returned, keeps a reader's lookup the
// kernel's: a link to "gone/../../x" is not there for it, not outside.
func Resolve(root, rel string, missingOK bool) (string, fs.FileInfo, error) {
	if filepath.IsAbs(rel) {
		return "", nil, fmt.Errorf("%s is not relative to %s", rel, root)
	}
	root = filepath.Clean(root)
	cur, todo, links := root, strings.Split(filepath.ToSlash(rel), "/"), 0
	// own counts the components of rel itself still in todo: always its
	// end, since a link's target goes in front.
	own := len(todo)
	var fi fs.FileInfo      // cur's, once looked up
	var via *LinkedOutError // the last link followed: what a ".." climbs out through
	out := func() error {
		if via != nil {
			return via
		}
		return fmt.Errorf("%s: %w", rel, ErrOutside)
	}
	for len(todo) > 0 {
		name := todo[0]
		if len(todo) == own {
			own--
		}
		todo = todo[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			if cur == root {
				return "", nil, out()
			}
			cur, fi = filepath.Dir(cur), nil
			continue
		}
		next := filepath.Join(cur, name)
		nfi, err := os.Lstat(next)
		if missingOK && errors.Is(err, fs.ErrNotExist) && !slices.Contains(todo[:len(todo)-own], "..") {
			// Made there, and nothing below it exists: the rest is
			// its text, rel's own ".." taken as text (out/../x is x
			// for a caller's path). A link's ".." after a missing
			// directory is not there for the kernel, whatever its
			// text says: the lookup ends with the error below.
			rest := filepath.Join(append([]string{next}, todo...)...)
			if _, in := inside(root, rest); !in {
				return "", nil, out()
			}
			return rest, nil, nil
		}
		if err != nil {
			return next, nil, err
		}
		if nfi.Mode()&fs.ModeSymlink == 0 {
			cur, fi = next, nfi
			continue
		}
		if links++; links > MaxLinks {
			return "", nil, fmt.Errorf("%s: %w", rel, unix.ELOOP)
		}
		t, err := os.Readlink(next)
		if err != nil {
			return next, nil, err
		}
		via = &LinkedOutError{Link: next, Target: t, Within: root}
		rest := strings.Split(filepath.ToSlash(t), "/")
		if filepath.IsAbs(t) {
			var in bool
			if rest, in = rebase(root, t); !in {
				return "", nil, via
			}
			cur, fi = root, nil
		}
		todo = append(rest, todo...)
	}
	if fi == nil {
		var err error
		if fi, err = os.Lstat(cur); err != nil {
			return cur, nil, err
		}
	}
	return cur, fi, nil
}

// rebase splits the absolute link target t into the components the
// kernel walks after root's own: t must name root's components first,
// literally (root is clean and holds no link), and what follows, ".."
// included, is walked from root, one component at a time, as the kernel
// walks it. Cleaning t by its text instead would take "ROOT/lnk/.." for
// ROOT where the kernel goes to lnk's target's parent. in is false when t
// does not start with root's components (a ".." before them included:
// refused, not followed), and always for a relative root.
func rebase(root, t string) (rest []string, in bool) {
	if !filepath.IsAbs(root) {
		return nil, false // a relative root holds no absolute path
	}
	rc, tc := components(root), components(t)
	if len(tc) < len(rc) {
		return nil, false
	}
	for i, c := range rc {
		if tc[i] != c {
			return nil, false
		}
	}
	return tc[len(rc):], true
}

// components are p's path components, without "" and ".".
func components(p string) []string {
	var cs []string
	for _, c := range strings.Split(filepath.ToSlash(p), "/") {
		if c != "" && c != "." {
			cs = append(cs, c)
		}
	}
	return cs
}

// inside is p relative to dir, and whether it is under dir (or dir): by
// their text, both absolute and clean.
func inside(dir, p string) (string, bool) {
	r, err := filepath.Rel(dir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", false
	}
	return r, true
}
