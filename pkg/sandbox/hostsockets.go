package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// procNetUnix lists the host network namespace's unix sockets: every
// socket bound to a path in it, whichever process holds it.
const procNetUnix = "/proc/net/unix"

// hostSockets lists the pathname sockets bound in the caller's network
// namespace (read from r, /proc/net/unix) that are sockets still where the
// entry names them: a daemon's listening socket, a datagram socket such as
// the journal's. The network namespace of a run does not isolate them, a
// connect needs only write permission on the file, and Landlock does not
// restrict it, so a daemon's socket outside the masks (/tmp, /run, the
// homes: a container engine's or LXD's under /var/lib or /var/snap, a
// database's) would answer the command, as the caller's groups let it. An
// abstract socket (@name) is the namespace's own and out of reach; a path
// that names no socket any more (the daemon gone, or a path of another
// mount namespace's) is left, so that no file of another kind is covered.
// isSocket says which to keep, and by what paths (hostSocketMasks: the
// file itself, where the path passes a link, as /var/run to /run; outside
// the tree, seen by the run, a socket; a path of the caller's list may lead
// to a socket in its view and to another in a container's), a parameter
// for the tests.
func hostSockets(r io.Reader, isSocket func(string) []string) []string {
	var out []string
	kept := map[string]bool{} // out, for a list of many thousands
	// A listening socket's path is listed again for each connection it
	// accepted: each path is resolved and looked at once.
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	first := true
	for sc.Scan() {
		if first {
			first = false // the header: Num RefCount Protocol Flags Type St Inode Path
			continue
		}
		// Seven fields, then the path, which may hold spaces.
		line := sc.Bytes()
		rest := line
		ok := true
		for range 7 {
			rest = bytes.TrimLeft(rest, " ")
			i := bytes.IndexByte(rest, ' ')
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i:]
		}
		p := strings.TrimLeft(string(rest), " ")
		if !ok || !strings.HasPrefix(p, "/") || seen[p] {
			continue
		}
		seen[p] = true
		for _, r := range isSocket(p) {
			if !kept[r] {
				kept[r] = true
				out = append(out, r)
			}
		}
	}
	return out
}

// resolvedSocket is p with its links resolved, and whether that is a unix
// socket.
func resolvedSocket(p string) (string, bool) {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(r)
	return r, err == nil && fi.Mode()&os.ModeSocket != 0
}

// resolvedSockets is resolvedSocket's socket, if any, as a list.
func resolvedSockets(p string) []string {
	if r, ok := resolvedSocket(p); ok {
		return []string{r}
	}
	return nil
}

// maxSocketMasks bounds the sockets one run covers one by one: each is a
// mount of bubblewrap's, three of its arguments (it takes 9,000 in all), and
// a step of its set-up. Sockets that fill a directory of their own are
// covered by a mask of the directory, one mount for them all.
const maxSocketMasks = 512

// hostSocketMasks lists the host's pathname sockets (hostSockets) that a
// run as view v could connect to outside the tree dir: bubblewrap covers
// each with /dev/null (files), as the sockets the caller's environment
// names, or, where a directory holds two or more of them and nothing else
// (a daemon's socket directory, a test's thousands), the directory with an
// empty read-only tmpfs (dirs). Those under the masks, and those the run's
// uid may not write, need no mask; those in the tree are the tree's, which
// the overlay or copy shows the command without the daemon behind them,
// and those under /dev the sandbox's own /dev hides (ownInSandbox).
// More than maxSocketMasks left to cover one by one is an error naming the
// directory that holds most of them: the run is refused, not left open.
// others is what a read of /proc found of the host's other namespaces
// (findOtherNamespaces): their lists are read after the caller's own.
func hostSocketMasks(dir string, v hostView, others otherNamespaces) (dirs, files []string, err error) {
	f, err := os.Open(procNetUnix)
	if err != nil {
		return nil, nil, nil
	}
	defer f.Close()
	own := sync.OnceValue(func() []fsx.Mount { m, _ := fsx.Mounts(); return m })
	lists := []socketList{{f, ownListSocket(others.mountProcs, own)}}
	for _, p := range others.netUnix {
		g, err := os.Open(p)
		if err != nil {
			continue // its processes gone since
		}
		defer g.Close()
		lists = append(lists, socketList{g, foreignSocket(filepath.Dir(filepath.Dir(p)), own)})
	}
	return socketListsMasks(lists, dir, v)
}

// A socketList is a list of unix sockets, as /proc/net/unix writes it,
// and how its paths are taken to those the caller sees (a path and
// whether it is a unix socket there).
type socketList struct {
	r       io.Reader
	resolve func(string) []string
}

