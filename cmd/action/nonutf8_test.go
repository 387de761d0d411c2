package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// TestAuditOfATreeUnderANameThatIsNotUTF8: a plugin checked out under a
// directory whose name is not UTF-8 is audited and tested, confined,
// as any other: its hook runs from that path (the command names it
// through ${CLAUDE_PLUGIN_ROOT}), starts in it, and finds it in
// CLAUDE_PROJECT_DIR and CLAUDE_PLUGIN_ROOT, byte for byte, while its
// payload's cwd, JSON, has U+FFFD for the byte; the files it makes whose names differ only in
// bytes that are not UTF-8, and one named with U+FFFD, are three writes
// in the report, three lines of a finding's evidence and three names in
// the text report's table.
func TestAuditOfATreeUnderANameThatIsNotUTF8(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := filepath.Join(t.TempDir(), "plugin\xff")
	files := map[string]string{
		".claude-plugin/plugin.json": `{"name": "oddplug"}`,
		"hooks/hooks.json":           `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/hook.sh\""}]}]}}`,
		// The very bytes: where JSON had made U+FFFD of them, the tree
		// was mounted at a path so named, and the hook ran there.
		"hook.sh": `want='` + dir + `'
test "$PWD" = "$want" && test "$CLAUDE_PROJECT_DIR" = "$want" && test "$CLAUDE_PLUGIN_ROOT" = "$want" || exit 3
# The payload, JSON, names it with U+FFFD, here as the escape encoding/json
# writes for it (docs/hook-events.md).
p=$(cat); case "$p" in *'"cwd":"` + strings.TrimSuffix(dir, "\xff") + `\ufffd"'*|*'"cwd":"` + strings.ToValidUTF8(dir, "\uFFFD") + `"'*) ;; *) exit 4;; esac
: > "n$(printf '\377')"; : > "n$(printf '\376')"; : > "n$(printf '\357\277\275')"
`,
		".vigiles.yml": "checks:\n  - name: odd names\n    hook: oddplug\n    event: Stop\n    expect: {no-write: true}\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"n\xfe", "n\xff", "n\uFFFD"}

	// The check fails, naming each write on a line of its own, each
	// told apart: Go's quoting shows the bytes that are not UTF-8.
	code, out, errs := runCLI(t, "test", "--dir", dir, "--format", "json", "-q")
	if code != 1 {
		t.Fatalf("test: exit %d, want 1 (the hook writes):\n%s\n%s", code, out, errs)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var evidence string
	for _, f := range rep.Findings {
		if f.Rule == "expect/no-write" {
			evidence = f.Evidence
		}
	}
	if got, wantLines := strings.Split(evidence, "\n"), []string{`create "n\xfe"`, `create "n\xff"`, "create \"n\uFFFD\""}; !sameSet(got, wantLines) {
		t.Errorf("no-write's evidence %q, want the lines %q\n%s", got, wantLines, out)
	}
	checkWrites(t, rep, want, out)

	// The audit records the same three writes, and its baseline passes
	// the same run.
	if code, out, errs = runCLI(t, "audit", "--dir", dir, "--update-baseline", "-q"); code != 0 {
		t.Fatalf("audit --update-baseline: exit %d, want 0:\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "audit", "--dir", dir, "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("audit: exit %d, want 0 against the baseline it wrote:\n%s\n%s", code, out, errs)
	}
	rep = report.Report{}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	checkWrites(t, rep, want, out)
	// The text report, too, takes the run whole, each name its own.
	if code, out, errs = runCLI(t, "audit", "--dir", dir); code != 0 || !strings.Contains(out, "PASS") {
		t.Errorf("audit, text: exit %d, want 0 and PASS:\n%s\n%s", code, out, errs)
	}
	for _, n := range []string{`"n\xfe"`, `"n\xff"`, `"n\ufffd"`} {
		if !strings.Contains(out, n) {
			t.Errorf("audit, text: no %s among the writes:\n%s", n, out)
		}
	}
}

// checkWrites wants rep to hold one confined run that exited 0 and wrote
// the paths want, exactly.
func checkWrites(t *testing.T, rep report.Report, want []string, out string) {
	t.Helper()
	if len(rep.Runs) != 1 || rep.Runs[0].Tier != "confined" || rep.Runs[0].ExitCode != 0 {
		t.Fatalf("runs %+v, want one confined that exited 0\n%s", rep.Runs, out)
	}
	var got []string
	for _, w := range rep.Runs[0].Writes {
		got = append(got, w.Path)
	}
	if !sameSet(got, want) {
		t.Errorf("writes %q, want %q\n%s", got, want, out)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestTextReportShowsBytesThatAreNotUTF8: the text report names a file
// whose name is not UTF-8 by its bytes (p\xff/x, p\xfe/x: two files) and a
// U+FFFD of a name as \ufffd, never the three as one.
func TestTextReportShowsBytesThatAreNotUTF8(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: "audit", Verdict: report.VerdictFail}
	for _, f := range []string{"p\xff/x", "p\xfe/x", "p\uFFFD/x"} {
		rep.Findings = append(rep.Findings, report.Finding{Rule: "discovery/malformed", Severity: report.SeverityError,
			Message: "m", Location: report.Location{File: f, Line: 1}})
	}
	var out bytes.Buffer
	finishReport("audit", rep, nil, "text", "", &out, io.Discard)
	for _, want := range []string{`p\xff/x`, `p\xfe/x`, `p\ufffd/x`} {
		if strings.Count(out.String(), want) != 1 {
			t.Errorf("the text report shows %q %d times, want once:\n%s", want, strings.Count(out.String(), want), out.String())
		}
	}
}

// TestTextReportTellsAnEscapeFromTheNameThatSpellsIt: a plugin, event,
// tool or rule spelt with a backslash, p\xff in four characters, reads
// apart from p and the byte 0xff, and p\u202e from a bidi override: the
// name's backslash is shown doubled, the byte and the override as escapes.
func TestTextReportTellsAnEscapeFromTheNameThatSpellsIt(t *testing.T) {
	rep := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles"}, Command: "audit", Verdict: report.VerdictFail}
	names := []string{"p\xff", `p\xff`, "p\u202e", `p\u202e`}
	for _, n := range names {
		rep.Runs = append(rep.Runs, report.HookRun{ID: n, Plugin: n, Event: "E" + n, Tool: "T" + n, Tier: "confined", Outcome: "allowed",
			Location: report.Location{File: "h.json", Line: 1}})
		rep.Findings = append(rep.Findings, report.Finding{Rule: "r/" + n, Severity: report.SeverityError, Message: "m", Location: report.Location{File: "h.json", Line: 1}})
	}
	var out bytes.Buffer
	finishReport("audit", rep, nil, "text", "", &out, io.Discard)
	for _, want := range []string{`p\xff`, `p\\xff`, `p\u202e`, `p\\u202e`} {
		for _, w := range []string{"\n" + want + " ", "E" + want + " ", "T" + want + " ", "r/" + want + "\n"} {
			if strings.Count(out.String(), w) != 1 {
				t.Errorf("the text report shows %q %d times, want once:\n%s", w, strings.Count(out.String(), w), out.String())
			}
		}
	}
	if strings.Contains(out.String(), "\u202e") {
		t.Errorf("the text report sends a bidi override:\n%s", out.String())
	}
}
