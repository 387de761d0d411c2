package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// A root caller's root-owned work tree reaches a sandbox run as SandboxUID
// through an id-mapped mount: the broker clones the tree's mount
// (open_tree), maps it through the sandbox's own user namespace, whose uid 0
// is SandboxUID (mount_setattr), so that root's files appear as the
// sandbox's uid 0, and hands the mount to the init over the control socket;
// the init moves it onto the overlay's lower dir. Only the broker can make
// it (it needs CAP_SYS_ADMIN over the tree's file system); the sandbox
// never sees the tree by its host path.

// treeByte goes with the mount's descriptor on the control socket.
const treeByte = 't'

// errNoIDMap marks a tree this host cannot id-map (its file system, the
// kernel, the broker's privileges): a refusal that names idmapFix. Other
// failures of the hand-over (the sandbox ended, a map that is not bwrap's)
// are plain errors.
var errNoIDMap = errors.New("cannot hand the root-owned work tree to an unprivileged sandbox")

// idmapFix is what a refused hand-over tells the user.
const idmapFix = "the work tree's file system must support id-mapped mounts (from Linux 5.12 ext4 and xfs do, btrfs from 5.15, tmpfs from 6.3; " +
	"overlayfs, NFS and FUSE do not); or give the work tree a non-root owner (the sandbox then runs as that owner), " +
	"run vigiles as a non-root user, or accept a sandbox whose uid 0 is the host's root with --root-sandbox " +
	"(config: defaults.root-sandbox: true), which lets the hook read root-only files vigiles does not mask"

// handTree makes the id-mapped clone of dir for the sandbox whose first
// process is pid (bwrap's child, running as uid) and sends it on ctl.
func handTree(ctx context.Context, ctl *os.File, dir string, pid int, uid uint32) error {
	tree, err := idmappedClone(ctx, dir, pid, uid)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if err := unix.Sendmsg(int(ctl.Fd()), []byte{treeByte}, unix.UnixRights(tree), nil, 0); err != nil {
		return fmt.Errorf("sending the work tree to the sandbox: %w", err)
	}
	return nil
}

// idmappedClone returns a detached, read-only clone of dir's mount in which
// uid 0's files belong to uid (through pid's user namespace). It is not
// recursive: a file system mounted inside the tree stays out (its mount
// point shows empty), as overlayfs leaves it out of the lower layer anyway;
// a recursive clone would id-map it too and hand its root-only files to
// the command in copy mode.
func idmappedClone(ctx context.Context, dir string, pid int, uid uint32) (int, error) {
	// The process's /proc directory is opened once: the maps and the
	// namespace are then read from the same process, even if its pid
	// were reused meanwhile.
	proc, err := unix.Open("/proc/"+strconv.Itoa(pid), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("the sandbox ended before it got the work tree: %w", err)
	}
	defer unix.Close(proc)
	// bubblewrap's child writes its own maps right after it made the
	// namespace; the clone must be mapped after that (the mount copies
	// the maps when it is made), and only through the expected map.
	if err := waitForMaps(ctx, proc, uid); err != nil {
		return -1, err
	}
	userns, err := unix.Openat(proc, "ns/user", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening the sandbox's user namespace: %w", err)
	}
	defer unix.Close(userns)
	tree, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return -1, fmt.Errorf("%w: cloning the mount of %s: %v", errNoIDMap, dir, err)
	}
	attr := unix.MountAttr{
		Attr_set:  unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV,
		Userns_fd: uint64(userns),
	}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		unix.Close(tree)
		return -1, fmt.Errorf("%w: id-mapping %s: %v", errNoIDMap, dir, err)
	}
	return tree, nil
}

// waitForMaps waits until the uid and gid maps of the process whose /proc
// directory is proc are written, and checks that each maps exactly uid 0
// to the given host id and nothing else.
func waitForMaps(ctx context.Context, proc int, id uint32) error {
	want := "0 " + strconv.FormatUint(uint64(id), 10) + " 1"
	deadline := time.Now().Add(10 * time.Second)
	pause := 50 * time.Microsecond
	for _, name := range []string{"uid_map", "gid_map"} {
		for {
			b, err := readAt(proc, name)
			if err != nil {
				return fmt.Errorf("reading the sandbox's %s: %w", name, err)
			}
			if m := strings.Join(strings.Fields(string(b)), " "); m != "" {
				if m != want {
					return fmt.Errorf("the sandbox's %s is %q, not %q", name, m, want)
				}
				break
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the sandbox's %s was not written in 10 s", name)
			}
			time.Sleep(pause)
			pause = min(2*pause, 5*time.Millisecond)
		}
	}
	return nil
}

// receiveTree, in the init, takes the id-mapped work tree from the control
// socket and moves it onto target.
func receiveTree(target string) error {
	b, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	n, oobn, _, _, err := unix.Recvmsg(fdControl, b, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return fmt.Errorf("receiving the work tree: %w", err)
	}
	if n != 1 || b[0] != treeByte {
		return errors.New("receiving the work tree: the broker sent none")
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return fmt.Errorf("receiving the work tree: no descriptor came with it (%v)", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return fmt.Errorf("receiving the work tree: no descriptor came with it (%v)", err)
	}
	defer unix.Close(fds[0])
	dst, err := openMountTarget(target)
	if err != nil {
		return err
	}
	defer unix.Close(dst)
	if err := unix.MoveMount(fds[0], "", dst, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("mounting the work tree on %s: %w", target, err)
	}
	return nil
}

// readAt reads a small file below the directory dirfd.
func readAt(dirfd int, name string) ([]byte, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4096))
}

// unreachableAncestor returns the first directory above dir that uid, with
// nothing but the permission bits for others, may not enter, skipping those
// the sandbox replaces with an empty tmpfs of its own (where bubblewrap
// makes the tree's mount point afresh); "" when there is none.
func unreachableAncestor(dir string) string {
	for _, m := range append(maskedDirs, "/tmp", "/run") {
		if under(dir, m) && dir != m {
			return ""
		}
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err == nil && st.Mode&0o001 == 0 {
			return p
		}
		if p == "/" {
			return ""
		}
	}
}
