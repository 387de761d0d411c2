package sandbox

import (
	"crypto/sha256"
	"errors"
	"io"
	"maps"
	"os"
	"path"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// madeFiles are the files the init made in HOME (Spec.HomeFiles), by their
// paths relative to it, with their state once made.
type madeFiles map[string]fileState

// fileState is what a made file is compared by: the command left it as it
// was when all of it is the same. Its bytes are summed, since a write
// through a shared mapping on tmpfs changes neither mtime nor ctime.
type fileState struct {
	dev, ino   uint64
	mode       uint32 // with the type bits
	uid, gid   uint32
	nlink      uint64
	size       int64
	mtime      unix.Timespec
	xattrs     string // as xattrState gives them
	sum        [sha256.Size]byte
	kind       string // "" where nothing is at the path
	unreadable bool   // a regular file the init could not read: taken as changed
}

// makeHomeFile makes the file p (its directory exists, the file does not)
// with content, mode 0600, and returns its state.
func makeHomeFile(p string, content []byte) (fileState, error) {
	fd, err := unix.Open(p, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fileState{}, err
	}
	f := os.NewFile(uintptr(fd), p)
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(0o600) // whatever the umask
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fileState{}, err
	}
	st := lookHomeFile(sandboxHome, strings.TrimPrefix(p, sandboxHome+"/"), nil)
	if st.kind != "file" || st.unreadable {
		return fileState{}, errors.New("the file made cannot be read back")
	}
	return st, nil
}

// lookHomeFile is the state of what is at rel beneath the directory root,
// reached through no symbolic link (a path whose directory the command
// replaced by a link, or by a file, has nothing at it). Given want, the
// made file's state, the bytes are summed only where all else is as in
// want (a file the command grew is not read).
func lookHomeFile(root, rel string, want *fileState) fileState {
	dir, err := openDirBeneath(root, path.Dir(rel))
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			// Gone, a file or a link in its place: nothing at the path.
			return fileState{}
		}
		return fileState{unreadable: true}
	}
	defer unix.Close(dir)
	name := path.Base(rel)
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fileState{}
	}
	s := fileState{dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, uid: st.Uid, gid: st.Gid, nlink: uint64(st.Nlink),
		size: st.Size, mtime: st.Mtim, kind: kindOf(st.Mode)}
	if s.kind != "file" {
		return s
	}
	if want != nil && !s.sameMeta(*want) {
		return s
	}
	f, again, err := openRegularAt(dir, name)
	if err != nil {
		s.unreadable = true
		return s
	}
	defer f.Close()
	if again.Ino != st.Ino || uint64(again.Dev) != s.dev {
		s.unreadable = true
		return s
	}
	s.xattrs = xattrState(int(f.Fd()))
	h := sha256.New()
	if n, err := io.Copy(h, io.LimitReader(f, s.size+1)); err != nil || n != s.size {
		s.unreadable = true
		return s
	}
	h.Sum(s.sum[:0])
	return s
}

// sameMeta says whether s has want's identity and metadata: the same
// inode, type and mode, owner, link count, size and mtime.
func (s fileState) sameMeta(want fileState) bool {
	return s.dev == want.dev && s.ino == want.ino && s.mode == want.mode && s.uid == want.uid && s.gid == want.gid &&
		s.nlink == want.nlink && s.size == want.size && s.mtime == want.mtime
}

// unchanged says whether s is the made file want, as it was made.
func (s fileState) unchanged(want fileState) bool {
	return s.kind == "file" && !s.unreadable && s.sameMeta(want) && s.xattrs == want.xattrs && s.xattrs != unreadable && s.sum == want.sum
}

// drop takes the made files out of HOME's record (paths under prefix, a
// view of the directory mountedAt), where the command left them as they
// were made, and records what it did to the others as what it did to a
// file that was there before it: one changed in place, or replaced by
// another file, is a modify (kind file); one replaced by another kind is
// a modify with was "file" (a directory that holds entries is listed
// before them, as a made directory is); one gone, or no longer at its
// path (its directory removed, or moved and replaced by a link), is a
// delete, without kind or was, as any file's. The record stays in path
// order.
func (m madeFiles) drop(ws []evidence.Write, prefix, mountedAt string) []evidence.Write {
	if len(m) == 0 {
		return ws
	}
	out := ws[:0]
	listed := map[string]bool{}
	for _, w := range ws {
		rel, ok := strings.CutPrefix(w.Path, prefix)
		want, made := m[rel]
		if !ok || !made {
			out = append(out, w)
			continue
		}
		listed[rel] = true
		if lookHomeFile(mountedAt, rel, &want).unchanged(want) {
			continue
		}
		// There before the command: whatever is at the path now
		// modified it.
		w.Op = evidence.OpModify
		if w.Kind != "file" {
			w.Was = "file"
		}
		out = append(out, w)
	}
	for _, rel := range slices.Sorted(maps.Keys(m)) {
		if listed[rel] {
			continue
		}
		// Not in the record: a directory that holds entries (the
		// record lists it by them), or nothing at all.
		w := evidence.Write{Path: prefix + rel, Op: evidence.OpDelete}
		if lookHomeFile(mountedAt, rel, nil).kind == "dir" {
			w.Op, w.Kind, w.Was = evidence.OpModify, "dir", "file"
		}
		i, _ := slices.BinarySearchFunc(out, w.Path, func(x evidence.Write, p string) int { return strings.Compare(x.Path, p) })
		out = slices.Insert(out, i, w)
	}
	return out
}
