package annotate

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/vigiles/action/pkg/report"
)

// TestDocClaimFormatCharactersNeverShowOnAGitHubSurface shows the row
// "Display spoofing with bidi overrides or zero-width characters in names
// and output" of docs/security.md's table for the surfaces this package
// writes: a report whose findings, plugin names, events, tools and hook
// output carry a right-to-left override (U+202E), a zero-width space
// (U+200B) and a zero-width joiner (U+200D) puts none of them into the
// log's annotations, the job summary, the check run's annotations or the
// fenced hook logs; each shows the characters as U+FFFD, or, for a name
// the summary's hook runs quote, as a \u escape, so that the text is
// still seen to hold something.
func TestDocClaimFormatCharactersNeverShowOnAGitHubSurface(t *testing.T) {
	const spoof = "safe\u202egnp.exe zero\u200bwidth join\u200dme"
	r := &report.Report{Schema: report.Schema, Tool: report.Tool{Name: "vigiles", Version: "t"}, Command: "audit", Verdict: report.VerdictFail}
	r.Runs = append(r.Runs, report.HookRun{
		ID: spoof, Plugin: spoof, Event: spoof, Tool: spoof, Tier: "confined", Outcome: "allowed", Reason: spoof,
		Location: report.Location{File: "hooks.json", Line: 1},
		Stdout:   spoof + "\n", Stderr: spoof + "\n",
	})
	r.Findings = append(r.Findings, report.Finding{
		Rule: "run/failed", Severity: report.SeverityError, Title: spoof, Message: spoof, Evidence: spoof, Hook: spoof,
		Location: report.Location{File: "hooks.json", Line: 1, Column: 1},
	})
	formatChar := func(s string) int {
		return strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Cf, r) })
	}
	surfaces := map[string]string{}
	var ann bytes.Buffer
	WriteAnnotations(&ann, r.Findings)
	surfaces["the log's annotations"] = ann.String()
	surfaces["the job summary"] = Summary(r, SummaryOptions{Repo: "octo/plugins", SHA: "0123456789abcdef0123456789abcdef01234567", ServerURL: "https://github.com"})
	var check strings.Builder
	for _, a := range checkAnnotations(r.Findings, "") {
		check.WriteString(a.GetTitle() + "\n" + a.GetMessage() + "\n" + a.GetRawDetails() + "\n")
	}
	surfaces["the check run's annotations"] = check.String()
	var logs bytes.Buffer
	if err := WriteHookLogs(&logs, r.Runs); err != nil {
		t.Fatal(err)
	}
	surfaces["the fenced hook logs"] = logs.String()
	for name, s := range surfaces {
		if i := formatChar(s); i >= 0 {
			t.Errorf("%s carry the format character %U: %q", name, []rune(s[i:])[0], s)
		}
		if !strings.Contains(s, "\uFFFD") && !strings.Contains(s, `\u202e`) {
			t.Errorf("%s show neither U+FFFD nor an escape where the override was: %q", name, s)
		}
	}
}

// TestDocClaimHookLogsFenceTakesAFreshToken shows the "fresh random
// token" of docs/github-action.md's raw hook output row: each WriteHookLogs
// fences the output with a token of its own (TestHostileInputTakesNoEffect
// shows its form), so a hook that read one step's log cannot print the
// token that ends the next one's fence. The resume line the runner reads
// is the token of the same call, and no earlier call's.
func TestDocClaimHookLogsFenceTakesAFreshToken(t *testing.T) {
	runs := []report.HookRun{{ID: "h", Plugin: "p", Event: "Stop", Stdout: "out\n"}}
	seen := map[string]bool{}
	for range 20 {
		var log bytes.Buffer
		if err := WriteHookLogs(&log, runs); err != nil {
			t.Fatal(err)
		}
		var token string
		for _, c := range runnerCommands(t, log.String()) {
			if c.Name == "stop-commands" {
				token = c.Data
			}
		}
		if !tokenRE.MatchString(token) {
			t.Fatalf("stop token %q is not random:\n%s", token, log.String())
		}
		if !strings.Contains(log.String(), "\n::"+token+"::\n") {
			t.Errorf("the fence is not ended by its own token %q:\n%s", token, log.String())
		}
		if seen[token] {
			t.Errorf("the token %q was used before", token)
		}
		seen[token] = true
	}
}
