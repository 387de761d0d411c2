package safewrite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestResolve: a lookup inside the root follows links as the kernel's
// would while they stay inside; one that leaves, through a link or by
// "..", is refused whether or not its target exists; what is missing is
// not there for a reader, and is text to make, checked too, for a writer.
func TestResolve(t *testing.T) {
	tmp := tree(t, map[string]string{
		"rel":          "in",
		"abs":          "$TMP/t/in",
		"in/up":        "..",
		"chain":        "rel",
		"abs-root":     "$TMP/t",
		"out-abs":      "$TMP/out",
		"out-abs-gone": "$TMP/gone",
		"out-rel":      "../out",
		"out-rel-gone": "../gone",
		"in/sub/esc":   "../up/../../out",
		"loop-a":       "loop-b",
		"loop-b":       "loop-a",
		"self":         "self/x",
		"gone-climb":   "gone/../../out",
		"gone-in":      "gone/../in",
		"file-link":    "in/f",
		// Absolute targets with "..": walked as the kernel walks them,
		// not cleaned by their text (which would keep the first two
		// inside).
		"abs-dotdot-out": "$TMP/t/in/up/../in",
		"abs-dotdot-in":  "$TMP/t/in/sub/../f",
		"abs-dotdot-top": "$TMP/t/../t/in",
	})
	root := filepath.Join(tmp, "t")
	if err := os.WriteFile(filepath.Join(root, "in/f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel string
		// want, for a reader (missingOK false) and a writer (true): the
		// path found (under root); "new:P", P not there yet; "out:LINK",
		// the *LinkedOutError of LINK; "outside", ErrOutside; "loop",
		// ELOOP; "missing:P", fs.ErrNotExist at P; "err", another error.
		reader, writer string
	}{
		{"in/sub", "in/sub", "in/sub"},
		{".", ".", "."},
		{"", ".", "."},
		{"rel/sub", "in/sub", "in/sub"},
		{"abs/sub", "in/sub", "in/sub"},
		{"abs-root/in", "in", "in"},
		{"chain/sub/", "in/sub", "in/sub"},
		{"in/up/in/up", ".", "."},
		{"in/up/in/up/in", "in", "in"},
		{"file-link", "in/f", "in/f"},
		{"out-abs/x", "out:out-abs", "out:out-abs"},
		{"out-abs-gone", "out:out-abs-gone", "out:out-abs-gone"},
		{"out-rel/x", "out:out-rel", "out:out-rel"},
		{"out-rel-gone", "out:out-rel-gone", "out:out-rel-gone"},
		{"in/sub/esc", "out:in/up", "out:in/up"},
		{"in/up/in/up/../x", "out:in/up", "out:in/up"},
		{"in/../..", "outside", "outside"},
		{"../t/in", "outside", "outside"},
		{"loop-a/x", "loop", "loop"},
		{"self", "loop", "loop"},
		{"in/new/x.sarif", "missing:in/new", "new:in/new/x.sarif"},
		// rel's own ".." after a missing directory is its text (a
		// caller's path); a link's is not there for the kernel,
		// whatever its text says.
		{"in/new/../../../out/x", "missing:in/new", "outside"},
		{"in/new/../x.sarif", "missing:in/new", "new:in/x.sarif"},
		{"gone-climb", "missing:gone", "missing:gone"},
		{"gone-in/x", "missing:gone", "missing:gone"},
		// in/up leads to the root, and the ".." after it out of it.
		{"abs-dotdot-out/x", "out:in/up", "out:in/up"},
		{"abs-dotdot-in", "in/f", "in/f"},
		// A ".." before the root's own components: refused, though
		// the kernel would come back in.
		{"abs-dotdot-top", "out:abs-dotdot-top", "out:abs-dotdot-top"},
		{"in/f/x", "err", "err"},
		{"/etc/passwd", "err", "err"},
	} {
		for _, missingOK := range []bool{false, true} {
			want := tc.reader
			if missingOK {
				want = tc.writer
			}
			got, fi, err := Resolve(root, tc.rel, missingOK)
			var lo *LinkedOutError
			kind, arg, _ := strings.Cut(want, ":")
			bad := false
			switch kind {
			case "out":
				bad = !errors.As(err, &lo) || lo.Link != filepath.Join(root, arg) || lo.Within != root || got != ""
			case "outside":
				bad = !errors.Is(err, ErrOutside) || errors.As(err, &lo)
			case "loop":
				bad = !errors.Is(err, syscall.ELOOP)
			case "missing":
				bad = !errors.Is(err, fs.ErrNotExist) || got != filepath.Join(root, arg) || fi != nil
			case "err":
				bad = err == nil || errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrOutside) || errors.As(err, &lo)
			case "new":
				bad = err != nil || got != filepath.Join(root, arg) || fi != nil
			default:
				lfi, lerr := os.Lstat(filepath.Join(root, want))
				bad = err != nil || got != filepath.Join(root, want) || fi == nil || lerr != nil || !os.SameFile(fi, lfi)
			}
			if bad {
				t.Errorf("Resolve(%s, %v) = %q, %v, %v; want %s", tc.rel, missingOK, got, fi, err, want)
			}
		}
	}
}

// TestResolveRoot: the root is taken clean, and may be relative (to the
// working directory), as a caller's repository path may be; what is
// returned is then relative too.
func TestResolveRoot(t *testing.T) {
	tmp := tree(t, map[string]string{"abs": "$TMP/t/in", "out": "$TMP/out", "like-rel": "/t/in"})
	got, fi, err := Resolve(filepath.Join(tmp, "t")+"/", "in/..", false)
	if err != nil || got != filepath.Join(tmp, "t") || fi == nil || !fi.IsDir() {
		t.Errorf("%q %v %v", got, fi, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, filepath.Join(tmp, "t"))
	if err != nil {
		t.Fatal(err)
	}
	if got, fi, err := Resolve(rel, "in/sub", false); err != nil || got != filepath.Join(rel, "in/sub") || fi == nil {
		t.Errorf("relative root %s: %q %v %v", rel, got, fi, err)
	}
	var lo *LinkedOutError
	if _, _, err := Resolve(rel, "out", false); !errors.As(err, &lo) {
		t.Errorf("relative root %s: %v, want the link out refused", rel, err)
	}
	// An absolute target is never under a relative root, even one whose
	// text starts with the root's (/t/in against t).
	t.Chdir(tmp)
	if got, _, err := Resolve("t", "like-rel", false); !errors.As(err, &lo) {
		t.Errorf("relative root t: like-rel -> /t/in gave %q, %v; want it refused", got, err)
	}
}
