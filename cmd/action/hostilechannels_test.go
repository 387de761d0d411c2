package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/vigiles/action/pkg/annotate/annotatetest"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// hostileText is text a plugin chooses for the names and output of the
// newest channels: each piece tries to start a workflow command (after a
// line feed, a carriage return, a percent-escape, in the legacy form),
// to break out of a table cell or a code span of the summary, to make a
// link, an image, HTML, a mention, an issue or commit reference or an
// emoji, to bait a problem matcher, or to reorder the line. Each FORGED-
// marker names where it came from once it has been placed.
const hostileText = "x\n::error file=.github/workflows/ci.yml::FORGED-LF\r::warning::FORGED-CR %0A::error::FORGED-PCT " +
	"##[error]FORGED-LEGACY | cell | `code` <img src=x onerror=alert(1)> [click](javascript:alert(1)) " +
	"![i](https://evil.example/x.png) **b** @octocat #1 GH-42 deadbeefcafe :rocket: ./main.go:1:1: FORGED-GO \u202eevil"

// hostileFile is a file name holding what a name on disk can: no '/' and
// no NUL, a line feed and a carriage return among the rest.
const hostileFile = "m\n::error::FORGED-FILE\r| `x` <b>[l](javascript:x) @u #2.ts"

// jsonString is s as a JSON (and YAML flow) string.
func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runTreeConfined runs the step through the real sandbox on a workspace
// that holds only files (the fixture's own tree, whose policy turns the
// sandbox off, is removed first: nothing here runs unconfined).
func (s *simulatedStep) runTreeConfined(t *testing.T, files map[string]string) {
	t.Helper()
	ws := s.env["GITHUB_WORKSPACE"]
	for _, p := range []string{".vigiles.yml", "plugins"} {
		if err := os.RemoveAll(filepath.Join(ws, p)); err != nil {
			t.Fatal(err)
		}
	}
	for p, c := range files {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string { return s.env[k] }
	deps := actionDeps{test: runner.Test, audit: runner.Audit, httpClient: s.srv.Client()} // no executor: the real sandbox
	s.exitCode = exitCode(runActionWith(context.Background(), nil, getenv, &s.stdout, &s.stderr, deps), &s.stderr, true)
}

// newHostileStep is a step of an audit whose inputs reach every surface:
// the annotations and the fenced hook logs on stdout, the step summary,
// the outputs, the SARIF file and the check run. The simulated GitHub
// refuses the check run (as it does a fork's token), after the action
// has sent it whole, so that the annotations fall back to the log: both
// are there to check.
func newHostileStep(t *testing.T) *simulatedStep {
	t.Helper()
	s := newStep(t, map[string]string{"command": "audit", "fail-level": "error", "sarif": "v.sarif", "hook-logs": "true", "github-token": testToken})
	s.api.Status = http.StatusForbidden
	return s
}

// checkOneText says what is wrong with text vigiles placed in a check
// run or SARIF (where: which): a carriage return or another control or
// format character. (Neither reaches the step log, where a line could
// act as a workflow command: checkLogText.)
func checkOneText(t *testing.T, where, text string) {
	t.Helper()
	if i := strings.IndexFunc(text, annotatetest.UnsafeRune); i >= 0 {
		t.Errorf("%s carries %q: %q", where, []rune(text[i:])[0], text)
	}
}

// checkLogText is checkOneText for an annotation's text, which the runner
// writes into the step log too, a line per line of it: no line of it may
// start a workflow command, nor hold the log viewer's "##[" marker.
func checkLogText(t *testing.T, where, text string) {
	t.Helper()
	checkOneText(t, where, text)
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
			t.Errorf("%s has a line that starts a workflow command: %q", where, l)
		}
	}
	if strings.Contains(text, "##[") {
		t.Errorf("%s keeps the log viewer's ##[ marker: %q", where, text)
	}
}

// outsideHookLogs is log without the lines of its stop-commands block.
func outsideHookLogs(log string) string {
	var b strings.Builder
	fence := ""
	for _, l := range strings.SplitAfter(log, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(l, "::stop-commands::"):
			fence = "::" + strings.TrimSpace(strings.TrimPrefix(l, "::stop-commands::")) + "::"
		case fence != "" && strings.TrimSpace(l) == fence:
			fence = ""
		case fence == "":
			b.WriteString(l)
		}
	}
	return b.String()
}

