package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/hostprog"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
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
		{[]string{"--egress", "allow", "--allow", "x.example.test", "--connector", "slirp"}, []string{`--connector "slirp": want slirp4netns or pasta`}},
		{[]string{"--limit-pids", "-1"}, []string{"--limit-pids -1: want a whole number from 32"}},
		{[]string{"--limit-pids", "31"}, []string{"--limit-pids 31"}},
		{[]string{"--limit-run-memory", "1000"}, []string{"--limit-run-memory 1000: want at least 64MiB"}},
		{[]string{"--limit-run-memory", "63MiB"}, []string{"--limit-run-memory 63MiB"}},
		{[]string{"--limit-memory", "0"}, []string{"--limit-memory 0: want a size above 0"}},
		{[]string{"--limit-memory", "2X"}, []string{"want a size such as 1048576, 64KiB, 512MiB or 2GiB"}},
		{[]string{"--limit-cpu", "0"}, []string{"--limit-cpu 0"}},
		{[]string{"--limit-open-files", "3"}, []string{"--limit-open-files 3"}},
		{[]string{"--workdir", "/nonexistent/vigiles"}, []string{`--workdir "/nonexistent/vigiles" does not exist`}},
		{[]string{"--workdir", "/etc/passwd"}, []string{`--workdir "/etc/passwd" is not a directory`}},
		{[]string{"--workdir", "a\nb"}, []string{`--workdir "a\nb" does not exist`}},
		{[]string{"--workdir", ""}, []string{`--workdir "": an empty path: leave --workdir out, or give --workdir ".", for the current directory`}},
		{[]string{"--stdin", "/nonexistent/event.json"}, []string{`--stdin "/nonexistent/event.json": no such file or directory; want a file whose bytes the command reads (or - for this stdin)`}},
		{[]string{"--stdin", "/"}, []string{`--stdin "/": a directory; want a file whose bytes the command reads (or - for this stdin)`}},
		{[]string{"--egress", "allow", "--allow", "http://x.test"}, []string{"not a URL"}},
		{[]string{"--egress", "allow", "--allow", "10.0.0.1"}, []string{`--allow "10.0.0.1": an address, not a name; use --allow-ip`}},
		{[]string{"--egress", "allow", "--allow", "10.0.0.0/8"}, []string{`--allow "10.0.0.0/8": an address range, not a name; use --allow-ip`}},
		// The sandbox's loopback is its own: allowing it would allow
		// nothing, as a loopback --dns-upstream is refused.
		{[]string{"--egress", "allow", "--allow-ip", "127.0.0.1"}, []string{`--allow-ip "127.0.0.1": the loopback, which in the sandbox is its own, not the host's`, "allow an address the hook reaches over a network"}},
		{[]string{"--egress", "allow", "--allow", "x.example.test", "--allow-ip", "::1"}, []string{`--allow-ip "::1": the loopback`}},
		{[]string{"--egress", "allow", "--allow-ip", "127.0.0.0/8"}, []string{`--allow-ip "127.0.0.0/8": the loopback`}},
		{[]string{"--egress", "allow", "--allow", "localhost"}, []string{`--allow "localhost": a name of the loopback, which in the sandbox is its own`, "allow a host the hook reaches over a network, or leave it out"}},
		{[]string{"--egress", "allow", "--allow", "*.localhost:8080"}, []string{`--allow "*.localhost:8080": a name of the loopback`}},
		{[]string{"--egress", "allow", "--allow", "127.0.0.1"}, []string{`--allow "127.0.0.1": the loopback, which in the sandbox is its own`}},
		{[]string{"--egress", "allow", "--allow", "x.example.test", "--dns-upstream", "127.0.0.53"}, []string{`--dns-upstream "127.0.0.53": an address inside the sandbox`}},
		{[]string{"--timeout", "0", "--linger", "-1s", "--limit-pids", "1"}, []string{"--timeout 0s", "\nvigiles: run: --linger -1s", "\nvigiles: run: --limit-pids 1"}},
		// Below what a process needs to start in the sandbox: the command
		// died of SIGSEGV (--limit-memory 1), or exited 127 as if it
		// were not there (1MiB), as its own failure.
		{[]string{"--limit-memory", "1"}, []string{"--limit-memory 1: want a size of at least 16MiB (what the sandbox needs to start the command"}},
		{[]string{"--limit-memory", "1MiB"}, []string{"--limit-memory 1MiB: want a size of at least 16MiB"}},
		{[]string{"--limit-memory", "16383KiB"}, []string{"--limit-memory 16383KiB: want a size of at least 16MiB"}},
		// Below the scratch the sandbox gives at least: it was raised
		// to 1MiB in silence.
		// 2^64-1 is RLIM_INFINITY: it turned the limit off (ulimit -v
		// unlimited), where a larger size is too large.
		{[]string{"--limit-memory", "18446744073709551615"}, []string{`invalid argument "18446744073709551615" for "--limit-memory" flag: too large`}},
		{[]string{"--limit-file-size", "99999999TiB"}, []string{`invalid argument "99999999TiB" for "--limit-file-size" flag: too large`}},
		{[]string{"--limit-scratch", "1"}, []string{"--limit-scratch 1: want a size of at least 1MiB (the sandbox gives a run's scratch no less)"}},
		{[]string{"--limit-scratch", "1023KiB"}, []string{"--limit-scratch 1023KiB: want a size of at least 1MiB"}},
		// Well formed, out of range: said so, with the range.
		{[]string{"--timeout", "99999999h"}, []string{"--timeout 99999999h: out of range; want a duration above 0 and at most 24h, such as 30s or 2m (default 1m)"}},
		// Within time.Duration's range, past the day a run may take:
		// added to the linger and the broker's grace, such a timeout
		// wrapped below 0 and the run was killed as it started.
		{[]string{"--timeout", "2562047h"}, []string{"--timeout 2562047h: want a duration above 0 and at most 24h, such as 30s or 2m (default 1m)"}},
		{[]string{"--linger", "25h"}, []string{"--linger 25h: want 0 (end leftover processes at once, the default) or a duration above 0 and at most 24h"}},
		{[]string{"--linger", "99999999h"}, []string{"--linger 99999999h: out of range; want 0 (end leftover processes at once, the default) or a duration above 0 and at most 24h"}},
		{[]string{"--limit-pids", "99999999999999999999"}, []string{"--limit-pids 99999999999999999999: out of range; want a whole number from 32 (what the sandbox itself needs) to 1048576"}},
		{[]string{"--limit-cpu", "99999999999999999999"}, []string{"--limit-cpu 99999999999999999999: out of range; want a whole number of seconds from 1 to 86400"}},
		{[]string{"--limit-open-files", "99999999999999999999"}, []string{"--limit-open-files 99999999999999999999: out of range; want a whole number from 16 to 1048576"}},
		{[]string{"--timeout", "soon"}, []string{`invalid argument "soon" for "--timeout" flag: must be a duration`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"run", "--json"}, tc.args...)
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
	// The policy's size syntax is accepted, and the floors themselves: a
	// plain true runs confined under them (as sh -c true does: measured
	// from about 2.6MiB of address space).
	if c := sandbox.ProbeConfinement(context.Background()); c.Confine != sandbox.Available {
		missing(t, "confinement ("+c.Why+"): the limits are taken by a confined run only")
	}
	for _, command := range [][]string{{"true"}, {"sh", "-c", "true"}} {
		args := append([]string{"run", "--json", "--workdir", dir, "--limit-memory", "16MiB", "--limit-run-memory", "64MiB",
			"--limit-pids", "32", "--output-cap", "64KiB", "--"}, command...)
		if code, out, errs := runCLI(t, args...); code != 0 {
			t.Errorf("%q with sizes as the policy writes them, at the floors: exit %d: %s%s", command, code, out, errs)
		}
	}
}

