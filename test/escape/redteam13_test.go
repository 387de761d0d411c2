package escape

import (
	"bytes"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/loopfs"
)

// TestRedteam13FileSystemStateIsLeft: what the thirteenth round tried with
// the file systems' own ioctls (scripts/redteam13.py) on files of an XFS, a
// btrfs and an ext4 (made with encryption and fs-verity) the test mounts
// outside the masks, under /var/lib, which the hook reads through the
// read-only root, for every caller and a --root-sandbox run, the files
// the sandbox's uid's where it can be (a root caller's own run is an
// unused uid's, which owns nothing of the host).
//
// Through a descriptor opened for reading alone, XFS_IOC_GETBMAP wrote
// back all 257 pages a host process had left dirty in its file, as did
// XFS_IOC_GETBMAPX, ext4's EXT4_IOC_GET_ES_CACHE with FIEMAP_FLAG_SYNC and
// btrfs's BTRFS_IOC_SYNC (a syncfs of the whole file system), and
// BTRFS_IOC_START_SYNC committed the btrfs's running transaction to its
// disk; each now fails with ENOTTY, as on a file of another file system,
// and each file is as dirty after the run as before, the btrfs's commits
// as many. FS_IOC_ADD_ENCRYPTION_KEY added the hook's key to the ext4's
// keyring, charged to the host uid's key quota, and the key was there
// after the run; FS_IOC_REMOVE_ENCRYPTION_KEY took away the claim a host
// process of the same uid had on its key. Each now fails with EOPNOTSUPP,
// as on a file system without encryption: the hook's key is absent after
// the run, and the host's key held by as many users as before.
//
// The rest is pinned as the kernel and the read-only root answer:
// XFS_IOC_GETBMAPA (the attribute fork, no write-back), FSGETXATTR,
// XFS_IOC_FD_TO_HANDLE (a handle, which only CAP_SYS_ADMIN may open by),
// GETFSMAP (XFS's and ext4's, which read the file system's map),
// BTRFS_IOC_WAIT_SYNC, GET_SUBVOL_INFO, INO_LOOKUP_USER, ext4's GETSTATE,
// PRECACHE_EXTENTS and CLEAR_ES_CACHE (caches the kernel refills from the
// disk's blocks) and the generic queries answer; XFS's removed ALLOCSP and
// FREESP are ENOTTY; what would write the file or the file system
// (SWAPEXT, FSGROWFSDATA, btrfs's defragmentation and snapshots, a
// dedupe onto the host's file itself, ext4's ALLOC_DA_BLKS, fs-verity's
// ENABLE_VERITY on a kernel with fs-verity, an encryption policy) is
// EROFS (EACCES or EPERM first where the hook does not own the file), or
// EBADF for want of a descriptor open for writing (MOVE_EXT); clones and
// dedupes into the tree are EXDEV; what needs CAP_SYS_ADMIN (XFS's scrub
// and FREE_EOFBLOCKS, opening by handle, btrfs's scrub, tree search and send, ext4's
// checkpoint and shutdown, FITRIM, FIFREEZE, FITHAW, SETFSLABEL) or
// CAP_SYS_RAWIO (FIBMAP) is EPERM; and the sandbox's /dev holds no block
// device for BLKFLSBUF or BLKDISCARD.
func TestRedteam13FileSystemStateIsLeft(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test mounts its file systems under /var/lib")
	requireTools(t, "btrfs") // the mkfs of each, loopfs.Mount asks for
	base := openTempDir(t, "/var/lib", "vigiles-escape-fs-")
	xfs := loopfs.Mount(t, base, "xfs", nil, "", lackingIn(t))
	// A commit every 300 s, where the default is 30: within the run the
	// file system commits only when something asks it to.
	btrfs := loopfs.Mount(t, base, "btrfs", nil, "commit=300", lackingIn(t))
	ext4 := loopfs.Mount(t, base, "ext4", []string{"-O", "encrypt,verity"}, "", lackingIn(t))
	if out, err := exec.Command("btrfs", "-q", "subvolume", "create", filepath.Join(btrfs, "sub")).CombinedOutput(); err != nil {
		t.Fatalf("btrfs subvolume create: %v: %s", err, out)
	}
	commits := btrfsCommitsOf(t, btrfs)
	_, verity := os.Stat("/sys/fs/ext4/features/verity")
	const want = 61
	for _, c := range callers(t) {
		r, rootSandbox, name := c.runner, c.rootSandbox, c.name()
		t.Run(name, func(t *testing.T) {
			dir := workTree(t)
			// The sandbox's host uid where the test knows it: the tree's
			// owner, or root for a --root-sandbox run.
			var uid *syscall.Credential
			switch {
			case r.owner != nil:
				uid = r.owner
			case rootSandbox:
				uid = &syscall.Credential{}
			}
			var dirty []string
			for _, fs := range []string{xfs, btrfs, ext4} {
				p := dirtyFileIn(t, fs)
				if uid != nil {
					if err := os.Chown(p, int(uid.Uid), int(uid.Gid)); err != nil {
						t.Fatal(err)
					}
				}
				dirty = append(dirty, p)
			}
			var before []uint64
			for _, p := range dirty {
				_, d, err := dirtyPages(p)
				if err != nil || d == 0 {
					t.Fatalf("the host's %s has %d dirty pages before the run (%v): nothing to compare", p, d, err)
				}
				before = append(before, d)
			}
			// A host process of the sandbox's uid holds a key of its own
			// in the ext4's keyring, which the hook tries to take away.
			hostKey := ""
			if uid != nil {
				hostKey = addHostKey(t, ext4, uid)
			}
			hostUsers := keyUsers(t, ext4, hostKey)
			hookKey := make([]byte, 64)
			rand.Read(hookKey)
			commitsBefore := commits()
			args := []string{"--env", "XFS=" + xfs, "--env", "BTRFS=" + btrfs, "--env", "EXT4=" + ext4,
				"--env", "HOOKKEY=" + hex.EncodeToString(hookKey), "--", "python3", "redteam13.py"}
			if uid != nil {
				args = append([]string{"--env", "OWNED=1", "--env", "HOSTKEY=" + hostKey}, args...)
			}
			if verity == nil {
				args = append([]string{"--env", "VERITY=1"}, args...)
			}
			res := vigiles(t, r, dir, nil, c.withArgs(args)...)
			checkScriptRan(t, res, want)
			for i, p := range dirty {
				if _, after, err := dirtyPages(p); err != nil || after != before[i] {
					t.Errorf("after the run the host's %s has %d dirty pages (%v), %d before", p, after, err, before[i])
				}
			}
			if after := commits(); after != commitsBefore {
				t.Errorf("the host's btrfs committed %d transactions over the run", after-commitsBefore)
			}
			if users := keyUsers(t, ext4, keyIdentifier(t, hookKey)); users != 0 {
				t.Errorf("after the run the hook's key is in the host's ext4 keyring, held by %d users", users)
			}
			if users := keyUsers(t, ext4, hostKey); users != hostUsers {
				t.Errorf("after the run the host's key is held by %d users, %d before", users, hostUsers)
			}
		})
	}
}

