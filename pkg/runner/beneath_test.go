package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBeneath: lookups inside the repository resolve as the kernel's
// would; any that leaves it, by ".." or through a link, is ErrOutsideTree
// whether or not its target exists.
func TestBeneath(t *testing.T) {
	out := makeTree(t, map[string]string{"there.json": "{}", "dir/": ""})
	dir := makeTree(t, map[string]string{"a/b.json": "{}", "c/": ""})
	for name, target := range map[string]string{
		"a/rel-in":   "b.json",
		"c/up-in":    "../a",
		"abs-in":     filepath.Join(dir, "a"),
		"abs-out":    out,
		"rel-out":    "../../../../../../../../../../" + strings.TrimPrefix(out, "/"),
		"loop":       "loop",
		"c/via-link": "../abs-in/b.json",
		// Through a directory that is not there: not there, as for the
		// kernel, though its text climbs out.
		"c/gone-climb": "gone/../../../..",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		path, want string // want: resolved path (relative to dir), "outside", "missing" or "loop"
	}{
		{"a/b.json", "a/b.json"},
		{".", "."},
		{"a/rel-in", "a/b.json"},
		{"c/up-in/b.json", "a/b.json"},
		{"abs-in/b.json", "a/b.json"},
		{"c/via-link", "a/b.json"},
		{"a/nope.json", "missing"},
		{"a/b.json/x", "missing"},
		{"loop", "loop"},
		{"c/gone-climb", "missing"},
		{"abs-out/there.json", "outside"},
		{"abs-out/nowhere.json", "outside"},
		{"abs-out/dir", "outside"},
		{"rel-out/there.json", "outside"},
		{"rel-out/nowhere.json", "outside"},
		{"a/../../x", "outside"},
		{"/etc/passwd", "outside"},
	} {
		p := tt.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		got, fi, err := beneath(dir, dir, p)
		switch tt.want {
		case "outside":
			if !errors.Is(err, ErrOutsideTree) {
				t.Errorf("%s: got %s %v, want outside the tree", tt.path, got, err)
			}
		case "missing", "loop":
			if err == nil || errors.Is(err, ErrOutsideTree) {
				t.Errorf("%s: got %s %v, want %s", tt.path, got, err, tt.want)
			}
			if tt.want == "loop" && (!strings.Contains(fmt.Sprint(err), "too many levels") || !errors.Is(err, fs.ErrNotExist)) {
				t.Errorf("%s: %v, want a loop", tt.path, err)
			}
		default:
			if err != nil || got != filepath.Join(dir, tt.want) || fi == nil {
				t.Errorf("%s: got %s %v, want %s", tt.path, got, err, tt.want)
			}
		}
	}
}

