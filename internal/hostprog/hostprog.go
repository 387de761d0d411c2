package hostprog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

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
	if len(e.Skipped) > 0 {
		fmt.Fprintf(&b, "no %s in the system's directories (%s) that only root or you may rewrite; passed over, as another user may: %s",
			e.Name, strings.Join(Dirs, ", "), strings.Join(e.Skipped, ", "))
	} else {
		fmt.Fprintf(&b, "%s is not installed in the system's directories (%s)", e.Name, strings.Join(Dirs, ", "))
	}
	if e.OnPath != "" {
		fmt.Fprintf(&b, "; the %s at %s on PATH is not used: vigiles runs the programs it needs on the host only from the system's directories, "+
			"since PATH can name a directory of the checkout under audit (npm run's node_modules/.bin), whose program would run outside the sandbox", e.Name, e.OnPath)
	}
	return b.String()
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// FixFor is the fix for Find's error err: install, where the program is
// not there, or, where a copy was passed over, what takes the others'
// write away.
func FixFor(err error, install string) string {
	var e *NotFoundError
	if errors.As(err, &e) && len(e.Skipped) > 0 {
		return fmt.Sprintf("let no one but root write %s or the directories on its way (chown root, chmod go-w; a group's write only root's group's), or %s", e.Name, install)
	}
	return install
}

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
	if p, err := exec.LookPath(name); err == nil && !slices.Contains(Dirs, filepath.Dir(p)) {
		e.OnPath = p
	}
	return "", e
}

// usable walks p from the root a component at a time, following each
// link (of a directory or of the file) where it stands, and checks every
// directory it passes through, before it takes the entry it holds, and
// the file it ends at. why is "" where p is simply not there (or no
// executable file).
func usable(p string) (why string, ok bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	rest := strings.Split(p, "/")
	cur := "/"
	var curSt unix.Stat_t
	if err := unix.Stat(cur, &curSt); err != nil {
		return "", false
	}
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			if err := unix.Stat(cur, &curSt); err != nil {
				return "", false
			}
			continue
		}
		next := filepath.Join(cur, c)
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			return "", false
		}
		// Who could replace the entry c of cur (rename another over
		// it, or remove it and make another).
		if w := replaceable(cur, &curSt, &st); w != "" {
			return w, false
		}
		if aclLetsOthersWrite(cur) {
			return cur + ": its ACL lets another user or group write it", false
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if hops++; hops > 40 {
				return "", false
			}
			t, err := os.Readlink(next)
			if err != nil {
				return "", false
			}
			if filepath.IsAbs(t) {
				cur = "/"
				if err := unix.Stat(cur, &curSt); err != nil {
					return "", false
				}
			}
			rest = append(strings.Split(t, "/"), rest...)
		case unix.S_IFDIR:
			cur, curSt = next, st
		case unix.S_IFREG:
			if len(rest) > 0 || st.Mode&0o111 == 0 {
				return "", false
			}
			if MayRewrite(&st) {
				return describe(next, &st), false
			}
			if aclLetsOthersWrite(next) {
				return next + ": its ACL lets another user or group write it", false
			}
			return "", true
		default:
			return "", false
		}
	}
	return "", false
}

// replaceable says why another user could replace the entry (st) that
// the directory dir (dirSt) holds: they may write dir, unless it is
// sticky (as /tmp and Nix's store are) and both it and the entry are
// root's or the caller's. "" where no one else could. A read-only mount
// is not taken for one no one writes: a read-only bind mount of a
// directory others may write is written through its source.
func replaceable(dir string, dirSt, st *unix.Stat_t) string {
	if !MayRewrite(dirSt) {
		return ""
	}
	own := func(s *unix.Stat_t) bool { return s.Uid == 0 || s.Uid == uint32(os.Geteuid()) }
	if dirSt.Mode&unix.S_ISVTX != 0 && own(dirSt) && own(st) {
		return ""
	}
	return describe(dir, dirSt)
}

func describe(p string, st *unix.Stat_t) string {
	return fmt.Sprintf("%s: mode %o, owner uid %d, group %d", p, st.Mode&0o7777, st.Uid, st.Gid)
}

// aclLetsOthersWrite says whether the POSIX access ACL of p (not
// followed, if a link) gives write to a named user other than root and
// the caller, or a named group other than root's and the caller's, as
// far as its mask lets it: the mode's bits do not show those.
func aclLetsOthersWrite(p string) bool {
	const name = "system.posix_acl_access"
	for try := 0; try < 3; try++ {
		size, err := unix.Lgetxattr(p, name, nil)
		if err != nil {
			// None (or none the file system keeps): the mode says it
			// all. Any other failure is taken as a write it could not
			// rule out.
			return !errors.Is(err, unix.ENODATA) && !errors.Is(err, unix.ENOTSUP) && !errors.Is(err, unix.EOPNOTSUPP)
		}
		buf := make([]byte, size)
		n, err := unix.Lgetxattr(p, name, buf)
		if errors.Is(err, unix.ERANGE) {
			continue // it grew between the two reads
		}
		if err != nil {
			return true
		}
		return n >= 4 && aclWriters(buf[:n])
	}
	return true
}

