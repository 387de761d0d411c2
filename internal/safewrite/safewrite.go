package safewrite

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// MaxLinks bounds the symbolic links one OpenDir or Resolve follows, as
// the kernel's ELOOP does.
const MaxLinks = 40

// maxMkdirs bounds the directories one OpenDirWithin makes (a directory
// removed as soon as it is made is made again, so many times at most).
const maxMkdirs = 1024

// LinkedOutError is a symbolic link on the way to the directory OpenDir
// opens that leads out of the directory it may be followed within.
type LinkedOutError struct {
	Link   string // the link, as reached (the path of a directory held, and its name)
	Target string // what it says
	Within string // the directory that holds the first link on the way
}

func (e *LinkedOutError) Error() string {
	return fmt.Sprintf("the symbolic link %s (-> %s) leads out of %s, where it was found; it is not followed", e.Link, e.Target, e.Within)
}

// OpenDir opens the directory dir (an absolute path) and returns it held,
// for Replace; the *os.File is an O_PATH descriptor named dir.
//
// It is looked up one component at a time from "/", each opened relative
// to the one before with O_NOFOLLOW, so that no symbolic link is followed
// implicitly. The first link met is followed only within the directory
// that holds it (as an os.Root of that directory would, a relative target,
// or an absolute one under that directory's path, which is its real path:
// it was reached through no link), and so is every link after it: a link
// that leads out of that directory, by ".." or an absolute target, is a
// *LinkedOutError, found before anything outside is looked at. A path
// with no link on it is opened as it is. A caller that checked the path
// before (that its links stay inside a repository whose own path holds
// none) is thus not undone by a link put in place since: the first link
// on the way is then inside the repository, and may not lead out of the
// directory that holds it. A missing directory is fs.ErrNotExist.
func OpenDir(dir string) (*os.File, error) {
	return openDir("", dir)
}

// OpenDirWithin is OpenDir for a directory dir inside within, an absolute
// path with no symbolic link on it (a repository's real path): every link
// on the way from within to dir is followed only while it stays inside
// within (a relative target, or an absolute one under within's path), as
// if within held the first; and every missing directory on the way is
// made (0755, whatever the umask leaves), each in the directory held
// before it.
func OpenDirWithin(within, dir string) (*os.File, error) {
	return openDir(within, dir)
}

func openDir(within, dir string) (*os.File, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("%s: not an absolute path", dir)
	}
	dir = filepath.Clean(dir)
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	start, rel := "/", strings.TrimPrefix(dir, "/")
	if within != "" {
		within = filepath.Clean(within)
		r, in := inside(within, dir)
		if !filepath.IsAbs(within) || !in {
			return nil, fmt.Errorf("%s is not inside %s", dir, within)
		}
		start, rel = within, r
	}
	fd, err := unix.Open(start, flags, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: start, Err: err}
	}
	type held struct {
		fd   int
		path string
	}
	// stack holds the directories from the one that holds the first link
	// (based) down to the current one; before any link, only the current.
	stack := []held{{fd, start}}
	defer func() {
		for _, h := range stack {
			unix.Close(h.fd)
		}
	}()
	based := within != ""   // within is the base from the start
	var via *LinkedOutError // the last link followed: what a ".." climbs out through
	todo := strings.Split(rel, "/")
	links, made := 0, 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		cur := stack[len(stack)-1]
		switch name {
		case "", ".":
			continue
		case "..":
			// Only a link's target holds one: dir is clean.
			if len(stack) == 1 {
				if via == nil {
					return nil, fmt.Errorf("%s climbs out of /", dir)
				}
				return nil, via
			}
			unix.Close(cur.fd)
			stack = stack[:len(stack)-1]
			continue
		}
		next := filepath.Join(cur.path, name)
		nfd, err := unix.Openat(cur.fd, name, flags, 0)
		if err == nil {
			if !based {
				unix.Close(cur.fd)
				stack = stack[:0]
			}
			stack = append(stack, held{nfd, next})
			continue
		}
		if err == unix.ENOENT && within != "" && made < maxMkdirs {
			made++
			if err := unix.Mkdirat(cur.fd, name, 0o755); err != nil && err != unix.EEXIST {
				return nil, &fs.PathError{Op: "mkdir", Path: next, Err: err}
			}
			// Opened as any other: a link put there meanwhile is
			// followed within, or refused.
			todo = append([]string{name}, todo...)
			continue
		}
		if err != unix.ELOOP && err != unix.ENOTDIR {
			return nil, &fs.PathError{Op: "open", Path: next, Err: err}
		}
		// A symbolic link, or no directory.
		var st unix.Stat_t
		if err := unix.Fstatat(cur.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return nil, &fs.PathError{Op: "open", Path: next, Err: err}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return nil, &fs.PathError{Op: "open", Path: next, Err: unix.ENOTDIR}
		}
		if links++; links > MaxLinks {
			return nil, &fs.PathError{Op: "open", Path: dir, Err: unix.ELOOP}
		}
		target, err := Readlinkat(cur.fd, name)
		if err != nil {
			return nil, &fs.PathError{Op: "readlink", Path: next, Err: err}
		}
		based = true // the stack's first is now the directory holding the first link
		base := stack[0].path
		via = &LinkedOutError{Link: next, Target: target, Within: base}
		rest := strings.Split(target, "/")
		if filepath.IsAbs(target) {
			var in bool
			if rest, in = rebase(base, target); !in {
				return nil, via
			}
			for _, h := range stack[1:] {
				unix.Close(h.fd)
			}
			stack = stack[:1]
		}
		todo = append(rest, todo...)
	}
	top := stack[len(stack)-1]
	stack = stack[:len(stack)-1] // not closed: returned
	return os.NewFile(uintptr(top.fd), top.path), nil
}

// Readlinkat reads the link name in the directory dirfd, whatever its
// length.
func Readlinkat(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 2 {
		b := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, b)
		if err != nil {
			return "", err
		}
		if n < size {
			return string(b[:n]), nil
		}
	}
}

// Replace writes data to the file name (one component) in the directory
// dir holds open (OpenDir's or OpenDirWithin's), whose path
// dirPath names it in errors: to a temporary file made there (O_EXCL|
// O_NOFOLLOW, never an existing file or link) and renamed over the name
// within dir, which replaces whatever has it, a symbolic link too,
// without following it. The file has mode perm whatever the umask; a
// temporary file is removed where the write fails.
func Replace(dir *os.File, dirPath, name string, data []byte, perm fs.FileMode) error {
	return ReplaceWith(dir, dirPath, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, perm)
}

// ReplaceWith is Replace of what write writes to the temporary file,
// which a failure of write, as one of the file's, leaves removed: a
// document written a piece at a time, never whole in memory.
func ReplaceWith(dir *os.File, dirPath, name string, write func(io.Writer) error, perm fs.FileMode) error {
	if name == "" || name == "." || name == ".." || strings.Contains(name, "/") {
		return fmt.Errorf("%q is not a file name", name)
	}
	dfd := int(dir.Fd())
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	tmp := "." + name + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	if len(tmp) > 255 {
		tmp = ".vigiles-" + hex.EncodeToString(rnd[:]) + ".tmp"
	}
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &fs.PathError{Op: "open", Path: filepath.Join(dirPath, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dirPath, tmp))
	werr := write(f)
	if werr == nil {
		werr = f.Chmod(perm.Perm()) // whatever the umask
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		if err := unix.Renameat(dfd, tmp, dfd, name); err != nil {
			werr = &fs.PathError{Op: "rename", Path: filepath.Join(dirPath, name), Err: err}
		}
	}
	if werr != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return werr
	}
	return nil
}
