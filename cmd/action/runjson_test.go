package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/internal/allocs"
	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// wholeRunJSON is run --json's document made at once: what writeRunJSON
// writes an entry at a time.
func wholeRunJSON(t testing.TB, res *sandbox.Result) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	return annotate.NoMatchJSON(annotate.InertJSON(buf.Bytes()))
}

// hostile are writes whose names hold what the JSON encodings and the
// inert escapes treat apart: escapes, bytes that are not UTF-8, ':' and
// "##[", a character past U+FFFF, '<' and '&', the keys' own text.
var hostile = []evidence.Write{
	{Path: "a", Op: evidence.OpCreate, Kind: "file"},
	{Path: "d", Op: evidence.OpModify, Kind: "dir", Was: "file"},
	{Path: "gone", Op: evidence.OpDelete},
	{Path: "l", Op: evidence.OpCreate, Kind: "symlink", Target: "../x:1:2: error ##[group]"},
	{Path: "n\xff\xfe", Op: evidence.OpCreate, Kind: "file", From: "o\xfd:"},
	{Path: "q\"\\\n\u2028<&>\u202e\u0085\x7f", Op: evidence.OpCreate, Kind: "other"},
	{Path: "\n  \"writes\": null", Op: evidence.OpCreate, Kind: "file"},
	{Path: "\n      \"writes\": null", Op: evidence.OpCreate, Kind: "file"},
	{Path: "#\U0001F600\x00\t\u00ad", Op: evidence.OpCreate, Kind: "file", Target: "\xed\xa0\x80"},
	{},
}

// TestRunJSONWrittenByEntrySameBytes: the document run --json writes an
// entry of the write record at a time is byte for byte the one encoding
// the whole result at once gives, whatever the names hold (escapes,
// bytes that are not UTF-8, ':' and "##[" that the inert escapes
// rewrite, a key's own text) and however many writes there are.
func TestRunJSONWrittenByEntrySameBytes(t *testing.T) {
	for _, tt := range []struct {
		name string
		res  sandbox.Result
	}{
		{"no record", sandbox.Result{Schema: "vigiles.run/v1", Tier: sandbox.TierConfined}},
		{"none written", sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, WritesMethod: "overlay"}},
		{"one", sandbox.Result{Tier: sandbox.TierConfined, Writes: hostile[:1], WritesMethod: "overlay", Egress: []evidence.Egress{}}},
		{"every form", sandbox.Result{
			Schema: "vigiles.run/v1", Tier: sandbox.TierConfined, Error: `"writes": null ##[x]`,
			Stdout: "\n  \"writes\": null\n", Stderr: "a:b", Writes: hostile, WritesMethod: "copy",
			Egress: []evidence.Egress{{Host: "h:x", Via: evidence.ViaDNS}}, EgressDropped: &evidence.Dropped{},
			Lingered: []string{"sleep 1"}, EnvFile: &evidence.EnvFile{},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := wholeRunJSON(t, &tt.res)
			var got bytes.Buffer
			if err := writeRunJSON(&got, &tt.res); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("written by entry:\n%s\nwhole:\n%s", got.Bytes(), want)
			}
		})
	}
}

// FuzzRunJSON: whatever the names of a record hold, the document written
// an entry at a time is the one made whole.
func FuzzRunJSON(f *testing.F) {
	f.Add("a", "../t", "o", "")
	f.Add("x:1:2: error", "##[group]", "\xff", "\u202e")
	f.Fuzz(func(t *testing.T, path, target, from, stdout string) {
		res := sandbox.Result{Tier: sandbox.TierConfined, Stdout: stdout, WritesMethod: "overlay", Writes: []evidence.Write{
			{Path: path, Op: evidence.OpCreate, Kind: "symlink", Target: target},
			{Path: from, Op: evidence.OpCreate, Kind: "file", From: path},
			{Path: target, Op: evidence.Op(from), Kind: stdout, Was: path},
		}}
		want := wholeRunJSON(t, &res)
		var got bytes.Buffer
		if err := writeRunJSON(&got, &res); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("written by entry:\n%s\nwhole:\n%s", got.Bytes(), want)
		}
	})
}

// BenchmarkRunJSON writes run --json's document of n created files, by
// entry and whole, and reports what the writing allocated (alloc-MiB):
// with GOGC at 100, as the CLI runs, the heap grows with it.
func BenchmarkRunJSON(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		res := &sandbox.Result{Schema: "vigiles.run/v1", Tier: sandbox.TierConfined, WritesMethod: "overlay", Writes: make([]evidence.Write, n)}
		for i := range res.Writes {
			res.Writes[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		for _, way := range []struct {
			name  string
			write func()
		}{
			{"by-entry", func() {
				if err := writeRunJSON(io.Discard, res); err != nil {
					b.Fatal(err)
				}
			}},
			{"whole", func() { io.Discard.Write(wholeRunJSON(b, res)) }},
		} {
			b.Run(fmt.Sprintf("%s/%d", way.name, n), func(b *testing.B) {
				allocs.Report(b, false, func() any { way.write(); return nil })
			})
		}
	}
}

// wholeJSONReport is the JSON report made at once, made inert where
// inert says so: what reportJSON writes an entry of each write
// record at a time.
func wholeJSONReport(t testing.TB, rep *report.Report, inert bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep); err != nil {
		t.Fatal(err)
	}
	if inert {
		return annotate.NoMatchJSON(annotate.InertJSON(buf.Bytes()))
	}
	return buf.Bytes()
}

