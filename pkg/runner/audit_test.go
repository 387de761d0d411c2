package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// fakeHooks answers by command: "host:H" tries H, "write:P" writes P,
// "block" exits 2, "linger" leaves a process ended after the linger,
// "timeout" is ended at its timeout.
func fakeHooks() *runnertest.Canned {
	return &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5}
		for _, w := range strings.Fields(spec.Command[len(spec.Command)-1]) {
			switch {
			case strings.HasPrefix(w, "host:"):
				res.Egress = append(res.Egress, evidence.Egress{Host: w[5:], Via: evidence.ViaDNS, Attempts: 1})
			case strings.HasPrefix(w, "write:"):
				res.Writes = append(res.Writes, evidence.Write{Path: w[6:], Op: evidence.OpCreate, Kind: "file"})
			case w == "block":
				res.ExitCode, res.Stderr = 2, "blocked"
			case w == "timeout":
				res.TimedOut, res.ExitCode = true, 137
			case w == "linger":
				res.Lingered = []string{"7 sh -c sleep 1; curl evil.example.test"}
			}
		}
		return res, nil
	}}
}

func auditRepo(t *testing.T, hooks string) string {
	t.Helper()
	return makeTree(t, map[string]string{
		"plugins/a/.claude-plugin/plugin.json": `{"name": "a"}`,
		"plugins/a/hooks/hooks.json":           hooks,
		"plugins/b/.claude-plugin/plugin.json": `{"name": "b", "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "true host:b.example.test"}]}]}}`,
		".claude-plugin/marketplace.json":      `{"name": "m", "plugins": [{"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "./plugins/b"}]}`,
		".claude/settings.json":                `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true write:notes.txt"}, {"type": "prompt", "prompt": "done?"}]}]}}`,
	})
}

const hooksV1 = `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "true host:api.example.test"}]}],
 "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true write:out.log"}]}]}}`

func TestAuditInventory(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range rep.Runs {
		ids = append(ids, fmt.Sprintf("%s %s %s", r.ID, r.Outcome, strings.Join(hostsOf(r), ",")))
	}
	var want []string
	want = append(want,
		".claude/settings.json#hooks.Stop[0].hooks[0] allowed ",
		".claude/settings.json#hooks.Stop[0].hooks[1] not-executable ",
		"plugins/a/hooks/hooks.json#hooks.PostToolUse[0].hooks[0]@Bash allowed ")
	for _, tool := range []string{"Edit", "Glob", "Grep", "Read", "WebFetch", "Write", "mcp__example__search"} {
		want = append(want, "plugins/a/hooks/hooks.json#hooks.PostToolUse[0].hooks[0]@"+tool+" allowed ")
	}
	want = append(want,
		"plugins/a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash allowed api.example.test",
		"plugins/a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Write allowed api.example.test",
		"plugins/b/.claude-plugin/plugin.json#hooks.SessionStart[0].hooks[0]@startup allowed b.example.test")
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if rep.Command != "audit" || rep.Schema != report.Schema {
		t.Errorf("report header: %+v", rep)
	}
	// Without a baseline, network attempts are listed as warnings: one
	// for the hook that tried the same host for both tools its matcher
	// takes, which names them, and one for the other hook.
	var msgs []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRunEgress {
			msgs = append(msgs, f.Message)
		}
	}
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0], "a PreToolUse, run for each of the 2 tools its matcher takes (Bash and Write), tried to reach api.example.test, which") {
		t.Errorf("egress warnings %q, want 2, the first for both tools", msgs)
	}
}