// ghesLinkRE is a link of the action's own in the summary: to a line of
// the pull request's head on the simulated step's server.
var ghesLinkRE = regexp.MustCompile(`\]\(https://ghes\.example/octo/plugins/blob/` + prHeadSHA + `/[^()\s<>\[\]]*\)`)

// checkMarkdownInert says what is wrong with a summary (the step's or
// the check run's): a heading that is not vigiles' own, a table row with
// more or fewer cells than its table, a line that is neither, a raw line
// break of a value, and markup of untrusted text that renders as such:
// HTML, a link or image that is not vigiles' own, a code span, a
// mention, an issue or commit reference, an emoji shortcode, math.
func checkMarkdownInert(t *testing.T, where, s string) {
	t.Helper()
	if strings.Contains(s, "\r") {
		t.Errorf("%s holds a carriage return", where)
	}
	cols := 0
	for i, line := range strings.Split(s, "\n") {
		switch {
		case line == "":
			cols = 0
		case strings.HasPrefix(line, "#"):
			if i != 0 && line != "### Findings" && line != "### Hook runs" && line != "### Baseline drift" {
				t.Errorf("%s line %d: a heading not vigiles' own: %q", where, i+1, line)
			}
		case strings.HasPrefix(line, "|"):
			n := strings.Count(line, "|")
			if cols == 0 {
				cols = n
			} else if n != cols {
				t.Errorf("%s line %d: %d pipes in a table of %d: %q", where, i+1, n, cols, line)
			}
		case strings.HasPrefix(line, "**"), strings.HasPrefix(line, "> "):
		default:
			t.Errorf("%s line %d: a line of neither a table nor vigiles' own: %q", where, i+1, line)
		}
	}
	rest := ghesLinkRE.ReplaceAllString(s, "")
	rest = strings.ReplaceAll(rest, "<br>", "")
	rest = regexp.MustCompile(`(?m)^> `).ReplaceAllString(rest, "") // a note of vigiles' own
	for _, bad := range []string{"<", ">", "](", "![", "`", "javascript:", "http://", "https://", "www.", "@", "\x1b", "\u202e", "~~", "$", "deadbeefcafe", "GH-42"} {
		if i := strings.Index(rest, bad); i >= 0 {
			t.Errorf("%s holds %q near %q", where, bad, rest[max(0, i-60):min(len(rest), i+60)])
		}
	}
	if m := regexp.MustCompile(`&#58;[a-zA-Z0-9_+-]+&#58;`).FindString(s); m != "" {
		t.Errorf("%s keeps an emoji shortcode: %q", where, m)
	}
	for _, sign := range []string{"&#64;", "&#35;"} {
		if n, m := strings.Count(s, sign), strings.Count(s, sign+"&#8203;"); n != m {
			t.Errorf("%s: %d of %d %s are not kept from linking", where, n-m, n, sign)
		}
	}
}

