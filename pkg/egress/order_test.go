package egress

// The record's order: entries come in the order of their first attempt,
// across the packet log, the DNS stub and the proxy, which vigiles reads
// apart. The log was read behind the stub and the proxy, and each entry
// stamped as it was read: a question asked after a burst of refused
// packets was listed among them, and past the cap the burst's last
// destinations were lumped while the later question kept its own entry.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// orderClient sends argv[1] UDP datagrams to distinct ports of
// 203.0.113.1, asks the stub about after.example (and waits for the
// answer), sends argv[2] more, then (record mode) asks the proxy for
// http://after-proxy.example/.
const orderClient = `
import sys
def burst(n, base):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(n):
        try:
            u.sendto(b"x", ("203.0.113.1", base + i))
        except OSError:
            pass
    u.close()
burst(int(sys.argv[1]), 20000)
d = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
d.settimeout(60)  # the stub answers once the log is read up to the question: slow on a loaded machine
d.sendto(dnsq(1, "after.example"), ("127.0.0.1", 53))
d.recv(512)
burst(int(sys.argv[2]), 40000)
if "HTTP_PROXY" in os.environ:
    p = socket.create_connection(proxy())
    p.sendall(b"GET http://after-proxy.example/ HTTP/1.1\r\nHost: after-proxy.example\r\n\r\n")
    p.recv(4096)
print("done")
`

func orderProbe(first, second int) string {
	return "sh:python3 - " + fmt.Sprint(first, " ", second) + " <<'PY'\n" + pyPrelude + orderClient + "\nPY\n"
}

// TestRecordOrderFollowsTheAttempts: 2,000 refused datagrams, a question,
// 300 more, a proxy request: the record lists them in that order.
func TestRecordOrderFollowsTheAttempts(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressRecord, orderProbe(2000, 300))
	if res.FinishErr != "" {
		t.Fatalf("finish: %s", res.FinishErr)
	}
	if n := len(res.Egress); n != 2302 {
		t.Fatalf("%d entries, want 2,302", n)
	}
	_, dns := mustFind(t, res.Egress, "after.example", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "after.example"
	})
	_, px := mustFind(t, res.Egress, "after-proxy.example", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaProxy && e.Host == "after-proxy.example"
	})
	if dns != 2000 || px != 2301 {
		t.Errorf("the question is entry %d (want 2000), the proxy request %d (want 2301)", dns, px)
	}
	for i, e := range res.Egress {
		want := 20000 + i
		if i > 2000 {
			want = 40000 + i - 2001
		}
		if i == dns || i == px {
			continue
		}
		if e.Via != evidence.ViaConnect || e.Port != want {
			t.Errorf("entry %d: %+v, want the datagram to port %d", i, e, want)
			break
		}
	}
}

// TestRecordCapFollowsTheAttempts: past the cap, what is lumped is what
// came last: 10,005 datagrams and then a question keep the first 10,000
// datagrams one by one and lump the other 5 and the question.
func TestRecordCapFollowsTheAttempts(t *testing.T) {
	needNamespaces(t)
	res := lossRun(t, evidence.EgressDeny, orderProbe(maxEntries+5, 0))
	if res.FinishErr != "" {
		t.Fatalf("finish: %s", res.FinishErr)
	}
	if _, _, ok := find(res.Egress, func(e evidence.Egress) bool { return e.Host == "after.example" }); ok {
		t.Errorf("the question, asked after %d destinations, kept an entry of its own", maxEntries+5)
	}
	var lumped []string
	for _, e := range res.Egress {
		if e.Lumped() {
			lumped = append(lumped, fmt.Sprintf("%s/%s:%d", e.Via, e.Proto, e.Attempts))
		}
	}
	if got := strings.Join(lumped, " "); got != "connect/udp:5 dns/dns:1" {
		t.Errorf("lumped entries %q, want the last 5 datagrams and the question", got)
	}
}