func TestBaselineDrift(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	// Stable: a second update writes the same bytes.
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(filepath.Join(dir, base))
	if string(data) != string(again) {
		t.Errorf("baseline not stable:\n%s\n---\n%s", data, again)
	}
	if !strings.Contains(string(data), `"plugins/a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash": {`) {
		t.Errorf("baseline content:\n%s", data)
	}
	_ = rep

	// No change: no drift, pass.
	rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
		t.Fatalf("unchanged audit drifted: %s %+v %+v", rep.Verdict, rep.Drift, rep.Findings)
	}

	// The plugin changes: a new host, a new write, a blocked outcome, a
	// new hook, and a removed one.
	v2 := `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "block host:api.example.test host:exfil.evil.test"}]}],
 "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true write:out.log write:../../.ssh/authorized_keys"}]}],
 "SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, "plugins/a/hooks/hooks.json"), []byte(v2), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Drift {
		got = append(got, fmt.Sprintf("%s %s %s>%s @%s:%d", strings.TrimPrefix(d.Hook, "plugins/a/hooks/hooks.json#hooks."), d.Kind, d.Was, d.Now, d.Location.File, d.Location.Line))
	}
	want := []string{
		"PostToolUse[0].hooks[0]@Bash command true write:out.log>true write:out.log write:../../.ssh/authorized_keys @plugins/a/hooks/hooks.json:2",
		"PostToolUse[0].hooks[0]@Bash write >../../.ssh/authorized_keys @plugins/a/hooks/hooks.json:2",
		"PostToolUse[0].hooks[0]@Edit hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@Glob hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@Grep hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@Read hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@WebFetch hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@Write hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PostToolUse[0].hooks[0]@mcp__example__search hook-removed allowed> @plugins/a/hooks/hooks.json:0",
		"PreToolUse[0].hooks[0]@Bash command true host:api.example.test>block host:api.example.test host:exfil.evil.test @plugins/a/hooks/hooks.json:1",
		"PreToolUse[0].hooks[0]@Bash host >exfil.evil.test @plugins/a/hooks/hooks.json:1",
		"PreToolUse[0].hooks[0]@Bash outcome allowed>blocked @plugins/a/hooks/hooks.json:1",
		"PreToolUse[0].hooks[0]@Write command true host:api.example.test>block host:api.example.test host:exfil.evil.test @plugins/a/hooks/hooks.json:1",
		"PreToolUse[0].hooks[0]@Write host >exfil.evil.test @plugins/a/hooks/hooks.json:1",
		"PreToolUse[0].hooks[0]@Write outcome allowed>blocked @plugins/a/hooks/hooks.json:1",
		"SessionEnd[0].hooks[0]@other hook-added >allowed @plugins/a/hooks/hooks.json:3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	if rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s", rep.Verdict)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Rule, RuleDriftPrefix) && f.Rule != RuleDriftPrefix+DriftHookRemoved && f.Location.Line == 0 {
			t.Errorf("drift finding without the declaration's line: %+v", f)
		}
	}
}

func TestBaselineNotRecorded(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	// A direct run records nothing: the audit cannot claim "no drift".
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: runnertest.Direct{}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictFail {
		t.Fatalf("a baseline comparison over unrecorded runs passed: %+v", rep.Findings)
	}
	found := false
	for _, f := range rep.Findings {
		found = found || f.Rule == RuleBaselineUnproven
	}
	if !found {
		t.Errorf("no %s finding", RuleBaselineUnproven)
	}
}

func TestParseShard(t *testing.T) {
	for _, ok := range []string{"", "1/1", "2/3", " 3/3"} {
		if _, _, err := ParseShard(ok); err != nil {
			t.Errorf("ParseShard(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0", "-1/2", "1/2/3"} {
		if _, _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted it", bad)
		}
	}
	// The refusal carries the value and the reason, for a caller that
	// names the value its own way (--shard "3/2": ...), and its text
	// names it as a shard for the errors of Test, Audit and Merge.
	for bad, want := range map[string]string{
		"1":   `shard "1": want i/n such as 2/4`,
		"3/2": `shard "3/2": want i/n with 1 ≤ i ≤ n ≤ 10000`,
	} {
		_, _, err := ParseShard(bad)
		var se *ShardError
		if !errors.As(err, &se) || se.Value != bad || err.Error() != want || !errors.Is(err, ErrBadShard) {
			t.Errorf("ParseShard(%q) = %v (%#v), want a *ShardError of ErrBadShard saying %q", bad, err, se, want)
		} else if want != fmt.Sprintf("shard %q: %s", se.Value, se.Reason) {
			t.Errorf("ParseShard(%q): Reason %q is not the text's", bad, se.Reason)
		}
	}
}

// zeroDurations makes reports comparable across runs.
func zeroDurations(r *report.Report) {
	for i := range r.Runs {
		r.Runs[i].DurationMs = 0
	}
}

func TestShardsMergeToUnsharded(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	// A baseline from an older version, so that drift (including removed
	// runs) is part of the comparison.
	old := auditRepo(t, `{"hooks": {"PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]}]}}`)
	if _, err := Audit(ctx, Options{Dir: old, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".vigiles"), 0o755)
	drifted, _ := os.ReadFile(filepath.Join(old, base))
	// And a malformed file, whose finding must appear exactly once.
	os.WriteFile(filepath.Join(dir, "plugins/b/hooks/hooks.json"), []byte("{"), 0o644)

	for _, bc := range []struct {
		name     string
		baseline []byte // nil: no baseline file
		rule     string // a finding the whole audit gives exactly once
	}{
		{"drifted baseline", drifted, ""},
		{"missing baseline", nil, RuleBaselineMissing},
		{"invalid baseline", []byte("{not json"), RuleBaselineInvalid},
		{"baseline with a duplicate key", []byte(`{"schema": "x", "schema": "y"}`), RuleBaselineInvalid},
	} {
		for _, command := range []string{"audit", "test"} {
			t.Run(bc.name+"/"+command, func(t *testing.T) {
				if bc.baseline == nil {
					os.Remove(filepath.Join(dir, base))
				} else {
					os.WriteFile(filepath.Join(dir, base), bc.baseline, 0o644)
				}
				run := func(shard string) *report.Report {
					o := Options{Dir: dir, Baseline: base, Shard: shard, Executor: fakeHooks()}
					var rep *report.Report
					var err error
					if command == "audit" {
						rep, err = Audit(ctx, o)
					} else {
						os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte(`checks:
  - {name: one, hook: a, tool: Bash, expect: {no-egress: true}}
  - {name: two, hook: a, tool: Write, expect: {blocked: false}}
  - {name: three, hook: b, event: SessionStart, expect: {egress-only: [b.example.test]}}
  - {name: four, command: "true write:x", event: Stop, expect: {wrote-only: [y]}}
  - {name: five, command: "block", expect: {blocked: true}}
`), 0o644)
						rep, err = Test(ctx, o)
					}
					if err != nil {
						t.Fatal(err)
					}
					zeroDurations(rep)
					return rep
				}
				whole := run("")
				if command == "audit" && bc.rule != "" {
					n := 0
					for _, f := range whole.Findings {
						if f.Rule == bc.rule {
							n++
						}
					}
					if n != 1 {
						t.Errorf("the unsharded audit gives %d %s findings, want 1", n, bc.rule)
					}
				}
				for _, n := range []int{1, 2, 3, 5, 40} {
					var parts []NamedReport
					for i := n; i >= 1; i-- { // any order
						p := run(fmt.Sprintf("%d/%d", i, n))
						if n > 1 && p.Shard != fmt.Sprintf("%d/%d", i, n) {
							t.Errorf("shard field %q", p.Shard)
						}
						parts = append(parts, NamedReport{Name: fmt.Sprintf("part-%d.json", i), Report: p})
					}
					merged, err := Merge(parts...)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(whole, merged); diff != "" {
						t.Errorf("%d shards merged differ from the unsharded %s (-whole +merged):\n%s", n, command, diff)
					}
				}
				if len(whole.Runs) < 5 || len(whole.Findings) == 0 {
					t.Errorf("too little to compare: %d runs, %d findings", len(whole.Runs), len(whole.Findings))
				}
			})
		}
	}
}

