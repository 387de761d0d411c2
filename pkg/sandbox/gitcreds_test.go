package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestScrubGitConfig(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"actions/checkout's header",
			"[core]\n\tbare = false\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n[remote \"origin\"]\n\turl = https://github.com/o/r\n",
			"[core]\n\tbare = false\n[http \"https://github.com/\"]\n[remote \"origin\"]\n\turl = https://github.com/o/r\n"},
		{"any case, no blanks, CRLF",
			"[http]\r\nExtraHeader=x-token: y\r\n\tsslVerify = true\r\n",
			"[http]\r\n\tsslVerify = true\r\n"},
		{"continued over lines",
			"[http]\n\textraheader = AUTHORIZATION: \\\nbasic c2Vj\\\ncmV0\n\tpostBuffer = 1\n",
			"[http]\n\tpostBuffer = 1\n"},
		{"an even number of backslashes ends the line",
			"[http]\n\textraheader = a\\\\\n\tpostBuffer = 1\n",
			"[http]\n\tpostBuffer = 1\n"},
		{"after the header on its line",
			"[http \"https://x/\"] extraheader = AUTHORIZATION: basic c2Vj\n[core]\n",
			"[http \"https://x/\"]\n[core]\n"},
		{"a header whose subsection holds ] and quotes",
			"[http \"https://x/]\\\"\"]\textraheader = t\n",
			"[http \"https://x/]\\\"\"]\n"},
		{"a URL's password",
			"[remote \"origin\"]\n\turl = https://x-access-token:ghs_abc@github.com/o/r\n\tpushurl = \"ssh://git:pw@host:22/r\"\n",
			"[remote \"origin\"]\n\turl = https://x-access-token@github.com/o/r\n\tpushurl = \"ssh://git@host:22/r\"\n"},
		{"no final newline", "[http]\n\textraheader = t", "[http]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, changed := scrubGitConfig([]byte(c.in))
			if string(got) != c.want || !changed {
				t.Errorf("scrubGitConfig(%q) = %q, %v; want %q, true", c.in, got, changed, c.want)
			}
		})
	}
	for _, in := range []string{
		"",
		"[core]\n\tbare = false\n",
		"[remote \"origin\"]\n\turl = https://github.com/o/r\n\turl2 = git@github.com:o/r.git\n\turl3 = https://host:8443/p@x\n",
		"[http]\n\textraheaders = kept\n\textra = kept\n",
		"# extraheader = in a comment stays\n",
	} {
		if got, changed := scrubGitConfig([]byte(in)); changed || string(got) != in {
			t.Errorf("scrubGitConfig(%q) = %q, %v; want it unchanged", in, got, changed)
		}
	}
}

