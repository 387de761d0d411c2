package runner

import (
	"strings"
	"testing"
)

// TestWroteOnlyEveryPathIsRefused: a wrote-only pattern that matches
// every path ("*", a base name matched at any depth; "**"; "re:", "re:.*",
// an unanchored "re:x*"; "re:(?s).", which matches every text but "", and
// no path is empty) expects nothing, as egress-only "*" does, and is
// refused; before, wrote-only: ["*"] passed a hook that wrote
// .git/hooks/post-commit. no-write takes such a pattern (it forbids every
// write), and a pattern that matches some paths only is kept.
func TestWroteOnlyEveryPathIsRefused(t *testing.T) {
	for pat, base := range map[string]bool{"*": true, "**": true, "**/*": false, "re:": false, "re:.*": false, "re:x*": false, "re:(?s).": false} {
		_, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\".claude/**\", \""+pat+"\"]}}\n")
		if !strings.Contains(errs, "wrote-only: \""+pat+"\" allows every path") || strings.Contains(errs, "base name") != base {
			t.Errorf("%q: errors %q", pat, errs)
		}
	}
	for _, pat := range []string{"~/**", ".claude/**", "*.md", "re:^notes/", "**/x"} {
		if _, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\""+pat+"\"], no-write: [\"re:\", \"*\"]}}\n"); errs != "" {
			t.Errorf("%q: %s", pat, errs)
		}
	}
}

// TestTreeAnchoredGlobIsTheTreeOnly: "./…" is the work tree's, so "./**"
// matches none of HOME's, TMPDIR's or /dev/shm's paths, which the record
// writes as ~/…, $TMPDIR/… and /dev/shm/…: wrote-only ["./**"] says the
// hook writes nothing outside the tree, and fails a write of ~/.bashrc.
func TestTreeAnchoredGlobIsTheTreeOnly(t *testing.T) {
	for _, c := range []struct {
		pat, path string
		want      bool
	}{
		{"./**", "src/x.go", true},
		{"./**", ".git/hooks/post-commit", true},
		{"./**", "~/.bashrc", false},
		{"./**", "~", false},
		{"./**", "$TMPDIR/x", false},
		{"./**", "/dev/shm/x", false},
		{"./**/.bashrc", "~/.bashrc", false},
		{"./**/.bashrc", "a/.bashrc", true},
		{".bashrc", "~/.bashrc", true}, // a base name, at any depth
	} {
		pp, err := ParsePathPattern(c.pat)
		if err != nil {
			t.Fatal(err)
		}
		if got := pp.Match(c.path); got != c.want {
			t.Errorf("%q matches %q: %v, want %v", c.pat, c.path, got, c.want)
		}
		if got := pp.Covering().Match(c.path); got != c.want {
			t.Errorf("%q as no-write reads it matches %q: %v, want %v", c.pat, c.path, got, c.want)
		}
	}
	if _, errs := configErrs(t, "checks:\n  - {name: a, command: x, expect: {wrote-only: [\"./**\"]}}\n"); errs != "" {
		t.Errorf("wrote-only [./**] refused: %s", errs)
	}
}
