package sandbox

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/procwait"
)

// doctorTree is what one of the doctor's temporary directories may hold:
// each name the doctor puts there, a directory (with what it may hold in
// turn; empty when nothing) or, where nil, a regular file.
type doctorTree map[string]doctorTree

// doctorDirs are the kinds of temporary directory the doctor's checks
// make, each with what it may hold when a doctor was killed during its
// check: the overlay check's four directories, the file it writes through
// the overlay and the work directories overlayfs makes in its workdir;
// the pasta check's pid file.
var doctorDirs = map[string]doctorTree{
	"overlay": {"lower": {}, "upper": {"written": nil}, "work": {"work": {}, "index": {}}, "merged": {}},
	"pasta":   {"pid": nil},
}

// doctorDirPrefix names a temporary directory of the check kind after
// this doctor (procwait.OwnerTag), as the runs name pasta's (pkg/egress),
// so that a later doctor can tell one whose doctor was killed during the
// check (SIGKILL, the OOM killer: nothing removed it) from one in use.
func doctorDirPrefix(kind string) string {
	return doctorDirKind(kind) + procwait.OwnerTag()
}

func doctorDirKind(kind string) string { return "vigiles-doctor-" + kind + "-" }

// sweepDoctorDirs removes the directories in tmp that doctors of this pid
// namespace, killed during their overlay or pasta check, left. Only a
// directory named as doctorDirPrefix names one, whose doctor /proc says is
// gone, that is this user's (or, for root, one of the users the doctor
// gives its checks: nobody, SandboxUID), and that holds nothing but what
// its check puts there (doctorDirs) is touched; no link is followed, and
// nothing else is removed: a directory that holds anything more is kept
// whole.
func sweepDoctorDirs(tmp string) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		for kind, tree := range doctorDirs {
			if procwait.OwnerGone(e.Name(), doctorDirKind(kind), nil) {
				removeDoctorDir(filepath.Join(tmp, e.Name()), tree)
			}
		}
	}
}

// doctorDirOwners are the users whose doctor directories this process
// may remove: its own, and for root those it gives the checks it runs as
// another user (the overlay check's directories are given to that user).
func doctorDirOwners() []uint32 {
	owners := []uint32{uint32(os.Geteuid())}
	if os.Geteuid() != 0 {
		return owners
	}
	owners = append(owners, SandboxUID)
	if uid, _, err := nobodyIDs(); err == nil {
		owners = append(owners, uid)
	}
	return owners
}

// removeDoctorDir removes the directory at path, if it is a directory (not
// a link to one) of one of doctorDirOwners that holds only what tree
// allows.
func removeDoctorDir(path string, tree doctorTree) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	dir := os.NewFile(uintptr(fd), path)
	defer dir.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	owned := false
	for _, uid := range doctorDirOwners() {
		owned = owned || st.Uid == uid
	}
	if !owned || !holdsOnly(dir, tree) {
		return
	}
	removeHeld(dir, tree)
	// rmdir removes a directory, never what a link names; it fails, and
	// keeps the directory, if anything was put in it meanwhile.
	unix.Rmdir(path)
}

// openDirAt opens the directory name in dir, not following a link.
func openDirAt(dir *os.File, name string) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
}

// holdsOnly reports whether dir holds nothing but what tree allows, each
// of the right type. A directory the caller may not open (overlayfs
// leaves its workdir's work directory without permissions) is left to
// rmdir, which removes it only when it is empty.
func holdsOnly(dir *os.File, tree doctorTree) bool {
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return false
	}
	for _, name := range names {
		sub, ok := tree[name]
		if !ok {
			return false
		}
		var st unix.Stat_t
		if unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return false
		}
		if sub == nil {
			if st.Mode&unix.S_IFMT != unix.S_IFREG {
				return false
			}
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return false
		}
		d, err := openDirAt(dir, name)
		if errors.Is(err, unix.EACCES) {
			continue
		}
		if err != nil {
			return false
		}
		ok = holdsOnly(d, sub)
		d.Close()
		if !ok {
			return false
		}
	}
	return true
}

// removeHeld removes what tree allows from dir, deepest first: a regular
// file by unlink, a directory by rmdir (which fails unless it is empty).
// A name unlinkat removes is never followed.
func removeHeld(dir *os.File, tree doctorTree) {
	for name, sub := range tree {
		if sub == nil {
			var st unix.Stat_t
			if unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
				unix.Unlinkat(int(dir.Fd()), name, 0)
			}
			continue
		}
		if d, err := openDirAt(dir, name); err == nil {
			removeHeld(d, sub)
			d.Close()
		}
		unix.Unlinkat(int(dir.Fd()), name, unix.AT_REMOVEDIR)
	}
}
