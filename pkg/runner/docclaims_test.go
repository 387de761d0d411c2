package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/report"
)

// The tests in this file show claims of docs/security.md's table of
// attempts that no other test of the package showed: each names the row
// it stands for.

// malformedSaying counts the discovery/malformed errors among findings
// whose message says what.
func malformedSaying(findings []report.Finding, what string) int {
	n := 0
	for _, f := range findings {
		if f.Rule == RuleMalformed && f.Severity == report.SeverityError && strings.Contains(f.Message, what) {
			n++
		}
	}
	return n
}

// TestDocClaimMarkdownFilesAndDepthAreBounded shows the end of the row
// "Exhaust vigiles with the frontmatter of a skill, an agent or a command
// … or with millions of skill, agent and command files": no more than
// maxComponentFiles (10,000) markdown files below a repository's skills,
// agents and commands directories are read, and agents and commands no
// deeper than maxComponentDepth (16) directories; each bound passed is one
// discovery/malformed error that names it, never a hang and never
// silence. Below both bounds a command hook in a component's frontmatter
// is found, so the bounds are what leave the others unread.
func TestDocClaimMarkdownFilesAndDepthAreBounded(t *testing.T) {
	const hooked = "---\nhooks:\n  Stop: [{hooks: [{type: command, command: echo}]}]\n---\n"
	t.Run("files", func(t *testing.T) {
		dir := makeTree(t, map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`})
		agents := filepath.Join(dir, "plugins/p/agents")
		if err := os.MkdirAll(agents, 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range maxComponentFiles + 1 {
			if err := os.WriteFile(filepath.Join(agents, fmt.Sprintf("a%05d.md", i)), []byte("---\nname: a\n---\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		s := discoverAll(t, dir)
		if n := malformedSaying(s.findings, fmt.Sprintf("more than %d markdown files lie below", maxComponentFiles)); n != 1 {
			t.Errorf("%d findings of the file bound, want 1:\n%s", n, strings.Join(findingLines(s.findings), "\n"))
		}
	})
	t.Run("depth", func(t *testing.T) {
		shallow := "plugins/p/commands/" + strings.Repeat("d/", maxComponentDepth) + "ok.md"
		deep := "plugins/p/commands/" + strings.Repeat("d/", maxComponentDepth+1) + "deep.md"
		dir := makeTree(t, map[string]string{"plugins/p/.claude-plugin/plugin.json": `{"name": "p"}`, shallow: hooked, deep: hooked})
		s := discoverAll(t, dir)
		if n := malformedSaying(s.findings, fmt.Sprintf("more than %d directories below the agents or commands directory", maxComponentDepth)); n != 1 {
			t.Errorf("%d findings of the depth bound, want 1:\n%s", n, strings.Join(findingLines(s.findings), "\n"))
		}
		found := 0
		for _, h := range s.hooks {
			if strings.Contains(h.ID, "ok.md") {
				found++
			}
			if strings.Contains(h.ID, "deep.md") {
				t.Errorf("a command deeper than the bound was read: %s", h.ID)
			}
		}
		if found != 1 {
			t.Errorf("the command at the bound's depth declared %d hooks, want 1", found)
		}
	})
}

// TestDocClaimLinkJudgingIsBounded shows "the judging of one run's links
// is bounded (past 64 MiB of path looked up, a link fails)" of the row
// "Pass wrote-only with a link into a path it may not write": a run that
// left a thousand links deep in a directory whose path is 4,000 bytes
// long, each with a target of many "./" components, makes the judging
// look up more than maxLinkWork bytes of path; the first link is followed
// to the file it names, and the last, alike but for its name, is not
// followed and fails, as a link whose target leads out does.
func TestDocClaimLinkJudgingIsBounded(t *testing.T) {
	dir := strings.Repeat("x/", 2000) + "d"
	target := strings.Repeat("./", 20) + "f"
	ws := []evidence.Write{{Path: dir + "/f", Op: evidence.OpCreate, Kind: "file"}}
	const n = 1000
	for i := range n {
		ws = append(ws, evidence.Write{Path: fmt.Sprintf("%s/l%d", dir, i), Op: evidence.OpCreate, Kind: "symlink", Target: target})
	}
	v := newLinkView("", ws)
	var first, last bool
	for i, w := range ws[1:] {
		shown, _, known, ok := v.resolve(w)
		if !ok {
			t.Fatalf("link %d: not taken for a link to follow", i)
		}
		switch i {
		case 0:
			first = known && shown == dir+"/f"
		case n - 1:
			last = known
		}
	}
	if v.work <= maxLinkWork {
		t.Fatalf("the links looked up %d bytes of path, not past the bound %d: the test shows nothing", v.work, maxLinkWork)
	}
	if !first {
		t.Errorf("the first link was not followed to %s/f", dir)
	}
	if last {
		t.Errorf("the last link was followed past the bound of %d bytes of path", maxLinkWork)
	}
}
