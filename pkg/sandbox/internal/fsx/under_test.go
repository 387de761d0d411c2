package fsx

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// underByRel is Under as filepath.Rel alone answers it.
func underByRel(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !(len(rel) > 2 && rel[:3] == "../")
}

// TestUnderIsRel: Under's comparison of clean absolute paths answers as
// filepath.Rel does, for the cases that tell a prefix of names from a
// prefix of bytes, for unclean and relative paths, and for paths drawn
// from a few names, dots and slashes.
func TestUnderIsRel(t *testing.T) {
	cases := [][2]string{
		{"/", "/"}, {"/a", "/"}, {"/a", "/a"}, {"/a/b", "/a"}, {"/ab", "/a"}, {"/a", "/ab"}, {"/a", "/a/b"},
		{"/a/b/c", "/a/b"}, {"/a/bc", "/a/b"}, {"/a/", "/a"}, {"/a/./b", "/a"}, {"/a/../b", "/a"}, {"/b", "/a/.."},
		{"a", "a"}, {"a/b", "a"}, {"a", "/a"}, {"/a", "a"}, {"", ""}, {"..", "."}, {"/..", "/"}, {"//a", "/a"},
	}
	names := []string{"", "a", "ab", "b", ".", ".."}
	rng := rand.New(rand.NewPCG(1, 2))
	path := func() string {
		var b strings.Builder
		if rng.IntN(4) > 0 {
			b.WriteByte('/')
		}
		for n := rng.IntN(5); n > 0; n-- {
			b.WriteString(names[rng.IntN(len(names))])
			if n > 1 || rng.IntN(3) == 0 {
				b.WriteByte('/')
			}
		}
		return b.String()
	}
	for range 20000 {
		cases = append(cases, [2]string{path(), path()})
	}
	for _, c := range cases {
		if got, want := Under(c[0], c[1]), underByRel(c[0], c[1]); got != want {
			t.Errorf("Under(%q, %q) = %v, filepath.Rel says %v", c[0], c[1], got, want)
		}
	}
}