// dirtyFileIn writes a new file of 257 pages in dir, "file", readable by
// every uid, and leaves it to the kernel's flusher, which writes back a
// page dirty for 30 s by default, far longer than a run; it is removed,
// with its dirty pages, when the test ends.
func dirtyFileIn(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "file")
	os.Remove(p)
	if err := os.WriteFile(p, bytes.Repeat([]byte("host page\n"), 104858), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(p) })
	if _, _, err := dirtyPages(p); err != nil {
		lacking(t, fmt.Sprintf("a kernel that tells a file's dirty pages (cachestat, Linux 6.5): %v", err))
	}
	return p
}

// btrfsCommitsOf returns a function that reads how many transactions the
// btrfs mounted on dir has committed, from commit_stats (Linux 6.0) in
// its directory of /sys/fs/btrfs, the one that lists its loop device.
func btrfsCommitsOf(t *testing.T, dir string) func() int {
	t.Helper()
	var dev string
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && f[4] == dir {
			for i, x := range f {
				if x == "-" && i+2 < len(f) {
					dev = filepath.Base(f[i+2])
				}
			}
		}
	}
	if dev == "" {
		t.Fatalf("no mount of %s in /proc/self/mountinfo", dir)
	}
	devs, _ := filepath.Glob("/sys/fs/btrfs/*/devices/" + dev)
	if len(devs) != 1 {
		t.Fatalf("/sys/fs/btrfs lists %s %d times", dev, len(devs))
	}
	stats := filepath.Join(filepath.Dir(filepath.Dir(devs[0])), "commit_stats")
	read := func() int {
		b, err := os.ReadFile(stats)
		if err != nil {
			lacking(t, fmt.Sprintf("btrfs's commit_stats (Linux 6.0): %v", err))
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "commits" {
				n, err := strconv.Atoi(f[1])
				if err != nil {
					t.Fatalf("%s: %q: %v", stats, l, err)
				}
				return n
			}
		}
		t.Fatalf("%s tells no commits: %q", stats, b)
		return 0
	}
	read()
	return read
}

