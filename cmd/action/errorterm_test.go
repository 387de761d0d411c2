package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/ptytest"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// hostileName is a file name that acts on a terminal printed as it is:
// OSC 52 writes the clipboard, OSC 0 sets the title, "\r" and ESC [ 2K
// erase the line's start, a backspace and a bidi override rewrite what
// shows, and a byte that is not UTF-8 (a raw C1 CSI to a terminal in an
// 8-bit locale).
const hostileName = "r\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07\r\x1b[2Kok\b\u202e\x9b2J.json"

// TestErrorsQuotingHostileNamesAreInert: an error that quotes a name the
// repository chose (merge given a report directory so named, as a glob
// of downloaded artifacts would give it) reaches a real terminal with no
// control character of the name's, each shown escaped (the name quoted in
// Go syntax, as the errors quote a name), and the
// error's own words and ':' as written; in a step log the name can start
// no workflow command, and no control reaches the log either.
func TestErrorsQuotingHostileNamesAreInert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), hostileName)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	shown := func(s string) {
		t.Helper()
		for _, c := range []string{"\x1b", "\x07", "\r", "\b", "\u202e", "\x9b"} {
			if strings.Contains(s, c) {
				t.Errorf("the error sends %q:\n%q", c, s)
			}
		}
	}

	ptm, pts := ptytest.Open(t)
	var got bytes.Buffer
	done := make(chan struct{})
	go func() { got.ReadFrom(ptm); close(done) }()
	err := run(context.Background(), []string{"merge", dir}, func(string) string { return "" }, strings.NewReader(""), pts, pts)
	if err == nil {
		t.Fatal("merge of a directory succeeded")
	}
	exitCode(err, pts, false)
	pts.Close()
	<-done
	term := got.String()
	shown(term)
	for _, want := range []string{`r\x1b]52;c;cHduZWQ=\a\x1b]0;owned\a\r\x1b[2Kok\b\u202e\x9b2J.json"`, "vigiles: merge: report \"", "is a directory, not a report file: name the report files in it"} {
		if !strings.Contains(term, want) {
			t.Errorf("the terminal shows no %q:\n%s", want, term)
		}
	}

	var step bytes.Buffer
	exitCode(err, &step, true)
	shown(step.String())
	if !strings.HasPrefix(step.String(), annotate.NoMatch("vigiles: merge: report ")) || strings.Count(step.String(), "\n") != 1 {
		t.Errorf("in a step log the error is not one line of vigiles' own:\n%q", step.String())
	}
}

