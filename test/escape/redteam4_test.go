package escape

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// connectorExhaust opens connections to the echo host from three
// processes, 3,500 each (each within the hook's own 4,096 descriptors),
// more than the connector's 8,192 can carry; a process stops at its 20th
// connection that fails in a row. Each says how many it made, holds them
// a moment and exits.
const connectorExhaust = `import os, socket, sys, time
kids = []
for k in range(3):
    pid = os.fork()
    if pid == 0:
        conns, failed = [], 0
        for i in range(3500):
            try:
                conns.append(socket.create_connection(("198.18.214.2", 7000), timeout=2))
                failed = 0
            except OSError:
                failed += 1
                if failed == 20:
                    break
        print("connected", len(conns), flush=True)
        time.sleep(1)
        os._exit(0)
    kids.append(pid)
for pid in kids:
    os.waitpid(pid, 0)
print("done", flush=True)
`

// TestConnectorOutOfDescriptors: a hook that opens more connections than
// the connector's open-files limit lets it carry (pkg/egress
// ConnectorOpenFiles) gets refusals or time-outs for the rest; the run
// ends when the hook does, not at its time limit, with its record whole
// (each connection made is an attempt), and no connector outlives it.
// The time limit, 10 minutes, is a bound on a hung run, not a measure:
// the 10,500 connections through slirp4netns take about a minute of CPU,
// and a starved machine (0.1 core) had made 4,214 when 240 s ran out.
func TestConnectorOutOfDescriptors(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "the test's network namespaces need root")
	requireTools(t, "unshare", "nsenter", "ip", "python3", "slirp4netns")
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	stdout, stderr, seen, err := runAgainstEchoHost(ctx, t, "exhaust.py", connectorExhaust, "--egress", "allow", "--connector", "slirp4netns",
		"--allow-ip", "198.18.214.2/32", "--timeout", "600s", "--", "python3", "exhaust.py")
	var res struct {
		result
		Egress []struct {
			IP       string `json:"ip"`
			Port     int    `json:"port"`
			Allowed  bool   `json:"allowed"`
			Attempts int    `json:"attempts"`
		} `json:"egress"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || res.Tier != "confined" {
		t.Fatalf("vigiles: %v; tier %q refusal %q (%v)\nstdout: %.2000s\nstderr: %.2000s", err, res.Tier, res.Refusal, jerr, stdout.String(), stderr.String())
	}
	t.Logf("slirp4netns pid %d; hook exit %d timed out %v limit %q error %q; stdout %q; stderr %.500q; egress %+v",
		seen.pid, res.ExitCode, res.TimedOut, res.LimitHit, res.Error, res.Stdout, res.Stderr, res.Egress)
	if seen.pid == 0 {
		t.Fatal("no slirp4netns was seen below vigiles while the run lasted")
	}
	if fileExists(fmt.Sprintf("/proc/%d", seen.pid)) {
		t.Errorf("slirp4netns (pid %d) outlived the run", seen.pid)
	}
	if res.TimedOut || res.Error != "" || res.ExitCode != 0 || !strings.HasSuffix(res.Stdout, "done\n") {
		t.Fatalf("the hook did not end on its own: exit %d, timed out %v, error %q, stdout %q", res.ExitCode, res.TimedOut, res.Error, res.Stdout)
	}
	made := 0
	for _, l := range strings.Split(res.Stdout, "\n") {
		var n int
		if _, err := fmt.Sscanf(l, "connected %d", &n); err == nil {
			made += n
		}
	}
	attempts := 0
	for _, e := range res.Egress {
		if e.IP == "198.18.214.2" && e.Port == 7000 && e.Allowed {
			attempts += e.Attempts
		}
	}
	if attempts < made {
		t.Errorf("the record has %d attempts to the echo for %d connections the hook made", attempts, made)
	}
}
