package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// writesCase is one run whose record must be exactly want, whichever
// method made it.
type writesCase struct {
	name   string
	files  map[string]string              // nil: a tree holding "keep"
	setup  func(t *testing.T, dir string) // after files
	script string
	want   []evidence.Write
	check  func(t *testing.T, method string, res *Result) // more to check
}

// runWritesCases runs each case with the overlay and the copy method.
func runWritesCases(t *testing.T, cases []writesCase) {
	t.Helper()
	requireConfinement(t)
	for _, method := range []string{"overlay", "copy"} {
		for _, tt := range cases {
			t.Run(method+"/"+tt.name, func(t *testing.T) {
				files := tt.files
				if files == nil {
					files = map[string]string{"keep": "k"}
				}
				dir := makeTree(t, files)
				if tt.setup != nil {
					tt.setup(t, dir)
				}
				res := run(t, Spec{Dir: dir, Command: sh(tt.script), WritesMethod: method})
				if res.ExitCode != 0 || res.Error != "" {
					t.Fatalf("exit %d error %q stderr %q", res.ExitCode, res.Error, res.Stderr)
				}
				if res.WritesMethod != method {
					t.Errorf("writesMethod = %q, want %q", res.WritesMethod, method)
				}
				want := append([]evidence.Write{}, tt.want...)
				sortWrites(want)
				if d := cmp.Diff(want, res.Writes); d != "" {
					t.Errorf("writes (-want +got):\n%s", short(d))
				}
				if tt.check != nil {
					tt.check(t, method, res)
				}
			})
		}
	}
}

// short cuts the long paths of a diff for reading.
func short(s string) string {
	return strings.ReplaceAll(s, strings.Repeat("a", 200), "a×200")
}

// deepName is a directory name of 200 bytes; deepDirs of them nest past
// PATH_MAX (4096).
var deepName = strings.Repeat("a", 200)

const deepDirs = 30

func deepPath(top string) string {
	p := top
	for i := 0; i < deepDirs; i++ {
		p += "/" + deepName
	}
	return p
}

// makeDeep makes top/deepName/.../deepName/f under dir, one level at a
// time (a path that long cannot be opened whole).
func makeDeep(t *testing.T, dir, top string) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append([]string{top}, strings.Split(strings.Repeat(deepName+" ", deepDirs), " ")[:deepDirs]...) {
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = sub
	}
	defer unix.Close(fd)
	f, err := unix.Openat(fd, "f", unix.O_WRONLY|unix.O_CREAT, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	unix.Write(f, []byte("deep\n"))
	unix.Close(f)
}

// TestWritesExactDeepPaths: paths longer than PATH_MAX, made by the command
// (in the tree and in HOME) or there before (and deleted), are recorded
// whole; they made the record an error ("file name too long").
func TestWritesExactDeepPaths(t *testing.T) {
	nest := `n=` + deepName + `; for i in $(seq ` + fmt.Sprint(deepDirs) + `); do mkdir $n && cd $n || exit 1; done; echo > f`
	runWritesCases(t, []writesCase{
		{name: "made by the command", script: `(mkdir new && cd new && ` + nest + `) && (cd ~ && mkdir new && cd new && ` + nest + `)`,
			want: []evidence.Write{
				{Path: deepPath("new") + "/f", Op: "create", Kind: "file"},
				{Path: "~/" + deepPath("new") + "/f", Op: "create", Kind: "file"},
			}},
		{name: "in the tree, modified", setup: func(t *testing.T, dir string) { makeDeep(t, dir, "old") },
			script: `cd old && for i in $(seq ` + fmt.Sprint(deepDirs) + `); do cd ` + deepName + ` || exit 1; done; echo more >> f; echo > g`,
			want: []evidence.Write{
				{Path: deepPath("old") + "/f", Op: "modify", Kind: "file"},
				{Path: deepPath("old") + "/g", Op: "create", Kind: "file"},
			}},
		{name: "in the tree, deleted", setup: func(t *testing.T, dir string) { makeDeep(t, dir, "old") },
			script: `rm -rf old`,
			want:   []evidence.Write{{Path: "old", Op: "delete", Was: "dir"}, {Path: deepPath("old") + "/f", Op: "delete"}}},
	})
}

// TestWritesExactDeletedEmptyDirs: a deleted or renamed directory is
// listed by itself, its files and its empty directories, which nothing
// else stands for (overlay listed the files only; neither listed the
// directory itself, so rm -r d read as rm d/*); the directories between
// are gone with it.
func TestWritesExactDeletedEmptyDirs(t *testing.T) {
	files := map[string]string{"d/f1": "1", "d/sub/f2": "2", "d/emptysub/": ""}
	runWritesCases(t, []writesCase{
		{name: "rm -rf", files: files, script: "rm -rf d", want: []evidence.Write{
			{Path: "d", Op: "delete", Was: "dir"}, {Path: "d/emptysub", Op: "delete", Was: "dir"}, {Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "delete"}}},
		{name: "rm of the files alone", files: files, script: "rm d/f1 d/sub/f2", want: []evidence.Write{
			{Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "delete"}}},
		{name: "mv", files: files, script: "mv d e", want: []evidence.Write{
			{Path: "d", Op: "delete", Was: "dir"}, {Path: "d/emptysub", Op: "delete", Was: "dir"}, {Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "delete"},
			{Path: "e/emptysub", Op: "create", Kind: "dir"}, {Path: "e/f1", Op: "create", Kind: "file"}, {Path: "e/sub/f2", Op: "create", Kind: "file"}}},
		{name: "an empty dir", files: map[string]string{"keep": "k", "e/": ""}, script: "rmdir e", want: []evidence.Write{{Path: "e", Op: "delete", Was: "dir"}}},
	})
}

