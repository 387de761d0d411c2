package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestEgressOrderIsTheHooksNotTheRecords audits one hook twice, its
// record listing the same attempts in another order each time (the
// record's order is that of first attempts: a hook that asks one host for
// /a and /b in either order, or connects to a name's two addresses in
// either order): the reports list them alike.
func TestEgressOrderIsTheHooksNotTheRecords(t *testing.T) {
	dir := auditRepo(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	entries := []evidence.Egress{
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "GET /alpha"},
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 2, Detail: "GET /beta"},
		{Host: "a.example.test", Port: 80, Proto: "http", Via: evidence.ViaProxy, Attempts: 1, Detail: "POST /alpha"},
		{Host: "a.example.test", IP: "192.0.2.7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
		{Host: "a.example.test", IP: "2001:db8::7", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
		{Host: "a.example.test", IP: "192.0.2.8", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Allowed: true, Attempts: 1},
		{Host: "a.example.test", IP: "192.0.2.8", Port: 443, Proto: "tcp", Via: evidence.ViaConnect, Attempts: 1},
	}
	audit := func(order []evidence.Egress) map[string][]evidence.Egress {
		t.Helper()
		exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
			return &sandbox.Result{Tier: sandbox.TierConfined, Writes: []evidence.Write{}, Egress: slices.Clone(order), DurationMs: 5}, nil
		}}
		rep, err := Audit(context.Background(), Options{Dir: dir, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]evidence.Egress{}
		for _, r := range rep.Runs {
			out[r.ID] = r.Egress
		}
		return out
	}
	want := audit(entries)
	reversed := slices.Clone(entries)
	slices.Reverse(reversed)
	rotated := append(slices.Clone(entries[3:]), entries[:3]...)
	for _, order := range [][]evidence.Egress{reversed, rotated} {
		if diff := cmp.Diff(want, audit(order)); diff != "" {
			t.Errorf("the same attempts in another order make another report (-first +then):\n%s", diff)
		}
	}
}

// TestDriftSaysWhatANewNameReplaced audits a hook that draws a file's name
// and a mirror anew each run, against the baseline of its last run: the
// drift says which name of the baseline's this run did not write or try,
// beside the new one, so that a reviewer reads one name for another.
func TestDriftSaysWhatANewNameReplaced(t *testing.T) {
	dir := auditRepo(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	n := 0
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		if !strings.Contains(spec.Command[len(spec.Command)-1], "true") || strings.Contains(spec.Command[len(spec.Command)-1], ":") {
			return fakeHooks().F(spec, nil)
		}
		git := evidence.Write{Path: ".git/index", Op: evidence.OpModify, Kind: "file"} // a racily clean index
		if n == 2 {
			git = evidence.Write{Path: ".git", Op: evidence.OpModify, Kind: "dir"} // refreshed: index.lock made and removed
		}
		res := &sandbox.Result{Tier: sandbox.TierConfined, DurationMs: 5, Writes: []evidence.Write{
			git,
			{Path: "cache/keep", Op: evidence.OpModify, Kind: "file"},
			{Path: fmt.Sprintf("cache/tmp.%d", n), Op: evidence.OpCreate, Kind: "file"},
			{Path: fmt.Sprintf("other/%d", n), Op: evidence.OpCreate, Kind: "file"},
		}, Egress: []evidence.Egress{
			{Host: fmt.Sprintf("mirror%d.example.test", n), Via: evidence.ViaDNS, Proto: "dns", Attempts: 1},
			{Host: "api.example.test", Via: evidence.ViaDNS, Proto: "dns", Attempts: 1},
		}}
		return res, nil
	}}
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	n = 1
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: exec}); err != nil {
		t.Fatal(err)
	}
	n = 2
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: exec})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleDriftPrefix+DriftWrite || f.Rule == RuleDriftPrefix+DriftHost {
			got = append(got, f.Message+"\n"+f.Evidence)
		}
	}
	slices.Sort(got)
	want := []string{
		"a Stop now tries to reach mirror2.example.test, which the baseline does not list; the baseline lists 1 host that this run did not try (named in the evidence)\n" +
			"- the baseline, + now\n- mirror1.example.test\n+ mirror2.example.test\n",
		"a Stop now writes .git, which the baseline does not list; the baseline lists 1 path next to it that this run did not write (named in the evidence)\n" +
			"- the baseline, + now\n- .git/index\n+ .git\n",
		"a Stop now writes cache/tmp.2, which the baseline does not list; the baseline lists 1 path next to it that this run did not write (named in the evidence)\n" +
			"- the baseline, + now\n- cache/tmp.1\n+ cache/tmp.2\n",
		"a Stop now writes other/2, which the baseline does not list; the baseline lists 1 path next to it that this run did not write (named in the evidence)\n" +
			"- the baseline, + now\n- other/1\n+ other/2\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("drift messages (-want +got):\n%s", diff)
	}
}

// TestDriftSaysTheBaselinesRunWasEndedAfterTheLinger audits a hook whose
// background process raced its exit: the baseline's run had it ended
// after the linger period (lingered, accepted), this run's finished and
// wrote and tried what it does (or got further: its processes were
// ended again, after they wrote). The drift says so, and what to change.
func TestDriftSaysTheBaselinesRunWasEndedAfterTheLinger(t *testing.T) {
	dir := auditRepo(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	finished := 0 // 0: ended before it wrote; 1: finished; 2: ended after it wrote
	exec := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		if strings.Contains(spec.Command[len(spec.Command)-1], ":") {
			return fakeHooks().F(spec, nil)
		}
		res := &sandbox.Result{Tier: sandbox.TierConfined, DurationMs: 5, Writes: []evidence.Write{}, Egress: []evidence.Egress{}}
		if finished > 0 {
			res.Writes = append(res.Writes, evidence.Write{Path: "late.log", Op: evidence.OpCreate, Kind: "file"})
			res.Egress = append(res.Egress, evidence.Egress{Host: "late.example.test", Via: evidence.ViaDNS, Proto: "dns", Attempts: 1})
		}
		if finished != 1 {
			res.Lingered = []string{"7 sh -c sleep 0.01; echo > late.log"}
		}
		return res, nil
	}}
	ctx := context.Background()
	const base = ".vigiles/baseline.json"
	if _, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: exec}); err != nil {
		t.Fatal(err)
	}
	for finished = 1; finished <= 2; finished++ {
		rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: exec})
		if err != nil {
			t.Fatal(err)
		}
		const note = "; the baseline's run left processes running that were ended after the linger period, so what they did was not all recorded then: raise defaults.linger in .vigiles.yml so that they finish within every run, and update the baseline"
		var got []string
		for _, f := range rep.Findings {
			if f.Rule == RuleDriftPrefix+DriftWrite || f.Rule == RuleDriftPrefix+DriftHost {
				got = append(got, f.Message)
			}
		}
		slices.Sort(got)
		want := []string{
			"a Stop now tries to reach late.example.test, which the baseline does not list" + note,
			"a Stop now writes late.log, which the baseline does not list" + note,
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("case %d: drift messages (-want +got):\n%s", finished, diff)
		}
	}
}