// gitRepo makes dir/.git with a config holding conf.
func gitRepo(t *testing.T, dir, conf string) string {
	t.Helper()
	g := filepath.Join(dir, ".git")
	if err := os.MkdirAll(filepath.Join(g, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(g, "config"), conf)
	return g
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

const credConf = "[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n"

func TestGitConfigsFindsSubmodulesAndCommonDir(t *testing.T) {
	root := t.TempDir()
	g := gitRepo(t, root, credConf)
	writeFile(t, filepath.Join(g, "modules/a/config"), credConf)
	writeFile(t, filepath.Join(g, "modules/a/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(g, "modules/a/modules/b/config"), credConf)
	writeFile(t, filepath.Join(g, "modules/path/with/slash/config"), credConf)
	writeFile(t, filepath.Join(g, "modules/a/objects/config"), credConf) // not a submodule's
	// A linked worktree's git dir, as git makes it.
	wt := filepath.Join(g, "worktrees", "wt")
	writeFile(t, filepath.Join(wt, "commondir"), "../..\n")
	got, err := gitConfigs(wt)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(g, "config"), filepath.Join(g, "modules/a/config"), filepath.Join(g, "modules/a/modules/b/config"), filepath.Join(g, "modules/path/with/slash/config")}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("gitConfigs(%s) = %v; missing %s", wt, got, w)
		}
	}
	if slices.ContainsFunc(got, func(p string) bool { return strings.Contains(p, "objects") }) {
		t.Errorf("gitConfigs listed a file under objects/: %v", got)
	}
}

func TestOutsideGitConfigs(t *testing.T) {
	root := t.TempDir()
	view := hostView{lookup: lookupHostPath} // this test's tree is not masked
	// A work tree that is a subdirectory of a checkout with credentials.
	gitRepo(t, root, credConf)
	sub := filepath.Join(root, "plugins", "p")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := outsideGitConfigs(sub, view)
	if err != nil || len(got) != 1 || got[0].path != filepath.Join(root, ".git", "config") {
		t.Fatalf("a subdirectory of a checkout: %v, %v", got, err)
	}
	if want, _ := scrubGitConfig([]byte(credConf)); string(got[0].clean) != string(want) || bytes.Contains(got[0].clean, []byte("extraheader")) {
		t.Errorf("a subdirectory of a checkout: the copy is %q, want %q", got[0].clean, want)
	}
	// A submodule's work tree, whose .git file leads out of it.
	writeFile(t, filepath.Join(root, ".git/modules/s/config"), credConf)
	subm := filepath.Join(root, "s")
	writeFile(t, filepath.Join(subm, ".git"), "gitdir: ../.git/modules/s\n")
	got, err = outsideGitConfigs(subm, view)
	if err != nil || !slices.ContainsFunc(got, func(c scrubbedConfig) bool { return c.path == filepath.Join(root, ".git/modules/s/config") }) {
		t.Errorf("a submodule: %v, %v", got, err)
	}
	// A tree whose own git dir's commondir leads out of it (a linked
	// worktree's git dir kept in the tree).
	common := t.TempDir()
	writeFile(t, filepath.Join(common, "config"), credConf)
	wt := t.TempDir()
	writeFile(t, filepath.Join(wt, ".git", "commondir"), common+"\n")
	if got, err := outsideGitConfigs(wt, view); err != nil || len(got) != 1 || got[0].path != filepath.Join(common, "config") {
		t.Errorf("a common dir outside the tree: %v, %v", got, err)
	}
	// The tree's own .git is the init's, not the broker's.
	if got, err := outsideGitConfigs(root, view); err != nil || len(got) != 0 {
		t.Errorf("the checkout itself: %v, %v; want none", got, err)
	}
	// Configs without credentials need no cover; nor do unseen ones.
	clean := t.TempDir()
	gitRepo(t, clean, "[core]\n\tbare = false\n")
	if got, err := outsideGitConfigs(filepath.Join(clean, "x"), view); err != nil || len(got) != 0 {
		t.Errorf("no credentials: %v, %v; want none", got, err)
	}
	masked := hostView{lookup: lookupHostPath, masked: []string{root}}
	if got, err := outsideGitConfigs(sub, masked); err != nil || len(got) != 0 {
		t.Errorf("under a mask: %v, %v; want none", got, err)
	}
}

func TestCallerSecrets(t *testing.T) {
	root := t.TempDir()
	temp := filepath.Join(root, "_work", "_temp")
	cmds := filepath.Join(temp, "_runner_file_commands")
	elsewhere := filepath.Join(root, "other-commands")
	for _, d := range []string{cmds, elsewhere} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, ".credentials"), "{}")
	writeFile(t, filepath.Join(root, ".credentials_rsaparams"), "{}")
	home := filepath.Join(root, "github-home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"HOME":                home,
		"RUNNER_TEMP":         temp,
		"GITHUB_ENV":          filepath.Join(cmds, "set_env_1"),
		"GITHUB_STEP_SUMMARY": filepath.Join(elsewhere, "step_summary_1"),
		"GITHUB_PATH":         "relative/path",
	}
	dirs, files := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath})
	if want := []string{home, temp, elsewhere}; !slices.Equal(dirs, want) {
		t.Errorf("dirs = %v; want %v (the file-command dir under RUNNER_TEMP is covered by it)", dirs, want)
	}
	if !slices.Equal(files, []string{filepath.Join(root, ".credentials"), filepath.Join(root, ".credentials_rsaparams")}) {
		t.Errorf("files = %v", files)
	}
	if dirs, files := callerSecrets(func(k string) string { return map[string]string{"HOME": "/"}[k] }, hostView{lookup: lookupHostPath}); dirs != nil || files != nil {
		t.Errorf("outside a runner, HOME=/: %v %v; want nothing", dirs, files)
	}
	// A HOME under a masked directory needs no mask of its own.
	if dirs, _ := callerSecrets(func(k string) string { return map[string]string{"HOME": home}[k] }, hostView{lookup: lookupHostPath, masked: []string{root}}); dirs != nil {
		t.Errorf("a HOME already masked: %v; want nothing", dirs)
	}
}

// TestUnreachableAncestorCountsCallerMasks: for an id-mapped tree,
// bubblewrap makes the tree's mount point inside every directory the run
// replaces with a tmpfs, the caller's own masks (its HOME, RUNNER_TEMP)
// as much as the fixed ones, so a directory there that the sandbox's uid
// may not enter does not stop the run; where bubblewrap binds the tree by
// its host path, it does.
func TestUnreachableAncestorCountsCallerMasks(t *testing.T) {
	home := t.TempDir()
	private := filepath.Join(home, "private")
	tree := filepath.Join(private, "repo")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(private, 0o700); err != nil {
		t.Fatal(err)
	}
	bare := hostView{lookup: lookupHostPath}
	if got := unreachableAncestor(tree, SandboxUID, SandboxUID, false, bare); got != private {
		t.Errorf("no mask over %s: unreachable ancestor %q, want %s", home, got, private)
	}
	masked := hostView{lookup: lookupHostPath, masked: []string{home}}
	if got := unreachableAncestor(tree, SandboxUID, SandboxUID, false, masked); got != "" {
		t.Errorf("%s masked, id-mapped tree: unreachable ancestor %q, want none (bubblewrap makes the mount point in the tmpfs)", home, got)
	}
	if got := unreachableAncestor(tree, SandboxUID, SandboxUID, true, masked); got != private {
		t.Errorf("%s masked, tree bound by its host path: unreachable ancestor %q, want %s", home, got, private)
	}
	if problem, _ := unreachable(tree, "/bin/true", SandboxUID, SandboxUID, false, masked); problem != "" {
		t.Errorf("unreachable: %q, want nothing", problem)
	}
}