// TestWritesExactReplacedPath: a path there before and after the run is
// one entry, a modify with its kind now, and its kind before where that
// differs (overlay gave a create and a delete of one path, sorted as if
// the path were gone; without "was" a file replaced by a directory passed
// a wrote-only of that directory's contents).
func TestWritesExactReplacedPath(t *testing.T) {
	files := map[string]string{"a.txt": "a", "d/f1": "1", "d/sub/f2": "2"}
	runWritesCases(t, []writesCase{
		{name: "file by dir", files: files, script: "rm a.txt; mkdir a.txt",
			want: []evidence.Write{{Path: "a.txt", Op: "modify", Kind: "dir", Was: "file"}}},
		{name: "file by dir with a file", files: files, script: "rm a.txt; mkdir -p a.txt/x; echo > a.txt/x/f",
			want: []evidence.Write{{Path: "a.txt", Op: "modify", Kind: "dir", Was: "file"}, {Path: "a.txt/x/f", Op: "create", Kind: "file"}}},
		{name: "dir made again", files: files, script: "rm -rf d; mkdir -p d/sub; echo f2 > d/sub/f2",
			want: []evidence.Write{{Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "modify", Kind: "file"}}},
		{name: "dir by file", files: files, script: "rm -rf d; echo x > d",
			want: []evidence.Write{{Path: "d", Op: "modify", Kind: "file", Was: "dir"}, {Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "delete"}}},
		{name: "file by symlink", files: files, script: "rm a.txt; ln -s d a.txt",
			want: []evidence.Write{{Path: "a.txt", Op: "modify", Kind: "symlink", Target: "d", Was: "file"}}},
	})
}

// TestWritesExactLinksAndRenames: hard links, renames over a path, a
// directory made again and renamed onto another, two paths exchanged
// (renameat2 RENAME_EXCHANGE), a file made unnamed (O_TMPFILE) and linked
// in, a retargeted symlink, fifos and sockets, and an entry made and
// removed again are recorded alike by both methods, each path once, as it
// ends against how it began.
func TestWritesExactLinksAndRenames(t *testing.T) {
	files := map[string]string{"a": "aaaa", "b": "bbbb", "d/f1": "1", "d/sub/f2": "2", "e/": ""}
	sock := `/usr/bin/python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("s")'`
	// renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE), which
	// fails the run where it fails.
	exchange := func(from, to string) string {
		return `/usr/bin/python3 -c 'import ctypes, os, sys; c = ctypes.CDLL(None, use_errno=True)
if c.renameat2(-100, b"` + from + `", -100, b"` + to + `", 2) != 0: sys.exit(os.strerror(ctypes.get_errno()))'`
	}
	// A file made unnamed in d and linked in as d/n (linkat of its
	// /proc/self/fd link, AT_SYMLINK_FOLLOW).
	tmpfile := `/usr/bin/python3 -c 'import ctypes, os, sys; c = ctypes.CDLL(None, use_errno=True)
fd = os.open("d", os.O_TMPFILE | os.O_WRONLY, 0o644); os.write(fd, b"n")
if c.linkat(-100, b"/proc/self/fd/%d" % fd, -100, b"d/n", 0x400) != 0: sys.exit(os.strerror(ctypes.get_errno()))'`
	runWritesCases(t, []writesCase{
		{name: "hard link over a file", files: files, script: "ln -f a b",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, {Path: "b", Op: "modify", Kind: "file"}}},
		{name: "hard link written through", files: files, script: "ln a c; echo more >> c",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, {Path: "c", Op: "create", Kind: "file"}}},
		{name: "rename over a file", files: files, script: "mv a b",
			want: []evidence.Write{{Path: "a", Op: "delete"}, {Path: "b", Op: "modify", Kind: "file"}}},
		{name: "dir made again, renamed onto another", files: files, script: "rm -rf d e; mkdir d; echo > d/x; mv d e",
			want: []evidence.Write{{Path: "d", Op: "delete", Was: "dir"}, {Path: "d/f1", Op: "delete"}, {Path: "d/sub/f2", Op: "delete"}, {Path: "e/x", Op: "create", Kind: "file"}}},
		{name: "new dir renamed over a deleted one", files: files, script: "rm -rf d; mkdir x; mv x d",
			want: []evidence.Write{{Path: "d/f1", Op: "delete"}, {Path: "d/sub", Op: "delete", Was: "dir"}, {Path: "d/sub/f2", Op: "delete"}}},
		{name: "files exchanged", files: files, script: exchange("a", "b"),
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, {Path: "b", Op: "modify", Kind: "file"}}},
		{name: "file exchanged with a new directory", files: files, script: "mkdir n; echo > n/z; " + exchange("a", "n"),
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "dir", Was: "file"}, {Path: "a/z", Op: "create", Kind: "file"}, {Path: "n", Op: "create", Kind: "file"}}},
		{name: "unnamed file linked in", files: files, script: tmpfile,
			want: []evidence.Write{{Path: "d/n", Op: "create", Kind: "file"}}},
		{name: "symlink retargeted", files: files, script: "ln -s a l; ln -sfn b l",
			want: []evidence.Write{{Path: "l", Op: "create", Kind: "symlink", Target: "b"}}},
		{name: "fifo and socket", files: files, script: "mkfifo p; " + sock,
			want: []evidence.Write{{Path: "p", Op: "create", Kind: "other"}, {Path: "s", Op: "create", Kind: "other"}}},
		{name: "made and removed", files: files, script: "echo > d/n; rm d/n; mkdir -p e/m/n; rm -r e/m",
			want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}, {Path: "e", Op: "modify", Kind: "dir"}}},
		{name: "deleted and made again as it was", files: files, script: `m=$(stat -c %y a); r=$(stat -c %y .); rm a; printf aaaa > a; touch -d "$m" a; touch -d "$r" .`,
			want: nil},
	})
}

