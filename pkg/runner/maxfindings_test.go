package runner

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestFindingsPastTheBoundAreCounted: a declaration file whose every
// array element is wrong (a 3 MB settings file of `[1,1,…]` gave a
// million and a half findings, 3 GB of memory) lists maxFindings of them,
// and one finding more, of the worst severity of the rest, says how many
// were not listed; what is read and run does not change.
func TestFindingsPastTheBoundAreCounted(t *testing.T) {
	defer func(n int) { maxFindings = n }(maxFindings)
	maxFindings = 3
	many := strings.TrimSuffix(strings.Repeat("1,", 8), ",")
	hook := `[{"hooks":[{"type":"command","command":"echo hi"}]}]`
	for _, tc := range []struct {
		name, settings string
		sev            report.Severity
		unlisted       int
	}{
		{"errors", `{"hooks":{"PreToolUse":[` + many + `],"SessionStart":` + hook + `}}`, report.SeverityError, 5},
		// A key given twice is a warning: the rest are warnings too.
		{"warnings", `{"hooks":{"SessionStart":` + hook + `,` + strings.Repeat(`"SessionStart":`+hook+`,`, 5) + `"Stop":` + hook + `}}`, report.SeverityWarning, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{".claude/settings.json": tc.settings})
			d, err := ClaudeAdapter{}.Discover(dir, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Findings) != maxFindings+1 {
				t.Fatalf("%d findings, want %d listed and one that counts the rest:\n%v", len(d.Findings), maxFindings, d.Findings)
			}
			last := d.Findings[maxFindings]
			want := fmt.Sprintf("%d more findings of discovery, from here on, are not listed: more than the %d vigiles lists in one discovery (the worst of them is of severity %s); what is read and run is the same: fix those listed, and run vigiles again to see the rest", tc.unlisted, maxFindings, tc.sev)
			if last.Rule != RuleMalformed || last.Severity != tc.sev || last.Message != want || last.Location.File != ".claude/settings.json" || last.Location.Line != 1 {
				t.Errorf("the last finding is %+v, want %s %s at .claude/settings.json:1: %s", last, tc.sev, RuleMalformed, want)
			}
			if !slices.Contains(d.Bounded, maxFindings) {
				t.Errorf("Bounded %v does not hold the count (%d): the findings not listed may concern any path", d.Bounded, maxFindings)
			}
			if len(d.Hooks) == 0 {
				t.Errorf("no hook read: the bound on findings must not change what is read")
			}
		})
	}
}

// TestFatalFindingPastTheBoundIsListed: the error that makes Claude Code
// skip a whole settings file (a PreToolUse hook it cannot load) is listed
// past maxFindings too, since the hooks it skips point at its line.
func TestFatalFindingPastTheBoundIsListed(t *testing.T) {
	defer func(n int) { maxFindings = n }(maxFindings)
	maxFindings = 3
	many := strings.TrimSuffix(strings.Repeat("1,", 5), ",")
	hook := `[{"hooks":[{"type":"command","command":"echo hi"}]}]`
	dir := makeTree(t, map[string]string{".claude/settings.json": `{"hooks":{"Stop":[` + many + `],"SessionStart":` + hook + `,"PreToolUse":[1]}}`})
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, f := range d.Findings {
		msgs = append(msgs, f.Message)
	}
	if len(d.Findings) != maxFindings+2 {
		t.Fatalf("findings %q: want %d listed, the PreToolUse error, and one that counts the rest", msgs, maxFindings)
	}
	fatal := d.Findings[maxFindings]
	if !strings.HasPrefix(fatal.Message, "PreToolUse[0]: ") || !strings.Contains(fatal.Message, "Claude Code skips a settings file") {
		t.Errorf("finding %d is %q, want the PreToolUse error that skips the file", maxFindings, fatal.Message)
	}
	if want := "2 more findings of discovery"; !strings.HasPrefix(d.Findings[maxFindings+1].Message, want) {
		t.Errorf("the last finding is %q, want it to begin %q", d.Findings[maxFindings+1].Message, want)
	}
	for _, h := range d.Hooks {
		if !strings.Contains(h.NotRun, fmt.Sprintf("(line %d)", fatal.Location.Line)) {
			t.Errorf("hook %s: not run %q, want the skipped file's reason at the PreToolUse error's line", h.ID, h.NotRun)
		}
	}
	if len(d.Hooks) == 0 {
		t.Error("no hook listed")
	}
}