func TestMergeRejects(t *testing.T) {
	a := &report.Report{Schema: report.Schema, Command: "audit", Shard: "1/2", Plan: "p", Runs: []report.HookRun{{ID: "x"}}}
	b := &report.Report{Schema: report.Schema, Command: "audit", Shard: "2/2", Plan: "p", Runs: []report.HookRun{{ID: "x"}}}
	c := &report.Report{Schema: report.Schema, Command: "test", Shard: "2/2", Plan: "p"}
	d := &report.Report{Schema: "other/v9", Command: "audit"}
	e := &report.Report{Schema: report.Schema, Command: "audit", Shard: "2/3", Plan: "p"}
	f := &report.Report{Schema: report.Schema}
	w := &report.Report{Schema: report.Schema, Command: "audit"}
	// Shards of another run, by another vigiles, or with no plan.
	g := &report.Report{Schema: report.Schema, Command: "audit", Shard: "2/2", Plan: "q"}
	v := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "9.9.9"}, Command: "audit", Shard: "2/2", Plan: "p"}
	h := &report.Report{Schema: report.Schema, Command: "audit", Shard: "2/2"}
	w2 := &report.Report{Schema: report.Schema, Command: "audit", Runs: []report.HookRun{{ID: "y"}}}
	named := map[*report.Report]string{a: "a.json", b: "b.json", c: "c.json", d: "d.json", e: "e.json", f: "f.json", w: "w.json",
		g: "g.json", v: "v.json", h: "h.json", w2: "w2.json"}
	for _, tc := range []struct {
		name string
		in   []*report.Report
		want string
	}{
		{"none", nil, "none given"},
		{"nil", []*report.Report{a, nil}, " is missing"},
		{"duplicate run", []*report.Report{a, b}, `run x is in both a.json and b.json`},
		{"mixed commands", []*report.Report{a, c}, "c.json is a report of vigiles test and a.json one of vigiles audit"},
		{"wrong schema", []*report.Report{d}, `d.json has schema "other/v9"`},
		{"missing shard", []*report.Report{a}, "shard 2/2 is missing: name the reports of all 2 shards of the run (1 given)"},
		{"mixed shard counts", []*report.Report{a, e}, "a.json is a shard of 2 and e.json one of 3"},
		{"same shard twice", []*report.Report{a, a}, "a.json and a.json are both shard 1/2"},
		{"no command", []*report.Report{f}, `f.json has command "", want test or audit`},
		{"a whole report beside a shard", []*report.Report{w, a}, "w.json is a whole report (no shard) and a.json a shard of 2"},
		{"shards of different plans", []*report.Report{a, g}, "a.json and g.json are shards of different runs (their plans differ"},
		{"shards of different vigiles", []*report.Report{a, v}, "v.json was written by vigiles 9.9.9 and a.json by"},
		{"a shard with no plan", []*report.Report{a, h}, "h.json is shard 2/2 with no plan"},
		{"two whole reports", []*report.Report{w, w2}, "w.json and w2.json are both whole reports"},
	} {
		var in []NamedReport
		for _, r := range tc.in {
			in = append(in, NamedReport{Name: named[r], Report: r})
		}
		_, err := Merge(in...)
		if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge said %v, want an ErrBadOption that says %q", tc.name, err, tc.want)
		}
	}
}

