package sandbox

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/safewrite"
	"github.com/vigiles/action/pkg/evidence"
)

// Every walk in this file goes by directory descriptors and names
// (openat and fstatat with O_NOFOLLOW, getdents), never by whole paths: a
// command can make paths far longer than PATH_MAX by entering the
// directories it makes one by one, and the record must still list them,
// exactly. Below the first keepOpen levels a walk keeps open only the
// directories of the two levels it reads, whatever the depth (see sub and
// enter). The walks recurse, a level of the tree a few frames (under 3 KB
// of stack): they go at most maxDepth levels deep.

// sameContentMax is the largest regular file whose bytes are compared
// with what it held before, so that a file opened for writing and left as
// it was (overlay copies it up) is no write. A larger one is taken as
// changed once anything about it was touched.
const sameContentMax = 1 << 20

// upperWrites reads a directory that started empty (the throwaway HOME,
// TMPDIR, /dev/shm) and returns every path the run created there,
// prefixed. The work tree's overlay is read by readUpper, against its
// lower directory: its cost is proportional to what was written, not to
// the size of the lower tree (only paths present in upper are looked up
// in lower).
func upperWrites(upper, prefix string) ([]evidence.Write, error) {
	ws, _, err := upperWritesSized(upper, prefix, 0)
	return ws, err
}

// upperWritesSized is upperWrites, and whether a regular file the run
// created there, or changed the size of, is of fileLimit bytes
// (record.atLimit).
func upperWritesSized(upper, prefix string, fileLimit int64) ([]evidence.Write, bool, error) {
	return readUpperSized(upper, "", prefix, nil, fileLimit)
}

// readUpper is upperWrites with the lower directory explicit ("" when the
// directory started empty).
//
// A path is one entry whatever happened to it: a path there before and
// after the run is a modify (with its kind now), unless it ends as it
// began. A deleted directory is listed by its files and empty
// directories. The root itself is recorded (as ".") only given root, the
// state prepareUpper gave it before the run: an upper root is always
// there, changed or not.
func readUpper(upper, lower, prefix string, root *rootState) ([]evidence.Write, error) {
	ws, _, err := readUpperSized(upper, lower, prefix, root, 0)
	return ws, err
}

// readUpperSized is readUpper, and whether a regular file the run created
// or changed the size of is of fileLimit bytes (record.atLimit).
func readUpperSized(upper, lower, prefix string, root *rootState, fileLimit int64) ([]evidence.Write, bool, error) {
	u, err := openDir(upper)
	if err != nil {
		return nil, false, err
	}
	defer u.close()
	var l *dirFD
	if lower != "" {
		if l, err = openDir(lower); err != nil {
			return nil, false, err
		}
		defer l.close()
	}
	w := &upperWalk{record: newRecord(prefix), whiteouts: lower != ""}
	w.fileLimit = fileLimit
	n, err := w.walk(u, l, true, nil)
	if err != nil {
		return nil, false, fmt.Errorf("walking %s: %w", upper, err)
	}
	if err := w.tooLarge(); err != nil {
		return nil, false, err
	}
	if l != nil {
		w.rn.link(&w.record, overlaySides{upper: u.fd, lower: l.fd})
	}
	if before := root; before != nil && l != nil {
		var st unix.Stat_t
		if err := unix.Fstat(u.fd, &st); err != nil {
			return nil, false, fmt.Errorf("walking %s: %w", upper, err)
		}
		now := metaOf(&st)
		xattrsDiffer := func() bool {
			x, err := xattrs(u.fd, layerXattrs)
			return err != nil || !maps.Equal(x, before.xattrs)
		}
		if dirChanged(before.meta, now, xattrsDiffer, n) {
			w.out = append(w.out, evidence.Write{Path: prefix + ".", Op: evidence.OpModify, Kind: "dir"})
		}
	}
	sortWrites(w.out)
	return w.out, w.atLimit, nil
}

// upperWalk reads an upper directory against its lower one.
type upperWalk struct {
	record
	whiteouts bool // there is a lower: character devices 0,0 are whiteouts
	rn        renames
}

