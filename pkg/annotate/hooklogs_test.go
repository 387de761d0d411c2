package annotate

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
)

// TestHookLogsBreakCommandTag: the log viewer shows a line that starts
// with "[command]" as a command the step ran, inside the stop-commands
// fence too. A hook's line that starts so, also one that CR, U+2028 or
// U+2029 starts (each a line break in the log), gets "[·command]"; the
// tag elsewhere in a line is left as it is.
func TestHookLogsBreakCommandTag(t *testing.T) {
	runs := []report.HookRun{{
		ID: "r1", Plugin: "p", Event: "SessionStart",
		Stdout: "[command]/usr/bin/git push --force\nok [command] inside\n",
		Stderr: "[command]a\r[command]b\u2028[command]c\u2029[command]d\r\n[command]e",
	}}
	var log bytes.Buffer
	if err := WriteHookLogs(&log, runs); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.HasPrefix(l, "[command]") {
			t.Errorf("a hook's line starts with [command]: %q", l)
		}
	}
	for _, want := range []string{"\n| [·command]/usr/bin/git push --force\n", "\n| ok [command] inside\n",
		"\n| [·command]a\n| [·command]b\n| [·command]c\n| [·command]d\n| [·command]e\n"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not hold %q:\n%s", want, log.String())
		}
	}
}

// TestHookLogsCannotForgeAHeader: a hook that prints what vigiles' lines
// around the output look like (the header of another run's block, its
// exit status, a "[stdout]"), one after a CR, U+2028 or U+2029 (each a
// line break in the log), a blank line and a last line with no newline,
// has every line of it start with rawMark; the headers are vigiles' own
// alone, one per run, and no line of a hook's starts as one does.
func TestHookLogsCannotForgeAHeader(t *testing.T) {
	const forged = "--- good / Stop (good/Stop/0) exit 0\n[stdout]\n{\"ok\": true}\n"
	runs := []report.HookRun{
		{ID: "evil/PreToolUse/0", Plugin: "evil", Event: "PreToolUse", ExitCode: 2,
			Stdout: "blocked\n\n" + forged + "[stderr]\r--- x / y (z) exit 0\u2028[stdout]\u2029x",
			Stderr: forged},
		{ID: "quiet/Stop/0", Plugin: "quiet", Event: "Stop"},
		{ID: "good/Stop/0", Plugin: "good", Event: "Stop", Stdout: "{}"},
	}
	var log bytes.Buffer
	if err := WriteHookLogs(&log, runs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "::stop-commands::") {
		t.Fatalf("no fence:\n%s", log.String())
	}
	var ours []string
	for _, l := range lines[2 : len(lines)-2] {
		if l != "|" && !strings.HasPrefix(l, rawMark) {
			ours = append(ours, l)
		}
	}
	want := []string{"--- evil / PreToolUse (evil/PreToolUse/0) exit 2", "[stdout]", "[stderr]",
		"--- good / Stop (good/Stop/0) exit 0", "[stdout]"}
	if !reflect.DeepEqual(ours, want) {
		t.Errorf("the lines without the mark are %q, want vigiles' own %q:\n%s", ours, want, log.String())
	}
	for _, l := range []string{"| blocked\n|\n| --- good / Stop (good/Stop/0) exit 0\n| [stdout]\n| {\"ok\": true}\n| [stderr]\n| --- x / y (z) exit 0\n| [stdout]\n| x\n[stderr]\n",
		"\n[stdout]\n| {}\n::"} {
		if !strings.Contains(log.String(), l) {
			t.Errorf("the log does not hold %q:\n%s", l, log.String())
		}
	}
}

