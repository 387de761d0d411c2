package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// manyHandlers is a hooks.json of n PreToolUse handlers without a
// matcher: each runs once per default tool.
func manyHandlers(n int) string {
	hs := make([]map[string]any, n)
	for i := range hs {
		// Each its own command: Claude Code runs identical ones once.
		hs[i] = map[string]any{"type": "command", "command": fmt.Sprintf("true %d", i)}
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"hooks": hs}}}})
	return string(b)
}

// TestAuditRunBound: a plan of more runs than the bound (DefaultMaxRuns
// unless Options.MaxRuns says otherwise) starts none of them and reports
// plan/too-many-runs, verdict error, naming the bound, the file the runs
// come from and the ways out; a plan within it runs. vigiles test is held
// to the same bound.
func TestAuditRunBound(t *testing.T) {
	handlers := DefaultMaxRuns/len(DefaultTools) + 1 // just over the bound
	dir := makeTree(t, map[string]string{
		"plugins/many/.claude-plugin/plugin.json": `{"name": "many"}`,
		"plugins/many/hooks/hooks.json":           manyHandlers(handlers),
	})
	var calls atomic.Int64
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		calls.Add(1)
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}, nil
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 8})
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 0 {
		t.Fatalf("the audit started %d runs of a plan of %d, over the bound %d; want none", n, handlers*len(DefaultTools), DefaultMaxRuns)
	}
	if rep.Verdict != report.VerdictError || len(rep.Runs) != 0 {
		t.Errorf("verdict %s with %d runs; want error and no run", rep.Verdict, len(rep.Runs))
	}
	var f *report.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Rule == RuleTooManyRuns {
			f = &rep.Findings[i]
		}
	}
	if f == nil {
		t.Fatalf("no %s finding: %+v", RuleTooManyRuns, rep.Findings)
	}
	for _, want := range []string{fmt.Sprint(handlers * len(DefaultTools)), fmt.Sprint(DefaultMaxRuns), "--max-runs", "--shard", "PATHs", "plugins/many/hooks/hooks.json"} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("the finding does not say %q: %s", want, f.Message)
		}
	}
	if f.Severity != report.SeverityError || f.Location.File != "plugins/many/hooks/hooks.json" {
		t.Errorf("finding %s at %q; want an error at the hooks file", f.Severity, f.Location.File)
	}

	// Raised, the same plan runs; sharded, each part is held to it.
	calls.Store(0)
	rep, err = Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 8, MaxRuns: handlers * len(DefaultTools)})
	if err != nil || rep.Verdict == report.VerdictError || calls.Load() != int64(handlers*len(DefaultTools)) {
		t.Errorf("with the bound raised: err %v, verdict %s, %d runs; want every run", err, rep.Verdict, calls.Load())
	}
	calls.Store(0)
	rep, err = Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 8, Shard: "1/2"})
	if err != nil || rep.Verdict == report.VerdictError || calls.Load() == 0 {
		t.Errorf("shard 1/2 (within the bound): err %v, verdict %s, %d runs", err, rep.Verdict, calls.Load())
	}

	// vigiles test: checks that select more runs than the bound.
	tdir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}, {"type": "command", "command": "true x"}]}]}}`,
		".vigiles.yml":          "version: 1\nchecks:\n  - name: stops\n    hook: project\n    event: Stop\n    expect: {allowed: true}\n",
	})
	calls.Store(0)
	rep, err = Test(context.Background(), Options{Dir: tdir, Executor: exec, MaxRuns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 || rep.Verdict != report.VerdictError || !slices.Contains(rules(rep), RuleTooManyRuns) {
		t.Errorf("test over the bound: %d runs, verdict %s, findings %+v; want none run and %s", calls.Load(), rep.Verdict, rep.Findings, RuleTooManyRuns)
	}
	if got := messagesOf(rep.Findings, RuleTooManyRuns); len(got) != 1 || !strings.HasPrefix(got[0], "the checks plan 2 hook runs,") {
		t.Errorf("test over the bound: %q; want it to say the checks plan 2 hook runs", got)
	}
	if !strings.HasPrefix(f.Message, "the audit plans ") {
		t.Errorf("audit over the bound: %q; want it to say the audit plans …", f.Message)
	}
}

// hangingExecutor runs a command that holds "sleep" until its context is
// cancelled (cancelling ctx itself, through cancel, once it has started),
// and any other at once.
func hangingExecutor(cancel func()) Executor {
	return ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			cancel()
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
	})
}

// TestAuditInterruptedReportsWhatItHas: an audit or test whose context is
// cancelled (SIGINT, SIGTERM) returns its report with the error: the runs
// that finished as they ran, the one that was running marked interrupted
// (error, never a pass, with a finding that names it), those not started
// marked not run, verdict error; the progress names the run still
// running when the signal came; a baseline is not written. What it says
// of the interruption names its cause, the signal where the context's
// cause is one (it said "context canceled"), and the progress line of the
// stopped run gives the time it ran, as its record does (it said 0 ms).
func TestAuditInterruptedReportsWhatItHas(t *testing.T) {
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	dir := makeTree(t, map[string]string{
		"plugins/a-fast/hooks/hooks.json": stop("true"),
		"plugins/b-slow/hooks/hooks.json": stop("sleep 86400"),
		"plugins/c-late/hooks/hooks.json": stop("true"),
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: a, hook: a-fast, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: b, hook: b-slow, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: c, hook: c-late, event: Stop, expect: {allowed: true}}\n",
	})
	for _, command := range []string{"audit", "test"} {
		t.Run(command, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			const ran = 100 * time.Millisecond
			var progress bytes.Buffer
			o := Options{Dir: dir, Executor: hangingExecutor(func() {
				time.Sleep(ran)
				cancel(sigterm{}) // as vigiles' signal handling cancels
			}), Jobs: 1, Progress: &progress}
			var rep *report.Report
			var err error
			if command == "audit" {
				o.Baseline, o.UpdateBaseline = ".vigiles/baseline.json", true
				rep, err = Audit(ctx, o)
			} else {
				rep, err = Test(ctx, o)
			}
			if err == nil || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), command+" interrupted (SIGTERM)") {
				t.Errorf("err = %v; want it to say interrupted (SIGTERM)", err)
			}
			if rep == nil {
				t.Fatal("no report: an interrupted run must hand back what it has")
			}
			if rep.Verdict != report.VerdictError {
				t.Errorf("verdict %s; want error", rep.Verdict)
			}
			got := map[string]report.HookRun{}
			for _, r := range rep.Runs {
				got[r.Plugin] = r
			}
			if len(rep.Runs) != 3 {
				t.Fatalf("%d runs; want 3: %+v", len(rep.Runs), rep.Runs)
			}
			if r := got["a-fast"]; r.Outcome != report.OutcomeAllowed {
				t.Errorf("the run that finished before the signal: %s (%s); want allowed, as it ran", r.Outcome, r.Reason)
			}
			slow := got["b-slow"]
			if slow.Outcome != report.OutcomeError || !strings.Contains(slow.Reason, "vigiles was interrupted (SIGTERM), after") {
				t.Errorf("the run stopped by the signal: %s (%s); want error, interrupted (SIGTERM)", slow.Outcome, slow.Reason)
			}
			if r := got["c-late"]; r.Outcome != report.OutcomeError || !strings.Contains(r.Reason, "not run: vigiles was interrupted (SIGTERM) before its turn") {
				t.Errorf("the run never started: %s (%s); want error, not run", r.Outcome, r.Reason)
			}
			js, _ := json.Marshal(rep)
			if strings.Contains(string(js)+progress.String(), "context canceled") {
				t.Errorf("the report or the progress says \"context canceled\", not the signal:\n%s\n%s", js, progress.String())
			}
			summarized := false
			for _, f := range rep.Findings {
				summarized = summarized || f.Rule == RuleRunInterrupted && f.Hook == "" && strings.Contains(f.Message, "vigiles "+command+" was interrupted (SIGTERM): of 3 hook run(s)")
			}
			if !summarized {
				t.Errorf("no summary of the interruption naming SIGTERM: %+v", rep.Findings)
			}
			want := fmt.Sprintf(", %s)\n", ranForMs(slow.DurationMs))
			if !strings.Contains(progress.String(), "] "+progressName(slow)+": error (") || !strings.Contains(progress.String(), want) || slow.DurationMs < float64(ran.Milliseconds()) {
				t.Errorf("the stopped run ran %.0f ms (at least %v); its progress line should say so (%q):\n%s", slow.DurationMs, ran, want, progress.String())
			}
			named := false
			for _, f := range rep.Findings {
				if f.Rule == RuleRunInterrupted && f.Hook == slow.ID && f.Severity == report.SeverityError {
					named = true
				}
				if f.Rule == RuleRunFailed {
					t.Errorf("run/failed for an interruption: %s", f.Message)
				}
			}
			if !named || !slices.Contains(rules(rep), RuleRunInterrupted) {
				t.Errorf("no %s finding names %s: %+v", RuleRunInterrupted, slow.ID, rep.Findings)
			}
			var line string
			for _, l := range strings.Split(progress.String(), "\n") {
				if strings.HasPrefix(l, "interrupted") {
					line = l
				}
			}
			if !strings.HasPrefix(line, "interrupted (SIGTERM): ") || !strings.Contains(line, ": "+progressName(slow)+";") || !strings.Contains(line, "1 of 3 not started") {
				t.Errorf("progress line %q; want one naming %s, still running, and 1 of 3 not started (all: %q)", line, progressName(slow), progress.String())
			}
			if _, err := os.Stat(filepath.Join(dir, ".vigiles/baseline.json")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("an interrupted audit wrote the baseline (stat: %v)", err)
			}
		})
	}
}

// TestAuditUnreadablePolicyIsAnError: an audit without --config refuses a
// .vigiles.yml that is there but cannot be read, as test does (ErrNoConfig,
// with the reason); only one that is not there means the built-in policy.
func TestAuditUnreadablePolicyIsAnError(t *testing.T) {
	hooks := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	for _, tc := range []struct {
		name string
		make func(p string) error
		want string
	}{
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "not a regular file"},
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "not a regular file"},
		{"too large", func(p string) error {
			return os.WriteFile(p, append([]byte("version: 1\n"), bytes.Repeat([]byte("# pad\n"), maxDeclFile/6+1)...), 0o644)
		}, "more than the"},
		{"link to nothing", func(p string) error { return os.Symlink("missing.yml", p) }, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{".claude/settings.json": hooks})
			if err := tc.make(filepath.Join(dir, DefaultConfig)); err != nil {
				t.Fatal(err)
			}
			for _, run := range []func(context.Context, Options) (*report.Report, error){Audit, Test} {
				rep, err := run(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
				if !errors.Is(err, ErrNoConfig) || rep != nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), DefaultConfig) {
					t.Errorf("err %v (report %v); want ErrNoConfig naming %s and saying %q", err, rep != nil, DefaultConfig, tc.want)
				}
			}
		})
	}
	dir := makeTree(t, map[string]string{".claude/settings.json": hooks})
	if rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()}); err != nil || rep.Verdict != report.VerdictPass {
		t.Errorf("no .vigiles.yml: err %v; want the built-in policy", err)
	}
}

// TestAuditPathLeadingOutIsOneError: a PATH that leads out of the work
// tree, through a symbolic link or "..", gets the same error whether or
// not its target exists on the host: nothing outside is looked at.
func TestAuditPathLeadingOutIsOneError(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"plugins/a/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		"plugins/b/":                 "",
	})
	links := map[string]string{
		"plugins/a/rootlink":  "/root",
		"plugins/a/etclink":   "/etc",
		"plugins/a/nolink":    "/nonexistent-vigiles-dir",
		"plugins/a/relup":     "../../..",
		"plugins/a/relnone":   "../../../nonexistent-vigiles-dir",
		"plugins/a/chain":     "rootlink",
		"plugins/a/insidebad": "../missing",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"plugins/a/rootlink", "plugins/a/etclink", "plugins/a/nolink", "plugins/a/relup", "plugins/a/relnone", "plugins/a/chain", "plugins/a/nolink/x"} {
		_, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{p}, Executor: fakeHooks()})
		var pe *AuditPathError
		if !errors.As(err, &pe) || !pe.Outside || !errors.Is(err, ErrOutsideTree) {
			t.Errorf("PATH %s: %v; want the one error for a path outside the work tree", p, err)
			continue
		}
		if want := (&AuditPathError{Path: p, Dir: dir, Outside: true}).Error(); err.Error() != want {
			t.Errorf("PATH %s: %q; want %q", p, err, want)
		}
	}
	// Inside, a link works, and one to nothing inside is not a directory.
	if err := os.Symlink("../b", filepath.Join(dir, "plugins/a/tob")); err != nil {
		t.Fatal(err)
	}
	if _, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"plugins/a/tob", "plugins/a"}, Executor: fakeHooks()}); err != nil {
		t.Errorf("a PATH linked inside: %v", err)
	}
	_, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"plugins/a/insidebad"}, Executor: fakeHooks()})
	var pe *AuditPathError
	if !errors.As(err, &pe) || pe.Outside {
		t.Errorf("a PATH linked to nothing inside: %v; want not a directory", err)
	}
	// An absolute PATH spelled through a link to the tree (the caller's
	// --dir, or its working directory) is under the tree (a second review:
	// it was refused as outside).
	link := filepath.Join(t.TempDir(), "tree")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Audit(context.Background(), Options{Dir: link, Paths: []string{filepath.Join(link, "plugins/a")}, Executor: fakeHooks()}); err != nil {
		t.Errorf("an absolute PATH under --dir spelled through a link: %v", err)
	}
	if _, err := Audit(context.Background(), Options{Dir: link, Paths: []string{filepath.Join(link, "plugins/a/rootlink")}, Executor: fakeHooks()}); !errors.Is(err, ErrOutsideTree) {
		t.Errorf("an absolute PATH under --dir spelled through a link, leading out: %v; want outside the work tree", err)
	}
}

// TestPackageHookPayloadCwd: a hook of a package's .claude runs in that
// directory, and the payload's cwd (and the paths of its default tool
// input) say so, as Claude Code started there would send them, in an
// audit and in a check.
func TestPackageHookPayloadCwd(t *testing.T) {
	dir := makeTree(t, map[string]string{
		".claude/settings.json":                  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true root"}]}]}}`,
		"packages/web/.claude/settings.json":     `{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "true web"}]}]}}`,
		"packages/web/.claude/skills/s/SKILL.md": "---\nname: s\ndescription: d\nhooks:\n  Stop:\n    - hooks:\n        - {type: command, command: true skill}\n---\n",
		".vigiles.yml":                           "version: 1\nchecks:\n  - {name: web, hook: web, event: PreToolUse, tool: Read, expect: {allowed: true}}\n",
	})
	web := filepath.Join(dir, "packages/web")
	cwds := func(c *runnertest.Canned) map[string]map[string]any {
		out := map[string]map[string]any{}
		for i, sp := range c.Specs {
			var in map[string]any
			if err := json.Unmarshal(c.Stdin[i], &in); err != nil {
				t.Fatal(err)
			}
			out[sp.Command[len(sp.Command)-1]] = in
		}
		return out
	}
	rec := fakeHooks()
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: rec}); err != nil {
		t.Fatal(err)
	}
	got := cwds(rec)
	for cmd, want := range map[string]string{"true root": dir, "true web": web, "true skill": web} {
		if in, ok := got[cmd]; !ok || in["cwd"] != want {
			t.Errorf("%s: payload cwd %v; want %s", cmd, in["cwd"], want)
		}
	}
	if ti, _ := got["true web"]["tool_input"].(map[string]any); ti["file_path"] != filepath.Join(web, "README.md") {
		t.Errorf("the Read input of the package's hook: %v; want a file in %s", ti, web)
	}
	rec = fakeHooks()
	if _, err := Test(context.Background(), Options{Dir: dir, Executor: rec}); err != nil {
		t.Fatal(err)
	}
	if in := cwds(rec)["true web"]; in["cwd"] != web {
		t.Errorf("the check's payload cwd %v; want %s", in["cwd"], web)
	}
}