// TestRunInTheOpenRefusesWhatOnlyASandboxHonours: a run in the open
// (--sandbox off, or --trusted in auto mode) has no network wall, no
// write record, no limits: an option that needs them is refused (exit
// 2), naming the conflict, not silently dropped (--egress record printed
// "egress: not recorded"). --sandbox off alone still runs, and so does
// --linger, which a run in the open honours: it lists and ends what the
// command left in its session. --trusted, which only auto mode reads, is
// refused with strict or off.
func TestRunInTheOpenRefusesWhatOnlyASandboxHonours(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--sandbox", "off", "--egress", "record"}, "run: --sandbox off runs the command in the open, which cannot honour --egress: only a sandbox walls and records the network"},
		{[]string{"--sandbox", "off", "--egress", "deny"}, "cannot honour --egress"},
		{[]string{"--sandbox", "off", "--strict-fs"}, "cannot honour --strict-fs"},
		{[]string{"--sandbox", "off", "--writes", "copy"}, "cannot honour --writes"},
		{[]string{"--sandbox", "off", "--limit-pids", "64"}, "cannot honour --limit-pids"},
		{[]string{"--sandbox", "off", "--linger", "2s", "--limit-memory", "1GiB"}, "cannot honour --limit-memory: only a sandbox"},
		{[]string{"--trusted", "--egress", "record"}, "run: --trusted in auto mode runs the command in the open, which cannot honour --egress"},
		// --trusted changes only what auto mode does: with strict or
		// off it was taken and ignored.
		{[]string{"--trusted", "--sandbox", "strict"}, "run: --trusted changes only what auto mode does (trusted code runs in the open there), and --sandbox strict confines every command, trusted or not: leave --trusted out, or use --sandbox auto"},
		{[]string{"--sandbox", "off", "--trusted"}, "--sandbox off runs every command in the open, trusted or not"},
	} {
		code, out, errs := runCLI(t, append(append([]string{"run", "--json", "--workdir", dir}, tc.args...), "--", "true")...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d (want 2), stdout %q, stderr %q; want it to say %q", tc.args, code, out, errs, tc.want)
		}
	}
	for _, args := range [][]string{{"--sandbox", "off"}, {"--sandbox", "off", "--timeout", "5s", "--output-cap", "1KiB"}} {
		if code, out, errs := runCLI(t, append(append([]string{"run", "--json", "--workdir", dir}, args...), "--", "true")...); code != 0 ||
			!strings.Contains(out, `"tier": "direct"`) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want a direct run", args, code, out, errs)
		}
	}
	// A trusted command that leaves a process is a direct run that lists
	// it: it outlives the linger and is ended then. The command exits once
	// its sleep has exec'd: listed while it execs, the child shows as
	// ["sh"], and a loaded machine can take longer than the linger to
	// exec it.
	code, out, errs := runCLI(t, "run", "--json", "--workdir", dir, "--trusted", "--linger", "200ms", "--", "sh", "-c",
		`sleep 30 & p=$!; until [ "$(tr '\0' ' ' </proc/$p/cmdline)" = "sleep 30 " ]; do sleep 0.01; done; exit 0`)
	if code != 0 || !strings.Contains(out, `"tier": "direct"`) || !strings.Contains(out, " sleep 30\"") {
		t.Errorf("--trusted --linger 200ms of a command that leaves a sleep: exit %d, stdout %q, stderr %q; want a direct run that lists the sleep", code, out, errs)
	}
}

