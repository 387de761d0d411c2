package sandbox

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"golang.org/x/sys/unix"
)

// sumsByPath reads the sides of a rename from sums the test chose, one
// per path: what the record's files would hash to.
type sumsByPath map[string]*[sha256.Size]byte

func (s sumsByPath) createdSum(rel string) *[sha256.Size]byte { return s[rel] }
func (s sumsByPath) deletedSum(rel string, _ *[sha256.Size]byte) *[sha256.Size]byte {
	return s[rel]
}

// TestRenameMatchingIsLinear: a run that deletes many files of the tree
// alike in mode, owner, size and mtime (a tree a tar or npm extracted,
// one mtime for all) and creates as many alike in those, each with other
// bytes, is matched file by file through their sums, not each created
// file against every deleted one: 200,000 of each would take some 4e10
// comparisons, minutes, where the link takes a moment. The test does
// not time it; it finishes, or go test's timeout stops it.
func TestRenameMatchingIsLinear(t *testing.T) {
	const n = 200_000
	rn := renames{}
	r := newRecord("")
	sides := sumsByPath{}
	m := fileMeta{Mode: 0o100644, Size: 4}
	sum := func(i int) *[sha256.Size]byte {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(i))
		s := sha256.Sum256(b[:])
		return &s
	}
	for i := range n {
		p := fmt.Sprintf("old/%d", i)
		r.out = append(r.out, evidence.Write{Path: p, Op: evidence.OpDelete})
		sides[p] = sum(i)
		rn.noteDeleted(&r, m, nil)
	}
	for i := range n {
		p := fmt.Sprintf("new/%d", i)
		r.out = append(r.out, evidence.Write{Path: p, Op: evidence.OpCreate, Kind: "file"})
		m.Ino = uint64(i + 1)
		// Other bytes than any deleted file's, but for the last, which
		// is the one renamed file.
		sides[p] = sum(n + i)
		if i == n-1 {
			sides[p] = sum(7)
		}
		rn.noteCreated(&r, m)
	}
	rn.link(&r, sides)
	for _, w := range r.out[n : 2*n-1] {
		if w.From != "" {
			t.Fatalf("%s named from %s, whose bytes it does not have", w.Path, w.From)
		}
	}
	if got := r.out[2*n-1].From; got != "old/7" {
		t.Errorf("the renamed file is from %q, want old/7", got)
	}
}

// TestRenameFromCannotBeForged: a file the command made, alike in every
// way to one of the tree's it deleted, is not named renamed from it,
// whatever overlay xattrs the command sets on it through the merged
// mount (overlay stores them escaped, user.overlay.overlay.*), nor as
// another name of the tree's file of that name.
func TestRenameFromCannotBeForged(t *testing.T) {
	set := func(f string) string {
		return `/usr/bin/python3 -c 'import os
for n in ("user.overlay.origin", "trusted.overlay.origin", "user.overlay.overlay.origin"):
    try: os.setxattr("` + f + `", n, b"\x00\xfb\x21\x00")
    except OSError: pass'`
	}
	files := map[string]string{"a": "aaaa", "keep": "k"}
	del := func(p string) evidence.Write { return evidence.Write{Path: p, Op: "delete"} }
	create := func(p string) evidence.Write { return evidence.Write{Path: p, Op: "create", Kind: "file"} }
	runWritesCases(t, []writesCase{
		{name: "cp -p, origin set, rm", files: files, script: "cp -p a b; " + set("b") + "; touch -r a b; rm a",
			want: []evidence.Write{del("a"), create("b")}},
		{name: "new file, origin set, rm", files: files, script: "cat a > b; chmod --reference=a b; " + set("b") + "; touch -r a b; rm a",
			want: []evidence.Write{del("a"), create("b")}},
	})
}

// TestRenameFromNeedsTheSameXattrs: a renamed file given an xattr of its
// own, or a POSIX ACL that leaves its mode as it was (a user granted
// read, the mask as the group's bits), is changed, as the record calls
// such a change of a file left in place a modify: it names no from.
func TestRenameFromNeedsTheSameXattrs(t *testing.T) {
	files := map[string]string{"a": "aaaa", "keep": "k"}
	del := func(p string) evidence.Write { return evidence.Write{Path: p, Op: "delete"} }
	create := func(p string) evidence.Write { return evidence.Write{Path: p, Op: "create", Kind: "file"} }
	runWritesCases(t, []writesCase{
		// Its own xattr, kept by the rename, is no change.
		{name: "mv with a user xattr of the tree's", files: files, script: "mv a b",
			setup: func(t *testing.T, dir string) {
				if err := unix.Setxattr(filepath.Join(dir, "a"), "user.keep", []byte("1"), 0); err != nil {
					missing(t, fmt.Sprintf("user xattrs on the test's file system (%v)", err))
				}
			},
			want: []evidence.Write{del("a"), {Path: "b", Op: "create", Kind: "file", From: "a"}}},
		{name: "mv then user xattr", files: files, script: `mv a b; /usr/bin/python3 -c 'import os; os.setxattr("b", "user.x", b"1")'`,
			want: []evidence.Write{del("a"), create("b")}},
		{name: "mv then acl", files: files, script: `chmod 644 a; mv a b; /usr/bin/python3 -c 'import os, struct
e = [(1, 6, 0xffffffff), (2, 4, 0), (4, 4, 0xffffffff), (0x10, 4, 0xffffffff), (0x20, 4, 0xffffffff)]
os.setxattr("b", "system.posix_acl_access", struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *x) for x in e))
assert oct(os.stat("b").st_mode) == "0o100644"'`,
			want: []evidence.Write{del("a"), create("b")}},
	})
}
