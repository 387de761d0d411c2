package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
)

// TestOtherNetNSUnixLists: a process in a network namespace of its own
// (unshare --net, as `ip netns exec` starts a service) has its namespace's
// list of unix sockets named once, and the caller's own namespace's is not
// named again beside /proc/net/unix; made with a mount namespace of its
// own, the process is named for it too.
func TestFindOtherNamespaces(t *testing.T) {
	key := func(fi os.FileInfo) devIno { k, _ := keyOf(fi); return k }
	requireRoot(t, "making a network namespace needs root")
	cmd := startUnshared(t, "--net", "--mount")
	own, err := os.Stat("/proc/self/net/unix")
	if err != nil {
		t.Fatal(err)
	}
	child := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/net/unix"
	var theirs os.FileInfo
	// unshare enters the namespace before it execs sleep: until then its
	// list is the caller's. The bound only ends a hang.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		fi, err := os.Stat(child)
		if err == nil && key(fi) != key(own) {
			theirs = fi
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still the caller's namespace's list (%v)", child, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	seen := map[devIno]string{}
	found := findOtherNamespaces("/proc")
	for _, p := range found.netUnix {
		fi, err := os.Stat(p)
		if err != nil {
			continue // a process gone since
		}
		ino := key(fi)
		if ino == key(own) {
			t.Errorf("%s is the caller's own namespace's list, which /proc/net/unix already is", p)
		}
		if q, ok := seen[ino]; ok {
			t.Errorf("%s and %s are one namespace's list, named twice", q, p)
		}
		seen[ino] = p
	}
	if _, ok := seen[key(theirs)]; !ok {
		t.Errorf("the list of the namespace of %s was not named: %v", child, seen)
	}
	// The only process of its mount namespace.
	if pid := "/proc/" + strconv.Itoa(cmd.Process.Pid); !slices.Contains(found.mountProcs, pid) {
		t.Errorf("%s, alone in its mount namespace, was not named for it: %v", pid, found.mountProcs)
	}
	ownMnt, _ := os.Readlink("/proc/self/ns/mnt")
	for _, p := range found.mountProcs {
		if ns, err := os.Readlink(p + "/ns/mnt"); err == nil && ns == ownMnt {
			t.Errorf("%s is in the caller's own mount namespace", p)
		}
	}
}

// BenchmarkFindOtherNamespaces is what looking for the other network and
// mount namespaces costs each run, beside its set-up: a read of /proc, a
// stat of each process's list and a readlink of its ns/mnt.
func BenchmarkFindOtherNamespaces(b *testing.B) {
	for b.Loop() {
		findOtherNamespaces("/proc")
	}
}

// TestSameFileAt: a socket a container binds in a volume (a directory of
// the caller's bound at /srv in it) is found at the caller's path through
// the container's mounts and the caller's own: the mount on top where two
// are on one point, the file checked by device and inode where it is
// known, a socket taken where it is not; a path in no mount the caller
// shows, or another file, is not.
func TestSameFileAt(t *testing.T) {
	own, err := fsx.Mounts()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "vol", "app.sock")
	os.Mkdir(filepath.Dir(sock), 0o755)
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var st unix.Stat_t
	if err := unix.Stat(sock, &st); err != nil {
		t.Fatal(err)
	}
	// The caller's mount the volume lies in, and the volume's path in its
	// file system.
	best := -1
	for i, m := range own {
		if fsx.Under(filepath.Dir(sock), m.Point) && (best < 0 || len(m.Point) >= len(own[best].Point)) {
			best = i
		}
	}
	if best < 0 {
		t.Fatalf("no mount of the caller's holds %s", sock)
	}
	rel, _ := filepath.Rel(own[best].Point, filepath.Dir(sock))
	vol := fsx.Mount{Point: "/srv", Dev: own[best].Dev, Root: filepath.Join(own[best].Root, rel)}
	under := fsx.Mount{Point: "/srv", Dev: own[best].Dev, Root: filepath.Join(own[best].Root, rel, "elsewhere")}
	theirs := []fsx.Mount{{Point: "/", Dev: "0:999", Root: "/"}, under, vol}
	if got, ok := sameFileAt("/srv/app.sock", &st, theirs, own); !ok || got != sock {
		t.Errorf("the socket known: %q, %v; want %s", got, ok, sock)
	}
	if got, ok := sameFileAt("/srv/app.sock", nil, theirs, own); !ok || got != sock {
		t.Errorf("the socket not known: %q, %v; want %s", got, ok, sock)
	}
	other := st
	other.Ino++
	if got, ok := sameFileAt("/srv/app.sock", &other, theirs, own); ok {
		t.Errorf("another file found at %s", got)
	}
	if got, ok := sameFileAt("/srv/app.sock", &st, []fsx.Mount{theirs[0], vol, under}, own); ok {
		t.Errorf("the mount under the one on top was taken: %s", got)
	}
	if got, ok := sameFileAt("/app.sock", nil, theirs, own); ok {
		t.Errorf("a path in a mount no mount of the caller's shows was found at %s", got)
	}
}