// TestShownControlsKeepsAnErrorsWords: a line feed and a tab stay, as do
// a backslash, a Go quote's escapes and a ':'; a U+FFFD is told from a
// byte that is not UTF-8.
func TestShownControlsKeepsAnErrorsWords(t *testing.T) {
	for in, want := range map[string]string{
		"a: \"p\\xff\"\n\tb":   "a: \"p\\xff\"\n\tb",
		"p\xff and p\uFFFD":    `p\xff and p\ufffd`,
		"x\x1b[31m\u2028y\x7f": `x\u001b[31m\u2028y\u007f`,
		"ünïcode ꞉ stays":      "ünïcode ꞉ stays",
		"tag \U000e0041 char":  `tag \U000e0041 char`,
	} {
		if got := shownControls(in); got != want {
			t.Errorf("shownControls(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCleanAndShownControlsEscapeAlike: the error printer and the text
// report show a character that could act on a terminal, or make a name
// read as another, in one way (evidence.Escape); they differ only where
// they mean to: a line feed, a tab and a ':', which clean shows as \n, a
// space and an annotate.Colon, and a backslash, which cleanName doubles.
func TestCleanAndShownControlsEscapeAlike(t *testing.T) {
	const hostile = "a\x1b]52;c;eA==\x07\r\b\x7f\u009b2J\u202e\u200b\u2028\u2029\ufeff\ufffd\xff\xc0\U000e0041 ünï 🙂"
	if got, want := clean(hostile, 1000), shownControls(hostile); got != want {
		t.Errorf("clean = %q\nshownControls = %q", got, want)
	}
	if strings.ContainsFunc(shownControls(hostile), evidence.BreaksLine) {
		t.Errorf("shownControls sends a control: %q", shownControls(hostile))
	}
	for _, c := range []struct{ in, clean, name, controls string }{
		{"a\nb", `a\nb`, `a\nb`, "a\nb"},
		{"a\tb", "a b", "a b", "a\tb"},
		{"a:b", "a" + annotate.Colon + "b", "a" + annotate.Colon + "b", "a:b"},
		{`a\u001bb`, `a\u001bb`, `a\\u001bb`, `a\u001bb`},
	} {
		if got := clean(c.in, 100); got != c.clean {
			t.Errorf("clean(%q) = %q, want %q", c.in, got, c.clean)
		}
		if got := cleanName(c.in, 100); got != c.name {
			t.Errorf("cleanName(%q) = %q, want %q", c.in, got, c.name)
		}
		if got := shownControls(c.in); got != c.controls {
			t.Errorf("shownControls(%q) = %q, want %q", c.in, got, c.controls)
		}
	}
}

// TestJSONReportOnATerminalSendsNoControl: a report merged onto a real
// terminal as JSON writes a name's DEL and C1 controls (U+009B, a CSI to
// a terminal that reads C1 in UTF-8) as \u escapes, the same data, as it
// writes ESC and the format characters.
func TestJSONReportOnATerminalSendsNoControl(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: "audit", Verdict: report.VerdictPass,
		Runs: []report.HookRun{{ID: "1", Plugin: "p\u009b2J\u009d0;t\u009c\x7f", Event: "Stop", Tier: "confined", Outcome: "allowed"}}, Findings: []report.Finding{}}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "sarif"} {
		got := onTerminal(t, nil, "merge", "--format", format, p)
		for _, c := range []string{"\u009b", "\u009d", "\u009c", "\x7f", "\x1b"} {
			if strings.Contains(got, c) {
				t.Errorf("the %s report on a terminal sends %q", format, c)
			}
		}
		if format == "json" && !strings.Contains(got, `p\u009b2J\u009d0;t\u009c\u007f`) {
			t.Errorf("the JSON report on a terminal shows no escaped plugin name:\n%s", got)
		}
	}
}

// TestErrorLinesAfterTheFirstAreIndented: a line feed in a name an error
// quotes starts a line that reads as the error's continuation, indented,
// on a terminal and in a step log alike, never one that reads as a line
// of vigiles' own. merge quotes a report directory so named in Go syntax,
// which keeps the error on one line; an error that quotes a name bare
// (an error of the system's, which names the path as it is) is printed
// indented.
func TestErrorLinesAfterTheFirstAreIndented(t *testing.T) {
	name := "r\nvigiles: merged 3 reports, all passed\n"
	dir := filepath.Join(t.TempDir(), name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"merge", dir}, func(string) string { return "" }, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil {
		t.Fatal("merge of a directory succeeded")
	}
	for _, stepLog := range []bool{false, true} {
		var out bytes.Buffer
		exitCode(err, &out, stepLog)
		if strings.Count(out.String(), "\n") != 1 {
			t.Errorf("the error of merge (step log %v) is not one line:\n%s", stepLog, out.String())
		}
	}
	bare := exitWith(125, commandNamed("merge", fmt.Errorf("reading report: open %s: input/output error", dir)))
	var term, step bytes.Buffer
	exitCode(bare, &term, false)
	exitCode(bare, &step, true)
	for name, out := range map[string]string{"on a terminal": term.String(), "in a step log": step.String()} {
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) < 2 {
			t.Fatalf("%s the error is one line; the test proves nothing:\n%s", name, out)
		}
		for _, l := range lines[1:] {
			if !strings.HasPrefix(strings.TrimPrefix(l, annotate.NoMatch("vigiles: ")), "  ") {
				t.Errorf("%s a line of the name's is not indented: %q\n%s", name, l, out)
			}
		}
	}
	if !strings.Contains(term.String(), "\n  vigiles: merged 3 reports, all passed\n") {
		t.Errorf("on a terminal:\n%s", term.String())
	}
}
