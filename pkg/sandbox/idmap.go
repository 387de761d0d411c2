package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
	"golang.org/x/sys/unix"
)

// A root caller's root-owned work tree reaches a sandbox run as a
// SandboxUID uid through an id-mapped mount: the init sends the broker its
// user namespace (whose uid 0 is that uid) first thing; the broker clones
// the tree's mount (open_tree), maps it through that namespace
// (mount_setattr), so that root's files appear as the sandbox's uid 0, and
// sends the mount back over the control socket; the init moves it onto the
// overlay's lower dir. Only the broker can make it (it needs CAP_SYS_ADMIN
// over the tree's file system); the sandbox never sees the tree by its
// host path.

// treeByte goes with the mount's descriptor on the control socket;
// toolCacheByte with a tool cache's (initConfig.ToolCaches, in their
// order, after the tree), and noToolCacheByte, with none, for one this
// host cannot id-map, which the run then leaves as the host's root shows
// it.
const (
	treeByte        = 't'
	toolCacheByte   = 'c'
	noToolCacheByte = 'n'
)

// errNoIDMap marks a tree this host cannot id-map (its file system, the
// kernel, the broker's privileges): a refusal that names idmapFix. Other
// failures of the hand-over (the sandbox ended, a user namespace the run's
// uid does not own) are plain errors.
var errNoIDMap = errors.New("cannot hand the root-owned work tree to an unprivileged sandbox")

// idmapFix is what a refused hand-over tells the user.
const idmapFix = "the work tree's file system must support id-mapped mounts (from Linux 5.12 ext4 and xfs do, btrfs from 5.15, tmpfs from 6.3; " +
	"overlayfs, NFS and FUSE do not); or give the work tree a non-root owner (the sandbox then runs as that owner), " +
	"run vigiles as a non-root user, or accept a sandbox whose uid 0 is the host's root with --root-sandbox " +
	"(config: defaults.root-sandbox: true), which lets the hook read root-only files vigiles does not mask"

// sandboxNS is the user and network namespace the init sends first
// thing (sendNamespaces) when the broker asks for them (initConfig.SendNS):
// a root broker without CAP_SYS_PTRACE (a container's root, as a rule) may
// not open /proc/PID/ns/* of a sandbox that runs as another uid.
type sandboxNS struct {
	user, net *os.File
	err       error
}

func (n sandboxNS) close() {
	if n.user != nil {
		n.user.Close()
		n.net.Close()
	}
}

// nsByte goes with the init's namespaces on the control socket.
const nsByte = 'n'

// sendNamespaces, in the init, sends its own user and network namespaces
// to the broker.
func sendNamespaces() error {
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	for _, name := range []string{"user", "net"} {
		fd, err := unix.Open("/proc/self/ns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening its %s namespace: %w", name, err)
		}
		fds = append(fds, fd)
	}
	return unix.Sendmsg(fdControl, []byte{nsByte}, unix.UnixRights(fds...), nil, 0)
}

// receiveNamespaces, in the broker, takes what sendNamespaces sent. A
// broker at its open-files limit gets the message without its
// descriptors (the kernel cuts them, MSG_CTRUNC): that is said as such
// (errDescriptorsCut, a refusal naming ulimit -n), not as a sandbox that
// sent the wrong thing.
func receiveNamespaces(ctl *net.UnixConn) sandboxNS {
	b, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4*maxPassed))
	n, oobn, flags, _, err := ctl.ReadMsgUnix(b, oob)
	if err != nil || n == 0 {
		return sandboxNS{err: fmt.Errorf("the sandbox ended before it sent its namespaces (%v)", err)}
	}
	fds, perr := allFDs(oob[:oobn])
	closeAll := func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}
	switch {
	case flags&unix.MSG_CTRUNC != 0:
		closeAll()
		return sandboxNS{err: fmt.Errorf("receiving the sandbox's namespaces (%d of 2 came): %w", len(fds), errDescriptorsCut)}
	case perr != nil:
		closeAll()
		return sandboxNS{err: fmt.Errorf("receiving the sandbox's namespaces: their control message is garbled: %v", perr)}
	case b[0] != nsByte || len(fds) != 2:
		closeAll()
		return sandboxNS{err: fmt.Errorf("the sandbox sent %q with %d descriptors, not its 2 namespaces", b[0], len(fds))}
	}
	return sandboxNS{user: os.NewFile(uintptr(fds[0]), "userns"), net: os.NewFile(uintptr(fds[1]), "netns")}
}