// TestWritesExactLinkIdentity: what a link leads to is part of the
// record, in both methods alike. A file given another name is modified
// (its link count changes, as link(2) changes its ctime on any file
// system): a later write through the new name is one to it, so planting
// "ln .git/config .claude/journal/notes.md" is a write of .git/config.
// A symlink's target is recorded with it, and a retargeted symlink is a
// modify with its new target. The record left both out: a hook planted
// a link into .git and its writes named only the link.
func TestWritesExactLinkIdentity(t *testing.T) {
	files := map[string]string{".git/config": "[core]\n", ".git/hooks/": "", ".claude/journal/keep": "", "a": "aaaa", "b": "bbbb", "d/x": "x"}
	hardLinked := func(t *testing.T, dir string) {
		// a and a2: one file with two names in the tree before the run.
		if err := os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "a2")); err != nil {
			t.Fatal(err)
		}
	}
	symlinked := func(t *testing.T, dir string) {
		if err := os.Symlink("a", filepath.Join(dir, "l")); err != nil {
			t.Fatal(err)
		}
	}
	runWritesCases(t, []writesCase{
		{name: "hard link into .git", files: files, script: "ln .git/config .claude/journal/notes.md",
			want: []evidence.Write{{Path: ".claude/journal/notes.md", Op: "create", Kind: "file"}, {Path: ".git/config", Op: "modify", Kind: "file"}}},
		{name: "symlink into .git", files: files, script: "ln -s ../../.git/hooks/post-commit .claude/journal/today.md",
			want: []evidence.Write{{Path: ".claude/journal/today.md", Op: "create", Kind: "symlink", Target: "../../.git/hooks/post-commit"}}},
		{name: "symlink out of the tree", files: files, script: "ln -s /etc/passwd p; ln -s ../.. ~/up",
			want: []evidence.Write{{Path: "p", Op: "create", Kind: "symlink", Target: "/etc/passwd"}, {Path: "~/up", Op: "create", Kind: "symlink", Target: "../.."}}},
		{name: "new file with two names", files: files, script: "echo n > n; ln n m",
			want: []evidence.Write{{Path: "m", Op: "create", Kind: "file"}, {Path: "n", Op: "create", Kind: "file"}}},
		{name: "hard link made and removed", files: files, script: "ln d/x d/y; rm d/y",
			want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}}},
		{name: "file with two names opened and left", files: files, setup: hardLinked, script: ": >> a", want: nil},
		{name: "file with two names given a third", files: files, setup: hardLinked, script: "ln a c",
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}, {Path: "c", Op: "create", Kind: "file"}}},
		{name: "symlink retargeted", files: files, setup: symlinked, script: `m=$(stat -c %y l); ln -sfn b l; touch -h -d "$m" l`,
			want: []evidence.Write{{Path: "l", Op: "modify", Kind: "symlink", Target: "b"}}},
		{name: "symlink retargeted, longer", files: files, setup: symlinked, script: "ln -sfn .git/config l",
			want: []evidence.Write{{Path: "l", Op: "modify", Kind: "symlink", Target: ".git/config"}}},
		{name: "symlink left as it was", files: files, setup: symlinked, script: `m=$(stat -c %y l); r=$(stat -c %y .); ln -sfn a l; touch -h -d "$m" l; touch -d "$r" .`,
			want: nil},
	})
}

// TestWritesExactOpaqueValue: an upper directory is opaque only with the
// opaque xattr "y", as overlayfs reads it; "x" (a directory holding
// xwhiteouts) or any longer value leaves the lower entries showing, and
// the record took them for deleted.
func TestWritesExactOpaqueValue(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  []evidence.Write
	}{
		{"y", []evidence.Write{{Path: "d/f", Op: "delete"}}},
		{"x", nil},
		{"yes", nil},
	} {
		t.Run(tt.value, func(t *testing.T) {
			lower, upper := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(lower, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(lower, "d", "f"), []byte("f"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(upper, "d"), 0o755); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(filepath.Join(lower, "d"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(filepath.Join(upper, "d"), st.ModTime(), st.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := unix.Setxattr(filepath.Join(upper, "d"), "user.overlay.opaque", []byte(tt.value), 0); err != nil {
				t.Fatal(err) // as every test here that sets user xattrs: a skip would hide this one in CI
			}
			got, err := readUpper(upper, lower, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
		})
	}
}

// snapshotOfDeletedDirs makes dirs directories under root/t, each with a
// file, takes the copy method's snapshot of root, and deletes t.
func snapshotOfDeletedDirs(t testing.TB, root string, dirs int) snapshot {
	t.Helper()
	for i := range dirs {
		d := filepath.Join(root, "t", fmt.Sprintf("d%d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := takeSnapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(root, "t")); err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestWritesExactSnapshotDiffOfManyDeletedDirectories: the copy method's
// diff of a tree whose 30,000 directories were deleted lists each. It
// scanned the whole snapshot for each deleted directory (15 s for 24,000
// directories, after the run's deadline); it now looks each up by name.
// The time it takes is logged, not asserted: BenchmarkSnapshotDiff
// measures it.
func TestWritesExactSnapshotDiffOfManyDeletedDirectories(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: building 30,000 directories")
	}
	const dirs = 30000
	// On tmpfs where there is one: 30,000 directories take seconds to
	// make and remove on a slow disk.
	parent := "/dev/shm"
	if _, err := os.Stat(parent); err != nil {
		parent = ""
	}
	root := tempDirIn(t, parent, "vigiles-snapshot-", 0o700)
	snap := snapshotOfDeletedDirs(t, root, dirs)
	start := time.Now()
	ws, err := snap.diff(root)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	deletes := 0
	for _, w := range ws {
		if w.Op == evidence.OpDelete {
			deletes++
		}
	}
	if deletes != dirs+1 { // each directory's file, and t
		t.Errorf("%d deletes, want %d", deletes, dirs+1)
	}
	t.Logf("the diff of %d deleted directories took %v", dirs, took)
}

// TestWritesExactCopyIsTheTree: the copy method's private copy is the tree
// as the overlay shows it: modes with their special bits (a 0555
// directory stays closed to its owner), times, fifos, sockets and device
// nodes (a character device 0,0: all a user namespace can make).
func TestWritesExactCopyIsTheTree(t *testing.T) {
	files := map[string]string{"ro/f": "r", "suid": "#!/bin/sh\n", "sgid/f": "g", "sticky/": "", "old": "o"}
	setup := func(t *testing.T, dir string) {
		for p, mode := range map[string]os.FileMode{"ro": 0o555 | os.ModeDir, "suid": 0o755 | os.ModeSetuid | os.ModeSetgid,
			"sgid": 0o775 | os.ModeDir | os.ModeSetgid, "sticky": 0o777 | os.ModeDir | os.ModeSticky} {
			if err := os.Chmod(filepath.Join(dir, p), mode); err != nil {
				t.Fatal(err)
			}
		}
		// Before the tree is removed: a caller that is not root may not
		// remove what is in a 0555 directory.
		t.Cleanup(func() { os.Chmod(filepath.Join(dir, "ro"), 0o755) })
		if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o640); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mknod(filepath.Join(dir, "sock"), unix.S_IFSOCK|0o600, 0); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			if err := unix.Mknod(filepath.Join(dir, "null"), unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(filepath.Join(dir, "null"), 0o666|os.ModeDevice|os.ModeCharDevice); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Date(2001, 2, 3, 4, 5, 6, 789, time.UTC)
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			ts := unix.NsecToTimespec(old.UnixNano())
			if err := unix.UtimesNanoAt(unix.AT_FDCWD, filepath.Join(dir, e.Name()), []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
		}
	}
	script := `stat -c '%n %F %a %.9Y' * | sed 's/character special file/chardev/'; echo new > ro/new 2>/dev/null && echo ro writable || echo ro closed; exit 0`
	var outs = map[string]string{}
	runWritesCases(t, []writesCase{{name: "modes", files: files, setup: setup, script: script, want: nil,
		check: func(t *testing.T, method string, res *Result) {
			for _, w := range []string{"fifo fifo 640", "sock socket 600", "ro directory 555", "old regular file 644 981173106.000000789",
				"suid regular file 6755", "sgid directory 2775", "sticky directory 1777 981173106.000000789", "ro closed"} {
				if !strings.Contains(res.Stdout, w+"\n") && !strings.Contains(res.Stdout, w+" ") {
					t.Errorf("the command sees\n%s\nwant a line %q", res.Stdout, w)
				}
			}
			if os.Geteuid() == 0 && !strings.Contains(res.Stdout, "null chardev 666") {
				t.Errorf("the command sees\n%s\nwant the device node", res.Stdout)
			}
			outs[method] = res.Stdout
			if len(outs) == 2 && outs["overlay"] != outs["copy"] {
				t.Errorf("the copy shows\n%s\nthe overlay\n%s", outs["copy"], outs["overlay"])
			}
		}}})
}

// TestWritesExactDirMetadata: a directory's own metadata (times, user
// xattrs, mode, owner) is compared in both methods, as overlay compares
// it (the copy method compared its mode alone).
func TestWritesExactDirMetadata(t *testing.T) {
	files := map[string]string{"d/f": "1", "e/": ""}
	setx := func(p string) string {
		return `/usr/bin/python3 -c 'import os; os.setxattr("` + p + `", "user.x", b"1")'`
	}
	runWritesCases(t, []writesCase{
		{name: "touch", files: files, script: "touch -d 2001-01-01 d", want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}}},
		{name: "xattr", files: files, script: setx("d"), want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}}},
		{name: "xattr and a file in it", files: files, script: setx("d") + "; echo > d/new",
			want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}, {Path: "d/new", Op: "create", Kind: "file"}}},
		{name: "chmod", files: files, script: "chmod 700 d", want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}}},
		{name: "entry made and removed", files: files, script: "touch e/x; rm e/x", want: []evidence.Write{{Path: "e", Op: "modify", Kind: "dir"}}},
		{name: "chmod to its mode", files: files, script: "chmod 755 d", want: nil},
		{name: "file xattr", files: files, script: setx("d/f"), want: []evidence.Write{{Path: "d/f", Op: "modify", Kind: "file"}}},
	})
}

