package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// testOne runs one check with one expectation against a canned result.
func testOne(t *testing.T, expect string, res func() (*sandbox.Result, error)) *report.Report {
	t.Helper()
	cfg := "checks:\n  - name: c\n    hook: guard\n    event: PreToolUse\n    tool: Bash\n    expect:\n      " + expect + "\n"
	dir := testRepo(t, cfg)
	ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) { return res() }}
	rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func rules(rep *report.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		out = append(out, f.Rule)
	}
	return out
}

func confinedWith(stdout string) *sandbox.Result {
	return &sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
}

// TestOutputExpectationsReadAllTheOutput: the report keeps 8 KiB of each
// stream, but stdout and stderr expectations are over all the run
// captured: "no '!' anywhere" must not pass because the '!' came after
// the report's cut, nor "contains" fail for it.
func TestOutputExpectationsReadAllTheOutput(t *testing.T) {
	out := strings.Repeat("a", 2*reportOutputCap) + "!"
	for _, c := range []struct {
		expect string
		pass   bool
	}{
		{`stdout-matches: '^[^!]*$'`, false},
		{`stdout-contains: "!"`, true},
		{`stdout-matches: '!$'`, true},
	} {
		rep := testOne(t, c.expect, func() (*sandbox.Result, error) { return confinedWith(out), nil })
		if got := rep.Verdict == report.VerdictPass; got != c.pass {
			t.Errorf("%s over %d bytes ending in '!': verdict %s %v, want pass=%v", c.expect, len(out), rep.Verdict, rules(rep), c.pass)
		}
	}
	// stderr alike.
	rep := testOne(t, `stderr-matches: '^[^!]*$'`, func() (*sandbox.Result, error) {
		r := confinedWith("")
		r.Stderr = out
		return r, nil
	})
	if rep.Verdict != report.VerdictFail {
		t.Errorf("stderr: verdict %s %v, want fail", rep.Verdict, rules(rep))
	}
}

// TestOutputCutAtTheCapIsNotRecorded: what a run dropped past its output
// cap was not recorded: a pattern over the stream, or a "contains" that
// did not find its text in the part kept, is expect/not-recorded, never a
// pass (nor a plain failure); a "contains" found in the kept part passes.
func TestOutputCutAtTheCapIsNotRecorded(t *testing.T) {
	cut := func() (*sandbox.Result, error) {
		r := confinedWith("kept part")
		r.StdoutTruncated = true
		return r, nil
	}
	for _, c := range []struct {
		expect string
		want   string // "" for a pass
	}{
		{`stdout-matches: '^[^!]*$'`, RuleNotRecorded},
		{`stdout-contains: "!"`, RuleNotRecorded},
		{`stdout-contains: "kept"`, ""},
	} {
		rep := testOne(t, c.expect, cut)
		got := strings.Join(rules(rep), ",")
		if got != c.want {
			t.Errorf("%s over a cut stdout: %s %q, want %q", c.expect, rep.Verdict, got, c.want)
		}
	}
}

