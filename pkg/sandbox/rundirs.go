package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// runLock is the host's directory of lock files, which every user may
// write on Debian and Ubuntu (1777) until the host reboots.
const runLock = "/run/lock"

// runUser holds each user's runtime directory, /run/user/UID.
const runUser = "/run/user/"

// hostRunAreas are the places under /run a hook run as the caller on the
// host would write, under Claude Code, where the run's /run, a fresh
// read-only tmpfs, failed the write unrecorded: /run/lock and the caller's
// own runtime directory /run/user/UID (XDG_RUNTIME_DIR, which the caller
// keeps until it logs out, and where systemd's user manager reads units:
// $XDG_RUNTIME_DIR/systemd/user). uid is the caller's, the broker's own
// real uid, also for a root caller whose sandbox runs as a uid of its
// own. Each is one where the host has it, a directory (not a link), and
// the caller may write it (writable, asked as the caller: access(2)). The
// init shows a throwaway empty directory of its scratch at each, recorded
// by its path as /var/tmp is (mountRunAreas); none where the host has
// none. Two lstats where the host has neither.
func hostRunAreas(uid int, lstat func(string) (os.FileInfo, error), writable func(string) bool) []string {
	var out []string
	for _, p := range []string{runLock, runUser + strconv.Itoa(uid)} {
		if fi, err := lstat(p); err == nil && fi.IsDir() && writable(p) {
			out = append(out, p)
		}
	}
	return out
}

// callerMayWrite says whether the caller may make and remove entries in
// dir: access(2), which asks as the real uid and its groups, the caller's.
func callerMayWrite(dir string) bool { return unix.Access(dir, unix.W_OK|unix.X_OK) == nil }

// runAreaMode is the mode the init gives the throwaway at p, one of
// hostRunAreas' paths: /run/lock's 1777, as the host's, and a runtime
// directory's 0700, the caller's own (the sandbox's uid 0's, whose the
// scratch is). Any other path is refused: the broker names no other.
func runAreaMode(p string) (os.FileMode, error) {
	if p == runLock {
		return 0o777 | os.ModeSticky, nil
	}
	if uid, ok := strings.CutPrefix(p, runUser); ok {
		if n, err := strconv.ParseUint(uid, 10, 32); err == nil && strconv.FormatUint(n, 10) == uid {
			return 0o700, nil
		}
	}
	return 0, fmt.Errorf("%q is no place under /run the run shows", p)
}

// mountRunAreas makes and binds, at each of paths (initConfig.RunAreas),
// a throwaway directory of the scratch (scratchDir/runN): the /run
// bubblewrap made is the sandbox's tmpfs, where /run/user is made for a
// runtime directory, which the record does not name (it walks the
// throwaway alone). It returns the areas to record, as /var/tmp's.
func mountRunAreas(paths []string) ([]scratchArea, error) {
	var out []scratchArea
	for i, p := range paths {
		mode, err := runAreaMode(p)
		if err != nil {
			return nil, err
		}
		dir := scratchDir + "/run" + strconv.Itoa(i)
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("preparing scratch: %w", err)
		}
		if err := os.Chmod(dir, mode); err != nil {
			return nil, fmt.Errorf("preparing scratch: %w", err)
		}
		if err := os.MkdirAll(p, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("preparing %s: %w", p, err)
		}
		if err := bindMount(dir, p); err != nil {
			return nil, fmt.Errorf("mounting %s: %w", p, err)
		}
		out = append(out, scratchArea{dir: dir, name: filepath.Clean(p), at: p})
	}
	return out, nil
}

// runAreaPaths are where areas are bound.
func runAreaPaths(areas []scratchArea) []string {
	out := make([]string, 0, len(areas))
	for _, a := range areas {
		out = append(out, a.at)
	}
	return out
}

// runtimeDirAlias is where the init shows the caller's runtime directory a
// second time, and which of paths (initConfig.RunAreas) that directory is:
// the command runs as uid 0, so a non-root caller's hook (uid 1000) that
// builds the path from id -u (/run/user/$(id -u), the usual fallback of
// ${XDG_RUNTIME_DIR:-…}) names /run/user/0, where under Claude Code it
// names /run/user/1000 and the host keeps the write until logout. Both
// are "" where paths hold no runtime directory, and where the caller's is
// /run/user/0 (a root caller's: the two are one).
func runtimeDirAlias(paths []string) (from, to string) {
	const own = runUser + "0"
	for _, p := range paths {
		if p != runLock && p != own && strings.HasPrefix(p, runUser) {
			return p, own
		}
	}
	return "", ""
}

// mountRuntimeDirAlias binds, where runtimeDirAlias names one, the mount
// at the caller's runtime directory from (its throwaway, with what the
// init mounted inside it: the work tree's overlay where the tree lies
// there, TestRuntimeDirAliasShowsTheTreeInside) at to as well, so that a
// write by either path lands in the one throwaway and is recorded once,
// by from. The mount point is made in
// bwrap's /run tmpfs, which no record walks. None is made where something
// of the run's lies at to already (the work tree, a tool cache, the
// caller's HOME there): it is returned as "" then, and where none is named.
// A rename between the two paths is one between two mounts: EXDEV, where
// on the host they are one directory (mv copies and removes then).
func mountRuntimeDirAlias(from, to string) (string, error) {
	if from == "" {
		return "", nil
	}
	if _, err := os.Lstat(to); err == nil {
		return "", nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("preparing %s: %w", to, err)
	}
	if err := os.Mkdir(to, 0o700); err != nil {
		return "", fmt.Errorf("preparing %s: %w", to, err)
	}
	if err := bindMount(from, to); err != nil {
		return "", fmt.Errorf("mounting %s at %s: %w", from, to, err)
	}
	return to, nil
}
