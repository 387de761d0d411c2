package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAuditWarnsOfLeftoverProcesses audits, confined and without a
// baseline, a Stop hook that leaves a detached child to write a file (as
// a plugin sends its report from a child it does not wait for): the
// sandbox ends the child at once (linger 0s), and its write is not in the
// record, so the run's writes, [] there, are not all it would have done.
// A run/lingered warning says so and names defaults.linger; with a linger
// the child finishes within, the write is recorded and no warning is
// given.
func TestAuditWarnsOfLeftoverProcesses(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` +
			`"nohup sh -c 'sleep 0.3; echo x > leak.txt' >/dev/null 2>&1 &"}]}]}}`,
	})
	rep, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	msgs := messagesOf(rep.Findings, RuleRunLingered)
	// The child's sh, and its sleep where the sh had started it by then
	// (a loaded machine's fork may come later): one process or two.
	if len(msgs) != 1 || !strings.Contains(msgs[0], "left a process running") && !strings.Contains(msgs[0], "left 2 processes running") ||
		!strings.Contains(msgs[0], "defaults.linger") || !strings.Contains(msgs[0], "which the sandbox ended after the linger period") {
		t.Fatalf("run/lingered findings %q, want one saying the sandbox ended them, naming defaults.linger; all: %v", msgs, findingLines(rep.Findings))
	}
	writeFile(t, dir, ".vigiles.yml", "defaults:\n  linger: 10s\n")
	rep, err = Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	if msgs := messagesOf(rep.Findings, RuleRunLingered); len(msgs) != 0 {
		t.Errorf("with a linger the child finishes within: run/lingered %q", msgs)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Writes) != 1 || rep.Runs[0].Writes[0].Path != "leak.txt" {
		t.Errorf("with a linger the child's write is recorded: %+v", rep.Runs)
	}
}

// listsTheChild says whether a run/lingered evidence lists the hook's
// detached child: by its command line (the shell's it forked from, nohup
// sleep 30, or sleep 30 once it exec'd), or, listed while it exec'd, when
// the kernel shows an empty command line, by its name: ["sh"] while the
// forked shell execs nohup (the name changes only once the new program's
// memory is in place), ["nohup"] while nohup execs sleep, ["sleep"].
func listsTheChild(ev string) bool {
	return strings.Contains(ev, "sleep 30") ||
		strings.Contains(ev, `["sh"]`) || strings.Contains(ev, `["nohup"]`) || strings.Contains(ev, `["sleep"]`)
}

// TestLingeredGroupedAcrossTools audits, confined, a PostToolUse hook whose
// "*" matcher takes every tool and that leaves a detached child each run:
// the whole audit has one run/lingered warning that names the tools, not
// one a tool at the same line; each shard's runs are some of the tools',
// and leave theirs ungrouped; merge groups them as the whole audit did.
func TestLingeredGroupedAcrossTools(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		".claude/settings.json": `{"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": ` +
			`"nohup sleep 30 >/dev/null 2>&1 &"}]}]}}`,
	})
	lingered := func(rep *report.Report) (msgs, evidence []string) {
		for _, f := range rep.Findings {
			if f.Rule == RuleRunLingered {
				msgs = append(msgs, f.Message)
				evidence = append(evidence, f.Evidence)
			}
		}
		return msgs, evidence
	}
	whole, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, ev := lingered(whole)
	if len(whole.Runs) != 8 || len(msgs) != 1 ||
		!strings.Contains(msgs[0], "project PostToolUse, run for each of the 8 tools its matcher takes (") ||
		!strings.Contains(msgs[0], "), left a process running when it exited") || !listsTheChild(ev[0]) {
		t.Fatalf("the whole audit's run/lingered of %d runs: %q, evidence %q; want one naming the 8 tools, with the first run's process", len(whole.Runs), msgs, ev)
	}
	var parts []NamedReport
	for i := 1; i <= 3; i++ {
		p, err := Audit(context.Background(), Options{Dir: dir, Sandbox: "strict", Shard: fmt.Sprintf("%d/3", i)})
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := lingered(p); len(m) != len(p.Runs) {
			t.Errorf("shard %d/3: %d run/lingered of %d runs, want one a run, ungrouped: %q", i, len(m), len(p.Runs), m)
		}
		parts = append(parts, NamedReport{Name: fmt.Sprintf("part-%d.json", i), Report: p})
	}
	merged, err := Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	// The evidence is the first run's processes, as they were when
	// listed: that run's own, which its run in a shard may have listed
	// before or after its child exec'd sleep.
	mm, _ := lingered(merged)
	if diff := cmp.Diff(msgs, mm); diff != "" {
		t.Errorf("merged shards group run/lingered otherwise than the whole audit (-whole +merged):\n%s", diff)
	}
}
