package sandbox

import (
	"slices"
	"strings"
	"testing"
)

// TestHostSockets: the pathname sockets of /proc/net/unix, each once,
// spaces in a path kept; abstract and unbound ones, and paths that are no
// socket any more, left out.
func TestHostSockets(t *testing.T) {
	in := `Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 20001 /var/lib/lxd/unix.socket
0000000000000000: 00000002 00000000 00010000 0001 01 20002 @/tmp/.X11-unix/X0
0000000000000000: 00000003 00000000 00000000 0001 03 20003
0000000000000000: 00000003 00000000 00000000 0001 03 20004 /var/lib/lxd/unix.socket
0000000000000000: 00000002 00000000 00010000 0001 01 20005 /var/snap/my app/daemon.sock
0000000000000000: 00000002 00000000 00000000 0002 01 20006 /var/lib/gone.sock
0000000000000000: 00000002 00000000 00000000 0002 01 20007 /var/run/link.sock
`
	got := hostSockets(strings.NewReader(in), func(p string) (string, bool) {
		switch p {
		case "/var/lib/gone.sock":
			return "", false
		case "/var/run/link.sock":
			return "/run/link.sock", true
		}
		return p, true
	})
	want := []string{"/var/lib/lxd/unix.socket", "/var/snap/my app/daemon.sock", "/run/link.sock"}
	if !slices.Equal(got, want) {
		t.Errorf("hostSockets = %q, want %q", got, want)
	}
}