// sameJSONReport fails t unless the report written an entry of each write
// record at a time, as a file holds it, as stdout shows it (inert) and as
// the action's report file holds it, is byte for byte the one made at
// once.
func sameJSONReport(t *testing.T, rep *report.Report) {
	t.Helper()
	d, err := reportJSON(rep, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, inert := range []bool{false, true} {
		want := wholeJSONReport(t, rep, inert)
		var got bytes.Buffer
		if err := d.write(&got, inert); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("inert %v, written by entry:\n%s\nwhole:\n%s", inert, got.Bytes(), want)
		}
	}
	// The action's report file, as json.MarshalIndent makes it ('<'
	// escaped), a newline after.
	want, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if d, err = reportJSON(rep, true); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := d.write(&got, false); err != nil {
		t.Fatal(err)
	}
	if want = append(want, '\n'); !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("the action's, written by entry:\n%s\nwhole:\n%s", got.Bytes(), want)
	}
}

// TestJSONReportWrittenByEntrySameBytes: the JSON report, written with
// each run's write record an entry at a time, is byte for byte the one
// encoding the whole report gives, as a file holds it and made inert as
// stdout shows it: for runs whose record was not made (null) beside runs
// that recorded nothing ([]) and runs of odd names, whatever the rest
// of the report holds (a finding's text that is a run's writes key).
func TestJSONReportWrittenByEntrySameBytes(t *testing.T) {
	run := func(id string, writes []evidence.Write) report.HookRun {
		return report.HookRun{
			ID: id, Plugin: "p:1", Event: "Stop", Type: "command", Command: "touch '##[x]'",
			Location: report.Location{File: "p\xff/hooks.json", Line: 3, Column: 9},
			Tier:     "confined", Outcome: report.OutcomeAllowed, DurationMs: 1.5,
			Stdout: "\n      \"writes\": null\n", Writes: writes, Egress: []evidence.Egress{},
		}
	}
	for _, tt := range []struct {
		name string
		rep  report.Report
	}{
		{"no runs", report.Report{Schema: report.Schema, Command: "audit", Verdict: report.VerdictPass}},
		{"runs empty", report.Report{Schema: report.Schema, Command: "test", Runs: []report.HookRun{}, Findings: []report.Finding{}}},
		{"not recorded", report.Report{Schema: report.Schema, Runs: []report.HookRun{run("a", nil)}}},
		{"none written", report.Report{Schema: report.Schema, Runs: []report.HookRun{run("a", []evidence.Write{})}}},
		{"every form", report.Report{
			Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "x<y>&"}, Command: "test", Verdict: report.VerdictFail,
			Runs: []report.HookRun{
				run("none", nil), run("hostile", hostile), run("empty", []evidence.Write{}), run("one", hostile[:1]),
				{ID: "listed", Type: "http", Outcome: report.OutcomeNotExecutable},
			},
			Findings: []report.Finding{{Rule: "expect/no-write", Severity: report.SeverityError, Message: "\n      \"writes\": null", Evidence: "a:b ##[c]"}},
			Drift:    []report.Drift{{Hook: "h", Kind: "write", Now: "\U0001F600:"}},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) { sameJSONReport(t, &tt.rep) })
	}
}

// FuzzJSONReport: whatever the names of the write records hold, and the
// text beside them, the JSON report written an entry at a time is the one
// made whole, and merge reads it as it reads the document decoded whole.
func FuzzJSONReport(f *testing.F) {
	f.Add("a", "../t", "o", "", true)
	f.Add("x:1:2: error", "##[group]", "\xff", "\u202e", false)
	f.Add("\n      \"writes\": null", "<&>", "\U0001F600", "\x7f\u0085", true)
	f.Fuzz(func(t *testing.T, path, target, from, stdout string, empty bool) {
		second := []evidence.Write(nil)
		if empty {
			second = []evidence.Write{}
		}
		rep := report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictPass, Runs: []report.HookRun{
			{ID: path, Stdout: stdout, Location: report.Location{File: from}, Writes: []evidence.Write{
				{Path: path, Op: evidence.OpCreate, Kind: "symlink", Target: target},
				{Path: from, Op: evidence.OpCreate, Kind: "file", From: path},
				{Path: target, Op: evidence.Op(from), Kind: stdout, Was: path},
			}},
			{ID: target, Writes: second},
		}, Findings: []report.Finding{{Message: stdout, Evidence: target}}}
		sameJSONReport(t, &rep)
		// And merge reads it as the document decoded whole reads.
		d, err := reportJSON(&rep, false)
		if err != nil {
			t.Fatal(err)
		}
		var doc bytes.Buffer
		if err := d.write(&doc, false); err != nil {
			t.Fatal(err)
		}
		sameReadReport(t, doc.Bytes())
	})
}

