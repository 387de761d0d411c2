package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigiles/action/pkg/report"
)

// TestMergeErrorsShowNamesEscaped merges reports whose command, tool or
// run id holds a carriage return or a '?': the error shows each as a
// progress line shows a name (a CR as \u000d), so that a\rb and a?b read
// apart, where '?' for each showed both as a?b; one too long is cut
// between escapes, saying how much is left out.
func TestMergeErrorsShowNamesEscaped(t *testing.T) {
	long := strings.Repeat("a", 78) + "\r" + strings.Repeat("b", 30)
	for _, tc := range []struct {
		name string
		in   []*report.Report
		want string
	}{
		{"a command with a CR", []*report.Report{{Schema: report.Schema, Command: "a\rb"}}, `x0.json has command a\u000db, want test or audit`},
		{"a command with a ?", []*report.Report{{Schema: report.Schema, Command: "a?b"}}, `x0.json has command a?b, want test or audit`},
		{"tools", []*report.Report{
			{Schema: report.Schema, Command: "audit", Shard: "1/2", Plan: "p", Tool: report.Tool{Name: "vigiles", Version: "1\r2"}},
			{Schema: report.Schema, Command: "audit", Shard: "2/2", Plan: "p", Tool: report.Tool{Name: "vigiles", Version: "1?2"}},
		}, `x1.json was written by vigiles 1?2 and x0.json by vigiles 1\u000d2;`},
		{"a run id in two shards", []*report.Report{
			{Schema: report.Schema, Command: "audit", Shard: "1/2", Plan: "p", Runs: []report.HookRun{{ID: "a\rb"}}},
			{Schema: report.Schema, Command: "audit", Shard: "2/2", Plan: "p", Runs: []report.HookRun{{ID: "a\rb"}}},
		}, `run a\u000db is in both x0.json and x1.json`},
		{"a long run id, cut before an escape", []*report.Report{
			{Schema: report.Schema, Command: "audit", Shard: "1/2", Plan: "p", Runs: []report.HookRun{{ID: long}}},
			{Schema: report.Schema, Command: "audit", Shard: "2/2", Plan: "p", Runs: []report.HookRun{{ID: long}}},
		}, "run " + strings.Repeat("a", 78) + "… (31 bytes more) is in both"},
	} {
		var in []NamedReport
		for i, r := range tc.in {
			in = append(in, NamedReport{Name: "x" + string(rune('0'+i)) + ".json", Report: r})
		}
		_, err := Merge(in...)
		if !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge said %q, want an ErrBadOption that says %q", tc.name, err, tc.want)
		}
	}
}

// TestInterruptedFindingShowsIdsEscaped runs vigiles test over two
// trusted checks, named a\rb and a?b, that hold until the test is
// cancelled once both have started: the run/interrupted finding names
// the runs it stopped as the progress lines name them, a\u000db apart
// from a?b, each quoted as its id holds a ':'.
func TestInterruptedFindingShowsIdsEscaped(t *testing.T) {
	dir := makeTree(t, map[string]string{".vigiles.yml": "checks:\n" +
		"  - name: \"a\\rb\"\n    trusted: true\n    event: Stop\n    command: \"touch started-1; exec sleep 60\"\n    expect: {allowed: true}\n" +
		"  - name: \"a?b\"\n    trusted: true\n    event: Stop\n    command: \"touch started-2; exec sleep 60\"\n    expect: {allowed: true}\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			_, e1 := os.Stat(filepath.Join(dir, "started-1"))
			_, e2 := os.Stat(filepath.Join(dir, "started-2"))
			if e1 == nil && e2 == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	rep, err := Test(ctx, Options{Dir: dir, Jobs: 2})
	if err == nil || rep == nil {
		t.Fatalf("err %v, report %v: want an interrupted test's report", err, rep)
	}
	msgs := messagesOf(rep.Findings, RuleRunInterrupted)
	var summary string
	for _, m := range msgs {
		if strings.Contains(m, "stopped while running") {
			summary = m
		}
	}
	if !strings.Contains(summary, `2 stopped while running ("check:a\u000db", "check:a?b")`) &&
		!strings.Contains(summary, `2 stopped while running ("check:a?b", "check:a\u000db")`) {
		t.Errorf("the interruption's summary %q; want it to name both stopped runs, a CR as \\u000d", summary)
	}
}