// TestBrokenPolicyTrustsNothing checks that a policy with errors gives no
// trust: an untrusted glob it drops as a mistake, beside a trusted one that
// covers the plugin, must not let the vendored code run in the open, nor
// may its defaults.sandbox: off; --sandbox still chooses.
func TestBrokenPolicyTrustsNothing(t *testing.T) {
	for _, tc := range []struct{ name, policy string }{
		{"a bad untrusted glob", "plugins:\n  trusted: [\"plugins/*\", \".\"]\n  untrusted: [\"/abs/plugins/*\"]\n"},
		{"a typo beside trust", "plugins:\n  trusted: [\"plugins/*\"]\n  untrsted: [\"plugins/a\"]\n"},
		{"sandbox off beside a typo", "defaults:\n  sandbox: off\n  timout: 5s\n"},
	} {
		dir := auditRepo(t, hooksV1)
		os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte(tc.policy+"checks:\n  - name: any\n    hook: a\n    event: PreToolUse\n    tool: Bash\n    expect: {no-egress: true}\n"), 0o644)
		var modes []sandbox.Mode
		exec := fakeHooks()
		f := exec.F
		exec.F = func(spec sandbox.Spec, in []byte) (*sandbox.Result, error) {
			modes = append(modes, spec.Mode)
			return f(spec, in)
		}
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: exec})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(modes) == 0 || slices.ContainsFunc(modes, func(m sandbox.Mode) bool { return m != sandbox.ModeStrict }) {
			t.Errorf("%s: modes %v, want every run strict", tc.name, modes)
		}
		if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return strings.Contains(f.Message, "every hook runs confined") }) {
			t.Errorf("%s: no finding says the hooks run confined: %+v", tc.name, rep.Findings)
		}
		modes = nil
		if _, err := Test(context.Background(), Options{Dir: dir, Executor: exec, Sandbox: sandbox.ModeAuto}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(modes) == 0 || modes[0] != sandbox.ModeAuto {
			t.Errorf("%s: with --sandbox auto, modes %v", tc.name, modes)
		}
	}
}

func TestAuditPathsAndTrust(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("plugins:\n  trusted: [plugins/a, \".\"]\n  untrusted: [plugins/a/vendor]\n"), 0o644)
	rep, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"plugins/b"}, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Plugin != "b" || rep.Runs[0].Trusted {
		t.Fatalf("audit of plugins/b: %+v", rep.Runs)
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		want := r.Plugin == "a" || r.Plugin == "project"
		if r.Trusted != want {
			t.Errorf("%s trusted = %v, want %v", r.ID, r.Trusted, want)
		}
	}
	if _, err := Audit(context.Background(), Options{Dir: dir, Paths: []string{"/"}, Executor: fakeHooks()}); !errors.Is(err, ErrBadOption) || !errors.Is(err, ErrOutsideTree) {
		t.Errorf("an audit path outside the work tree: error %v, want one that wraps ErrBadOption and ErrOutsideTree", err)
	}
	for _, tc := range []struct {
		root       string
		tr, untr   []string
		wantTrusty bool
	}{
		{".", []string{"."}, nil, true},
		{"plugins/x", []string{"."}, nil, false},
		{"plugins/x", []string{"plugins/*"}, nil, true},
		{"plugins/x", []string{"plugins"}, nil, true},
		{"plugins/x", []string{"plugins/*"}, []string{"plugins/x"}, false},
		{"vendor/y", []string{"**"}, []string{"vendor/**"}, false},
	} {
		if got := trusted(tc.root, tc.tr, tc.untr); got != tc.wantTrusty {
			t.Errorf("trusted(%q, %v, %v) = %v", tc.root, tc.tr, tc.untr, got)
		}
	}
}

