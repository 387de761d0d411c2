package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestWroteOnlyDirectoryFormAllowsOnlyTheDirectory: wrote-only's x/**
// matches the directory x itself (a change to it), never a file x the
// hook deleted nor one it replaced by a directory (the review passed a hook
// that removed a tracked file config under wrote-only: [config/**]);
// no-write's x/** still forbids them all.
func TestWroteOnlyDirectoryFormAllowsOnlyTheDirectory(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: only, command: x, expect: {wrote-only: [config/**]}}\n"+
		"  - {name: never, command: x, expect: {no-write: [config/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	run := func(ws ...evidence.Write) report.HookRun {
		return report.HookRun{ID: "h", Event: SessionStart, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: ws, Egress: []evidence.Egress{}}
	}
	for _, c := range []struct {
		name string
		ws   []evidence.Write
		only bool // wrote-only passes
	}{
		{"a file in it", []evidence.Write{{Path: "config/x", Op: evidence.OpCreate, Kind: "file"}}, true},
		{"the directory's own mode", []evidence.Write{{Path: "config", Op: evidence.OpModify, Kind: "dir"}}, true},
		{"a file config deleted", []evidence.Write{{Path: "config", Op: evidence.OpDelete}}, false},
		// rm -rf of an empty directory config: the record says it was one.
		{"an empty directory config deleted", []evidence.Write{{Path: "config", Op: evidence.OpDelete, Was: "dir"}}, true},
		{"a file config made a directory", []evidence.Write{{Path: "config", Op: evidence.OpModify, Kind: "dir", Was: "file"}, {Path: "config/x", Op: evidence.OpCreate, Kind: "file"}}, false},
		{"a directory config made a file", []evidence.Write{{Path: "config", Op: evidence.OpModify, Kind: "file", Was: "dir"}}, false},
	} {
		fs := checkExpectations(cfg.Checks[0], executed{run: run(c.ws...)})
		if (len(fs) == 0) != c.only {
			t.Errorf("%s: wrote-only findings %v, want pass %v", c.name, findingLines(fs), c.only)
		}
		if len(fs) > 0 && !strings.Contains(fs[0].Message, "config") {
			t.Errorf("%s: %q does not name the path", c.name, fs[0].Message)
		}
		if fs := checkExpectations(cfg.Checks[1], executed{run: run(c.ws...)}); len(fs) != 1 {
			t.Errorf("%s: no-write findings %v, want one", c.name, findingLines(fs))
		}
	}
}