// TestAbsoluteLinkThroughALinkStaysOut: a link whose absolute target
// names the repository's path and then a link and ".." (ROOT/lnk/../x)
// leads where the kernel walks it, through lnk, not where its text
// cleans to: with lnk leading out, the policy file and a .claude behind
// such links are outside, neither read nor run.
func TestAbsoluteLinkThroughALinkStaysOut(t *testing.T) {
	outside := makeTree(t, map[string]string{
		"sub/keep":                "",
		"host.yml":                "hunter2-secret-token: 1\n",
		"dotclaude/settings.json": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"host:from-the-host"}]}]}}`,
	})
	dir := makeTree(t, map[string]string{
		"host.yml":                "version: 1\n",
		"dotclaude/settings.json": `{}`,
	})
	for l, target := range map[string]string{
		"lnk":          filepath.Join(outside, "sub"),
		".vigiles.yml": dir + "/lnk/../host.yml",
		".claude":      dir + "/lnk/../dotclaude",
	} {
		if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err == nil {
		t.Fatal("the audit took a policy file whose link leads out")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the host's file was read: %v", err)
	}
	if rep != nil {
		for _, f := range rep.Findings {
			if strings.Contains(f.Message, "hunter2") {
				t.Errorf("the host's file was read: %s", findingLine(f))
			}
		}
		for _, r := range rep.Runs {
			if strings.Contains(r.Command, "from-the-host") {
				t.Errorf("a hook of the host's settings was listed: %s", r.ID)
			}
		}
	}
	// Without the policy file in the way, the .claude behind such a link
	// is outside too.
	if err := os.Remove(filepath.Join(dir, ".vigiles.yml")); err != nil {
		t.Fatal(err)
	}
	rep, err = Audit(context.Background(), Options{Dir: dir, Executor: fakeHooks()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if strings.Contains(r.Command, "from-the-host") {
			t.Errorf("a hook of the host's settings was listed: %s", r.ID)
		}
	}
}

// outsideFix is how a discovery/outside-work-tree finding about a path a
// symbolic link leads out ends: what Claude Code reads there, and the fix.
const outsideFix = ", so what Claude Code reads there is the machine's, not the repository's; vigiles does not read it: commit what the link leads to in its place, or make it a relative link that stays in the repository"

// TestOutsideLinkMessage: a declaration file, or a path a declaration
// names, that a symbolic link leads outside the repository is an error
// that names the link and what it says (quoted where it would break a
// line: it is the tree's text) and the fix, not only "through a symbolic
// link"; a path written outside the repository, through no link, says
// that. "<out>" in a link or a message is the directory outside.
func TestOutsideLinkMessage(t *testing.T) {
	plugin := `{"name": "p", "hooks": "./more/hooks.json", "monitors": "./mon.json"}`
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string
		want  []string
	}{
		{
			name:  "a command file linked to an absolute path",
			files: map[string]string{".claude/commands/": ""},
			links: map[string]string{".claude/commands/x.md": "<out>/x.md"},
			want:  []string{".claude/commands/x.md:0:0 .claude/commands/x.md is a symbolic link to <out>/x.md, outside the repository" + outsideFix},
		},
		{
			name:  "an agent file linked by a relative path that climbs out",
			files: map[string]string{".claude/agents/": ""},
			links: map[string]string{".claude/agents/a.md": "../../../../../../../../../../../../<rout>/x.md"},
			want:  []string{".claude/agents/a.md:0:0 .claude/agents/a.md is a symbolic link to ../../../../../../../../../../../../<rout>/x.md, outside the repository" + outsideFix},
		},
		{
			name:  "a target that would break the line",
			files: map[string]string{".claude/commands/": ""},
			links: map[string]string{".claude/commands/y.md": "<out>/y\n.md"},
			want:  []string{`.claude/commands/y.md:0:0 .claude/commands/y.md is a symbolic link to "<out>/y\n.md", outside the repository` + outsideFix},
		},
		{
			name:  "a skills directory on the way",
			files: map[string]string{"p/.claude-plugin/plugin.json": `{"name": "p"}`, "p/skills/": ""},
			links: map[string]string{"p/skills/s": "<out>/s"},
			want:  []string{"p/skills/s/SKILL.md:0:0 p/skills/s/SKILL.md leads outside the repository through the symbolic link p/skills/s (-> <out>/s)" + outsideFix},
		},
		{
			name:  "a manifest's hooks and monitors files",
			files: map[string]string{"p/.claude-plugin/plugin.json": plugin},
			links: map[string]string{"p/more": "<out>", "p/mon.json": "<out>/m.json"},
			want: []string{
				`p/.claude-plugin/plugin.json:1:24 hooks file "./more/hooks.json" leads outside the repository through the symbolic link p/more (-> <out>)` + outsideFix,
				`p/.claude-plugin/plugin.json:1:57 monitors file "./mon.json" leads outside the repository through the symbolic link p/mon.json (-> <out>/m.json)` + outsideFix,
			},
		},
		{
			name:  "a manifest's commands path",
			files: map[string]string{"p/.claude-plugin/plugin.json": `{"name": "p", "commands": "./cmds"}`},
			links: map[string]string{"p/cmds": "<out>"},
			want:  []string{`p/.claude-plugin/plugin.json:1:27 commands path "./cmds" leads outside the repository through the symbolic link p/cmds (-> <out>)` + outsideFix},
		},
		{
			name:  "a marketplace's local source",
			files: map[string]string{".claude-plugin/marketplace.json": `{"name": "mk", "plugins": [{"name": "p", "source": "./vendor/p"}]}`},
			links: map[string]string{"vendor": "<out>"},
			want:  []string{`.claude-plugin/marketplace.json:1:52 plugins[0] (p): local source "./vendor/p" leads outside the repository through the symbolic link vendor (-> <out>)` + outsideFix},
		},
		{
			name:  "a plugin source written outside",
			files: map[string]string{".claude-plugin/marketplace.json": `{"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "up", "source": "../../x"}]}`},
			want:  []string{`.claude-plugin/marketplace.json:1:76 plugins[0] (up): local source "../../x" is outside the repository; vigiles does not read it`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := makeTree(t, map[string]string{"x.md": stopHook("echo leaked"), "s/SKILL.md": "---\nname: s\n---\n", "hooks.json": `{"hooks": {}}`, "m.json": "[]", "p/hooks/hooks.json": `{"hooks": {}}`})
			dir := makeTree(t, tt.files)
			named := strings.NewReplacer("<out>", out, "<rout>", strings.TrimPrefix(out, "/"))
			for link, target := range tt.links {
				if err := os.Symlink(named.Replace(target), filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			var want, got []string
			for _, w := range tt.want {
				want = append(want, "error "+RuleOutsideTree+" "+named.Replace(w))
			}
			for _, f := range findingMessages(discoverAll(t, dir).findings) {
				if strings.Contains(f, RuleOutsideTree) {
					got = append(got, f)
				}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
