package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAbsoluteRegexThatNeverMatchesIsRefused: written paths are recorded
// relative to the work tree or as ~/…, $TMPDIR/…, /dev/shm/… or /var/tmp/…, so a re:
// pattern anchored on another absolute path never matches one. ^/tmp was
// refused, but (?i)^/tmp/, \A/tmp/ and ^(/tmp)/ were not: no-write of
// them passed on a hook that wrote /tmp/x (recorded $TMPDIR/x). Each is
// now a config/invalid error, and its check does not run; the form that
// matches the record ('^\$TMPDIR/') runs, confined, and fails; a pattern
// that may match under /dev/shm/ without case is kept.
func TestAbsoluteRegexThatNeverMatchesIsRefused(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := makeTree(t, map[string]string{
		"plugins/p/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo x > /tmp/x"}]}]}}`,
		".vigiles.yml": "version: 1\nchecks:\n" +
			"  - {name: folded, hook: p, event: Stop, expect: {no-write: ['re:(?i)^/tmp/']}}\n" +
			"  - {name: text start, hook: p, event: Stop, expect: {no-write: ['re:\\A/tmp/']}}\n" +
			"  - {name: grouped, hook: p, event: Stop, expect: {no-write: ['re:^(/tmp)/']}}\n" +
			"  - {name: recorded, hook: p, event: Stop, expect: {no-write: ['re:^\\$TMPDIR/', 're:(?i)^/DEV/shm/']}}\n",
	})
	rep, err := Test(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, f := range rep.Findings {
		if f.Rule == RuleConfig && strings.Contains(f.Message, "can never match") {
			lines = append(lines, f.Location.Line)
		}
	}
	if len(lines) != 3 || lines[0] != 3 || lines[1] != 4 || lines[2] != 5 {
		t.Errorf("never-match errors at lines %v, want 3, 4 and 5:\n%s", lines, strings.Join(findingLines(rep.Findings), "\n"))
	}
	if len(rep.Runs) != 1 || rep.Runs[0].Check != "recorded" || rep.Runs[0].Tier != "confined" {
		t.Fatalf("runs %+v, want the recorded check's alone, confined", rep.Runs)
	}
	failed := false
	for _, f := range rep.Findings {
		failed = failed || f.Rule == RuleExpectPrefix+ExpNoWrite && strings.Contains(f.Message, "$TMPDIR/x")
	}
	if !failed || rep.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, no-write of $TMPDIR/x failed: %v:\n%s", rep.Verdict, failed, strings.Join(findingLines(rep.Findings), "\n"))
	}
}
