package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// Renames. A rename is recorded as the delete of the old path and the
// create of the new one; the create names the old path (Write.From) where
// the record proves that the new name holds the file the tree had at the
// old one, unchanged. Both methods apply one rule, so that they record a
// run alike:
//
//   - the created path is a regular file at a path the tree did not have;
//   - it is a file of the tree's, not one the run made: in overlay mode
//     its upper file carries overlayfs's origin mark (user.overlay.origin,
//     set by a copy-up, which a rename or link of a lower file makes; the
//     command cannot set it: the merged mount stores a user.overlay.X it
//     sets as user.overlay.overlay.X), and no name of its upper inode is a
//     path the tree had (ln a b: b is a, still there); in copy mode its
//     inode is that of the file it is matched with, below;
//   - exactly one regular file the run deleted (a delete entry, not a path
//     that now holds something else) has its mode, owner, size and mtime,
//     and the same bytes (summed, SHA-256, as the copy method's snapshot
//     sums them) and extended attributes (user xattrs, ACLs, as a modify
//     compares them: a user granted read by an ACL that leaves the mode
//     as it was is a change), compared where the file holds at most
//     sameContentMax bytes (a larger one gets no From);
//   - no directory the tree had and the run renamed holds it now: overlay
//     refuses to rename such a directory (EXDEV, mv copies it), so in copy
//     mode, where the rename works, what it moved is not taken for renamed.
//
// Where none or several files match (two alike deleted, one moved), the
// create has no From.

// A walk notes, as it goes, the metadata of each regular file it records
// created (in copy mode, none under a directory of the tree's renamed) or
// deleted, by its entry's index in the record (no path is kept twice),
// and the upper inodes with a name at a path the tree had. Files are read
// once the walk is done, and only where a created file and a deleted one
// match in metadata.
type renames struct {
	created, deleted renamedList
	// atOldPath holds the upper inodes (overlay) that have a name at a
	// path the lower tree had.
	atOldPath map[uint64]bool
	// sameInode: the match must be the same inode (the copy method).
	sameInode bool
}

// renamed is a regular file the record lists created or deleted: what
// the rule compares of it, kept small (a record can list a million).
type renamed struct {
	key renameKey
	ino uint64
	at  int                // its entry in the record's out
	sum *[sha256.Size]byte // a deleted file's, where the snapshot has it
}

// renameKey is the metadata a renamed file keeps.
type renameKey struct {
	mode, uid, gid uint32
	size           int64
	mtime          unix.Timespec
}

func renamedOf(at int, m fileMeta, sum *[sha256.Size]byte) renamed {
	return renamed{key: renameKey{m.Mode, m.Uid, m.Gid, m.Size, m.Mtime}, ino: m.Ino, at: at, sum: sum}
}

// renameSides reads, after a walk, the two sides a rename is matched
// across: a file's bytes and its extended attributes, as the walk
// compares them for a modify (a user xattr, an ACL that leaves the mode
// as it was), summed together (renameSum); rel is a path under the walk's
// root. nil where they cannot be read, or (created, overlay) where the
// upper file carries no origin mark, so is no file of the tree's.
// deletedSum is given the sum of the deleted file's bytes where the walk
// has it (the copy method's snapshot), and nil where it has not.
type renameSides interface {
	createdSum(rel string) *[sha256.Size]byte
	deletedSum(rel string, bytes *[sha256.Size]byte) *[sha256.Size]byte
}

func fitsRename(m fileMeta) bool {
	return m.Mode&unix.S_IFMT == unix.S_IFREG && m.Size <= sameContentMax
}

// noteCreated notes the entry just recorded, a create of m, as one that
// may be a renamed file.
func (rn *renames) noteCreated(r *record, m fileMeta) {
	if fitsRename(m) && !r.full && len(r.out) > 0 {
		rn.created.add(renamedOf(len(r.out)-1, m, nil))
	}
}

