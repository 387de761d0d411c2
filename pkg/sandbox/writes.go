package sandbox

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// upperWrites reads an overlay upper directory (or a directory that
// started empty, such as the throwaway HOME) and returns every path the
// run created, modified or deleted, relative to the mount and prefixed.
// The cost is proportional to what was written, not to the size of the
// lower tree: only paths present in upper are looked up in lower.
func upperWrites(upper, prefix string) ([]evidence.Write, error) {
	lower := ""
	if prefix == "" {
		lower = lowerDir
	}
	return readUpper(upper, lower, prefix)
}

// readUpper is upperWrites with the lower directory explicit ("" when the
// directory started empty).
func readUpper(upper, lower, prefix string) ([]evidence.Write, error) {
	var out []evidence.Write
	var walk func(rel string, lowerExists bool) (int, error)
	// walk returns how many writes it recorded below rel.
	walk = func(rel string, lowerExists bool) (int, error) {
		ents, err := os.ReadDir(filepath.Join(upper, rel))
		if err != nil {
			return 0, err
		}
		n := 0
		for _, e := range ents {
			p := filepath.Join(rel, e.Name())
			up := filepath.Join(upper, p)
			var st unix.Stat_t
			if err := unix.Lstat(up, &st); err != nil {
				return n, err
			}
			var lst unix.Stat_t
			inLower := false
			if lowerExists && lower != "" {
				inLower = unix.Lstat(filepath.Join(lower, p), &lst) == nil
			}
			switch {
			case st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == 0 && lower != "":
				// A whiteout: the lower path was deleted.
				if inLower {
					dels, err := lowerDeletes(lower, p, prefix, lst)
					if err != nil {
						return n, err
					}
					out = append(out, dels...)
					n += len(dels)
				}
			case st.Mode&unix.S_IFMT == unix.S_IFDIR:
				opaque := isOpaque(up)
				if inLower && lst.Mode&unix.S_IFMT == unix.S_IFDIR && !opaque {
					k, err := walk(p, true)
					if err != nil {
						return n, err
					}
					n += k
					if k == 0 || st.Mode != lst.Mode || st.Uid != lst.Uid || st.Gid != lst.Gid {
						// Copied up for its own sake: chmod, chown, or an
						// entry made and removed again.
						out = append(out, evidence.Write{Path: prefix + p, Op: evidence.OpModify, Kind: "dir"})
						n++
					}
					continue
				}
				if inLower {
					// Replaced: what was there is gone.
					dels, err := lowerDeletes(lower, p, prefix, lst)
					if err != nil {
						return n, err
					}
					out = append(out, dels...)
					n += len(dels)
				}
				k, err := walk(p, false)
				if err != nil {
					return n, err
				}
				n += k
				if k == 0 || (inLower && lst.Mode&unix.S_IFMT != unix.S_IFDIR) {
					out = append(out, evidence.Write{Path: prefix + p, Op: evidence.OpCreate, Kind: "dir"})
					n++
				}
			default:
				op := evidence.OpCreate
				if inLower {
					if lst.Mode&unix.S_IFMT == unix.S_IFDIR {
						dels, err := lowerDeletes(lower, p, prefix, lst)
						if err != nil {
							return n, err
						}
						out = append(out, dels...)
						n += len(dels)
					} else {
						op = evidence.OpModify
					}
				}
				out = append(out, evidence.Write{Path: prefix + p, Op: op, Kind: kindOf(st.Mode)})
				n++
			}
		}
		return n, nil
	}
	if _, err := walk("", lower != ""); err != nil {
		return nil, fmt.Errorf("walking %s: %w", upper, err)
	}
	sortWrites(out)
	return out, nil
}

// lowerDeletes lists a lower path (and everything under a directory) as
// deleted.
func lowerDeletes(lower, rel, prefix string, st unix.Stat_t) ([]evidence.Write, error) {
	var out []evidence.Write
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		err := filepath.WalkDir(filepath.Join(lower, rel), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			r, _ := filepath.Rel(lower, path)
			if !d.IsDir() {
				out = append(out, evidence.Write{Path: prefix + r, Op: evidence.OpDelete})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			out = append(out, evidence.Write{Path: prefix + rel, Op: evidence.OpDelete})
		}
		return out, nil
	}
	return []evidence.Write{{Path: prefix + rel, Op: evidence.OpDelete}}, nil
}

