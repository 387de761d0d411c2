package runner

import (
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// TestWroteOnlyFollowsLinks: a symlink that wrote-only allows at its path
// fails it where its target, resolved against the link's directory, is
// absolute, climbs out of the area it was written in (the work tree, ~/,
// $TMPDIR/, /dev/shm/), or is not allowed itself: a later write through it
// lands there. A hook planted ".claude/journal/today.md ->
// ../../.git/hooks/post-commit" and passed wrote-only: [.claude/journal/**].
// A hard link is no part of this: the file it names again is written
// (modify .git/config), which fails on its own path.
func TestWroteOnlyFollowsLinks(t *testing.T) {
	cfg, errs := configErrs(t, "checks:\n"+
		"  - {name: journal, command: x, expect: {wrote-only: [.claude/journal/**, ~/.claude/**, $TMPDIR/**]}}\n"+
		"  - {name: not-git, command: x, expect: {no-write: [.git/**]}}\n")
	if errs != "" {
		t.Fatal(errs)
	}
	link := func(p, target string) evidence.Write {
		return evidence.Write{Path: p, Op: evidence.OpCreate, Kind: "symlink", Target: target}
	}
	for _, c := range []struct {
		name   string
		writes []evidence.Write
		want   string // the finding's evidence; "" for a pass
	}{
		{"into .git", []evidence.Write{link(".claude/journal/today.md", "../../.git/hooks/post-commit"), {Path: ".claude/journal/log", Op: evidence.OpCreate, Kind: "file"}},
			"create .claude/journal/today.md (links to .git/hooks/post-commit, outside what it may write)"},
		{"hard link into .git", []evidence.Write{{Path: ".claude/journal/notes.md", Op: evidence.OpCreate, Kind: "file"}, {Path: ".git/config", Op: evidence.OpModify, Kind: "file"}},
			"modify .git/config"},
		{"absolute", []evidence.Write{link(".claude/journal/p", "/etc/passwd")},
			"create .claude/journal/p (links to /etc/passwd, outside what it may write)"},
		// An absolute target is the host's to resolve (a tree reached by
		// another path, /proc/self/cwd): it leads out, but into the
		// system's read-only directories or to /dev/null.
		{"absolute into the allowed directory", []evidence.Write{link(".claude/journal/p", "/nonexistent/repo/.claude/journal/x")},
			"create .claude/journal/p (links to /nonexistent/repo/.claude/journal/x, outside what it may write)"},
		{"through /proc/self", []evidence.Write{link(".claude/journal/today.md", "/proc/self/cwd/.git/hooks/post-commit")},
			"create .claude/journal/today.md (links to /proc/self/cwd/.git/hooks/post-commit, outside what it may write)"},
		{"to /dev/null", []evidence.Write{link(".claude/journal/debug.log", "/dev/null")}, ""},
		{"absolute into the system's directories (a virtualenv's python)", []evidence.Write{link(".claude/journal/venv/bin/python3", "/usr/bin/python3")}, ""},
		{"absolute into another checkout", []evidence.Write{link(".claude/journal/p", "/nonexistent/other/.git/config")},
			"create .claude/journal/p (links to /nonexistent/other/.git/config, outside what it may write)"},
		{"out of the tree", []evidence.Write{link(".claude/journal/up", "../../../elsewhere/.claude/journal/x")},
			"create .claude/journal/up (links to ../../../elsewhere/.claude/journal/x, outside what it may write)"},
		{"retargeted", []evidence.Write{{Path: ".claude/journal/l", Op: evidence.OpModify, Kind: "symlink", Target: "../settings.json"}},
			"modify .claude/journal/l (links to .claude/settings.json, outside what it may write)"},
		{"out of HOME", []evidence.Write{link("~/.claude/rc", "../../.bashrc")},
			"create ~/.claude/rc (links to ../../.bashrc, outside what it may write)"},
		{"HOME to HOME", []evidence.Write{link("~/.claude/rc", "../.bashrc")},
			"create ~/.claude/rc (links to ~/.bashrc, outside what it may write)"},
		{"a name that breaks lines", []evidence.Write{link(".claude/journal/l", "../../x\n::error::y")},
			`create .claude/journal/l (links to "x\n::error::y", outside what it may write)`},
		{"a tree directory named ~", []evidence.Write{link(".claude/journal/l", "../../~/.claude/x")},
			"create .claude/journal/l (links to ./~/.claude/x, outside what it may write)"},
		{"within", []evidence.Write{link(".claude/journal/today.md", "2024-01-01.md"), link(".claude/journal/a/b", "../../journal/c")}, ""},
		{"the allowed directory itself", []evidence.Write{link(".claude/journal/here", ".")}, ""},
		{"within HOME and TMPDIR", []evidence.Write{link("~/.claude/a", "b/c"), link("$TMPDIR/x", "y")}, ""},
		{"a deleted link", []evidence.Write{{Path: ".claude/journal/l", Op: evidence.OpDelete}}, ""},
		// Resolved as the kernel resolves them: a ".." after a link
		// climbs from where the link leads (the review passed b -> .
		// and today.md -> b/b/../../.git/hooks/post-commit).
		{"a chain of links", []evidence.Write{link(".claude/journal/b", "."), link(".claude/journal/today.md", "b/b/../../.git/hooks/post-commit")},
			"create .claude/journal/today.md (links to b/b/../../.git/hooks/post-commit, outside what it may write)"},
		{"a chain of links the run made, each within", []evidence.Write{link(".claude/journal/python", "python3"), link(".claude/journal/python3", "/usr/bin/python3")}, ""},
		{"a loop", []evidence.Write{link(".claude/journal/a", "a")},
			"create .claude/journal/a (links to a, outside what it may write)"},
		// A link in HOME or TMPDIR that leads into the tree, mounted at
		// its own path inside them.
		{"from TMPDIR into the tree", []evidence.Write{link("$TMPDIR/l", "../nonexistent/repo/.git")},
			"create $TMPDIR/l (links to ../nonexistent/repo/.git, outside what it may write)"},
		// A directory pattern's own path is a directory's: a link to a
		// file there lets a later write replace the file.
	} {
		t.Run(c.name, func(t *testing.T) {
			run := report.HookRun{ID: "h", Event: PreToolUse, Tier: "confined", Outcome: report.OutcomeAllowed, Writes: c.writes, Egress: []evidence.Egress{}}
			fs := checkExpectations(cfg.Checks[0], executed{run: run, tree: "/nonexistent/repo"})
			if c.want == "" {
				if len(fs) != 0 {
					t.Fatalf("want a pass: %v", findingLines(fs))
				}
				return
			}
			if len(fs) != 1 || fs[0].Rule != RuleExpectPrefix+ExpWroteOnly {
				t.Fatalf("want one %s finding: %v", ExpWroteOnly, findingLines(fs))
			}
			if fs[0].Evidence != c.want || !strings.Contains(fs[0].Message, "the hook wrote 1 path(s) outside that: "+c.want) {
				t.Errorf("message %q, evidence %q; want %q", fs[0].Message, fs[0].Evidence, c.want)
			}
			// no-write follows a link as wrote-only does, where the
			// record says for certain where it leads: a link into .git
			// is a write there later, which no run vigiles makes from
			// the checkout shows (TestNoWriteOfALinkIntoWhatItForbids).
			noWrite := strings.HasPrefix(c.want, "modify .git/") || c.name == "into .git"
			if fs := checkExpectations(cfg.Checks[1], executed{run: run}); (len(fs) != 0) != noWrite {
				t.Errorf("no-write [.git/**]: %v, want a failure %v", findingLines(fs), noWrite)
			}
		})
	}
}
