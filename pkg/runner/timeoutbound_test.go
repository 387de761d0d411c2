package runner

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// The blocked-host sentence of a run/timeout warning, by whose bound
// ended the run.
const (
	hintBlocked   = "; it tried to reach registry.example.test, which the egress policy blocked: a hook that waits on the network (a package runner retrying its registry) runs out its time so"
	hintAllow     = "; to run it with the host reachable, allow it (--egress allow --allow HOST, or defaults.egress {mode: allow, allow: [HOST]} in the policy)"
	hintOffline   = hintBlocked + ", as it would where Claude Code runs offline" + hintAllow
	hintSooner    = hintBlocked + ", here at vigiles' bound, sooner than Claude Code would end it" + hintAllow
	hintCommand   = hintBlocked + hintAllow
	carriesOn     = "; the agent cancels the hook and carries on"
	defaultBudget = "vigiles' default audit budget (the policy sets no defaults.timeout)"
)

// TestTimedOutSaysWhoseBound: a run ended at its timeout says whose
// timeout that was. At the hook's own, or at Claude Code's default for
// its event, the agent cancels the hook and carries on, as in Claude
// Code. At vigiles' bound, sooner (its audit budget, defaults.timeout, a
// check's timeout, a cap of the hook's own), the reason says that
// Claude Code would still be waiting, up to when, and how to give the
// audit that long; the run/timeout warning does not say that Claude Code
// runs out its time too where the hook waits on a blocked host. Past
// Claude Code's (a SessionEnd hook, 1.5 s, which a plugin's own timeout
// does not raise), it says that Claude Code would have ended it then and
// vigiles let it run to record it. A hook
// without a timeout of its own was told "carries on" at 60 s, where
// Claude Code waits 10 minutes, and a SessionEnd hook the same at 60 s,
// where Claude Code ends it at 1.5 s.
func TestTimedOutSaysWhoseBound(t *testing.T) {
	for _, tc := range []struct {
		name    string
		event   string
		timeout string // the hook's own "timeout", in seconds ("" for none)
		block   bool   // the handler sets onFailure "block"
		async   bool   // the handler is async
		rewake  bool   // the handler is asyncRewake
		policy  string // .vigiles.yml ("" for none: an audit)
		reason  string
		hint    string
	}{
		{name: "its own timeout", event: Stop, timeout: "5",
			reason: "timed out after 5000 ms" + carriesOn, hint: hintOffline},
		{name: "Claude Code's default for its event", event: UserPromptSubmit,
			reason: "timed out after 30000 ms" + carriesOn + " (vigiles waited 30s, not 1m: Claude Code ends the hook at 30s, its default for UserPromptSubmit hooks)", hint: hintOffline},
		{name: "no timeout of its own, vigiles' audit budget", event: Stop,
			reason: "timed out after 60000 ms, at vigiles' bound, not Claude Code's: it waited 1m, " + defaultBudget + ", and Claude Code would still be waiting for it (it waits up to 10m, its default for Stop hooks); to audit it that long, set defaults.timeout: 10m in .vigiles.yml",
			hint:   hintSooner},
		{name: "no timeout of its own, defaults.timeout", event: Stop, policy: "version: 1\ndefaults: {timeout: 2s}\n",
			reason: "timed out after 2000 ms, at vigiles' bound, not Claude Code's: it waited 2s, the policy's defaults.timeout, and Claude Code would still be waiting for it (it waits up to 10m, its default for Stop hooks); to audit it that long, set defaults.timeout: 10m in .vigiles.yml",
			hint:   hintSooner},
		{name: "its own timeout capped at defaults.timeout", event: Stop, timeout: "3600", policy: "version: 1\ndefaults: {timeout: 2s}\n",
			reason: "timed out after 2000 ms, at vigiles' bound, not Claude Code's: its own timeout of 1h was capped at 2s, the policy's defaults.timeout, and Claude Code would still be waiting for it (it waits up to 1h, its own timeout); to audit it that long, set defaults.timeout: 1h in .vigiles.yml",
			hint:   hintSooner},
		{name: "its own timeout past the longest the policy takes", event: Stop, timeout: "172800",
			reason: "timed out after 600000 ms, at vigiles' bound, not Claude Code's: its own timeout of 48h was capped at 10m, the longest vigiles waits for a hook when the policy sets no defaults.timeout, and Claude Code would still be waiting for it (it waits up to 48h, its own timeout); to audit it as long as vigiles can, set defaults.timeout: 24h in .vigiles.yml",
			hint:   hintSooner},
		{name: "SessionEnd, past Claude Code's budget", event: SessionEnd,
			reason: "timed out after 60000 ms, at 1m, " + defaultBudget + ": Claude Code would have ended it at 1.5s (the budget SessionEnd hooks share), and vigiles let it run longer to record what it does",
			hint:   hintOffline},
		{name: "SessionEnd at its own timeout", event: SessionEnd, timeout: "1",
			reason: "timed out after 1000 ms" + carriesOn, hint: hintOffline},
		{name: "SessionEnd, a plugin's own timeout past the budget", event: SessionEnd, timeout: "5",
			reason: "timed out after 5000 ms, at 5s, its own timeout: Claude Code would have ended it at 1.5s (the budget SessionEnd hooks share, which a plugin's own timeout does not raise), and vigiles let it run longer to record what it does",
			hint:   hintOffline},
		{name: "a check's timeout", event: Stop, policy: "version: 1\nchecks:\n  - {name: c, hook: p, event: Stop, timeout: 2s, expect: {outcome: error}}\n",
			reason: "timed out after 2000 ms, at vigiles' bound, not Claude Code's: it waited 2s, the check's timeout, and Claude Code would still be waiting for it (it waits up to 10m, its default for Stop hooks); to audit it that long, give the check timeout: 10m",
			hint:   hintSooner},
		{name: "a check without one, defaults.timeout", event: Stop, policy: "version: 1\ndefaults: {timeout: 2s}\nchecks:\n  - {name: c, hook: p, event: Stop, expect: {outcome: error}}\n",
			reason: "timed out after 2000 ms, at vigiles' bound, not Claude Code's: it waited 2s, the policy's defaults.timeout, and Claude Code would still be waiting for it (it waits up to 10m, its default for Stop hooks); to audit it that long, give the check timeout: 10m, or set defaults.timeout: 10m in .vigiles.yml",
			hint:   hintSooner},
		{name: "its own timeout, onFailure block", event: PostToolBatch, timeout: "5", block: true,
			reason: "timed out after 5000 ms; the agent cancels the hook and, as its onFailure block says, blocks the call", hint: hintOffline},
		{name: "vigiles' audit budget, onFailure block", event: PostToolBatch, block: true,
			reason: "timed out after 60000 ms, at vigiles' bound, not Claude Code's: it waited 1m, " + defaultBudget + ", and Claude Code would still be waiting for it (it waits up to 10m, its default for PostToolBatch hooks); to audit it that long, set defaults.timeout: 10m in .vigiles.yml; its onFailure block makes Claude Code block the call when the hook times out",
			hint:   hintSooner},
		{name: "PreModelSwitch, whose timeout blocks the switch", event: PreModelSwitch, timeout: "5",
			reason: "timed out after 5000 ms; the agent cancels the hook and blocks the model switch, as it does whenever a PreModelSwitch hook times out", hint: hintOffline},
		{name: "PreModelSwitch, Claude Code's 30 s", event: PreModelSwitch,
			reason: "timed out after 30000 ms; the agent cancels the hook and blocks the model switch, as it does whenever a PreModelSwitch hook times out (vigiles waited 30s, not 1m: Claude Code ends the hook at 30s, its default for PreModelSwitch hooks)", hint: hintOffline},
		{name: "onFailure block on an async hook, which Claude Code ignores, as it does its timeout", event: PostToolBatch, timeout: "5", block: true, async: true,
			reason: "async: the agent does not wait for the hook, and Claude Code does not enforce an async hook's timeout, so it would have let the hook run on; vigiles ended it after 5000 ms, at 5s (its own timeout): what it did after that is not in the record", hint: hintOffline},
		{name: "an asyncRewake hook, whose timeout Claude Code keeps", event: PostToolBatch, timeout: "5", rewake: true,
			reason: "async: the agent does not wait for the hook, so its failure stops nothing (timed out after 5000 ms" + carriesOn + ")", hint: hintOffline},
		{name: "onFailure block on Stop, which Claude Code ignores there", event: Stop, timeout: "5", block: true,
			reason: "timed out after 5000 ms" + carriesOn, hint: hintOffline},
		{name: "onFailure block where exit 2 does not block", event: SessionStart, timeout: "5", block: true,
			reason: "timed out after 5000 ms" + carriesOn, hint: hintOffline},
		{name: "a command: check", event: Stop, policy: "version: 1\nchecks:\n  - {name: c, command: sleep 9, event: Stop, timeout: 2s, expect: {outcome: error}}\n",
			reason: "timed out after 2000 ms, at 2s, the check's timeout; the agent cancels a hook at its timeout and carries on",
			hint:   hintCommand},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handler := `{"type": "command", "command": "npx tool"`
			if tc.timeout != "" {
				handler += `, "timeout": ` + tc.timeout
			}
			if tc.block {
				handler += `, "onFailure": "block"`
			}
			if tc.async {
				handler += `, "async": true`
			}
			if tc.rewake {
				handler += `, "asyncRewake": true`
			}
			files := map[string]string{"plugins/p/hooks/hooks.json": `{"hooks": {"` + tc.event + `": [{"hooks": [` + handler + `}]}]}}`}
			if tc.policy != "" {
				files[".vigiles.yml"] = tc.policy
			}
			dir := makeTree(t, files)
			exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, DurationMs: float64(spec.Timeout.Milliseconds()),
					Writes: []evidence.Write{}, Egress: []evidence.Egress{{Host: "registry.example.test", Proto: "dns", Via: evidence.ViaDNS, Attempts: 3}}}, nil
			}}
			run := Audit
			if strings.Contains(tc.policy, "checks:") {
				run = Test
			}
			rep, err := run(context.Background(), Options{Dir: dir, Executor: exec, Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) == 0 {
				t.Fatalf("no runs: %v", findingLines(rep.Findings))
			}
			warned := map[string]string{}
			for _, f := range rep.Findings {
				if f.Rule == RuleRunTimeout {
					warned[f.Hook] = f.Message
				}
			}
			for _, r := range rep.Runs {
				if r.Reason != tc.reason {
					t.Errorf("%s: reason\n got %s\nwant %s", r.ID, r.Reason, tc.reason)
				}
				if want := r.ID + ": " + tc.reason + tc.hint; warned[r.ID] != want {
					t.Errorf("%s: %s\n got %s\nwant %s", r.ID, RuleRunTimeout, warned[r.ID], want)
				}
				if strings.ContainsAny(warned[r.ID], "\r\n") {
					t.Errorf("%s: the message carries a line break: %q", r.ID, warned[r.ID])
				}
			}
		})
	}
}