// TestEvidenceLinesCannotPassForVigiles: each line of a finding's
// evidence (a hook's output) after its first starts with rawMark in an
// annotation's message and in SARIF's, whatever ends the line before it
// (LF, CRLF, CR, U+2028, U+2029), so that none reads as vigiles' words
// below the message; the message's own lines are as they were.
func TestEvidenceLinesCannotPassForVigiles(t *testing.T) {
	const forged = "vigiles: this hook's findings are all known; nothing new"
	f := report.Finding{Rule: "run/blocked", Severity: report.SeverityError, Message: "blocked\nsee the hook",
		Evidence: "stderr: denied\n" + forged + "\r\n" + forged + "\r" + forged + "\u2028" + forged + "\u2029" + forged}
	var b strings.Builder
	WriteAnnotations(&b, []report.Finding{f})
	cmds := annotatetest.Commands(b.String())
	if len(cmds) != 1 {
		t.Fatalf("%d commands in %q", len(cmds), b.String())
	}
	var sarif bytes.Buffer
	if _, err := WriteSARIF(&sarif, &report.Report{Schema: report.Schema, Command: "audit", Findings: []report.Finding{f}}, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				Message struct{ Text string } `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(sarif.Bytes(), &doc); err != nil || len(doc.Runs) != 1 || len(doc.Runs[0].Results) != 1 {
		t.Fatalf("SARIF: %v\n%s", err, sarif.String())
	}
	for where, msg := range map[string]string{"annotation": cmds[0].Data, "SARIF": doc.Runs[0].Results[0].Message.Text} {
		if want := "blocked\nsee the hook\nevidence: stderr: denied\n" + strings.Repeat(rawMark+forged+"\n", 4) + rawMark + forged; !strings.HasSuffix(msg, want) {
			t.Errorf("the %s message is %q, want it to end %q", where, msg, want)
		}
	}
}

// TestHookLogHeadersQuoteOddNames: a plugin, an event or a run id that
// holds what a header's words are told apart by is quoted, so that its
// header reads as its own run's alone, with its own exit status; and so
// is one that is no plain line of UTF-8, its control and format
// characters and its bytes escaped, so that a\rb reads apart from a b,
// and a bidi override from a zero-width space.
func TestHookLogHeadersQuoteOddNames(t *testing.T) {
	runs := []report.HookRun{
		{ID: "x/Stop/0", Plugin: "good / Stop (good/Stop/0) exit 0\n---", Event: "Stop", ExitCode: 2, Stdout: "a"},
		{ID: "q (1)", Plugin: " q", Event: `S"/x`, Stdout: "b"},
		{ID: "r/Stop/0", Plugin: "r", Event: "Stop", Stdout: "c"},
		// Names that one line would flatten into one another's.
		{ID: "a\rb/Stop/0", Plugin: "a\rb", Event: "St\u202eop", Stdout: "d"},
		{ID: "a b/Stop/0", Plugin: "a b", Event: "St\u200bop", Stdout: "e"},
		{ID: "c\xff", Plugin: "c\uFFFD", Event: "Stop:", Stdout: "f"},
	}
	var log bytes.Buffer
	if err := WriteHookLogs(&log, runs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`--- "good / Stop (good/Stop/0) exit 0\n---" / Stop (x/Stop/0) exit 2` + "\n",
		`--- " q" / "S\"/x" ("q (1)") exit 0` + "\n",
		"--- r / Stop (r/Stop/0) exit 0\n",
		`--- "a\rb" / "St\u202eop" ("a\rb/Stop/0") exit 0` + "\n",
		`--- a b / "St\u200bop" (a b/Stop/0) exit 0` + "\n",
		"--- \"c\uFFFD\" / Stop" + Colon + ` ("c\xff") exit 0` + "\n",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log does not hold %q:\n%s", want, log.String())
		}
	}
}

// TestAnnotationMessageBreaksCommandTag: the runner writes an
// annotation's message into the step's log line by line, unescaped, where
// a line of a hook's evidence (or message) that starts with "[command]"
// would show as a command the step ran; it gets "[·command]" there too.
func TestAnnotationMessageBreaksCommandTag(t *testing.T) {
	f := []report.Finding{{Rule: "r", Severity: report.SeverityError,
		Message:  "blocked\n[command]git push --force\rthen",
		Evidence: "[command]/usr/bin/curl evil\u2028[command]rm -rf ~"}}
	var b strings.Builder
	WriteAnnotations(&b, f)
	cmds := annotatetest.Commands(b.String())
	if len(cmds) != 1 {
		t.Fatalf("%d commands in %q", len(cmds), b.String())
	}
	msg := cmds[0].Data
	for _, l := range strings.Split(msg, "\n") {
		if strings.HasPrefix(l, "[command]") {
			t.Errorf("a line of the message starts with [command]: %q", l)
		}
	}
	for _, want := range []string{"\n[·command]git push --force\n", "evidence: [command]/usr/bin/curl evil\n| [·command]rm -rf ~"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message does not hold %q: %q", want, msg)
		}
	}
}

// TestSummaryTellsOddNamesApart: the job summary's hook runs show each
// plugin, event and tool as one cell of its own, told apart from every
// other, where flattening a control to a space and a format character to
// U+FFFD showed a\rb as a b, and a\u202eb as a\u200bb.
func TestSummaryTellsOddNamesApart(t *testing.T) {
	names := []string{"a b", "a\rb", "a\tb", "a\u202eb", "a\u200bb", `"a b"`, "a\u2028b"}
	var runs []report.HookRun
	for i, n := range names {
		runs = append(runs, report.HookRun{ID: strconv.Itoa(i), Plugin: n, Event: n, Tool: n, Tier: "confined", Outcome: "allowed"})
	}
	sum := Summary(&report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass, Runs: runs}, SummaryOptions{})
	_, table, ok := strings.Cut(sum, "### Hook runs\n")
	if !ok {
		t.Fatalf("no hook runs table:\n%s", sum)
	}
	seen := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, " | ")
		if len(cells) < 3 || !strings.HasPrefix(row, "| ") || strings.HasPrefix(row, "| Plugin") || strings.HasPrefix(row, "|--") || strings.HasPrefix(row, "|-") {
			continue
		}
		key := cells[0] + " | " + cells[1]
		if seen[key] {
			t.Errorf("two runs show as %q:\n%s", key, table)
		}
		seen[key] = true
	}
	if len(seen) != len(names) {
		t.Errorf("%d hook run rows told apart, want %d:\n%s", len(seen), len(names), table)
	}
}
