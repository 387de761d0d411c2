package landlock

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ErrUnsupported says the kernel has no usable Landlock: not built in, or
// disabled at boot (lsm=). It wraps errors.ErrUnsupported.
var ErrUnsupported = fmt.Errorf("landlock not available: %w", errors.ErrUnsupported)

// ABI returns the Landlock ABI version the running kernel offers
// (landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)).
// A kernel without Landlock gives 0 and an error wrapping ErrUnsupported;
// any other failure is returned as is (inconclusive).
func ABI() (int, error) {
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch e {
	case 0:
		return int(r), nil
	case unix.ENOSYS:
		return 0, fmt.Errorf("probing landlock: kernel built without it (%w): %w", e, ErrUnsupported)
	case unix.EOPNOTSUPP:
		return 0, fmt.Errorf("probing landlock: disabled at boot, add landlock to the lsm= kernel parameter (%w): %w", e, ErrUnsupported)
	}
	return 0, fmt.Errorf("probing landlock: %w", e)
}

// Filesystem access rights by the ABI that introduced them.
const (
	accessFSv1 = unix.LANDLOCK_ACCESS_FS_EXECUTE |
		unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	accessFSRefer    = unix.LANDLOCK_ACCESS_FS_REFER    // ABI 2
	accessFSTruncate = unix.LANDLOCK_ACCESS_FS_TRUNCATE // ABI 3

	readOnly = unix.LANDLOCK_ACCESS_FS_EXECUTE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR

	// fileRights are the rights a rule on a non-directory may carry.
	fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE |
		unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// HandledAccess returns the filesystem rights RestrictWrites takes control
// of at a given ABI: every write-like right the ABI knows. Device ioctls
// (ABI 5) are left alone: restricting them is not this layer's job and
// would break terminals opened by the command.
func HandledAccess(abi int) uint64 {
	h := uint64(accessFSv1)
	if abi >= 2 {
		h |= accessFSRefer
	}
	if abi >= 3 {
		h |= accessFSTruncate
	}
	return h
}

// WritableDevices are the device files RestrictWrites keeps open for
// writing when they exist: every program expects to write to /dev/null.
// /dev/tty gives access only to the caller's controlling terminal, which a
// confined command started with setsid (bwrap --new-session) has none of.
var WritableDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// RestrictWrites makes the whole filesystem read-only (read, list,
// execute) for the calling thread and every process it starts afterwards,
// except beneath each of writable, where all handled rights are granted,
// and the WritableDevices, which may be opened for writing.
// It sets no_new_privs. The goroutine must be locked to its OS thread and
// must stay locked: see the package documentation.
//
// On ABI 1, files can never be renamed or linked across directories, even
// inside writable paths (a Landlock limitation fixed by ABI 2).
//
// A kernel without Landlock gives an error wrapping ErrUnsupported;
// nothing is restricted on any error.
func RestrictWrites(writable []string) error {
	abi, err := ABI()
	if err != nil {
		return fmt.Errorf("restricting writes: %w", err)
	}
	handled := HandledAccess(abi)
	attr := unix.LandlockRulesetAttr{Access_fs: handled}
	r, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET,
		uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return fmt.Errorf("restricting writes: creating landlock ruleset: %w", e)
	}
	ruleset := int(r)
	defer unix.Close(ruleset)

	if err := addPathRule(ruleset, "/", readOnly&handled); err != nil {
		return fmt.Errorf("restricting writes: %w", err)
	}
	for _, p := range writable {
		if err := addPathRule(ruleset, p, handled); err != nil {
			return fmt.Errorf("restricting writes: %w", err)
		}
	}
	for _, p := range WritableDevices {
		err := addPathRule(ruleset, p, (unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_WRITE_FILE)&handled)
		if err != nil && !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENXIO) {
			return fmt.Errorf("restricting writes: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("restricting writes: setting no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); e != 0 {
		return fmt.Errorf("restricting writes: landlock_restrict_self: %w", e)
	}
	return nil
}

// addPathRule grants access beneath path. path is opened with O_PATH and
// followed if it is a symlink: the rule binds the object, not the name.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %q for a landlock rule: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("inspecting %q for a landlock rule: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(fd)}
	_, _, e := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset),
		unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	runtime.KeepAlive(&rule)
	if e != 0 {
		return fmt.Errorf("adding landlock rule for %q: %w", path, e)
	}
	return nil
}