// walk reads the upper directory u at p; l is the lower directory at p
// (nil: there was none). merged says that l's entries show through where
// u has none (an overlay's merged directory); otherwise (an opaque
// directory, one that replaced a file, or one under those) they are gone.
// It returns how many writes it recorded below p.
func (w *upperWalk) walk(u, l *dirFD, merged bool, p relPath) (int, error) {
	names, err := u.names(w.buf)
	if err != nil {
		return 0, pathError("reading", p, err)
	}
	var lnames []string
	if l != nil && !merged {
		if lnames, err = l.names(w.buf); err != nil {
			return 0, pathError("reading lower", p, err)
		}
	}
	n := 0
	for _, name := range names {
		k, err := w.entry(u, l, merged, name, p.join(name))
		n += k
		if err != nil {
			return n, err
		}
	}
	if len(lnames) > 0 {
		inUpper := make(map[string]bool, len(names))
		for _, name := range names {
			inUpper[name] = true
		}
		for _, name := range lnames {
			if inUpper[name] {
				continue
			}
			k, err := w.lowerLeaves(l, name, p.join(name), true)
			n += k
			if err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// entry records the upper entry name of u (at p) against the lower
// entry of the same name, if any: what the path held before the run.
func (w *upperWalk) entry(u, l *dirFD, merged bool, name string, p relPath) (int, error) {
	st, err := u.stat(name)
	if err != nil {
		return 0, pathError("stat", p, err)
	}
	var lst unix.Stat_t
	inLower := false
	if l != nil {
		switch err := unix.Fstatat(l.fd, name, &lst, unix.AT_SYMLINK_NOFOLLOW); {
		case err == nil:
			inLower = true
		case !errors.Is(err, unix.ENOENT):
			return 0, pathError("stat lower", p, err)
		}
	}
	if inLower && st.Nlink > 1 && st.Mode&unix.S_IFMT == unix.S_IFREG {
		// A name of a file made of a lower one that is a path the
		// tree had: its other names are no renamed file (ln a b).
		w.rn.noteAtOldPath(st.Ino)
	}
	switch {
	case w.whiteouts && st.Mode&unix.S_IFMT == unix.S_IFCHR && st.Rdev == 0:
		// A whiteout: the lower path was deleted.
		if !inLower {
			return 0, nil
		}
		return w.lowerLeaves(l, name, p, true)
	case isDir(st.Mode):
		return w.dir(u, l, merged, name, p, &st, &lst, inLower)
	case !inLower:
		// New, hard links to one inode among them: each name a create.
		w.noteSize(&st, -1)
		if err := w.addEntry(u, name, p, evidence.OpCreate, st.Mode); err != nil {
			return 1, err
		}
		if w.whiteouts {
			w.rn.noteCreated(&w.record, metaOf(&st))
		}
		return 1, nil
	case isDir(lst.Mode):
		// A directory replaced by a file: the path is modified, and
		// what was under it is gone.
		w.noteSize(&st, -1)
		if err := w.addEntry(u, name, p, evidence.OpModify, st.Mode); err != nil {
			return 1, err
		}
		w.was(lst.Mode)
		k, err := w.lowerContents(l, name, p)
		return k + 1, err
	case sameMeta(metaOf(&st), copiedUp(metaOf(&lst))) && sameContent(u, l, name, &st, false):
		// Copied up and left as it was (opened for writing, written
		// nothing).
		return 0, nil
	default:
		// Changed, or given another name (a hard link: ln .git/config
		// x changes .git/config's link count, and a write to x is one
		// to it).
		w.noteSize(&st, sizeOfKind(&lst, st.Mode))
		if err := w.addEntry(u, name, p, evidence.OpModify, st.Mode); err != nil {
			return 1, err
		}
		w.was(lst.Mode)
		return 1, nil
	}
}

// copiedUp is the metadata of a lower entry as overlayfs copies it up, as
// the upper entry has it when the command changed nothing: one link. The
// overlay is mounted with userxattr, which turns its index off, so a
// copy-up never links the upper file anywhere else (nor does it keep a
// lower file's other names: the copy method's copy does not either). An
// upper entry with more than one link was given another name in the run.
func copiedUp(m fileMeta) fileMeta {
	m.Nlink = 1
	return m
}

// dir records the upper directory name of u (at p) and what is in it.
func (w *upperWalk) dir(u, l *dirFD, merged bool, name string, p relPath, st, lst *unix.Stat_t, inLower bool) (int, error) {
	child, err := u.sub(name)
	if err != nil {
		return 0, pathError("opening", p, err)
	}
	if !inLower || !isDir(lst.Mode) {
		n := 0
		if inLower {
			// It replaced a file: one entry, the path's new kind.
			w.add(p, evidence.OpModify, "dir")
			w.was(lst.Mode)
			n++
		}
		var k int
		err := enter(u, child, nil, nil, func() (err error) {
			k, err = w.walk(child, nil, false, p)
			return err
		})
		n += k
		if !inLower && k == 0 {
			// A created directory stands for itself only when
			// nothing was created in it.
			w.add(p, evidence.OpCreate, "dir")
			n++
		}
		return n, err
	}
	lchild, err := l.sub(name)
	if err != nil {
		child.close()
		return 0, pathError("opening lower", p, err)
	}
	var k int
	changed := false
	err = enter(u, child, l, lchild, func() error {
		// In an opaque directory (made again after a delete), or under
		// one, the lower entries are gone, and each upper one is
		// compared with what the path held.
		var err error
		k, err = w.walk(child, lchild, merged && !isOpaque(child.fd), p)
		if err != nil {
			return err
		}
		xattrsDiffer := func() bool { return !xattrsEqual(child.fd, lchild.fd, layerXattrs, layerXattrs) }
		changed = dirChanged(metaOf(lst), metaOf(st), xattrsDiffer, k)
		return nil
	})
	if changed {
		w.add(p, evidence.OpModify, "dir")
		k++
	}
	return k, err
}

// lowerLeaves records the lower entry name of l (at p) deleted: a
// directory by every file and empty directory under it, and by itself
// where it was empty or is the directory the command removed (top); the
// directories between are gone with it and not listed (each would repeat
// the path of every level, quadratic in a deep tree).
func (w *upperWalk) lowerLeaves(l *dirFD, name string, p relPath, top bool) (int, error) {
	st, err := l.stat(name)
	if err != nil {
		return 0, pathError("stat lower", p, err)
	}
	if !isDir(st.Mode) {
		w.add(p, evidence.OpDelete, "")
		w.rn.noteDeleted(&w.record, metaOf(&st), nil)
		return 1, nil
	}
	k, err := w.lowerContents(l, name, p)
	if err == nil && (top || k == 0) {
		w.add(p, evidence.OpDelete, "")
		w.was(st.Mode) // a directory, said so
		k++
	}
	return k, err
}

// lowerContents records what is under the lower directory name of l (at
// p) deleted, leaving the directory itself out.
func (w *upperWalk) lowerContents(l *dirFD, name string, p relPath) (int, error) {
	child, err := l.sub(name)
	if err != nil {
		return 0, pathError("opening lower", p, err)
	}
	n := 0
	err = enter(l, child, nil, nil, func() error {
		names, err := child.names(w.buf)
		if err != nil {
			return pathError("reading lower", p, err)
		}
		for _, nm := range names {
			k, err := w.lowerLeaves(child, nm, p.join(nm), false)
			n += k
			if err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// dirChanged says whether a directory there before and after the run is a
// write of its own: its mode or owner changed, its user xattrs or ACLs
// did, or its mtime did with nothing recorded below it (touched, or an
// entry made and removed again). An entry recorded below stands for the
// mtime change: one of the directory's own entries made, removed or
// renamed over changes it, and the record cannot always tell such an entry
// from one whose content alone changed (a file renamed over another, a
// directory made again, show as a modify), so any entry recorded below
// is taken for it. A directory whose entry was made and removed again
// beside another write below it is so not recorded as modified: its mtime
// is the only trace of that entry, and the record keeps none.
func dirChanged(before, now fileMeta, xattrsDiffer func() bool, below int) bool {
	switch {
	case before.Mode != now.Mode || before.Uid != now.Uid || before.Gid != now.Gid:
		return true
	case xattrsDiffer():
		return true
	}
	return below == 0 && before.Mtime != now.Mtime
}

// sameMeta says whether two entries agree in everything stat shows that
// the command could change in place (ctime and inode aside): their link
// count too, which link(2) and unlink(2) of another name change (a file
// given a second name is written through it).
func sameMeta(a, b fileMeta) bool {
	return a.Mode == b.Mode && a.Uid == b.Uid && a.Gid == b.Gid && a.Size == b.Size &&
		a.Mtime == b.Mtime && a.Rdev == b.Rdev && a.Nlink == b.Nlink
}

// sameContent says whether the entries name of a and b, the first of st's
// kind and size, hold the same: the same bytes for a regular file of at
// most sameContentMax bytes (a larger one is taken as changed), the same
// target for a symlink; and the same user xattrs and ACLs. Anything that
// cannot be read is taken as changed. a and b are layers of an overlay
// (the upper and the lower), or, when copied, the copy method's copy and
// what it was copied from, plain directories.
func sameContent(a, b *dirFD, name string, st *unix.Stat_t, copied bool) bool {
	if a == nil || b == nil {
		return false
	}
	bst, err := b.stat(name)
	if err != nil {
		return false
	}
	xa, xb := layerXattrs, layerXattrs
	if copied {
		xa, xb = copyXattrSet, originalXattrs
	}
	if copied && isDevice(bst.Mode) {
		// The copy's placeholder for a device node (see copyTree),
		// whose kind, size and device number the caller compared with
		// the snapshot's: it holds nothing of the node's, and nothing
		// of its own unless the command gave it user xattrs (an empty
		// file can have them) or ACLs.
		x, err := xattrsAt(a, name, xa)
		return err == nil && len(x) == 0
	}
	if bst.Mode&unix.S_IFMT != st.Mode&unix.S_IFMT || bst.Size != st.Size {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Size > sameContentMax {
			return false
		}
		return sameFileBytes(a.fd, b.fd, name, xa, xb)
	case unix.S_IFLNK:
		// A symlink has no xattrs of these kinds.
		ta, erra := safewrite.Readlinkat(a.fd, name)
		tb, errb := safewrite.Readlinkat(b.fd, name)
		return erra == nil && errb == nil && ta == tb
	}
	// A fifo, socket or device node holds nothing else; it can have
	// ACLs.
	ma, erra := xattrsAt(a, name, xa)
	mb, errb := xattrsAt(b, name, xb)
	return erra == nil && errb == nil && maps.Equal(ma, mb)
}

func sameFileBytes(dfa, dfb int, name string, xa, xb xattrSet) bool {
	const flags = unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
	fa, err := unix.Openat(dfa, name, flags, 0)
	if err != nil {
		return false
	}
	a := os.NewFile(uintptr(fa), name)
	defer a.Close()
	fb, err := unix.Openat(dfb, name, flags, 0)
	if err != nil {
		return false
	}
	b := os.NewFile(uintptr(fb), name)
	defer b.Close()
	if !xattrsEqual(fa, fb, xa, xb) {
		return false
	}
	ba, bb := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, erra := io.ReadFull(a, ba)
		nb, errb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return false
		}
		switch {
		case erra == io.EOF || erra == io.ErrUnexpectedEOF:
			return errb == erra
		case erra != nil || errb != nil:
			return false
		}
	}
}

// isOpaque says whether the upper directory fd is opaque, as overlayfs
// reads it: an opaque xattr of the one byte "y". "x" marks a directory
// that holds xwhiteouts and is not opaque (Linux 6.8); any other value is
// not opaque either.
func isOpaque(fd int) bool {
	for _, name := range []string{"user.overlay.opaque", "trusted.overlay.opaque"} {
		buf := make([]byte, 1)
		n, err := unix.Fgetxattr(fd, name, buf)
		if err == nil && n == 1 && buf[0] == 'y' {
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

func isDir(mode uint32) bool { return mode&unix.S_IFMT == unix.S_IFDIR }

func isDevice(mode uint32) bool {
	return mode&unix.S_IFMT == unix.S_IFCHR || mode&unix.S_IFMT == unix.S_IFBLK
}

// sortWrites orders a record by path; a record made here lists a path once.
func sortWrites(ws []evidence.Write) {
	slices.SortFunc(ws, func(a, b evidence.Write) int { return strings.Compare(a.Path, b.Path) })
}

// The root of an upper directory.

// rootState is a directory's state that readUpper compares the root of an
// upper directory with.
type rootState struct {
	meta   fileMeta
	xattrs map[string]string
}

// prepareUpper gives the (empty) upper directory of an overlay the mode,
// owner (where the user namespace maps it), times, user xattrs and ACLs
// (where it can) of the lower directory's root, before the overlay is
// mounted: the merged root
// shows the upper's, so the command then sees the work tree's root as it
// is (a 0555 root stays unwritable). It returns that state, against which
// readUpper tells a change the command made to the root itself.
func prepareUpper(upper, lower string) (*rootState, error) {
	if err := copyState(lower, upper); err != nil {
		return nil, fmt.Errorf("preparing %s: %w", upper, err)
	}
	st, err := dirState(upper, layerXattrs)
	if err != nil {
		return nil, fmt.Errorf("preparing %s: %w", upper, err)
	}
	return st, nil
}

// dirState is the state of the directory dir (its metadata and the xattrs
// of set) that readUpper and rootState.changed compare with.
func dirState(dir string, set xattrSet) (*rootState, error) {
	d, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.close()
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return nil, err
	}
	x, err := xattrs(d.fd, set)
	if err != nil {
		return nil, err
	}
	return &rootState{meta: metaOf(&st), xattrs: x}, nil
}

// The copy method.

// snapshot is the fallback record where overlay cannot be mounted: the
// metadata of every path in a private copy of the work tree, as a tree.
type snapshot struct {
	root *snapNode
	// lower holds what the copy was made from (lowerDir unless a test
	// says otherwise), for comparing the content of a file whose ctime
	// alone changed.
	lower string
	// scrubbed holds, by path under the root, what scrubInPlace left in
	// each file it rewrote (a git config without its credentials, an
	// emptied credential file): what the command was shown there, which
	// such a file is compared with instead of lower's.
	scrubbed map[string][]byte
	// dirs holds the inode of every directory of the copy: one at
	// another path after the run was renamed there.
	dirs map[uint64]bool
}

type snapNode struct {
	meta fileMeta
	kids map[string]*snapNode // a directory's entries
	// sum is a regular file's content (SHA-256): a write through a
	// shared mapping of a tmpfs file changes neither its mtime nor its
	// ctime once the page was mapped by a read (tmpfs asks for no write
	// notification), so metadata alone cannot say it is unchanged.
	sum *[sha256.Size]byte
	// xattrs are the entry's user xattrs and ACLs (xattrsOf). A change
	// to them changes the ctime, but where the kernel stamps times from
	// a coarse clock (tmpfs before Linux 6.13, a tick of 1 to 10 ms) one
	// made within the tick the copy set it in leaves the ctime as it
	// was: metadata alone cannot say they are unchanged either.
	xattrs string
}

type fileMeta struct {
	Mode     uint32
	Uid, Gid uint32
	Size     int64
	Mtime    unix.Timespec
	Ctime    unix.Timespec
	Ino      uint64
	Rdev     uint64
	Nlink    uint64
}

func metaOf(st *unix.Stat_t) fileMeta {
	return fileMeta{Mode: st.Mode, Uid: st.Uid, Gid: st.Gid, Size: st.Size, Mtime: st.Mtim, Ctime: st.Ctim, Ino: st.Ino, Rdev: st.Rdev, Nlink: uint64(st.Nlink)}
}

// takeSnapshot records every path under root (and root itself) without
// following symlinks.
func takeSnapshot(root string) (snapshot, error) {
	d, err := openDir(root)
	if err != nil {
		return snapshot{}, err
	}
	defer d.close()
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return snapshot{}, err
	}
	s := snapshot{root: &snapNode{meta: metaOf(&st), xattrs: xattrsOf(d.fd)}, lower: lowerDir, dirs: map[uint64]bool{st.Ino: true}}
	buf := make([]byte, direntBuf)
	var walk func(d *dirFD, node *snapNode, p relPath) error
	walk = func(d *dirFD, node *snapNode, p relPath) error {
		names, err := d.names(buf)
		if err != nil {
			return pathError("reading", p, err)
		}
		if len(names) > 0 {
			node.kids = make(map[string]*snapNode, len(names))
		}
		for _, name := range names {
			cp := p.join(name)
			st, err := d.stat(name)
			if err != nil {
				return pathError("stat", cp, err)
			}
			k := &snapNode{meta: metaOf(&st)}
			node.kids[name] = k
			switch st.Mode & unix.S_IFMT {
			case unix.S_IFREG:
				sum, x, err := sumAndXattrs(d.fd, name)
				if err != nil {
					return pathError("reading", cp, err)
				}
				k.sum, k.xattrs = &sum, x
			case unix.S_IFDIR, unix.S_IFLNK:
			default:
				k.xattrs = xattrStateAt(d, name)
			}
			if !isDir(st.Mode) {
				continue
			}
			s.dirs[st.Ino] = true
			child, err := d.sub(name)
			if err != nil {
				return pathError("opening", cp, err)
			}
			k.xattrs = xattrsOf(child.fd)
			if err := enter(d, child, nil, nil, func() error { return walk(child, k, cp) }); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(d, s.root, nil); err != nil {
		return snapshot{}, fmt.Errorf("walking %s: %w", root, err)
	}
	return s, nil
}

// diff compares the tree at root now with the snapshot, as readUpper
// compares an upper directory with its lower one: one entry per path, a
// deleted directory listed by its files and empty directories, the root
// as ".". It reads the whole tree once; the snapshot's own entries are
// looked up by name, so its cost follows the tree's size.
func (s snapshot) diff(root string) ([]evidence.Write, error) {
	ws, _, err := s.diffSized(root, 0)
	return ws, err
}

// diffSized is diff, and whether a regular file the run created or
// changed the size of is of fileLimit bytes (record.atLimit).
func (s snapshot) diffSized(root string, fileLimit int64) ([]evidence.Write, bool, error) {
	d, err := openDir(root)
	if err != nil {
		return nil, false, err
	}
	defer d.close()
	// The original, for a file whose ctime alone changed. Without it
	// such a file is a modify.
	var l *dirFD
	if s.lower != "" {
		if l, err = openDir(s.lower); err == nil {
			defer l.close()
		}
	}
	w := &copyWalk{record: newRecord(""), scrubbed: s.scrubbed, dirs: s.dirs, rn: renames{sameInode: true}}
	w.fileLimit = fileLimit
	n, err := w.walk(d, s.root, l, nil)
	if err != nil {
		return nil, false, fmt.Errorf("walking %s: %w", root, err)
	}
	if err := w.tooLarge(); err != nil {
		return nil, false, err
	}
	lowerFD := -1
	if l != nil {
		lowerFD = l.fd
	}
	w.rn.link(&w.record, copySides{copy: d.fd, lower: lowerFD})
	var st unix.Stat_t
	if err := unix.Fstat(d.fd, &st); err != nil {
		return nil, false, err
	}
	if copyDirChanged(s.root, metaOf(&st), d, l, n) {
		w.out = append(w.out, evidence.Write{Path: ".", Op: evidence.OpModify, Kind: "dir"})
	}
	sortWrites(w.out)
	return w.out, w.atLimit, nil
}

// copyWalk reads the copy against its snapshot.
type copyWalk struct {
	record
	scrubbed map[string][]byte // see snapshot
	dirs     map[uint64]bool   // see snapshot
	rn       renames
	// inMoved says that the walk is in a directory of the tree's that
	// the run renamed (or under one): overlay refuses that rename, so
	// what it moved is not taken for renamed files (see renames).
	inMoved bool
}

// enterDir notes whether the directory of stat now, at a path whose
// snapshot entry is o (nil: none), is one of the tree's renamed, and
// returns what to restore once its walk is done.
func (w *copyWalk) enterDir(now fileMeta, o *snapNode) (restore func()) {
	was := w.inMoved
	if w.dirs[now.Ino] && (o == nil || o.meta.Ino != now.Ino) {
		w.inMoved = true
	}
	return func() { w.inMoved = was }
}

// walk reads the directory d at p against its snapshot node old (nil: p
// was no directory before) and the original l (nil: unknown). It returns
// how many writes it recorded below p.
func (w *copyWalk) walk(d *dirFD, old *snapNode, l *dirFD, p relPath) (int, error) {
	names, err := d.names(w.buf)
	if err != nil {
		return 0, pathError("reading", p, err)
	}
	var kids map[string]*snapNode
	if old != nil {
		kids = old.kids
	}
	n := 0
	for _, name := range names {
		k, err := w.entry(d, l, name, p.join(name), kids[name])
		n += k
		if err != nil {
			return n, err
		}
	}
	if len(kids) > 0 {
		now := make(map[string]bool, len(names))
		for _, name := range names {
			now[name] = true
		}
		for name, o := range kids {
			if !now[name] {
				n += w.leaves(o, p.join(name), true)
			}
		}
	}
	return n, nil
}

func (w *copyWalk) entry(d, l *dirFD, name string, p relPath, o *snapNode) (int, error) {
	st, err := d.stat(name)
	if err != nil {
		return 0, pathError("stat", p, err)
	}
	now := metaOf(&st)
	switch {
	case o == nil:
		if isDir(st.Mode) {
			defer w.enterDir(now, nil)()
			return w.newDir(d, name, p, true)
		}
		w.noteSize(&st, -1)
		if err := w.addEntry(d, name, p, evidence.OpCreate, st.Mode); err != nil {
			return 1, err
		}
		if !w.inMoved {
			w.rn.noteCreated(&w.record, now)
		}
		return 1, nil
	case st.Mode&unix.S_IFMT != o.meta.Mode&unix.S_IFMT:
		// Replaced by another kind: one entry, the new kind; what was
		// under a directory is gone, what is under one is new.
		w.noteSize(&st, -1)
		if err := w.addEntry(d, name, p, evidence.OpModify, st.Mode); err != nil {
			return 1, err
		}
		w.was(o.meta.Mode)
		n := 1
		for kn, kid := range o.kids {
			n += w.leaves(kid, p.join(kn), false)
		}
		if isDir(st.Mode) {
			defer w.enterDir(now, nil)()
			k, err := w.newDir(d, name, p, false)
			return n + k, err
		}
		return n, nil
	case isDir(st.Mode):
		defer w.enterDir(now, o)()
		child, err := d.sub(name)
		if err != nil {
			return 0, pathError("opening", p, err)
		}
		var lchild *dirFD
		if l != nil {
			lchild, _ = l.sub(name) // not there: compared as changed
		}
		var k int
		changed := false
		err = enter(d, child, l, lchild, func() (err error) {
			if k, err = w.walk(child, o, lchild, p); err != nil {
				return err
			}
			changed = copyDirChanged(o, now, child, lchild, k)
			return nil
		})
		if changed {
			w.add(p, evidence.OpModify, "dir")
			k++
		}
		return k, err
	case now == o.meta && !sameAsSnapshot(d, name, &st, o):
		// Its times and size as they were, its bytes or xattrs not:
		// written through a shared mapping, or changed within the
		// clock's tick (see snapNode).
		w.noteSize(&st, o.meta.Size)
		return 1, w.addEntry(d, name, p, evidence.OpModify, st.Mode)
	case now == o.meta:
		return 0, nil
	case !sameMeta(now, o.meta):
		// Changed, or given another name (a hard link: the copy's
		// files have one link each, as copied).
		w.noteSize(&st, o.meta.Size)
		return 1, w.addEntry(d, name, p, evidence.OpModify, st.Mode)
	case w.isScrubbed(p):
		// A file the command was shown scrubbed: compared with what it
		// was shown, not with the original it never saw.
		if sameAsScrubbed(d, l, name, &st, w.scrubbed[string(p)]) {
			return 0, nil
		}
		w.noteSize(&st, o.meta.Size)
		return 1, w.addEntry(d, name, p, evidence.OpModify, st.Mode)
	case sameContent(d, l, name, &st, true):
		// Only its ctime or inode changed, and it holds what the
		// original does: chmod to the mode it had, a rewrite of the
		// same bytes with the time put back.
		return 0, nil
	default:
		w.noteSize(&st, o.meta.Size)
		return 1, w.addEntry(d, name, p, evidence.OpModify, st.Mode)
	}
}

// openRegularAt opens the regular file name in the directory dfd (or
// AT_FDCWD) to read, following no link and blocking on nothing (a FIFO
// put there meanwhile), and stats it: errNotRegular where it is no
// regular file.
func openRegularAt(dfd int, name string) (*os.File, *unix.Stat_t, error) {
	fd, err := unix.Openat(dfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	return regularOf(fd, name)
}

// regularOf is the open file fd, named name, where it is a regular file;
// otherwise it is closed.
func regularOf(fd int, name string) (*os.File, *unix.Stat_t, error) {
	f := os.NewFile(uintptr(fd), name)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		f.Close()
		return nil, nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, nil, errNotRegular
	}
	return f, &st, nil
}

var errNotRegular = errors.New("not a regular file")

// sameAsSnapshot says whether the entry name of d, of stat st, holds the
// bytes the snapshot's o summed (a regular file) and the xattrs it read
// (see snapNode; a symlink has none). An entry whose bytes or xattrs
// cannot be read is taken as changed.
func sameAsSnapshot(d *dirFD, name string, st *unix.Stat_t, o *snapNode) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return true
	case unix.S_IFREG:
		if o.sum == nil {
			return true // none taken
		}
		sum, x, err := sumAndXattrs(d.fd, name)
		return err == nil && sum == *o.sum && x == o.xattrs && x != unreadable
	}
	x := xattrStateAt(d, name)
	return x == o.xattrs && x != unreadable
}

// sumAndXattrs returns the SHA-256 of the regular file name in the
// directory dfd, opened without following a link, and its xattrs
// (xattrsOf).
func sumAndXattrs(dfd int, name string) ([sha256.Size]byte, string, error) {
	var sum [sha256.Size]byte
	f, _, err := openRegularAt(dfd, name)
	if err != nil {
		return sum, "", err
	}
	defer f.Close()
	x := xattrsOf(int(f.Fd()))
	sum, err = sumOf(f)
	return sum, x, err
}

// xattrsOf is the open file fd's user xattrs and ACLs as the snapshot
// keeps them: "" for none, unreadable, or the SHA-256 of their
// xattrState, so that a tree whose files hold large xattrs does not fill
// the init's memory.
func xattrsOf(fd int) string { return xattrDigest(xattrState(fd)) }

// xattrStateAt is xattrsOf for the entry name of d, not opened (a fifo or
// a device node is better not).
func xattrStateAt(d *dirFD, name string) string {
	x, err := xattrsAt(d, name, copyXattrSet)
	if err != nil {
		return unreadable
	}
	return xattrDigest(xattrString(x))
}

// xattrDigest is the xattrState state as the snapshot keeps it (xattrsOf).
func xattrDigest(state string) string {
	if state == "" || state == unreadable {
		return state
	}
	sum := sha256.Sum256([]byte(state))
	return string(sum[:])
}

// sumOf is the SHA-256 of what is left to read of f.
func sumOf(f *os.File) (sum [sha256.Size]byte, err error) {
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}

func (w *copyWalk) isScrubbed(p relPath) bool {
	_, ok := w.scrubbed[string(p)]
	return ok
}

// sameAsScrubbed is sameContent for a file scrubInPlace rewrote: its bytes
// are compared with clean, what the copy held when the command started,
// its user xattrs and ACLs with the original's (which the copy was given).
func sameAsScrubbed(d, l *dirFD, name string, st *unix.Stat_t, clean []byte) bool {
	if l == nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(clean)) {
		return false
	}
	f, _, err := openRegularAt(d.fd, name)
	if err != nil {
		return false
	}
	defer f.Close()
	xa, erra := xattrs(int(f.Fd()), copyXattrSet)
	xb, errb := xattrsAt(l, name, originalXattrs)
	if erra != nil || errb != nil || !maps.Equal(xa, xb) {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(len(clean))+1))
	return err == nil && bytes.Equal(b, clean)
}

// copyDirChanged is dirChanged for the copy, of the directory o of the
// snapshot: user xattrs are compared with the original's, and ACLs with
// none, when the directory's ctime changed; with those the snapshot read
// when it did not (see snapNode).
func copyDirChanged(o *snapNode, now fileMeta, d, l *dirFD, below int) bool {
	xattrsDiffer := func() bool {
		if o.meta.Ctime == now.Ctime {
			x := xattrsOf(d.fd)
			return x != o.xattrs || x == unreadable
		}
		return l == nil || !xattrsEqual(d.fd, l.fd, copyXattrSet, originalXattrs)
	}
	return dirChanged(o.meta, now, xattrsDiffer, below)
}

// newDir records the directory name of d (at p), which is new, and what
// is in it; itself (when standalone) only when nothing is.
func (w *copyWalk) newDir(d *dirFD, name string, p relPath, standalone bool) (int, error) {
	child, err := d.sub(name)
	if err != nil {
		return 0, pathError("opening", p, err)
	}
	var k int
	err = enter(d, child, nil, nil, func() (err error) {
		k, err = w.walk(child, nil, nil, p)
		return err
	})
	if err == nil && standalone && k == 0 {
		w.add(p, evidence.OpCreate, "dir")
		k = 1
	}
	return k, err
}

// leaves records the snapshot's entry o (at p) deleted, as the overlay's
// lowerLeaves does: a directory by every file and empty directory under
// it, and by itself where it was empty or is the one removed (top).
func (w *copyWalk) leaves(o *snapNode, p relPath, top bool) int {
	n := 0
	for name, kid := range o.kids {
		n += w.leaves(kid, p.join(name), false)
	}
	if top || n == 0 {
		w.add(p, evidence.OpDelete, "")
		if isDir(o.meta.Mode) {
			w.was(o.meta.Mode) // a directory, said so
		} else {
			w.rn.noteDeleted(&w.record, o.meta, o.sum)
		}
		n++
	}
	return n
}

// copyTree copies src into dst (which must not exist) as exactly as the
// sandbox's user namespace allows, so that the command sees the tree it
// would see through an overlay: modes with the setuid, setgid and sticky
// bits (set after the content, which would clear them, and after a
// directory's entries, which a 0555 directory would refuse), owners where
// the namespace maps them, access and modification times, user xattrs
// (not ACLs, which may name users the namespace does not map: the copy has
// none), symlinks (not followed), fifos and sockets. A device node becomes a
// character device 0,0 with the node's mode (a user namespace may make no
// other; it opens as nothing, as a device on the overlay's nodev mount
// does), or an empty regular file where even that is refused. Hard links
// are copied as separate files.
func copyTree(src, dst string) error {
	s, err := openDir(src)
	if err != nil {
		return err
	}
	defer s.close()
	var st unix.Stat_t
	if err := unix.Fstat(s.fd, &st); err != nil {
		return err
	}
	if err := unix.Mkdir(dst, 0o700); err != nil {
		return &os.PathError{Op: "mkdir", Path: dst, Err: err}
	}
	d, err := openDir(dst)
	if err != nil {
		return err
	}
	defer d.close()
	copyXattrs(s.fd, d.fd, originalXattrs)
	c := &copier{buf: make([]byte, direntBuf), uid: os.Geteuid(), gid: os.Getegid()}
	if err := c.tree(s, d, nil); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := c.finish(unix.AT_FDCWD, dst, &st); err != nil {
		return fmt.Errorf("copying %s: %w", src, err)
	}
	return nil
}

type copier struct {
	buf      []byte
	uid, gid int // what a new file belongs to
}

// tree copies the entries of s into d (at p).
func (c *copier) tree(s, d *dirFD, p relPath) error {
	names, err := s.names(c.buf)
	if err != nil {
		return pathError("reading", p, err)
	}
	for _, name := range names {
		cp := p.join(name)
		st, err := s.stat(name)
		if err != nil {
			return pathError("stat", cp, err)
		}
		if err := c.entry(s, d, name, cp, &st); err != nil {
			return pathError("copying", cp, err)
		}
		if err := c.finish(d.fd, name, &st); err != nil {
			return pathError("copying", cp, err)
		}
	}
	return nil
}

func (c *copier) entry(s, d *dirFD, name string, p relPath, st *unix.Stat_t) error {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		if err := unix.Mkdirat(d.fd, name, 0o700); err != nil {
			return err
		}
		sc, err := s.sub(name)
		if err != nil {
			return err
		}
		dc, err := d.sub(name)
		if err != nil {
			sc.close()
			return err
		}
		copyXattrs(sc.fd, dc.fd, originalXattrs)
		return enter(s, sc, d, dc, func() error { return c.tree(sc, dc, p) })
	case unix.S_IFREG:
		return copyFileAt(s.fd, d.fd, name, st)
	case unix.S_IFLNK:
		target, err := safewrite.Readlinkat(s.fd, name)
		if err != nil {
			return err
		}
		return unix.Symlinkat(target, d.fd, name)
	case unix.S_IFIFO:
		return unix.Mkfifoat(d.fd, name, 0o600)
	case unix.S_IFSOCK:
		return unix.Mknodat(d.fd, name, unix.S_IFSOCK|0o600, 0)
	default:
		if err := unix.Mknodat(d.fd, name, unix.S_IFCHR|0o600, 0); err == nil {
			return nil
		}
		fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		return unix.Close(fd)
	}
}

// finish gives the copy name of dirfd the owner, mode and times of st:
// after its content and entries, the owner before the mode (a chown
// clears setuid and setgid).
func (c *copier) finish(dirfd int, name string, st *unix.Stat_t) error {
	// An owner the namespace does not map cannot be given: the copy
	// keeps the init's, which everything here is made with.
	if int(st.Uid) != c.uid || int(st.Gid) != c.gid {
		_ = unix.Fchownat(dirfd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFLNK {
		if err := unix.Fchmodat(dirfd, name, st.Mode&0o7777, 0); err != nil {
			return err
		}
	}
	return unix.UtimesNanoAt(dirfd, name, []unix.Timespec{st.Atim, st.Mtim}, unix.AT_SYMLINK_NOFOLLOW)
}

// copyFileAt copies the regular file name of srcDir, which st describes,
// into dstDir. The file is opened without blocking (were a fifo there
// now, a plain open would wait for a writer forever) and copied only if
// it is still the file st describes.
func copyFileAt(srcDir, dstDir int, name string, st *unix.Stat_t) error {
	fi, err := unix.Openat(srcDir, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return err
	}
	var fst unix.Stat_t
	if err := unix.Fstat(fi, &fst); err != nil {
		unix.Close(fi)
		return err
	}
	if fst.Mode&unix.S_IFMT != unix.S_IFREG || fst.Dev != st.Dev || fst.Ino != st.Ino {
		unix.Close(fi)
		return errChanged
	}
	in := os.NewFile(uintptr(fi), name)
	defer in.Close()
	fo, err := unix.Openat(dstDir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	out := os.NewFile(uintptr(fo), name)
	_, err = io.Copy(out, in)
	copyXattrs(fi, fo, originalXattrs)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// errChanged says that an entry was replaced between its stat and its
// opening. The trees a walk reads do not change under it (the command is
// gone, or has not started); this one did.
var errChanged = errors.New("it changed while it was read")

// Walking by descriptors.

// direntBuf is the size of the buffer a walk reads directory entries into.
const direntBuf = 32 << 10

// maxDepth is how many levels below its root a walk goes at most. A tree
// nested deeper is an error (errTooDeep): the copy method refuses it, and a
// command that nests one is told the record could not be read, beside its
// egress record. Unbounded, a walk's stack grows with the depth, and a
// command that nested directories 300,000 deep (a thousand chains of a
// thousand, linked by rename, take a second) overflowed the init's: the
// run ended without a result. At maxDepth the stack stays under 32 MiB. No
// tree a build reads is nested anywhere near this deep.
const maxDepth = 10000

var errTooDeep = fmt.Errorf("the tree is nested deeper than %d levels", maxDepth)

// keepOpen is how many levels of a walk's directories, from its root down,
// stay open while the walk is below them. A deeper directory is closed
// while the walk is two levels below it, and opened again after (see sub
// and enter); keepOpen spares the shallow trees most walks read that work.
const keepOpen = 64

// A dirFD is a directory of a walk, open (fd) or closed meanwhile (fd -1),
// and its identity.
type dirFD struct {
	fd       int
	dev, ino uint64
	depth    int    // levels below the walk's root
	parent   *dirFD // nil for the root
}

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

func openDir(path string) (*dirFD, error) {
	fd, err := unix.Open(path, dirFlags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return newDirFD(fd)
}

// sub opens the subdirectory name of d, never through a symlink; walk it
// with enter. So that the descriptors a walk holds do not grow with its
// depth, d's parent is closed meanwhile when it is keepOpen levels deep or
// more. enter opens it again through d's "..", which needs search
// permission on d: opening an entry of d proved that the walk has it.
// (Closing d instead, as soon as one of its children is open, could leave
// no way back but the child's "..", which a directory the walk cannot
// search refuses: one whose owner the user namespace does not map, mode
// 0644, can be opened and listed, not searched.)
//
// A subdirectory deeper than maxDepth is errTooDeep.
func (d *dirFD) sub(name string) (*dirFD, error) {
	if d.depth >= maxDepth {
		return nil, errTooDeep
	}
	fd, err := unix.Openat(d.fd, name, dirFlags, 0)
	if err != nil {
		return nil, err
	}
	child, err := newDirFD(fd)
	if err != nil {
		return nil, err
	}
	child.depth, child.parent = d.depth+1, d
	if g := d.parent; g != nil && g.depth >= keepOpen {
		g.close()
	}
	return child, nil
}

func newDirFD(fd int) (*dirFD, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &dirFD{fd: fd, dev: st.Dev, ino: st.Ino}, nil
}

func (d *dirFD) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// names lists the entries of d, "." and ".." left out. Call it once per
// opening: it reads from the descriptor's offset.
func (d *dirFD) names(buf []byte) ([]string, error) {
	var names []string
	err := eachDirent(d.fd, buf, func(name []byte, _ byte) { names = append(names, string(name)) })
	if err != nil {
		return nil, err
	}
	return names, nil
}

// eachDirent calls f with the name (in buf: valid during the call) and
// type (DT_*) of every entry of the open directory fd but . and .., read
// with getdents64 into buf: no allocation and no stat per entry. It reads
// until getdents64 returns nothing: a read that fills less than buf is
// not a directory's end on every file system, nor always on ext4, which
// was seen to end one read early (docs/performance.md, The work tree's
// walk).
func eachDirent(fd int, buf []byte, f func(name []byte, typ byte)) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name.
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return fmt.Errorf("a malformed directory entry")
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) != "." && string(name) != ".." {
				f(name, b[18])
			}
			b = b[reclen:]
		}
	}
}

func (d *dirFD) stat(name string) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	return st, err
}

// enter runs fn, which walks a, a subdirectory of pa that pa.sub opened,
// and b, one of pb (b and pb may be nil). It then closes the children,
// after opening a parent that the walk below closed (see sub) again
// through its child's "..".
func enter(pa, a, pb, b *dirFD, fn func() error) error {
	err := fn()
	for _, pc := range [][2]*dirFD{{pa, a}, {pb, b}} {
		parent, child := pc[0], pc[1]
		if child == nil {
			continue
		}
		if parent.fd < 0 {
			if rerr := parent.reopen(child); err == nil {
				err = rerr
			}
		}
		child.close()
	}
	return err
}

// reopen opens d again through its child's "..", which must be the same
// directory (the trees walked do not change under the record: the command
// is gone).
func (d *dirFD) reopen(child *dirFD) error {
	fd, err := unix.Openat(child.fd, "..", dirFlags, 0)
	if err != nil {
		return fmt.Errorf("reopening a directory: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return fmt.Errorf("reopening a directory: %w", err)
	}
	if st.Dev != d.dev || st.Ino != d.ino {
		unix.Close(fd)
		return errors.New("a directory moved while the record was read")
	}
	d.fd = fd
	return nil
}

// An xattrSet says which extended attributes of a file a walk reads:
// every user.* one, in a layer of an overlay (layer) less overlayfs's own
// (see overlayOwn), and, when acls, the POSIX ACLs. The ACLs are read as
// the kernel gives them, the ids they name as the user namespace sees
// them.
type xattrSet struct{ layer, acls bool }

var (
	// layerXattrs: a layer of an overlay, the upper or the lower;
	// copy-up keeps the ACLs.
	layerXattrs = xattrSet{layer: true, acls: true}
	// copyXattrSet: the copy method's copy, which copyTree gives no
	// ACLs, so that those it has are the command's.
	copyXattrSet = xattrSet{acls: true}
	// originalXattrs: what the copy is made from, as far as copyTree
	// copies it.
	originalXattrs = xattrSet{}
)

const (
	aclAccess  = "system.posix_acl_access"
	aclDefault = "system.posix_acl_default"
)

func (x xattrSet) has(name string) bool {
	if strings.HasPrefix(name, "user.") {
		return !x.layer || !overlayOwn(name)
	}
	return x.acls && (name == aclAccess || name == aclDefault)
}

// xattrs reads the extended attributes of set of the open file fd. A file
// system without xattrs has none.
func xattrs(fd int, set xattrSet) (map[string]string, error) {
	return readXattrs(func(b []byte) (int, error) { return unix.Flistxattr(fd, b) },
		func(name string, b []byte) (int, error) { return unix.Fgetxattr(fd, name, b) }, set)
}

// xattrsAt is xattrs for the entry name of d, which need not be opened (a
// fifo or a device node is better not). It goes by d's path in /proc, not
// by a path from the root, which could be too long to use.
func xattrsAt(d *dirFD, name string, set xattrSet) (map[string]string, error) {
	p := "/proc/self/fd/" + strconv.Itoa(d.fd) + "/" + name
	return readXattrs(func(b []byte) (int, error) { return unix.Llistxattr(p, b) },
		func(name string, b []byte) (int, error) { return unix.Lgetxattr(p, name, b) }, set)
}

// readXattrs reads the extended attributes of set of a file through list
// and get (listxattr and getxattr).
func readXattrs(list func([]byte) (int, error), get func(string, []byte) (int, error), set xattrSet) (map[string]string, error) {
	var names []byte
	for {
		sz, err := list(nil)
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) {
			return nil, nil
		}
		if err != nil || sz == 0 {
			return nil, err
		}
		names = make([]byte, sz)
		sz, err = list(names)
		if errors.Is(err, unix.ERANGE) {
			continue // it grew
		}
		if err != nil {
			return nil, err
		}
		names = names[:sz]
		break
	}
	var m map[string]string
	for _, b := range bytes.Split(names, []byte{0}) {
		name := string(b)
		if !set.has(name) {
			continue
		}
		v, err := getXattr(get, name)
		if errors.Is(err, unix.ENODATA) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]string{}
		}
		m[name] = v
	}
	return m, nil
}

func getXattr(get func(string, []byte) (int, error), name string) (string, error) {
	for {
		sz, err := get(name, nil)
		if err != nil {
			return "", err
		}
		buf := make([]byte, sz)
		sz, err = get(name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue
		}
		if err != nil {
			return "", err
		}
		return string(buf[:sz]), nil
	}
}

// overlayOwn says whether the xattr name of a file in a layer of an
// overlay mounted with userxattr is overlayfs's own (user.overlay.opaque,
// .origin, ...). Such names are not the command's: the merged mount hides
// them, and it refuses to copy them up. The exception is an escaped name,
// user.overlay.overlay.X: the merged mount shows it as user.overlay.X, and
// stores there a user.overlay.X the command sets (since Linux 6.7; before
// it refused such names). Kept by their stored names, a layer's xattrs are
// compared as the command sees them, which a plain directory's own
// user.overlay.X then is not: the merged mount hides it from the command.
func overlayOwn(name string) bool {
	return strings.HasPrefix(name, "user.overlay.") && !strings.HasPrefix(name, "user.overlay.overlay.")
}

// xattrsEqual says whether the open files a and b have the same extended
// attributes, those of sa and sb.
func xattrsEqual(a, b int, sa, sb xattrSet) bool {
	xa, erra := xattrs(a, sa)
	xb, errb := xattrs(b, sb)
	return erra == nil && errb == nil && maps.Equal(xa, xb)
}

// copyXattrs gives to the extended attributes of set of from, where it
// can: a file system without them leaves a copy without them, ACLs that
// name ids the user namespace does not map are not copied. From a layer,
// overlay's own are left out, as overlay's copy-up does.
func copyXattrs(from, to int, set xattrSet) {
	x, _ := xattrs(from, set)
	for name, v := range x {
		_ = unix.Fsetxattr(to, name, []byte(v), 0)
	}
}

// A relPath is a path under a walk's root, built by appending names to its
// parent's. Siblings share the bytes after the parent's: turn it into a
// string before the next sibling is joined, never keep the slice.
type relPath []byte

func (p relPath) join(name string) relPath {
	if len(p) == 0 {
		return append(p, name...)
	}
	return append(append(p, '/'), name...)
}

// pathError names the path an error happened at, cut in the middle when
// it is long (paths here can be longer than PATH_MAX).
func pathError(op string, p relPath, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return err // named deeper down
	}
	s := string(p)
	if s == "" {
		s = "."
	}
	if len(s) > 200 {
		s = s[:100] + "…" + s[len(s)-100:]
	}
	return &os.PathError{Op: op, Path: s, Err: err}
}

