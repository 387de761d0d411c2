package hostprog

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rootDir makes a directory whose path only root may write (under /run,
// not the world-writable /tmp), removed when the test ends; tests that
// need one run as root (CI does) and are skipped elsewhere.
func rootDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs the tests as root; this one needs a directory only root may write")
		}
		t.Skip("needs root: it makes a directory only root may write, under /run")
	}
	d, err := os.MkdirTemp("/run", "vigiles-hostprog-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func setDirs(t *testing.T, dirs ...string) {
	old := Dirs
	Dirs = dirs
	t.Cleanup(func() { Dirs = old })
}

func writeProg(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// TestFindSkipsWhatOthersMayRewrite: a program in a directory, or of a
// mode, that a user other than root and the caller may write is passed
// over, with the reason in the error; the next directory's is taken.
func TestFindSkipsWhatOthersMayRewrite(t *testing.T) {
	open, good := rootDir(t), rootDir(t)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	writeProg(t, filepath.Join(open, "prog"), 0o755)
	setDirs(t, open)
	_, err := Find("prog")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "passed over") || !strings.Contains(err.Error(), "mode 777") || strings.Contains(err.Error(), "not installed") {
		t.Errorf("a program in a world-writable directory: %v; want it passed over, saying why", err)
	}
	if fix := FixFor(err, "install prog"); !strings.Contains(fix, "chmod go-w") {
		t.Errorf("the fix for a copy passed over: %q; want how to take the others' write away", fix)
	}
	writeProg(t, filepath.Join(good, "prog"), 0o757)
	setDirs(t, good)
	if _, err := Find("prog"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "mode 757") {
		t.Errorf("a world-writable program: %v; want it passed over", err)
	}
	writeProg(t, filepath.Join(good, "prog"), 0o755)
	setDirs(t, open, good)
	if p, err := Find("prog"); err != nil || p != filepath.Join(good, "prog") {
		t.Errorf("Find = %q, %v; want the program of the directory only root may write", p, err)
	}
}

