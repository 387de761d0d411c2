package escape

import (
	"os"
	"testing"
)

// Round twenty-four: the host's unix sockets that the run's set-up does
// not see. Each run covers with /dev/null every socket the host's
// /proc/net/unix lists outside the masks that its uid could connect to;
// that list is the caller's own network namespace's, while a connect by
// path reaches a socket whatever network namespace bound it.

// netnsDaemonListen is a daemon that listens on the unix socket
// sys.argv[1], open to every user (mode 0666, as a database's or an
// engine's whose group a caller may hold), and answers each connection
// with a token. It dies with the set-up's shell, which started it
// (PR_SET_PDEATHSIG).
const netnsDaemonListen = `import ctypes, os, socket, sys
ctypes.CDLL(None).prctl(1, 9)
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o666)
s.listen(16)
while True:
    c, _ = s.accept()
    c.sendall(b"h128-netns-daemon-token\n")
    c.close()
`

// netnsDaemonSetup is round twenty-four's set-up, run as root in a mount
// namespace of the test's own: a tmpfs over /opt, where a daemon started
// in a network namespace of its own (unshare --net, as `ip netns exec`
// or systemd's PrivateNetwork= start one) listens on /opt/rt24/plain.sock.
const netnsDaemonSetup = `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir -m 0755 /opt/rt24
unshare --net python3 -c "$LISTEN" /opt/rt24/plain.sock &
bg=$!
i=0
while [ ! -S /opt/rt24/plain.sock ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
[ -S /opt/rt24/plain.sock ]
`

// TestRedteam24SocketInAnotherNetNSIsCovered: round twenty-four's
// attempt (scripts/redteam24sock.py), for every caller and a
// --root-sandbox run: a daemon of the host that runs in a network
// namespace of its own (a service started with `ip netns exec`, or by
// systemd with PrivateNetwork=, a VPN-confined one) listens on a unix
// socket at a path the run sees, /opt/rt24/plain.sock, open to every
// user. The caller's /proc/net/unix does not list it, and the hook
// connected and read the daemon's answer. The run now reads the list of
// every network namespace the host's processes are in
// (/proc/PID/net/unix, which every user may read) and covers the socket.
func TestRedteam24SocketInAnotherNetNSIsCovered(t *testing.T) {
	socketAttempt(t, "the test starts a daemon in a network namespace of its own, on a tmpfs over /opt in a mount namespace of its own",
		netnsDaemonSetup, "/opt/rt24/plain.sock", false)
}

// socketAttempt is round twenty-four's attempt (scripts/redteam24sock.py)
// on the unix socket sock, which setup leaves a daemon listening on, run
// as root in a mount namespace of the test's own over a tmpfs on /opt:
// for every caller and a --root-sandbox run, or for the root callers
// alone (rootOnly: a non-root caller may not look into root's namespaces,
// see the honest limits). why says what needs root; dirs are the host
// directories the set-up mounts on or binds.
func socketAttempt(t *testing.T, why, setup, sock string, rootOnly bool, dirs ...string) {
	t.Helper()
	requireBwrap(t)
	requireRoot(t, why)
	requireTools(t, "python3", "unshare", "setpriv")
	for _, d := range append([]string{"/opt"}, dirs...) {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			lacking(t, "a directory "+d)
		}
	}
	for _, c := range callers(t) {
		if rootOnly && c.cred != nil {
			continue
		}
		t.Run(c.name(), func(t *testing.T) {
			dir := workTree(t)
			res := vigilesInMountNS(t, c.runner, dir, setup, []string{"LISTEN=" + netnsDaemonListen},
				c.withArgs([]string{"--", "python3", "redteam24sock.py", sock})...)
			checkScriptRan(t, res, 1)
		})
	}
}

// containerDaemonSetup is netnsDaemonSetup's daemon in a container: a
// network and a mount namespace of its own (unshare --mount --net, as a
// container engine starts one), in which the host's /opt/rt24c is bound
// at /srv (a volume), and it listens on /srv/app.sock there. The host
// sees the socket at /opt/rt24c/app.sock; its namespace's list names it
// /srv/app.sock, the path in the container's view, which leads to no
// socket in the caller's.
const containerDaemonSetup = `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir -m 0755 /opt/rt24c
unshare --mount --propagation private --net sh -c 'mount --bind /opt/rt24c /srv && exec python3 -c "$LISTEN" /srv/app.sock' &
bg=$!
i=0
while [ ! -S /opt/rt24c/app.sock ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
[ -S /opt/rt24c/app.sock ]
`

// TestRedteam24SocketOfAContainerIsCovered: the attempt against a daemon
// in a container (its own network and mount namespaces) that listens on
// a socket in a volume, a directory of the host bound into it
// (/opt/rt24c, at /srv in the container), open to every user: the hook
// connects to /opt/rt24c/app.sock. The list of the container's network
// namespace names the socket by the path it was bound at in the
// container's view. The run takes that path through the container's
// mounts (/proc/PID/mountinfo, which every user may read) and its own to
// where it sees the same file and covers it: a root caller's (root on its
// own tree, on a tree nobody owns, --root-sandbox) checks that it is the
// file the container's root (/proc/PID/root) holds there; a non-root
// caller, who may not look into root's container, takes the socket it
// finds there.
func TestRedteam24SocketOfAContainerIsCovered(t *testing.T) {
	socketAttempt(t, "the test starts a daemon in a mount and a network namespace of its own, on a tmpfs over /opt in a mount namespace of its own",
		containerDaemonSetup, "/opt/rt24c/app.sock", false, "/srv")
}

// hostNetContainerDaemonSetup is containerDaemonSetup's daemon in a
// container on the host's network (--network host: a mount namespace of
// its own, the caller's network namespace), with the host's /opt/rt24h
// bound at /opt/in in it, listening on /opt/in/app.sock there. The
// caller's own list names the socket /opt/in/app.sock, which in the
// caller's view is an empty directory's path.
const hostNetContainerDaemonSetup = `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir -m 0755 /opt/rt24h /opt/in
unshare --mount --propagation private sh -c 'mount --bind /opt/rt24h /opt/in && exec python3 -c "$LISTEN" /opt/in/app.sock' &
bg=$!
i=0
while [ ! -S /opt/rt24h/app.sock ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
[ -S /opt/rt24h/app.sock ]
`

// TestRedteam24SocketOfAHostNetworkContainerIsCovered: the attempt
// against a container on the host's network whose daemon listens in a
// volume (/opt/rt24h, at /opt/in in it): the hook connects to
// /opt/rt24h/app.sock. The caller's own /proc/net/unix names the socket
// by the path inside the container, which leads to no socket in the
// caller's view, and which process's view it is in the list does not
// say: a root caller's run looks the path up in the root of each other
// mount namespace it finds (/proc/PID/ns/mnt, /proc/PID/root) and takes
// a socket there through that process's mounts and its own to where it
// sees the same file. A non-root caller may read neither of another
// user's process (see the honest limits), so its run is not tried here.
func TestRedteam24SocketOfAHostNetworkContainerIsCovered(t *testing.T) {
	socketAttempt(t, "the test starts a daemon in a mount namespace of its own, on a tmpfs over /opt in a mount namespace of its own",
		hostNetContainerDaemonSetup, "/opt/rt24h/app.sock", true)
}