// TestNoHooksSaysNestedClaudeIsSearched: the discovery/no-hooks finding
// says that .claude directories below the audited one are searched too.
func TestNoHooksSaysNestedClaudeIsSearched(t *testing.T) {
	dir := makeTree(t, map[string]string{"src/main.go": "package main\n"})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleNoHooks {
			if !strings.Contains(f.Message, "every .claude directory below it") {
				t.Errorf("the no-hooks message does not say nested .claude directories are searched: %s", f.Message)
			}
			return
		}
	}
	t.Fatalf("no %s finding: %+v", RuleNoHooks, rep.Findings)
}

// sigterm is the cause vigiles' signal handling cancels the work with on
// a SIGTERM: named so, a context.Canceled all the same.
type sigterm struct{}

func (sigterm) Error() string        { return "SIGTERM" }
func (sigterm) Is(target error) bool { return target == context.Canceled }

// progressName is how the progress names r, a check's run of a single
// hook or an audit's run.
func progressName(r report.HookRun) string {
	if r.Check != "" {
		return "check " + r.Check
	}
	name := r.Plugin + " " + r.Event
	if r.Tool != "" {
		name += " " + r.Tool
	}
	return name + fmt.Sprintf(" at %s:%d:%d", r.Location.File, r.Location.Line, r.Location.Column)
}