// TestJSONReportOfARealRunIsTheWholeDocument: `vigiles test --format json`
// of a confined hook that makes many files with odd names (':', "##[",
// '<' and '&', a byte that is not UTF-8, a character past U+FFFF) beside
// one that makes none writes, to a file (--output) and to stdout (made
// inert), the very bytes of the report it holds encoded whole.
func TestJSONReportOfARealRunIsTheWholeDocument(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := t.TempDir()
	files := map[string]string{
		".claude-plugin/marketplace.json":       `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "mk", "source": "./plugins/mk"}, {"name": "quiet", "source": "./plugins/quiet"}]}`,
		"plugins/mk/.claude-plugin/plugin.json": `{"name": "mk", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/mk.sh\""}]}]}}`,
		"plugins/mk/mk.sh": `mkdir d && cd d && seq 1 300 | xargs touch
: > 'a:1:2: error'; : > '##[group]x'; : > '<&>'; : > "n$(printf '\377')"; : > "$(printf '\360\237\230\200')"
`,
		"plugins/quiet/.claude-plugin/plugin.json": `{"name": "quiet", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".vigiles.yml": "checks:\n  - name: makes files\n    hook: mk\n    event: Stop\n    expect: {allowed: true}\n" +
			"  - name: makes none\n    hook: quiet\n    event: Stop\n    expect: {no-write: true}\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reread := func(doc []byte, inert bool) *report.Report {
		t.Helper()
		var rep report.Report
		if err := json.Unmarshal(doc, &rep); err != nil {
			t.Fatalf("%v:\n%.2000s", err, doc)
		}
		if len(rep.Runs) != 2 || len(rep.Runs[0].Writes) != 305 || rep.Runs[1].Writes == nil || len(rep.Runs[1].Writes) != 0 {
			t.Fatalf("want two runs, of 305 writes and of none:\n%.2000s", doc)
		}
		if got, want := doc, wholeJSONReport(t, &rep, inert); !bytes.Equal(got, want) {
			t.Fatalf("inert %v, written:\n%s\nwhole:\n%s", inert, got, want)
		}
		return &rep
	}
	out := filepath.Join(t.TempDir(), "report.json")
	if code, stdout, errs := runCLI(t, "test", "--dir", dir, "--format", "json", "--output", out, "-q"); code != 0 || stdout != "" {
		t.Fatalf("test --output: exit %d, want 0 and nothing on stdout:\n%s\n%s", code, stdout, errs)
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	reread(doc, false)
	code, stdout, errs := runCLI(t, "test", "--dir", dir, "--format", "json", "-q")
	if code != 0 {
		t.Fatalf("test: exit %d, want 0:\n%s\n%s", code, stdout, errs)
	}
	if !strings.Contains(stdout, `a\u003a1\u003a2\u003a error`) || !strings.Contains(stdout, `#\u0023[group]x`) {
		t.Errorf("stdout is not made inert:\n%.3000s", stdout)
	}
	reread([]byte(stdout), true)
}

// BenchmarkJSONReport writes the JSON report of one run of n created
// files, by entry and whole (as it was made, and then made inert, for
// stdout), and reports what the writing allocated (alloc-MiB).
func BenchmarkJSONReport(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		writes := make([]evidence.Write, n)
		for i := range writes {
			writes[i] = evidence.Write{Path: fmt.Sprintf("d/%d", i), Op: evidence.OpCreate, Kind: "file"}
		}
		rep := &report.Report{Schema: report.Schema, Command: "test", Verdict: report.VerdictPass, Runs: []report.HookRun{
			{ID: "check:c>p", Type: "command", Tier: "confined", Outcome: report.OutcomeAllowed, Writes: writes, Egress: []evidence.Egress{}},
		}, Findings: []report.Finding{}}
		for _, way := range []struct {
			name  string
			write func()
		}{
			{"by-entry", func() {
				d, err := reportJSON(rep, false)
				if err != nil {
					b.Fatal(err)
				}
				if err := d.write(io.Discard, true); err != nil {
					b.Fatal(err)
				}
			}},
			{"whole", func() { io.Discard.Write(wholeJSONReport(b, rep, true)) }},
		} {
			b.Run(fmt.Sprintf("%s/%d", way.name, n), func(b *testing.B) {
				allocs.Report(b, false, func() any { way.write(); return nil })
			})
		}
	}
}
