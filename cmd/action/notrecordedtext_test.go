package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestTextSaysNotRecordedApartFromNone: the text reports say "not
// recorded" for a record not made (null) and "none" for one made empty
// ([]), for the hosts and writes of test and audit, their env file, and
// vigiles run's writes and egress: a run whose record was not made must
// never read as one that did nothing.
func TestTextSaysNotRecordedApartFromNone(t *testing.T) {
	empty := ""
	notRec := report.HookRun{Outcome: report.OutcomeAllowed, EnvFile: &evidence.EnvFile{Path: "~/e"}}
	none := report.HookRun{Outcome: report.OutcomeAllowed, Writes: []evidence.Write{}, Egress: []evidence.Egress{},
		EnvFile: &evidence.EnvFile{Path: "~/e", Kind: "none", Content: &empty}}
	for _, c := range []struct{ name, got, want string }{
		{"hosts, not recorded", hostsText(notRec), "not recorded"},
		{"hosts, none", hostsText(none), "none"},
		{"writes, not recorded", writesText(notRec), "not recorded"},
		{"writes, none", writesText(none), "none"},
		{"env file, not recorded", envFileText(notRec), "not recorded"},
		{"env file, none", envFileText(none), ""},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.name, c.got, c.want)
		}
	}

	for _, c := range []struct {
		name string
		res  sandbox.Result
		want []string
	}{
		{"not recorded", sandbox.Result{Tier: sandbox.TierDirect}, []string{"  writes: not recorded", "  egress: not recorded"}},
		{"none", sandbox.Result{Tier: sandbox.TierConfined, WritesMethod: "overlay", Writes: []evidence.Write{}, Egress: []evidence.Egress{}},
			[]string{"  writes: none", "  egress: none"}},
	} {
		var b bytes.Buffer
		printRunReport(&b, &c.res)
		for _, w := range c.want {
			if !strings.Contains(b.String(), "\n"+w) {
				t.Errorf("vigiles run's report of a record %s has no line %q:\n%s", c.name, w, b.String())
			}
		}
	}
}
