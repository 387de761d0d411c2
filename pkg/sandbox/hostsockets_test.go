package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
	got := hostSockets(strings.NewReader(in), func(p string) []string {
		switch p {
		case "/var/lib/gone.sock":
			return nil
		case "/var/run/link.sock":
			return []string{"/run/link.sock"}
		}
		return []string{p}
	})
	want := []string{"/var/lib/lxd/unix.socket", "/var/snap/my app/daemon.sock", "/run/link.sock"}
	if !slices.Equal(got, want) {
		t.Errorf("hostSockets = %q, want %q", got, want)
	}
}

// TestSocketMasks: sockets that fill a directory of their own are masked
// by the directory, one mount; others one by one; and more than
// maxSocketMasks left to cover one by one refuse the run, naming where
// they are. The sockets are files a closed listener left, so that no run
// of another test meets them in the host's real list.
func TestSocketMasks(t *testing.T) {
	base := t.TempDir()
	mk := func(dir string, socks int, other bool) []string {
		t.Helper()
		d := filepath.Join(base, dir)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := range socks {
			p := filepath.Join(d, fmt.Sprintf("s%d.sock", i))
			fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = unix.Bind(fd, &unix.SockaddrUnix{Name: p})
			unix.Close(fd)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		if other {
			if err := os.WriteFile(filepath.Join(d, "README"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	list := func(paths ...[]string) string {
		var b strings.Builder
		b.WriteString("Num       RefCount Protocol Flags    Type St Inode Path\n")
		for _, ps := range paths {
			for i, p := range ps {
				fmt.Fprintf(&b, "0000000000000000: 00000002 00000000 00010000 0001 01 %d %s\n", 1000+i, p)
			}
		}
		return b.String()
	}
	own := mk("own", 3, false)
	mixed := mk("mixed", 1, true)
	tree := filepath.Join(base, "tree")
	inTree := mk("tree", 2, false)
	var v hostView
	dirs, files, err := socketMasks(strings.NewReader(list(own, mixed, inTree)), tree, v)
	if err != nil || !slices.Equal(dirs, []string{filepath.Join(base, "own")}) || !slices.Equal(files, mixed) {
		t.Errorf("socketMasks = %q, %q, %v; want the directory of its own, the mixed one's socket", dirs, files, err)
	}
	// /dev/shm, where any user may bind sockets, is the sandbox's own:
	// none there is covered, nor counted.
	shm, err := os.MkdirTemp("/dev/shm", "vigiles-sockets-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shm) })
	tmp := base
	base = shm
	inShm := mk("flood", maxSocketMasks+1, true)
	base = tmp
	dirs, files, err = socketMasks(strings.NewReader(list(inShm, mixed)), tree, v)
	if err != nil || len(dirs) != 0 || !slices.Equal(files, mixed) {
		t.Errorf("socketMasks with %d sockets in /dev/shm = %q, %q, %v; want only the mixed directory's socket", len(inShm), dirs, files, err)
	}
	many := mk("many", maxSocketMasks+1, true)
	_, _, err = socketMasks(strings.NewReader(list(own, many)), tree, v)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d in %s", maxSocketMasks+1, filepath.Join(base, "many"))) || !strings.Contains(err.Error(), "fix: ") {
		t.Errorf("socketMasks of %d sockets beside a file: %v; want an error naming the directory and a fix", maxSocketMasks+1, err)
	}
}

// BenchmarkHostSocketsMany is what a list of 19,000 distinct sockets (what
// one process of a user whose descriptors are bounded at 20,000 may bind
// in a network namespace of its own) costs a run past their look-ups.
func BenchmarkHostSocketsMany(b *testing.B) {
	var list strings.Builder
	list.WriteString("Num RefCount Protocol Flags Type St Inode Path\n")
	for i := range 19000 {
		fmt.Fprintf(&list, "0000000000000000: 00000002 00000000 00010000 0001 01 %d /opt/m/%d.sock\n", 40000+i, i)
	}
	each := func(p string) []string { return []string{p} }
	for b.Loop() {
		if got := hostSockets(strings.NewReader(list.String()), each); len(got) != 19000 {
			b.Fatalf("%d sockets, want 19000", len(got))
		}
	}
}
