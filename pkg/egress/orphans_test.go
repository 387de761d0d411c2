package egress

import (
	"encoding/binary"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// slowPeer takes one connection on port 8 of the peer, reads nothing for a
// second (the client fills its buffers meanwhile and exits), then reads to
// the end and writes how many bytes it got to DIR/got.
const slowPeer = `import os, socket, sys, time
d = sys.argv[1]
open(d + "/slow.pid", "w").write(str(os.getpid()))
l = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("192.0.2.2", 8))
l.listen(1)
l.settimeout(30)
open(d + "/slow.ready", "w").close()
c, _ = l.accept()
time.sleep(1)
c.settimeout(30)
n = 0
try:
    while True:
        b = c.recv(1 << 20)
        if not b:
            break
        n += len(b)
except OSError:
    pass
open(d + "/got.tmp", "w").write(str(n))
os.rename(d + "/got.tmp", d + "/got")
`

// orphanClient writes to the slow peer until its buffers are full, says
// how much, and exits: its kernel goes on sending the rest. Its argument
// is the socket's protocol: 0, TCP; 262, MPTCP (IPPROTO_MPTCP, which
// needs no privilege), which falls back to TCP with the slow peer's
// plain listener, as it does through either connector, neither of which
// speaks it.
const orphanClient = `import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, int(sys.argv[1]))
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
s.connect(("192.0.2.2", 8))
s.setblocking(False)
n = 0
chunk = b"z" * 65536
while True:
    try:
        n += s.send(chunk)
    except BlockingIOError:
        break
print("wrote", n, flush=True)
os._exit(0)
`

// TestAllowCountsWhatClosedConnectionsSend: a connection the command left
// (it exited with megabytes written and not yet taken by the peer) is
// kept by its kernel, which goes on sending; Finish read the counters
// while it did, so the peer got far more than the record said went
// through (a hook that wrote 8 MiB to an allowed host was recorded as 2
// MB through pasta). Finish now ends such connections before it reads the
// counters: every byte the peer gets passed the wall first, and is
// counted. So too over MPTCP, whose TCP subflow keeps the MPTCP socket's
// inode once the command has closed that, and goes on sending: Finish
// took it for a socket a process holds (8 MiB recorded as 127 KB); a
// socket is the command's now unless this process holds it.
func TestAllowCountsWhatClosedConnectionsSend(t *testing.T) {
	for _, c := range []struct{ name, proto string }{{"tcp", "0"}, {"mptcp", "262"}} {
		t.Run(c.name, func(t *testing.T) { allowCountsWhatClosedConnectionsSend(t, c.proto) })
	}
}

func allowCountsWhatClosedConnectionsSend(t *testing.T, proto string) {
	dir := probeDir(t, map[string]string{"slow.py": slowPeer, "client.py": orphanClient})
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(dir, "slow.pid")); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// The slow peer is started apart from the prelude's servers, which
	// end with the probe: it lives on in the peer's namespace until it
	// has read its connection to the end.
	res := runPeered(t, dir, []string{"192.0.2.0/24"}, `nsenter -t $peer -n setsid python3 $d/slow.py $d </dev/null >$d/slow.log 2>&1 &
until [ -e $d/slow.ready ]; do sleep 0.01; done
python3 $d/client.py `+proto)
	defer dumpOnFailure(t, res)
	if res.FinishErr != "" {
		t.Errorf("finish: %s", res.FinishErr)
	}
	wrote := 0
	if f := strings.Fields(res.Probes[0].Output); len(f) == 2 && f[0] == "wrote" {
		wrote, _ = strconv.Atoi(f[1])
	}
	if wrote < 1<<20 {
		t.Fatalf("the client wrote %d bytes before its buffers were full, want a MiB or more: %s", wrote, res.Probes[0].Output)
	}
	var got int
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(dir, "got"))
		if err == nil {
			got, _ = strconv.Atoi(string(b))
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "slow.log"))
			t.Fatalf("the slow peer never said what it got: %s", log)
		}
	}
	e, ok := connectEntryFor(res.Egress, "192.0.2.2", 8, "tcp")
	if !ok || e.Attempts != 1 {
		t.Fatalf("no entry of one attempt for the connection: %+v (found %v)", e, ok)
	}
	if uint64(got) > e.Bytes {
		t.Errorf("the peer got %d bytes of the %d written, the record counts %d bytes (headers and both directions included): what went through after Finish was not counted", got, wrote, e.Bytes)
	}
	t.Logf("wrote %d, the peer got %d, the record counts %d bytes in %d packets", wrote, got, e.Bytes, e.Packets)
}

// TestParseOrphan reads struct inet_diag_msg as the kernel sends it: a
// socket a process holds (an inode) is none of the command's orphans, and
// an IPv4-mapped peer is its IPv4 address.
func TestParseOrphan(t *testing.T) {
	msg := func(family byte, dst []byte, inode uint32) []byte {
		m := make([]byte, inetDiagMsgLen)
		m[0], m[1] = family, unix.BPF_TCP_FIN_WAIT1
		copy(m[24:40], dst)
		binary.NativeEndian.PutUint32(m[inetDiagInode:], inode)
		return m
	}
	v4 := netip.MustParseAddr("192.0.2.7")
	mapped := netip.MustParseAddr("::ffff:192.0.2.8").As16()
	v6 := netip.MustParseAddr("2001:db8::9").As16()
	for _, c := range []struct {
		m    []byte
		want netip.Addr
		ok   bool
	}{
		{msg(unix.AF_INET, v4.AsSlice(), 0), v4, true},
		{msg(unix.AF_INET6, mapped[:], 0), netip.MustParseAddr("192.0.2.8"), true},
		{msg(unix.AF_INET6, v6[:], 0), netip.AddrFrom16(v6), true},
		{msg(unix.AF_INET, v4.AsSlice(), 4242), netip.Addr{}, false},
		{msg(unix.AF_INET, v4.AsSlice(), 0)[:inetDiagMsgLen-1], netip.Addr{}, false},
	} {
		o, ok := parseOrphan(c.m)
		if ok != c.ok || ok && (o.dst != c.want || o.state != unix.BPF_TCP_FIN_WAIT1 || o.family != c.m[0]) {
			t.Errorf("parseOrphan(%x) = %+v, %v; want %v, %v", c.m, o, ok, c.want, c.ok)
		}
	}
}