// TestFindFollowsLinksAndKeepsTheName: a link is followed hop by hop, its
// target checked as the link's directory is, and the path returned is
// the link's (pasta is a link to passt, and reads its own name).
func TestFindFollowsLinksAndKeepsTheName(t *testing.T) {
	bin, lib, open := rootDir(t), rootDir(t), rootDir(t)
	writeProg(t, filepath.Join(lib, "passt"), 0o755)
	if err := os.Symlink(filepath.Join(lib, "passt"), filepath.Join(bin, "pasta")); err != nil {
		t.Fatal(err)
	}
	setDirs(t, bin)
	if p, err := Find("pasta"); err != nil || p != filepath.Join(bin, "pasta") {
		t.Errorf("Find(pasta) = %q, %v; want the link's own path", p, err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	writeProg(t, filepath.Join(open, "x"), 0o755)
	if err := os.Symlink(filepath.Join(open, "x"), filepath.Join(bin, "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("x"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), open) {
		t.Errorf("a link into a world-writable directory: %v; want it passed over", err)
	}
}

// TestFindNeverTakesPath: a program PATH names outside the system's
// directories is never taken, and the error says it is not used and why.
func TestFindNeverTakesPath(t *testing.T) {
	bin := t.TempDir()
	writeProg(t, filepath.Join(bin, "vigiles-hostprog-test"), 0o755)
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	if p, err := exec.LookPath("vigiles-hostprog-test"); err != nil || p == "" {
		t.Fatalf("the test's program is not on PATH: %v", err)
	}
	_, err := Find("vigiles-hostprog-test")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "on PATH is not used") || !strings.Contains(err.Error(), "node_modules/.bin") {
		t.Errorf("Find = %v; want not found, saying PATH's copy is not used and why", err)
	}
	if p, err := Find("sh"); err != nil || !strings.HasPrefix(p, "/") {
		t.Errorf("Find(sh) = %q, %v; want the system's", p, err)
	}
}

// TestFindWalksEachComponent: a link to a directory is followed where it
// stands, and the directory it passes through checked: bin -> open/hop ->
// good, with open writable by anyone, who could point hop elsewhere.
func TestFindWalksEachComponent(t *testing.T) {
	root := rootDir(t)
	for _, d := range []string{"open", "good"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeProg(t, filepath.Join(root, "good", "prog"), 0o755)
	if err := os.Symlink(filepath.Join(root, "good"), filepath.Join(root, "open", "hop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "open", "hop"), filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	setDirs(t, filepath.Join(root, "bin"))
	if p, err := Find("prog"); err != nil {
		t.Fatalf("through links of directories only root may write: %q, %v", p, err)
	}
	if err := os.Chmod(filepath.Join(root, "open"), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("prog"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(root, "open")) {
		t.Errorf("a link to a directory held by a world-writable one: %v; want it passed over, naming it", err)
	}
}

// TestFindTakesStickyDirectories: a sticky directory anyone may write
// (/tmp; Nix's store, root:nixbld 1775) lets no one else replace an entry
// of root's, so a program under one is taken; an entry of another user's
// there is not.
func TestFindTakesStickyDirectories(t *testing.T) {
	root := rootDir(t)
	store := filepath.Join(root, "store")
	if err := os.Mkdir(store, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(store, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Join(store, "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeProg(t, filepath.Join(pkg, "bin", "prog"), 0o755)
	setDirs(t, filepath.Join(pkg, "bin"))
	if p, err := Find("prog"); err != nil {
		t.Errorf("under a sticky directory, all root's: %q, %v", p, err)
	}
	if err := os.Chown(pkg, 12345, 12345); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("prog"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an entry of another user's in a sticky directory: %v; want it passed over", err)
	}
}

// TestFindRefusesReadOnlyBindsOfWhatOthersWrite: a read-only bind mount
// of a directory others may write is written through its source: what it
// shows is no more root's than the source is.
func TestFindRefusesReadOnlyBindsOfWhatOthersWrite(t *testing.T) {
	root := rootDir(t)
	src, ro := filepath.Join(root, "src"), filepath.Join(root, "ro")
	for _, d := range []string{src, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(src, 0o777); err != nil {
		t.Fatal(err)
	}
	writeProg(t, filepath.Join(src, "prog"), 0o755)
	if out, err := exec.Command("mount", "--bind", "-o", "ro", src, ro).CombinedOutput(); err != nil {
		t.Fatalf("bind-mounting read-only: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", ro).Run() })
	setDirs(t, ro)
	if _, err := Find("prog"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a read-only bind of a world-writable directory: %v; want it passed over", err)
	}
}

// TestFindReadsACLs: a directory whose POSIX ACL lets another user write
// it (drwxrwxr-x+ root:root, user:12345:rwx) shows no such write in its
// mode's other bits and a group of root's: its program is passed over.
func TestFindReadsACLs(t *testing.T) {
	root := rootDir(t)
	dir := filepath.Join(root, "bin")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeProg(t, filepath.Join(dir, "prog"), 0o755)
	setDirs(t, dir)
	if _, err := Find("prog"); err != nil {
		t.Fatalf("before the ACL: %v", err)
	}
	// version 2; user_obj rwx, user 12345 rwx, group_obj r-x, mask rwx, other r-x
	acl := []byte{2, 0, 0, 0,
		0x01, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x02, 0, 7, 0, 0x39, 0x30, 0, 0,
		0x04, 0, 5, 0, 0xff, 0xff, 0xff, 0xff,
		0x10, 0, 7, 0, 0xff, 0xff, 0xff, 0xff,
		0x20, 0, 5, 0, 0xff, 0xff, 0xff, 0xff}
	if err := unix.Setxattr(dir, "system.posix_acl_access", acl, 0); err != nil {
		t.Fatalf("setting an ACL (the file system must take them): %v", err)
	}
	if _, err := Find("prog"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "ACL") {
		t.Errorf("a directory an ACL lets another user write: %v; want it passed over", err)
	}
	// The same user, masked to read and execute: no write.
	acl[28+2] = 5
	if err := unix.Setxattr(dir, "system.posix_acl_access", acl, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Find("prog"); err != nil {
		t.Errorf("the ACL's mask takes the write away: %v", err)
	}
}
