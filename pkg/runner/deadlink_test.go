package runner

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deadLinkFix is how a discovery/missing-file warning about a symbolic
// link that leads nowhere ends, after the kind of what it should lead to.
const deadLinkFix = " it should lead to, or remove the link"

// TestDeadLinkMessage: a symbolic link that discovery meets where Claude
// Code reads a declaration (a settings file, an agent's, command's or
// skill's markdown, a skills, agents or commands directory, a .claude
// directory, a plugin's manifest or default hooks file) and that leads
// nowhere is a warning at the link, once however many paths lead through
// it: it names the link and what it says (quoted where it would break a
// line), that Claude Code loads nothing from it, and the fix; never an
// error, and never the host's path of the work tree. A path a manifest
// names itself that is not there keeps its error.
func TestDeadLinkMessage(t *testing.T) {
	nothing := "which leads nowhere: nothing is there in the repository, so Claude Code loads nothing from it; commit the "
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string
		want  []string
	}{
		{
			name:  "an agent file whose target is not committed",
			files: map[string]string{".claude/agents/": ""},
			links: map[string]string{".claude/agents/accessibility-specialist.md": "../../agents/accessibility-specialist.md"},
			want:  []string{"warning .claude/agents/accessibility-specialist.md:0:0 .claude/agents/accessibility-specialist.md is a symbolic link to ../../agents/accessibility-specialist.md, " + nothing + "file" + deadLinkFix},
		},
		{
			// Claude Code clones a marketplace with its submodules: the
			// link loads there, and the audit says to check them out.
			name:  "a skill's directory in a submodule not checked out",
			files: map[string]string{".gitmodules": "[submodule \"ext\"]\n\tpath = external/skills\n\turl = https://git.example.test/skills.git\n", "external/skills/": "", "skills/": "", ".claude-plugin/plugin.json": `{"name": "p"}`},
			links: map[string]string{"skills/docx": "../external/skills/skills/docx"},
			want:  []string{"warning skills/docx:0:0 skills/docx is a symbolic link to ../external/skills/skills/docx, into the git submodule external/skills, which this checkout has not checked out: Claude Code clones a marketplace with its submodules, so what the link leads to loads there, and vigiles has not read it; check the submodules out before vigiles runs (git submodule update --init --recursive; actions/checkout's submodules: recursive) so that it reads them"},
		},
		{
			name:  "a skills directory",
			files: map[string]string{".claude/": ""},
			links: map[string]string{".claude/skills": "../skills"},
			want:  []string{"warning .claude/skills:0:0 .claude/skills is a symbolic link to ../skills, " + nothing + "directory" + deadLinkFix},
		},
		{
			name:  "an agents directory and a commands directory",
			files: map[string]string{".claude/": ""},
			links: map[string]string{".claude/agents": "../agents", ".claude/commands": "../gone/commands"},
			want: []string{
				"warning .claude/agents:0:0 .claude/agents is a symbolic link to ../agents, " + nothing + "directory" + deadLinkFix,
				"warning .claude/commands:0:0 .claude/commands is a symbolic link to ../gone/commands, " + nothing + "directory" + deadLinkFix,
			},
		},
		{
			name:  "a skill's directory in the skills directory",
			files: map[string]string{".claude/skills/": ""},
			links: map[string]string{".claude/skills/review": "../../skills/review"},
			want:  []string{"warning .claude/skills/review:0:0 .claude/skills/review is a symbolic link to ../../skills/review, " + nothing + "directory" + deadLinkFix},
		},
		{
			name:  "a settings file",
			files: map[string]string{".claude/": ""},
			links: map[string]string{".claude/settings.json": "../conf/settings.json"},
			want:  []string{"warning .claude/settings.json:0:0 .claude/settings.json is a symbolic link to ../conf/settings.json, " + nothing + "file" + deadLinkFix},
		},
		{
			name:  "a package's .claude, said once for all it holds",
			files: map[string]string{"pkg/a/": ""},
			links: map[string]string{"pkg/a/.claude": "../../shared/.claude"},
			want:  []string{"warning pkg/a/.claude:0:0 pkg/a/.claude is a symbolic link to ../../shared/.claude, " + nothing + "directory" + deadLinkFix},
		},
		{
			name:  "a plugin's command and its default hooks file",
			files: map[string]string{"p/.claude-plugin/plugin.json": `{"name": "p"}`, "p/commands/": "", "p/hooks/": ""},
			links: map[string]string{"p/commands/fmt.md": "../../shared/fmt.md", "p/hooks/hooks.json": "../../shared/hooks.json"},
			want: []string{
				"warning p/commands/fmt.md:0:0 p/commands/fmt.md is a symbolic link to ../../shared/fmt.md, " + nothing + "file" + deadLinkFix,
				"warning p/hooks/hooks.json:0:0 p/hooks/hooks.json is a symbolic link to ../../shared/hooks.json, " + nothing + "file" + deadLinkFix,
			},
		},
		{
			name:  "a plugin's manifest directory",
			files: map[string]string{"p/hooks/hooks.json": `{"hooks": {}}`},
			links: map[string]string{"p/.claude-plugin": "../shared/.claude-plugin"},
			want:  []string{"warning p/.claude-plugin:0:0 p/.claude-plugin is a symbolic link to ../shared/.claude-plugin, " + nothing + "directory" + deadLinkFix},
		},
		{
			name:  "a link to a link to nothing",
			files: map[string]string{".claude/commands/": ""},
			links: map[string]string{".claude/commands/a.md": "b.md", ".claude/commands/b.md": "../../gone.md"},
			want: []string{
				"warning .claude/commands/a.md:0:0 .claude/commands/a.md is a symbolic link to b.md, " + nothing + "file" + deadLinkFix,
				"warning .claude/commands/b.md:0:0 .claude/commands/b.md is a symbolic link to ../../gone.md, " + nothing + "file" + deadLinkFix,
			},
		},
		{
			name:  "a loop",
			files: map[string]string{".claude/agents/": ""},
			links: map[string]string{".claude/agents/x.md": "y.md", ".claude/agents/y.md": "x.md"},
			want: []string{
				"warning .claude/agents/x.md:0:0 .claude/agents/x.md is a symbolic link to y.md, which leads nowhere: its symbolic links go round in a loop, so Claude Code loads nothing from it; commit the file" + deadLinkFix,
				"warning .claude/agents/y.md:0:0 .claude/agents/y.md is a symbolic link to x.md, which leads nowhere: its symbolic links go round in a loop, so Claude Code loads nothing from it; commit the file" + deadLinkFix,
			},
		},
		{
			name:  "a target that would break the line",
			files: map[string]string{".claude/agents/": ""},
			links: map[string]string{".claude/agents/z.md": "../gone\n.md"},
			want:  []string{`warning .claude/agents/z.md:0:0 .claude/agents/z.md is a symbolic link to "../gone\n.md", ` + nothing + "file" + deadLinkFix},
		},
		{
			name:  "paths a manifest names keep their errors",
			files: map[string]string{"p/.claude-plugin/plugin.json": `{"name": "p", "agents": "./more", "hooks": "./h.json"}`},
			links: map[string]string{"p/more": "../shared/agents", "p/h.json": "../shared/h.json"},
			want: []string{
				`error p/.claude-plugin/plugin.json:1:25 agents path "./more" not found (resolved against the plugin root)`,
				`error p/.claude-plugin/plugin.json:1:44 hooks file "./h.json" not found (resolved against the plugin root)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := makeTree(t, tt.files)
			for link, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, f := range findingMessages(discoverAll(t, dir).findings) {
				if strings.Contains(f, dir) {
					t.Errorf("a message names the work tree's path on the host: %s", f)
				}
				if strings.Contains(f, RuleMissingFile) {
					got = append(got, strings.Replace(f, RuleMissingFile+" ", "", 1))
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

// TestTreeErr: an error of reading a declaration file that no dead link
// explains ("cannot read …") names the tree's paths relative to it, not
// where the work tree is on the host.
func TestTreeErr(t *testing.T) {
	c := &claudeDisc{dir: "/srv/link", dirReal: "/srv/tree"}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"the file itself", &fs.PathError{Op: "open", Path: "/srv/tree/.claude/agents/x.md", Err: syscall.EACCES}, "permission denied"},
		{"the file by the tree's name", &fs.PathError{Op: "lstat", Path: "/srv/link/.claude/agents/x.md", Err: syscall.EACCES}, "permission denied"},
		{"a directory on the way", &fs.PathError{Op: "lstat", Path: "/srv/tree/.claude/agents", Err: syscall.EACCES}, ".claude/agents: permission denied"},
		{"what a link leads to", &fs.PathError{Op: "open", Path: "/srv/tree/src/agents/x.md", Err: syscall.EIO}, "src/agents/x.md: input/output error"},
		{"a path outside", &fs.PathError{Op: "open", Path: "/etc/x", Err: syscall.EACCES}, "permission denied"},
		{"another error naming the tree", errors.New("/srv/link/.claude/agents/x.md: something else"), ".claude/agents/x.md: something else"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.treeErr(".claude/agents/x.md", tt.err); got != tt.want {
				t.Errorf("treeErr = %q, want %q", got, tt.want)
			}
		})
	}
}
