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
