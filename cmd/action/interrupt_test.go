package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/procwait"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// hangOnSleep runs a command that holds "sleep" until its context is
// cancelled, calling cancel (which cancels it, as a SIGTERM would) once
// it has started; any other command ends at once, allowed.
func hangOnSleep(cancel func()) runner.ExecutorFunc {
	return func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}
}

const slowStop = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 86400"}]}]}}`

// TestInterruptedAuditWritesItsReport: an audit (or test) interrupted by
// SIGINT or SIGTERM still writes the report in the format asked for, to
// --output: the finished runs as they ran, the one running marked
// interrupted, verdict error; it exits 125, and the progress names the
// run that was running. Every message names the signal (they said
// "context canceled", five times), and the progress line of the stopped
// run gives the time it ran, as the report does (it said 0 ms).
func TestInterruptedAuditWritesItsReport(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"plugins/b-slow/hooks/hooks.json": slowStop,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: a-fast, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: b, hook: b-slow, event: Stop, expect: {allowed: true}}\n",
	})
	for _, command := range []string{"audit", "test"} {
		for _, format := range []string{"json", "sarif", "text"} {
			t.Run(command+"/"+format, func(t *testing.T) {
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				const ran = 150 * time.Millisecond
				withExecutor(t, hangOnSleep(func() {
					time.Sleep(ran)
					cancel(signalCause{syscall.SIGTERM}) // as main's signalContext does
				}))
				out := filepath.Join(t.TempDir(), "report."+format)
				args := []string{command, "--dir", dir, "--jobs", "1", "--format", format, "-o", out}
				if command == "audit" {
					args = append(args, "--baseline", "")
				}
				var stdout, stderr bytes.Buffer
				err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
				code := exitCode(err, &stderr, false)
				if code != 125 {
					t.Errorf("exit %d; want 125 (interrupted)\n%s", code, stderr.String())
				}
				name := "plugins/b-slow/hooks/hooks.json" // where an audit's run is declared
				if command == "test" {
					name = "check b"
				}
				if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), name) {
					t.Errorf("stderr does not name the run that was running:\n%s", stderr.String())
				}
				b, rerr := os.ReadFile(out)
				if rerr != nil {
					t.Fatalf("no report written: %v", rerr)
				}
				text := string(b)
				// The signal, named; never "context canceled".
				plain := strings.ReplaceAll(stderr.String(), annotate.Colon, ":")
				// The command named once: "audit: interrupted", not "audit: audit interrupted".
				for _, want := range []string{"vigiles: interrupted (SIGTERM): stopping the 1 run(s) still running",
					"vigiles: " + command + ": interrupted (SIGTERM)\n"} {
					if !strings.Contains(plain, want) {
						t.Errorf("stderr lacks %q:\n%s", want, plain)
					}
				}
				if strings.Contains(plain, command+": "+command) {
					t.Errorf("stderr names the command twice:\n%s", plain)
				}
				if strings.Contains(plain+text, "context canceled") || strings.Count(text, "SIGTERM") < 2 {
					t.Errorf("the messages do not name the signal (report: %d SIGTERM):\n%s%s", strings.Count(text, "SIGTERM"), plain, text)
				}
				// The stopped run's progress line: the time it ran.
				m := regexp.MustCompile(`\[2/2\] (?:b-slow Stop at plugins/b-slow/hooks/hooks\.json:\d+:\d+|check b): error \([^,]*, ([^)]+)\)`).FindStringSubmatch(plain)
				if m == nil {
					t.Fatalf("no progress line of the stopped run:\n%s", plain)
				}
				if shown, err := time.ParseDuration(m[1]); err != nil || shown < ran {
					t.Errorf("the stopped run's progress line says %s; it ran %v:\n%s", m[1], ran, plain)
				}
				switch format {
				case "json":
					var rep report.Report
					if err := json.Unmarshal(b, &rep); err != nil {
						t.Fatal(err)
					}
					if rep.Verdict != report.VerdictError || len(rep.Runs) != 2 {
						t.Errorf("verdict %s, %d runs; want error and both runs", rep.Verdict, len(rep.Runs))
					}
					for _, r := range rep.Runs {
						if r.Plugin == "b-slow" && (r.Outcome != report.OutcomeError || !strings.Contains(r.Reason, "interrupted (SIGTERM)")) {
							t.Errorf("the interrupted run: %s (%s)", r.Outcome, r.Reason)
						}
						if d := time.Duration(r.DurationMs * float64(time.Millisecond)); r.Plugin == "b-slow" && d < time.Second && d.Round(time.Millisecond).String() != m[1] {
							t.Errorf("the stopped run took %.0f ms in the report, %s in its progress line", r.DurationMs, m[1])
						}
						if r.Plugin == "a-fast" && r.Outcome != report.OutcomeAllowed {
							t.Errorf("the finished run: %s (%s); want as it ran", r.Outcome, r.Reason)
						}
					}
				case "sarif":
					if !strings.Contains(text, runner.RuleRunInterrupted) || !strings.Contains(text, "b-slow") {
						t.Errorf("the SARIF does not hold the interruption:\n%s", text)
					}
				default:
					if !strings.Contains(text, "ERROR") || !strings.Contains(text, runner.RuleRunInterrupted) {
						t.Errorf("the text report does not say the interruption:\n%s", text)
					}
				}
			})
		}
	}
}