// aclWriters reads a system.posix_acl_access value (a version, then
// entries of tag, permissions and id, little-endian).
func aclWriters(b []byte) bool {
	const (
		tagUser, tagGroup, tagMask = 0x02, 0x08, 0x10
		write                      = 0x2
	)
	caller, callerGid := uint32(os.Geteuid()), uint32(os.Getegid())
	le16, le32 := binary.LittleEndian.Uint16, binary.LittleEndian.Uint32
	mask := uint16(0xffff)
	for e := b[4:]; len(e) >= 8; e = e[8:] {
		if le16(e) == tagMask {
			mask = le16(e[2:])
		}
	}
	for e := b[4:]; len(e) >= 8; e = e[8:] {
		tag, perm, id := le16(e), le16(e[2:]), le32(e[4:])
		if perm&mask&write == 0 {
			continue
		}
		if tag == tagUser && id != 0 && id != caller || tag == tagGroup && id != 0 && id != callerGid {
			return true
		}
	}
	return false
}

// MayRewrite says whether a user other than root and the caller may write
// the file st describes: its owner is neither, anyone may, or the members
// of a group other than root's and the caller's may. (A POSIX ACL that
// lets another write is read apart, by path: aclLetsOthersWrite.)
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
		if !slices.Contains(oldDirs, d) {
			unchecked[d] = true
		}
	}
	t.Cleanup(func() { Dirs, unchecked = oldDirs, oldUnchecked })
}

// PastaGuard runs pasta ("$@") in the foreground under a shell that ends
// it (SIGTERM) once descriptor 3, the read end of a pipe whose write end
// only vigiles holds, reaches its end: when vigiles closes it, or when
// vigiles dies, killed or not. The shell exits with pasta's status once
// pasta is gone. Daemonized, pasta outlived a vigiles that was killed:
// nothing ended it, and it kept the sandbox's namespaces alive for good.
// (A parent-death signal would not do: the kernel clears it when pasta
// joins the sandbox's user namespace, which another uid owns.) A run's
// connector (pkg/egress) and the doctor's pasta check both start it so.
const PastaGuard = `"$@" 3<&- & p=$!; { read -r _ <&3; kill $p 2>/dev/null; } & r=$!; exec 3<&-; wait $p; s=$?; kill $r 2>/dev/null; wait $r 2>/dev/null; exit $s`

// StartPastaGuarded starts pasta (bin, with args, which must hold
// --foreground) under PastaGuard, in a process group of its own, with the
// system's environment (Env: nothing of the caller's, its secrets, an
// LD_PRELOAD) and its output to out. Pasta runs while life, the write
// end of the guard's pipe, is open: closing it ends pasta, and so does
// this process's death.
func StartPastaGuarded(bin string, args []string, out io.Writer, start func(*exec.Cmd) error) (cmd *exec.Cmd, life *os.File, err error) {
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.Command("/bin/sh", append([]string{"-c", PastaGuard, "pasta-guard", bin}, args...)...)
	cmd.Env = Env()
	cmd.Stdout, cmd.Stderr = out, out
	cmd.ExtraFiles = []*os.File{lifeR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if start == nil {
		start = (*exec.Cmd).Start
	}
	err = start(cmd)
	lifeR.Close()
	if err != nil {
		lifeW.Close()
		return nil, nil, err
	}
	return cmd, lifeW, nil
}

// SlirpFix names the fix for a slirp4netns that did not come up, read from
// what it printed, or "" where that names no step vigiles knows. It reads
// the failed step, never a warning: slirp4netns prints "WARNING: Support
// for seccomp is experimental" on every start given --enable-seccomp (and
// "seccomp: WARNING: can't add extra arch" where the kernel lacks one), a
// failed start too, so "seccomp" alone names no failure; its own failures
// name the step ("create_sandbox failed", "enable_seccomp failed"). The
// tun device is opened before it confines itself, so its failure is read
// first.
func SlirpFix(said []byte) string {
	switch {
	case bytes.Contains(said, []byte("disable-dns")):
		return "install slirp4netns 1.1.0 or later, built with libslirp 4.3.0 or later (it must turn off its own DNS forwarder, " +
			"--disable-dns, which would answer the command with the host's resolver, around the allowlist), or use pasta (--connector pasta)"
	case bytes.Contains(said, []byte("/dev/net/tun")):
		return "slirp4netns must open /dev/net/tun: make it usable (chmod 0666 /dev/net/tun; it is 0666 on stock systems) " +
			"or load the tun module (modprobe tun)"
	case bytes.Contains(said, []byte("create_sandbox failed")) || bytes.Contains(said, []byte("enable_seccomp failed")):
		return "slirp4netns must confine itself (--enable-sandbox: a mount namespace of its own; --enable-seccomp: " +
			"a slirp4netns built with libseccomp), since it reads every packet of the command and vigiles does not run it " +
			"with the caller's whole host: let it, or use pasta (--connector pasta)"
	}
	return ""
}
