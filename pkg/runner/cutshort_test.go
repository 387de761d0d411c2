package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestEvidenceCutShortByVigilesTimeoutPassesNothing: a hook that vigiles
// ended at a timeout sooner than Claude Code's (its own capped at the
// policy's defaults.timeout, the check's own, or none of its own) may
// have phoned home or written after it: no-egress, no-write, egress-only,
// wrote-only and the output expectations do not pass on what was
// recorded before. Ended at its own timeout, as Claude Code ends it, the
// record is what Claude Code would have let it do.
func TestEvidenceCutShortByVigilesTimeoutPassesNothing(t *testing.T) {
	expect := "{no-egress: true, no-write: true, egress-only: [api.example.test], wrote-only: [notes/**], stdout-contains: SAFE, stdout-matches: '^SAFE', outcome: error}"
	for _, tc := range []struct {
		name      string
		hookTO    string // the hook's own "timeout", in seconds ("" for none)
		defaults  string
		checkTO   string
		wantNotOK bool
	}{
		{"its own timeout capped at defaults.timeout", "60", "timeout: 2s", "", true},
		{"the check's own timeout", "60", "", "timeout: 2s, ", true},
		{"no timeout of its own", "", "timeout: 2s", "", true},
		{"its own timeout, as Claude Code keeps it", "2", "", "", false},
		{"a check's timeout longer than its own", "2", "", "timeout: 5s, ", false},
		{"its own timeout, the check's as long", "5", "", "timeout: 5s, ", false},
		{"no timeout of its own, defaults.timeout past Claude Code's default", "", "timeout: 20m", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := `{"type": "command", "command": "echo SAFE; sleep 5; curl late.example.test"`
			if tc.hookTO != "" {
				handler += `, "timeout": ` + tc.hookTO
			}
			dir := makeTree(t, map[string]string{
				"plugins/p/hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [` + handler + `}]}]}}`,
				".vigiles.yml": "version: 1\ndefaults: {" + tc.defaults + "}\nchecks:\n" +
					"  - {name: slow, hook: p, event: SessionStart, " + tc.checkTO + "expect: " + expect + "}\n",
			})
			exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, Stdout: "SAFE\n",
					Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			}}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: exec})
			if err != nil {
				t.Fatal(err)
			}
			notRecorded := 0
			for _, f := range rep.Findings {
				if f.Rule == RuleNotRecorded && strings.Contains(f.Message, "sooner than Claude Code would end it") {
					notRecorded++
				}
			}
			if tc.wantNotOK && (notRecorded != 7 || rep.Verdict == report.VerdictPass) {
				t.Errorf("verdict %s, %d of 7 expectations not recorded: %v", rep.Verdict, notRecorded, findingLines(rep.Findings))
			}
			if !tc.wantNotOK && notRecorded != 0 {
				t.Errorf("%d expectations not recorded; the hook's own timeout is Claude Code's: %v", notRecorded, findingLines(rep.Findings))
			}
		})
	}
}

// TestAuditOfAKnownHookCutShort: in an audit, a run the baseline knows
// that vigiles ended sooner than Claude Code would is not compared on
// what it did until then alone: what it would have done after is an
// error (not recorded), as it is for a run the baseline does not know.
func TestAuditOfAKnownHookCutShort(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 5; curl late.example.test", "timeout": 3600}]}]}}`,
		".vigiles.yml":               "version: 1\ndefaults: {timeout: 2s}\n",
	})
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	ctx := context.Background()
	// Accepted as it ran whole (a baseline of the run cut short is not
	// written: TestUpdateBaselineKeepsNoRunVigilesMadeOfIt).
	whole := &runnertest.Canned{F: func(spec sandbox.Spec, stdin []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	}}
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: ".vigiles/baseline.json", UpdateBaseline: true, Executor: whole}); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: ".vigiles/baseline.json", Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict == report.VerdictPass || !hasFinding(rep.Findings, RuleBaselineUnproven, "sooner than Claude Code would end it") {
		t.Errorf("verdict %s: %v; want a %s error", rep.Verdict, findingLines(rep.Findings), RuleBaselineUnproven)
	}
}

