package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/loopfs"
	"github.com/vigiles/action/pkg/evidence"
)

// kernelAtLeast reports whether the running kernel is major.minor or newer.
func kernelAtLeast(t *testing.T, major, minor int) bool {
	t.Helper()
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var ma, mi int
	if _, err := fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &ma, &mi); err != nil {
		t.Fatalf("kernel release %q: %v", u.Release[:], err)
	}
	return ma > major || ma == major && mi >= minor
}

// mountFS mounts a fresh file system of type fs on a new directory and
// returns it: tmpfs itself, or ext4, xfs or btrfs on a loop image made
// with its mkfs (scripts/install-deps.sh --test installs them). It is unmounted,
// and its loop device detached, when the test ends.
func mountFS(t *testing.T, fs string) string {
	t.Helper()
	base := tempDirIn(t, "", "vigiles-fs-", 0o755)
	if fs != "tmpfs" {
		return loopfs.Mount(t, base, fs, nil, "", func(what string) { t.Helper(); missing(t, what) })
	}
	dir := filepath.Join(base, "mnt")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "mode=0755,size=64m"); err != nil {
		t.Fatalf("mounting tmpfs: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}

// TestWorkTreeOnEachFileSystem: a work tree that is a mount point of
// tmpfs, ext4, xfs or btrfs, root's (handed over id-mapped) or another
// owner's (the sandbox runs as that uid), is recorded exactly (creates,
// modifies, deletes, renames of files and directories) and the host's tree
// does not change; where the kernel cannot id-map the file system (tmpfs
// before Linux 6.3, btrfs before 5.15), the root-owned tree is refused,
// naming the fixes, and nothing runs. So too, mounted read-only, noexec,
// nosuid and nodev: the run's overlay is writable (the record the same)
// and the host's mount keeps its flags.
func TestWorkTreeOnEachFileSystem(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "mounting needs root")
	idmaps := map[string][2]int{"tmpfs": {6, 3}, "ext4": {5, 12}, "xfs": {5, 12}, "btrfs": {5, 15}}
	files := map[string]string{"m": "m\n", "d": "d\n", "r": "r\n", "dd/x/f": "1\n", "rd/f": "2\n", "sp ace/f": "3\n"}
	script := `echo new > c; echo more >> m; rm d; mv r r2; mkdir nd; echo x > nd/f; mkdir empty; rm -r dd; mv rd rd2; echo s >> "sp ace/f"; exit 0`
	want := []evidence.Write{
		{Path: "c", Op: "create", Kind: "file"}, {Path: "d", Op: "delete"}, {Path: "dd", Op: "delete", Was: "dir"}, {Path: "dd/x/f", Op: "delete"},
		{Path: "empty", Op: "create", Kind: "dir"}, {Path: "m", Op: "modify", Kind: "file"},
		{Path: "nd/f", Op: "create", Kind: "file"}, {Path: "r", Op: "delete"}, {Path: "r2", Op: "create", Kind: "file", From: "r"},
		{Path: "rd", Op: "delete", Was: "dir"}, {Path: "rd/f", Op: "delete"}, {Path: "rd2/f", Op: "create", Kind: "file"}, {Path: "sp ace/f", Op: "modify", Kind: "file"},
	}
	const uid = 2000001234
	for _, fs := range []string{"tmpfs", "ext4", "xfs", "btrfs"} {
		t.Run(fs, func(t *testing.T) {
			dir := mountFS(t, fs)
			for p, c := range files {
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, owner := range []string{"root", "another uid", "another uid, read-only, noexec, nosuid, nodev"} {
				if owner == "another uid, read-only, noexec, nosuid, nodev" {
					// The overlay (nosuid, nodev) records what it did as
					// on a writable mount; the host's mount keeps its
					// flags and content.
					if out, err := exec.Command("mount", "-o", "remount,ro,noexec,nosuid,nodev", dir).CombinedOutput(); err != nil {
						t.Fatalf("remounting %s read-only: %v: %s", fs, err, out)
					}
				} else if owner != "root" {
					// The group the sandbox takes for a uid the passwd
					// file does not name (ownerGid).
					filepath.Walk(dir, func(p string, fi os.FileInfo, _ error) error {
						if fi != nil && fi.Name() != "lost+found" {
							os.Lchown(p, uid, 65534)
						}
						return nil
					})
				}
				before := treeHash(t, dir)
				res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(script)})
				v := idmaps[fs]
				if owner == "root" && !kernelAtLeast(t, v[0], v[1]) {
					if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "id-mapp") || !strings.Contains(res.Refusal, "--root-sandbox") {
						t.Errorf("%s's tree on %s, which this kernel cannot id-map: err %v refusal %q, want a refusal naming the fix", owner, fs, err, res.Refusal)
					}
				} else if err != nil || res.Tier != TierConfined || res.Error != "" {
					t.Errorf("%s's tree on %s: err %v tier %s error %q refusal %q", owner, fs, err, res.Tier, res.Error, res.Refusal)
				} else if d := cmp.Diff(want, res.Writes); d != "" {
					t.Errorf("%s's tree on %s (%s): writes (-want +got):\n%s\nstderr: %s", owner, fs, res.WritesMethod, d, res.Stderr)
				}
				if treeHash(t, dir) != before {
					t.Errorf("%s's tree on %s: the host's tree changed", owner, fs)
				}
				var st unix.Statfs_t
				if err := unix.Statfs(dir, &st); err != nil || owner != "root" && owner != "another uid" && st.Flags&unix.ST_RDONLY == 0 {
					t.Errorf("%s's tree on %s: the host's mount lost its flags (%v)", owner, fs, err)
				}
			}
		})
	}
}