// addHostKey adds a fscrypt key of 64 random bytes to the file system of
// dir as a host process of uid (scripts/redteam13key.py, outside the
// sandbox) and returns its identifier in hex.
func addHostKey(t *testing.T, dir string, uid *syscall.Credential) string {
	t.Helper()
	raw := make([]byte, 64)
	rand.Read(raw)
	script, err := filepath.Abs(filepath.Join("scripts", "redteam13key.py"))
	if err != nil {
		t.Fatal(err)
	}
	// python3 from PATH as runVigiles gives it to vigiles: one every uid
	// may run.
	cmd := exec.Command("/usr/bin/env", "python3", script, dir, hex.EncodeToString(raw))
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if uid.Uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: uid}
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("adding the host's key as uid %d: %v", uid.Uid, err)
	}
	id := strings.TrimSpace(string(out))
	if want := keyIdentifier(t, raw); id != want {
		t.Fatalf("the host's key has the identifier %s, %s by its hash", id, want)
	}
	return id
}

// keyIdentifier is the identifier fscrypt gives a v2 key of the raw bytes
// key: HKDF-SHA512 of it, with no salt and the info "fscrypt\0" and
// HKDF_CONTEXT_KEY_IDENTIFIER (1), 16 bytes, in hex.
func keyIdentifier(t *testing.T, key []byte) string {
	t.Helper()
	id, err := hkdf.Key(sha512.New, key, nil, "fscrypt\x00\x01", 16)
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(id)
}

// keyUsers says how many users hold the fscrypt key of the identifier id
// (hex) in the keyring of dir's file system (FS_IOC_GET_ENCRYPTION_KEY_STATUS,
// which only reads): 0 where the key is absent, or id is empty.
func keyUsers(t *testing.T, dir, id string) uint32 {
	t.Helper()
	if id == "" {
		return 0
	}
	b, err := hex.DecodeString(id)
	if err != nil || len(b) != 16 {
		t.Fatalf("key identifier %q: %v", id, err)
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// struct fscrypt_get_key_status_arg: the key's specifier (type,
	// reserved, identifier in 32 bytes), 24 reserved bytes; then the
	// status, its flags, the count of users and 52 reserved bytes.
	var arg [128]byte
	arg[0] = 2 // FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
	copy(arg[8:], b)
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), unix.FS_IOC_GET_ENCRYPTION_KEY_STATUS, uintptr(unsafe.Pointer(&arg[0]))); e != 0 {
		t.Fatalf("FS_IOC_GET_ENCRYPTION_KEY_STATUS on %s: %v", dir, e)
	}
	status := *(*uint32)(unsafe.Pointer(&arg[64]))
	users := *(*uint32)(unsafe.Pointer(&arg[72]))
	if status == 1 { // FSCRYPT_KEY_STATUS_ABSENT
		return 0
	}
	return users
}
