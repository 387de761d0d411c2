package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/annotate"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox/sandboxtest"
)

// cycleTree is a repository that vendors five plugins through a local
// marketplace: one that tries a host, one that writes, one that fails,
// one that runs out its time, and one whose script does nothing much.
// The one that runs out its time execs its sleep: sh -c "sleep 30" (dash
// forks the sleep) has the sleep beside it at the deadline, lingered,
// only where the shell forked it within the 1 s (a starved machine had
// not, in one audit of the cycle and not in the others); with exec no
// process is ever beside it, whenever the deadline comes.
func cycleTree() map[string]string {
	plugin := func(name string) string { return fmt.Sprintf(`{"name": %q, "version": "1.0.0"}`, name) }
	return map[string]string{
		".claude-plugin/marketplace.json": `{"name": "fx", "owner": {"name": "fx"}, "plugins": [
 {"name": "netter", "source": "./plugins/netter"}, {"name": "writer", "source": "./plugins/writer"},
 {"name": "failer", "source": "./plugins/failer"}, {"name": "sleeper", "source": "./plugins/sleeper"},
 {"name": "rewriter", "source": "./plugins/rewriter"}]}`,
		".vigiles.yml": "version: 1\ndefaults:\n  egress: record\n  timeout: 10s\n  linger: 1s\nplugins:\n  untrusted: [\"plugins/*\"]\n",
		"plugins/netter/.claude-plugin/plugin.json": plugin("netter"),
		"plugins/netter/hooks/hooks.json": `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/net.sh\""}]}],
"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/net.sh\" tool"}]}]}}`,
		"plugins/netter/scripts/net.sh":               "cat >/dev/null\ncurl -s -m 2 https://telemetry.netter.example.test/v1 >/dev/null 2>&1 || true\n",
		"plugins/writer/.claude-plugin/plugin.json":   plugin("writer"),
		"plugins/writer/hooks/hooks.json":             `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/w.sh\""}]}]}}`,
		"plugins/writer/scripts/w.sh":                 "cd \"$CLAUDE_PROJECT_DIR\"\nmkdir -p .claude/writer && echo x >> .claude/writer/log.txt\n",
		"plugins/failer/.claude-plugin/plugin.json":   plugin("failer"),
		"plugins/failer/hooks/hooks.json":             `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo nope >&2; exit 3"}]}]}}`,
		"plugins/sleeper/.claude-plugin/plugin.json":  plugin("sleeper"),
		"plugins/sleeper/hooks/hooks.json":            `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exec sleep 30", "timeout": 1}]}]}}`,
		"plugins/rewriter/.claude-plugin/plugin.json": plugin("rewriter"),
		"plugins/rewriter/hooks/hooks.json":           `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/r.sh\""}]}]}}`,
		"plugins/rewriter/scripts/r.sh":               "cat >/dev/null\necho '{}'\n",
	}
}