// TestInterruptedActionReports: the action, interrupted, still writes its
// JSON report, the SARIF, the job summary and the step outputs (verdict
// error), and exits 125.
func TestInterruptedActionReports(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit", "sarif": "vigiles.sarif", "check-run": "false"})
	slow := filepath.Join(s.env["GITHUB_WORKSPACE"], "plugins/slow/hooks/hooks.json")
	if err := os.MkdirAll(filepath.Dir(slow), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(slow, []byte(slowStop), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, executor: hangOnSleep(cancel), httpClient: s.srv.Client()}
	err := runActionWith(ctx, nil, getenv, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 125 {
		t.Errorf("exit %d; want 125\n%s%s", code, s.stdout.String(), s.stderr.String())
	}
	outs := outputs(t, s.file(t, "GITHUB_OUTPUT"))
	if outs["verdict"] != report.VerdictError || outs["report"] == "" {
		t.Errorf("outputs %v; want verdict error and the report", outs)
	}
	b, err := os.ReadFile(outs["report"])
	if err != nil || !strings.Contains(string(b), runner.RuleRunInterrupted) {
		t.Errorf("the JSON report (%v) does not hold the interruption", err)
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "interrupted") {
		t.Errorf("the job summary does not say the interruption:\n%s", sum)
	}
	if b, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "vigiles.sarif")); err != nil || !strings.Contains(string(b), runner.RuleRunInterrupted) {
		t.Errorf("the SARIF (%v) does not hold the interruption", err)
	}
	if !strings.Contains(s.stderr.String(), "plugins/slow/hooks/hooks.json") {
		t.Errorf("the log does not name the run that was running:\n%s", s.stderr.String())
	}
}

