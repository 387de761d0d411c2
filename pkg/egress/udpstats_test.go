package egress

import (
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUDPSocketStats: the DNS stub's stop counts the questions the kernel
// dropped, and waits for those still queued, from udpSocketStats. A socket
// with a small buffer is flooded on loopback and not read: what the socket
// itself says (SO_MEMINFO) must be what /proc/net/udp says of it, a queue
// and drops both above zero, and an empty queue once it is read.
func TestUDPSocketStats(t *testing.T) {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	rc, err := pc.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ino uint64
	_ = rc.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, 4096)
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) == nil {
			ino = st.Ino
		}
	})
	out, err := net.Dial("udp4", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	for i := 0; i < 200; i++ {
		_, _ = out.Write(make([]byte, 100))
	}
	q, drops, ok := udpSocketStats(pc)
	if !ok || q == 0 || drops == 0 {
		t.Fatalf("udpSocketStats = %d queued, %d drops, %v; want both above zero", q, drops, ok)
	}
	pq, pdrops := procUDPStats(t, ino)
	if q != pq || drops != pdrops {
		t.Errorf("udpSocketStats says %d queued, %d drops; /proc/net/udp says %d, %d", q, drops, pq, pdrops)
	}
	// Read it all: what is queued, until a read would block. Loopback
	// delivers a datagram before its write returns, so nothing is on its
	// way. (A read deadline ended this where a loaded machine ran the
	// test past the deadline before the read, with the queue left full.)
	buf := make([]byte, 2048)
	var rerr error
	for rerr == nil {
		if cerr := rc.Control(func(fd uintptr) {
			_, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
		}); cerr != nil {
			t.Fatal(cerr)
		}
	}
	if !errors.Is(rerr, unix.EAGAIN) {
		t.Fatalf("reading the queue: %v", rerr)
	}
	if q, _, ok := udpSocketStats(pc); !ok || q != 0 {
		t.Errorf("after reading it all: %d queued, %v; want 0", q, ok)
	}
}

// procUDPStats reads the receive queue and drop count of the socket with
// inode ino from /proc/net/udp.
func procUDPStats(t *testing.T, ino uint64) (queued, drops int) {
	t.Helper()
	b, err := os.ReadFile("/proc/net/udp")
	if err != nil {
		t.Fatal(err)
	}
	want := strconv.FormatUint(ino, 10)
	for _, line := range strings.Split(string(b), "\n")[1:] {
		// sl local rem st tx_queue:rx_queue tr:tm retrnsmt uid timeout inode ref pointer drops
		fs := strings.Fields(line)
		if len(fs) < 13 || fs[9] != want {
			continue
		}
		_, rx, _ := strings.Cut(fs[4], ":")
		q, err1 := strconv.ParseInt(rx, 16, 64)
		d, err2 := strconv.Atoi(fs[12])
		if err1 != nil || err2 != nil {
			t.Fatalf("/proc/net/udp line %q", line)
		}
		return int(q), d
	}
	t.Fatalf("socket inode %d not in /proc/net/udp", ino)
	return 0, 0
}