// noteDeleted notes the entry just recorded, the delete of what m was
// (sum: its bytes, where known), as one that a renamed file may be.
func (rn *renames) noteDeleted(r *record, m fileMeta, sum *[sha256.Size]byte) {
	if fitsRename(m) && !r.full && len(r.out) > 0 {
		rn.deleted.add(renamedOf(len(r.out)-1, m, sum))
	}
}

func (rn *renames) noteAtOldPath(ino uint64) {
	if rn.atOldPath == nil {
		rn.atOldPath = map[uint64]bool{}
	}
	rn.atOldPath[ino] = true
}

// originMarked says whether the open upper file fd carries overlayfs's
// origin mark, as a file copied up from the lower layer does.
func originMarked(fd int) bool {
	for _, x := range []string{"user.overlay.origin", "trusted.overlay.origin"} {
		if _, err := unix.Fgetxattr(fd, x, nil); err == nil {
			return true
		}
	}
	return false
}

// link gives each created entry of the record that is proven a renamed
// file its From. Each file is summed once at most, and only one whose
// metadata matches a file on the other side; the deleted files alike in
// metadata are indexed by their sums once, so that each created file is
// looked up, not compared with every one of them (a tree a tar or npm
// extracted gives thousands one mtime): the work stays linear in the
// files the record lists.
func (rn *renames) link(r *record, sides renameSides) {
	if r.full || r.prefix != "" || rn.created.n == 0 || rn.deleted.n == 0 {
		return
	}
	byKey := map[renameKey]*renameGroup{}
	rn.deleted.each(func(g *renamed) {
		grp := byKey[g.key]
		if grp == nil {
			grp = &renameGroup{}
			byKey[g.key] = grp
		}
		grp.files = append(grp.files, g)
	})
	rn.created.each(func(c *renamed) {
		grp := byKey[c.key]
		if grp == nil || rn.atOldPath[c.ino] || r.bytes > maxResult {
			return
		}
		cs := sides.createdSum(rawTreePath(r.out[c.at].Path))
		if cs == nil {
			return
		}
		// nil where none has these bytes, or several do (which one is
		// not proven).
		match := grp.bySum(r, sides)[*cs]
		if match == nil || rn.sameInode && match.ino != c.ino {
			return
		}
		from := r.out[match.at].Path
		if r.bytes += len(from); r.bytes > maxResult {
			return // a record at its size limit names no more
		}
		r.out[c.at].From = from
	})
}

// renameGroup is the deleted files alike in metadata, indexed by their
// sums the first time a created file asks.
type renameGroup struct {
	files []*renamed
	sums  map[[sha256.Size]byte]*renamed // nil: several have the sum
}

func (grp *renameGroup) bySum(r *record, sides renameSides) map[[sha256.Size]byte]*renamed {
	if grp.sums != nil {
		return grp.sums
	}
	grp.sums = map[[sha256.Size]byte]*renamed{}
	for _, g := range grp.files {
		g.sum = sides.deletedSum(rawTreePath(r.out[g.at].Path), g.sum)
		if g.sum == nil {
			continue
		}
		if _, ok := grp.sums[*g.sum]; ok {
			grp.sums[*g.sum] = nil
		} else {
			grp.sums[*g.sum] = g
		}
	}
	return grp.sums
}

// renamedList holds renamed files in blocks, so that it grows without
// copying what it holds (and its entries stay where they are): 16
// entries, then twice as many each block up to 4,096.
type renamedList struct {
	blocks [][]renamed
	n      int
}

func (l *renamedList) add(e renamed) {
	if k := len(l.blocks); k == 0 || len(l.blocks[k-1]) == cap(l.blocks[k-1]) {
		// The shift stops where the blocks stop growing: 16<<k
		// overflowed from the 60th block on (about 217,000 files), and
		// a command that made that many ended its init in a panic.
		l.blocks = append(l.blocks, make([]renamed, 0, 16<<min(k, 8)))
	}
	k := len(l.blocks) - 1
	l.blocks[k] = append(l.blocks[k], e)
	l.n++
}

