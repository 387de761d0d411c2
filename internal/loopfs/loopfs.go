package loopfs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Mount makes a file system of type fs with mkfs.fs (and mkfsArgs) in a
// sparse image of 320 MiB in base, the least XFS takes, mounts it on
// base/fs with the mount options opts (none where empty) and returns that
// directory, open to every uid (0755). It is unmounted, and its loop
// device detached, when the test ends. Where the machine lacks the mkfs,
// a loop device or the file system, Mount calls lacking with what it
// lacks, which fails the test under CI and skips it elsewhere.
func Mount(t testing.TB, base, fs string, mkfsArgs []string, opts string, lacking func(what string)) string {
	t.Helper()
	mkfs, err := exec.LookPath("mkfs." + fs)
	if err != nil {
		lacking("mkfs." + fs + " (scripts/install-deps.sh --test installs it)")
	}
	img := filepath.Join(base, fs+".img")
	dir := filepath.Join(base, fs)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-q"}, mkfsArgs...)
	if fs == "ext4" {
		args = append(args, "-F")
	}
	if out, err := exec.Command(mkfs, append(args, img)...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", mkfs, err, out)
	}
	o := "loop"
	if opts != "" {
		o += "," + opts
	}
	// mount -o loop sets the loop device up to detach itself at unmount.
	if out, err := exec.Command("mount", "-o", o, "-t", fs, img, dir).CombinedOutput(); err != nil {
		lacking(fmt.Sprintf("a loop device and %s to mount (%v: %s)", fs, err, strings.TrimSpace(string(out))))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("unmounting %s: %v: %s", dir, err, out)
			unix.Unmount(dir, unix.MNT_DETACH)
		}
	})
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