// TestProgressNamesTheRunsStillRunning: vigiles test and audit say on
// stderr, before any run ends, how many runs are planned and how many run
// at once, and while a slow hook runs a line names it and how long it has
// run, before its own line when it ends; a hostile plugin directory in
// those lines is escaped as in every progress line (no workflow command,
// nothing a problem matcher reads). A hook that slept said nothing until
// it ended. The slow hook ends only once a heartbeat written after its
// command started has named it, not after a time the heartbeat may not
// have fired in on a loaded machine.
func TestProgressNamesTheRunsStillRunning(t *testing.T) {
	old := runner.ProgressInterval
	runner.ProgressInterval = 100 * time.Millisecond
	t.Cleanup(func() { runner.ProgressInterval = old })
	const slowDir = "b-slow\n::error::forged ##[error]x main.go:1:1: approved"
	dir := writeFiles(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json":          `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"plugins/" + slowDir + "/hooks/hooks.json": slowStop,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: a-fast, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: " + strconv.Quote(slowDir) + ", hook: " + strconv.Quote(slowDir) + ", event: Stop, expect: {allowed: true}}\n",
	})
	var stderr *runnertest.Progress
	withExecutor(t, runner.ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			// The run is running before its command starts: the next
			// heartbeat names it. Past the hang bound it ends all the
			// same, and the test says what no heartbeat said.
			beat := func(l string) bool {
				return strings.HasPrefix(strings.ReplaceAll(l, annotate.Colon, ":"), "vigiles: 1 run(s) still running: ")
			}
			if !stderr.Await(ctx, stderr.Lines(), beat) && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	}))
	for _, command := range []string{"test", "audit"} {
		t.Run(command, func(t *testing.T) {
			stderr = &runnertest.Progress{}
			var stdout bytes.Buffer
			err := run(context.Background(), []string{command, "--dir", dir, "--jobs", "1", "--format", "json"}, func(string) string { return "" }, strings.NewReader(""), &stdout, stderr)
			code := exitCode(err, stderr, false)
			errs := stderr.String()
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			plain := strings.ReplaceAll(errs, annotate.Colon, ":")
			lines := strings.Split(strings.TrimSuffix(plain, "\n"), "\n")
			if want := "vigiles: 2 hook run(s) planned, 1 at a time"; lines[0] != want {
				t.Errorf("stderr starts %q; want %q:\n%s", lines[0], want, plain)
			}
			// The run is named alike in both: a check's by the check, an
			// audit's by its plugin, event and declaration.
			const shown = `b-slow\u000a::error::forged #·#[error]x main.go:1:1: approved`
			name := `check "` + shown + `"`
			if command == "audit" {
				name = `"` + shown + `" Stop at "plugins/` + shown + `/hooks/hooks.json":1:63`
			}
			beat, ended := -1, -1
			for i, l := range lines {
				switch {
				case beat < 0 && strings.HasPrefix(l, "vigiles: 1 run(s) still running: "+name+" (for "):
					beat = i
					if !strings.HasSuffix(l, "; 1 of 2 finished, 0 not started") {
						t.Errorf("the heartbeat %q does not say how far the work got", l)
					}
				case strings.HasPrefix(l, "vigiles: [2/2] "+name+": allowed ("):
					ended = i
				}
			}
			if beat < 0 || ended < 0 || beat > ended {
				t.Errorf("want a line naming the slow run still running before its own line (at %d, %d):\n%s", beat, ended, plain)
			}
			for _, l := range strings.Split(strings.TrimSuffix(errs, "\n"), "\n") {
				if !strings.HasPrefix(l, "vigiles: ") {
					t.Errorf("a progress line without its prefix: %q", l)
				}
			}
			if cmds := annotatetest.Commands(errs); len(cmds) != 0 {
				t.Errorf("the progress issues workflow commands: %+v\n%s", cmds, errs)
			}
			wantNoIssues(t, "progress", errs)
		})
	}
}

// TestAuditUnreadablePolicyExits2: vigiles audit without --config refuses
// a .vigiles.yml it cannot read, as vigiles test does: exit 2 with the
// reason.
func TestAuditUnreadablePolicyExits2(t *testing.T) {
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`})
	if err := os.Mkdir(filepath.Join(dir, ".vigiles.yml"), 0o755); err != nil {
		t.Fatal(err)
	}
	withExecutor(t, fixedHooks())
	for _, command := range []string{"audit", "test"} {
		code, _, stderr := runCLI(t, command, "--dir", dir, "-q")
		if code != 2 || !strings.Contains(stderr, ".vigiles.yml") || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s: exit %d, %q; want 2 and the reason", command, code, stderr)
		}
	}
}

// TestMaxRunsFlag: --max-runs bounds the runs; over it nothing runs and
// the report says plan/too-many-runs (exit 125); it must be at least 1.
func TestMaxRunsFlag(t *testing.T) {
	dir := writeFiles(t, map[string]string{".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}, {"type": "command", "command": "true x"}]}]}}`})
	withExecutor(t, fixedHooks())
	code, stdout, stderr := runCLI(t, "audit", "--dir", dir, "--baseline", "", "--max-runs", "1", "-q")
	if code != 125 || !strings.Contains(stdout, runner.RuleTooManyRuns) || !strings.Contains(stdout, "--max-runs") {
		t.Errorf("over --max-runs: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr = runCLI(t, "audit", "--dir", dir, "--baseline", "", "--max-runs", "2", "-q"); code != 0 {
		t.Errorf("within --max-runs: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, stderr = runCLI(t, "audit", "--dir", dir, "--max-runs", "0"); code != 2 || !strings.Contains(stderr, "--max-runs") {
		t.Errorf("--max-runs 0: exit %d %q; want 2", code, stderr)
	}
}

// TestSignalContextNamesTheSignal: the context main runs the work with is
// cancelled by the first SIGINT or SIGTERM, with the signal as its cause
// (what the messages say), still a context.Canceled; its stop releases
// the signals.
func TestSignalContextNamesTheSignal(t *testing.T) {
	ctx, stop := signalContext(syscall.SIGUSR1)
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(2 * time.Minute): // a bound on a hang, not a measure
		t.Fatal("the signal did not cancel the context")
	}
	cause := context.Cause(ctx)
	if cause == nil || cause.Error() != "SIGUSR1" || !errors.Is(cause, context.Canceled) || !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("cause %v (context.Canceled: %v); want SIGUSR1, a context.Canceled", cause, errors.Is(cause, context.Canceled))
	}
	if got := fmt.Sprintf("audit interrupted (%v)", cause); got != "audit interrupted (SIGUSR1)" {
		t.Errorf("said as %q", got)
	}
	ctx2, stop2 := signalContext(syscall.SIGUSR1)
	stop2()
	if context.Cause(ctx2) != context.Canceled {
		t.Errorf("stopped without a signal: cause %v, want context.Canceled", context.Cause(ctx2))
	}
}