// checkStepInert checks every surface a step of the action wrote, after
// an audit of a tree that put hostile text in names and output: stdout
// issues only the annotations and the fenced hook logs, each annotation
// a finding's, at a file inside the tree, with no line of untrusted text
// of its own and no problem matcher's bait outside the raw hook logs;
// stderr (the progress lines) issues none, and baits none; GITHUB_OUTPUT
// holds the four
// outputs alone; the step summary and the check run's are markdown of
// vigiles' own; the check run's annotations and the SARIF messages hold
// no control character, link or placeholder of untrusted text. It
// returns the step summary and the JSON report, for the caller to see the
// hostile text did reach them.
func checkStepInert(t *testing.T, s *simulatedStep) (string, *report.Report) {
	t.Helper()
	out := s.stdout.String()
	var fenced int
	for _, c := range annotatetest.Commands(out) {
		switch c.Name {
		case "error", "warning", "notice":
			for k, v := range c.Props {
				switch k {
				case "file":
					if !annotatetest.InRepo(v) {
						t.Errorf("an annotation at %q, outside the tree", v)
					}
				case "title", "line", "col", "endLine", "endColumn":
					checkLogText(t, "an annotation's "+k, v)
				default:
					t.Errorf("an annotation with the property %s=%q", k, v)
				}
			}
			checkLogText(t, "an annotation", c.Data)
		case "group", "endgroup":
		case "stop-commands", "<resume>":
			fenced++
			if !regexp.MustCompile(`^vigiles-[0-9a-f]{32,}$`).MatchString(c.Data) {
				t.Errorf("the hook logs are fenced by %q, no token of vigiles' own", c.Data)
			}
		default:
			t.Errorf("stdout issues the workflow command %q: %+v", c.Name, c)
		}
	}
	if fenced != 0 && fenced != 2 {
		t.Errorf("the hook logs are fenced by %d commands, want none (no hook printed) or a stop and its resume\n%s", fenced, out)
	}
	// stderr (progress, vigiles' own errors) is in the log too.
	if cmds := annotatetest.Commands(s.stderr.String()); len(cmds) != 0 {
		t.Errorf("stderr issues workflow commands %+v:\n%s", cmds, s.stderr.String())
	}
	wantNoIssues(t, "the step's stderr", s.stderr.String())
	// The raw hook logs are left out: problem matchers read the lines of
	// a stop-commands block too, and docs/github-action.md says so of
	// hook-logs: true, which prints a hook's output as it is.
	wantNoIssues(t, "the step's stdout outside the raw hook logs", outsideHookLogs(out))

	// The outputs: the four names, each one line of vigiles' own.
	outputs := s.file(t, "GITHUB_OUTPUT")
	kv := map[string]string{}
	for _, l := range strings.Split(strings.TrimSuffix(outputs, "\n"), "\n") {
		k, v, _ := strings.Cut(l, "=")
		kv[k] = v
	}
	if len(kv) != 4 || !regexp.MustCompile(`^(pass|fail|error)$`).MatchString(kv["verdict"]) ||
		!regexp.MustCompile(`^\d+$`).MatchString(kv["findings"]) || !regexp.MustCompile(`^\d+$`).MatchString(kv["failed"]) ||
		!strings.HasPrefix(kv["report"], s.env["RUNNER_TEMP"]+"/") || strings.Contains(outputs, "<<") || strings.Contains(outputs, "\r") {
		t.Errorf("GITHUB_OUTPUT holds more than the four outputs of vigiles' own:\n%q", outputs)
	}
	data, err := os.ReadFile(kv["report"])
	if err != nil {
		t.Fatalf("the report output: %v", err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("the report: %v", err)
	}

	summary := s.file(t, "GITHUB_STEP_SUMMARY")
	checkMarkdownInert(t, "the step summary", summary)

	// The check run: what the action posted and patched.
	var posted int
	for _, r := range s.api.Requests() {
		if r.Method != http.MethodPost && r.Method != http.MethodPatch {
			continue
		}
		posted++
		o, _ := r.Body["output"].(map[string]any)
		title, _ := o["title"].(string)
		checkOneText(t, "the check run's title", title)
		if strings.Contains(title, "\n") {
			t.Errorf("the check run's title is more than a line: %q", title)
		}
		sum, _ := o["summary"].(string)
		checkMarkdownInert(t, "the check run's summary", sum)
		anns, _ := o["annotations"].([]any)
		for _, a := range anns {
			a := a.(map[string]any)
			if p, _ := a["path"].(string); !annotatetest.InRepo(p) {
				t.Errorf("a check-run annotation at %q, outside the tree", p)
			}
			for _, k := range []string{"title", "message", "raw_details"} {
				if v, ok := a[k].(string); ok {
					checkOneText(t, "a check-run annotation's "+k, v)
				}
			}
		}
	}
	if posted == 0 {
		t.Errorf("no check run was posted")
	}

	// SARIF: a message's link ([text](target)) and placeholder ({0})
	// syntax escaped, a result's uri inside the tree.
	sarif, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "v.sarif"))
	if err != nil {
		t.Fatalf("the SARIF file: %v", err)
	}
	texts, uris, err := annotatetest.SARIFTexts(sarif)
	if err != nil {
		t.Fatalf("the SARIF file: %v", err)
	}
	for _, u := range uris {
		if p, err := url.PathUnescape(u); err != nil || !annotatetest.InRepo(strings.TrimPrefix(p, "./")) {
			t.Errorf("a SARIF uri %q (%q, %v), outside the tree", u, p, err)
		}
	}
	for _, m := range texts {
		checkOneText(t, "a SARIF message", m)
		for _, what := range annotatetest.SARIFSyntax(m) {
			t.Errorf("a SARIF message has %s: %q", what, m)
		}
	}
	return summary, &rep
}

