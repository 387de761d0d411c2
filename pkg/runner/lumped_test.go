package runner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// pastTheCap is the entry pkg/egress's recorder makes for the attempts
// past evidence.MaxEgressEntries: no host, no address, no port.
func pastTheCap(attempts int) evidence.Egress {
	return evidence.Egress{Via: evidence.ViaProxy, Proto: "tcp", Detail: evidence.OverflowDetail, Attempts: attempts}
}

// stopRun is a confined Stop run that reached the given destinations.
func stopRun(eg ...evidence.Egress) report.HookRun {
	return report.HookRun{ID: "p/hooks/hooks.json#hooks.Stop[0].hooks[0]", Plugin: "p", Event: "Stop", Tier: "confined",
		Outcome: report.OutcomeAllowed, Location: report.Location{File: "p/hooks/hooks.json", Line: 1},
		Writes: []evidence.Write{}, Egress: append([]evidence.Egress{}, eg...)}
}

// TestBaselineOverflowIsNotRecorded: a run whose egress record went past
// the cap names only the first destinations; the rest are one entry with
// no name. Compared with a baseline, that is a baseline/not-recorded error
// (the named hosts still compared), never a pass; and a baseline written
// from it keeps its hosts as null, not as a list that claims to be whole.
func TestBaselineOverflowIsNotRecorded(t *testing.T) {
	known := evidence.Egress{Host: "telemetry.example.test", Port: 80, Via: evidence.ViaProxy, Proto: "http", Detail: "GET /1", Attempts: 1}
	added := evidence.Egress{Host: "new.example.test", Port: 443, Via: evidence.ViaProxy, Proto: "tcp", Detail: "CONNECT", Attempts: 1}
	for _, c := range []struct {
		name      string
		egress    []evidence.Egress
		sev       report.Severity
		wantRules []string
		wantSev   report.Severity // of the baseline/not-recorded finding
		wantHosts []string        // NewBaseline's; nil: null
	}{
		{"past the cap", []evidence.Egress{known, pastTheCap(7)}, report.SeverityError,
			[]string{RuleBaselineUnproven}, report.SeverityError, nil},
		{"past the cap, a new host named", []evidence.Egress{known, added, pastTheCap(7)}, report.SeverityError,
			[]string{RuleBaselineUnproven, RuleDriftPrefix + DriftHost}, report.SeverityError, nil},
		{"past the cap, updating the baseline", []evidence.Egress{known, pastTheCap(7)}, report.SeverityNotice,
			[]string{RuleBaselineUnproven}, report.SeverityNotice, nil},
		{"within the cap", []evidence.Egress{known}, report.SeverityError,
			nil, "", []string{"telemetry.example.test"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := stopRun(c.egress...)
			b := &Baseline{Schema: BaselineSchema, Runs: map[string]BaselineRun{r.ID: {Plugin: "p", Event: "Stop", Outcome: report.OutcomeAllowed,
				Hosts: []string{"telemetry.example.test"}, Writes: []string{}, Env: new(string)}}}
			_, finds := compareBaseline(b, []report.HookRun{r}, map[string]bool{}, map[string]bool{r.ID: true}, nil, c.sev)
			var got []string
			for _, f := range finds {
				got = append(got, f.Rule)
				if f.Rule != RuleBaselineUnproven {
					continue
				}
				if f.Severity != c.wantSev {
					t.Errorf("%s is a %s, want %s", f.Rule, f.Severity, c.wantSev)
				}
				if !strings.Contains(f.Message, "7 attempt(s) to destinations not recorded one by one") || !strings.Contains(f.Evidence, "not recorded one by one") {
					t.Errorf("the finding does not say what was not recorded: %q (evidence %q)", f.Message, f.Evidence)
				}
			}
			if strings.Join(got, " ") != strings.Join(c.wantRules, " ") {
				t.Errorf("findings %v, want %v", got, c.wantRules)
			}

			nb := NewBaseline(&report.Report{Runs: []report.HookRun{r}})
			hosts := nb.Runs[r.ID].Hosts
			if (hosts == nil) != (c.wantHosts == nil) || strings.Join(hosts, " ") != strings.Join(c.wantHosts, " ") {
				t.Errorf("new baseline hosts %#v, want %#v", hosts, c.wantHosts)
			}
			data, err := nb.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if c.wantHosts == nil && !strings.Contains(string(data), `"hosts": null`) {
				t.Errorf("the baseline file claims a host list:\n%s", data)
			}
		})
	}
}

