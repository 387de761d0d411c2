package egress

import (
	"context"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
)

// TestAllowAnswerForAnotherName: the stub admits an allowed name's
// addresses only where the answer's records are the question's, or an
// alias its CNAMEs lead to. An upstream that answered stray.example.test
// with evil.example.test's address had that address admitted, and the
// connect to it recorded as allowed under stray.example.test. Now it is
// refused and recorded with its reason, the connect dropped; an alias's
// address (alias.example.test CNAME target.example.test) is admitted and
// its connect named by the question's name.
func TestAllowAnswerForAnotherName(t *testing.T) {
	if _, err := exec.LookPath(ConnectorSlirp); err != nil {
		missing(t, ConnectorSlirp)
	}
	needNamespaces(t)
	hosts := newTestHosts(t)
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"alias.example.test", "stray.example.test"},
		DNSUpstream: testDNS, Connector: ConnectorSlirp}
	curl := "curl -sS -m 8 --noproxy '*' "
	probes := []string{
		/* 0 */ "sh:" + curl + "http://alias.example.test/",
		/* 1 */ "sh:getent ahostsv4 stray.example.test; true",
		/* 2 */ "sh:echo > /dev/tcp/198.18.0.7/80; true",
	}
	l := &Layer{}
	res := runChild(t, "sandbox", childSpec{Policy: p, Probes: probes}, func(pid int) (io.Closer, error) {
		return l.Attach(context.Background(), p, pid, nil, nil, nil)
	})
	if res.SetupErr != "" || res.FinishErr != "" {
		t.Fatalf("setup %q, finish %q", res.SetupErr, res.FinishErr)
	}
	_ = hosts
	if out := res.Probes[0].Output; !strings.Contains(out, "hello from test host") {
		t.Errorf("an allowed name's alias was not reached: %q", out)
	}
	e, _ := mustFind(t, res.Egress, "the alias's connect", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "198.18.0.6" && e.Port == 80
	})
	if !e.Allowed || e.Host != "alias.example.test" {
		t.Errorf("alias connect %+v, want allowed and named alias.example.test", e)
	}
	if out := res.Probes[1].Output; strings.Contains(out, "198.18.0.7") {
		t.Errorf("another name's address was handed over as stray.example.test's: %q", out)
	}
	r, _ := mustFind(t, res.Egress, "the refused record", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaDNS && e.Host == "stray.example.test" && e.IP == "198.18.0.7"
	})
	if r.Allowed || !strings.Contains(r.Detail, "another name") {
		t.Errorf("refused record %+v, want refused as another name's", r)
	}
	c, _ := mustFind(t, res.Egress, "the connect to the other name's address", func(e evidence.Egress) bool {
		return e.Via == evidence.ViaConnect && e.IP == "198.18.0.7" && e.Port == 80
	})
	if c.Allowed {
		t.Errorf("connect %+v: the other name's address was let through", c)
	}
}