func (l *renamedList) each(f func(*renamed)) {
	for _, b := range l.blocks {
		for i := range b {
			f(&b[i])
		}
	}
}

// rawTreePath is the path under the work tree that a recorded path of it
// (evidence.TreePath) names.
func rawTreePath(p string) string { return strings.TrimPrefix(p, "./") }

// overlaySides reads the sides of a rename in an overlay's layers.
type overlaySides struct{ upper, lower int }

func (s overlaySides) createdSum(rel string) *[sha256.Size]byte {
	return sumUnder(s.upper, rel, true, layerXattrs, nil)
}
func (s overlaySides) deletedSum(rel string, _ *[sha256.Size]byte) *[sha256.Size]byte {
	return sumUnder(s.lower, rel, false, layerXattrs, nil)
}

// copySides reads the sides of a rename in the copy method's copy, and,
// for a deleted file, whose bytes the snapshot summed, the xattrs of the
// original it was copied from (lower, -1 where it cannot be opened: no
// deleted file is then matched), as the copy method compares them.
type copySides struct{ copy, lower int }

func (s copySides) createdSum(rel string) *[sha256.Size]byte {
	return sumUnder(s.copy, rel, false, copyXattrSet, nil)
}
func (s copySides) deletedSum(rel string, bytes *[sha256.Size]byte) *[sha256.Size]byte {
	if bytes == nil || s.lower < 0 {
		return nil
	}
	return sumUnder(s.lower, rel, false, originalXattrs, bytes)
}

// sumUnder is the sum (renameSum) of the regular file at rel under the
// directory d, its xattrs of set with the SHA-256 of its bytes, or with
// bytes where given, the file's bytes then not read; nil where it cannot
// be read, or where marked asks for overlayfs's origin mark (an upper
// file copied up from the lower) and it has none.
func sumUnder(d int, rel string, marked bool, set xattrSet, bytes *[sha256.Size]byte) *[sha256.Size]byte {
	fd, err := openUnder(d, rel, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY)
	if err != nil {
		return nil
	}
	f, _, err := regularOf(fd, rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	if marked && !originMarked(fd) {
		return nil
	}
	x, err := xattrs(fd, set)
	if err != nil {
		return nil
	}
	if bytes == nil {
		sum, err := sumOf(f)
		if err != nil {
			return nil
		}
		bytes = &sum
	}
	return renameSum(bytes, x)
}

// renameSum sums a file's bytes' sum and its xattrs, each name and value
// with its length, in the order of their names.
func renameSum(bytes *[sha256.Size]byte, x map[string]string) *[sha256.Size]byte {
	h := sha256.New()
	h.Write(bytes[:])
	for _, name := range slices.Sorted(maps.Keys(x)) {
		for _, s := range []string{name, x[name]} {
			h.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(s))))
			h.Write([]byte(s))
		}
	}
	return (*[sha256.Size]byte)(h.Sum(nil))
}

// openUnder opens the entry at rel under the directory d with flags (and
// O_NOFOLLOW, O_CLOEXEC), following no symlink on the way: in one call
// where openat2 takes it, otherwise one name at a time (rel may be longer
// than PATH_MAX).
func openUnder(d int, rel string, flags int) (int, error) {
	flags |= unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat2(d, rel, &unix.OpenHow{Flags: uint64(flags),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV})
	if err == nil || !errors.Is(err, unix.ENAMETOOLONG) && !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	dir := d
	names := strings.Split(rel, "/")
	for _, name := range names[:len(names)-1] {
		fd, err := unix.Openat(dir, name, dirFlags, 0)
		if dir != d {
			unix.Close(dir)
		}
		if err != nil {
			return -1, err
		}
		dir = fd
	}
	fd, err = unix.Openat(dir, names[len(names)-1], flags, 0)
	if dir != d {
		unix.Close(dir)
	}
	return fd, err
}
