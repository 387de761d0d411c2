package fsx

import (
	"fmt"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// OpenMountTarget opens a mount destination without following any
// symlink on the way (RESOLVE_NO_SYMLINKS), so that a tree prepared by an
// earlier run or by the repository itself cannot redirect a mount onto
// something else. The mount then goes onto /proc/self/fd/N, the very
// directory that was checked.
func OpenMountTarget(path string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return -1, fmt.Errorf("mount destination %s (symlinks are not followed): %w", path, err)
	}
	return fd, nil
}

// SafeMount is unix.Mount onto a destination checked by OpenMountTarget.
func SafeMount(source, target, fstype string, flags uintptr, data string) error {
	fd, err := OpenMountTarget(target)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Mount(source, "/proc/self/fd/"+strconv.Itoa(fd), fstype, flags, data); err != nil {
		return fmt.Errorf("mounting %s on %s: %w", fstype, target, err)
	}
	return nil
}

// Under reports whether path p is dir or inside it, by their names (no
// link is followed). Two clean absolute paths, as nearly every caller
// has, are compared as strings, with no allocation; others go through
// filepath.Rel, which cleans them.
func Under(p, dir string) bool {
	if filepath.IsAbs(p) && filepath.IsAbs(dir) && filepath.Clean(p) == p && filepath.Clean(dir) == dir {
		return dir == "/" || p == dir || (len(p) > len(dir) && p[len(dir)] == '/' && p[:len(dir)] == dir)
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !(len(rel) > 2 && rel[:3] == "../")
}