// record collects the writes of a walk.
type record struct {
	prefix string
	out    []evidence.Write
	buf    []byte // directory entries
	bytes  int    // of the paths in out, and of those left out
	full   bool   // out has been cut: its paths passed maxResult
	// atLimit says a regular file the run created, or changed the size
	// of (noteSize), is of fileLimit bytes (RLIMIT_FSIZE; 0: none
	// looked for). A write that crosses the limit is cut there, and the
	// next fails with EFBIG, so such a file is the trace of a command
	// that met the limit, though the limit's SIGXFSZ ended nothing:
	// Python and Go ignore it, and a hook may catch the error and go on
	// quietly. A larger file is none: under the limit (soft and hard
	// alike) the command cannot have written it, only moved or linked
	// one of the tree's.
	fileLimit int64
	atLimit   bool
}

// noteSize notes the regular file of st, which the run created or which
// replaced another kind (before < 0) or was before bytes long, for
// atLimit: where its size changed. A file of the tree already as large
// as the limit, changed in place (a chmod, the copy method's), met no
// limit.
func (r *record) noteSize(st *unix.Stat_t, before int64) {
	if r.fileLimit > 0 && st.Size == r.fileLimit && st.Size != before && st.Mode&unix.S_IFMT == unix.S_IFREG {
		r.atLimit = true
	}
}