// handTree checks that uid owns the sandbox's user namespace (bubblewrap,
// run as uid, made it), makes the id-mapped clone of dir through it and
// sends the clone to the init on ctl; then one of each of toolCaches, so
// that root's tool cache is the sandbox's uid 0's to write as the tree is
// (or noToolCacheByte, for one whose file system cannot be id-mapped).
func handTree(ctl *net.UnixConn, dir string, toolCaches []string, uid uint32, userns *os.File) error {
	var owner uint32
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, userns.Fd(), nsGetOwnerUID, uintptr(unsafe.Pointer(&owner))); e != 0 {
		return fmt.Errorf("the sandbox's user namespace: its owner: %w", e)
	}
	if owner != uid {
		return fmt.Errorf("the sandbox's user namespace belongs to uid %d, not %d", owner, uid)
	}
	tree, err := idmappedClone(dir, int(userns.Fd()))
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	if _, _, err := ctl.WriteMsgUnix([]byte{treeByte}, unix.UnixRights(tree), nil); err != nil {
		return fmt.Errorf("sending the work tree to the sandbox: %w", err)
	}
	for _, tc := range toolCaches {
		fd, err := idmappedClone(tc, int(userns.Fd()))
		if errors.Is(err, errNoIDMap) {
			if _, _, err := ctl.WriteMsgUnix([]byte{noToolCacheByte}, nil, nil); err != nil {
				return fmt.Errorf("sending the tool cache %s to the sandbox: %w", tc, err)
			}
			continue
		}
		if err != nil {
			return err
		}
		_, _, err = ctl.WriteMsgUnix([]byte{toolCacheByte}, unix.UnixRights(fd), nil)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("sending the tool cache %s to the sandbox: %w", tc, err)
		}
	}
	return nil
}

// nsGetOwnerUID is NS_GET_OWNER_UID, _IO(0xb7, 0x4) (Linux 4.11).
const nsGetOwnerUID = 0xb704

// oneFD is the single descriptor a message's control data carries; any
// other it carries is closed.
func oneFD(oob []byte) (int, error) {
	fds, err := allFDs(oob)
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		if err != nil {
			return -1, fmt.Errorf("its control message is garbled: %v", err)
		}
		return -1, fmt.Errorf("%d descriptors came with it, not 1", len(fds))
	}
	return fds[0], nil
}

// allFDs is every descriptor the SCM_RIGHTS messages in oob carry, and an
// error where oob does not parse (those it could parse are still
// returned, for the caller to close).
func allFDs(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	var fds []int
	for i := range msgs {
		if f, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, f...)
		}
	}
	return fds, err
}

// idmappedClone returns a detached, read-only clone of dir's mount in which
// uid 0's files belong to the owner of the user namespace userns (whose
// uid 0 is that owner). It is not recursive: a recursive clone would
// id-map a file system mounted inside the tree too and hand its root-only
// files to the command in copy mode (the broker refuses such a tree
// before: see mountsInside).
func idmappedClone(dir string, userns int) (int, error) {
	tree, err := unix.OpenTree(unix.AT_FDCWD, dir, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) {
		// Out of descriptors, not a tree that cannot be id-mapped:
		// outOfFiles names that fix.
		return -1, fmt.Errorf("cloning the mount of %s: %w", dir, err)
	}
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

// receiveTree, in the init, takes the id-mapped work tree from the control
// socket and moves it onto target.
func receiveTree(target string) error {
	_, err := receiveMount(target, treeByte, "the work tree")
	return err
}

// receiveToolCache, in the init, takes the id-mapped tool cache that
// comes next on the control socket and moves it onto target; false where
// the broker could not id-map it and sent none.
func receiveToolCache(target string) (bool, error) {
	return receiveMount(target, toolCacheByte, "the tool cache")
}

// receiveMount takes the mount (what) the broker sends with the byte want
// on the control socket and moves it onto target; false, without error,
// where it sent noToolCacheByte instead, for a tool cache.
func receiveMount(target string, want byte, what string) (bool, error) {
	b, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4*maxPassed))
	n, oobn, flags, _, err := unix.Recvmsg(fdControl, b, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return false, fmt.Errorf("receiving %s: %w", what, err)
	}
	if flags&unix.MSG_CTRUNC != 0 {
		// The init inherits vigiles' open-files limit: at it, the kernel
		// cuts the mount's descriptor (any that came is closed).
		fds, _ := allFDs(oob[:oobn])
		for _, fd := range fds {
			unix.Close(fd)
		}
		return false, fmt.Errorf("receiving %s: %w", what, errDescriptorsCut)
	}
	if n == 1 && b[0] == noToolCacheByte && want == toolCacheByte && oobn == 0 {
		return false, nil
	}
	if n != 1 || b[0] != want {
		return false, fmt.Errorf("receiving %s: the broker sent none", what)
	}
	fd, err := oneFD(oob[:oobn])
	if err != nil {
		return false, fmt.Errorf("receiving %s: %w", what, err)
	}
	defer unix.Close(fd)
	dst, err := fsx.OpenMountTarget(target)
	if err != nil {
		return false, err
	}
	defer unix.Close(dst)
	if err := unix.MoveMount(fd, "", dst, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return false, fmt.Errorf("mounting %s on %s: %w", what, target, err)
	}
	return true, nil
}