// TestRunInterruptedNamesTheSignal: vigiles run stopped by a signal says
// which ("interrupted (SIGTERM)"), confined or in the open; it said
// "failed: context canceled", or only "context canceled".
func TestRunInterruptedNamesTheSignal(t *testing.T) {
	modes := []string{"off"}
	if sandbox.ProbeConfinement(context.Background()).Confine == sandbox.Available {
		modes = append(modes, "strict")
	} else if os.Getenv("CI") == "true" {
		t.Fatal("CI=true and this host cannot confine")
	}
	for _, mode := range modes {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(300*time.Millisecond, func() { cancel(signalCause{syscall.SIGTERM}) })
		var stdout, stderr bytes.Buffer
		err := run(ctx, []string{"run", "--sandbox", mode, "--workdir", t.TempDir(), "--", "sleep", "30"},
			func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
		code := exitCode(err, &stderr, false)
		plain := strings.ReplaceAll(stderr.String(), annotate.Colon, ":")
		if code != 125 || !strings.Contains(plain, "interrupted (SIGTERM)") || strings.Contains(plain, "context canceled") {
			t.Errorf("--sandbox %s: exit %d (want 125), stderr %q; want the signal named", mode, code, plain)
		}
		cancel(nil)
	}
}

// slowConnector stands in, in the broker, for a connector still coming
// up when the signal comes (pasta polls for its pid file for up to
// seconds): its Attach is where the signal cancels the run, and it fails
// as pasta then does, with the context's error. The init keeps the real
// egress layer (it is another process, wired by TestMain).
type slowConnector struct{ cancel context.CancelCauseFunc }

func (slowConnector) Setup(context.Context, evidence.EgressPolicy) (sandbox.NetSession, error) {
	return nil, errors.New("not in the broker")
}

func (slowConnector) Sweep() {}

func (slowConnector) Connector(evidence.EgressPolicy) (string, bool, error) {
	return "pasta", false, nil
}

func (c slowConnector) Attach(ctx context.Context, _ evidence.EgressPolicy, _ int, _, _ *os.File, _ func(*exec.Cmd) (func(), error)) (io.Closer, error) {
	c.cancel(signalCause{syscall.SIGINT})
	return nil, fmt.Errorf("egress allow: pasta not ready (): %w", ctx.Err())
}

// TestRunInterruptedWhileTheConnectorComesUp: vigiles run --json
// interrupted while pasta came up says "interrupted (SIGINT)", as at any
// other moment. It said tier "refused", refusal "attaching the network:
// egress allow: pasta not ready (): context canceled", as if the host
// could not run allow mode.
func TestRunInterruptedWhileTheConnectorComesUp(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sandbox.SetNetwork(slowConnector{cancel})
	defer wireNetwork()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"run", "--json", "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--workdir", t.TempDir(), "--", "echo", "ran"},
		func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
	if code := exitCode(err, &stderr, false); code != 125 {
		t.Errorf("exit %d, want 125 (stderr %q)", code, stderr.String())
	}
	var res sandbox.Result
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("result %q: %v", stdout.String(), err)
	}
	if res.Tier != sandbox.TierConfined || res.Refusal != "" || res.Error != "interrupted (SIGINT)" || res.Stdout != "" {
		t.Errorf("tier %q, refusal %q, error %q, stdout %q; want confined, no refusal, error \"interrupted (SIGINT)\", the command not run",
			res.Tier, res.Refusal, res.Error, res.Stdout)
	}
}