// TestActionHostileNamesOfTheNewestChannels: a tree whose names and hook
// output are hostile text, on the channels added last: a plugin's name
// and its mod's module path (a file name with a line feed in it), a
// background monitor's name and command, the commands a project's
// settings make Claude Code run, an agent's name, a tool matcher, and
// what a hook decides and prints. Audited by the action through the real
// sandbox, every surface it writes holds that text inert
// (checkStepInert), and each channel's text does reach them.
func TestActionHostileNamesOfTheNewestChannels(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	h := jsonString(t, hostileText)
	say := `[{"type": "command", "command": "sh \"${CLAUDE_PLUGIN_ROOT}/hooks/say.sh\""}]`
	s := newHostileStep(t)
	s.runTreeConfined(t, map[string]string{
		// A plugin whose name is the text, a mod of a module whose file
		// name is hostile too, with a monitor and a matcher of the text.
		"plugins/evil/.claude-plugin/plugin.json": `{"name": ` + h + `}`,
		"plugins/evil/hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": ` + jsonString(t, "mcp__x__"+hostileText) +
			`, "hooks": [{"type": "command", "command": "true"}]}]}, "modules": [` + jsonString(t, "./"+hostileFile) + `]}`,
		"plugins/evil/hooks/" + hostileFile:   "export const register = (on) => {}\n",
		"plugins/evil/monitors/monitors.json": `[{"name": ` + h + `, "command": ` + h + `, "description": "d"}]`,
		// A plugin of a plain name whose hook runs, for a tool of a
		// valid matcher of the text, and says what to do with the
		// call in the text, and prints it.
		"plugins/talker/.claude-plugin/plugin.json": `{"name": "talker"}`,
		"plugins/talker/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": ` + say + `}], "PreToolUse": [{"matcher": ` + jsonString(t, "mcp__evil__x\n::error::FORGED-TOOL|<img src=x>|`t`") +
			`, "hooks": ` + say + `}]}}`,
		"plugins/talker/hooks/say.sh":   "cat >/dev/null\ncat \"${CLAUDE_PLUGIN_ROOT}/hooks/say.json\"\nprintf '%s\\n' 'stderr\n::error::FORGED-STDERR' >&2\n",
		"plugins/talker/hooks/say.json": `{"decision": "block", "reason": ` + h + `}`,
		// The project's settings commands, an agent of the text (which
		// holds a colon: not run), and one of a name without a colon,
		// whose hooks run with it as the agent's type.
		".claude/settings.json": `{"statusLine": {"type": "command", "command": ` + h + `}, "apiKeyHelper": ` + h + `}`,
		".claude/agents/a.md":   "---\nname: " + h + "\nhooks:\n  Stop: [{hooks: [{type: command, command: \"true\"}]}]\n---\n",
		".claude/agents/b.md":   "---\nname: " + jsonString(t, "b\n##[error]FORGED-AGENT | `a` <img src=x> @octocat") + "\nhooks:\n  Stop: [{hooks: [{type: command, command: \"echo agent\"}]}]\n  PreToolUse: [{matcher: Bash, hooks: [{type: command, command: \"echo tool\"}]}]\n---\n",
	})
	if s.exitCode != 1 {
		t.Fatalf("exit %d, want 1 for the findings\nstdout:\n%s\nstderr:\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	summary, rep := checkStepInert(t, s)

	// Each channel's text reached the report, and from there the
	// surfaces checked: a finding of each, the runs' tool and reason.
	for _, c := range []struct{ rule, marker string }{
		{runner.RuleMod, "FORGED-FILE"}, {runner.RuleMod, "FORGED-LF"}, {runner.RuleMonitor, "FORGED-LF"},
		{runner.RuleSettingsCommand, "FORGED-LF"}, {runner.RuleNotExecutable, "FORGED-LF"}, {runner.RuleBadMatcher, "FORGED-LF"},
		{runner.RuleAgentStop, "FORGED-AGENT"},
	} {
		if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return f.Rule == c.rule && strings.Contains(f.Message, c.marker) }) {
			t.Errorf("no %s finding quotes %s:\n%+v", c.rule, c.marker, rep.Findings)
		}
	}
	if !slices.ContainsFunc(rep.Runs, func(r report.HookRun) bool { return strings.Contains(r.Tool, "FORGED-TOOL") }) ||
		!slices.ContainsFunc(rep.Runs, func(r report.HookRun) bool {
			return strings.Contains(r.Reason, "FORGED-LF") && strings.Contains(r.Stderr, "FORGED-STDERR")
		}) {
		t.Errorf("no run of the tool the matcher names, or none that says and prints the text:\n%+v", rep.Runs)
	}
	for _, m := range []string{"FORGED-LF", "FORGED-FILE", "FORGED-TOOL"} {
		if !strings.Contains(summary, m) {
			t.Errorf("the step summary shows no %s:\n%s", m, summary)
		}
	}
	if out := s.stdout.String(); !strings.Contains(outsideHookLogs(out), "FORGED-FILE") || !strings.Contains(out, "FORGED-STDERR") {
		t.Errorf("the annotations quote no module's file name, or the hook logs show no hook's stderr:\n%s", out)
	}
	if !strings.Contains(s.stderr.String(), "FORGED-AGENT") || !strings.Contains(s.stderr.String(), "FORGED-TOOL") {
		t.Errorf("the progress lines name no agent's type or tool of the text:\n%s", s.stderr.String())
	}
}