func isOpaque(dir string) bool {
	for _, name := range []string{"user.overlay.opaque", "trusted.overlay.opaque"} {
		buf := make([]byte, 8)
		n, err := unix.Lgetxattr(dir, name, buf)
		if err == nil && n > 0 && (buf[0] == 'y' || buf[0] == 'x') {
			return true
		}
	}
	return false
}

func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "dir"
	case unix.S_IFLNK:
		return "symlink"
	}
	return "other"
}

func sortWrites(ws []evidence.Write) {
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].Path != ws[j].Path {
			return ws[i].Path < ws[j].Path
		}
		return ws[i].Op < ws[j].Op
	})
}

// snapshot is the fallback record where overlay cannot be mounted: the
// metadata of every path in a private copy of the work tree.
type snapshot map[string]fileMeta

type fileMeta struct {
	Mode   uint32
	Size   int64
	Mtime  unix.Timespec
	Ctime  unix.Timespec
	Ino    uint64
	Target string
}

func metaOf(path string) (fileMeta, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return fileMeta{}, err
	}
	m := fileMeta{Mode: st.Mode, Size: st.Size, Mtime: st.Mtim, Ctime: st.Ctim, Ino: st.Ino}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		m.Target, _ = os.Readlink(path)
	}
	return m, nil
}

// takeSnapshot records every path under root without following symlinks.
func takeSnapshot(root string) (snapshot, error) {
	s := snapshot{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		m, err := metaOf(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		s[rel] = m
		return nil
	})
	return s, err
}

// diff compares the tree at root now with the snapshot.
func (s snapshot) diff(root string) ([]evidence.Write, error) {
	now, err := takeSnapshot(root)
	if err != nil {
		return nil, err
	}
	var out []evidence.Write
	for p, m := range now {
		old, ok := s[p]
		switch {
		case !ok:
			out = append(out, evidence.Write{Path: p, Op: evidence.OpCreate, Kind: kindOf(m.Mode)})
		case m.Mode&unix.S_IFMT == unix.S_IFDIR && old.Mode&unix.S_IFMT == unix.S_IFDIR:
			if m.Mode != old.Mode {
				out = append(out, evidence.Write{Path: p, Op: evidence.OpModify, Kind: "dir"})
			}
		case m != old:
			out = append(out, evidence.Write{Path: p, Op: evidence.OpModify, Kind: kindOf(m.Mode)})
		}
	}
	for p, m := range s {
		if _, ok := now[p]; !ok {
			if m.Mode&unix.S_IFMT == unix.S_IFDIR && hasPrefixKey(s, p+"/") {
				continue // its contents are listed
			}
			out = append(out, evidence.Write{Path: p, Op: evidence.OpDelete})
		}
	}
	// A created directory is implied by what was created inside it.
	out = dropImpliedDirs(out)
	sortWrites(out)
	return out, nil
}

func hasPrefixKey(s snapshot, prefix string) bool {
	for k := range s {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

func dropImpliedDirs(ws []evidence.Write) []evidence.Write {
	parents := map[string]bool{}
	for _, w := range ws {
		for d := filepath.Dir(w.Path); d != "." && d != "/"; d = filepath.Dir(d) {
			parents[d] = true
		}
	}
	out := ws[:0]
	for _, w := range ws {
		if w.Kind == "dir" && w.Op == evidence.OpCreate && parents[w.Path] {
			continue
		}
		out = append(out, w)
	}
	return out
}

// copyTree copies src into dst (which must not exist) preserving modes,
// symlinks (not followed) and modification times.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, info.Mode().Perm()|0o700); err != nil {
				return err
			}
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case info.Mode().IsRegular():
			if err := copyFile(path, target, info.Mode().Perm()); err != nil {
				return err
			}
		default:
			return nil // sockets, fifos, devices are not copied
		}
		mt := info.ModTime()
		return os.Chtimes(target, mt, mt)
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
