// Package hostprog finds the programs vigiles runs on the host, outside
// any sandbox and before one exists (bubblewrap, the egress connectors,
// getent), where only root or the caller could have put them.
//
// Not through PATH: a caller's PATH may name a directory of the very
// checkout under audit (`npm run` puts its node_modules/.bin first, direnv
// a bin/ of the tree, an activated virtualenv its bin/), and a bwrap found
// there would run the whole run on the host, unconfined, while its record
// said confined. Go's os/exec refuses a relative PATH entry; these are
// absolute.
package hostprog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Dirs are the directories searched, in order: the system's (and NixOS's
// system profile, which only root changes).
var Dirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/run/current-system/sw/bin"}

// Env is the whole environment of a program vigiles runs on the host: a
// PATH of Dirs alone, as bubblewrap needs to find what a probe runs inside
// it (sh, mount), and nothing else of the caller's (its secrets, an
// LD_PRELOAD or LD_LIBRARY_PATH a checkout's direnv set, which the
// dynamically linked bubblewrap would load).
func Env() []string { return []string{"PATH=" + strings.Join(Dirs, ":")} }

// ErrNotFound is Find's error (errors.Is) when no directory of Dirs holds
// the program where it may be run.
var ErrNotFound = errors.New("not installed")

// NotFoundError says where the program was looked for, what was passed
// over there and why, and a copy PATH names that is not used.
type NotFoundError struct {
	Name    string
	Skipped []string // "PATH (why)"
	OnPath  string   // where PATH finds Name, when that is none of Dirs
}

func (e *NotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not installed in the system's directories (%s)", e.Name, strings.Join(Dirs, ", "))
	if len(e.Skipped) > 0 {
		fmt.Fprintf(&b, "; passed over, as another user may rewrite it: %s", strings.Join(e.Skipped, ", "))
	}
	if e.OnPath != "" {
		fmt.Fprintf(&b, "; the %s at %s on PATH is not used: vigiles runs the programs it needs on the host only from the system's directories, "+
			"since PATH can name a directory of the checkout under audit (npm run's node_modules/.bin), whose program would run outside the sandbox", e.Name, e.OnPath)
	}
	return b.String()
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// Find returns the path of name in the first directory of Dirs that holds
// it as an executable regular file (through symbolic links, which are
// followed hop by hop) such that no user but root and the caller may
// rewrite it or any directory on the way to it. The path returned is the
// one found, not the link's target: a program that reads its own name
// (pasta, a link to passt) is run by it.
func Find(name string) (string, error) {
	if strings.Contains(name, "/") {
		return "", fmt.Errorf("hostprog: %q is not a program name", name)
	}
	e := &NotFoundError{Name: name}
	for _, d := range Dirs {
		p := filepath.Join(d, name)
		if unchecked[d] {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return p, nil
			}
			continue
		}
		why, ok := usable(p)
		if ok {
			return p, nil
		}
		if why != "" {
			e.Skipped = append(e.Skipped, p+" ("+why+")")
		}
	}
	if p, err := exec.LookPath(name); err == nil && !slicesHasDir(filepath.Dir(p)) {
		e.OnPath = p
	}
	return "", e
}

func slicesHasDir(d string) bool { return slicesHasDirIn(Dirs, d) }

func slicesHasDirIn(dirs []string, d string) bool {
	for _, x := range dirs {
		if x == d {
			return true
		}
	}
	return false
}

// usable follows p link by link and checks each directory it passes
// through and the file it ends at. why is "" where p is simply not there
// (or no executable file).
func usable(p string) (why string, ok bool) {
	for hops := 0; hops < 40; hops++ {
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return "", false
		}
		if w := rewritableDirs(dir); w != "" {
			return w, false
		}
		p = filepath.Join(dir, filepath.Base(p))
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return "", false
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			t, err := os.Readlink(p)
			if err != nil {
				return "", false
			}
			if !filepath.IsAbs(t) {
				t = filepath.Join(dir, t)
			}
			p = t
			continue
		case unix.S_IFREG:
			if st.Mode&0o111 == 0 {
				return "", false
			}
			if MayRewrite(&st) {
				return describe(p, &st), false
			}
			return "", true
		default:
			return "", false
		}
	}
	return "", false
}

// rewritableDirs checks dir (a real path) and every directory above it.
func rewritableDirs(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		var st unix.Stat_t
		if err := unix.Stat(d, &st); err != nil {
			return d + ": " + err.Error()
		}
		if MayRewrite(&st) {
			return describe(d, &st)
		}
		if d == "/" {
			return ""
		}
	}
}

func describe(p string, st *unix.Stat_t) string {
	return fmt.Sprintf("%s: mode %o, owner uid %d, group %d", p, st.Mode&0o7777, st.Uid, st.Gid)
}

// MayRewrite says whether a user other than root and the caller may write
// the file st describes: its owner is neither, anyone may, or the members
// of a group other than root's and the caller's may.
func MayRewrite(st *unix.Stat_t) bool {
	caller, callerGid := uint32(os.Geteuid()), uint32(os.Getegid())
	return st.Uid != 0 && st.Uid != caller ||
		st.Mode&0o002 != 0 ||
		st.Mode&0o020 != 0 && st.Gid != 0 && st.Gid != callerGid
}

// unchecked are the directories of SetDirsForTest, taken without the
// check of who may rewrite them.
var unchecked = map[string]bool{}

// SetDirsForTest makes Find search dirs alone, in order, until the test
// ends, taking what they hold with no check of who may write it (a test's
// directory lies under the world-writable /tmp). For the tests that stand
// in a program of their own (pass Dirs after it to keep the system's) or
// take every one away (an empty directory); never called elsewhere.
func SetDirsForTest(t interface{ Cleanup(func()) }, dirs ...string) {
	oldDirs, oldUnchecked := Dirs, unchecked
	Dirs = append([]string(nil), dirs...)
	unchecked = map[string]bool{}
	for _, d := range dirs {
		if !slicesHasDirIn(oldDirs, d) {
			unchecked[d] = true
		}
	}
	t.Cleanup(func() { Dirs, unchecked = oldDirs, oldUnchecked })
}