func TestTimeouts(t *testing.T) {
	dir := makeTree(t, map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "a", "timeout": 5}, {"type": "command", "command": "b"}]}]}}`,
	})
	ex := fakeHooks()
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: ex, Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range ex.Specs {
		got[s.Command[len(s.Command)-1]] = s.Timeout.String()
	}
	if diff := cmp.Diff(map[string]string{"a": "5s", "b": "1m0s"}, got); diff != "" {
		t.Errorf("timeouts (-want +got):\n%s", diff)
	}
}

// TestRootSandboxReachesEverySpec: the opt-out from an unprivileged sandbox
// uid reaches each hook's sandbox.Spec from the flag or from the policy, and
// is off otherwise.
func TestRootSandboxReachesEverySpec(t *testing.T) {
	for _, c := range []struct {
		name   string
		flag   bool
		config string
		want   bool
	}{
		{"neither", false, "", false},
		{"flag", true, "", true},
		{"policy", false, "version: 1\ndefaults: {root-sandbox: true}\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := auditRepo(t, hooksV1)
			if c.config != "" {
				if err := os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte(c.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			seen := map[bool]int{}
			ex := fakeHooks()
			spy := ExecutorFunc(func(ctx context.Context, spec sandbox.Spec) (*sandbox.Result, error) {
				mu.Lock()
				seen[spec.RootSandbox]++
				mu.Unlock()
				return ex.Run(ctx, spec)
			})
			if _, err := Audit(context.Background(), Options{Dir: dir, Executor: spy, RootSandbox: c.flag}); err != nil {
				t.Fatal(err)
			}
			if seen[!c.want] != 0 || seen[c.want] == 0 {
				t.Errorf("specs with RootSandbox true/false: %d/%d, want all %v", seen[true], seen[false], c.want)
			}
		})
	}
}

// TestCorruptBaselineSaysWhatAndHow: a baseline that is not valid is a
// finding that names the file as given, says what is wrong in the file's
// terms, points at the place, and names the fix, which works. A file that
// is no baseline at all (foreign: not JSON, or JSON without a baseline's
// "schema") is told to be none, with the baseline to name instead, and
// --update-baseline does not overwrite it.
func TestCorruptBaselineSaysWhatAndHow(t *testing.T) {
	const fix = "; run `vigiles audit --update-baseline` to rewrite it from this audit (and review the diff)"
	const foreignFix = "; this is not a vigiles baseline (JSON with \"schema\": \"vigiles.baseline/v2\"), which --update-baseline will not overwrite: " +
		"name the baseline file with --baseline (default .vigiles/baseline.json; the policy file goes to --config), or give --baseline \"\" to compare with nothing"
	for _, tc := range []struct {
		name, data string
		line, col  int
		msg        string
		foreign    bool
	}{
		{"array", "[]\n", 1, 1, `want a JSON object with "schema": "vigiles.baseline/v2" (or "vigiles.baseline/v1") and "runs", found an array`, true},
		{"not JSON", "{\n  \"schema\": \"vigiles.baseline/v1\",\n  \"runs\": {\n", 4, 1, "not valid JSON: ", false},
		{"conflict markers", "{\n<<<<<<< HEAD\n  \"schema\": \"vigiles.baseline/v2\",\n=======\n>>>>>>> b\n}\n", 2, 1, "not valid JSON: ", false},
		{"empty", "", 1, 1, "not valid JSON: ", false},
		{"policy file", "checks:\n  - name: x\n", 1, 1, "not valid JSON: ", true},
		{"other schema", `{"schema": "vigiles.baseline/v0", "runs": {}}`, 1, 12, `"schema" is "vigiles.baseline/v0": want "vigiles.baseline/v2", or "vigiles.baseline/v1"`, false},
		{"another tool's schema", `{"schema": "sarif-2.1.0", "runs": {}}`, 1, 12, `"schema" is "sarif-2.1.0": want "vigiles.baseline/v2", or "vigiles.baseline/v1"`, true},
		{"no schema", `{"runs": {}}`, 1, 1, `want a JSON object with "schema": "vigiles.baseline/v2" (or "vigiles.baseline/v1") and "runs"; it has no "schema"`, true},
		{"unknown field", "{\"schema\": \"vigiles.baseline/v1\",\n \"runs\": {}, \"extra\": 1}", 2, 14, `unknown field "extra"`, false},
		{"runs a list", `{"schema": "vigiles.baseline/v1", "runs": []}`, 1, 43, `"runs": want an object from hook run id to what the run did, found an array`, false},
		{"hosts a string", `{"schema": "vigiles.baseline/v1", "runs": {"h#x": {"hosts": "a.example.test"}}}`, 1, 61, `run "h#x": "hosts": want a list of strings, found a string`, false},
		{"unknown run field", `{"schema": "vigiles.baseline/v1", "runs": {"h#x": {"host": []}}}`, 1, 52, `run "h#x": unknown field "host"`, false},
		{"no outcome", `{"schema": "vigiles.baseline/v1", "runs": {"h#x": {"hosts": []}}}`, 1, 51, `run "h#x": no "outcome": want allowed, blocked, error or not-executable`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := auditRepo(t, hooksV1)
			base := "./.vigiles/../.vigiles/baseline.json" // named as given, not resolved
			if err := os.MkdirAll(filepath.Join(dir, ".vigiles"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".vigiles/baseline.json"), []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
			if err != nil {
				t.Fatal(err)
			}
			var got []report.Finding
			for _, f := range rep.Findings {
				if f.Rule == RuleBaselineInvalid {
					got = append(got, f)
				}
			}
			if len(got) != 1 {
				t.Fatalf("findings %+v", rep.Findings)
			}
			f := got[0]
			prefix := fmt.Sprintf("%s:%d:%d: ", base, tc.line, tc.col)
			fix := fix
			if tc.foreign {
				fix = foreignFix
			}
			if f.Location != (report.Location{File: ".vigiles/baseline.json", Line: tc.line, Column: tc.col}) ||
				!strings.HasPrefix(f.Message, prefix+tc.msg) || !strings.HasSuffix(f.Message, fix) ||
				strings.Contains(f.Message, dir) || strings.Contains(f.Message, "runner.") || strings.Contains(f.Message, "Go value") || strings.Contains(f.Message, "json: ") {
				t.Errorf("finding at %s: %s\nwant at %d:%d: %s…%s", findingLine(f), f.Message, tc.line, tc.col, prefix+tc.msg, fix)
			}
			if rep.Verdict != report.VerdictFail {
				t.Errorf("verdict %s", rep.Verdict)
			}
			_, err = Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
			if tc.foreign {
				// Not overwritten: --baseline named some other file.
				if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "not a vigiles baseline") {
					t.Errorf("--update-baseline over it: %v, want it refused", err)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, ".vigiles/baseline.json")); string(b) != tc.data {
					t.Errorf("--update-baseline overwrote it: %q", b)
				}
				return
			}
			// The fix the message names works.
			if err != nil {
				t.Fatal(err)
			}
			if _, err := LoadBaseline(filepath.Join(dir, ".vigiles/baseline.json")); err != nil {
				t.Errorf("after --update-baseline: %v", err)
			}
		})
	}
}

// TestMergeRefusesShardsOfAnotherRun: shards of one run merge wherever
// the tree lies (another checkout, another machine); a shard of a tree
// with another hook, of another policy or of another baseline took its
// part of another plan, and together with the others it may miss runs
// or hold some twice: merge refuses it, naming both files.
func TestMergeRefusesShardsOfAnotherRun(t *testing.T) {
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	shard := func(dir, command, s string) NamedReport {
		t.Helper()
		o := Options{Dir: dir, Baseline: base, Shard: s, Executor: fakeHooks()}
		var rep *report.Report
		var err error
		if command == "audit" {
			rep, err = Audit(ctx, o)
		} else {
			o.Baseline = ""
			rep, err = Test(ctx, o)
		}
		if err != nil {
			t.Fatal(err)
		}
		if rep.Plan == "" {
			t.Fatalf("shard %s of %s has no plan", s, dir)
		}
		return NamedReport{Name: dir + " " + s, Report: rep}
	}
	const policy = "checks:\n  - {name: one, hook: a, tool: Bash, expect: {no-egress: true}}\n"
	one, copied := auditRepo(t, hooksV1), auditRepo(t, hooksV1)
	// Another commit: a hook more, and the checked one runs another command.
	another := auditRepo(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "true host:api.example.test write:x"}]}],
 "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true write:out.log"}]}], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	otherPolicy, otherBaseline := auditRepo(t, hooksV1), auditRepo(t, hooksV1)
	for _, d := range []string{one, copied, another, otherBaseline} {
		writeFile(t, d, ".vigiles.yml", policy)
	}
	writeFile(t, otherPolicy, ".vigiles.yml", policy+"defaults:\n  timeout: 5s\n")
	writeFile(t, otherBaseline, base, `{"schema": "vigiles.baseline/v1", "runs": {}}`)
	for _, command := range []string{"audit", "test"} {
		if _, err := Merge(shard(one, command, "1/2"), shard(copied, command, "2/2")); err != nil {
			t.Errorf("%s: shards of one tree in two places: %v", command, err)
		}
		others := []string{another, otherPolicy}
		if command == "audit" {
			others = append(others, otherBaseline)
		}
		for _, other := range others {
			_, err := Merge(shard(one, command, "1/2"), shard(other, command, "2/2"))
			if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "are shards of different runs") {
				t.Errorf("%s: a shard of %s beside one of %s: Merge said %v", command, other, one, err)
			}
		}
	}
}

// TestAuditWithoutBaselineNamesWhatAHookDecides: an audit without a
// baseline warns of each run whose output tells Claude Code what to do
// with the call besides blocking it (a permissionDecision allow, which
// skips the permission prompt); a run that decides nothing, and an audit
// against a baseline that keeps it, have none.
func TestAuditWithoutBaselineNamesWhatAHookDecides(t *testing.T) {
	allow := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5}
		if strings.Contains(spec.Command[len(spec.Command)-1], "approve") {
			res.Stdout = `{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}`
		}
		return res, nil
	}}
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "herald approve"}]}], "Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: allow})
	if err != nil {
		t.Fatal(err)
	}
	got := messagesOf(rep.Findings, RuleRunDecides)
	if len(got) != 1 || !strings.Contains(got[0], `project PreToolUse Bash tells Claude Code what to do with the call: {"permissionDecision":"allow"}`) {
		t.Errorf("run/decides findings %q, want the PreToolUse run's", got)
	}
	base := ".vigiles/baseline.json"
	if _, err := Audit(context.Background(), Options{Dir: dir, Executor: allow, Baseline: base, UpdateBaseline: true}); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Executor: allow, Baseline: base})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleRunDecides {
			t.Errorf("against a baseline that keeps it: %s", findingLine(f))
		}
	}
}

// TestDecidesAfterAFailedCheck: a run that decides for the call while its
// stderr reports an error (a guard's grep refusing its pattern) says so,
// with the stderr as evidence; one whose stderr is only talk does not.
func TestDecidesAfterAFailedCheck(t *testing.T) {
	for stderr, want := range map[string]string{
		"checking…\ngrep: unrecognized option '--force'\nUsage: grep [OPTION]... PATTERNS [FILE]...\n": "; its stderr says grep: unrecognized option '--force': what it decided may rest on a check of its that failed",
		"checking the command\n": "",
	} {
		got := decidesNotices([]report.HookRun{{ID: "h", Plugin: "project", Event: PreToolUse, Tool: "Bash", Decides: `{"decision":"approve"}`, Stderr: stderr}}, "`vigiles audit --update-baseline`")
		if len(got) != 1 {
			t.Fatalf("%d findings", len(got))
		}
		if has := strings.Contains(got[0].Message, "; its stderr says "); has != (want != "") || want != "" && !strings.Contains(got[0].Message, want) {
			t.Errorf("stderr %q: message %q, want %q in it", stderr, got[0].Message, want)
		}
		if (got[0].Evidence != "") != (want != "") {
			t.Errorf("stderr %q: evidence %q", stderr, got[0].Evidence)
		}
	}
}

// TestAuditRunsNoHookItsMatcherNeverSelects: a matcher written as a
// permission rule that no tool's name can hold, or that names a tool with
// an argument no tool's name holds (Skill(prp-execute)), or as a
// negation, selects no call Claude Code makes: the audit lists the hook,
// not run, rather than run it for a tool made up to fit ("Bashgit
// status", "Skillprp-execute").
func TestAuditRunsNoHookItsMatcherNeverSelects(t *testing.T) {
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [
		{"matcher": "Bash(git status:*)", "hooks": [{"type": "command", "command": "true rule"}]},
		{"matcher": "!Bash", "hooks": [{"type": "command", "command": "true negation"}]},
		{"matcher": "Skill(prp-execute)", "hooks": [{"type": "command", "command": "true skill"}]},
		{"matcher": "Task(Explore)", "hooks": [{"type": "command", "command": "true task"}]},
		{"matcher": "Bash(.*)", "hooks": [{"type": "command", "command": "true bash"}]}],
		"Stop": [{"matcher": "!x", "hooks": [{"type": "command", "command": "true stop"}]},
		{"matcher": "(", "hooks": [{"type": "command", "command": "true stop2"}]}]}}`})
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, r := range rep.Runs {
		tools = append(tools, r.Tool)
	}
	// Stop ignores its matcher: Claude Code runs its hooks whatever the
	// matcher says, so must the audit.
	if !slices.Equal(tools, []string{"Bash", "", ""}) {
		t.Errorf("runs for tools %q, want the Bash(.*) hook's, for Bash, and the two Stop hooks'", tools)
	}
	for _, f := range rep.Findings {
		if f.Rule == RuleBadMatcher && strings.Contains(f.Message, "Stop[") {
			t.Errorf("a matcher Stop ignores is said to keep its hook from running: %s", f.Message)
		}
	}
	notRun := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleNoRun && strings.Contains(f.Message, "so it never runs") {
			notRun++
		}
	}
	if notRun != 4 {
		t.Errorf("%d plan/not-run findings say the hook never runs, want 4: %+v", notRun, rep.Findings)
	}
}

