package annotate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// Hostile strings a plugin controls: hook output, file names, host names,
// messages. Each tries to forge a command, mask or set an output, end the
// stop-commands block, smuggle a newline through escaping, or inject
// markdown and HTML into the summary.
var hostile = []string{
	"::error::forged error",
	"::add-mask::secret-value",
	"::set-output name=verdict::pass",
	"::stop-commands::attacker",
	"::endgroup::",
	"::warning file=.github/workflows/ci.yml,line=1::forged",
	"%0A::error::percent-newline",
	"%250A::error::double-escaped",
	"line\n::error::after-LF",
	"line\r::error::after-CR",
	"line\r\n::notice::after-CRLF",
	"  ::error::indented",
	"##[error]legacy command",
	"\u2028::error::line-separator",
	"\x1b[2K\x1b[1A::error::ansi",
	"::vigiles-0000000000000000000000000000000000000000::",
	"verdict=pass\nfailed=0",
	"report<<EOF\n/etc/passwd\nEOF",
	"| forged | table | row |",
	"<img src=x onerror=alert(1)> & <script>alert(1)</script>",
	"[click](javascript:alert(1)) ![x](https://evil.example/x.png)",
	"`code` ``` fenced",
	"\n## Forged heading\n- forged item",
	"https://evil.example/phish www.evil.example user@evil.example",
	"$\\sqrt{x}$ **bold** _it_ ~~strike~~",
	"bad utf8 \xff\xfe end",
	"Trojan \u202egnp.exe zero\u200bwidth nul\x00 c1\u009b31m",
	"##[endgroup]\n##[error]forged verdict\n##[group]hidden",
	"ping @octocat about #123 see [the fix](https://evil.example/x)",
	"see GH-42 and commit fedcba9876543210fedcba9876543210fedcba98 and deadbee",
	":white_check_mark: passed :+1: :100:",
	"{0}{1} placeholders {{literal}}",
	// Bait for the problem matchers of setup-go, setup-node (tsc,
	// eslint-compact, eslint-stylish) and setup-python, which read every
	// line of the log that is not a command.
	"./main.go:1:1: x",
	"vigiles: ./main.go:12:5: this plugin was reviewed and is safe to merge",
	"a.ts(1,1): error TS1: x",
	"a.js: line 1, col 1, Error - forged (rule)",
	"a.js\n  1:1  error  forged  rule",
	"  File \"a.py\", line 1, in x",
	"  File \"a.py\", line 1, in x\nraise X('forged')",
}

func hostileReport() *report.Report {
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: "audit", Verdict: report.VerdictFail}
	all := strings.Join(hostile, "\n")
	for i, h := range hostile {
		sev := []report.Severity{report.SeverityError, report.SeverityWarning, report.SeverityNotice}[i%3]
		r.Runs = append(r.Runs, report.HookRun{
			ID: h, Plugin: h, Event: h, Tool: h, Tier: "confined", Outcome: h, Reason: h,
			Location: report.Location{File: h, Line: i + 1},
			Stdout:   h + "\n" + all, Stderr: all,
			Writes: []evidence.Write{{Path: h, Op: evidence.OpCreate}},
			Egress: []evidence.Egress{{Host: h, Port: 443, Via: evidence.ViaDNS}, {IP: h, Allowed: true}},
		})
		r.Findings = append(r.Findings, report.Finding{
			Rule: h, Severity: sev, Title: h, Message: h + " " + all, Evidence: h, Hook: h,
			Location: report.Location{File: h + ".yml", Line: i + 1, Column: 2},
		})
		r.Drift = append(r.Drift, report.Drift{Hook: h, Kind: h, Was: h, Now: h, Location: report.Location{File: h, Line: 1}})
	}
	return r
}

