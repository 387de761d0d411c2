package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestRunReportEscapesUntrustedText: nothing a command controls may put
// a control sequence on the terminal that shows the verdict.
func TestRunReportEscapesUntrustedText(t *testing.T) {
	hostile := "\x1b[1A\x1b[2K\rvigiles: confined, exit 0\n  writes: none\x1b[8m"
	for _, r := range []*sandbox.Result{
		{Tier: sandbox.TierConfined, Error: "the sandbox ended without a result; stderr: " + hostile},
		{Tier: sandbox.TierRefused, Refusal: hostile},
		{Tier: sandbox.TierConfined, Signal: hostile, LimitHit: hostile, WritesMethod: hostile,
			Writes:   []evidence.Write{{Path: hostile, Op: evidence.Op(hostile)}},
			Egress:   []evidence.Egress{{Host: hostile, Via: evidence.Via(hostile)}},
			Lingered: []string{hostile}},
	} {
		var b bytes.Buffer
		writeRunReport(&b, r)
		out := b.String()
		if strings.ContainsAny(out, "\x1b\r") {
			t.Errorf("control characters reached the report: %q", out)
		}
		lines := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "vigiles:") {
				lines++
			}
		}
		if lines != 1 {
			t.Errorf("a forged verdict line: %q", out)
		}
	}
}

// TestRunUsage: values that mean nothing, or that the engine would
// silently replace, are usage errors (status 2) that name the flag, all of
// them at once; sizes are written as in .vigiles.yml.
func TestRunUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--timeout", "-1s"}, []string{"--timeout -1s: want a duration above 0"}},
		{[]string{"--timeout", "0"}, []string{"--timeout 0s: want a duration above 0"}},
		{[]string{"--linger", "-5s"}, []string{"--linger -5s"}},
		{[]string{"--output-cap", "0"}, []string{"--output-cap 0: want a size above 0"}},
		{[]string{"--output-cap", "-1"}, []string{`invalid argument "-1" for "--output-cap"`}},
		{[]string{"--output-cap", "65MiB"}, []string{"at most 64MiB"}},
		{[]string{"--egress", "allow"}, []string{"egress mode allow needs at least one host (or address range) to allow; name it with --allow HOST[:PORT] or --allow-ip CIDR\n"}},
		{[]string{"--allow", "x.example.test"}, []string{"egress mode allow (egress is deny); add --egress allow\n"}},
		{[]string{"--connector", "pasta"}, []string{"--connector pasta: only with --egress allow (egress is deny)"}},
		{[]string{"--egress", "record", "--connector", "pasta"}, []string{"--connector pasta: only with --egress allow (egress is record)"}},
		{[]string{"--dns-upstream", "192.0.2.53"}, []string{"--dns-upstream 192.0.2.53: only with --egress allow"}},
		{[]string{"--limit-pids", "-1"}, []string{"--limit-pids -1: want a whole number from 32"}},
		{[]string{"--limit-pids", "31"}, []string{"--limit-pids 31"}},
		{[]string{"--limit-run-memory", "1000"}, []string{"--limit-run-memory 1000: want at least 64MiB"}},
		{[]string{"--limit-run-memory", "63MiB"}, []string{"--limit-run-memory 63MiB"}},
		{[]string{"--limit-memory", "0"}, []string{"--limit-memory 0: want a size above 0"}},
		{[]string{"--limit-memory", "2X"}, []string{"want a size such as 1048576, 64KiB, 512MiB or 2GiB"}},
		{[]string{"--limit-cpu", "0"}, []string{"--limit-cpu 0"}},
		{[]string{"--limit-open-files", "3"}, []string{"--limit-open-files 3"}},
		{[]string{"--workdir", "/nonexistent/vigiles"}, []string{"--workdir /nonexistent/vigiles does not exist"}},
		{[]string{"--workdir", "/etc/passwd"}, []string{"--workdir /etc/passwd is not a directory"}},
		{[]string{"--egress", "allow", "--allow", "http://x.test"}, []string{"not a URL"}},
		{[]string{"--timeout", "0", "--linger", "-1s", "--limit-pids", "1"}, []string{"--timeout 0s", "\nvigiles: run: --linger -1s", "\nvigiles: run: --limit-pids 1"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"run", "--sandbox", "off", "--json"}, tc.args...)
			if !slices.Contains(tc.args, "--workdir") {
				args = append(args, "--workdir", dir)
			}
			code, out, errs := runCLI(t, append(args, "--", "true")...)
			if code != 2 || out != "" {
				t.Errorf("exit %d (want 2), stdout %q, stderr %q", code, out, errs)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
		})
	}
	// The policy's size syntax is accepted.
	code, _, errs := runCLI(t, "run", "--sandbox", "off", "--json", "--workdir", dir, "--limit-memory", "2GiB",
		"--limit-run-memory", "64MiB", "--limit-pids", "32", "--output-cap", "64KiB", "--", "true")
	if code != 0 {
		t.Errorf("sizes as the policy writes them: exit %d: %s", code, errs)
	}
}

// TestRunRefusalSaidOnce: a refused run says why once, on one line, and
// exits 125.
func TestRunRefusalSaidOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no bubblewrap: refused before anything starts
	code, out, errs := runCLI(t, "run", "--workdir", t.TempDir(), "--", "/bin/true")
	if code != 125 || out != "" {
		t.Errorf("exit %d (want 125), stdout %q", code, out)
	}
	if n := strings.Count(errs, "bubblewrap"); n < 1 || strings.Count(errs, "vigiles:") != 1 || !strings.Contains(errs, "\nvigiles: refused"+labelColon+" ") {
		t.Errorf("want the reason on one line after \"vigiles: refused꞉ \":\n%s", errs)
	}
}

// TestRunFlagsEndAtCommand: from COMMAND on, every argument is the
// command's own, with or without --: a hook's --json or --timeout 0 (or
// --sandbox off) is never read as one of vigiles' flags.
func TestRunFlagsEndAtCommand(t *testing.T) {
	dir := t.TempDir()
	for _, sep := range [][]string{nil, {"--"}} {
		args := append([]string{"run", "--sandbox", "off", "--json", "--workdir", dir}, sep...)
		code, out, errs := runCLI(t, append(args, "echo", "--trusted", "--timeout", "0", "--sandbox", "strict")...)
		if code != 0 || !strings.Contains(out, `"stdout": "--trusted --timeout 0 --sandbox strict\n"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q: want the flags after COMMAND passed to it", args, code, out, errs)
		}
	}
}

// TestRunReportEgressLines: a name only looked up has no port to show
// (not "port 0"); one attempt is "1 attempt".
func TestRunReportEgressLines(t *testing.T) {
	var b bytes.Buffer
	writeRunReport(&b, &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, WritesMethod: "overlay", Egress: []evidence.Egress{
		{Host: "api.example.test", Via: evidence.ViaDNS, Attempts: 2},
		{Host: "api.example.test", Port: 443, Via: evidence.ViaProxy, Attempts: 1},
	}})
	for _, want := range []string{
		"    blocked \"api.example.test\" via dns (2 attempts)\n",
		"    blocked \"api.example.test\" port 443 via proxy (1 attempt)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
