package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// isSocket says which to keep, and by what path (hostSocketMasks: the file
// itself, where the path passes a link, as /var/run to /run; outside the
// tree, seen by the run, a socket), a parameter for the tests.
func hostSockets(r io.Reader, isSocket func(string) (string, bool)) []string {
	var out []string
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
		if !ok || !strings.HasPrefix(p, "/") || slices.Contains(out, p) {
			continue
		}
		if r, ok := isSocket(p); ok && !slices.Contains(out, r) {
			out = append(out, r)
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

// hostSocketMasks lists the host's pathname sockets (hostSockets) that a
// run as view v could connect to outside the tree dir: bubblewrap covers
// each with /dev/null, as the sockets the caller's environment names.
// Those under the masks, and those the run's uid may not write, need no
// mask; those in the tree are the tree's, which the overlay or copy shows
// the command without the daemon behind them.
func hostSocketMasks(dir string, v hostView) []string {
	f, err := os.Open(procNetUnix)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	for _, s := range hostSockets(f, func(p string) (string, bool) {
		r, ok := resolvedSocket(p)
		return r, ok && !fsx.Under(r, dir) && v.sees(r)
	}) {
		if v.reads(s, 0o2) {
			out = append(out, s)
		}
	}
	return out
}