// sizeOfKind is the size of the entry of lst before the run, where it
// was of the kind of mode (a file then and now); -1 otherwise.
func sizeOfKind(lst *unix.Stat_t, mode uint32) int64 {
	if lst.Mode&unix.S_IFMT != mode&unix.S_IFMT {
		return -1
	}
	return lst.Size
}

func newRecord(prefix string) record {
	return record{prefix: prefix, buf: make([]byte, direntBuf)}
}

func (r *record) add(p relPath, op evidence.Op, kind string) { r.addTarget(p, op, kind, "") }

// was gives the write just added the kind its path had before the run,
// where that differs from its kind now: a modify that replaced one kind
// by another, or the delete of an empty directory (a delete has no kind),
// which wrote-only must tell from a change to a directory it may write in.
func (r *record) was(mode uint32) {
	if k := kindOf(mode); len(r.out) > 0 && !r.full && r.out[len(r.out)-1].Kind != k {
		r.out[len(r.out)-1].Was = k
	}
}

// addEntry records the entry name of d (at p), of mode, created or
// modified: a symlink with its target, read from d.
func (r *record) addEntry(d *dirFD, name string, p relPath, op evidence.Op, mode uint32) error {
	var target string
	if mode&unix.S_IFMT == unix.S_IFLNK {
		t, err := safewrite.Readlinkat(d.fd, name)
		if err != nil {
			return pathError("readlink", p, err)
		}
		target = t
	}
	r.addTarget(p, op, kindOf(mode), target)
	return nil
}

func (r *record) addTarget(p relPath, op evidence.Op, kind, target string) {
	// A command can make the paths as long as it likes (10,000 levels
	// of 255-byte names), and symlinks' targets up to 4 KiB each: past
	// what a result may hold, the record is only counted, so that the
	// init's memory holds, and the walk ends in an error (tooLarge).
	r.bytes += len(r.prefix) + len(p) + len(target)
	if r.full || r.bytes > maxResult {
		r.full, r.out = true, nil
		return
	}
	path := r.prefix + string(p)
	if r.prefix == "" {
		path = evidence.TreePath(path) // the tree's "~/x" is not HOME's
	}
	r.out = append(r.out, evidence.Write{Path: path, Op: op, Kind: kind, Target: target})
}

// tooLarge is the error of a walk whose record passed maxResult.
func (r *record) tooLarge() error {
	if !r.full {
		return nil
	}
	return fmt.Errorf("the write record is too large to report: %d MiB of paths (at most %d MiB of JSON); nothing the command wrote is reported", r.bytes>>20, maxResult>>20)
}