// TestWritesExactTreeRoot: a change to the work tree's root directory
// itself is a modify of "."; the command sees the root's own mode (the
// init gives the overlay's upper directory the root's state,
// prepareUpper).
func TestWritesExactTreeRoot(t *testing.T) {
	root := []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}}
	setup := func(t *testing.T, dir string) {
		if err := os.Chmod(dir, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	setx := `/usr/bin/python3 -c 'import os; os.setxattr(".", "user.x", b"1")'`
	var cases []writesCase
	for _, c := range []struct{ name, script string }{
		{"chmod", "chmod 700 ."}, {"touch", "touch -d 2001-01-01 ."}, {"xattr", setx}, {"entry made and removed", "touch x; rm x"},
	} {
		cases = append(cases, writesCase{name: c.name, setup: setup, want: root,
			script: `[ "$(stat -c %a .)" = 750 ] || { echo "root shows mode $(stat -c %a .)" >&2; exit 9; }; ` + c.script})
	}
	cases = append(cases, writesCase{name: "nothing", setup: setup, want: nil, script: `[ "$(stat -c %a .)" = 750 ] || exit 9; ls >/dev/null`})
	requireConfinement(t)
	runWritesCases(t, cases)
}

// TestWritesExactUpperRoot: readUpper records a change to the root of an
// upper directory prepareUpper set up, against the lower root's state.
func TestWritesExactUpperRoot(t *testing.T) {
	old := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	for _, tt := range []struct {
		name   string
		change func(upper string) error
		want   []evidence.Write
	}{
		{"nothing", func(string) error { return nil }, nil},
		{"chmod", func(u string) error { return os.Chmod(u, 0o700) }, []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}}},
		{"touch", func(u string) error { return os.Chtimes(u, time.Now(), time.Now()) }, []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}}},
		{"xattr", func(u string) error { return unix.Setxattr(u, "user.x", []byte("1"), 0) }, []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}}},
		{"a file in it", func(u string) error { return os.WriteFile(filepath.Join(u, "x"), nil, 0o644) }, []evidence.Write{{Path: "x", Op: "create", Kind: "file"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lower := t.TempDir()
			if err := os.Chmod(lower, 0o750); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(lower, old, old); err != nil {
				t.Fatal(err)
			}
			upper := t.TempDir()
			root, err := prepareUpper(upper, lower)
			if err != nil {
				t.Fatal(err)
			}
			var st unix.Stat_t
			if err := unix.Stat(upper, &st); err != nil {
				t.Fatal(err)
			}
			if st.Mode&0o7777 != 0o750 || !time.Unix(st.Mtim.Unix()).Equal(old) {
				t.Errorf("the upper root has mode %o mtime %v, want the lower's 750 %v", st.Mode&0o7777, time.Unix(st.Mtim.Unix()).UTC(), old)
			}
			if err := tt.change(upper); err != nil {
				t.Fatal(err)
			}
			got, err := readUpper(upper, lower, "", root)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
		})
	}
}

// TestWritesExactNoOpWrites: a file opened for writing and left as it was
// (overlay copies it up) is no write, in either method; a change of
// content or metadata still is.
func TestWritesExactNoOpWrites(t *testing.T) {
	files := map[string]string{"a": "aaaa", "b": "bbbb"}
	runWritesCases(t, []writesCase{
		{name: "open for append", files: files, script: ": >> a; exec 3>>b; exec 3>&-", want: nil},
		{name: "chmod to its mode", files: files, script: "chmod 644 a", want: nil},
		{name: "same bytes, time put back", files: files, script: `m=$(stat -c %y a); printf aaaa > a; touch -d "$m" a`, want: nil},
		{name: "other bytes, time put back", files: files, script: `m=$(stat -c %y a); printf abcd > a; touch -d "$m" a`,
			want: []evidence.Write{{Path: "a", Op: "modify", Kind: "file"}}},
	})
}

