package egress

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mptcpOrphanClient is orphanClient over an MPTCP socket (IPPROTO_MPTCP,
// 262, which needs no privilege): the slow peer's listener is plain TCP,
// so the connection falls back to TCP, as it does through either
// connector, neither of which speaks MPTCP.
const mptcpOrphanClient = `import os, socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)
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

// TestAllowCountsWhatClosedMPTCPConnectionsSend: Finish ends the TCP
// connections the command left sending before it reads the counters, and
// took a socket with an inode for one a process holds. The TCP subflow of
// an MPTCP socket keeps the MPTCP socket's inode once the command has
// closed that, and goes on sending: a hook that wrote 8 MiB to an allowed
// host over one and exited was recorded as 127 KB while the host got all
// of it. A socket is the command's now unless this process holds it.
func TestAllowCountsWhatClosedMPTCPConnectionsSend(t *testing.T) {
	dir := probeDir(t, map[string]string{"slow.py": slowPeer, "client.py": mptcpOrphanClient})
	t.Cleanup(func() {
		if b, err := os.ReadFile(filepath.Join(dir, "slow.pid")); err == nil {
			if pid, err := strconv.Atoi(string(b)); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	res := runPeered(t, dir, []string{"192.0.2.0/24"}, `nsenter -t $peer -n setsid python3 $d/slow.py $d </dev/null >$d/slow.log 2>&1 &
until [ -e $d/slow.ready ]; do sleep 0.01; done
python3 $d/client.py`)
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
		t.Errorf("the peer got %d bytes of the %d written, the record counts %d bytes (headers and both directions included): what the MPTCP subflow sent after Finish was not counted", got, wrote, e.Bytes)
	}
	t.Logf("wrote %d, the peer got %d, the record counts %d bytes in %d packets", wrote, got, e.Bytes, e.Packets)
}