// TestClaudeCodesWaitByEvent: Claude Code waits 30 s for a
// UserPromptSubmit hook, 10 s for a MessageDisplay one and at most 1.5 s
// for a SessionEnd one, when it sets no timeout of its own: a run that
// waited that long is not cut short. A check's timeout past the hook's
// own is cut to it, where Claude Code ends the hook.
func TestClaudeCodesWaitByEvent(t *testing.T) {
	for _, tc := range []struct {
		event, defaults string
		cut             bool
	}{
		{UserPromptSubmit, "45s", false},
		{UserPromptSubmit, "20s", true},
		{MessageDisplay, "10s", false},
		{SessionEnd, "2s", false},
		{Stop, "45s", true},
	} {
		d, _ := time.ParseDuration(tc.defaults)
		s := &runSettings{timeout: d}
		p := &plannedRun{Hook: &Hook{Event: tc.event, Type: TypeCommand}}
		if got := s.cutShort(p) != ""; got != tc.cut {
			t.Errorf("%s with defaults.timeout %s: cut short %v, want %v (%s)", tc.event, tc.defaults, got, tc.cut, s.cutShort(p))
		}
	}
	s := &runSettings{}
	p := &plannedRun{Hook: &Hook{Event: PreToolUse, Type: TypeCommand, Timeout: 5 * time.Second}, Timeout: time.Minute, Check: &Check{Name: "c"}}
	if got, why := s.timeoutOf(p); got != 5*time.Second || why == "" {
		t.Errorf("a check's timeout of 1m on a hook of its own 5s: waits %s (%q), want 5s and why", got, why)
	}
	// No run waits longer than Claude Code would: what a hook decides
	// after that, Claude Code never lets it decide. A command check
	// waits its own.
	for _, tc := range []struct {
		run  *plannedRun
		s    *runSettings
		want time.Duration
	}{
		{&plannedRun{Hook: &Hook{Event: UserPromptSubmit}}, &runSettings{timeout: 45 * time.Second}, 30 * time.Second},
		{&plannedRun{Hook: &Hook{Event: UserPromptSubmit}, Timeout: 2 * time.Minute, Check: &Check{Name: "c"}}, &runSettings{}, 30 * time.Second},
		{&plannedRun{Hook: &Hook{Event: SessionEnd, Timeout: 5 * time.Second}}, &runSettings{}, 5 * time.Second},
		{&plannedRun{Hook: &Hook{Event: SessionEnd}}, &runSettings{}, sandbox.DefaultTimeout},
		{&plannedRun{Hook: &Hook{Event: Stop}}, &runSettings{timeout: time.Hour}, maxHookTimeout},
		{&plannedRun{Hook: &Hook{Event: Stop}, Timeout: 2 * time.Minute, Check: &Check{Name: "c", Command: "sleep 100"}}, &runSettings{}, 2 * time.Minute},
	} {
		if got, _ := tc.s.timeoutOf(tc.run); got != tc.want {
			t.Errorf("%s (own %s, check %s, defaults %s): waits %s, want %s", tc.run.Hook.Event, tc.run.Hook.Timeout, tc.run.Timeout, tc.s.timeout, got, tc.want)
		}
	}
}

