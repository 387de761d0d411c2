package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestStamplessMatchesDatesAndTimesOnly: two paths are one baseline write
// where they differ only in a date (YYYY-MM-DD, YYYY_MM_DD, YYYYMMDD) and
// the time after it; a digit run that is no valid date, or a date inside
// a longer one, stays as written, and so does a path that differs
// anywhere else.
func TestStamplessMatchesDatesAndTimesOnly(t *testing.T) {
	same := [][2]string{
		{"~/.claude/hooks-logs/2026-12-04.jsonl", "~/.claude/hooks-logs/2026-12-05.jsonl"},
		{"~/.npm/_logs/2026-12-04T12_34_56_789Z-debug-0.log", "~/.npm/_logs/2026-12-05T01_02_03_004Z-debug-0.log"},
		{"logs/2026-12-04T12:34:56.789Z.log", "logs/2025-01-31T23:59:59Z.log"},
		{"logs/2026-12-04T12:34:56.log", "logs/2026-12-05.log"},
		{"logs/run-2026-12-04-12-34-56.txt", "logs/run-2026-12-05-00-00-00.txt"},
		{"logs/2026_12_04/out", "logs/2024_02_29/out"},
		{"backup-20261204.tar", "backup-20261205.tar"},
		{"2026-12-04/2026-12-04.md", "2026-12-05/2026-12-03.md"},
	}
	for _, c := range same {
		if a, b := stampless(c[0]), stampless(c[1]); a != b {
			t.Errorf("%s and %s: %q and %q, want one", c[0], c[1], a, b)
		}
	}
	for _, p := range []string{"build-20261399", "v2026-12-40", "x/2026-02-30.log", "2025_02_29", "120261204", "202612045", "2026-12_04", "2026-12-045", "notes.txt", "2026-1-04"} {
		if got := stampless(p); got != p {
			t.Errorf("%s: %q, want it as written", p, got)
		}
	}
	differ := [][2]string{
		{"~/.claude/hooks-logs/2026-12-04.jsonl", "~/.claude/other-logs/2026-12-05.jsonl"},
		{"logs/2026-12-04.jsonl", "logs/2026-12-05.json"},
		{"build-20261399", "build-20261398"},
		{"v2026-12-40", "v2026-12-41"},
		{"logs/2026-12-04T12:34:56.log", "logs/2026-12-04T12:34:567.log"},
	}
	for _, c := range differ {
		if stampless(c[0]) == stampless(c[1]) {
			t.Errorf("%s and %s match, want them apart", c[0], c[1])
		}
	}
}

// TestBaselineWritesIgnoreTheDate: a baseline written yesterday lists the
// log the hook names after the day; today's run writes today's log, which
// is no baseline/write drift, nor is yesterday's log named as one the run
// did not write beside another new path. The baseline keeps the path as
// written. A path that differs elsewhere still drifts.
func TestBaselineWritesIgnoreTheDate(t *testing.T) {
	const (
		yesterday = "~/.claude/hooks-logs/2026-12-03.jsonl"
		today     = "~/.claude/hooks-logs/2026-12-04.jsonl"
		npmThen   = "~/.npm/_logs/2026-12-03T23_59_01_002Z-debug-0.log"
		npmNow    = "~/.npm/_logs/2026-12-04T12_34_56_789Z-debug-0.log"
	)
	first := opsRun("create "+yesterday, "create "+npmThen)
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{first}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"`+yesterday+`"`) {
		t.Fatalf("the baseline does not keep %s as written:\n%s", yesterday, data)
	}
	b := loadDoc(t, string(data))
	if drift, msgs := opDrift(b, opsRun("create "+today, "create "+npmNow)); len(drift)+len(msgs) != 0 {
		t.Errorf("the next day: drift %q, findings %q", drift, msgs)
	}

	drift, msgs := opDrift(b, opsRun("create "+today, "create "+npmNow, "create ~/.claude/hooks-logs/extra.txt"))
	if want := []string{"write >~/.claude/hooks-logs/extra.txt"}; !slices.Equal(drift, want) {
		t.Errorf("a new path beside it: drift %q, want %q", drift, want)
	}
	if want := []string{"p Stop now writes ~/.claude/hooks-logs/extra.txt, which the baseline does not list"}; !slices.Equal(msgs, want) {
		t.Errorf("a new path beside it: findings %q, want %q (yesterday's log is written today as today's)", msgs, want)
	}

	drift, msgs = opDrift(b, opsRun("create ~/.claude/hooks-logs/2026-12-04.json", "create "+npmNow))
	if want := []string{"write >~/.claude/hooks-logs/2026-12-04.json"}; !slices.Equal(drift, want) || len(msgs) != 1 ||
		!strings.Contains(msgs[0], "the baseline lists 1 path next to it that this run did not write") {
		t.Errorf("another name: drift %q, findings %q", drift, msgs)
	}

	drift, _ = opDrift(b, opsRun("delete "+today, "create "+npmNow))
	if want := []string{"write created or modified>" + today}; !slices.Equal(drift, want) {
		t.Errorf("deleted today: drift %q, want %q", drift, want)
	}
}
