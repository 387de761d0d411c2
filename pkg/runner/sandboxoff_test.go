package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// A policy whose defaults.sandbox: off runs every hook in the open, beside
// a key only a sandbox honours (egress, limits, root-sandbox), is an error
// at that key, in whichever order they are written: the key would be taken
// and do nothing, as vigiles run refuses its flag beside --sandbox off.
// Beside sandbox: auto or strict, they are fine. linger is no such key: a
// run in the open lists and ends what its hook left, after the linger.
func TestSandboxOffWithConfinedOnlyDefaults(t *testing.T) {
	for _, c := range []struct {
		yml  string
		want []string // "line:key"
	}{
		{"defaults: {sandbox: off, egress: {mode: record}, limits: {pids: 100}}\n", []string{"1:egress", "1:limits"}},
		{"defaults:\n  egress: record\n  linger: 1s\n  root-sandbox: true\n  timeout: 5s\n  output-cap: 1MiB\n  sandbox: off\n", []string{"2:egress", "4:root-sandbox"}},
		{"defaults: {sandbox: off, timeout: 5s, output-cap: 1MiB}\n", nil},
		{"defaults: {sandbox: strict, egress: record, limits: {pids: 100}, linger: 1s}\n", nil},
		{"defaults: {sandbox: auto, egress: record}\n", nil},
	} {
		cfg, err := ParseConfig(".vigiles.yml", []byte(c.yml+"checks: [{name: c, command: 'true', expect: {exit-code: 0}}]\n"))
		if err != nil {
			t.Fatalf("%q: %v", c.yml, err)
		}
		var got []string
		for _, e := range cfg.Defaults.OpenIgnored {
			if strings.Contains(e.Msg, "defaults.sandbox: off runs every hook in the open") {
				key := strings.TrimPrefix(strings.SplitN(e.Msg, ":", 2)[0], "defaults.")
				got = append(got, fmt.Sprintf("%d:%s", e.Line, key))
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q: errors at %q, want %q (all: %v)", c.yml, got, c.want, err)
		}
	}
}

// TestSandboxOffWithConfinedOnlyDefaultsIsAnErrorUnlessOverridden: the
// policy's egress beside its sandbox: off is a config/invalid error of
// the run, unless --sandbox on the command line confines the hooks, which
// then honour it.
func TestSandboxOffWithConfinedOnlyDefaultsIsAnErrorUnlessOverridden(t *testing.T) {
	dir := makeTree(t, map[string]string{".vigiles.yml": "defaults: {sandbox: off, egress: record}\nchecks:\n  - {name: c, command: 'true', expect: {exit-code: 0}}\n"})
	ex := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierDirect}, nil
	}}
	for _, c := range []struct {
		flag sandbox.Mode
		want bool
	}{{"", true}, {sandbox.ModeStrict, false}, {sandbox.ModeOff, false}} {
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex, Sandbox: c.flag})
		if err != nil && c.flag != sandbox.ModeOff {
			t.Fatal(err)
		}
		got := false
		if rep != nil {
			for _, f := range rep.Findings {
				if f.Rule == RuleConfig && strings.Contains(f.Message, "defaults.egress: defaults.sandbox: off runs every hook in the open") {
					got = true
				}
			}
		}
		if got != c.want {
			t.Errorf("--sandbox %q: the egress beside sandbox: off is an error: %v, want %v", c.flag, got, c.want)
		}
	}
}

// TestNotRecordedNamesThePolicysSandboxOff: a run in the open because the
// policy says defaults.sandbox: off is not-recorded naming that key, not
// a check's trusted: true or --sandbox off, which were not given; with
// --sandbox off, the flag is named.
func TestNotRecordedNamesThePolicysSandboxOff(t *testing.T) {
	dir := makeTree(t, map[string]string{".vigiles.yml": "defaults: {sandbox: off}\nchecks:\n  - {name: c, command: 'true', expect: {no-write: true}}\n"})
	ex := &runnertest.Canned{F: func(spec sandbox.Spec, _ []byte) (*sandbox.Result, error) {
		return &sandbox.Result{Tier: sandbox.TierDirect}, nil
	}}
	for _, c := range []struct {
		flag      sandbox.Mode
		want, not string
	}{
		{"", "in the open: defaults.sandbox: off in .vigiles.yml runs every hook so", "--sandbox off"},
		{sandbox.ModeOff, "in the open: --sandbox off runs every hook so", "defaults.sandbox"},
	} {
		rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex, Sandbox: c.flag})
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range rep.Findings {
			if f.Rule == RuleNotRecorded {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], c.want) || strings.Contains(msgs[0], c.not) || strings.Contains(msgs[0], "trusted: true") {
			t.Errorf("--sandbox %q: not-recorded %q, want one naming %q", c.flag, msgs, c.want)
		}
	}
}