// TestEvidenceCutByASandboxLimitPassesNothing: a hook that a limit of the
// sandbox ended or bounded (its CPU time, a file's size, the scratch, the
// processes, the run's memory), which Claude Code does not impose, did not
// do what it would have done past it: with limits.cpu-seconds: 1, a hook
// that spins and then phones home dies of SIGXCPU before it does, and its
// empty record passed no-egress. Now no expectation passes on it, the
// report names the limit (limitHit, a run/limit warning), and an audit
// against a baseline cannot compare it (baseline/not-recorded). A run that
// hit no such limit, its timeout (wall-time) or a direct run that exits
// 152 is judged on its record as before, its failure a warning.
func TestEvidenceCutByASandboxLimitPassesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		res   sandbox.Result
		limit string // "" for none
	}{
		{"the hook's shell reports a child dead of SIGXCPU", sandbox.Result{ExitCode: 152}, "cpu"},
		{"the hook dead of SIGXFSZ", sandbox.Result{ExitCode: 153, Signal: "SIGXFSZ", LimitHit: "file-size"}, "file-size"},
		{"the shell reports SIGXFSZ", sandbox.Result{ExitCode: 153}, "file-size"},
		{"bash reports a child dead of SIGXFSZ, and the hook goes on", sandbox.Result{Stderr: "./h.sh: line 2:     8 File size limit exceededtruncate -s 2G \"$TMPDIR/big\" 2> /dev/null\n"}, "file-size"},
		{"dash reports a child dead of SIGXCPU, and the hook goes on", sandbox.Result{Stderr: "CPU time limit exceeded\n"}, "cpu"},
		{"zsh reports a child dead of SIGXFSZ, and the hook goes on", sandbox.Result{Stderr: "zsh:1: file size limit exceeded  truncate -s 2G big\n"}, "file-size"},
		{"the scratch full", sandbox.Result{LimitHit: "scratch"}, "scratch"},
		{"a tool says the scratch was full, emptied before the init looked", sandbox.Result{Stderr: "head: error writing 'standard output': No space left on device\n"}, "scratch"},
		{"Python says so", sandbox.Result{Stderr: "OSError: [Errno 28] No space left on device\n"}, "scratch"},
		{"the run's memory cgroup", sandbox.Result{ExitCode: 137, Signal: "SIGKILL", LimitHit: "memory"}, "memory"},
		{"processes", sandbox.Result{ExitCode: 1, LimitHit: "pids"}, "pids"},
		{"none", sandbox.Result{ExitCode: 1}, ""},
		{"a direct run exits 152", sandbox.Result{Tier: sandbox.TierDirect, ExitCode: 152}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				".vigiles.yml":                  "plugins:\n  untrusted: [\"plugins/*\"]\nchecks:\n  - {name: offline, hook: spin, event: Stop, expect: {no-egress: true, no-write: true, allowed: true}}\n",
				"plugins/spin/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "spin; phone home"}]}]}}`,
			})
			exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
				res := tc.res
				if res.Tier == "" {
					res.Tier = sandbox.TierConfined
				}
				if res.Tier == sandbox.TierConfined {
					res.Writes, res.Egress = []evidence.Write{}, []evidence.Egress{}
				}
				return &res, nil
			}}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: exec})
			if err != nil {
				t.Fatal(err)
			}
			var rules []string
			for _, f := range rep.Findings {
				rules = append(rules, f.Rule)
			}
			got := strings.Join(rules, ",")
			want := ""
			if tc.limit != "" {
				want = "expect/not-recorded,expect/not-recorded,expect/not-recorded,run/limit"
			} else if tc.res.Tier == sandbox.TierDirect {
				// A direct run records nothing; and its hook failed.
				want = "expect/not-recorded,expect/not-recorded,run/hook-error"
			} else {
				want = "run/hook-error" // it failed, which the check does not state
			}
			if got != want || rep.Runs[0].LimitHit != tc.limit {
				t.Errorf("test: findings %s, limitHit %q; want %s, %q:\n%s", got, rep.Runs[0].LimitHit, want, tc.limit, findingLines(rep.Findings))
			}
			if tc.limit == "" {
				return
			}
			const base = ".vigiles/baseline.json"
			ctx := context.Background()
			// A run that hit a limit is not kept (the update fails); the
			// baseline is of a run that did not.
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: exec}); err == nil || !strings.Contains(err.Error(), "the baseline was not written") {
				t.Fatalf("update from a run that hit a limit: %v", err)
			}
			whole := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
			}}
			if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: whole}); err != nil {
				t.Fatal(err)
			}
			rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: exec})
			if err != nil {
				t.Fatal(err)
			}
			unproven := false
			for _, f := range rep.Findings {
				unproven = unproven || f.Rule == RuleBaselineUnproven && f.Severity == report.SeverityError && strings.Contains(f.Message, "limit")
			}
			if !unproven || rep.Verdict != report.VerdictFail {
				t.Errorf("audit against its own baseline: verdict %s:\n%s", rep.Verdict, findingLines(rep.Findings))
			}
		})
	}
}

// TestCutBytes: a string past the bound is cut at a character boundary
// and says how much was left out, unless saying so makes it no shorter:
// then it is kept whole.
func TestCutBytes(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"hooks[0]@Bash", 11, "hooks[0]@Bash"},
		{long, 10, "xxxxxxxxxx… (90 bytes more)"},
		{"ééééé", 3, "ééééé"},
		{strings.Repeat("é", 20), 3, "é… (38 bytes more)"},
	} {
		if got := cutBytes(tc.s, tc.n); got != tc.want {
			t.Errorf("cutBytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestShownCutClosesItsQuote: a name shown quoted (it holds a control
// character or a line break) and cut keeps its closing quote before the
// cut's note, cut between two characters' escapes, never inside one; a
// name shown as it is is cut as any string.
func TestShownCutClosesItsQuote(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{strings.Repeat("x", 60), 10, "xxxxxxxxxx… (50 bytes more)"},
		{"a\nb", 20, `"a\nb"`},
		{"ab\ncdefghijklmnopqrstuvwxyz", 10, `"ab\ncdef"… (20 bytes more)`},
		{"abcde\x1bfghijklmnopqrstuvwxyz", 8, `"abcde"… (25 bytes more)`},
		{"abcdef\x1bghijklmnopqrstuvwxyz", 12, `"abcdef\x1b"… (20 bytes more)`},
		{"\n::error::x" + strings.Repeat("y", 40), 16, `"\n::error::xyy"… (38 bytes more)`},
	} {
		got := shownCut(tc.s, tc.n)
		if got != tc.want {
			t.Errorf("shownCut(%q, %d) = %s, want %s", tc.s, tc.n, got, tc.want)
		}
		if q := shownName(tc.s); q != tc.s && !strings.HasPrefix(got, `"`) {
			t.Errorf("shownCut(%q, %d) = %s: not quoted", tc.s, tc.n, got)
		}
	}
}
