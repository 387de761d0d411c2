package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// workspaceWithOutside is a workspace and a directory beside it holding a
// file that must never be written.
func workspaceWithOutside(t *testing.T) (ws, outside, victim string) {
	t.Helper()
	tmp, _ := filepath.EvalSymlinks(t.TempDir())
	ws, outside = filepath.Join(tmp, "ws"), filepath.Join(tmp, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "in")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim = filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, outside, victim
}

func TestResolveInWorkspace(t *testing.T) {
	ws, outside, victim := workspaceWithOutside(t)
	links := map[string]string{
		"to-victim":   victim,
		"to-outside":  outside,
		"abs-inside":  filepath.Join(ws, "in"),
		"rel-inside":  "in",
		"climb":       "../outside",
		"in/up":       "..",
		"chain":       "rel-inside",
		"loop-a":      "loop-b",
		"loop-b":      "loop-a",
		"in/dangling": "../../outside/new",
	}
	for l, t0 := range links {
		if err := os.Symlink(t0, filepath.Join(ws, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		rel, want string // want: the path under ws, or "out:LINK" for the link that leads out, or "err"
	}{
		{"new.sarif", "new.sarif"},
		{"in/x/y.sarif", "in/x/y.sarif"},
		{"to-victim", "out:to-victim"},
		{"to-outside/x.sarif", "out:to-outside"},
		{"abs-inside/x.sarif", "in/x.sarif"},
		{"rel-inside/x.sarif", "in/x.sarif"},
		{"chain/x.sarif", "in/x.sarif"},
		{"climb/x.sarif", "out:climb"},
		{"in/up/x.sarif", "x.sarif"},
		{"in/up/in/up/../x.sarif", "out:in/up"},
		{"in/dangling", "out:in/dangling"},
		{"loop-a/x", "err"},
	} {
		got, err := resolveInWorkspace(ws, tc.rel)
		var lo *linkedOutError
		switch {
		case strings.HasPrefix(tc.want, "out:"):
			if !errors.As(err, &lo) || lo.link != strings.TrimPrefix(tc.want, "out:") {
				t.Errorf("%s: %q, %v; want the link %s leading out", tc.rel, got, err, strings.TrimPrefix(tc.want, "out:"))
			}
		case tc.want == "err":
			if err == nil || errors.As(err, &lo) {
				t.Errorf("%s: %q, %v; want an error", tc.rel, got, err)
			}
		default:
			if err != nil || got != filepath.Join(ws, tc.want) {
				t.Errorf("%s: %q, %v; want %s", tc.rel, got, err, filepath.Join(ws, tc.want))
			}
		}
	}
}

// TestWriteInWorkspaceLastMomentLinks: a link put in place after the path
// was checked is not followed: one at the file's name is replaced by the
// file, one for a directory on the way makes the write fail; nothing
// outside the workspace is written either way.
func TestWriteInWorkspaceLastMomentLinks(t *testing.T) {
	t.Cleanup(func() { afterResolve = nil })
	t.Run("the file", func(t *testing.T) {
		ws, _, victim := workspaceWithOutside(t)
		name := filepath.Join(ws, "in", "v.sarif")
		os.WriteFile(name, []byte("old"), 0o644)
		afterResolve = func() {
			os.Remove(name)
			if err := os.Symlink(victim, name); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeInWorkspace(ws, "in/v.sarif", []byte("sarif")); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious" {
			t.Errorf("the victim outside was written: %q", b)
		}
		fi, err := os.Lstat(name)
		if b, _ := os.ReadFile(name); err != nil || !fi.Mode().IsRegular() || string(b) != "sarif" || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v %v %q; want the file, 0644, in the link's place", name, fi.Mode(), err, b)
		}
	})
	t.Run("a directory", func(t *testing.T) {
		ws, outside, _ := workspaceWithOutside(t)
		afterResolve = func() {
			os.RemoveAll(filepath.Join(ws, "in"))
			if err := os.Symlink(outside, filepath.Join(ws, "in")); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeInWorkspace(ws, "in/v.sarif", []byte("sarif")); err == nil {
			t.Errorf("written through a directory linked out")
		}
		if ents, _ := os.ReadDir(outside); len(ents) != 1 {
			t.Errorf("outside the workspace: %v", ents)
		}
	})
	t.Run("an absolute link that stays inside", func(t *testing.T) {
		// Followed, as resolveInWorkspace's check before the run lets it
		// pass.
		ws, _, _ := workspaceWithOutside(t)
		afterResolve = nil
		if err := os.Symlink(filepath.Join(ws, "in"), filepath.Join(ws, "out")); err != nil {
			t.Fatal(err)
		}
		if _, err := resolveInWorkspace(ws, "out/v.sarif"); err != nil {
			t.Fatal(err)
		}
		if err := writeInWorkspace(ws, "out/v.sarif", []byte("sarif")); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "in", "v.sarif")); err != nil || string(b) != "sarif" {
			t.Errorf("%q %v", b, err)
		}
	})
	t.Run("made directories", func(t *testing.T) {
		ws, _, _ := workspaceWithOutside(t)
		afterResolve = nil
		if err := writeInWorkspace(ws, "a/b/c.sarif", []byte("sarif")); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "a", "b", "c.sarif")); err != nil || string(b) != "sarif" {
			t.Errorf("%q %v", b, err)
		}
		if ents, _ := os.ReadDir(filepath.Join(ws, "a", "b")); len(ents) != 1 {
			t.Errorf("a temporary file was left: %v", ents)
		}
	})
}