// TestWritesExactSharedMapping: a write through a shared mapping whose
// pages a read mapped first changes a tmpfs file's bytes and neither its
// mtime nor its ctime (tmpfs asks for no write notification). The copy
// method, whose copy is on the scratch tmpfs, took such a file for
// unchanged, small or large: the record said [].
func TestWritesExactSharedMapping(t *testing.T) {
	const py = `import mmap, os, sys
for p in sys.argv[1:]:
    fd = os.open(p, os.O_RDWR)
    st = os.fstat(fd)
    m = mmap.mmap(fd, st.st_size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    s = sum(m[off] for off in range(0, st.st_size, 4096))
    m[0:5] = b"HACK!"
    m.close()
    os.close(fd)
`
	if _, err := exec.LookPath("python3"); err != nil {
		missing(t, "python3")
	}
	files := map[string]string{"small": "original content\n", "big": strings.Repeat("b", 3<<20), "keep": "k"}
	runWritesCases(t, []writesCase{
		{name: "mapped, read, then written", files: files,
			script: "python3 -c '" + py + "' small big",
			want:   []evidence.Write{{Path: "big", Op: "modify", Kind: "file"}, {Path: "small", Op: "modify", Kind: "file"}}},
	})
}

// TestWritesExactCopyFileNotAFifo: copyFileAt copies only the regular file
// whose stat it was given. A fifo put in its place is not read: a plain
// open of a fifo waits for a writer, and a read for more while one is
// there (a copy could hang for ever, or copy what the writer chose).
func TestWritesExactCopyFileNotAFifo(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	f := filepath.Join(src, "f")
	if err := os.WriteFile(f, []byte("file"), 0o644); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Lstat(f, &st); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(f, 0o644); err != nil {
		t.Fatal(err)
	}
	// A writer that is there before: opening the fifo to read then does
	// not wait, but reading it does, until the writer goes, which it does
	// once what it wrote was read.
	w, err := unix.Open(f, unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if w >= 0 {
			unix.Close(w)
		}
	}()
	if _, err := unix.Write(w, []byte("fifo")); err != nil {
		t.Fatal(err)
	}
	sd, dd := openTestDir(t, src), openTestDir(t, dst)
	done := make(chan error, 1)
	go func() { done <- copyFileAt(sd, dd, "f", &st) }()
	for waiting := true; waiting; {
		select {
		case err = <-done:
			waiting = false
		default:
			// TIOCINQ is FIONREAD: what the pipe holds.
			if n, ierr := unix.IoctlGetInt(w, unix.TIOCINQ); w >= 0 && ierr == nil && n == 0 {
				unix.Close(w)
				w = -1
			}
			runtime.Gosched()
		}
	}
	if !errors.Is(err, errChanged) {
		t.Errorf("copyFileAt of a fifo in the file's place: %v, want %v", err, errChanged)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "f")); err == nil {
		t.Errorf("the copy holds %q", b)
	}
}