// BenchmarkOwnListSocketUnresolved is what a path of the caller's own
// list that leads to no socket in its view costs a run: a stat in each
// other mount namespace's root (found beside the set-up).
func BenchmarkOwnListSocketUnresolved(b *testing.B) {
	own := func() []fsx.Mount { return nil }
	procs := findOtherNamespaces("/proc").mountProcs
	for b.Loop() {
		ownListSocket(procs, own)("/nonexistent/vigiles-bench.sock")
	}
}

// BenchmarkOwnListSockets is what the caller's own list costs a run where
// it names 50 sockets the caller sees: each path looked at in the caller's
// view and in the root of each other mount namespace, for a container's
// socket behind it.
func BenchmarkOwnListSockets(b *testing.B) {
	d := b.TempDir()
	var list strings.Builder
	list.WriteString("Num RefCount Protocol Flags Type St Inode Path\n")
	for i := range 50 {
		p := filepath.Join(d, fmt.Sprintf("s%d.sock", i))
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err != nil {
			b.Fatal(err)
		}
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: p}); err != nil {
			b.Fatal(err)
		}
		unix.Close(fd)
		fmt.Fprintf(&list, "0000000000000000: 00000002 00000000 00010000 0001 01 %d %s\n", 30000+i, p)
	}
	own := func() []fsx.Mount { m, _ := fsx.Mounts(); return m }
	procs := findOtherNamespaces("/proc").mountProcs
	for b.Loop() {
		if got := hostSockets(strings.NewReader(list.String()), ownListSocket(procs, own)); len(got) != 50 {
			b.Fatalf("%d sockets, want 50", len(got))
		}
	}
}

// startUnshared starts `unshare FLAGS sleep 600`, killed when t ends.
func startUnshared(t *testing.T, flags ...string) *exec.Cmd {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI has unshare: ", err)
		}
		t.Skip("no unshare here: ", err)
	}
	cmd := exec.Command(unshare, append(flags, "sleep", "600")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// otherMountNS starts a process in a mount namespace of its own, a copy of
// the caller's (unshare --mount, as systemd starts a service with
// PrivateTmp=), and returns its /proc/PID once it is in it.
func otherMountNS(t *testing.T) string {
	t.Helper()
	cmd := startUnshared(t, "--mount")
	own, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	pp := "/proc/" + strconv.Itoa(cmd.Process.Pid)
	// unshare enters the namespace before it execs sleep. The bound only
	// ends a hang.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if ns, err := os.Readlink(pp + "/ns/mnt"); err == nil && ns != own {
			return pp
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still in the caller's mount namespace", pp)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestOwnListSocketFollowsLinks: a socket bound by a path that passes a
// link into another file system (/var/run/x.sock, where /var/run leads to
// /run, as dockerd binds /var/run/docker.sock) that a process of another
// mount namespace sees too is named where the link leads, once, and
// never by the path through the link: that path, taken through the other
// namespace's root mount, was named beside it, and bubblewrap, asked to
// cover it, made it through the link into the sandbox's empty /run and
// failed ("Can't create file at /var/run/x.sock"), so that every run on
// such a host was refused.
func TestOwnListSocketFollowsLinks(t *testing.T) {
	requireRoot(t, "mounting a tmpfs and making a mount namespace need root")
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tmpfs", real, "tmpfs", 0, "mode=0755"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Unmount(real, unix.MNT_DETACH) })
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(dir, "link", "app.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	pp := otherMountNS(t)
	own := func() []fsx.Mount { m, _ := fsx.Mounts(); return m }
	got := ownListSocket([]string{pp}, own)(filepath.Join(dir, "link", "app.sock"))
	want := []string{filepath.Join(real, "app.sock")}
	if !slices.Equal(got, want) {
		t.Errorf("the socket bound through a link: %q; want %q alone", got, want)
	}
}

// TestRunBesideASocketBoundThroughVarRun: a run on a host whose daemon
// bound its socket, open to every user, as /var/run/NAME.sock (/var/run a
// link to /run, as on Debian and Ubuntu), while a process of another
// mount namespace is there (a systemd service with PrivateTmp=), is
// confined and runs: the socket lies in the /run the sandbox masks.
func TestRunBesideASocketBoundThroughVarRun(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "binding a socket in /run needs root")
	if to, err := filepath.EvalSymlinks("/var/run"); err != nil || to != "/run" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI's Debian 12 has /var/run as a link to /run: %q, %v", to, err)
		}
		t.Skipf("/var/run is no link to /run here (%q, %v)", to, err)
	}
	sock := fmt.Sprintf("/var/run/vigiles-test-%d.sock", os.Getpid())
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	otherMountNS(t)
	res := run(t, Spec{Dir: t.TempDir(), Command: sh(`test -S ` + sock + ` && echo reached || echo hidden`)})
	if res.Tier != TierConfined || res.ExitCode != 0 {
		t.Fatalf("tier %s exit %d error %q stderr %q", res.Tier, res.ExitCode, res.Error, res.Stderr)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "hidden" {
		t.Errorf("the command found the socket at %s: %q", sock, got)
	}
}
