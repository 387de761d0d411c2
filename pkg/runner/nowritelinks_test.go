package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
	"github.com/vigiles/action/pkg/runner/runnertest"
	"github.com/vigiles/action/pkg/sandbox"
)

// TestNoWriteOfALinkIntoWhatItForbids: a symlink the hook left that leads
// where no-write forbids is a write there later (Claude Code's, or the
// hook's next run), as wrote-only judges one that leads outside what it
// allows: notes -> .git/hooks passed no-write: [.git/**], and a write of
// notes/post-commit then lands in .git/hooks. So does a link to a
// directory above a forbidden glob's literal start (the work tree's
// root, HOME). A link that leads elsewhere, or that the record cannot
// follow for certain, is judged as before: no write there.
func TestNoWriteOfALinkIntoWhatItForbids(t *testing.T) {
	for _, tc := range []struct {
		name    string
		forbid  string
		writes  []evidence.Write
		failing bool
	}{
		{"a link to .git/hooks", "[.git/**]", []evidence.Write{{Path: "notes", Op: evidence.OpCreate, Kind: "symlink", Target: ".git/hooks"}}, true},
		{"a link to .git/config", "[.git]", []evidence.Write{{Path: "docs/cfg", Op: evidence.OpCreate, Kind: "symlink", Target: "../.git/config"}}, true},
		{"a link to .GIT, folded", "[.git/**]", []evidence.Write{{Path: "notes", Op: evidence.OpCreate, Kind: "symlink", Target: ".GIT/hooks"}}, true},
		{"a link to the work tree's root", "[.git/hooks/**]", []evidence.Write{{Path: "docs/up", Op: evidence.OpCreate, Kind: "symlink", Target: ".."}}, true},
		{"a link to HOME", "[~/.ssh/**]", []evidence.Write{{Path: "~/x", Op: evidence.OpCreate, Kind: "symlink", Target: "."}}, true},
		{"a link through a link the run made", "[.git/**]", []evidence.Write{
			{Path: "a", Op: evidence.OpCreate, Kind: "symlink", Target: "b"},
			{Path: "b", Op: evidence.OpCreate, Kind: "symlink", Target: ".git/hooks/pre-commit"}}, true},
		{"a link elsewhere", "[.git/**]", []evidence.Write{{Path: "notes", Op: evidence.OpCreate, Kind: "symlink", Target: "docs/notes.md"}}, false},
		{"a link to the root, of a base-name glob", "[.git]", []evidence.Write{{Path: "docs/up", Op: evidence.OpCreate, Kind: "symlink", Target: ".."}}, false},
		{"a link to HOME, of a tree glob", "[.git/**]", []evidence.Write{{Path: "~/x", Op: evidence.OpCreate, Kind: "symlink", Target: "."}}, false},
		{"a system target", "[.git/**]", []evidence.Write{{Path: "py", Op: evidence.OpCreate, Kind: "symlink", Target: "/usr/bin/python3"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := makeTree(t, map[string]string{
				"docs/readme.md": "x\n",
				".vigiles.yml":   "version: 1\nchecks:\n  - {name: c, command: ./link.sh, expect: {no-write: " + tc.forbid + "}}\n",
			})
			ex := &runnertest.Canned{F: func(sandbox.Spec, []byte) (*sandbox.Result, error) {
				return &sandbox.Result{Tier: sandbox.TierConfined, Writes: tc.writes, Egress: []evidence.Egress{}}, nil
			}}
			rep, err := Test(context.Background(), Options{Dir: dir, Executor: ex, Sandbox: "strict"})
			if err != nil {
				t.Fatal(err)
			}
			failed := rep.Verdict == report.VerdictFail && len(rep.Findings) == 1 && rep.Findings[0].Rule == RuleExpectPrefix+ExpNoWrite &&
				strings.Contains(rep.Findings[0].Message, "where it must not write")
			if failed != tc.failing {
				t.Errorf("no-write: %s failed %v, want %v:\n%s", tc.forbid, failed, tc.failing, findingLines(rep.Findings))
			}
		})
	}
}