// openTestDir opens dir for a test, closed when it ends.
func openTestDir(t *testing.T, dir string) int {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

// TestWritesExactOverlayNamedXattrs: user xattrs named user.overlay.* are
// the command's like any other. Set through the overlay (with userxattr)
// they are stored as user.overlay.overlay.* in the upper directory, and
// the record left out every user.overlay.* name there: nothing was
// recorded; the copy method recorded the directory only.
func TestWritesExactOverlayNamedXattrs(t *testing.T) {
	py := func(code string) string { return `/usr/bin/python3 -c '` + code + `'` }
	files := map[string]string{"a/f": "f", "b/": "", "c": "c"}
	// c holds names overlay would call its own, and an escaped one.
	setup := func(t *testing.T, dir string) {
		for name, v := range map[string]string{"user.overlay.foo": "h", "user.overlay.overlay.bar": "e", "user.x": "1"} {
			if err := unix.Setxattr(filepath.Join(dir, "c"), name, []byte(v), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	runWritesCases(t, []writesCase{
		{name: "set", files: files, script: py(`import os; os.setxattr("a/f", "user.overlay.foo", b"p"); os.setxattr("b", "user.overlay.bar", b"p")`),
			want: []evidence.Write{{Path: "a/f", Op: "modify", Kind: "file"}, {Path: "b", Op: "modify", Kind: "dir"}}},
		{name: "set on a file that has some", files: files, setup: setup, script: py(`import os; os.setxattr("c", "user.overlay.foo", b"p")`),
			want: []evidence.Write{{Path: "c", Op: "modify", Kind: "file"}}},
		{name: "opened for writing", files: files, setup: setup, script: ": >> c", want: nil},
		{name: "removed", files: files, setup: setup, script: py(`import os; os.removexattr("c", "user.overlay.bar" if "user.overlay.bar" in os.listxattr("c") else "user.overlay.overlay.bar")`),
			want: []evidence.Write{{Path: "c", Op: "modify", Kind: "file"}}},
	})
}

// TestWritesExactDeviceNodes: a no-op on a device node is no write. The
// copy method holds a character device 0,0 in the node's place, which was
// compared with a block device as a change of kind.
func TestWritesExactDeviceNodes(t *testing.T) {
	requireRoot(t, "making device nodes needs root")
	setup := func(t *testing.T, dir string) {
		for name, mode := range map[string]uint32{"blk": unix.S_IFBLK | 0o660, "chr": unix.S_IFCHR | 0o666} {
			if err := unix.Mknod(filepath.Join(dir, name), mode, int(unix.Mkdev(7, 200))); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Overlay refuses to copy a device node up: there the touch fails.
	runWritesCases(t, []writesCase{{name: "touched to their own times", setup: setup,
		script: "touch -r blk blk 2>/dev/null; touch -r chr chr 2>/dev/null; exit 0", want: nil}})
}

// TestWritesExactACLs: a change of a file's or a directory's POSIX ACLs
// is a modify, in both methods, even when the mode stays (it was no
// write); a tree's ACLs left as they were are none.
func TestWritesExactACLs(t *testing.T) {
	// acl builds an ACL xattr value: its version, then (tag, perm, id)
	// entries in order of tag (user_obj 1, user 2, group_obj 4, mask
	// 0x10, other 0x20).
	const acl = `import os, struct
def acl(*entries):
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)
U = 0xFFFFFFFF
`
	// An ACL that keeps a 0644 file's mode (the mask is the group's r).
	const access = `acl((1, 6, U), (2, 4, os.getuid()), (4, 4, U), (0x10, 4, U), (0x20, 4, U))`
	const dflt = `acl((1, 7, U), (4, 5, U), (0x20, 5, U))`
	py := func(code string) string { return "/usr/bin/python3 -c '" + acl + code + "'" }
	files := map[string]string{"f": "f", "d/": "", "e/x": "x"}
	setup := func(t *testing.T, dir string) {
		if err := unix.Mkfifo(filepath.Join(dir, "p"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, "p"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"f", "e/x"} {
			if err := os.Chmod(filepath.Join(dir, p), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command("python3", "-c", acl+`os.chdir("`+dir+`")
os.setxattr("e/x", "system.posix_acl_access", `+access+`)
os.setxattr("p", "system.posix_acl_access", `+access+`)
os.setxattr("e", "system.posix_acl_default", `+dflt+`)
os.setxattr(".", "system.posix_acl_default", `+dflt+`)`).CombinedOutput()
		if err != nil {
			t.Fatalf("setting ACLs: %v: %s", err, out)
		}
	}
	runWritesCases(t, []writesCase{
		{name: "file", files: files, script: py(`os.setxattr("f", "system.posix_acl_access", ` + access + `)
assert os.stat("f").st_mode & 0o7777 == 0o644`),
			want: []evidence.Write{{Path: "f", Op: "modify", Kind: "file"}}},
		{name: "fifo", files: files, setup: setup, script: py(`os.setxattr("p", "system.posix_acl_access", acl((1, 6, U), (2, 0, os.getuid()), (4, 4, U), (0x10, 4, U), (0x20, 4, U)))`),
			want: []evidence.Write{{Path: "p", Op: "modify", Kind: "other"}}},
		{name: "dir", files: files, script: py(`os.setxattr("d", "system.posix_acl_default", ` + dflt + `)`),
			want: []evidence.Write{{Path: "d", Op: "modify", Kind: "dir"}}},
		{name: "root", files: files, script: py(`os.setxattr(".", "system.posix_acl_default", ` + dflt + `)`),
			want: []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}}},
		// (The copy has no ACLs: there this one is new.)
		{name: "changed", files: files, setup: setup, script: py(`os.setxattr("e", "system.posix_acl_default", acl((1, 7, U), (4, 5, U), (0x20, 0, U)))`),
			want: []evidence.Write{{Path: "e", Op: "modify", Kind: "dir"}}},
		{name: "left as they were", files: files, setup: setup,
			script: `: >> e/x; chmod 644 e/x; chmod 755 e; chmod "$(stat -c %a .)" .; touch -r p p`,
			want:   nil},
	})
}

// unsearchableTree makes, under dir, an empty directory "emptyr" of mode
// 0644 (it can be opened and listed, not searched) and another at the
// end of "deep", nested past keepOpen.
func unsearchableTree(t *testing.T, dir string) (deepDir string) {
	t.Helper()
	deepDir = "deep" + strings.Repeat("/x", keepOpen+3)
	if err := os.MkdirAll(filepath.Join(dir, deepDir, "emptyr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, deepDir, "f"), []byte("f"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "emptyr"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"emptyr", deepDir + "/emptyr"} {
		if err := os.Chmod(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return deepDir
}

// withoutDACCaps runs fn on a thread that has put down its capabilities
// to override file permissions (which root's walk would use), so that a
// directory it cannot search is one to it.
func withoutDACCaps(t *testing.T, fn func()) {
	t.Helper()
	runtime.LockOSThread()
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	less := caps
	less[0].Effective &^= 1<<unix.CAP_DAC_OVERRIDE | 1<<unix.CAP_DAC_READ_SEARCH
	if err := unix.Capset(&hdr, &less[0]); err != nil {
		runtime.UnlockOSThread()
		t.Fatal(err)
	}
	defer func() {
		// A thread that cannot take them up again is not given back:
		// it ends with the goroutine.
		if err := unix.Capset(&hdr, &caps[0]); err == nil {
			runtime.UnlockOSThread()
		}
	}()
	fn()
}

// TestWritesExactUnsearchableDirs: the walks read a tree that holds empty
// directories they cannot search (mode 0644), near its root or deep. A
// walk went back from a directory to its parent through "..", which needs
// search permission: the copy method refused such a tree ("reopening a
// directory: permission denied").
func TestWritesExactUnsearchableDirs(t *testing.T) {
	lower := t.TempDir()
	deepDir := unsearchableTree(t, lower)
	// An upper directory over it that holds both directories (with
	// another mode) and a file beside the deep one.
	upper := t.TempDir()
	for _, p := range []string{"emptyr", deepDir + "/emptyr"} {
		if err := os.MkdirAll(filepath.Join(upper, p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(upper, p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(upper, deepDir, "g"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(t.TempDir(), "copy")
	withoutDACCaps(t, func() {
		if _, err := os.Stat(filepath.Join(lower, "emptyr", "x")); !errors.Is(err, os.ErrPermission) {
			t.Fatalf("emptyr can be searched (%v): the test shows nothing", err)
		}
		got, err := readUpper(upper, lower, "", nil)
		if err != nil {
			t.Fatalf("readUpper: %v", err)
		}
		want := []evidence.Write{{Path: deepDir + "/emptyr", Op: "modify", Kind: "dir"}, {Path: deepDir + "/g", Op: "create", Kind: "file"},
			{Path: "emptyr", Op: "modify", Kind: "dir"}}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("readUpper (-want +got):\n%s", d)
		}
		if err := copyTree(lower, copyDir); err != nil {
			t.Fatalf("copyTree: %v", err)
		}
		snap, err := takeSnapshot(copyDir)
		if err != nil {
			t.Fatalf("takeSnapshot: %v", err)
		}
		snap.lower = lower
		if got, err := snap.diff(copyDir); err != nil || got != nil {
			t.Errorf("diff of an unchanged copy: %v, %v", got, err)
		}
	})
}

// TestWritesExactUnmappedUnsearchableDirs: a tree holding empty
// directories the sandbox cannot search, owned by a user its namespace
// does not map (its capabilities do not apply to them), is recorded in
// both methods; the copy method refused it.
func TestWritesExactUnmappedUnsearchableDirs(t *testing.T) {
	requireRoot(t, "giving a directory to another user needs root")
	setup := func(t *testing.T, dir string) {
		deepDir := unsearchableTree(t, dir)
		for _, p := range []string{"emptyr", deepDir + "/emptyr"} {
			if err := os.Chown(filepath.Join(dir, p), 54321, 54321); err != nil {
				t.Fatal(err)
			}
		}
	}
	runWritesCases(t, []writesCase{{name: "a file beside them", files: map[string]string{"d/": ""}, setup: setup,
		script: "echo b > d/b", want: []evidence.Write{{Path: "d/b", Op: "create", Kind: "file"}}}})
}

// makeChain makes dir/top/d/d/.../d, n directories nested, by descriptors
// (a path that long cannot be used whole), and returns the next to last,
// open, closed when the test ends.
func makeChain(t *testing.T, dir, top string, n int) (nextToLast int) {
	t.Helper()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	name := top
	for i := 0; i < n; i++ {
		if i == n-1 {
			nextToLast = fd
			t.Cleanup(func() { unix.Close(nextToLast) })
		}
		if err := unix.Mkdirat(fd, name, 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if i != n-1 {
			unix.Close(fd)
		}
		if err != nil {
			t.Fatal(err)
		}
		fd, name = sub, "d"
	}
	unix.Close(fd)
	return nextToLast
}

// removeDeep removes dir and everything under it holding one descriptor
// at a time (os.RemoveAll holds one for each level).
func removeDeep(dir string) error {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	var path []string // the names from dir down to fd
	buf := make([]byte, 8<<10)
	for {
		var names []string
		for {
			n, err := unix.Getdents(fd, buf)
			if err != nil {
				unix.Close(fd)
				return err
			}
			if n <= 0 {
				break
			}
			_, _, names = unix.ParseDirent(buf[:n], -1, names)
		}
		sub := ""
		for _, name := range names {
			if err := unix.Unlinkat(fd, name, 0); errors.Is(err, unix.EISDIR) {
				sub = name
				break
			} else if err != nil && !errors.Is(err, unix.ENOENT) {
				unix.Close(fd)
				return err
			}
		}
		next := ".."
		if sub != "" {
			next = sub
		} else if len(path) == 0 {
			unix.Close(fd)
			return os.Remove(dir)
		}
		nfd, err := unix.Openat(fd, next, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		unix.Close(fd)
		if err != nil {
			return err
		}
		fd = nfd
		if sub != "" {
			path = append(path, sub)
			continue
		}
		if err := unix.Unlinkat(fd, path[len(path)-1], unix.AT_REMOVEDIR); err != nil {
			unix.Close(fd)
			return err
		}
		path = path[:len(path)-1]
	}
}

// TestWritesExactTooDeep: every walk stops at a tree nested deeper than
// maxDepth levels with an ordinary error, and reads one maxDepth deep,
// within a small stack. The walks recursed without a limit: a command
// that nested directories 300,000 deep overflowed the init's stack, and
// the run lost its whole record, its egress too.
func TestWritesExactTooDeep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: nesting directories 10,000 deep")
	}
	// A stack over this is a crash of the test.
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	parent := "/dev/shm"
	if _, err := os.Stat(parent); err != nil {
		parent = ""
	}
	base := tempDirIn(t, parent, "vigiles-deep-", 0o700)
	t.Cleanup(func() {
		if err := removeDeep(base); err != nil {
			t.Errorf("removing %s: %v", base, err)
		}
	})
	dir := func(name string) string {
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	tree, empty, whiteout, later := dir("tree"), dir("empty"), dir("whiteout"), dir("later")
	if err := unix.Mknod(filepath.Join(whiteout, "c"), unix.S_IFCHR, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(later, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// move moves the chain, tree/c, into later and back.
	move := func(from, to string) {
		t.Helper()
		if err := os.Rename(filepath.Join(from, "c"), filepath.Join(to, "c")); err != nil {
			t.Fatal(err)
		}
	}
	type walk struct {
		name string
		fn   func() ([]evidence.Write, error)
	}
	copies := 0
	walks := []walk{
		{"readUpper, created", func() ([]evidence.Write, error) { return readUpper(tree, empty, "", nil) }},
		{"readUpper, deleted", func() ([]evidence.Write, error) { return readUpper(whiteout, tree, "", nil) }},
		{"takeSnapshot", func() ([]evidence.Write, error) { _, err := takeSnapshot(tree); return nil, err }},
		{"copyTree", func() ([]evidence.Write, error) {
			copies++
			dst := filepath.Join(base, fmt.Sprintf("copy%d", copies))
			if err := copyTree(tree, dst); err != nil {
				return nil, err
			}
			return takeSnapshotDiff(dst, func() {})
		}},
		{"diff, created", func() ([]evidence.Write, error) {
			defer move(later, tree)
			return takeSnapshotDiff(later, func() { move(tree, later) })
		}},
	}

	nextToLast := makeChain(t, tree, "c", maxDepth+1)
	for _, w := range walks {
		if _, err := w.fn(); !errors.Is(err, errTooDeep) {
			t.Errorf("%s of a tree %d deep: %v, want %v", w.name, maxDepth+1, err, errTooDeep)
		}
	}

	if err := unix.Unlinkat(nextToLast, "d", unix.AT_REMOVEDIR); err != nil {
		t.Fatal(err)
	}
	deep := "c" + strings.Repeat("/d", maxDepth-1)
	want := map[string][]evidence.Write{
		"readUpper, created": {{Path: deep, Op: "create", Kind: "dir"}},
		"readUpper, deleted": {{Path: "c", Op: "delete", Was: "dir"}, {Path: deep, Op: "delete", Was: "dir"}},
		// Without the original to compare its xattrs with, a root whose
		// ctime changed is a modify.
		"diff, created": {{Path: ".", Op: "modify", Kind: "dir"}, {Path: deep, Op: "create", Kind: "dir"}},
	}
	walks = append(walks, walk{"diff, deleted", func() ([]evidence.Write, error) {
		move(tree, later)
		return takeSnapshotDiff(later, func() { move(later, tree) })
	}})
	want["diff, deleted"] = []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}, {Path: "c", Op: "delete", Was: "dir"}, {Path: deep, Op: "delete", Was: "dir"}}
	for _, w := range walks {
		got, err := w.fn()
		if err != nil {
			t.Errorf("%s of a tree %d deep: %v", w.name, maxDepth, err)
			continue
		}
		if d := cmp.Diff(want[w.name], got); d != "" {
			t.Errorf("%s of a tree %d deep (-want +got):\n%s", w.name, maxDepth, strings.ReplaceAll(d, strings.Repeat("/d", 50), "/d×50"))
		}
	}
}

// takeSnapshotDiff takes a snapshot of dir, runs change, and returns the
// diff of dir against the snapshot.
func takeSnapshotDiff(dir string, change func()) ([]evidence.Write, error) {
	snap, err := takeSnapshot(dir)
	if err != nil {
		return nil, err
	}
	snap.lower = ""
	change()
	return snap.diff(dir)
}

// nestPy nests directories: argv[1] levels under argv[3] (default "."),
// named deep/d/d/..., made as chains of argv[2] and linked by rename
// (mkdir in the sandbox costs in proportion to the depth).
const nestPy = `import os, sys
n, per = int(sys.argv[1]), int(sys.argv[2])
top = os.open(sys.argv[3] if len(sys.argv) > 3 else ".", os.O_RDONLY)
bottom = None
for c in range(n // per):
    os.mkdir("new", dir_fd=top)
    fd = os.open("new", os.O_RDONLY, dir_fd=top)
    for i in range(per - 1):
        os.mkdir("d", dir_fd=fd)
        sub = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = sub
    if bottom is None:
        os.rename("new", "deep", src_dir_fd=top, dst_dir_fd=top)
    else:
        os.rename("new", "d", src_dir_fd=top, dst_dir_fd=bottom)
        os.close(bottom)
    bottom = fd
print("nested", n)
`

// TestWritesExactTooDeepRun: a command that nests directories deeper
// than maxDepth, in the tree or in HOME, is told that the record could
// not be read, and its egress record is kept. The init's walks recursed
// without a limit: 300,000 levels overflowed its stack, and the run ended
// without a result.
func TestWritesExactTooDeepRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: nesting directories 10,000 deep")
	}
	requireConfinement(t)
	// A stand-in egress layer, whose record is empty (see fakeNetwork).
	SetNetwork(fakeNetwork{})
	defer SetNetwork(nil)
	levels := fmt.Sprint(maxDepth/100*100 + 100)
	for _, method := range []string{"overlay", "copy"} {
		for _, where := range []string{".", "$HOME"} {
			t.Run(method+"/"+where, func(t *testing.T) {
				dir := makeTree(t, map[string]string{"keep": "k"})
				res, err := Run(context.Background(), Spec{Dir: dir, WritesMethod: method, Mode: ModeStrict, Timeout: 30 * time.Second,
					Egress:  evidence.EgressPolicy{Mode: evidence.EgressAllow},
					Command: sh(`/usr/bin/python3 -c '` + nestPy + `' ` + levels + ` 100 "` + where + `"`)})
				if !strings.Contains(res.Stdout, "nested "+levels) {
					t.Fatalf("the command did not nest: exit %d stderr %q error %v", res.ExitCode, res.Stderr, err)
				}
				// The error crossed from the init as text.
				if want := fmt.Sprintf("nested deeper than %d levels", maxDepth); err == nil || !strings.Contains(err.Error(), want) || res.Error != err.Error() {
					t.Errorf("error %v (result: %q), want one that says %q", err, res.Error, want)
				}
				if res.Writes != nil || res.WritesMethod != "" {
					t.Errorf("writes %v (method %q), want none: the record was not read whole", res.Writes, res.WritesMethod)
				}
				if res.Egress == nil {
					t.Error("the egress record was lost")
				}
			})
		}
	}
}

// TestRecordStopsAtItsCeiling: a walk's record keeps no more paths than a
// result may hold (the init's memory would otherwise follow whatever path
// lengths the command chose); past that it is an error, not a short list.
func TestRecordStopsAtItsCeiling(t *testing.T) {
	r := newRecord("~/")
	long := relPath(strings.Repeat("d/", 1<<19)) // 1 MiB
	for i := 0; i < maxResult>>20-1; i++ {
		r.add(long, evidence.OpCreate, "file")
	}
	if err := r.tooLarge(); err != nil || len(r.out) != maxResult>>20-1 {
		t.Fatalf("%d paths, error %v: a record within the ceiling was refused", len(r.out), err)
	}
	r.add(long, evidence.OpCreate, "file")
	r.add(relPath("x"), evidence.OpCreate, "file")
	if err := r.tooLarge(); err == nil || !strings.Contains(err.Error(), "too large to report") || r.out != nil {
		t.Errorf("%d paths kept, error %v: want none kept and the record called too large", len(r.out), err)
	}
}

// TestWritesExactCopyChangeWithinOneTick: the copy method compares the
// user xattrs and ACLs of an entry whose metadata, ctime too, is as the
// snapshot read it, with those the snapshot read. A kernel that stamps
// times from a coarse clock (tmpfs before Linux 6.13, a tick of 1 to 10
// ms) leaves the ctime as it was for a change made within the tick the
// copy set it in: such a change, an xattr set on a file or a directory
// or an ACL on a fifo, was no write. This kernel's ctime moves; the
// snapshot is given the times the change left, as such a kernel leaves
// them.
func TestWritesExactCopyChangeWithinOneTick(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"d", "e"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"f", "g", "e/x"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"p", "q"} {
		if err := unix.Mkfifo(filepath.Join(dir, p), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snap, err := takeSnapshot(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap.lower = "" // no original: the change must be seen from the copy alone
	// An access ACL that names one more user, read only, and leaves the
	// mode (0644: its mask is the group's r).
	acl := []byte{2, 0, 0, 0}
	for _, e := range []struct {
		tag, perm uint16
		id        uint32
	}{{1, 6, ^uint32(0)}, {2, 4, 4242}, {4, 4, ^uint32(0)}, {0x10, 4, ^uint32(0)}, {0x20, 4, ^uint32(0)}} {
		acl = append(acl, byte(e.tag), byte(e.tag>>8), byte(e.perm), byte(e.perm>>8),
			byte(e.id), byte(e.id>>8), byte(e.id>>16), byte(e.id>>24))
	}
	for p, x := range map[string]struct {
		name  string
		value []byte
	}{"f": {"user.x", []byte("1")}, "d": {"user.x", []byte("1")}, ".": {"user.x", []byte("1")}, "p": {aclAccess, acl}} {
		if err := unix.Lsetxattr(filepath.Join(dir, p), x.name, x.value, 0); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	// What a coarse clock leaves: every ctime as the snapshot read it.
	var restamp func(n *snapNode, p string)
	restamp = func(n *snapNode, p string) {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			t.Fatal(err)
		}
		if n.meta.Mode != st.Mode || n.meta.Size != st.Size || n.meta.Mtime != st.Mtim {
			t.Fatalf("%s: more than its ctime changed", p)
		}
		n.meta = metaOf(&st)
		for name, k := range n.kids {
			restamp(k, filepath.Join(p, name))
		}
	}
	restamp(snap.root, dir)
	ws, err := snap.diff(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []evidence.Write{{Path: ".", Op: "modify", Kind: "dir"}, {Path: "d", Op: "modify", Kind: "dir"},
		{Path: "f", Op: "modify", Kind: "file"}, {Path: "p", Op: "modify", Kind: "other"}}
	if d := cmp.Diff(want, ws); d != "" {
		t.Errorf("writes (-want +got):\n%s", d)
	}
}
