package egress

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
)

// holdClient opens connections to HOST:PORT (a holder: it never answers
// nor closes) until N are made or 50 in a row fail, says how many it made,
// how many of those are still open a second later (pasta takes a
// connection and resets it where it has no descriptor left for its
// timer), and how each failure ended, and holds them until the test has
// looked.
// Then it closes 100 and makes one more, retrying for up to 20 s, to show
// the connector serves again once it has descriptors to spare.
const holdClient = `import errno, os, resource, socket, sys, time
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
host, port, n, rt = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
held, why, row = [], {}, 0
while len(held) < n and row < 50:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, port))
        held.append(s)
        row = 0
    except OSError as e:
        s.close()
        k = "timeout" if isinstance(e, socket.timeout) else errno.errorcode.get(e.errno, str(e))
        why[k] = why.get(k, 0) + 1
        row += 1
time.sleep(1)
alive = 0
for s in held:
    s.setblocking(False)
    try:
        s.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        alive += 1
    except OSError:
        pass
print("made", len(held), "alive", alive, "failed", sorted(why.items()), flush=True)
open(os.path.join(rt, "held"), "w").close()
while not os.path.exists(os.path.join(rt, "release")):
    time.sleep(0.02)
for s in held[:100]:
    s.close()
end = time.time() + 20
while True:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect((host, port))
        print("after: connected", flush=True)
        break
    except OSError as e:
        s.close()
        if time.time() > end:
            print("after: refused", e, flush=True)
            break
        time.sleep(0.2)
os._exit(0)
`

// TestConnectorOpenFilesLimit: the connector runs under an open-files
// limit of its own (ConnectorOpenFiles, or the caller's hard limit where
// lower), soft and hard, whatever limits the caller has: a hook that
// opens connections past it gets them refused or reset, the connector
// holds no more descriptors than that, the record is whole, and once the
// hook closes some the connector serves new ones.
func TestConnectorOpenFilesLimit(t *testing.T) {
	var hard unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &hard); err != nil {
		t.Fatal(err)
	}
	want := min(hard.Max, ConnectorOpenFiles)
	n := int(want) + 300
	if hard.Max < uint64(n)+100 {
		// Root may raise it, for the command to have room for n.
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: hard.Cur, Max: uint64(n) + 100}); err != nil {
			t.Fatalf("raising the test's hard open-files limit past %d: %v", n, err)
		}
		t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &hard) })
	}
	for _, connector := range connectors() {
		t.Run(connector, func(t *testing.T) {
			run := runRedteam(t, connector, evidence.EgressPolicy{AllowIP: []string{"198.18.0.3/32"}},
				fmt.Sprintf("sh:python3 - 198.18.0.3 7002 %d $RT <<'PY'\n%sPY\n", n, holdClient))
			res := run.res
			defer dumpOnFailure(t, res)
			out := res.Probes[0].Output
			t.Logf("probe: %s; %s held %d descriptors, %d KiB resident, %d KiB of data", out, connector, run.heldFDs, run.heldRSS, run.heldData)
			m := regexp.MustCompile(`(?m)^Max open files +(\d+) +(\d+) +files`).FindStringSubmatch(run.limits)
			if m == nil {
				t.Fatalf("no open-files line in %s's limits:\n%s", connector, run.limits)
			}
			if m[1] != strconv.FormatUint(want, 10) || m[2] != m[1] {
				t.Errorf("%s runs with an open-files limit of %s soft, %s hard; want %d for both", connector, m[1], m[2], want)
			}
			if !run.heldSeen {
				t.Fatal("the probe never said it held its connections")
			}
			mm := regexp.MustCompile(`made (\d+) alive (\d+) failed`).FindStringSubmatch(out)
			if mm == nil {
				t.Fatalf("probe said nothing of its connections: %s", out)
			}
			alive, _ := strconv.Atoi(mm[2])
			if alive >= n || alive > int(want) {
				t.Errorf("%d of the command's %d connections were open; want at most the connector's limit of %d", alive, n, want)
			}
			// slirp4netns takes connections up to its limit (less the
			// few descriptors of its own) and refuses the rest (ICMP:
			// ENETUNREACH); pasta, with two descriptors for each, takes
			// the handshake of more and resets some, older ones too.
			if connector == ConnectorSlirp && alive < int(want)-64 {
				t.Errorf("slirp4netns kept %d connections open; want all it has descriptors for, about %d", alive, want)
			}
			// slirp4netns reserves each connection's buffers as it opens
			// it: its data segment at the limit bounds its memory where
			// no cgroup does (docs/egress.md, "Limits that remain").
			if connector == ConnectorSlirp && run.heldData >= 4<<20 {
				t.Errorf("slirp4netns's data segment is %d KiB at its open-files limit, past the 4 GiB the docs say bounds it", run.heldData)
			}
			if run.heldFDs > int(want) {
				t.Errorf("%s held %d descriptors, past its limit of %d", connector, run.heldFDs, want)
			}
			if !strings.Contains(out, "after: connected") {
				t.Errorf("once the command closed 100 connections, the connector did not take a new one: %s", out)
			}
			if res.FinishErr != "" {
				t.Fatalf("finish: %s", res.FinishErr)
			}
			e, ok := connectEntryFor(res.Egress, "198.18.0.3", 7002, "tcp")
			if !ok {
				t.Fatal("no entry for the held host")
			}
			// A connection pasta reset frees its source port, which a
			// later one may take: the record counts each address and
			// port pair once while it is in the wall's set.
			if !e.Allowed || e.Attempts < alive+1 {
				t.Errorf("held host's entry %+v, want allowed and at least %d attempts", e, alive+1)
			}
		})
	}
}
