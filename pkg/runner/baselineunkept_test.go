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

// TestUpdateBaselineKeepsNoRunVigilesMadeOfIt: --update-baseline writes
// nothing where a run was refused, failed, hit a limit of the sandbox or
// was ended sooner than Claude Code would end it: its outcome and record
// are vigiles', not the hook's. A baseline of a failed guard ("outcome":
// "error", nothing recorded) let a later audit pass the guard turned
// into a hook that times out at its own timeout (outcome error, as
// accepted) and so lets every call through; one of a guard a memory
// limit killed accepted "allowed". The report is still made, the error
// names the run, and a baseline that was there is left as it was.
func TestUpdateBaselineKeepsNoRunVigilesMadeOfIt(t *testing.T) {
	const guard = `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard", "timeout": 5}]}]}}`
	const id = "plugins/g/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash"
	confined := func(res sandbox.Result) *runnertest.Canned {
		return &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
			r := res
			if r.Tier == "" {
				r.Tier = sandbox.TierConfined
			}
			if r.Tier == sandbox.TierConfined && r.Error == "" {
				r.Writes, r.Egress = []evidence.Write{}, []evidence.Egress{}
			}
			return &r, nil
		}}
	}
	for _, tc := range []struct {
		name, defaults string
		exec           *runnertest.Canned
		says           string
	}{
		{"refused", "", confined(sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}), RuleRunRefused},
		{"failed", "", confined(sandbox.Result{ExitCode: 125, Error: "reading the write record: cut"}), RuleRunFailed},
		{"a limit", "", confined(sandbox.Result{ExitCode: 137, Signal: "SIGKILL", LimitHit: "memory"}), RuleRunLimit + " memory"},
		{"cut short", "defaults: {timeout: 2s}\n", confined(sandbox.Result{TimedOut: true, ExitCode: 137}), "cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".vigiles.yml":               "plugins:\n  untrusted: [\"plugins/*\"]\n" + tc.defaults,
				"plugins/g/hooks/hooks.json": guard,
			})
			const base = ".vigiles/baseline.json"
			ctx := context.Background()
			rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: tc.exec})
			if err == nil || !strings.Contains(err.Error(), "the baseline was not written") || !strings.Contains(err.Error(), id+" "+tc.says) || rep == nil {
				t.Fatalf("update from a run vigiles made: err %v, report %v", err, rep != nil)
			}
			if rep.Verdict != report.VerdictError {
				// A run cut short is a warning: the verdict says the
				// update failed, as the exit status does.
				t.Errorf("verdict %s of an update that wrote no baseline, want error", rep.Verdict)
			}
			if _, err := os.Stat(filepath.Join(dir, base)); !os.IsNotExist(err) {
				t.Fatalf("a baseline was written: %v", err)
			}

			// A baseline of the guard as it is: a failed update leaves it.
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: confined(sandbox.Result{ExitCode: 2, Stderr: "no"})}); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(filepath.Join(dir, base))
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: tc.exec}); err == nil {
				t.Fatal("the second update from a run vigiles made: no error")
			}
			if after, _ := os.ReadFile(filepath.Join(dir, base)); string(after) != string(before) {
				t.Fatalf("a failed update changed the baseline:\n%s", after)
			}
			// The guard now times out at its own timeout: the call goes
			// on, which the baseline did not accept.
			rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: confined(sandbox.Result{TimedOut: true, ExitCode: 137})})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Verdict == report.VerdictPass || !hasFinding(rep.Findings, RuleDriftPrefix+DriftOutcome, "") {
				t.Errorf("a guard that now times out: verdict %s:\n%s", rep.Verdict, findingLines(rep.Findings))
			}
		})
	}
}

// TestUpdateBaselineUnkeptSaysEachOnceAndHow: the error of an update that
// keeps no baseline says what to do before it lists the runs (the job
// summary keeps the first 500 characters), counts those past the first
// five once ("and 2 more"; it said it twice), names why for a run whose
// id is clipped (the clip took the why with it), and tells how a hook
// that always runs to Claude Code's timeout is accepted: a
// defaults.timeout as long as Claude Code waits (it said only one the
// hook finishes within, which such a hook never does).
func TestUpdateBaselineUnkeptSaysEachOnceAndHow(t *testing.T) {
	const guard = `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "guard"}]}]}}`
	long := "0" + strings.Repeat("l", 90) // sorts first: shown
	files := map[string]string{".vigiles.yml": "plugins:\n  untrusted: [\"plugins/*\"]\n"}
	for _, p := range []string{"a", "b", "c", "d", "e", "f", long} {
		files["plugins/"+p+"/hooks/hooks.json"] = guard
	}
	dir := makeTree(t, files)
	refused := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierRefused, ExitCode: 125, Refusal: "no confinement"}, nil
	}}
	_, err := Audit(context.Background(), Options{Dir: dir, Baseline: ".vigiles/baseline.json", UpdateBaseline: true, Executor: refused})
	if err == nil {
		t.Fatal("an update from refused runs: no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "and 2 more"); n != 1 || strings.Contains(msg, "more and") {
		t.Errorf("the runs past five are counted %d times, want once as \"and 2 more\":\n%s", n, msg)
	}
	if !strings.Contains(msg, "bytes more) "+RuleRunRefused) {
		t.Errorf("the clipped id lost its why:\n%s", msg)
	}
	if !strings.Contains(msg, "as long as Claude Code waits for the hook") {
		t.Errorf("no way to accept a hook that runs to its timeout:\n%s", msg)
	}
	if fix, first := strings.Index(msg, "make them run whole"), strings.Index(msg, "plugins/"); fix < 0 || first < fix {
		t.Errorf("what to do is not said before the runs:\n%s", msg)
	}
}

// TestInterruptedUpdateKeepsDriftErrors: an update that is interrupted
// writes no baseline, so what it found of the runs that finished stays
// what it is without --update-baseline: a new host an error, not the
// notice of one the baseline now accepts (it was made a notice, as for
// an update that wrote the baseline).
func TestInterruptedUpdateKeepsDriftErrors(t *testing.T) {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	dir := makeTree(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json": stop("true"),
		"plugins/b-slow/hooks/hooks.json": stop("sleep 86400"),
	})
	const base = ".vigiles/baseline.json"
	whole := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	if _, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: whole}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, base))
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			cancel(sigterm{})
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{},
			Egress: []evidence.Egress{{Host: "new.example.test", Via: evidence.ViaDNS, Attempts: 1}}}, nil
	})
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: exec, Jobs: 1})
	if err == nil || rep == nil {
		t.Fatalf("an interrupted update: err %v, report %v", err, rep != nil)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, base)); string(after) != string(before) {
		t.Fatalf("an interrupted update changed the baseline:\n%s", after)
	}
	found := false
	for _, f := range rep.Findings {
		if f.Rule == RuleDriftPrefix+DriftHost {
			found = true
			if f.Severity != report.SeverityError {
				t.Errorf("a new host in an update that wrote nothing: %s, want error: %s", f.Severity, f.Message)
			}
		}
	}
	if !found {
		t.Errorf("no new host found:\n%s", findingLines(rep.Findings))
	}
}