// TestCutJSONDecidesNothing: a hook that exits 0 with stdout cut at the
// cap where what was kept starts as JSON (or is blank) may deny the call
// in the part that was dropped: its outcome is not "allowed".
func TestCutJSONDecidesNothing(t *testing.T) {
	for _, kept := range []string{`{"hookSpecificOutput":{"permissionDecision":"deny","pad":"aaaa`, "  \n "} {
		res := confinedWith(kept)
		res.StdoutTruncated = true
		if d := Decide(PreToolUse, res, nil); d.Outcome != report.OutcomeError {
			t.Errorf("cut stdout %q: outcome %s (%s), want error", kept, d.Outcome, d.Reason)
		}
		rep := testOne(t, "allowed: true", func() (*sandbox.Result, error) { return res, nil })
		if rep.Verdict == report.VerdictPass {
			t.Errorf("allowed: true passed over cut JSON %q", kept)
		}
	}
	// Claude Code reads JSON on every exit code, so a cut one on exit 1
	// is not known either.
	res := confinedWith(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","pad":"aaaa`)
	res.ExitCode, res.StdoutTruncated = 1, true
	if d := Decide(PreToolUse, res, nil); d.Outcome != report.OutcomeError {
		t.Errorf("cut JSON on exit 1: outcome %s (%s), want error", d.Outcome, d.Reason)
	}
	// Text that is no JSON object from its first byte stays text (an
	// array included: Claude Code reads only an object).
	for _, kept := range []string{"plain log line", `[1,`} {
		res := confinedWith(kept)
		res.StdoutTruncated = true
		if d := Decide(PreToolUse, res, nil); d.Outcome != report.OutcomeAllowed {
			t.Errorf("cut stdout %q: outcome %s, want allowed", kept, d.Outcome)
		}
	}
}

// TestMaxDurationOfATimedOutRun: a hook ended at its timeout did not
// finish within any bound.
func TestMaxDurationOfATimedOutRun(t *testing.T) {
	rep := testOne(t, "max-duration: 10s", func() (*sandbox.Result, error) {
		r := confinedWith("")
		r.TimedOut, r.ExitCode, r.Signal, r.DurationMs = true, 137, "SIGKILL", 2000
		return r, nil
	})
	if rep.Verdict != report.VerdictFail || !strings.Contains(strings.Join(rules(rep), ","), RuleExpectPrefix+ExpMaxDuration) {
		t.Errorf("max-duration over a timed-out run: %s %v, want an expect/max-duration failure", rep.Verdict, rules(rep))
	}
}

// TestBaselineTimedOutRunWithoutRecords: a run that only timed out is a
// run/timeout warning, so if its evidence is missing the baseline
// comparison must say it was not recorded instead of finding no drift in
// it; a run vigiles failed (which also timed out) is run/failed, and its
// missing evidence needs no second finding.
func TestBaselineTimedOutRunWithoutRecords(t *testing.T) {
	// Each at its own timeout, as Claude Code ends it: not cut short.
	own := func(s string) string {
		return strings.ReplaceAll(s, `"type": "command",`, `"type": "command", "timeout": 60,`)
	}
	dir := auditRepo(t, own(hooksV1))
	for _, f := range []string{"plugins/b/.claude-plugin/plugin.json", ".claude/settings.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(own(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	lost := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 137, Signal: "SIGKILL"}, nil
	}}
	failed := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		msg := "reading the write record: the tree is nested deeper than 10000 levels"
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 125, Error: msg}, errors.New(msg)
	}}
	timedOut := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
		r := confinedWith("")
		r.TimedOut, r.ExitCode, r.Signal = true, 137, "SIGKILL"
		return r, nil
	}}
	// The baseline accepted a hook that times out (outcome error).
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: timedOut}); err != nil {
		t.Fatal(err)
	}
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: timedOut})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != report.VerdictPass {
		t.Fatalf("unchanged timed-out runs: %s %v", rep.Verdict, rules(rep))
	}
	rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: lost})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range rep.Findings {
		if f.Rule == RuleBaselineUnproven && f.Severity == report.SeverityError {
			n++
		}
	}
	if rep.Verdict == report.VerdictPass || n == 0 {
		t.Errorf("timed-out runs without records compared with the baseline: %s %v", rep.Verdict, rules(rep))
	}
	rep, err = Audit(ctx, Options{Dir: dir, Baseline: base, Executor: failed})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(rules(rep), " ")
	if !strings.Contains(got, RuleRunFailed) || strings.Contains(got, RuleBaselineUnproven) {
		t.Errorf("failed runs that also timed out: %v; want %s and no %s", got, RuleRunFailed, RuleBaselineUnproven)
	}
}

// TestBaselineKeepsNullForUnrecorded: a baseline written from runs that
// recorded nothing says so (null), not that they reached no host, wrote
// nothing and left no env ([], and no "env"); recorded-and-empty stays so.
// A file with no "env" (as every baseline had before null was written)
// reads as nothing left.
func TestBaselineKeepsNullForUnrecorded(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: runnertest.Direct{}}); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, base))
	// (That the tree declares no server is recorded: "servers": [], and
	// "projectServers": []; and that a run's command runs no file of the
	// tree, read from the tree before it ran, not from its record:
	// "files": [].)
	if strings.Contains(strings.NewReplacer(`"servers": []`, "", `"projectServers": []`, "", `"files": []`, "").Replace(string(data)), "[]") {
		t.Errorf("a baseline of direct runs claims empty records:\n%s", data)
	}
	for id, r := range b.Runs {
		if r.Hosts != nil || r.Writes != nil || r.Env != nil {
			t.Errorf("%s: hosts %v writes %v env %v, want null (not recorded)", id, r.Hosts, r.Writes, r.Env)
		}
	}
	if n, runs := strings.Count(string(data), `"env": null`), len(b.Runs); n != runs {
		t.Errorf("%d of %d runs have \"env\": null:\n%s", n, runs, data)
	}
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: runnertest.Direct{Record: true}}); err != nil {
		t.Fatal(err)
	}
	if b, err = LoadBaseline(filepath.Join(dir, base)); err != nil {
		t.Fatal(err)
	}
	for id, r := range b.Runs {
		if r.Outcome == report.OutcomeNotExecutable {
			continue
		}
		if r.Hosts == nil || r.Writes == nil || r.Env == nil || *r.Env != "" {
			t.Errorf("%s: recorded and empty read back as hosts %v, writes %v, env %v", id, r.Hosts, r.Writes, r.Env)
		}
	}
	if data, _ = os.ReadFile(filepath.Join(dir, base)); strings.Contains(string(data), `"env": ""`) {
		t.Errorf("nothing left is written as an \"env\" (it adds a line to every run):\n%s", data)
	}

	// The three ways a file can hold env, through loadBaseline and
	// through encoding/json alike.
	file := filepath.Join(t.TempDir(), "baseline.json")
	for _, c := range []struct {
		name, env string // env: the member as written, "" for none
		want      *string
	}{
		{"absent (a file of an older vigiles)", "", new(string)},
		{"null", `, "env": null`, nil},
		{"empty", `, "env": ""`, new(string)},
		{"text", `, "env": "export A=1\n"`, ptrTo("export A=1\n")},
	} {
		doc := `{"schema": "vigiles.baseline/v1", "runs": {"h": {"plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": []` + c.env + `}}}`
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := LoadBaseline(file)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var viaJSON Baseline
		if err := json.Unmarshal([]byte(doc), &viaJSON); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for reader, got := range map[string]*string{"loadBaseline": b.Runs["h"].Env, "encoding/json": viaJSON.Runs["h"].Env} {
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s, read by %s: env %v, want %v", c.name, reader, got, c.want)
			}
		}
		if out, _ := b.Marshal(); c.want != nil && *c.want == "" && strings.Contains(string(out), `"env"`) {
			t.Errorf("%s: written back with an \"env\":\n%s", c.name, out)
		}
	}
	if err := os.WriteFile(file, []byte(`{"schema": "vigiles.baseline/v1", "runs": {"h": {"env": 1}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBaseline(file); err == nil || !strings.Contains(err.Error(), `"env": want a string`) {
		t.Errorf("an env that is a number: %v", err)
	}
}

func ptrTo(s string) *string { return &s }

// TestBaselineNewHookIsNotAPassForItsHostsAndWrites: a hook the baseline
// does not know accepted no host and no write: a change that adds one that
// reaches a host and writes ~/.bashrc fails the audit (baseline/host,
// baseline/write), not only a baseline/hook-added warning; a new hook that
// does neither stays a warning.
func TestBaselineNewHookIsNotAPassForItsHostsAndWrites(t *testing.T) {
	dir := auditRepo(t, hooksV1)
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd   string
		want  string
		rules []string
	}{
		{"true host:exfil.evil.test write:~/.bashrc", report.VerdictFail, []string{"baseline/hook-added", "baseline/host", "baseline/write"}},
		{"true", report.VerdictPass, []string{"baseline/hook-added"}},
	} {
		v2 := strings.Replace(hooksV1, `{"hooks": {`, `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "`+c.cmd+`"}]}], `, 1)
		if err := os.WriteFile(filepath.Join(dir, "plugins/a/hooks/hooks.json"), []byte(v2), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range rep.Findings {
			if strings.HasPrefix(f.Rule, RuleDriftPrefix) {
				got = append(got, f.Rule)
			}
		}
		if rep.Verdict != c.want || strings.Join(got, ",") != strings.Join(c.rules, ",") {
			t.Errorf("new hook %q: %s %v, want %s %v", c.cmd, rep.Verdict, got, c.want, c.rules)
		}
	}
}

// TestTimeoutDoesNotHideAFailure: a run whose record vigiles could not
// make is run/failed, an error, even when the hook also ran out of time
// (a timeout alone is a warning): a hook must not pass by nesting its
// writes past the walk's depth, or flooding the egress record, and then
// sleeping past its timeout.
func TestTimeoutDoesNotHideAFailure(t *testing.T) {
	msg := "reading the write record: the tree is nested deeper than 10000 levels"
	rep := testOne(t, "exit-code: 0", func() (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 125, Error: msg}, errors.New(msg)
	})
	if rep.Verdict == report.VerdictPass || !strings.Contains(strings.Join(rules(rep), " "), RuleRunFailed) {
		t.Errorf("a failed run that also timed out: %s %v; want an error with %s", rep.Verdict, rules(rep), RuleRunFailed)
	}
	// A timeout alone stays a warning.
	rep = testOne(t, "exit-code: 137", func() (*sandbox.Result, error) {
		r := confinedWith("")
		r.TimedOut, r.ExitCode, r.Signal = true, 137, "SIGKILL"
		return r, nil
	})
	if got := rules(rep); strings.Contains(strings.Join(got, " "), RuleRunFailed) {
		t.Errorf("a run that only timed out: %v; want no %s", got, RuleRunFailed)
	}
}

// TestEvidenceLinesAreOnePerName: a written path or a host with a newline
// in it is one quoted line of evidence, not two (a forged second write).
func TestEvidenceLinesAreOnePerName(t *testing.T) {
	rep := testOne(t, "no-write: true", func() (*sandbox.Result, error) {
		r := confinedWith("")
		r.Writes = []evidence.Write{{Op: evidence.OpCreate, Path: "n\n::error::fname"}, {Op: evidence.OpCreate, Path: "plain.txt"}}
		return r, nil
	})
	var ev string
	for _, f := range rep.Findings {
		if f.Rule == RuleExpectPrefix+ExpNoWrite {
			ev = f.Evidence
		}
	}
	if want := "create \"n\\n::error::fname\"\ncreate plain.txt"; ev != want {
		t.Errorf("evidence %q, want %q", ev, want)
	}
	if got := egressEvidence([]evidence.Egress{{Host: "a.test\nb.test", Via: evidence.ViaDNS, Attempts: 1}}); strings.Count(got, "\n") != 1 {
		t.Errorf("egress evidence for one host spans lines: %q", got)
	}
}

// TestBaselineNameNotUTF8DoesNotDrift: a written name that is not UTF-8
// reads back from the baseline's JSON as U+FFFD; the comparison uses that
// form on both sides, so the same write is no drift on the next audit,
// and a new one still is.
func TestBaselineNameNotUTF8DoesNotDrift(t *testing.T) {
	run := report.HookRun{ID: "a/Stop/0", Plugin: "a", Event: "Stop", Outcome: report.OutcomeAllowed,
		Egress: []evidence.Egress{}, Writes: []evidence.Write{{Op: evidence.OpCreate, Path: "x\xff\xfe.txt"}}}
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{run}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "baseline.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBaseline(path)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{run.ID: true}
	if drift, finds := compareBaseline(b, []report.HookRun{run}, nil, ids, everyFile, report.SeverityError); len(drift) != 0 || len(finds) != 0 {
		t.Errorf("the same non-UTF-8 write drifts: %v %v", drift, finds)
	}
	run.Writes = append(run.Writes, evidence.Write{Op: evidence.OpCreate, Path: "y\xff.txt"})
	if drift, _ := compareBaseline(b, []report.HookRun{run}, nil, ids, everyFile, report.SeverityError); len(drift) != 1 || drift[0].Kind != DriftWrite {
		t.Errorf("a new non-UTF-8 write: drift %v, want one %s", drift, DriftWrite)
	}
}

// TestProgressNamesStayOnOneLine: a plugin name in a progress line has
// whatever could end, hide or reorder the line, or act on a terminal,
// shown as its escape, the Unicode line and paragraph separators as much
// as newlines, carriage returns, backspaces, bidi overrides, ESC and the
// C1 controls; a backslash of the name's is doubled, so that no name
// reads as another: a\rb, a?b and a name spelt a\u000db are three. A
// name that holds a ':', a ',', a ';', a parenthesis or a double quote,
// which could make it read as the line's outcome or another run, is
// quoted.
func TestProgressNamesStayOnOneLine(t *testing.T) {
	for name, want := range map[string]string{
		"a\nb": `a\u000ab`, "a\rb": `a\u000db`, "a\bb": `a\u0008b`, "a\u2028b": `a\u2028b`, "a\u2029b": `a\u2029b`,
		"a\u202eb": `a\u202eb`, "a\x1b[2Jb": `a\u001b[2Jb`, "a\u009b2Jb": `a\u009b2Jb`, "a\xffb": `a\xffb`, "a\ufffdb": `a\ufffdb`,
		"a?b": "a?b", `a\u000db`: `a\\u000db`, "plain-name": "plain-name", "p\ua789q": "p\ua789q",
		// What the line's own words are told apart by: quoted.
		"x: allowed (confined, 5ms)": `"x: allowed (confined, 5ms)"`, `a"b`: `"a\"b"`, "a, b; c": `"a, b; c"`,
		" p": `" p"`, "": `""`, "a\rb(": `"a\u000db("`,
	} {
		if got := progressText(name); got != want {
			t.Errorf("progressText(%q) = %q, want %q", name, got, want)
		}
		if got := progressPath(name); got != want {
			t.Errorf("progressPath(%q) = %q, want %q", name, got, want)
		}
	}
	// A long name keeps its start, a long path its end, which tells it
	// from its neighbours; neither is cut inside an escape.
	long := strings.Repeat("é/", 100) + "a\nb/hooks.json"
	if got := progressPath(long); !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, `a\u000ab/hooks.json`) || len(got) > maxProgressPath || !utf8.ValidString(got) {
		t.Errorf("progressPath of a long path = %q; want its end kept, cut at a character", got)
	}
	for _, n := range []int{maxProgressName - 8, maxProgressName - 5, maxProgressName - 3} {
		name := strings.Repeat("x", n) + "\x1b\x1b"
		got := progressText(name)
		if len(got) > maxProgressName || !strings.HasSuffix(got, "…") || strings.Contains(strings.TrimSuffix(got, "…"), "\\") && !strings.HasSuffix(strings.TrimSuffix(got, "…"), `\u001b`) {
			t.Errorf("progressText of %d x and two ESC = %q; want it cut at an escape's end, %d bytes at most", n, got, maxProgressName)
		}
	}
	if got := shownName("x\u2028::error::y"); !strings.HasPrefix(got, `"`) {
		t.Errorf("shownName kept a line separator unquoted: %q", got)
	}
}

// TestNotRecordedSaysWhichRecord: a confined run that came back without
// one of its records says which record is missing and why, for that
// record (a missing write record is not blamed on the egress layer).
func TestNotRecordedSaysWhichRecord(t *testing.T) {
	for _, c := range []struct {
		expect, want string
		res          func(*sandbox.Result)
	}{
		{"no-write: true", "the run's writes were not recorded: the run was confined, but the sandbox returned no write record",
			func(r *sandbox.Result) { r.Writes = nil }},
		{"no-egress: true", "the run's network attempts were not recorded: the run was confined, but this vigiles build has no egress layer",
			func(r *sandbox.Result) { r.Egress = nil }},
	} {
		rep := testOne(t, c.expect, func() (*sandbox.Result, error) {
			r := confinedWith("")
			c.res(r)
			return r, nil
		})
		var msgs []string
		for _, f := range rep.Findings {
			if f.Rule == RuleNotRecorded {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], c.want) {
			t.Errorf("%s: not-recorded findings %q, want one saying %q", c.expect, msgs, c.want)
		}
	}
}

// TestNotRecordedNamesTheFailure: an expectation over evidence a failed
// run did not record says why from the run's own error (quoted), not from
// its tier: a confined run whose egress record was incomplete has an
// egress layer; it is its record that was not made whole. (Expectations
// are read for a failed run only when it also timed out: run/timeout alone
// must not hide them.)
func TestNotRecordedNamesTheFailure(t *testing.T) {
	const msg = "reading the egress record: egress finish: the kernel dropped 3 batches of packet logs: egress record incomplete"
	for _, c := range []struct {
		name, expect string
		res          func() (*sandbox.Result, error)
		want, not    string
	}{
		{"timed out, egress record incomplete", "no-egress: true", func() (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 125, Error: msg, Writes: []evidence.Write{}}, errors.New(msg)
		}, "vigiles failed to make the run's record whole: " + msg, "no egress layer"},
		{"the result's error alone", "no-write: ['~/**']", func() (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 125, Error: "the tree is nested deeper than 10000 levels", Egress: []evidence.Egress{}}, nil
		}, "vigiles failed to make the run's record whole: the tree is nested deeper than 10000 levels", "returned no write record"},
		{"an error naming a path with a newline", "no-write: ['~/**']", func() (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, TimedOut: true, ExitCode: 125, Error: "reading ~/a\n::error::b", Egress: []evidence.Egress{}}, nil
		}, `whole: "reading ~/a\n::error::b"`, "\n"},
		{"confined, no failure", "no-egress: true", func() (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}}, nil
		}, "this vigiles build has no egress layer", "failed"},
		{"direct, failed", "no-egress: true", func() (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierDirect, TimedOut: true, ExitCode: 125, Error: msg}, nil
		}, "this run was direct", "made whole"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := testOne(t, c.expect, c.res)
			var msgs []string
			for _, f := range rep.Findings {
				if f.Rule == RuleNotRecorded {
					msgs = append(msgs, f.Message)
				}
			}
			if len(msgs) != 1 || !strings.Contains(msgs[0], c.want) || strings.Contains(msgs[0], c.not) {
				t.Errorf("%s findings %q\nwant one saying %q, not %q", RuleNotRecorded, msgs, c.want, c.not)
			}
		})
	}
}