// TestDenyRunClearsAKilledPastaStart: what a broker killed while pasta
// came up left in TMPDIR (the dead sandbox's namespaces, bound in a
// vigiles-pasta-ns… directory) is cleared by the next run, a deny-mode
// one too. Only a run that started pasta cleared it, so under deny-mode
// or slirp4netns runs the namespaces stayed until the reboot.
func TestDenyRunClearsAKilledPastaStart(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and not root: the test binds namespaces as a killed broker's pasta start does")
		}
		t.Skip("needs root, to bind namespaces as a killed broker's pasta start does")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dead := filepath.Join(tmp, fmt.Sprintf("vigiles-pasta-ns%d-999999999-5-123", procwait.SelfPidNS()))
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"user", "net"} {
		p := filepath.Join(dead, name)
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount("/proc/self/ns/"+name, p, "", unix.MS_BIND, ""); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Unmount(p, unix.MNT_DETACH) })
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"run", "--egress", "deny", "--workdir", t.TempDir(), "--", "true"},
		func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
	if code := exitCode(err, &stderr, false); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), dead+"/") {
		t.Errorf("the killed broker's namespaces are still bound after a deny-mode run")
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the killed broker's directory was left: %v", err)
	}
}

// TestInterruptSignalsTakeSIGHUP: a closed terminal or ssh session
// (SIGHUP) interrupts an audit as SIGINT does, so its partial report is
// written; under nohup, which ignores SIGHUP, it stays ignored.
func TestInterruptSignalsTakeSIGHUP(t *testing.T) {
	if alreadyIgnored(t, syscall.SIGHUP, "nohup") {
		// Only the ignored case can be checked.
	} else if !slices.Contains(interruptSignals(), os.Signal(syscall.SIGHUP)) {
		t.Errorf("SIGHUP does not interrupt: %v", interruptSignals())
	}
	signal.Ignore(syscall.SIGHUP)
	defer signal.Reset(syscall.SIGHUP)
	if slices.Contains(interruptSignals(), os.Signal(syscall.SIGHUP)) {
		t.Errorf("an ignored SIGHUP is taken: %v", interruptSignals())
	}
}

// ignoredAtStart holds whether this test binary started with SIGHUP
// and SIGINT ignored, read before any test ignores one: signal.Reset does
// not clear what signal.Ignored reports (Go issue 46321), so a later run
// of a test (go test -count=2) finds a signal ignored that the binary
// started with taken.
var ignoredAtStart = map[syscall.Signal]bool{
	syscall.SIGHUP: signal.Ignored(syscall.SIGHUP),
	syscall.SIGINT: signal.Ignored(syscall.SIGINT),
}

// alreadyIgnored says whether sig is ignored in this process before the
// test ignores it, where only the ignored case can be checked: after an
// earlier run of the test, a note; where the binary started so (how, as
// by nohup), a note outside CI and a failure in it, where the case in
// which sig interrupts would go unchecked.
func alreadyIgnored(t *testing.T, sig syscall.Signal, how string) bool {
	t.Helper()
	switch {
	case !signal.Ignored(sig):
		return false
	case ignoredAtStart[sig] && os.Getenv("CI") == "true":
		t.Errorf("the test binary started with %v ignored (as by %s), so whether it interrupts cannot be checked: run the tests with it taken", sig, how)
	case ignoredAtStart[sig]:
		t.Logf("the test binary started with %v ignored (as by %s): only the ignored case is checked", sig, how)
	default:
		t.Logf("an earlier run of this test ignored %v: only the ignored case is checked", sig)
	}
	return true
}

// TestInterruptSignalsKeepAnIgnoredSIGINT: a job a non-interactive shell
// started with "&" (vigiles audit --dir a & vigiles audit --dir b &
// wait) has SIGINT ignored, so that a Ctrl-C meant for the script's
// foreground command spares it; vigiles took it all the same, and the
// Ctrl-C interrupted every audit of the script. It stays ignored, and
// SIGTERM still interrupts.
func TestInterruptSignalsKeepAnIgnoredSIGINT(t *testing.T) {
	if alreadyIgnored(t, syscall.SIGINT, "a script's & job") {
		// Only the ignored case can be checked.
	} else if !slices.Contains(interruptSignals(), os.Signal(syscall.SIGINT)) {
		t.Errorf("SIGINT does not interrupt: %v", interruptSignals())
	}
	signal.Ignore(syscall.SIGINT)
	defer signal.Reset(syscall.SIGINT)
	if sigs := interruptSignals(); slices.Contains(sigs, os.Signal(syscall.SIGINT)) || !slices.Contains(sigs, os.Signal(syscall.SIGTERM)) {
		t.Errorf("with SIGINT ignored: %v; want SIGTERM and not SIGINT", sigs)
	}
}