// TestTimeoutUnderParallelRuns: a hook that ran out of a short timeout
// (under 10 s) in an audit that ran more than one hook at once is told
// that runs sharing the machine's cores can take it past it and that
// --jobs 1 times it alone (a hook with a timeout of 3 s took 1.7 s alone and 3.06 s under a
// parallel audit). Alone, or past a long timeout, it is not.
func TestTimeoutUnderParallelRuns(t *testing.T) {
	const note = "; the plan ran up to 2 hooks at a time (--jobs, the Action's jobs input; one per core by default), and other runs sharing the machine's cores can take a hook past a timeout as short as 3s: --jobs 1 times it alone"
	for _, tc := range []struct {
		name    string
		timeout string
		jobs    int
		want    string
	}{
		{"its own short timeout, two at a time", "3", 2, "timed out after 3000 ms" + carriesOn + note},
		{"its own short timeout, one at a time", "3", 1, "timed out after 3000 ms" + carriesOn},
		{"a long timeout, two at a time", "30", 2, "timed out after 30000 ms" + carriesOn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "slow", "timeout": ` + tc.timeout + `},
  {"type": "command", "command": "quick"}]}]}}`})
			exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
				res := &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: []evidence.Egress{}, DurationMs: 5}
				if spec.Command[len(spec.Command)-1] == "slow" {
					res.TimedOut, res.ExitCode, res.DurationMs = true, 137, float64(spec.Timeout.Milliseconds())
				}
				return res, nil
			}}
			rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec, Jobs: tc.jobs})
			if err != nil {
				t.Fatal(err)
			}
			got := messagesOf(rep.Findings, RuleRunTimeout)
			want := []string{"plugins/p/hooks/hooks.json#hooks.Stop[0].hooks[0]: " + tc.want}
			if strings.Join(got, "\n") != want[0] {
				t.Errorf("%s:\n got %q\nwant %q", RuleRunTimeout, got, want)
			}
		})
	}
	// A record made apart from an audit's lanes says nothing of them.
	e := executed{run: report.HookRun{ID: "h", Tier: "confined", Outcome: report.OutcomeError, TimedOut: true, Reason: "r"}, ended: 3 * time.Second}
	if fs := runFailure(e); len(fs) != 1 || fs[0].Message != "h: r" {
		t.Errorf("no lanes known: %+v", fs)
	}
}

// TestTimeoutNoteIsTheWholePlans audits, confined and with --jobs 2, a
// hook that runs out of its 1 s timeout beside two quick ones, whole and
// in three shards, one run each: the shard that ran the slow hook alone
// says of it what the whole audit says, the plan's two at a time, so
// that the merge of the shards is the whole audit's report (durations
// aside).
func TestTimeoutNoteIsTheWholePlans(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "sleep 5", "timeout": 1},
  {"type": "command", "command": "true"},
  {"type": "command", "command": "true"}]}]}}`})
	ms := regexp.MustCompile(`after \d+ ms`)
	timeouts := func(rep *report.Report) []string {
		var out []string
		for _, m := range messagesOf(rep.Findings, RuleRunTimeout) {
			out = append(out, ms.ReplaceAllString(m, "after … ms"))
		}
		return out
	}
	whole, err := Audit(context.Background(), Options{Dir: dir, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := timeouts(whole)
	if len(want) != 1 || !strings.Contains(want[0], "; the plan ran up to 2 hooks at a time (--jobs") {
		t.Fatalf("the whole audit's run/timeout: %q, want one with the plan's 2 at a time", want)
	}
	var parts []NamedReport
	alone := false
	for i := 1; i <= 3; i++ {
		p, err := Audit(context.Background(), Options{Dir: dir, Jobs: 2, Shard: fmt.Sprintf("%d/3", i)})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Runs) == 1 && len(timeouts(p)) == 1 {
			alone = true
			if diff := cmp.Diff(want, timeouts(p)); diff != "" {
				t.Errorf("the shard that ran the slow hook alone (-whole +shard):\n%s", diff)
			}
		}
		parts = append(parts, NamedReport{Name: fmt.Sprintf("part-%d.json", i), Report: p})
	}
	if !alone {
		t.Fatal("no shard ran the slow hook alone")
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, timeouts(merged)); diff != "" {
		t.Errorf("merged shards' run/timeout (-whole +merged):\n%s", diff)
	}
}