// askHostileNames is a hook, run by python3 in the sandbox, that asks
// multicast DNS's group (224.0.0.251 port 5353) for two names and a
// resolver of the documentation range (192.0.2.53 port 53) for one, all
// at once, each label of them holding what a DNS label can and a name
// of the record must not become on GitHub: a workflow command after a
// line feed or a carriage return, a dot inside a label, a table cell's
// pipe, a code span, HTML, a link, a mention, an issue, a commit's hash,
// emphasis, math, a bidi override, a byte order mark. The wall drops
// both datagrams; the record names what they asked.
const askHostileNames = `import socket, struct
def name(labels):
    return b"".join(bytes([len(l)]) + l for l in labels) + b"\0"
def query(qid, flags, names):
    h = struct.pack("!HHHHHH", qid, flags, len(names), 0, 0, 0)
    return h + b"".join(name(n) + struct.pack("!HH", 255, 1) for n in names)
mdns = [[b"x\n::error::FORGED-MDNS\r::warning::cr", b"a.b|c|` + "`code`" + `<img src=x>", b"local"],
        [b"[l](javascript:x)![i](x)", b"@octocat #1 gh-42 deadbeefcafe", b"*b*_i_~~s~~$x$\\", b"local"]]
dns = [[b"%0A::error::FORGED-DNS##[error]x", b"\xe2\x80\xaeevil\xef\xbb\xbf\x1b[2K", b"example"]]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for payload, dst in ((query(0, 0, mdns), ("224.0.0.251", 5353)), (query(0x1234, 0x0100, dns), ("192.0.2.53", 53))):
    try:
        s.sendto(payload, dst)
    except OSError as e:
        print("send", dst, e)
`

