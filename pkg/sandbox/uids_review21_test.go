package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// fsImmutable is FS_IMMUTABLE_FL (chattr +i): no entry of the directory
// may be made or removed, by root neither.
const fsImmutable = 0x10

// TestUIDSlotsRefuseWhereRootMayNotWrite: where root is refused its own
// uid lock file (EPERM here from an immutable directory; a Landlock
// domain or an LSM profile vigiles was started in, or a read-only mount,
// alike), the run is refused (ErrRefused), naming the uid, the errno and
// both fixes, not failed as an error, nor refused as if every uid were
// held.
func TestUIDSlotsRefuseWhereRootMayNotWrite(t *testing.T) {
	requireRoot(t, "root alone is refused a file in a directory of its own by what is not the file's mode")
	dir := filepath.Join(t.TempDir(), "uids")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags|fsImmutable)
	}
	if err != nil {
		why := fmt.Sprintf("the test's temporary directory takes no immutable flag (%v)", err)
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s; CI's must be a local file system (ext4, xfs, btrfs, tmpfs from Linux 6.0)", why)
		}
		t.Skipf("%s; give TMPDIR on a local file system", why)
	}
	defer unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags)
	base := uint32(SandboxUID + 1024)
	s := &uidSlots{base: base, dir: dir}
	uid, err := s.take()
	if err == nil || errors.Is(err, errNoUID) || !errors.Is(err, ErrRefused) || !errors.Is(err, syscall.EPERM) {
		t.Fatalf("took %d, %v; want a refusal with EPERM", uid, err)
	}
	for _, want := range []string{fmt.Sprintf("claiming uid %d", base), "a Landlock domain", "or give it a writable " + dir} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not name %q", err, want)
		}
	}
}
