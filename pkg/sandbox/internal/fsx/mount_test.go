package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestMountTargetsDoNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	// A repository (or an earlier run) plants a link where a mount goes.
	if err := os.Symlink("/etc", filepath.Join(dir, "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "via")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "planted"), filepath.Join(dir, "via", "x"), filepath.Join(dir, "via")} {
		if fd, err := OpenMountTarget(p); err == nil {
			unix.Close(fd)
			t.Errorf("OpenMountTarget(%s) followed a symlink", p)
		} else if !errors.Is(err, unix.ELOOP) && !errors.Is(err, unix.ENOENT) {
			t.Errorf("OpenMountTarget(%s): %v", p, err)
		}
	}
	fd, err := OpenMountTarget(real)
	if err != nil {
		t.Fatalf("OpenMountTarget(real dir): %v", err)
	}
	unix.Close(fd)
}
