package main

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/safewrite"
)

// replaceFile writes what write writes to the file path names (a report's
// -o), a piece at a time, never whole in memory. A
// regular file is written as baseline files and the action's files are
// (safewrite.Replace): to a temporary file in the same directory, renamed
// over the name, so that a write that fails (a full file system, a quota)
// leaves the file that was there whole, and no temporary file. Writing it
// in place truncated it first, and a failed write left a cut report.
//
// Where path is a symbolic link, the file it leads to is replaced, as
// writing through it did. Everything else is written in place (opened
// O_WRONLY|O_CREAT|O_TRUNC on path, as os.WriteFile did), where a rename
// would be wrong or cannot be done:
//
//   - a path through /dev or /proc (/dev/stdout, /dev/fd/N,
//     /proc/self/fd/N), or a link that leads there: it names an open
//     descriptor, written through as it was, whatever file is behind it
//     (a file the caller redirected stdout to, unlinked or not, which
//     a rename would leave empty, or fail to find);
//   - what is not a regular file (a FIFO, a device: /dev/null): renaming
//     over it would replace the node, and it holds nothing to lose;
//   - a link that leads nowhere, which is made where it leads;
//   - a file whose directory takes no new file (EACCES, EPERM: a
//     writable file in a directory the caller may not write; EROFS: a
//     file bind-mounted into a read-only tree), or that cannot be renamed
//     over (EBUSY: a mount point, as a file bind-mounted into a container
//     is; EXDEV). There a write that fails may cut the file; that it
//     was written this way is not said when it succeeds.
//
// An error of a write in place that may have cut the file is a
// *cutError. The new file has the old one's permission bits (and, for a
// root caller, its owner and group); a file made anew is 0644 less the
// umask, as before.
func replaceFile(path string, write func(io.Writer) error) error {
	if throughDevOrProc(path) {
		return writeInPlace(path, write)
	}
	target := path
	perm := 0o644 &^ umask()
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return writeInPlace(path, write)
	case err == nil:
		perm = fi.Mode().Perm()
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return err
		}
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return writeInPlace(path, write)
		}
	default:
		return err
	}
	dir, name := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	// O_PATH: a directory the caller may search and write but not list
	// (0333, a drop box) is written into as any other.
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	d := os.NewFile(uintptr(dfd), dir)
	defer d.Close()
	if err := safewrite.ReplaceWith(d, dir, name, write, perm); err != nil {
		if cannotRename(err) {
			return writeInPlace(path, write)
		}
		return err
	}
	if st, ok := fiSys(fi); ok && os.Geteuid() == 0 {
		// Best effort, as the old file's owner kept it: a file system
		// without owners (vfat) refuses it, and the report matters more.
		// Lchown: whatever has the name now is not followed.
		_ = os.Lchown(target, int(st.Uid), int(st.Gid))
	}
	return nil
}

// cannotRename says whether err, safewrite.Replace's, says the rename
// route cannot be taken for this file, though the file itself may be
// written: the temporary file cannot be made in its directory (EACCES,
// EPERM, EROFS), or not renamed over it (EBUSY, EXDEV). A write that
// failed (ENOSPC, EDQUOT) is no such error: the file there stays whole.
func cannotRename(err error) bool {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Op {
	case "open": // the temporary file
		return errors.Is(pe.Err, unix.EACCES) || errors.Is(pe.Err, unix.EPERM) || errors.Is(pe.Err, unix.EROFS)
	case "rename":
		return errors.Is(pe.Err, unix.EBUSY) || errors.Is(pe.Err, unix.EXDEV)
	}
	return false
}

// cutError is the error of a write in place (writeInPlace) that failed
// once the file was opened, and so truncated: what was there may be
// cut.
type cutError struct{ err error }

func (e *cutError) Error() string { return e.err.Error() }
func (e *cutError) Unwrap() error { return e.err }

// writeInPlace writes what write writes to path as os.WriteFile does (O_WRONLY|
// O_CREAT|O_TRUNC, 0644 less the umask for a new file): through a link,
// an open descriptor (/dev/stdout), a device. A failure to open it leaves
// it as it was; one after is a *cutError.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return &cutError{err}
	}
	return nil
}

// maxHops bounds the symbolic links throughDevOrProc follows, as the
// kernel's ELOOP does.
const maxHops = 40

// throughDevOrProc says whether path is in /dev or /proc, or leads there
// by a symbolic link (its own, or one its directory's path goes
// through): it then names a device or an open descriptor (/dev/stdout,
// /dev/fd/N, /proc/self/fd/N), to be written through, not replaced. Its
// links are read as the kernel follows them.
func throughDevOrProc(path string) bool {
	p := path
	for range maxHops {
		abs, err := filepath.Abs(p)
		if err != nil {
			return false
		}
		if inDevOrProc(abs) {
			return true
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
		if err != nil {
			return false
		}
		if inDevOrProc(dir) {
			return true
		}
		target, err := os.Readlink(filepath.Join(dir, filepath.Base(abs)))
		if err != nil {
			return false // no link: the file itself
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		p = target
	}
	return false
}

// inDevOrProc says whether the clean absolute path p is /dev or /proc or
// under one of them.
func inDevOrProc(p string) bool {
	for _, top := range []string{"/dev", "/proc"} {
		if p == top || strings.HasPrefix(p, top+"/") {
			return true
		}
	}
	return false
}

// fiSys is the stat of fi, the file replaced; false when there was none.
func fiSys(fi fs.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// umask is the process's file mode creation mask, read from
// /proc/self/status (setting it to read it would race with other
// threads making files); 022 where it cannot be read.
func umask() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o022
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
				return fs.FileMode(m) & fs.ModePerm
			}
		}
	}
	return 0o022
}