// foreignSocket is how the paths of the list of a process of another
// network namespace, procPID (PROC/PID), are taken to the caller's view.
// A path there is the one given to bind, in the view of the process that
// bound it: a container's, with a directory of the host bound into it (a
// volume), names its socket by the path inside, which leads elsewhere, or
// nowhere, in the caller's. The path is taken through the mount of the
// process's it lies in (its device and its root there, from its
// mountinfo, which every user may read) to a mount of the caller's of the
// same device that shows it. Where the caller may look into the process's
// root (a root caller; a caller's own rootless container), the file found
// there must be the one the caller sees (device and inode); where it may
// not, a socket the caller sees at that path is taken for it (a wrong
// one is covered for nothing). Where no mount of the caller's shows it,
// the path is taken as the caller sees it, as the caller's own list's.
func foreignSocket(procPID string, own func() []fsx.Mount) func(string) []string {
	var theirs []fsx.Mount
	read := false
	return func(p string) []string {
		p = filepath.Clean(p)
		var st unix.Stat_t
		known := &st
		switch err := unix.Stat(procPID+"/root"+p, &st); {
		case err == nil && st.Mode&unix.S_IFMT == unix.S_IFSOCK:
		case errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM):
			known = nil // its root is not the caller's to look into
		default:
			return resolvedSockets(p) // gone, or no socket any more
		}
		if !read {
			read = true
			theirs, _ = fsx.MountsAt(procPID + "/mountinfo")
		}
		if r, ok := sameFileAt(p, known, theirs, own()); ok {
			return []string{r}
		}
		return resolvedSockets(p)
	}
}

// maxForeignLooks bounds the looks into other mount namespaces' roots
// (a stat each) that the paths of the caller's own list that lead to no
// socket in its view may take in one run, and, apart, those that lead to
// one: any user may bind sockets by paths of a mount namespace of its own
// in the caller's network namespace, as many as its descriptors allow.
const maxForeignLooks = 4096

