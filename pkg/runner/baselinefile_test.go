package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/report"
)

// TestBaselineRemovedHookNamesItsFile: a baseline keeps the file each run
// was declared in, so a hook removed since is placed at that file even
// where its id cannot tell it apart (a file or a directory whose name
// holds ".json#" or ".md#"); the id's guess would name a file that does
// not exist.
func TestBaselineRemovedHookNamesItsFile(t *testing.T) {
	agent := "plugins/p/agents/a.json#b.md"
	skill := "plugins/x.md#y/skills/s/SKILL.md"
	inDir := "plugins/d.json#e/agents/r.md"
	dir := makeTree(t, map[string]string{
		"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`,
		agent:                                  stopHook("echo x"),
		"plugins/x.md#y/.claude-plugin/plugin.json": `{"name": "y"}`,
		skill: stopHook("echo x"),
		"plugins/d.json#e/.claude-plugin/plugin.json": `{"name": "e"}`,
		inDir:                   stopHook("echo x"),
		".claude/settings.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		".claude-plugin/marketplace.json": `{"name": "m", "plugins": [{"name": "p", "source": "./plugins/p"},
			{"name": "y", "source": "./plugins/x.md#y"}, {"name": "e", "source": "./plugins/d.json#e"}]}`,
	})
	ctx := context.Background()
	base := ".vigiles/baseline.json"
	first, err := Audit(ctx, Options{Dir: dir, Baseline: base, UpdateBaseline: true, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Runs) != 4 {
		t.Fatalf("runs %v, want the three hooks and the settings' one", first.Runs)
	}
	for _, f := range []string{agent, skill, inDir} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Audit(ctx, Options{Dir: dir, Baseline: base, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Rule == RuleDriftPrefix+DriftHookRemoved {
			got[f.Location.File] = true
		}
	}
	for _, d := range rep.Drift {
		if d.Kind == DriftHookRemoved && !got[d.Location.File] {
			t.Errorf("drift %s at %q, its finding elsewhere", d.Hook, d.Location.File)
		}
	}
	for _, f := range []string{agent, skill, inDir} {
		if !got[f] {
			t.Errorf("no %s finding at %s: %v", DriftHookRemoved, f, findingLines(rep.Findings))
		}
	}
	if len(got) != 3 {
		t.Errorf("%s findings at %v, want the three declaring files", DriftHookRemoved, got)
	}
}

// TestBaselineFileField: "file" is written where the run's location names
// its declaring file, read back, and optional (a baseline written before
// it falls back to the id); one that is not where its id begins is
// refused, so a baseline cannot place a finding at any file it likes; and
// writing is deterministic.
func TestBaselineFileField(t *testing.T) {
	run := report.HookRun{ID: "p/a.json#b.md#hooks.Stop[0].hooks[0]", Plugin: "p", Event: "Stop", Outcome: report.OutcomeAllowed,
		Location: report.Location{File: "p/a.json#b.md", Line: 4, Column: 44}}
	rep := &report.Report{Runs: []report.HookRun{run}}
	data, err := NewBaseline(rep).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := NewBaseline(rep).Marshal(); string(again) != string(data) {
		t.Errorf("baseline not deterministic:\n%s\n---\n%s", data, again)
	}
	if !strings.Contains(string(data), `"file": "p/a.json#b.md"`) {
		t.Errorf("no file in\n%s", data)
	}
	write := func(s string) string {
		p := filepath.Join(t.TempDir(), "baseline.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	removed := func(b *Baseline) string {
		_, finds := compareBaseline(b, nil, nil, map[string]bool{}, everyFile, report.SeverityError)
		if len(finds) != 1 {
			t.Fatalf("findings %v", finds)
		}
		return finds[0].Location.File
	}
	b, err := LoadBaseline(write(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := removed(b); got != "p/a.json#b.md" {
		t.Errorf("removed hook at %q", got)
	}
	old := `{"schema": "vigiles.baseline/v1", "runs": {"p/h.json#hooks.Stop[0].hooks[0]": {"plugin": "p", "event": "Stop", "outcome": "allowed", "hosts": [], "writes": []}}}`
	if b, err = LoadBaseline(write(old)); err != nil {
		t.Fatalf("a baseline without file: %v", err)
	}
	if got := removed(b); got != "p/h.json" {
		t.Errorf("removed hook of an old baseline at %q", got)
	}
	for _, bad := range []string{`"/etc/passwd"`, `"p/h.jso"`, `""`, `1`} {
		_, err := LoadBaseline(write(`{"schema": "vigiles.baseline/v1", "runs": {"p/h.json#hooks.Stop[0].hooks[0]": {"file": ` + bad + `, "outcome": "allowed"}}}`))
		var be *BaselineError
		if !errors.As(err, &be) || be.Line != 1 {
			t.Errorf("file %s: err %v, want a BaselineError at it", bad, err)
		}
	}
	// A run whose location is not its id's file (none) keeps no file.
	noLoc := report.HookRun{ID: "p/h.json#hooks.Stop[0].hooks[0]", Outcome: report.OutcomeAllowed}
	if data, _ := NewBaseline(&report.Report{Runs: []report.HookRun{noLoc}}).Marshal(); strings.Contains(string(data), `"file"`) {
		t.Errorf("file without a location:\n%s", data)
	}
}

// everyFile reports removed hooks wherever they were declared.
func everyFile(string) bool { return true }