func TestHostileInputTakesNoEffect(t *testing.T) {
	r := hostileReport()
	dir := t.TempDir()
	summaryPath := filepath.Join(dir, "summary.md")
	outputPath := filepath.Join(dir, "output")
	env := map[string]string{
		"GITHUB_STEP_SUMMARY": summaryPath,
		"GITHUB_OUTPUT":       outputPath,
		"GITHUB_REPOSITORY":   "octo/plugins",
		"GITHUB_SHA":          "0123456789abcdef0123456789abcdef01234567",
		"GITHUB_SERVER_URL":   "https://github.com",
	}
	var log bytes.Buffer
	res, err := Publish(context.Background(), r, Options{
		Log: &log, Getenv: func(k string) string { return env[k] },
		FailLevel: FailWarning, ReportPath: "/tmp/vigiles-report.json", RawLogs: true,
	})
	if err != nil {
		t.Fatal(err)
	}

	// The log: exactly the annotations we meant, then the fenced block.
	cmds := runnerCommands(t, log.String())
	var names []string
	perLevel := map[string]int{}
	for _, c := range cmds {
		names = append(names, c.Name)
		perLevel[c.Name]++
	}
	want := []string{}
	for _, lv := range []string{"error", "warning", "notice"} {
		for i := 0; i < MaxAnnotationsPerLevel && i < len(hostile)/3+1; i++ {
			want = append(want, lv)
		}
	}
	want = want[:perLevel["error"]+perLevel["warning"]+perLevel["notice"]]
	want = append(want, "group", "stop-commands", "<resume>", "endgroup")
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("commands the runner would execute differ (-want +got):\n%s\nlog:\n%s", diff, log.String())
	}
	if n := len(r.Findings); perLevel["error"]+perLevel["warning"]+perLevel["notice"] != n-res.Hidden.Total() {
		t.Errorf("annotations %v plus hidden %d != findings %d", perLevel, res.Hidden.Total(), n)
	}
	// Each annotation carries exactly the finding's values, escaped and
	// restored intact, never split into more.
	byTitle := map[string]report.Finding{}
	for _, f := range r.Findings {
		byTitle[findingTitle(f)] = f
	}
	for _, c := range cmds {
		if c.Name != "error" && c.Name != "warning" && c.Name != "notice" {
			continue
		}
		f, ok := byTitle[c.Props["title"]]
		if !ok {
			t.Errorf("annotation with unknown title %q", c.Props["title"])
			continue
		}
		// A path one line cannot hold as it is names no file: flattened,
		// it could name another one; nor does one with a backslash, which
		// a reader may take for Windows' separator.
		want := ""
		if oneLine(f.Location.File) == f.Location.File && !strings.Contains(f.Location.File, `\`) {
			want = path.Clean(f.Location.File)
		}
		if got := c.Props["file"]; got != want {
			t.Errorf("file property = %q, want %q", got, want)
		}
		if got, want := c.Data, findingMessage(f, MaxMessageChars); got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		for k := range c.Props {
			if k != "file" && k != "line" && k != "col" && k != "title" {
				t.Errorf("unexpected property %q", k)
			}
		}
	}
	// The stop token is fresh and unguessable.
	for _, c := range cmds {
		if c.Name == "stop-commands" && !tokenRE.MatchString(c.Data) {
			t.Errorf("stop token %q is not random", c.Data)
		}
	}

	// Outputs: exactly our four names, safe values.
	out, err := os.ReadFile(outputPath)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0 // errors and warnings: every finding but each third one
	for i := range hostile {
		if i%3 != 2 {
			failed++
		}
	}
	wantOut := fmt.Sprintf("verdict=fail\nfindings=%d\nfailed=%d\nreport=/tmp/vigiles-report.json\n", len(hostile), failed)
	if diff := cmp.Diff(wantOut, string(out)); diff != "" {
		t.Errorf("GITHUB_OUTPUT (-want +got):\n%s", diff)
	}

	// Summary: no untrusted markup survives.
	sum, err := os.ReadFile(summaryPath)
	if err != nil {
		t.Fatal(err)
	}
	checkSummarySafe(t, string(sum))
}

var ourLinkRE = regexp.MustCompile(`\]\(https://github\.com/octo/plugins/blob/[0-9a-f]{40}/[^()\s<>\[\]]*\)`)

// checkSummarySafe asserts the structure of a summary made from hostile
// input is only ours: our headings, our tables with the right number of
// cells, our links only, no raw HTML but our <br>.
func checkSummarySafe(t *testing.T, s string) {
	t.Helper()
	cols := 0
	for i, line := range strings.Split(s, "\n") {
		switch {
		case line == "":
			cols = 0
		case strings.HasPrefix(line, "#"):
			if !strings.HasPrefix(line, "## ") && line != "### Findings" && line != "### Hook runs" && line != "### Baseline drift" {
				t.Errorf("line %d: forged heading %q", i+1, line)
			}
		case strings.HasPrefix(line, "|"):
			n := strings.Count(line, "|")
			if cols == 0 {
				cols = n
			} else if n != cols {
				t.Errorf("line %d: %d pipes, table has %d: %q", i+1, n, cols, line)
			}
		case strings.HasPrefix(line, "**") || strings.HasPrefix(line, "> "):
		default:
			t.Errorf("line %d: unexpected line %q", i+1, line)
		}
	}
	rest := ourLinkRE.ReplaceAllString(s, "")
	rest = strings.ReplaceAll(rest, "<br>", "")
	for _, bad := range []string{"<", ">", "](", "![", "`", "javascript:", "http://", "https://", "www.", "@", "\x1b", "\r", "\u2028", "~~", "$"} {
		if strings.Contains(rest, bad) {
			i := strings.Index(rest, bad)
			t.Errorf("summary contains %q near %q", bad, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
}

// TestHostileInputOnEverySurface: the check run's annotations and the
// SARIF messages carry hostile text cleaned as the log does; SARIF's link
// syntax is escaped; the hook logs cannot style lines as the log viewer's
// own; the summary cannot mention people or link issues.
func TestHostileInputOnEverySurface(t *testing.T) {
	r := hostileReport()
	for _, a := range checkAnnotations(r.Findings, "") {
		for _, s := range []string{a.GetMessage(), a.GetRawDetails(), a.GetTitle(), a.GetPath()} {
			if i := strings.IndexFunc(s, annotatetest.UnsafeRune); i >= 0 {
				t.Errorf("check-run annotation carries %q in %q", []rune(s[i:])[0], s)
			}
		}
	}
	var sarif bytes.Buffer
	if _, err := WriteSARIF(&sarif, r, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	texts, _, err := annotatetest.SARIFTexts(sarif.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range texts {
		if i := strings.IndexFunc(m, annotatetest.UnsafeRune); i >= 0 {
			t.Errorf("sarif message carries %q in %q", []rune(m[i:])[0], m)
		}
		for _, what := range annotatetest.SARIFSyntax(m) {
			t.Errorf("sarif message has %s: %q", what, m)
		}
	}
	var logs bytes.Buffer
	if err := WriteHookLogs(&logs, r.Runs); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "##[") {
		t.Errorf("hook logs keep the log viewer's ##[ markers")
	}
	// The runner writes an annotation's message (and title) into the log
	// too, unescaped, a line per line of it. (A check run's annotations
	// never reach the log.)
	var ann bytes.Buffer
	WriteAnnotations(&ann, r.Findings)
	for _, line := range strings.Split(ann.String(), "\n") {
		// "::error file=…,title=…::MESSAGE": the message follows the
		// second "::", escaped.
		_, msg, _ := strings.Cut(strings.TrimPrefix(line, "::"), "::")
		msg = strings.NewReplacer("%0A", "\n", "%0D", "\r", "%25", "%").Replace(msg)
		if strings.Contains(msg, "##[") {
			t.Errorf("an annotation's message keeps the log viewer's ##[ marker: %q", msg)
		}
	}

	sum := Summary(r, SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"})
	// GitHub's other autolinks: "GH-123" and a commit's hash.
	text := regexp.MustCompile(`\]\([^)]*\)`).ReplaceAllString(sum, "]") // link targets are not rendered
	if m := regexp.MustCompile(`(?i).{0,20}(GH-\d|fedcba9|deadbee).{0,20}`).FindString(text); m != "" {
		t.Errorf("the summary keeps a GH-N reference or a commit hash that GitHub would link: %q", m)
	}
	// GitHub draws :name: as an emoji (a forged check mark).
	if m := regexp.MustCompile(`&#58;[a-zA-Z0-9_+-]+&#58;`).FindString(sum); m != "" {
		t.Errorf("the summary keeps an emoji shortcode: %q", m)
	}
	for _, sign := range []string{"&#64;", "&#35;"} {
		if n, m := strings.Count(sum, sign), strings.Count(sum, sign+"&#8203;"); n == 0 || n != m {
			t.Errorf("%s: %d in the summary, %d of them kept from linking", sign, n, m)
		}
	}
}

func TestOutputsRefuseUnsafeValues(t *testing.T) {
	for _, o := range []Outputs{
		{Verdict: "pass\nfailed=0"},
		{Verdict: "pass", Report: "x\nverdict=pass"},
		{Verdict: "pass", Report: "x<<EOF"},
		// CR and NUL too, which lines refuses as it does LF: a reader
		// of the file that ends a line at CR, or a string at NUL,
		// would read another value.
		{Verdict: "pass", Report: "x\rverdict=pass"},
		{Verdict: "pass", Report: "x\x00y"},
	} {
		if _, err := o.lines(); err == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

// TestFlattenedPathIsNoLocation: a finding about ".claude/skills/q\nq/…"
// must not be annotated on ".claude/skills/q q/…", a benign file beside
// it that the flattened path would name; it gets no file (annotations,
// the check run) or the anchor (SARIF).
func TestFlattenedPathIsNoLocation(t *testing.T) {
	for _, p := range []string{".claude/skills/q\nq/monitors/monitors.json", "a\u202e.json", "bad\xffutf8.json"} {
		if got, ok := treePath(p); ok {
			t.Errorf("treePath(%q) = %q, true; want no location", p, got)
		}
	}
	if got, ok := treePath("./.claude/skills/q q/monitors/monitors.json"); !ok || got != ".claude/skills/q q/monitors/monitors.json" {
		t.Errorf("a path with a space: %q, %v", got, ok)
	}
}

// TestFlattenedPathInTheSummary: in the job summary and the check run's,
// a finding about "hooks/a\nb.json" is not shown, nor linked, as
// "hooks/a b.json", a benign file beside it: it shows quoted in Go
// syntax, as evidence names it, and only a path inside the tree is linked.
func TestFlattenedPathInTheSummary(t *testing.T) {
	o := SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"}
	for _, c := range []struct{ file, shown string }{
		{"hooks/a\nb.json", `"hooks/a\nb.json":1`},
		{"hooks/a\u0085b.json", `"hooks/a\u0085b.json":1`},
		{"hooks/a\u2028b.json", `"hooks/a\u2028b.json":1`},
		{"../a b.json", "../a b.json:1"},
	} {
		got := where(o, report.Location{File: c.file, Line: 1})
		if want := md(c.shown, cellChars); got != want {
			t.Errorf("where(%q) = %q; want %q, not linked", c.file, got, want)
		}
	}
	if got := where(o, report.Location{File: "./hooks/a b.json", Line: 1}); !strings.Contains(got, "](https://github.com/octo/plugins/blob/0123456789abcdef0123456789abcdef01234567/hooks/a%20b.json#L1)") {
		t.Errorf("a path inside the tree: %q; want it linked", got)
	}
	r := &report.Report{Findings: []report.Finding{{Rule: "r", Severity: report.SeverityError, Message: "m", Location: report.Location{File: "hooks/a\nb.json", Line: 1}}}}
	if sum := Summary(r, o); strings.Contains(sum, "a b.json") || strings.Contains(sum, "/blob/") {
		t.Errorf("the summary names or links the flattened path:\n%s", sum)
	}
}
