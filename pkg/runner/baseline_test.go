package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestIsBaseline: a file is a baseline where it says so in its
// "schema", or is JSON damaged by hand or by a merge that holds one, or
// is empty; a document that only quotes the schema is none.
func TestIsBaseline(t *testing.T) {
	for text, want := range map[string]bool{
		`{"schema": "vigiles.baseline/v2", "hooks": {}}`:                            true,
		`{"schema": "vigiles.baseline/v2", "hooks": {`:                              true,
		"<<<<<<< HEAD\n{\"schema\": \"vigiles.baseline/v2\"}\n=======\n>>>>>>> x\n": true,
		"":                       true,
		`{"schema": "other/v1"}`: false,
		"# Baselines\n\nA baseline begins `{\"schema\": \"vigiles.baseline/v2\"`.\n": false,
		"defaults:\n  x: 1 # \"schema\": \"vigiles.baseline/v2\"\n":                  false,
	} {
		root, err := parseJSON([]byte(text))
		if err != nil {
			root = nil
		}
		if got := isBaseline([]byte(text), root); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}

// TestBaselineKeepsAnAttemptThatNamedNoHost: a proxy request that named
// no host (no Host header, a malformed request line) is an attempt all the
// same: the baseline keeps it as "(no host)", never the [] of a run that
// tried nothing, and an audit against a baseline without it is
// baseline/host drift. Attempts past the record's cap stay out of it.
func TestBaselineKeepsAnAttemptThatNamedNoHost(t *testing.T) {
	quiet := opsRun()
	tried := opsRun()
	tried.Egress = []evidence.Egress{{Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "GET /exfil"}}
	if got := hostsOf(tried); strings.Join(got, ",") != noHost {
		t.Errorf("hosts %q, want [%q]", got, noHost)
	}
	data, err := NewBaseline(&report.Report{Runs: []report.HookRun{tried}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"hosts": [
        "(no host)"
      ]`) {
		t.Errorf("baseline:\n%s", data)
	}
	d, finds := compareBaseline(baselineOf(t, quiet), []report.HookRun{tried}, nil, map[string]bool{tried.ID: true}, everyFile, report.SeverityError)
	if got := driftOf(&report.Report{Drift: d}); strings.Join(got, ",") != "host >"+noHost || len(finds) != 1 || finds[0].Rule != RuleDriftPrefix+DriftHost {
		t.Errorf("against a baseline without it: drift %q, findings %v", got, findingLines(finds))
	} else if !strings.Contains(finds[0].Message, "now makes network attempts that name no host") || !strings.Contains(finds[0].Evidence, "GET /exfil") {
		t.Errorf("against a baseline without it: %q (evidence %q)", finds[0].Message, finds[0].Evidence)
	}
	// Kept, it is no drift.
	if d, finds := compareBaseline(baselineOf(t, tried), []report.HookRun{tried}, nil, map[string]bool{tried.ID: true}, everyFile, report.SeverityError); len(d) != 0 || len(finds) != 0 {
		t.Errorf("against a baseline with it: drift %v, findings %v", d, findingLines(finds))
	}
	// Past the cap: counted, not named, and not "(no host)".
	past := opsRun()
	past.Egress = []evidence.Egress{{Host: "a.example.test", Via: evidence.ViaProxy, Proto: "http", Attempts: 1},
		{Via: evidence.ViaProxy, Proto: "http", Attempts: 3, Detail: evidence.OverflowDetail}}
	if !past.Egress[1].Lumped() {
		t.Fatal("want a lumped entry")
	}
	if got := namedHosts(past.Egress); strings.Join(got, ",") != "a.example.test" {
		t.Errorf("past the cap: named %q", got)
	}
}
