package runner

import (
	"strings"
	"testing"
)

// TestRewriteBaselineAdvice: the one phrase every finding's advice to
// rewrite the baseline uses names what the user gave, as given and quoted
// for a shell, and nothing that is the default; in the GitHub Action, the
// update-baseline input first.
func TestRewriteBaselineAdvice(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Baseline: DefaultBaseline}, "`vigiles audit --update-baseline`"},
		{Options{Baseline: "./" + DefaultBaseline, Config: DefaultConfig, Invoked: Invocation{Dir: "."}}, "`vigiles audit --update-baseline`"},
		{Options{Baseline: "ci/b.json"}, "`vigiles audit --update-baseline --baseline ci/b.json`"},
		{Options{Baseline: DefaultBaseline, Invoked: Invocation{Dir: "../my proj"}}, "`vigiles audit --update-baseline --dir '../my proj'`"},
		{Options{Baseline: "b.json", Config: "ci/v.yml", Invoked: Invocation{Dir: "/srv/r"}}, "`vigiles audit --update-baseline --dir /srv/r --config ci/v.yml --baseline b.json`"},
		{Options{Baseline: DefaultBaseline, Invoked: Invocation{Action: true}},
			"an audit with the action's input `update-baseline: true` (locally: `vigiles audit --update-baseline`)"},
		{Options{Baseline: "ci/b.json", Invoked: Invocation{Action: true, Dir: "sub"}},
			"an audit with the action's input `update-baseline: true` (locally: `vigiles audit --update-baseline --dir sub --baseline ci/b.json`)"},
	} {
		if got := c.o.rewriteBaseline(); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.o, got, c.want)
		}
	}
	// A BaselineError made without it (LoadBaseline) says the CLI's
	// command in the work tree, with its file as --baseline.
	e := &BaselineError{File: "ci/b.json", Msg: "bad"}
	if want := "run `vigiles audit --update-baseline --baseline ci/b.json` to rewrite it"; !strings.Contains(e.Error(), want) {
		t.Errorf("BaselineError without Rewrite: %s\nwant %s", e.Error(), want)
	}
	e.NotBaseline = true
	if want := `name the baseline file with --baseline (default .vigiles/baseline.json; the policy file goes to --config)`; !strings.Contains(e.Error(), want) {
		t.Errorf("BaselineError of no baseline without Fix: %s\nwant %s", e.Error(), want)
	}
	e.Fix = Options{Invoked: Invocation{Action: true}}.notBaselineFix()
	if want := "set its baseline input to the baseline file"; !strings.Contains(e.Error(), want) || strings.Contains(e.Error(), "--baseline") {
		t.Errorf("BaselineError of no baseline in the action: %s\nwant %s, and no --baseline", e.Error(), want)
	}
	e.NotBaseline = false
	e.Rewrite = Options{Baseline: "ci/b.json", Invoked: Invocation{Action: true}}.rewriteBaseline()
	if want := "run an audit with the action's input `update-baseline: true` (locally: `vigiles audit --update-baseline --baseline ci/b.json`) to rewrite it"; !strings.Contains(e.Error(), want) {
		t.Errorf("BaselineError with Rewrite: %s\nwant %s", e.Error(), want)
	}
}
