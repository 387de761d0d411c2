package main

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/vigiles/action/internal/safewrite"
)

// replaceFile writes data to the file path names (a report's -o) as
// baseline files and the action's files are written (safewrite.Replace):
// to a temporary file in the same directory, renamed over the name, so
// that a write that fails (a full file system, a quota) leaves the file
// that was there whole, and no temporary file. Writing it in place
// truncated it first, and a failed write left a cut report behind.
//
// Where path is a symbolic link, the file it leads to is replaced, as
// writing through it did. A name that is not a regular file (a FIFO, a
// device: /dev/stdout, /dev/null) is written in place: renaming over it
// would replace the node, and it holds nothing to lose. So is a link that
// leads nowhere, which is made where it leads. The new file has the old
// one's permission bits (and, for a root caller, its owner and group); a
// file made anew is 0644 less the umask, as before.
func replaceFile(path string, data []byte) error {
	target := path
	perm := 0o644 &^ umask()
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return os.WriteFile(path, data, 0o644)
	case err == nil:
		perm = fi.Mode().Perm()
		if target, err = filepath.EvalSymlinks(path); err != nil {
			return err
		}
	case errors.Is(err, fs.ErrNotExist):
		if li, lerr := os.Lstat(path); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return os.WriteFile(path, data, 0o644)
		}
	default:
		return err
	}
	dir, name := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := safewrite.Replace(d, dir, name, data, perm); err != nil {
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