// TestInterruptedActionPostsNoCheckRun: a step cancelled while its hooks
// ran sends GitHub nothing, and says why as the docs do (its API calls
// would be cut short), not as an API failure of a request never sent.
func TestInterruptedActionPostsNoCheckRun(t *testing.T) {
	s := newStep(t, map[string]string{"command": "audit"})
	s.env["INPUT_GITHUB-TOKEN"] = testToken
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	canned := func(context.Context, runner.Options) (*report.Report, error) {
		cancel() // the runner's SIGINT, while the hooks ran
		return cannedReport("audit", 1, 0, 0), errors.New("audit interrupted (SIGINT)")
	}
	deps := actionDeps{test: canned, audit: canned, httpClient: s.srv.Client()}
	err := runActionWith(ctx, nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 125 {
		t.Errorf("exit %d; want 125\n%s", code, s.stderr.String())
	}
	reqs := s.api.Requests()
	if len(reqs) != 0 {
		t.Errorf("%d API requests sent after the step was cancelled", len(reqs))
	}
	log := strings.ReplaceAll(s.stdout.String(), annotate.Colon, ":")
	if !strings.Contains(log, "its API calls would be cut short") || strings.Contains(log, "context canceled") {
		t.Errorf("the log does not say why there is no check run as the docs do:\n%s", lastLines(log, 8))
	}
}

// TestInterruptedWhileReportingIsAnError: a signal that comes while the
// check run is posted, after the hooks ran, fails the step as any
// interruption does: exit 125, verdict error, and the job summary and the
// log say it was interrupted. (It exited 0 or 1 with verdict fail.)
func TestInterruptedWhileReportingIsAnError(t *testing.T) {
	s := newStep(t, map[string]string{"command": "test", "fail-level": "none"})
	s.env["INPUT_GITHUB-TOKEN"] = testToken
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancel(errors.New("SIGTERM")) // the runner's signal, while GitHub answers
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":7,"html_url":"https://ghes.example/octo/plugins/runs/7"}`)
	}))
	defer api.Close()
	s.env["GITHUB_API_URL"] = api.URL + "/api/v3"
	canned := func(context.Context, runner.Options) (*report.Report, error) {
		return cannedReport("test", 0, 1, 0), nil
	}
	deps := actionDeps{test: canned, audit: canned, httpClient: api.Client()}
	err := runActionWith(ctx, nil, func(k string) string { return s.env[k] }, &s.stdout, &s.stderr, deps)
	if code := exitCode(err, &s.stderr, true); code != 125 {
		t.Errorf("exit %d; want 125\n%s", code, s.stderr.String())
	}
	if outs := outputs(t, s.file(t, "GITHUB_OUTPUT")); outs["verdict"] != report.VerdictError {
		t.Errorf("outputs %v; want verdict error", outs)
	}
	if sum := s.file(t, "GITHUB_STEP_SUMMARY"); !strings.Contains(sum, "interrupted") {
		t.Errorf("the job summary does not say the interruption:\n%s", lastLines(sum, 8))
	}
	if !strings.Contains(s.stderr.String(), "interrupted (SIGTERM)") {
		t.Errorf("stderr does not say the interruption:\n%s", s.stderr.String())
	}
}

// TestDoctorInterruptedSaysNothingOfTheHost: a doctor a signal (Ctrl-C)
// interrupts while its probes run prints no report and exits 125, naming
// the signal. It printed "tier: refused", the probes cut short as "no
// answer within 15s" with fixes to match (sysctls to lower), and exited
// 1, as for a host that cannot confine. The signal is in before the
// probes start: one sent after a delay missed probes that answered
// sooner (a fast host, or one without bwrap, whose probes fail at once).
func TestDoctorInterruptedSaysNothingOfTheHost(t *testing.T) {
	for _, args := range [][]string{{"doctor"}, {"doctor", "--json"}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(signalCause{syscall.SIGINT})
		var stdout, stderr bytes.Buffer
		err := run(ctx, args, func(string) string { return "" }, strings.NewReader(""), &stdout, &stderr)
		code := exitCode(err, &stderr, false)
		const want = "vigiles: doctor: interrupted (SIGINT) before its probes finished, so it says nothing of this host; run vigiles doctor again\n"
		if code != 125 || stdout.Len() != 0 || strings.ReplaceAll(stderr.String(), annotate.Colon, ":") != want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 125, no report and %q", strings.Join(args, " "), code, stdout.String(), stderr.String(), want)
		}
		cancel(nil)
	}
}
