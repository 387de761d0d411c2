package escape

import (
	"os"
	"testing"
)

// Round twenty-five: round twenty-four's look-ups of the host's unix
// sockets as attack surface. Another lane's hook and any local user shape
// what they read: the paths in a list, the mount namespaces they are
// looked up in.

// decoyHostNetContainerSetup is hostNetContainerDaemonSetup's container on
// the host's network (the host's /opt/rt25h bound at /opt/in in it,
// listening on /opt/in/app.sock there), with a decoy: a socket file that
// another local user left at /opt/in/app.sock in the caller's own view
// (bound and closed: no daemon behind it, and no line of its own in the
// list).
const decoyHostNetContainerSetup = `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir -m 0755 /opt/rt25h /opt/in
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/opt/in/app.sock")'
[ -S /opt/in/app.sock ]
unshare --mount --propagation private sh -c 'mount --bind /opt/rt25h /opt/in && exec python3 -c "$LISTEN" /opt/in/app.sock' &
bg=$!
i=0
while [ ! -S /opt/rt25h/app.sock ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i+1)); done
[ -S /opt/rt25h/app.sock ]
`

// TestRedteam25DecoyDoesNotUncoverAHostNetworkContainerSocket: round
// twenty-four's container on the host's network, whose daemon listens in
// a volume (/opt/rt25h, at /opt/in in it), and a decoy: a socket file any
// local user may leave at the path the container's socket has inside it
// (/opt/in/app.sock: in /tmp, say, where the container's /tmp is a
// volume) in the caller's own view. The caller's list names the daemon's
// socket by that path; the run took the decoy there for it, covered the
// decoy and left the daemon's socket, /opt/rt25h/app.sock, open: the hook
// of each root caller connected and read the daemon's answer. The run now
// takes the path in the caller's view and in each other mount namespace's
// root, and covers every socket it finds.
func TestRedteam25DecoyDoesNotUncoverAHostNetworkContainerSocket(t *testing.T) {
	socketAttempt(t, "the test starts a daemon in a mount namespace of its own, on a tmpfs over /opt in a mount namespace of its own",
		decoyHostNetContainerSetup, "/opt/rt25h/app.sock", true)
}

// fuseNetNSSetup is a local user's network and mount namespace of its own
// (unshare -Urm --net: a user namespace, as any user may make one), in
// which a daemon listens on /opt/rt25f/x.sock and, after, a FUSE file
// system that never answers (its /dev/fuse descriptor never read) is
// mounted over /opt/rt25f: every look into it waits for an answer that
// does not come. Its namespace's list names the socket; the set-up's look
// for it goes through the process's root, /proc/PID/root/opt/rt25f/x.sock.
// A daemon that has not bound its socket within the bound (which only ends
// a hang) fails the set-up, where the FUSE went over no socket and the run
// found none to reach whatever it did.
const fuseNetNSSetup = `mount -t tmpfs -o mode=0755 tmpfs /opt
mkdir -m 0755 /opt/rt25f
unshare -Urm --propagation private --net sh -c '
python3 -c "$LISTEN" /opt/rt25f/x.sock &
i=0
while [ ! -S /opt/rt25f/x.sock ] && [ $i -lt 12000 ]; do sleep 0.01; i=$((i+1)); done
[ -S /opt/rt25f/x.sock ] || { touch /opt/rt25f.nosocket; exit 1; }
exec 3<>/dev/fuse
mount -t fuse -o fd=3,rootmode=40000,user_id=0,group_id=0,allow_other none /opt/rt25f
touch /opt/rt25f.mounted
wait' &
bg=$!
i=0
while [ ! -e /opt/rt25f.mounted ] && [ ! -e /opt/rt25f.nosocket ] && [ $i -lt 12000 ]; do sleep 0.01; i=$((i+1)); done
[ -e /opt/rt25f.mounted ]
`

// TestRedteam25UnansweredFUSEInAnotherNamespaceDoesNotHangTheRun: the
// attempt to hang every run of the host: a local user's daemon in a
// network and mount namespace of its own listens on a socket under a
// directory it then covers with a FUSE file system that never answers
// (allow_other). The set-up looks at the socket through the daemon's root
// (/proc/PID/root), which would wait for ever on a FUSE file system of
// the host's; this one was mounted in a user namespace, and the kernel
// refuses a process outside it (EACCES) without asking: the run ends, and
// the hook finds no socket at /opt/rt25f/x.sock. What held, pinned.
func TestRedteam25UnansweredFUSEInAnotherNamespaceDoesNotHangTheRun(t *testing.T) {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		lacking(t, "/dev/fuse")
	}
	socketAttempt(t, "the test mounts a FUSE file system in a user namespace, on a tmpfs over /opt in a mount namespace of its own",
		fuseNetNSSetup, "/opt/rt25f/x.sock", false)
}