// TestRootSandboxIsForRootCallers: --root-sandbox, "only for root
// callers", is refused (exit 2) from any other caller, by run, test and
// audit alike; it was taken and ignored.
func TestRootSandboxIsForRootCallers(t *testing.T) {
	old := geteuid
	t.Cleanup(func() { geteuid = old })
	geteuid = func() int { return 1000 }
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "--root-sandbox", "--workdir", dir, "--", "true"},
		{"test", "--root-sandbox", "--dir", dir},
		{"audit", "--root-sandbox", "--dir", dir},
	} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--root-sandbox is only for root callers, and this one is uid 1000") {
			t.Errorf("%q as uid 1000: exit %d (want 2), stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestRunMemoryIsForRootCallers: --limit-run-memory, held by a memory
// cgroup that only a root caller's run gets, is refused (exit 2) from any
// other caller; it was taken and did nothing.
func TestRunMemoryIsForRootCallers(t *testing.T) {
	old := geteuid
	t.Cleanup(func() { geteuid = old })
	geteuid = func() int { return 1000 }
	code, out, errs := runCLI(t, "run", "--limit-run-memory", "64MiB", "--workdir", t.TempDir(), "--", "true")
	if code != 2 || out != "" || !strings.Contains(errs, "--limit-run-memory is held by a memory cgroup, which vigiles makes for root callers only, and this one is uid 1000") {
		t.Errorf("as uid 1000: exit %d (want 2), stdout %q, stderr %q", code, out, errs)
	}
}

// TestRunRefusalSaidOnce: a refused run says why once, on one line, and
// exits 125.
func TestRunRefusalSaidOnce(t *testing.T) {
	hostprog.SetDirsForTest(t, t.TempDir()) // no bubblewrap: refused before anything starts
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

// TestBuildEnvUnsetNames: --env NAME of a variable not set passes nothing
// (docker run -e NAME does the same); one set empty passes NAME=. An
// --env-secret NAME not set is a mistake, exit 2: a misspelt secret's name
// would reach the command as set and empty.
func TestBuildEnvUnsetNames(t *testing.T) {
	env := map[string]string{"SET": "v", "EMPTY": "", "MY_TOKEN": "s3cret", "EMPTY_TOKEN": ""}
	getenv := func(k string) string { return env[k] }
	defer func(l func(string) (string, bool)) { lookupEnv = l }(lookupEnv)
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got, err := buildEnv([]string{"SET", "EMPTY", "UNSET", "X=1"}, []string{"MY_TOKEN", "EMPTY_TOKEN"}, getenv)
	if want := []string{"SET=v", "EMPTY=", "X=1", "MY_TOKEN=s3cret", "EMPTY_TOKEN="}; err != nil || !slices.Equal(got, want) {
		t.Errorf("buildEnv = %q, %v; want %q", got, err, want)
	}
	if _, err := buildEnv(nil, []string{"MY_TOKN"}, getenv); err == nil || !strings.Contains(err.Error(), "--env-secret MY_TOKN: MY_TOKN is not set") {
		t.Errorf("an unset --env-secret: %v, want it named", err)
	}
}

// TestBuildEnvRefusesNoVariableName: a name a check's env refuses as no
// variable name (a space, a leading digit) is refused by --env and
// --env-secret too, in the same words: exit 2, not passed through.
func TestBuildEnvRefusesNoVariableName(t *testing.T) {
	getenv := func(k string) string { return "v" }
	for _, c := range []struct {
		envs, secrets []string
		want          string
	}{
		{[]string{"A B=x"}, nil, `--env "A B=x": "A B" is no variable name: want letters, digits and _, not starting with a digit`},
		{[]string{"1X=y"}, nil, `--env "1X=y": "1X" is no variable name`},
		{[]string{"A-B"}, nil, `--env "A-B": "A-B" is no variable name`},
		{nil, []string{"1_TOKEN"}, `--env-secret "1_TOKEN": "1_TOKEN" is no variable name`},
	} {
		if got, err := buildEnv(c.envs, c.secrets, getenv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: %q, %v; want %q", c.envs, c.secrets, got, err, c.want)
		}
	}
	if code, _, errs := runCLI(t, "run", "--env", "A B=x", "--env", "1X=y", "--", "env"); code != 2 || !strings.Contains(errs, `"A B" is no variable name`) {
		t.Errorf("vigiles run --env 'A B=x': exit %d, stderr %q; want 2 and the name refused", code, errs)
	}
}

// TestAuditTextNamesTheDeadlinesProcesses: a run that timed out was ended
// with the processes it started, which ran beside it at the deadline; the
// inventory says so, not that they outlived the hook (the review found
// `outlived the hook꞉ 12 sleep 30` under a run cut off at its deadline).
func TestAuditTextNamesTheDeadlinesProcesses(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass, Runs: []report.HookRun{
		{ID: "a", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeError, TimedOut: true, Lingered: []string{"12 sleep 30"}},
		{ID: "b", Plugin: "p", Event: "Stop", Tier: "confined", Outcome: report.OutcomeAllowed, Lingered: []string{"13 sleep 31"}},
	}}
	var b strings.Builder
	writeAuditText(&b, rep, "PASS", "")
	out := b.String()
	if !strings.Contains(out, "running at the deadline"+labelColon+" 12 sleep 30") {
		t.Errorf("the timed-out run's processes are not said to be running at its deadline:\n%s", out)
	}
	if !strings.Contains(out, "outlived the hook"+labelColon+" 13 sleep 31") || strings.Contains(out, "outlived the hook"+labelColon+" 12") {
		t.Errorf("want only the run that ended on its own to have processes that outlived it:\n%s", out)
	}
}