// TestCheckByRunID: a check that selects a hook by a run's ID, as a report
// or a baseline shows it (the hook's ID, "@", the tool), is told to split
// it into hook: and tool:.
func TestCheckByRunID(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	os.WriteFile(filepath.Join(dir, ".vigiles.yml"), []byte("checks:\n  - name: by run\n    hook: \"plugins/a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash\"\n    event: PreToolUse\n    expect: {no-egress: true}\n"), 0o644)
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	want := `is a run's ID, the hook's and the tool it ran for: select the hook with hook: plugins/a/hooks/hooks.json#hooks.PreToolUse[0].hooks[0] and the call with tool: Bash`
	if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return strings.Contains(f.Message, want) }) {
		t.Errorf("no finding says %q: %+v", want, rep.Findings)
	}
}

// TestRefusedRunIsNoOutcomeDrift: a run the sandbox refused has vigiles'
// outcome, not the hook's: it is a run/refused error, not also a
// baseline/outcome drift against a baseline that says what the hook did.
func TestRefusedRunIsNoOutcomeDrift(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	refuse := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierRefused, Refusal: "choosing the network connector: no /dev/net/tun"}, nil
	}}
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: refuse})
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleDriftPrefix + DriftOutcome:
			t.Errorf("a refused run is outcome drift: %s", f.Message)
		case RuleRunRefused:
			refused++
		}
	}
	if refused == 0 {
		t.Errorf("no run/refused finding: %+v", rep.Findings)
	}
}

