package annotate

import (
	"bytes"
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
	for _, want := range []string{"\n[·command]/usr/bin/git push --force\n", "\nok [command] inside\n",
		"\n[·command]a\n[·command]b\n[·command]c\n[·command]d\n[·command]e\n"} {
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
	for _, want := range []string{"\n[·command]git push --force\n", "evidence: [command]/usr/bin/curl evil\n[·command]rm -rf ~"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message does not hold %q: %q", want, msg)
		}
	}
}
