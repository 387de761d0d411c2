package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestBaselineKeepsNamesExact: a baseline keeps a written name that is not
// UTF-8, holds U+FFFD or starts with a double quote as its Go quote, so
// that a\xff, a\xfe and a\uFFFD are three entries, not one the report's
// "path" shows for all of them: a baseline that accepted a hook writing
// a\xff does not accept it writing a\xfe or a\uFFFD instead. So too for
// what the run deleted and where its links lead.
func TestBaselineKeepsNamesExact(t *testing.T) {
	for _, tc := range []struct {
		name     string
		was, now report.HookRun
		drift    []string
	}{
		{"written", opsRun("create a\xff"), opsRun("create a\xfe"), []string{`write >"a\xfe"`}},
		{"written U+FFFD", opsRun("create a\xff"), opsRun("create a\uFFFD"), []string{`write >"a` + "\uFFFD" + `"`}},
		{"written, the other way", opsRun("create a\uFFFD"), opsRun("create a\xff"), []string{`write >"a\xff"`}},
		{"a quote first", opsRun(`create "q`), opsRun(`create "q"`), []string{`write >"\"q\""`}},
		{"deleted", opsRun("delete d\xff", "create d\xfe"), opsRun("create d\xff", "delete d\xfe"),
			[]string{`write created or modified>"d\xfe"`, `write deleted>"d\xff"`}},
		{"linked", linkRun(map[string]string{"l": "t\xff"}), linkRun(map[string]string{"l": "t\xfe"}), []string{`write a link to "t\xff">l`}},
		{"linked, its name", linkRun(map[string]string{"l\xff": "t"}), linkRun(map[string]string{"l\xfe": "t"}), []string{`write >"l\xfe"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := baselineOf(t, tc.was)
			if drift, msgs := opDrift(b, tc.was); len(drift)+len(msgs) != 0 {
				t.Errorf("the same run: drift %q, findings %q", drift, msgs)
			}
			drift, msgs := opDrift(b, tc.now)
			if !slices.Equal(drift, tc.drift) {
				t.Errorf("drift %q, want %q; findings %q", drift, tc.drift, msgs)
			}
			for _, m := range msgs {
				if strings.Contains(m, "earlier vigiles") {
					t.Errorf("a baseline written now is said to be an earlier vigiles': %q", m)
				}
			}
		})
	}
}

// TestBaselineExactNamesRoundTrip: a baseline of names that are not UTF-8,
// hold U+FFFD or read as a Go quote ("q2", quotes and all; "q, with a
// quote first alone, reads as nothing else and is kept as it is),
// written, read and written again, is
// the same file, holds each name as its quote (no U+FFFD of the encoder),
// and compares with the run it was written from without drift; a UTF-8
// name is kept as it is, as before.
func TestBaselineExactNamesRoundTrip(t *testing.T) {
	r := linkRun(map[string]string{"out/l\xff": "/tmp/tmp.X/\xfe", "out/m": "t\uFFFD"},
		"create a\xff", "create a\xfe", "create a\uFFFD", `create "q`, `create "q2"`, "delete d\xff", "modify plain.txt", "create sp ace\n")
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{r}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"\"a\\xff\""`, `"\"a\\xfe\""`, `"\"a` + "\uFFFD" + `\""`, `"\"q"`, `"\"\\\"q2\\\"\""`, `"\"d\\xff\""`, `"plain.txt"`, `"sp ace\n"`,
		`"\"out/l\\xff\"": "\"$TMPDIR/…/\\xfe\""`, `"out/m": "\"t` + "\uFFFD" + `\""`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the baseline does not hold %s:\n%s", want, data)
		}
	}
	b := loadDoc(t, string(data))
	again, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) {
		t.Errorf("read and written again it differs:\n%s\nwas\n%s", again, data)
	}
	if b.folded != 0 {
		t.Errorf("a baseline written now holds %d folded names", b.folded)
	}
	if drift, msgs := opDrift(b, r); len(drift)+len(msgs) != 0 {
		t.Errorf("the run it was written from: drift %q, findings %q", drift, msgs)
	}
}

// TestBaselineOfFoldedNames: a baseline an earlier vigiles wrote keeps a
// name that is not UTF-8 with U+FFFD in place of its bytes, which stood
// for every name that shows so: it loads, no run's name is taken for it
// (a\xff, a\xfe and a\uFFFD each drift, saying why), and the
// baseline/outdated notice counts such names and says how to rewrite the
// baseline, as the audit was invoked. A name it kept with a quote first
// is still that name.
func TestBaselineOfFoldedNames(t *testing.T) {
	const id = "p/hooks/hooks.json#hooks.Stop[0].hooks[0]"
	b := loadDoc(t, `{"schema": "vigiles.baseline/v1", "runs": {"`+id+`": {
  "plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": ["\"q", "a`+"\uFFFD"+`", "l"], "deleted": [], "links": {"l": "t`+"\uFFFD"+`"}}}}`)
	if b.folded != 2 {
		t.Errorf("folded names counted: %d, want 2", b.folded)
	}
	for _, name := range []string{"a\xff", "a\xfe", "a\uFFFD"} {
		drift, msgs := opDrift(b, linkRun(map[string]string{"l": "t\xff"}, `create "q`, "create "+name))
		if len(drift) != 2 || len(msgs) != 2 {
			t.Fatalf("%q: drift %q, findings %q; want a new write and a link turned", name, drift, msgs)
		}
		if !strings.Contains(msgs[0]+msgs[1], "as an earlier vigiles kept every name that shows so") {
			t.Errorf("%q: the drift does not say the baseline's name is folded: %q", name, msgs)
		}
	}
	for _, o := range []Options{{Baseline: DefaultBaseline}, {Baseline: DefaultBaseline, Invoked: Invocation{Action: true}}} {
		f := b.foldedNames(report.Location{File: DefaultBaseline}, o.rewriteBaseline())
		if f == nil || f.Rule != RuleBaselineOutdated || f.Severity != report.SeverityNotice ||
			!strings.Contains(f.Message, "keeps 2 written path(s) or link target(s) with U+FFFD") || !strings.Contains(f.Message, o.rewriteBaseline()) {
			t.Errorf("invoked %+v: the notice %+v", o.Invoked, f)
		}
	}
	if f := baselineOf(t, opsRun("create a\xff")).foldedNames(report.Location{}, "x"); f != nil {
		t.Errorf("a baseline written now: %+v", f)
	}
}

// TestAuditBaselineKeepsNamesExact: through real confined audits, a hook
// that writes a\xff, deletes d\xff and links l to t\xff is accepted by the
// baseline --update-baseline writes of it (a second audit has no drift),
// and the same hook doing each with \xfe in place of \xff drifts: the
// report's "path" shows both as U+FFFD. Against the baseline as an
// earlier vigiles wrote it, a\xff kept as a\uFFFD, the same hook drifts,
// and a baseline/outdated notice says to rewrite it.
func TestAuditBaselineKeepsNamesExact(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	hook := func(write, del, link string) string {
		return `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` +
			`"printf x > \"$(printf 'a\\` + write + `')\"; rm -- \"$(printf 'd\\` + del + `')\"; ln -s \"$(printf 't\\` + link + `')\" l"}]}]}}`
	}
	dir := makeTree(t, map[string]string{".claude/settings.json": hook("377", "377", "377"), "d\xff": "x", "d\xfe": "x"})
	const base = ".vigiles/baseline.json"
	audit := func(update bool) *report.Report {
		t.Helper()
		rep, err := Audit(context.Background(), Options{Dir: dir, Baseline: base, UpdateBaseline: update, Sandbox: "strict"})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := audit(true)
	if len(rep.Runs) != 1 || len(rep.Runs[0].Writes) != 3 {
		t.Fatalf("runs %+v, want one of three writes; findings %v", rep.Runs, findingLines(rep.Findings))
	}
	data, err := os.ReadFile(filepath.Join(dir, base))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"\"a\\xff\""`, `"deleted": [` + "\n" + `        "\"d\\xff\""`, `"l": "\"t\\xff\""`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the baseline does not hold %s:\n%s", want, data)
		}
	}
	// (This test binary has no egress layer: every audit has a
	// baseline/not-recorded error for its network, and fails on it.)
	if rep := audit(false); len(rep.Drift) != 0 || len(messagesOf(rep.Findings, RuleDriftPrefix+DriftWrite)) != 0 {
		t.Errorf("the same hook: drift %q; %v", driftOf(rep), findingLines(rep.Findings))
	}
	for _, tc := range []struct {
		hook  string
		drift []string
	}{
		{hook("376", "377", "377"), []string{`write >"a\xfe"`}},
		{hook("377", "376", "377"), []string{`write >"d\xfe"`}},
		{hook("377", "377", "376"), []string{`write a link to "t\xff">l`}},
	} {
		writeFile(t, dir, ".claude/settings.json", tc.hook)
		rep := audit(false)
		var drift []string
		for _, d := range driftOf(rep) {
			if !strings.HasPrefix(d, "command ") { // the command changed too
				drift = append(drift, d)
			}
		}
		if !slices.Equal(drift, tc.drift) || len(messagesOf(rep.Findings, RuleDriftPrefix+DriftWrite)) != 1 {
			t.Errorf("%s: drift %q, want %q; %v", tc.hook, drift, tc.drift, findingLines(rep.Findings))
		}
	}

	// The baseline as an earlier vigiles wrote it, a\xff kept as a\uFFFD:
	// the same hook drifts on it, and the file's notice says to rewrite it.
	writeFile(t, dir, ".claude/settings.json", hook("377", "377", "377"))
	writeFile(t, dir, base, strings.Replace(string(data), `"\"a\\xff\""`, `"a`+"\uFFFD"+`"`, 1))
	rep = audit(false)
	if want := []string{`write >"a\xff"`}; !slices.Equal(driftOf(rep), want) {
		t.Errorf("against the folded name: drift %q, want %q", driftOf(rep), want)
	}
	if msgs := messagesOf(rep.Findings, RuleBaselineOutdated); len(msgs) != 1 || !strings.Contains(msgs[0], "keeps 1 written path(s)") ||
		!strings.Contains(msgs[0], "`vigiles audit --update-baseline`") {
		t.Errorf("against the folded name: baseline/outdated %q", msgs)
	}
}