// ownListSocket is how the paths of the caller's own list are taken to
// its view: as it sees them, and through the other mount namespaces it
// may look into (procs, one PROC/PID of each: findOtherNamespaces). A container on the
// caller's network (--network host) binds a socket in a volume by the
// path inside, which the list names, and the list does not say whose view
// that is: the path is looked up in each of their roots, and every socket
// found there taken through that process's mounts and the caller's to
// where the caller sees the same file (sameFileAt). That the path leads
// to a socket in the caller's view does not end the look: any user may
// leave a socket file where a container's socket is inside it (a path in
// /tmp, the container's /tmp a volume), and the daemon's would be left.
func ownListSocket(procs []string, own func() []fsx.Mount) func(string) []string {
	mounts := map[string][]fsx.Mount{}
	looks, looksSeen := 0, 0
	return func(p string) []string {
		out := resolvedSockets(p)
		n := &looks
		if len(out) > 0 {
			n = &looksSeen
		}
		p = filepath.Clean(p)
		for _, pp := range procs {
			if *n++; *n > maxForeignLooks {
				break
			}
			var st unix.Stat_t
			if unix.Stat(pp+"/root"+p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
				continue
			}
			m, ok := mounts[pp]
			if !ok {
				m, _ = fsx.MountsAt(pp + "/mountinfo")
				mounts[pp] = m
			}
			if r, ok := sameFileAt(p, &st, m, own()); ok && !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
		return out
	}
}

// sameFileAt is where the caller, of mounts own, sees the file st that a
// process of mounts theirs sees at p: through the mount of theirs p lies
// in (the deepest, and of those on one point the last listed, the one on
// top), the path within its file system, and a mount of own of the same
// device whose root holds that path, every link on the way followed. st
// nil: the file is not known, and a unix socket there is taken.
func sameFileAt(p string, st *unix.Stat_t, theirs, own []fsx.Mount) (string, bool) {
	best := -1
	for i, m := range theirs {
		if fsx.Under(p, m.Point) && (best < 0 || len(m.Point) >= len(theirs[best].Point)) {
			best = i
		}
	}
	if best < 0 {
		return "", false
	}
	rel, err := filepath.Rel(theirs[best].Point, p)
	if err != nil {
		return "", false
	}
	inFS := filepath.Join(theirs[best].Root, rel)
	for _, n := range own {
		if n.Dev != theirs[best].Dev || !fsx.Under(inFS, n.Root) {
			continue
		}
		r, err := filepath.Rel(n.Root, inFS)
		if err != nil {
			continue
		}
		c := filepath.Join(n.Point, r)
		var cst unix.Stat_t
		if unix.Lstat(c, &cst) != nil {
			continue
		}
		if st == nil && cst.Mode&unix.S_IFMT == unix.S_IFSOCK || st != nil && cst.Dev == st.Dev && cst.Ino == st.Ino {
			// c may pass a link (/var/run, where the socket was bound
			// as /var/run/x.sock: no mount of theirs is at /var/run, so
			// their root's was taken, and the lstat followed the link to
			// /run's): the mask goes where the link leads, as for a
			// path of the caller's own list (resolvedSocket), or
			// bubblewrap would make it through a link into a directory
			// the sandbox masks, and fail.
			if r, err := filepath.EvalSymlinks(c); err == nil {
				return r, true
			}
			continue
		}
	}
	return "", false
}

// otherNamespaces is what one read of proc finds of the namespaces the
// host's processes are in besides the caller's (findOtherNamespaces).
type otherNamespaces struct {
	// netUnix names one PROC/PID/net/unix for each other network
	// namespace. A socket is its network namespace's, and /proc/net/unix
	// lists the caller's alone, while a connect by path reaches a socket
	// whichever namespace bound it: a daemon of the host in a namespace
	// of its own (started with `ip netns exec`, or by systemd with
	// PrivateNetwork=, a VPN-confined one) that listens at a path the run
	// sees would answer the command. Every user may read any process's
	// net/unix (no ptrace check, as for its ns/net link), and its inode
	// is its namespace's entry, one for all of its processes, which tells
	// the namespaces apart with one stat each.
	netUnix []string
	// mountProcs names one PROC/PID for each other mount namespace that
	// the caller may look into (its ns/mnt link, which asks what
	// ptrace's read access asks: every process for root, the caller's
	// own otherwise), for ownListSocket.
	mountProcs []string
}

// findOtherNamespaces reads proc once for both of otherNamespaces' lists:
// a stat of each process's net/unix and a readlink of its ns/mnt, some
// 10 µs a process, which a run does beside the rest of its set-up.
func findOtherNamespaces(proc string) (o otherNamespaces) {
	ents, err := os.ReadDir(proc)
	if err != nil {
		return o
	}
	var nets map[devIno]bool
	if fi, err := os.Stat(filepath.Join(proc, "self", "net", "unix")); err == nil {
		key, _ := keyOf(fi)
		nets = map[devIno]bool{key: true}
	}
	var mnts map[string]bool
	if ns, err := os.Readlink(filepath.Join(proc, "self", "ns", "mnt")); err == nil {
		mnts = map[string]bool{ns: true}
	}
	for _, e := range ents {
		if n := e.Name(); n[0] < '0' || n[0] > '9' {
			continue
		}
		p := filepath.Join(proc, e.Name())
		if nets != nil {
			if fi, err := os.Stat(p + "/net/unix"); err == nil {
				if key, _ := keyOf(fi); !nets[key] {
					nets[key] = true
					o.netUnix = append(o.netUnix, p+"/net/unix")
				}
			}
		}
		if mnts != nil {
			if ns, err := os.Readlink(p + "/ns/mnt"); err == nil && !mnts[ns] {
				mnts[ns] = true
				o.mountProcs = append(o.mountProcs, p)
			}
		}
	}
	return o
}

// socketMasks is hostSocketMasks of the list r.
func socketMasks(r io.Reader, dir string, v hostView) (dirs, files []string, err error) {
	return socketListsMasks([]socketList{{r, resolvedSockets}}, dir, v)
}

// socketListsMasks is hostSocketMasks of lists, each socket once.
func socketListsMasks(lists []socketList, dir string, v hostView) (dirs, files []string, err error) {
	byDir := map[string][]string{}
	var order []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, s := range hostSockets(l.r, func(p string) []string {
			var out []string
			for _, r := range l.resolve(p) {
				if !fsx.Under(r, dir) && !ownInSandbox(r) && v.sees(r) {
					out = append(out, r)
				}
			}
			return out
		}) {
			if seen[s] || !v.mayRead(s, 0o2) {
				continue
			}
			seen[s] = true
			d := filepath.Dir(s)
			if _, ok := byDir[d]; !ok {
				order = append(order, d)
			}
			byDir[d] = append(byDir[d], s)
		}
	}
	most := ""
	for _, d := range order {
		socks := byDir[d]
		if len(socks) >= 2 && !fsx.Under(dir, d) && onlySockets(d) {
			dirs = append(dirs, d)
			continue
		}
		files = append(files, socks...)
		if most == "" || len(socks) > len(byDir[most]) {
			most = d
		}
	}
	if len(files) > maxSocketMasks {
		return nil, nil, fmt.Errorf("the host has %d unix sockets outside the masks that the run could connect to, more than the %d vigiles covers one by one (%d in %s, beside other files); fix: move them under /run or /tmp, or into a directory of their own, or close them",
			len(files), maxSocketMasks, len(byDir[most]), most)
	}
	return dirs, files, nil
}

// ownInSandbox says whether p lies where the sandbox has file systems of
// its own, not the host's (bubblewrap's /dev and the run's /dev/shm, its
// /proc): a socket there is out of the command's reach, and a mask would
// count against the bound for nothing (any user may bind sockets in
// /dev/shm).
func ownInSandbox(p string) bool {
	return fsx.Under(p, "/dev") || fsx.Under(p, "/proc")
}

// onlySockets says whether directory d holds unix sockets and nothing
// else: a mask over it hides nothing but them.
func onlySockets(d string) bool {
	f, err := os.Open(d)
	if err != nil {
		return false
	}
	defer f.Close()
	for {
		es, err := f.ReadDir(256)
		for _, e := range es {
			if e.Type()&fs.ModeSocket == 0 {
				return false
			}
		}
		if err != nil {
			return err == io.EOF
		}
	}
}
