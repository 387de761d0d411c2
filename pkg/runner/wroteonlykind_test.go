package runner

import (
	"os"
	"path/filepath"
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

// TestWroteOnlyLinkToADirectoryPatternsOwnPath: a link to x, where x/**
// is allowed, passes only where a directory is there: a later write
// through a link to a file x replaces the file (the review).
func TestWroteOnlyLinkToADirectoryPatternsOwnPath(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n  - {name: two, command: x, expect: {wrote-only: [config/**, out/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	link := evidence.Write{Path: "out/l", Op: evidence.OpCreate, Kind: "symlink", Target: "../config"}
	run := func(ws ...evidence.Write) report.HookRun {
		return report.HookRun{ID: "h", Event: SessionStart, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: ws, Egress: []evidence.Egress{}}
	}
	if fs := checkExpectations(cfg.Checks[0], executed{run: run(link)}); len(fs) != 1 || !strings.Contains(fs[0].Message, "links to config") {
		t.Errorf("a link to config, no directory there: %v", findingLines(fs))
	}
	if fs := checkExpectations(cfg.Checks[0], executed{run: run(link, evidence.Write{Path: "config/x", Op: evidence.OpCreate, Kind: "file"})}); len(fs) != 0 {
		t.Errorf("a link to config, a directory the run wrote in: %v", findingLines(fs))
	}
}

// TestWroteOnlyLinkThroughTheTreesOwnLink: a link whose way passes a link
// the tree already has is the host's to resolve (a ".." after it climbs
// from where it leads, which differs from project to project), and leads
// out (the review passed docs -> .claude/journal/sub, then
// today.md -> ../../docs/../.git/hooks/post-commit).
func TestWroteOnlyLinkThroughTheTreesOwnLink(t *testing.T) {
	tree := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, ".claude/journal/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".claude/journal/sub", filepath.Join(tree, "docs")); err != nil {
		t.Fatal(err)
	}
	cfg, errs := configErrs(t, "checks:\n  - {name: j, command: x, expect: {wrote-only: [.claude/journal/**, docs/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	for target, passes := range map[string]bool{
		"../../docs/../.git/hooks/post-commit": false,
		"../../docs":                           false, // the last hop a link the tree has
		"sub/x":                                true,
	} {
		w := evidence.Write{Path: ".claude/journal/today.md", Op: evidence.OpCreate, Kind: "symlink", Target: target}
		r := report.HookRun{ID: "h", Event: SessionStart, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: []evidence.Write{w}, Egress: []evidence.Egress{}}
		if fs := checkExpectations(cfg.Checks[0], executed{run: r, tree: tree}); (len(fs) == 0) != passes {
			t.Errorf("today.md -> %s: %v, want pass %v", target, findingLines(fs), passes)
		}
	}
}