// TestBaselineFixNamesItsFile: the fix a baseline finding names works for
// a baseline named with --baseline: the command names the file, and where
// its directory is not there, says to make it first.
func TestBaselineFixNamesItsFile(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	os.MkdirAll(filepath.Join(dir, "ci"), 0o755)
	os.WriteFile(filepath.Join(dir, "ci/base.json"), []byte(`{"schema": "vigiles.baseline/v2", "runs": []}`), 0o644)
	outside := filepath.Join(t.TempDir(), "nodir", "b.json")
	for _, tc := range []struct{ base, rule, want string }{
		{"ci/base.json", RuleBaselineInvalid, "run `vigiles audit --update-baseline --baseline ci/base.json` to rewrite it"},
		{outside, RuleBaselineMissing, "run `vigiles audit --update-baseline --baseline " + outside + "` to create it, after you make its directory (mkdir -p " + filepath.Dir(outside) + "): vigiles makes none outside the work tree"},
		{"ci/new/b.json", RuleBaselineMissing, "run `vigiles audit --update-baseline --baseline ci/new/b.json` to create it"},
	} {
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: tc.base, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Rule == tc.rule })
		if i < 0 || !strings.Contains(rep.Findings[i].Message, tc.want) || tc.base == "ci/new/b.json" && strings.Contains(rep.Findings[i].Message, "mkdir") {
			t.Errorf("%s: findings %+v, want a %s that says %q", tc.base, rep.Findings, tc.rule, tc.want)
		}
	}
}