// TestWorkTreeOnOverlayfs: a work tree on overlayfs (a container's root)
// is another owner's to run on (a root-owned one cannot be id-mapped:
// refused, naming the fixes). On one overlay the sandbox's overlay stacks
// on it; on an overlay of an overlay (a container's container) overlayfs
// refuses a third level: the run is recorded by copy, exactly, and
// --writes overlay is refused naming overlayfs and --writes copy, not with
// a bare "invalid argument".
func TestWorkTreeOnOverlayfs(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "mounting needs root")
	base := tempDirIn(t, "", "vigiles-ovl-", 0o755)
	mountOvl := func(name, lower string) string {
		t.Helper()
		for _, d := range []string{"u", "w", "m"} {
			if err := os.MkdirAll(filepath.Join(base, name, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		m := filepath.Join(base, name, "m")
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", lower, filepath.Join(base, name, "u"), filepath.Join(base, name, "w"))
		if err := unix.Mount("overlay", m, "overlay", 0, opts); err != nil {
			t.Fatalf("mounting overlayfs: %v", err)
		}
		t.Cleanup(func() { unix.Unmount(m, unix.MNT_DETACH) })
		return m
	}
	lower := filepath.Join(base, "lower")
	const uid = 2000001234
	for p, c := range map[string]string{"tree/m": "m\n", "tree/d": "d\n", "tree/dd/f": "f\n"} {
		os.MkdirAll(filepath.Join(lower, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(lower, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	one := mountOvl("one", lower)
	two := mountOvl("two", one)
	script := `echo more >> m; rm d; mv dd dd2; echo x > new; exit 0`
	want := []evidence.Write{{Path: "d", Op: "delete"}, {Path: "dd", Op: "delete", Was: "dir"}, {Path: "dd/f", Op: "delete"}, {Path: "dd2/f", Op: "create", Kind: "file"},
		{Path: "m", Op: "modify", Kind: "file"}, {Path: "new", Op: "create", Kind: "file"}}
	for _, c := range []struct {
		name, dir, method string
	}{{"one overlay", filepath.Join(one, "tree"), "overlay"}, {"an overlay of an overlay", filepath.Join(two, "tree"), "copy"}} {
		filepath.Walk(c.dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 0, 0) })
		res, err := Run(context.Background(), Spec{Dir: c.dir, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(script)})
		if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "id-mapp") || !strings.Contains(res.Refusal, "--root-sandbox") {
			t.Errorf("%s, root's: err %v refusal %q, want a refusal naming the fixes", c.name, err, res.Refusal)
		}
		filepath.Walk(c.dir, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, uid, 65534) })
		before := treeHash(t, c.dir)
		res = run(t, Spec{Dir: c.dir, Command: sh(script)})
		if res.Tier != TierConfined || res.Error != "" || res.WritesMethod != c.method {
			t.Errorf("%s: tier %s method %q error %q, want %s", c.name, res.Tier, res.WritesMethod, res.Error, c.method)
		}
		if d := cmp.Diff(want, res.Writes); d != "" {
			t.Errorf("%s: writes (-want +got):\n%s\nstderr: %s", c.name, d, res.Stderr)
		}
		if treeHash(t, c.dir) != before {
			t.Errorf("%s: the host's tree changed", c.name)
		}
	}
	res, err := Run(context.Background(), Spec{Dir: filepath.Join(two, "tree"), Mode: ModeStrict, WritesMethod: "overlay", Timeout: 30 * time.Second, Command: sh(script)})
	if !errors.Is(err, ErrRefused) || !strings.Contains(res.Refusal, "overlayfs") || !strings.Contains(res.Refusal, "--writes copy") {
		t.Errorf("--writes overlay on an overlay of an overlay: err %v refusal %q, want a refusal naming overlayfs and --writes copy", err, res.Refusal)
	}
}
