package runner

import (
	"context"
	"strings"
	"testing"

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
	if len(msgs) != 1 || !strings.Contains(msgs[0], "left a process running") || !strings.Contains(msgs[0], "defaults.linger") {
		t.Fatalf("run/lingered findings %q, want one naming defaults.linger; all: %v", msgs, findingLines(rep.Findings))
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