// unreachable says what a run as uid and gid would fail at before its
// command starts, and the fix; "" when nothing: a directory above the work
// tree dir it may not enter (see unreachableAncestor), or the in-sandbox
// binary exe it may not execute.
func unreachable(dir, exe string, uid, gid uint32, bound bool, v hostView) (problem, fix string) {
	if p := unreachableAncestor(dir, uid, gid, bound, v); p != "" {
		return fmt.Sprintf("may not enter %s above the work tree", p), fmt.Sprintf("chmod o+x %s, or move the tree", p)
	}
	var st unix.Stat_t
	if err := unix.Stat(exe, &st); err == nil && !mayUse(&st, uid, gid, 0o1) {
		return fmt.Sprintf("may not execute %s (mode %o)", exe, st.Mode&0o7777), "chmod o+rx " + exe
	}
	return "", ""
}

// unreachableAncestor returns the first directory above dir that uid and
// gid (and no other group) may not enter, by its mode bits; "" when there
// is none. bound says bubblewrap binds dir by its host path (the owner's
// run), where every directory above it counts; otherwise (the id-mapped
// tree) bubblewrap only makes dir's mount point, and the directories of
// v's view it replaces with a tmpfs of its own (the fixed masks, /tmp,
// /run and the caller's own), or in --strict-fs does not bind at all, do
// not count.
func unreachableAncestor(dir string, uid, gid uint32, bound bool, v hostView) string {
	top := "/"
	if !bound {
		if v.inMask(dir) {
			return ""
		}
		if v.strict {
			top = ""
			for _, d := range strictFSDirs {
				if fsx.Under(dir, d) && dir != d {
					top = d
				}
			}
			if top == "" {
				return ""
			}
		}
	}
	return unenterableAbove(dir, top, uid, gid)
}

// unenterableAbove returns the first directory above p, up to top, that
// uid and gid may not enter; "" when there is none.
func unenterableAbove(p, top string, uid, gid uint32) string {
	for p = filepath.Dir(p); ; p = filepath.Dir(p) {
		var st unix.Stat_t
		if err := unix.Stat(p, &st); err == nil && !mayUse(&st, uid, gid, 0o1) {
			return p
		}
		if p == top || p == "/" {
			return ""
		}
	}
}

// mayReach reports whether uid and gid (and no other group) may walk to
// the host path p and get perm on it: by the mode bits, and, where a file
// or a directory on the way has a POSIX access ACL, as if its named
// entries granted uid all its mask allows (mayUseACL). It answers "could
// the run read this, so that it must be hidden": where it cannot tell,
// it says yes.
func mayReach(p string, uid, gid, perm uint32) bool { return mayReachIn(nil, p, uid, gid, perm) }

// mayReachIn is mayReach with what it found of each directory on the way
// kept in searched (nil: none kept): a run's view asks about hundreds of
// files (the secret files, the system-wide configs) in a few directories,
// each of whose ancestors would otherwise be looked up for every one.
// A view lives for one run's set-up, so searched holds what the host's
// directories were a few milliseconds ago, as each check there does.
func mayReachIn(searched *sync.Map, p string, uid, gid, perm uint32) bool {
	if !maySearch(searched, filepath.Dir(p), uid, gid) {
		return false
	}
	var st unix.Stat_t
	return unix.Stat(p, &st) == nil && mayUseACL(p, &st, uid, gid, perm)
}

// maySearch says whether uid and gid may search the directory d and every
// one above it (one that cannot be looked at counts as searchable: where
// mayReach cannot tell, it says yes), keeping each answer in searched.
func maySearch(searched *sync.Map, d string, uid, gid uint32) bool {
	if searched != nil {
		if ok, hit := searched.Load(d); hit {
			return ok.(bool)
		}
	}
	var st unix.Stat_t
	ok := unix.Stat(d, &st) != nil || mayUseACL(d, &st, uid, gid, 0o1)
	if ok && d != "/" && d != "." {
		ok = maySearch(searched, filepath.Dir(d), uid, gid)
	}
	if searched != nil {
		searched.Store(d, ok)
	}
	return ok
}

// mayUseACL is mayUse, and for a file with an access ACL that uid does
// not own, the group class's bits, which are then the ACL's mask: the most
// a named user or group entry of it may grant (the review read a root-only
// file an ACL entry gave the sandbox's uid).
func mayUseACL(p string, st *unix.Stat_t, uid, gid, perm uint32) bool {
	if mayUse(st, uid, gid, perm) {
		return true
	}
	if st.Uid == uid {
		return false
	}
	if n, err := unix.Getxattr(p, "system.posix_acl_access", nil); err != nil || n <= 0 {
		return false
	}
	return (st.Mode>>3)&perm == perm
}

// mayUse reports whether uid and gid (and no other group) get perm (0o1
// search or execute, 0o4 read, or both) on a file by its mode bits.
func mayUse(st *unix.Stat_t, uid, gid uint32, perm uint32) bool {
	m := st.Mode
	switch {
	case st.Uid == uid:
		m >>= 6
	case st.Gid == gid:
		m >>= 3
	}
	return m&perm == perm
}
