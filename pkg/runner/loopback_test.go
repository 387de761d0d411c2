package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// localhostPOST is a hook's POST to an observability daemon on the host
// (localhost:4000), as the sandbox records it: curl tried ::1 and
// 127.0.0.1, nothing in the sandbox answered, and it exited 7.
func localhostPOST() *runnertest.Canned {
	return &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, ExitCode: 7, DurationMs: 5,
			Egress: []evidence.Egress{
				{IP: "::1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback, Attempts: 1},
				{IP: "127.0.0.1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback, Attempts: 1},
			}}, nil
	}}
}

// TestLoopbackAttemptIsWordedAsTheHosts: a hook's POST to localhost:4000
// is, under Claude Code, the host's own service. The audit said nothing of
// it (the record was empty); said as a blocked host it would advise an
// allow that no policy has. It is listed, worded as the host's loopback,
// with no allow advised; no-egress fails on it, egress-only takes it where
// localhost (or the address) is listed with its port, and a baseline keeps
// its address and port.
func TestLoopbackAttemptIsWordedAsTheHosts(t *testing.T) {
	ctx := context.Background()
	dir := makeTree(t, map[string]string{
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"plugins/a/hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -s -m 2 -X POST -d '{}' http://localhost:4000/events"}]}]}}`,
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}]}`,
	})
	rep, err := Audit(ctx, Options{Dir: dir, Executor: localhostPOST()})
	if err != nil {
		t.Fatal(err)
	}
	var notice string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunEgress {
			notice = f.Message + "\n" + f.Evidence
		}
		if strings.Contains(f.Message, "allow it (--egress allow") && strings.Contains(f.Message, "4000") {
			t.Errorf("%s advises an allow for the host's loopback: %s", f.Rule, f.Message)
		}
	}
	for _, want := range []string{
		"tried to reach 127.0.0.1:4000, [::1]:4000, the sandbox's own loopback (nothing there answered, or the recording proxy refused the request): under Claude Code that address and port reach the host's own service there",
		"which vigiles cannot reach or audit",
		"127.0.0.1:4000 via loopback (nothing in the sandbox answered; under Claude Code the host's own, 1 attempt(s))",
	} {
		if !strings.Contains(notice, want) {
			t.Errorf("run/egress lacks %q:\n%s", want, notice)
		}
	}
	if strings.Contains(notice, "egress policy blocked") {
		t.Errorf("run/egress calls the loopback attempt blocked:\n%s", notice)
	}
	if len(rep.Runs) != 1 || strings.Join(hostsOf(rep.Runs[0]), ",") != "127.0.0.1:4000,[::1]:4000" {
		t.Errorf("baseline hosts: %+v", rep.Runs)
	}

	for _, c := range []struct {
		expect string
		pass   bool
	}{
		{"{no-egress: true}", false},
		{"{egress-only: [localhost:4000]}", true},
		{"{egress-only: [localhost]}", true},
		{"{egress-only: [\"127.0.0.1:4000\", \"[::1]:4000\"]}", true},
		{"{egress-only: [\"127.0.0.1:4000\"]}", false},
		{"{egress-only: [localhost:5000]}", false},
		{"{egress-only: [api.example.test]}", false},
	} {
		os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("checks:\n  - {name: post, hook: a, event: Stop, expect: "+c.expect+"}\n"), 0o644)
		rep, err := Test(ctx, Options{Dir: dir, Executor: localhostPOST()})
		if err != nil {
			t.Fatalf("%s: %v", c.expect, err)
		}
		var failed []string
		for _, f := range rep.Findings {
			if f.Severity == report.SeverityError {
				failed = append(failed, f.Rule+": "+f.Message)
			}
		}
		if (len(failed) == 0) != c.pass {
			t.Errorf("%s: pass %v, want %v: %q", c.expect, len(failed) == 0, c.pass, failed)
		}
	}
}

// TestLoopbackHintsAdviseNoAllow: a request for localhost that a client
// ignoring NO_PROXY sent the recording proxy is an attempt at the
// sandbox's loopback, not a blocked host to allow (--allow localhost is
// refused); and what an attempt there does to a run is said as such,
// not as the blocked hosts' "fails so, as it would offline" (offline,
// Claude Code still reaches localhost).
func TestLoopbackHintsAdviseNoAllow(t *testing.T) {
	const offline = "a hook that needs the network fails so, as it would where Claude Code runs offline"
	for _, e := range []evidence.Egress{
		{Host: "localhost", Port: 4000, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "POST /x"},
		{Host: "api.localhost", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
		{Host: "LOCALHOST", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
		// A request for an address the proxy records by its address,
		// with no host (http://127.1:4000/, http://[::1]/).
		{IP: "127.0.0.1", Port: 4000, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
		{IP: "::1", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1},
		{IP: "127.0.0.1", Port: 4000, Proto: "tcp", Via: evidence.ViaLoopback, Attempts: 1},
	} {
		r := report.HookRun{Egress: []evidence.Egress{e}}
		if b := blockedHosts(r); b != "" {
			t.Errorf("%+v: blocked hosts %q, want none", e, b)
		}
		if ev := egressEvidence(r.Egress); strings.Contains(ev, "(blocked") || !strings.Contains(ev, ":") {
			t.Errorf("%+v: evidence %q calls it blocked, or leaves out its port", e, ev)
		}
		hint := blockedHint(r, "", offline)
		if hint == "" || strings.Contains(hint, "allow it") || strings.Contains(hint, offline) || !strings.Contains(hint, loopbackSo) {
			t.Errorf("%+v: hint %q", e, hint)
		}
	}
	r := report.HookRun{Egress: []evidence.Egress{{Host: "api.example.test", Port: 443, Proto: "http", Via: evidence.ViaProxy, Attempts: 1}}}
	if hint := blockedHint(r, "", offline); !strings.Contains(hint, "allow it") || !strings.Contains(hint, offline) {
		t.Errorf("a blocked host's hint %q lost its advice", hint)
	}
}

// TestUnbracketedBaselineHostIsTheSame: a baseline an earlier vigiles
// wrote with an IPv6 address and port unbracketed (::1:4000) lists the
// host a run now names [::1]:4000: no drift (it was a baseline/host
// error, the old entry "not tried"). An old entry that matches nothing
// now stays as it was.
func TestUnbracketedBaselineHostIsTheSame(t *testing.T) {
	ctx := context.Background()
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "curl -s http://localhost:4000/events"}]}]}}`,
	})
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Executor: localhostPOST(), Baseline: base, UpdateBaseline: true}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, base)
	b, err := os.ReadFile(file)
	if err != nil || !strings.Contains(string(b), `"[::1]:4000"`) {
		t.Fatalf("baseline (%v):\n%s", err, b)
	}
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(string(b), `"[::1]:4000"`, `"::1:4000"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(ctx, Options{Dir: dir, Executor: localhostPOST(), Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, RuleDriftPrefix) && f.Severity == report.SeverityError {
			t.Errorf("%s: %s", f.Rule, f.Message)
		}
	}

	got := unbracketedAsNow([]string{"127.0.0.1:4000", "::1:4000", "2001:db8::1"}, []string{"127.0.0.1:4000", "[::1]:4000"})
	want := []string{"127.0.0.1:4000", "[::1]:4000", "2001:db8::1"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("unbracketedAsNow = %q, want %q", got, want)
	}
}
