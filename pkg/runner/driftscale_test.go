package runner

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestDriftOfManyNewNamesNextToManyGone audits a hook that writes many
// files and tries many hosts, each named anew every run, against the
// baseline of its last run: every new one is drift that counts the
// baseline's names it replaced and names the first three, but for the
// paths past the 1,000 an audit names one by one, which are one drift
// that counts them (20,000 findings of a few hundred bytes each made a
// report of megabytes, and a million of them gigabytes). The baseline's
// names this run did not write are found once for the run, not once for
// each new name: compared so, these 20,000 paths next to 20,000 gone took
// hours (an audit a hostile hook could hold up at will), and now take a
// moment.
func TestDriftOfManyNewNamesNextToManyGone(t *testing.T) {
	const files, hosts = 20000, 5000
	dir := auditRepo(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	prefix := "a"
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		if !strings.Contains(spec.Command[len(spec.Command)-1], "true") || strings.Contains(spec.Command[len(spec.Command)-1], ":") {
			return fakeHooks().F(spec, nil)
		}
		res := &sandbox.Result{Tier: sandbox.TierConfined, DurationMs: 5, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		for i := range files {
			res.Writes = append(res.Writes, evidence.Write{Path: fmt.Sprintf("out/%s%05d", prefix, i), Op: evidence.OpCreate, Kind: "file"})
		}
		for i := range hosts {
			res.Egress = append(res.Egress, evidence.Egress{Host: fmt.Sprintf("%s%05d.example.test", prefix, i), Via: evidence.ViaDNS, Proto: "dns", Attempts: 1})
		}
		return res, nil
	}}
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: exec}); err != nil {
		t.Fatal(err)
	}
	prefix = "b"
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var nw, nh int
	for _, f := range rep.Findings {
		switch f.Rule {
		case RuleDriftPrefix + DriftWrite:
			nw++
		case RuleDriftPrefix + DriftHost:
			nh++
		default:
			continue
		}
		got[f.Message] = f.Evidence
	}
	if nw != maxNewPathsNamed+1 || nh != hosts {
		t.Fatalf("%d write and %d host drift findings; want %d (the paths named one by one, and one for the rest) and %d", nw, nh, maxNewPathsNamed+1, hosts)
	}
	for msg, ev := range map[string]string{
		"a Stop now writes out/b00007, which the baseline does not list; the baseline lists 20000 paths next to it that this run did not write (named in the evidence)":                         "- the baseline, + now\n- out/a00000\n- out/a00001\n- out/a00002\n- and 19997 more\n+ out/b00007\n",
		"a Stop now writes 19000 more path(s) the baseline does not list, past the 1000 new paths one audit names one by one: the run's writes list every one (named in the evidence, up to 3)": "+ out/b01000\n+ out/b01001\n+ out/b01002\n+ and 18997 more\n",
		"a Stop now tries to reach b00007.example.test, which the baseline does not list; the baseline lists 5000 hosts that this run did not try (named in the evidence)":                      "- the baseline, + now\n- a00000.example.test\n- a00001.example.test\n- a00002.example.test\n- and 4997 more\n+ b00007.example.test\n",
	} {
		g, ok := got[msg]
		if !ok {
			t.Errorf("no finding %q", msg)
		} else if g != ev {
			t.Errorf("finding %q: evidence\n%s\nwant\n%s", msg, g, ev)
		}
	}
}

// TestGoneNearIsNextToIt: the baseline's paths next to a new one, as
// goneNames finds them, are those in its directory, that directory itself
// and those in it where it is one, each once (the root's and a
// directory's own included), as a look at every path finds them.
func TestGoneNearIsNextToIt(t *testing.T) {
	accepted := []string{".", ".git", ".git/index", ".git/hooks/pre-commit", "a", "a/x", "a/y", "a/b/z", "b/c", "kept", "kept/q"}
	written := map[string]bool{"kept": true}
	g := goneOf(accepted, func(a string) bool { return written[a] })
	for _, w := range []string{".git/index.lock", ".git", ".", "a/b", "a", "kept/r", "c/d"} {
		var want []string
		dir := path.Dir(w)
		for _, a := range accepted {
			if !written[a] && (path.Dir(a) == dir || a == dir || path.Dir(a) == w) {
				want = append(want, a)
			}
		}
		slices.Sort(want)
		first, n := g.near(w)
		if n != len(want) || !slices.Equal(first, want[:min(len(want), maxNotAgain)]) {
			t.Errorf("near(%q) = %q, %d; want %q, %d", w, first, n, want[:min(len(want), maxNotAgain)], len(want))
		}
	}
}