// TestProgressNamesEachRunAsItsHeartbeatDoes: the line of a run's end
// names it apart from every other run, as the lines that said it was
// still running did, with its time in theirs: an audit's run by its
// plugin, event and where its hook is declared, a check's by the check,
// and where the hook is declared when the check runs several. Three Stop
// handlers of one plugin all ended "m Stop: allowed (confined, 1500 ms)",
// after heartbeats that named their ids "(for 1s)". Each run ends only
// once a heartbeat written after its command started has named it, not
// after a time the heartbeat may not have fired in on a loaded machine.
func TestProgressNamesEachRunAsItsHeartbeatDoes(t *testing.T) {
	old := ProgressInterval
	ProgressInterval = 100 * time.Millisecond
	t.Cleanup(func() { ProgressInterval = old })
	var progress *runnertest.Progress
	exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
		if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
			// The run is running before its command starts: the next
			// heartbeat names it (two run at once, fewer than a heartbeat
			// names). Past the hang bound the run ends all the same and
			// the test says what no heartbeat named.
			beat := func(l string) bool { return strings.Contains(l, " still running: ") }
			if !progress.Await(ctx, progress.Lines(), beat) && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 600}, nil
	})
	dir := makeTree(t, map[string]string{
		// Each its own command: Claude Code runs identical ones once.
		"plugins/m/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "sleep 60 # 1"},
  {"type": "command", "command": "sleep 60 # 2"},
  {"type": "command", "command": "sleep 60 # 3"}]}]}}`,
		"plugins/n/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 60"}]}]}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: all-m, hook: m, event: Stop, expect: {allowed: true}}\n" +
			"  - {name: one-n, hook: n, event: Stop, expect: {allowed: true}}\n",
	})
	for _, command := range []string{"audit", "test"} {
		t.Run(command, func(t *testing.T) {
			progress = &runnertest.Progress{}
			o := Options{Dir: dir, Executor: exec, Jobs: 2, Progress: progress}
			run := Audit
			if command == "test" {
				run = Test
			}
			rep, err := run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, r := range rep.Runs {
				name := progressName(r)
				if r.Check == "all-m" {
					name += fmt.Sprintf(" at %s:%d:%d", r.Location.File, r.Location.Line, r.Location.Column)
				}
				want[name+": allowed (confined, "+ranForMs(r.DurationMs)+")"] = true
			}
			if len(want) != 4 {
				t.Fatalf("%d runs named apart; want 4: %v", len(want), want)
			}
			ended := map[string]bool{}
			var beats []string
			for _, l := range strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\n") {
				if rest, ok := strings.CutPrefix(l, "["); ok {
					_, line, _ := strings.Cut(rest, "] ")
					ended[line] = true
				} else if strings.Contains(l, " still running: ") {
					beats = append(beats, l)
				}
			}
			for line := range want {
				if !ended[line] {
					t.Errorf("no progress line ends %q:\n%s", line, progress.String())
				}
				name, _, _ := strings.Cut(line, ": allowed")
				heard := false
				for _, b := range beats {
					heard = heard || strings.Contains(b, " "+name+" (for ")
				}
				if !heard {
					t.Errorf("no heartbeat names %q as its line of its end does:\n%s", name, progress.String())
				}
			}
		})
	}
}

// TestProgressSaysThePlanAndTheRunsStillRunning: the progress opens with
// the runs planned and how many run at once, and while runs are going it
// names, every ProgressInterval, the ones still running and for how long
// (the longest first, a few by name, then "and K more"), before each
// one's own line when it ends. A hook that ran for minutes said nothing
// until it ended, and nothing said how much work there was. The slow runs
// end only once a heartbeat has named them all running and the fast one
// finished, not after a time the heartbeat may not have fired in on a
// loaded machine.
func TestProgressSaysThePlanAndTheRunsStillRunning(t *testing.T) {
	old := ProgressInterval
	ProgressInterval = 100 * time.Millisecond
	t.Cleanup(func() { ProgressInterval = old })
	stop := func(cmd string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
	}
	for _, c := range []struct{ slow, jobs int }{{1, 4}, {5, 8}} {
		t.Run(fmt.Sprintf("%d-slow", c.slow), func(t *testing.T) {
			files := map[string]string{"plugins/a-fast/hooks/hooks.json": stop("true")}
			for i := range c.slow {
				files[fmt.Sprintf("plugins/b-slow-%d/hooks/hooks.json", i)] = stop("sleep 60")
			}
			total := c.slow + 1
			progress := &runnertest.Progress{}
			// Commands with "sleep" run until a heartbeat says they all
			// are running and the rest finished (past the hang bound they
			// end all the same, and the test says what no heartbeat
			// said); the rest end at once.
			exec := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
				if strings.Contains(strings.Join(spec.Command, " "), "sleep") {
					beat := func(l string) bool {
						return strings.HasPrefix(l, fmt.Sprintf("%d run(s) still running: ", c.slow)) &&
							strings.HasSuffix(l, fmt.Sprintf("; 1 of %d finished, 0 not started", total))
					}
					if !progress.Await(ctx, 0, beat) && ctx.Err() != nil {
						return nil, ctx.Err()
					}
				}
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 1}, nil
			})
			rep, err := Audit(context.Background(), Options{Dir: makeTree(t, files), Executor: exec, Jobs: c.jobs, Progress: progress})
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\n")
			if want := fmt.Sprintf("%d hook run(s) planned, %d at a time", total, min(c.jobs, total)); lines[0] != want {
				t.Errorf("the first progress line is %q; want %q (all:\n%s)", lines[0], want, progress.String())
			}
			var slowName string
			for _, r := range rep.Runs {
				if r.Plugin == "b-slow-0" {
					slowName = progressName(r)
				}
			}
			beat, ended := -1, -1
			for i, l := range lines {
				switch {
				case beat < 0 && strings.HasPrefix(l, fmt.Sprintf("%d run(s) still running: ", c.slow)):
					beat = i
				case strings.HasPrefix(l, "[") && strings.Contains(l, "] "+slowName+": allowed ("):
					ended = i
				}
			}
			if beat < 0 || ended < 0 || beat > ended {
				t.Fatalf("want a line naming %s still running before its own line (at %d, %d):\n%s", slowName, beat, ended, progress.String())
			}
			l := lines[beat]
			if c.slow == 1 && !strings.Contains(l, slowName+" (for ") {
				t.Errorf("the heartbeat %q does not name %s and how long it ran", l, slowName)
			}
			if !strings.HasSuffix(l, fmt.Sprintf("; 1 of %d finished, 0 not started", total)) {
				t.Errorf("the heartbeat %q does not say how far the work got", l)
			}
			if named := strings.Count(l, " (for "); named != min(c.slow, progressNames) {
				t.Errorf("the heartbeat names %d runs; want %d: %q", named, min(c.slow, progressNames), l)
			}
			if more := c.slow - progressNames; more > 0 && !strings.Contains(l, fmt.Sprintf(" and %d more;", more)) {
				t.Errorf("the heartbeat %q does not say %d more", l, more)
			}
			last := -1
			for i, l := range lines {
				if strings.HasPrefix(l, fmt.Sprintf("[%d/%d] ", total, total)) {
					last = i
				}
			}
			if last != len(lines)-1 {
				t.Errorf("lines after the last run ended, or no line for it:\n%s", progress.String())
			}
		})
	}
}
