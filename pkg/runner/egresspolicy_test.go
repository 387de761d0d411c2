package runner

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/egress"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// egressValues are allow, allow-ip and dns-upstream values, good and bad.
var egressValues = []string{
	"", "a", "a.example.test", "A.Example.Test.", "*.example.test", "*.test", "*", "*.*.test", "a.*.test",
	"api.example.test:443", "api.example.test:0", "api.example.test:65536", "api.example.test:x", "a_b.example.test",
	"-a.example.test", "a-.example.test", "a..example.test", "ä.example.test", "a b.test", "https://a.example.test/",
	"10.0.0.1", "10.0.0.1:53", "10.0.0.0/8", "10.0.0.0/33", "10.0.0.1/8", "::1", "[::1]", "[::1]:53", "2001:db8::/32",
	"2001:db8::53", "[2001:db8::53]:53", "[2001:db8::53]:0", "fe80::1%eth0", "::ffff:10.0.0.1", "::ffff:10.0.0.0/104",
	"127.0.0.53", "0.0.0.0", "224.0.0.1", "10.254.254.1", "10.254.254.1:5353", "192.0.2.53:0", "192.0.2.53:53",
	"192.0.2.53:65535", "example.test:53", "1.2.3", "01.2.3.4", "[10.0.0.1]", "[10.0.0.1]:53",
}

// egressAccepts says whether ParseConfig takes v for key (in mode allow)
// without an error.
func egressAccepts(key, v string) bool {
	q, _ := json.Marshal(v)
	doc := "defaults:\n  egress:\n    mode: allow\n"
	switch key {
	case "allow":
		doc += "    allow: [" + string(q) + "]\n"
	case "allow-ip":
		doc += "    allow-ip: [" + string(q) + "]\n"
	case "dns-upstream":
		doc += "    allow: [a.example.test]\n    dns-upstream: " + string(q) + "\n"
	}
	_, err := ParseConfig(".vigiles.yml", []byte(doc))
	return err == nil
}

func egressLayerAccepts(key, v string) bool {
	p := evidence.EgressPolicy{Mode: evidence.EgressAllow, Allow: []string{"a.example.test"}}
	switch key {
	case "allow":
		p.Allow = []string{v}
	case "allow-ip":
		p.Allow, p.AllowIP = nil, []string{v}
	case "dns-upstream":
		p.DNSUpstream = v
	}
	return egress.ValidatePolicy(p) == nil
}

// TestEgressChecksAgreeWithTheLayer: .vigiles.yml takes an allow,
// allow-ip or dns-upstream value exactly when the egress layer does, so
// that no policy passes the parser and then has every run refused.
func TestEgressChecksAgreeWithTheLayer(t *testing.T) {
	for _, key := range []string{"allow", "allow-ip", "dns-upstream"} {
		for _, v := range egressValues {
			if v == "" && key == "dns-upstream" {
				continue // no resolver given: the layer picks the host's
			}
			if got, want := egressAccepts(key, v), egressLayerAccepts(key, v); got != want {
				t.Errorf("%s %q: the policy parser accepts it: %v; the egress layer: %v", key, v, got, want)
			}
		}
	}
	// Mode and lists: the layer refuses allow entries outside mode allow.
	for _, mode := range []string{evidence.EgressDeny, evidence.EgressRecord} {
		doc := "defaults:\n  egress: {mode: " + mode + ", allow-ip: [10.0.0.0/8]}\n"
		_, err := ParseConfig(".vigiles.yml", []byte(doc))
		layer := egress.ValidatePolicy(evidence.EgressPolicy{Mode: mode, AllowIP: []string{"10.0.0.0/8"}})
		if (err == nil) != (layer == nil) {
			t.Errorf("mode %s with allow-ip: parser %v, layer %v", mode, err, layer)
		}
	}
}

// FuzzEgressChecks holds the policy parser's egress checks to the layer's
// on any value.
func FuzzEgressChecks(f *testing.F) {
	for _, v := range egressValues {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return // YAML text is UTF-8 without control characters: such a value cannot be written
		}
		for _, key := range []string{"allow", "allow-ip", "dns-upstream"} {
			if v == "" && key == "dns-upstream" {
				continue
			}
			if got, want := egressAccepts(key, v), egressLayerAccepts(key, v); got != want {
				t.Errorf("%s %q: the policy parser accepts it: %v; the egress layer: %v", key, v, got, want)
			}
		}
	})
}

// TestEgressNoticeSaysBlocked: run/egress under egress deny said only
// that the hook "tried to reach" a host; that the policy blocked it, that
// the hook's path that needed it never ran, and how to audit it with the
// host reachable were said by run/timeout and run/hook-error alone. An
// attempt the policy allowed says none of it.
func TestEgressNoticeSaysBlocked(t *testing.T) {
	blocked := evidence.Egress{Host: "api.github.com", Port: 443, Via: evidence.ViaProxy, Proto: "tcp", Detail: "CONNECT", Attempts: 1}
	allowed := blocked
	allowed.Host, allowed.Allowed = "docs.example.test", true
	run := func(eg ...evidence.Egress) string {
		r := report.HookRun{ID: "p/hooks/hooks.json#hooks.Stop[0].hooks[0]", Plugin: "p", Event: "Stop", Outcome: report.OutcomeAllowed, Egress: eg}
		fs := egressNotices([]report.HookRun{r})
		if len(fs) != 1 {
			t.Fatalf("findings %+v, want one", fs)
		}
		if strings.Contains(fs[0].Message, "\n") {
			t.Errorf("message spans lines: %q", fs[0].Message)
		}
		return fs[0].Message
	}
	hint := "to run it with the host reachable, allow it (--egress allow --allow HOST"
	if got := run(blocked); !strings.Contains(got, "tried to reach api.github.com:443, which the egress policy blocked: the hook's path that needed the host never ran, so what the run recorded is the hook without that host") ||
		!strings.Contains(got, hint) {
		t.Errorf("blocked: %q", got)
	}
	if got := run(allowed, blocked); !strings.Contains(got, "tried to reach docs.example.test:443, api.github.com:443; the egress policy blocked api.github.com:443: the hook's path") ||
		!strings.Contains(got, hint) {
		t.Errorf("one of two blocked: %q", got)
	}
	if got := run(allowed); strings.Contains(got, "blocked") || strings.Contains(got, hint) {
		t.Errorf("allowed: %q", got)
	}
}
