package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestTrustedCheckLeavingAProcessIsNotAPass runs, directly (trusted: true
// in auto mode), a check whose command exits at once and leaves a child
// that answers {"decision":"block"} after it: the run's lingered list
// names the child, so allowed: true is expect/not-recorded, never a pass
// on output that was not all the hook would print (a direct run's
// lingered list read as none before). A check whose command leaves
// nothing still passes. With a linger the child answers within, the
// late block is read, and allowed: true fails on it.
func TestTrustedCheckLeavingAProcessIsNotAPass(t *testing.T) {
	checks := "checks:\n" +
		"  - name: late\n    trusted: true\n    event: Stop\n" +
		"    command: \"(sleep 0.3; echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"late\\\"}') & exit 0\"\n" +
		"    expect: {allowed: true}\n" +
		"  - name: quiet\n    trusted: true\n    event: Stop\n    command: \"echo done\"\n    expect: {allowed: true}\n"
	dir := makeTree(t, map[string]string{".vigiles.yml": checks})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Tier != "direct" {
			t.Fatalf("run %s: tier %q, want direct", r.ID, r.Tier)
		}
	}
	var late, other []report.Finding
	for _, f := range rep.Findings {
		switch {
		case strings.HasPrefix(f.Title, `check "late"`):
			late = append(late, f)
		case strings.HasPrefix(f.Title, `check "quiet"`):
			other = append(other, f)
		}
	}
	if len(late) != 1 || late[0].Rule != RuleNotRecorded || !strings.Contains(late[0].Message, "left processes running") ||
		!strings.Contains(late[0].Evidence, "sleep") {
		t.Errorf("check late: %v; want one %s naming the process left", findingLines(late), RuleNotRecorded)
	}
	if len(other) != 0 {
		t.Errorf("check quiet: %v, want it to pass", findingLines(other))
	}
	if rep.Verdict == report.VerdictPass {
		t.Errorf("verdict %s, want check late to fail it", rep.Verdict)
	}

	writeFile(t, dir, ".vigiles.yml", "defaults:\n  linger: 20s\n"+checks)
	rep, err = Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	late = nil
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.Title, `check "`) {
			late = append(late, f)
		}
	}
	if len(late) != 1 || late[0].Rule != RuleExpectPrefix+ExpAllowed || !strings.Contains(late[0].Message, "blocked") {
		t.Errorf("with a linger: %v; want check late's allowed to fail on the late block alone", findingLines(late))
	}
}

// TestTrustedRunLingeredSaysVigilesEndedIt runs, with vigiles test, a
// trusted check (tier direct) that leaves a child running: its
// run/lingered warning says vigiles ended the child, as no sandbox ran
// it, and names the output the run did not read.
// (TestAuditWarnsOfLeftoverProcesses holds a confined run's words.)
func TestTrustedRunLingeredSaysVigilesEndedIt(t *testing.T) {
	dir := makeTree(t, map[string]string{".vigiles.yml": "checks:\n" +
		"  - name: open\n    trusted: true\n    event: Stop\n    command: \"(sleep 5) & exit 0\"\n    expect: {exit-code: 0}\n"})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Tier != "direct" {
		t.Fatalf("runs %+v, want one of tier direct; findings %v", rep.Runs, findingLines(rep.Findings))
	}
	msgs := messagesOf(rep.Findings, RuleRunLingered)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "running when it exited, which vigiles ended after the linger period") ||
		strings.Contains(msgs[0], "sandbox") || !strings.Contains(msgs[0], "output they print") {
		t.Errorf("the direct run's run/lingered: %q; want one saying vigiles ended what it left, naming no sandbox; all: %v", msgs, findingLines(rep.Findings))
	}
}
