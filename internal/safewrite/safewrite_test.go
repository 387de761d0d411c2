package safewrite

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// tree is a directory "t" holding "in" (with "in/sub") and "out", which
// nothing may write, and the links given (relative to t).
func tree(t *testing.T, links map[string]string) string {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"t/in/sub", "out"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for l, target := range links {
		target = strings.ReplaceAll(target, "$TMP", tmp)
		if err := os.Symlink(target, filepath.Join(tmp, "t", l)); err != nil {
			t.Fatal(err)
		}
	}
	return tmp
}

func TestOpenDir(t *testing.T) {
	tmp := tree(t, map[string]string{
		"rel":        "in",
		"abs":        "$TMP/t/in",
		"in/up":      "..",
		"in/upup":    "../..",
		"out-abs":    "$TMP/out",
		"out-rel":    "../out",
		"in/sub/x":   "../../rel/sub",
		"chain":      "rel",
		"loop-a":     "loop-b",
		"loop-b":     "loop-a",
		"in/sub/esc": "../up/../../out",
		"file-link":  "in/f",
	})
	if err := os.WriteFile(filepath.Join(tmp, "t/in/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want string // the directory opened, under tmp; "out:LINK" a *LinkedOutError of the link; "err:" an error that is errors.Is err
		err  error
	}{
		{dir: "t/in/sub", want: "t/in/sub"},
		{dir: "t/rel/sub", want: "t/in/sub"},
		{dir: "t/abs/sub", want: "t/in/sub"},
		{dir: "t/chain", want: "t/in"},
		// Below the first link (rel, held by t), links may climb
		// within t.
		{dir: "t/rel/sub/x", want: "t/in/sub"},
		{dir: "t/rel/up/in", want: "t/in"},
		{dir: "t/out-abs", want: "out:t/out-abs"},
		{dir: "t/out-rel", want: "out:t/out-rel"},
		// Every link is followed within the directory holding the
		// first one, not a tree it cannot know: in/up climbs out of
		// in, and so does in/sub/x out of in/sub.
		{dir: "t/in/up", want: "out:t/in/up"},
		{dir: "t/in/up/in", want: "out:t/in/up"},
		{dir: "t/in/upup", want: "out:t/in/upup"},
		{dir: "t/in/sub/x", want: "out:t/in/sub/x"},
		// The error names the last link followed, through which the
		// ".." climbs out.
		{dir: "t/rel/sub/esc", want: "out:t/in/up"},
		{dir: "t/loop-a", want: "err:", err: syscall.ELOOP},
		{dir: "t/in/f", want: "err:", err: syscall.ENOTDIR},
		{dir: "t/file-link", want: "err:", err: syscall.ENOTDIR},
		{dir: "t/missing", want: "err:", err: fs.ErrNotExist},
	} {
		d, err := OpenDir(filepath.Join(tmp, tc.dir))
		var lo *LinkedOutError
		switch {
		case strings.HasPrefix(tc.want, "out:"):
			if !errors.As(err, &lo) || lo.Link != filepath.Join(tmp, strings.TrimPrefix(tc.want, "out:")) {
				t.Errorf("%s: %v, want the link %s leading out", tc.dir, err, strings.TrimPrefix(tc.want, "out:"))
			}
		case tc.want == "err:":
			if !errors.Is(err, tc.err) || errors.As(err, &lo) {
				t.Errorf("%s: %v, want %v", tc.dir, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.dir, err)
		default:
			var got, want syscall.Stat_t
			if err := syscall.Fstat(int(d.Fd()), &got); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Stat(filepath.Join(tmp, tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if got.Ino != want.Ino || got.Dev != want.Dev || d.Name() != filepath.Join(tmp, tc.want) {
				t.Errorf("%s: opened %s (inode %d), want %s (inode %d)", tc.dir, d.Name(), got.Ino, tc.want, want.Ino)
			}
		}
		if d != nil {
			d.Close()
		}
	}
}

// TestOpenDirWithinMakesWhatIsMissing: every missing directory inside
// within is made, also at the end of a link that stays inside; nothing
// is made where a link leads out.
func TestOpenDirWithinMakesWhatIsMissing(t *testing.T) {
	tmp := tree(t, map[string]string{"to-new": "in/new", "out-new": "../out/new",
		// Walked as the kernel walks it (in/up is the root, and ".."
		// then leaves it), not by its text (t/in/new2).
		"abs-dotdot": "$TMP/t/in/up/../new2", "in/up": ".."})
	for _, tc := range []struct {
		dir, made string
		ok        bool
	}{
		{"t/in/a", "t/in/a", true},
		{"t/to-new", "t/in/new", true},
		{"t/in/b/c", "t/in/b/c", true},
		{"t/out-new", "out/new", false},
		{"t/abs-dotdot", "t/in/new2", false},
		{"t/abs-dotdot", "new2", false},
	} {
		d, err := OpenDirWithin(filepath.Join(tmp, "t"), filepath.Join(tmp, tc.dir))
		_, serr := os.Stat(filepath.Join(tmp, tc.made))
		if tc.ok && (err != nil || serr != nil) {
			t.Errorf("%s: %v, %v; want %s made and opened", tc.dir, err, serr, tc.made)
		}
		if !tc.ok && (err == nil || serr == nil) {
			t.Errorf("%s: %v, %v; want an error and %s not made", tc.dir, err, serr, tc.made)
		}
		if d != nil {
			d.Close()
		}
	}
}

// TestReplace: the file is written in the held directory, in place of a
// link at its name (not through it), mode perm whatever the umask, with
// no temporary file left; a directory swapped for a link once held
// changes nothing.
func TestReplace(t *testing.T) {
	tmp := tree(t, nil)
	victim := filepath.Join(tmp, "out", "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(tmp, "t", "in")
	if err := os.Symlink(victim, filepath.Join(in, "f")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(in)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	old := syscall.Umask(0o077)
	err = Replace(d, d.Name(), "f", []byte("new"), 0o644)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(filepath.Join(in, "f"))
	if b, _ := os.ReadFile(filepath.Join(in, "f")); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 || string(b) != "new" {
		t.Errorf("f: %v %v %q; want the file, 0644, in the link's place", fi, err, b)
	}
	// The held directory moved away and a link to out put in its place:
	// the file goes into the directory held.
	if err := os.Rename(in, filepath.Join(tmp, "t", "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tmp, "out"), in); err != nil {
		t.Fatal(err)
	}
	if err := Replace(d, d.Name(), "g", []byte("g"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "t", "moved", "g")); err != nil || string(b) != "g" {
		t.Errorf("moved/g: %q %v", b, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the victim was written: %q", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(tmp, "out")); len(ents) != 1 {
		t.Errorf("out: %v", ents)
	}
	if ents, _ := os.ReadDir(filepath.Join(tmp, "t", "moved")); len(ents) != 3 { // sub, f, g
		t.Errorf("a temporary file was left: %v", ents)
	}
	for _, bad := range []string{"", ".", "..", "a/b"} {
		if err := Replace(d, d.Name(), bad, nil, 0o644); err == nil {
			t.Errorf("Replace(%q) wrote", bad)
		}
	}
}

// TestReplaceWithWritesInPiecesOrLeavesTheFile: ReplaceWith's file holds
// every piece its write function wrote; where that function fails half
// way, the file there is left whole and no temporary file stays.
func TestReplaceWithWritesInPiecesOrLeavesTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	failed := errors.New("the writer failed")
	err = ReplaceWith(d, dir, "f", func(w io.Writer) error {
		if _, err := io.WriteString(w, "half"); err != nil {
			return err
		}
		return failed
	}, 0o644)
	if !errors.Is(err, failed) {
		t.Fatalf("ReplaceWith: %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "old" {
		t.Errorf("f: %q after a failed write, want it as it was", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a temporary file was left: %v", ents)
	}
	err = ReplaceWith(d, dir, "f", func(w io.Writer) error {
		for _, p := range []string{"a", "b", "c"} {
			if _, err := io.WriteString(w, p); err != nil {
				return err
			}
		}
		return nil
	}, 0o644)
	if b, _ := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "abc" {
		t.Errorf("f: %q, %v; want the three pieces", b, err)
	}
}
