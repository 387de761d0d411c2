package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunReportTellsEgressEntriesApart: entries the JSON tells apart are
// told apart in the text report too. It printed the host (else the
// address), the port, via and the attempts only: five answers refused for
// one name were five identical lines, UDP and TCP to one port one line
// twice, a malformed proxy request "(no host)" without what it was, and
// neither the traffic counts nor egressDropped appeared.
func TestRunReportTellsEgressEntriesApart(t *testing.T) {
	c := annotate.Colon
	refused := "answer refused: private address (allow it with --allow-ip for vigiles run, defaults.egress.allow-ip in the policy for test and audit)"
	var b bytes.Buffer
	writeRunReport(&b, &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, WritesMethod: "overlay",
		Egress: []evidence.Egress{
			{Host: "lie.test", IP: "10.0.2.2", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1, Detail: refused},
			{Host: "lie.test", IP: "fd00::2", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1, Detail: refused},
			{Host: "good.test", IP: "198.18.77.2", Port: 9000, Proto: "udp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1, Packets: 2, Bytes: 158},
			{IP: "192.0.2.1", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 2},
			{IP: "192.0.2.1", Port: 443, Proto: "udp", Via: evidence.ViaConnect, Attempts: 1},
			{Via: evidence.ViaProxy, Proto: "http", Attempts: 1, Detail: "malformed request: \x1b[2Kvigiles: x\nGET /"},
			{Host: "api.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "GET /v1/telemetry"},
			{Proto: "udp", Via: evidence.ViaConnect, Attempts: 7, Detail: evidence.OverflowDetail},
		},
		EgressDropped: &evidence.Dropped{Packets: 6, Bytes: 409},
	})
	out := b.String()
	for _, want := range []string{
		`    blocked "lie.test" at 10.0.2.2 via dns (1 attempt) — answer refused` + c + ` private address (allow it with --allow-ip for vigiles run, defaults.egress.allow-ip in the policy for test and audit)` + "\n",
		`    blocked "lie.test" at fd00` + c + c + `2 via dns (1 attempt) — answer refused` + c,
		`    allowed "good.test" at 198.18.77.2 port 9000 udp via connect (1 attempt, 2 packets, 158 bytes)` + "\n",
		`    blocked "192.0.2.1" port 443 tcp via connect (2 attempts)` + "\n",
		`    blocked "192.0.2.1" port 443 udp via connect (1 attempt)` + "\n",
		`    blocked "(no host)" http via proxy (1 attempt) — malformed request` + c + ` \x1b[2Kvigiles` + c + ` x\nGET /` + "\n",
		`    blocked "api.example.test" port 80 http via proxy (1 attempt) — GET /v1/telemetry` + "\n",
		`    blocked "destinations past the first 10000, not recorded one by one" udp via connect (7 attempts)` + "\n",
		"  egress dropped" + labelColon + " 6 packets, 409 bytes\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\r") || strings.Count(out, "vigiles:") != 1 {
		t.Errorf("untrusted text reached the report unescaped:\n%q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "    ") && strings.Contains(l, ":") {
			t.Errorf("a ':' a problem matcher could take: %q", l)
		}
	}
}

// TestRunReportNamesRenames: a create that names the path it was renamed
// from shows it, both paths quoted as paths are, with no ':' a problem
// matcher could take.
func TestRunReportNamesRenames(t *testing.T) {
	var b bytes.Buffer
	writeRunReport(&b, &sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay", Egress: []evidence.Egress{},
		Writes: []evidence.Write{
			{Path: "a", Op: evidence.OpDelete},
			{Path: "b", Op: evidence.OpCreate, Kind: "file", From: "a"},
			{Path: "c", Op: evidence.OpCreate, Kind: "file", From: "x:1:\xff"},
			{Path: "d", Op: evidence.OpCreate, Kind: "file"},
		}})
	out := b.String()
	c := annotate.Colon
	for _, want := range []string{
		"    delete \"a\"\n",
		"    create \"b\" (from \"a\")\n",
		"    create \"c\" (from \"x" + c + "1" + c + "\\xff\")\n",
		"    create \"d\"\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "    ") && strings.Contains(l, ":") {
			t.Errorf("a ':' a problem matcher could take: %q", l)
		}
	}
}