// TestScheduledAuditCycle walks the scheduled audit of
// docs/github-action.md with real sandboxes: a baseline written, an audit
// with no drift, then a change of each kind (a new host, a new write, a
// script rewritten under the same command, a hook removed, a hook added),
// each of which must be one drift and one finding of the right severity,
// in the JSON, text, SARIF and summary alike; the same audit in shards,
// merged, must be the whole audit; and the SARIF must be what code
// scanning takes, with fingerprints that stay across a rerun and a moved
// line. --jobs 1 throughout, so that no hook's time depends on the runs
// beside it (a run/timeout's note of the plan's jobs is the same in every
// shard: TestTimeoutNoteIsTheWholePlans).
func TestScheduledAuditCycle(t *testing.T) {
	sandboxtest.RequireConfinement(t)
	dir := writeFiles(t, cycleTree())
	out := t.TempDir()
	audit := func(name string, args ...string) (*report.Report, []byte) {
		t.Helper()
		p := filepath.Join(out, name+".json")
		args = append([]string{"audit", "--dir", dir, "--jobs", "1", "-q", "--format", "json", "--output", p}, args...)
		if code, _, errs := runCLI(t, args...); code != 0 && code != 1 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args, " "), code, errs)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
		return &rep, data
	}

	if code, _, errs := runCLI(t, "audit", "--dir", dir, "--jobs", "1", "-q", "--update-baseline"); code != 0 {
		t.Fatalf("--update-baseline: exit %d: %s", code, errs)
	}
	if rep, _ := audit("unchanged"); len(rep.Drift) != 0 || rep.Verdict != report.VerdictPass {
		t.Fatalf("the audit right after --update-baseline: verdict %s, drift %+v", rep.Verdict, rep.Drift)
	}

	for p, c := range map[string]string{
		"plugins/netter/scripts/net.sh": "cat >/dev/null\ncurl -s -m 2 https://telemetry.netter.example.test/v1 >/dev/null 2>&1 || true\n" +
			"curl -s -m 2 https://exfil.netter.example.test/v2 >/dev/null 2>&1 || true\n",
		"plugins/writer/scripts/w.sh":     "cd \"$CLAUDE_PROJECT_DIR\"\nmkdir -p .claude/writer && echo x >> .claude/writer/log.txt\necho 'alias x=y' >> \"$HOME/.bashrc\"\n",
		"plugins/rewriter/scripts/r.sh":   "cat >/dev/null\n# the same, in other bytes\necho '{}'\n",
		"plugins/failer/hooks/hooks.json": `{"hooks": {}}`,
		"plugins/sleeper/hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "exec sleep 30", "timeout": 1}]}],
"SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, wholeJSON := audit("whole")

	// Each change is one drift and one finding at its severity.
	const (
		netStart = "plugins/netter/hooks/hooks.json#hooks.SessionStart[0].hooks[0]@startup"
		netTool  = "plugins/netter/hooks/hooks.json#hooks.PostToolUse[0].hooks[0]@Bash"
		writer   = "plugins/writer/hooks/hooks.json#hooks.Stop[0].hooks[0]"
		rewriter = "plugins/rewriter/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash"
		failer   = "plugins/failer/hooks/hooks.json#hooks.UserPromptSubmit[0].hooks[0]"
		added    = "plugins/sleeper/hooks/hooks.json#hooks.SessionEnd[0].hooks[0]@other"
	)
	type change struct {
		hook, kind, now string
		severity        report.Severity
	}
	want := []change{
		{netStart, "host", "exfil.netter.example.test", report.SeverityError},
		{netStart, "command", "plugins/netter/scripts/net.sh sha256:", report.SeverityError},
		{netTool, "host", "exfil.netter.example.test", report.SeverityError},
		{netTool, "command", "plugins/netter/scripts/net.sh sha256:", report.SeverityError},
		{writer, "write", "~/.bashrc", report.SeverityError},
		{writer, "command", "plugins/writer/scripts/w.sh sha256:", report.SeverityError},
		{rewriter, "command", "plugins/rewriter/scripts/r.sh sha256:", report.SeverityError},
		{added, "hook-added", "allowed", report.SeverityWarning},
		{failer, "hook-removed", "", report.SeverityNotice},
	}
	var got []change
	for _, d := range whole.Drift {
		now := d.Now
		if d.Kind == "command" {
			now = now[:strings.Index(now, "sha256:")+len("sha256:")]
		}
		var sev report.Severity
		for _, f := range whole.Findings {
			if f.Rule == "baseline/"+d.Kind && f.Hook == d.Hook {
				if sev != "" {
					t.Errorf("drift %s %s of %s has more than one finding", d.Kind, d.Now, d.Hook)
				}
				sev = f.Severity
			}
		}
		got = append(got, change{d.Hook, d.Kind, now, sev})
	}
	byKey := func(a, b change) int { return strings.Compare(a.hook+a.kind, b.hook+b.kind) }
	slices.SortFunc(want, byKey)
	slices.SortFunc(got, byKey)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(change{})); diff != "" {
		t.Errorf("drift (-want +got):\n%s", diff)
	}
	for _, f := range whole.Findings {
		if f.Rule == "baseline/hook-added" && !strings.HasSuffix(f.Message, "not in the baseline: outcome allowed, tried 0 host(s), wrote 0 path(s)") {
			t.Errorf("the new hook's finding does not say its outcome: %s", f.Message)
		}
	}
	if whole.Verdict != report.VerdictFail {
		t.Errorf("verdict %s, want fail", whole.Verdict)
	}

	// The text report shows each once, in its drift section.
	text := filepath.Join(out, "whole.txt")
	if code, _, errs := runCLI(t, "merge", "--format", "text", "--output", text, filepath.Join(out, "whole.json")); code != 1 {
		t.Fatalf("merge --format text: exit %d: %s", code, errs)
	}
	b, _ := os.ReadFile(text)
	_, section, ok := strings.Cut(string(b), fmt.Sprintf("Changed since the baseline (%d):\n", len(want)))
	if !ok {
		t.Fatalf("the text report has no drift section of %d:\n%s", len(want), b)
	}
	section, _, _ = strings.Cut(section, "\n\n")
	for _, c := range want {
		n := 0
		for _, line := range strings.Split(section, "\n") {
			if strings.Contains(line, c.kind) && strings.HasSuffix(line, "  "+c.hook) && strings.Contains(line, strings.ReplaceAll(c.now, ":", "꞉")) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("the text report shows %s %s of %s %d times:\n%s", c.kind, c.now, c.hook, n, section)
		}
	}
	// And the job summary, in its drift table.
	sum := annotate.Summary(whole, annotate.SummaryOptions{FailLevel: annotate.FailError})
	_, table, ok := strings.Cut(sum, "### Baseline drift")
	if !ok {
		t.Fatalf("the summary has no drift table:\n%s", sum)
	}
	if rows := strings.Count(table, "\n| ") - 1; rows != len(want) { // less the header
		t.Errorf("the summary's drift table has %d rows, want %d:\n%s", rows, len(want), table)
	}

	// Sharded and merged, it is the whole audit.
	for _, n := range []int{2, 3, 7} {
		var parts []string
		for i := 1; i <= n; i++ {
			audit(fmt.Sprintf("shard-%d-of-%d", i, n), "--shard", fmt.Sprintf("%d/%d", i, n))
			parts = append(parts, filepath.Join(out, fmt.Sprintf("shard-%d-of-%d.json", i, n)))
		}
		p := filepath.Join(out, fmt.Sprintf("merged-%d.json", n))
		if code, _, errs := runCLI(t, append([]string{"merge", "--output", p}, parts...)...); code != 1 {
			t.Fatalf("merge of %d: exit %d, want 1: %s", n, code, errs)
		}
		data, _ := os.ReadFile(p)
		if diff := cmp.Diff(comparable(t, wholeJSON), comparable(t, data)); diff != "" {
			t.Errorf("%d shards merged differ from the whole audit (-whole +merged):\n%s", n, diff)
		}
	}

	// SARIF: what code scanning takes, and fingerprints that stay.
	sarif := func(rep *report.Report) map[string]int {
		t.Helper()
		data, _, err := annotate.EncodeSARIF(rep, annotate.SARIFOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return checkSARIFShape(t, data)
	}
	fps := sarif(whole)
	if len(fps) != len(whole.Findings) {
		t.Errorf("%d distinct fingerprints for %d findings", len(fps), len(whole.Findings))
	}
	merged, _ := os.ReadFile(filepath.Join(out, "merged-3.json"))
	var mrep report.Report
	if err := json.Unmarshal(merged, &mrep); err != nil {
		t.Fatal(err)
	}
	again, _ := audit("again")
	// Beside another run, a run/timeout says that they shared the cores.
	parallel, _ := audit("parallel", "--jobs", "2")
	netHooks := filepath.Join(dir, "plugins/netter/hooks/hooks.json")
	h, _ := os.ReadFile(netHooks)
	os.WriteFile(netHooks, append([]byte("\n\n\n"), h...), 0o644)
	moved, _ := audit("moved")
	for name, rep := range map[string]*report.Report{"merged": &mrep, "a second audit": again, "--jobs 2": parallel, "moved lines": moved} {
		if diff := cmp.Diff(fps, sarif(rep)); diff != "" {
			t.Errorf("SARIF fingerprints of %s differ from the first audit's (-first +%s):\n%s", name, name, diff)
		}
	}
	lines := func(rep *report.Report) (l []int) {
		for _, f := range rep.Findings {
			if f.Location.File == "plugins/netter/hooks/hooks.json" {
				l = append(l, f.Location.Line)
			}
		}
		return l
	}
	if slices.Equal(lines(whole), lines(moved)) {
		t.Errorf("the netter findings did not move: %v", lines(moved))
	}
}