// TestUnusableBaselineIsToldBeforeAnyRun: a named baseline that is not
// there, or one that does not parse, was found only after every hook had
// run; it is read before, said in the progress before the plan's line,
// and what a run does to the file is not what is compared with.
func TestUnusableBaselineIsToldBeforeAnyRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		baseline []byte // nil: no file
		rule     string
	}{
		{"missing", nil, RuleBaselineMissing},
		{"truncated", []byte(`{"schema": "vigiles.baseline/v2", "runs": {`), RuleBaselineInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := auditRepo(t, hooksV1)
			base := filepath.Join(dir, "base.json")
			if tc.baseline != nil {
				os.WriteFile(base, tc.baseline, 0o644)
			}
			var mu sync.Mutex
			var progress strings.Builder
			var atFirstRun *string
			fake := fakeHooks()
			ex := &runnertest.Canned{F: func(spec sandbox.Spec, in []byte) (*sandbox.Result, error) {
				mu.Lock()
				if atFirstRun == nil {
					p := progress.String()
					atFirstRun = &p
					// A run that leaves a valid baseline where there was
					// none or a broken one: not the file compared with.
					os.WriteFile(base, []byte(`{"schema": "vigiles.baseline/v2", "runs": {}}`), 0o644)
				}
				mu.Unlock()
				return fake.F(spec, in)
			}}
			rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: "base.json", BaselineNamed: true, Executor: ex, Jobs: 1,
				Progress: writerFunc(func(b []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return progress.Write(b) })})
			if err != nil {
				t.Fatal(err)
			}
			if atFirstRun == nil {
				t.Fatal("no hook ran")
			}
			lines := strings.Split(*atFirstRun, "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], tc.rule+": ") || !strings.HasSuffix(lines[0], "the hooks run, and nothing is compared with it") ||
				!strings.Contains(lines[1], "hook run(s) planned") {
				t.Errorf("progress when the first hook ran:\n%s\nwant a %s line first, then the plan's", *atFirstRun, tc.rule)
			}
			if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return f.Rule == tc.rule && f.Severity == report.SeverityError }) {
				t.Errorf("no %s error among %+v", tc.rule, rep.Findings)
			}
		})
	}
}

// writerFunc is an io.Writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestNamedBaselineMissingIsAnError: a baseline the user named (a flag, an
// input) that is not there is an error, since a mistyped path, or a change
// that deletes the baseline, would otherwise turn the comparison off with a
// notice and let every new host and write pass; the default one, not named,
// stays a notice (a repository that has none yet). Writing it is no finding.
func TestNamedBaselineMissingIsAnError(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	for _, tc := range []struct {
		named, update bool
		want          report.Severity // "": no baseline/missing finding
	}{
		{named: false, want: report.SeverityNotice},
		{named: true, want: report.SeverityError},
		{named: true, update: true},
	} {
		base := ".vigiles/baseline.jsn"
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, BaselineNamed: tc.named, UpdateBaseline: tc.update, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(dir, base))
		i := slices.IndexFunc(rep.Findings, func(f report.Finding) bool { return f.Rule == RuleBaselineMissing })
		switch {
		case tc.want == "" && i >= 0:
			t.Errorf("named %v, update %v: a %s finding %+v, want none", tc.named, tc.update, RuleBaselineMissing, rep.Findings[i])
		case tc.want == "":
		case i < 0:
			t.Errorf("named %v: no %s finding in %+v", tc.named, RuleBaselineMissing, rep.Findings)
		case rep.Findings[i].Severity != tc.want:
			t.Errorf("named %v: %s is a %s, want a %s: %s", tc.named, RuleBaselineMissing, rep.Findings[i].Severity, tc.want, rep.Findings[i].Message)
		case tc.named && !strings.Contains(rep.Findings[i].Message, "check the path"):
			t.Errorf("named: the message does not say to check the path: %s", rep.Findings[i].Message)
		}
		if tc.named && !tc.update && rep.Verdict != report.VerdictFail {
			t.Errorf("named and missing: verdict %s, want fail", rep.Verdict)
		}
	}
}

// TestShardsMergeGroupsAcrossTools: a hook whose matcher takes every tool
// and that fails alike and tries the same host for each is one
// run/hook-error and one run/egress finding in the whole audit, and so in
// the merge of its shards, which split its runs between them.
func TestShardsMergeGroupsAcrossTools(t *testing.T) {
	dir := auditRepo(t, `{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "true host:api.example.test"}]}]}}`)
	ex := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5}
		if strings.Contains(spec.Command[len(spec.Command)-1], "host:api.example.test") {
			res.ExitCode, res.Stderr = 1, "curl: (6) Could not resolve host: api.example.test\n"
			res.Egress = append(res.Egress, evidence.Egress{Host: "api.example.test", Via: evidence.ViaDNS, Attempts: 1})
		}
		return res, nil
	}}
	grouped := func(rep *report.Report) []string {
		var out []string
		for _, f := range rep.Findings {
			if f.Rule == RuleRunHookError || f.Rule == RuleRunEgress && strings.HasPrefix(f.Message, "a PostToolUse") {
				out = append(out, f.Rule+": "+f.Message)
			}
		}
		return out
	}
	whole, err := Audit(context.Background(), Options{Dir: dir, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	want := grouped(whole)
	if len(want) != 2 || !strings.Contains(want[0]+want[1], "for each of the 8 tools its matcher takes") {
		t.Fatalf("the whole audit's findings of the hook: %q, want one of each, grouped", want)
	}
	var parts []NamedReport
	for i := 1; i <= 3; i++ {
		p, err := Audit(context.Background(), Options{Dir: dir, Executor: ex, Shard: fmt.Sprintf("%d/3", i)})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, NamedReport{Name: fmt.Sprintf("part-%d.json", i), Report: p})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, grouped(merged)); diff != "" {
		t.Errorf("merged shards group otherwise than the whole audit (-whole +merged):\n%s", diff)
	}
}
