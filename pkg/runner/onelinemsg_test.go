package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestDriftMessagesKeepNamesOnOneLine: a plugin's name, a tool, a path a
// hook wrote, a host it tried and the reason it gave are the hook's own
// text, and a newline in one of them made the finding's message read as
// two lines, the second of the hook's choosing ("::error …", "reviewed:
// safe") in annotations, code scanning and the log. Each is quoted where
// it holds such a character, as evidence lines quote it.
func TestDriftMessagesKeepNamesOnOneLine(t *testing.T) {
	const evil = "evil\n::error file=README.md::PWNED"
	hostile := func(r report.HookRun) report.HookRun {
		r.Plugin, r.Tool = evil, evil
		r.Writes = append(r.Writes, evidence.Write{Path: "nl\n::error::PWNED-FILE", Op: evidence.OpCreate, Kind: "file"})
		r.Egress = []evidence.Egress{{Host: "a\nb.example", Proto: "dns", Via: evidence.ViaDNS, Attempts: 1}}
		return r
	}
	b := baselineOf(t, opsRun("modify ~/.bashrc"))
	now := hostile(opsRun("delete ~/.bashrc"))
	now.Outcome, now.Reason = report.OutcomeBlocked, "exit status 2: line one\n::error::PWNED-REASON"
	unknown := hostile(opsRun())
	unknown.ID = "p/hooks/hooks.json#hooks.Stop[0].hooks[9]"
	unrecorded := opsRun()
	unrecorded.ID, unrecorded.Writes, unrecorded.Egress = evil, nil, nil
	b.Runs[evil+"#gone"] = BaselineRun{Plugin: evil, Event: "Stop", Outcome: report.OutcomeAllowed, File: "p/hooks/hooks.json"}
	runs := []report.HookRun{now, unknown, unrecorded}
	_, finds := compareBaseline(b, runs, nil, map[string]bool{now.ID: true, unknown.ID: true, unrecorded.ID: true}, everyFile, report.SeverityError)
	// An audit without a baseline says the same of the network.
	finds = append(finds, egressNotices(runs)...)
	if len(finds) < 7 {
		t.Fatalf("only %d findings: %v", len(finds), findingLines(finds))
	}
	for _, f := range finds {
		if strings.ContainsAny(f.Message, "\n\r") {
			t.Errorf("%s: a message of more than one line: %q", f.Rule, f.Message)
		}
	}
}

// TestBaselineOutcomeIsOneOfTheFour: a baseline's outcome reaches
// findings ("the baseline says …") and a pull request can edit the file:
// one that is no outcome ("blocked\nreviewed: safe") is refused when the
// baseline is read, where its second line went into the finding.
func TestBaselineOutcomeIsOneOfTheFour(t *testing.T) {
	for _, o := range []string{`"blocked\nreviewed: safe, approved by security"`, `"Allowed"`, `""`} {
		_, err := LoadBaseline(docFile(t, `{"schema": "vigiles.baseline/v1", "runs": {"p/h.json#hooks.Stop[0].hooks[0]": {"plugin": "p", "event": "Stop", "outcome": `+o+`, "hosts": [], "writes": []}}}`))
		if err == nil || !strings.Contains(err.Error(), "is no outcome") {
			t.Errorf("outcome %s: %v", o, err)
		}
	}
	for _, o := range []string{"allowed", "blocked", "error", "not-executable"} {
		if _, err := LoadBaseline(docFile(t, `{"schema": "vigiles.baseline/v1", "runs": {"p/h.json#hooks.Stop[0].hooks[0]": {"plugin": "p", "event": "Stop", "outcome": "`+o+`", "hosts": [], "writes": []}}}`)); err != nil {
			t.Errorf("outcome %s: %v", o, err)
		}
	}
}