// comparable is a report without what differs between two runs of one
// hook: durations, process ids, and the milliseconds a timeout took.
func comparable(t *testing.T, data []byte) *report.Report {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	digits := regexp.MustCompile(`\d+ ms`)
	for i := range rep.Runs {
		r := &rep.Runs[i]
		r.DurationMs = 0
		r.Reason = digits.ReplaceAllString(r.Reason, "N ms")
		for j, l := range r.Lingered {
			_, cmd, _ := strings.Cut(l, " ")
			r.Lingered[j] = cmd
		}
	}
	for i := range rep.Findings {
		rep.Findings[i].Message = digits.ReplaceAllString(rep.Findings[i].Message, "N ms")
	}
	return &rep
}

// checkSARIFShape checks what code scanning needs of a SARIF 2.1.0 file
// and returns each result's fingerprint, counted.
func checkSARIFShape(t *testing.T, data []byte) map[string]int {
	t.Helper()
	var doc struct {
		Version string `json:"version"`
		Schema  string `json:"$schema"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string                 `json:"id"`
						ShortDescription struct{ Text string }  `json:"shortDescription"`
						Default          struct{ Level string } `json:"defaultConfiguration"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			ColumnKind string `json:"columnKind"`
			Results    []struct {
				RuleID    string                `json:"ruleId"`
				RuleIndex *int                  `json:"ruleIndex"`
				Level     string                `json:"level"`
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI     string `json:"uri"`
							URIBase string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region *struct {
							StartLine   int  `json:"startLine"`
							StartColumn *int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Fingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("SARIF: %v", err)
	}
	if doc.Version != "2.1.0" || !strings.Contains(doc.Schema, "sarif-2.1.0") || len(doc.Runs) != 1 {
		t.Fatalf("SARIF version %q, $schema %q, %d runs", doc.Version, doc.Schema, len(doc.Runs))
	}
	levels := map[string]bool{"none": true, "note": true, "warning": true, "error": true}
	run := doc.Runs[0]
	if run.Tool.Driver.Name == "" || run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("driver %q, columnKind %q", run.Tool.Driver.Name, run.ColumnKind)
	}
	ids := map[string]bool{}
	for _, r := range run.Tool.Driver.Rules {
		if r.ID == "" || ids[r.ID] || r.ShortDescription.Text == "" || !levels[r.Default.Level] {
			t.Errorf("rule %+v: empty, repeated, undescribed or of no level", r)
		}
		ids[r.ID] = true
	}
	fps := map[string]int{}
	for _, r := range run.Results {
		switch {
		case r.RuleIndex == nil || *r.RuleIndex >= len(run.Tool.Driver.Rules) || run.Tool.Driver.Rules[*r.RuleIndex].ID != r.RuleID:
			t.Errorf("result %s: ruleIndex %v names another rule", r.RuleID, r.RuleIndex)
		case !levels[r.Level] || strings.TrimSpace(r.Message.Text) == "":
			t.Errorf("result %s: level %q, message %q", r.RuleID, r.Level, r.Message.Text)
		case len(r.Locations) != 1:
			t.Errorf("result %s: %d locations", r.RuleID, len(r.Locations))
		}
		for _, l := range r.Locations {
			u := l.Physical.Artifact.URI
			if u == "" || strings.HasPrefix(u, "/") || strings.Contains(u, "://") || strings.Contains(u, "..") || l.Physical.Artifact.URIBase != "%SRCROOT%" {
				t.Errorf("result %s: uri %q (base %q) is not one inside the repository", r.RuleID, u, l.Physical.Artifact.URIBase)
			}
			if g := l.Physical.Region; g == nil || g.StartLine < 1 || g.StartColumn != nil && *g.StartColumn < 1 {
				t.Errorf("result %s: region %+v", r.RuleID, g)
			}
		}
		fp := r.Fingerprints[annotate.FingerprintKey]
		if fp == "" {
			t.Errorf("result %s: no %s", r.RuleID, annotate.FingerprintKey)
		}
		fps[r.RuleID+" "+fp]++
	}
	return fps
}