// TestLumpedEgressIsNamed: the attempts past the record's cap have no host
// to show; every message and evidence line that lists destinations names
// them as such, never as a blank name (`tried ""`), and egress-only, which
// they alone cannot decide, says it cannot be checked rather than fail or
// pass.
func TestLumpedEgressIsNamed(t *testing.T) {
	api := evidence.Egress{Host: "api.example.test", Port: 443, Via: evidence.ViaProxy, Proto: "tcp", Detail: "CONNECT", Attempts: 1}
	evil := evidence.Egress{Host: "evil.example.test", Port: 443, Via: evidence.ViaProxy, Proto: "tcp", Detail: "CONNECT", Attempts: 1}
	const named = "3 attempt(s) to destinations not recorded one by one"
	blank := func(s string) bool {
		return strings.Contains(s, `""`) || strings.Contains(s, "tried ,") || strings.HasSuffix(s, "tried ") ||
			strings.HasPrefix(s, " via") || strings.Contains(s, "\n via")
	}

	t.Run("notice", func(t *testing.T) {
		fs := egressNotices([]report.HookRun{stopRun(api, pastTheCap(3))})
		if len(fs) != 1 || !strings.Contains(fs[0].Message, "api.example.test:443, "+named) || blank(fs[0].Message) || blank(fs[0].Evidence) ||
			!strings.Contains(fs[0].Evidence, "destinations past the first 10000, not recorded one by one, via proxy (blocked, 3 attempt(s))") {
			t.Errorf("notices %+v", fs)
		}
	})
	t.Run("named first however many", func(t *testing.T) {
		var es []evidence.Egress
		for _, h := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			es = append(es, evidence.Egress{Host: h + ".example.test", Via: evidence.ViaDNS, Proto: "dns", Attempts: 1})
		}
		if got := hostList(append(es, pastTheCap(3))); !strings.HasSuffix(got, "and 2 more, "+named+" (past the first 10000)") {
			t.Errorf("hostList = %q: the attempts past the cap are cut off", got)
		}
	})

	for _, c := range []struct {
		name, expect string
		egress       []evidence.Egress
		rule, inMsg  string
	}{
		{"no-egress", "no-egress: true", []evidence.Egress{pastTheCap(3)}, "expect/no-egress", "the hook tried " + named},
		{"egress-only, another host named", "egress-only: [api.example.test]", []evidence.Egress{api, evil, pastTheCap(3)},
			"expect/egress-only", "the hook also tried evil.example.test:443, " + named},
		{"egress-only, only the lumped undecided", "egress-only: [api.example.test]", []evidence.Egress{api, pastTheCap(3)},
			RuleNotRecorded, "the hook made " + named},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := testOne(t, c.expect, func() (*sandbox.Result, error) {
				r := confinedWith("")
				r.Egress = c.egress
				return r, nil
			})
			if len(rep.Findings) != 1 {
				t.Fatalf("findings %v, want one %s", rules(rep), c.rule)
			}
			f := rep.Findings[0]
			if f.Rule != c.rule || f.Severity != report.SeverityError || !strings.Contains(f.Message, c.inMsg) || blank(f.Message) || blank(f.Evidence) {
				j, _ := json.MarshalIndent(f, "", " ")
				t.Errorf("finding %s\nwant %s saying %q", j, c.rule, c.inMsg)
			}
		})
	}
}