// TestActionHostilePacketNamesAreInert: the names a hook asks of mDNS
// and of another resolver than the sandbox's DNS stub are read from the
// datagrams the wall logged (pkg/egress, directQuestion): whatever bytes
// a label holds reach the record in the form of a DNS name (a byte
// outside letters, digits, '-', '_' and '*' as \DDD), and from there
// the egress findings, annotations, step summary, check run and SARIF.
// Run by the action through the real sandbox, every surface holds them
// inert (checkStepInert), and the names do reach them.
func TestActionHostilePacketNamesAreInert(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	if _, err := exec.LookPath("python3"); err != nil {
		missing(t, "python3, which sends the hook's datagrams")
	}
	s := newHostileStep(t)
	s.runTreeConfined(t, map[string]string{
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR/.claude/ask.py\""}]}]}}`,
		".claude/ask.py":        askHostileNames,
	})
	if s.exitCode != 0 && s.exitCode != 1 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	summary, rep := checkStepInert(t, s)

	// The names were read, and reached each surface.
	named := map[string]string{"forged-mdns": "asked by multicast DNS (mDNS) of 224.0.0.251 port 5353", "forged-dns": "asked of 192.0.2.53 port 53 directly"}
	for _, r := range rep.Runs {
		for _, e := range r.Egress {
			for m, d := range named {
				if e.Via == "dns" && strings.Contains(e.Host, m) && strings.HasPrefix(e.Detail, d) {
					delete(named, m)
				}
			}
		}
	}
	if len(named) > 0 {
		t.Fatalf("the record names no question of %v:\n%+v\nstdout:\n%s", named, rep.Runs, s.stdout.String())
	}
	sarif, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], "v.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	var posted strings.Builder
	for _, r := range s.api.Requests() {
		json.NewEncoder(&posted).Encode(r.Body)
	}
	for where, text := range map[string]string{"the annotations": outsideHookLogs(s.stdout.String()), "the check run": posted.String(), "the SARIF file": string(sarif)} {
		for _, m := range []string{"forged-mdns", "forged-dns"} {
			if !strings.Contains(text, m) {
				t.Errorf("%s name no question of %s:\n%s", where, m, text)
			}
		}
	}
	for _, m := range []string{"forged-dns", "&#92;096code&#92;096"} {
		if !strings.Contains(summary, m) {
			t.Errorf("the step summary shows no %s:\n%s", m, summary)
		}
	}
}

// hostileModTree is a plugin of a plain name that is a mod of the module
// file, with a background monitor whose name is hostileText and whose
// command is command.
func hostileModTree(t *testing.T, file, command string) map[string]string {
	return map[string]string{
		"plugins/modder/.claude-plugin/plugin.json": `{"name": "modder"}`,
		"plugins/modder/hooks/hooks.json":           `{"modules": [` + jsonString(t, "./"+file) + `]}`,
		"plugins/modder/hooks/" + file:              "export const register = (on) => {}\n",
		"plugins/modder/monitors/monitors.json":     `[{"name": ` + jsonString(t, hostileText) + `, "command": ` + jsonString(t, command) + `, "description": "d"}]`,
	}
}

// TestActionHostileNamesInTheBaselineDrift: a baseline the action wrote
// keeps a mod's module and a monitor whose names and command are hostile;
// against it, the mod's module renamed (to another hostile file name)
// and the monitor's command changed are drift, whose was and now (the
// summary's drift table, the findings) hold the text inert on every
// surface.
func TestActionHostileNamesInTheBaselineDrift(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	s := newHostileStep(t)
	s.env["INPUT_BASELINE"] = ".vigiles/baseline.json"
	s.env["INPUT_UPDATE-BASELINE"] = "true"
	s.runTreeConfined(t, hostileModTree(t, hostileFile, "was\n::error::FORGED-WAS | `w` <b>"))
	baseline, err := os.ReadFile(filepath.Join(s.env["GITHUB_WORKSPACE"], ".vigiles", "baseline.json"))
	if s.exitCode != 0 || err != nil || !strings.Contains(string(baseline), "FORGED-WAS") || !strings.Contains(string(baseline), "FORGED-FILE") {
		t.Fatalf("update-baseline: exit %d, %v; want the baseline to keep the mod and the monitor:\n%s\n%s%s", s.exitCode, err, baseline, s.stdout.String(), s.stderr.String())
	}

	s = newHostileStep(t)
	s.env["INPUT_BASELINE"] = ".vigiles/baseline.json"
	files := hostileModTree(t, "n\r::error::FORGED-NEWFILE\n| `n` <i>.ts", "now\r::error::FORGED-NOW | `n` <i>")
	files[".vigiles/baseline.json"] = string(baseline)
	s.runTreeConfined(t, files)
	if s.exitCode != 0 && s.exitCode != 1 {
		t.Fatalf("against the baseline: exit %d\n%s%s", s.exitCode, s.stdout.String(), s.stderr.String())
	}
	summary, rep := checkStepInert(t, s)
	var kinds []string
	for _, d := range rep.Drift {
		kinds = append(kinds, d.Kind+" "+d.Was+" -> "+d.Now)
	}
	all := strings.Join(kinds, "\n")
	for _, m := range []string{"FORGED-WAS", "FORGED-NOW", "FORGED-FILE", "FORGED-NEWFILE"} {
		if !strings.Contains(all, m) {
			t.Errorf("the drift holds no %s:\n%s", m, all)
		}
		if !strings.Contains(summary, m) {
			t.Errorf("the summary shows no %s:\n%s", m, summary)
		}
	}
}
