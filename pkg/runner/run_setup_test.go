package runner

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// stopTree is a tree of three Stop hooks, a-fast, b-slow (sleep) and
// c-late, one check each.
func stopTree(t *testing.T) string {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	return makeTree(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json": stop("true"),
		"plugins/b-slow/hooks/hooks.json": stop("sleep 86400"),
		"plugins/c-late/hooks/hooks.json": stop("true"),
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: a-fast, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: b, hook: b-slow, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: c, hook: c-late, event: Stop, expect: {allowed: true}}\n",
	})
}

// TestInterruptedInSetUpIsNotRunNotRefused: a run whose sandbox was still
// being set up when vigiles was interrupted ends as the sandbox ends a
// set-up cut short, refused (its network not attached: the error wraps
// ErrRefused). It was reported with tier "refused", as if vigiles had
// declined to run it unconfined, and "interrupted: it was still running
// … after" the time its stop took. Its command never started: it is not
// run, in no tier (as a run kept from its turn), with exit code 0,
// no duration and no refusal, a reason that says it was stopped while
// its sandbox was set up, and counted among the runs not started, with
// no finding that says it was stopped running (nor run/refused).
func TestInterruptedInSetUpIsNotRunNotRefused(t *testing.T) {
	dir := stopTree(t)
	for _, command := range []string{"audit", "test"} {
		t.Run(command, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
				if !strings.Contains(strings.Join(spec.Command, " "), "sleep") {
					return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
				}
				cancel(sigterm{})
				<-ctx.Done()
				time.Sleep(50 * time.Millisecond) // the set-up torn down
				err := fmt.Errorf("%w: attaching the network: %v", sandbox.ErrRefused, ctx.Err())
				return &sandbox.Result{Tier: sandbox.TierRefused, Refusal: "attaching the network: context canceled", ExitCode: 125, Stderr: "bwrap: setting up"}, err
			})
			var progress bytes.Buffer
			o := Options{Dir: dir, Executor: exec, Jobs: 1, Progress: &progress}
			var rep *report.Report
			if command == "audit" {
				rep, _ = Audit(ctx, o)
			} else {
				rep, _ = Test(ctx, o)
			}
			if rep == nil {
				t.Fatal("no report")
			}
			var slow report.HookRun
			for _, r := range rep.Runs {
				if r.Plugin == "b-slow" {
					slow = r
				}
			}
			if slow.Tier != "" || slow.Refusal != "" || slow.ExitCode != 0 || slow.DurationMs != 0 || slow.Stderr != "" {
				t.Errorf("the run stopped in its set-up: tier %q, refusal %q, exit %d, %v ms, stderr %q; want no tier, refusal, exit code, duration or output: it never ran",
					slow.Tier, slow.Refusal, slow.ExitCode, slow.DurationMs, slow.Stderr)
			}
			if slow.Outcome != report.OutcomeError || !strings.HasPrefix(slow.Reason, "not run: vigiles was interrupted (SIGTERM) while it set up the run's sandbox") ||
				!strings.Contains(slow.Reason, "before the hook's command started") {
				t.Errorf("the run stopped in its set-up: %s (%s); want error, not run, stopped while its sandbox was set up", slow.Outcome, slow.Reason)
			}
			for _, f := range rep.Findings {
				if f.Hook == slow.ID || f.Rule == RuleRunRefused {
					t.Errorf("finding %s for the run stopped in its set-up: %s", f.Rule, f.Message)
				}
				if f.Rule == RuleRunInterrupted && f.Hook == "" && !strings.Contains(f.Message, "1 finished and are reported as they ran, 0 stopped while running, 2 not started") {
					t.Errorf("summary %q; want 1 finished, 0 stopped while running, 2 not started", f.Message)
				}
			}
			if !strings.Contains(progress.String(), "] "+progressName(slow)+": error (not run, 0s)") {
				t.Errorf("progress %q; want the run stopped in its set-up as not run, 0s", progress.String())
			}
		})
	}
}

// TestInterruptedRunSaysWhatItHadRun: the reason of a run the
// interruption stopped said "after" the time it took until its stop was
// over (a sandbox torn down after the signal), not the time it had run
// when the signal came; its durationMs is the former.
func TestInterruptedRunSaysWhatItHadRun(t *testing.T) {
	dir := stopTree(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	// stopping is long beside what a loaded machine adds to "after" (the
	// run's set-up before the executor, the signal's AfterFunc waiting to
	// be scheduled): at 400 ms those could pass ran+stopping and read as
	// the time until the stop was over.
	const ran, stopping = 100 * time.Millisecond, 3 * time.Second
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if !strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
		}
		time.Sleep(ran)
		cancel(sigterm{})
		time.Sleep(stopping)
		return &sandbox.Result{Tier: sandbox.TierConfined, Error: "interrupted (SIGTERM)", ExitCode: 125}, context.Cause(ctx)
	})
	rep, _ := Test(ctx, Options{Dir: dir, Executor: exec, Jobs: 1})
	if rep == nil {
		t.Fatal("no report")
	}
	for _, r := range rep.Runs {
		if r.Plugin != "b-slow" {
			continue
		}
		m := regexp.MustCompile(`interrupted \(SIGTERM\), after ([0-9.]+)ms, and was stopped`).FindStringSubmatch(r.Reason)
		if m == nil {
			t.Fatalf("reason %q; want interrupted (SIGTERM), after N ms", r.Reason)
		}
		after, _ := strconv.ParseFloat(m[1], 64)
		if after < float64(ran.Milliseconds()) || after >= float64((ran+stopping).Milliseconds()) {
			t.Errorf("reason says after %vms; want the %v it had run when the signal came, not the time until its stop was over", after, ran)
		}
		if r.Tier != string(sandbox.TierConfined) || r.DurationMs < float64((ran+stopping).Milliseconds()) {
			t.Errorf("tier %q, durationMs %v; want confined, the tier it ran in, and at least %v, the time until it was stopped", r.Tier, r.DurationMs, ran+stopping)
		}
	}
}
