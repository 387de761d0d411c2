package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/pkg/evidence"
	"github.com/vigiles/action/pkg/sandbox/internal/fsx"
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
			"[remote \"origin\"]\n\turl = https://github.com/o/r\n\tpushurl = \"ssh://git@host:22/r\"\n"},
		{"a token as an http URL's user name (https://${TOKEN}@host)",
			"[remote \"origin\"]\n\turl = https://ghp_FAKETOKEN1234567890@github.com/o/r.git\n\turl = HTTP://tok@host/r\n\turl = ssh://git@host/r\n",
			"[remote \"origin\"]\n\turl = https://github.com/o/r.git\n\turl = HTTP://host/r\n\turl = ssh://git@host/r\n"},
		{"no final newline", "[http]\n\textraheader = t", "[http]\n"},
		{"an inline credential helper holds the token",
			"[credential]\n\thelper = \"!f() { echo username=x; echo password=ghp_FAKE; }; f\"\n\tusername = x\n[credential \"https://h\"]helper=store\n[Credential.https://o]\n\tHelper = cache \\\n --timeout=1\n[core]\n\thelper = kept\n",
			"[credential]\n\tusername = x\n[credential \"https://h\"]\n[Credential.https://o]\n[core]\n\thelper = kept\n"},
		{"a byte order mark before the first header",
			"\xef\xbb\xbf[credential]\n\thelper = \"!f() { echo password=BOM; }; f\"\n",
			"\xef\xbb\xbf[credential]\n"},
		{"two headers on one line",
			"[core][credential \"https://h\"]helper = \"!f() { echo password=HDR; }; f\"\n[core]\n",
			"[core][credential \"https://h\"]\n[core]\n"},
		{"a quoted or continued password",
			"[remote \"o\"]\n\turl = https://x:\"QUOTED\"@h/r\n\turl = https://x:CONT\\\nINUED@h/r\n\turl = https://TO\\\nKEN@h/r\n",
			"[remote \"o\"]\n\turl = https://h/r\n\turl = https://h/r\n\turl = https://h/r\n"},
		{"sendemail's password",
			"[sendemail]\n\tsmtpuser = me\n\tsmtpPass = hunter2\n",
			"[sendemail]\n\tsmtpuser = me\n"},
		{"a token in a URL's query",
			"[remote \"origin\"]\n\turl = https://host/r.git?private_token=glpat-FAKE&x=1\n[url \"https://host/?access_token=FAKE\"]\n\tinsteadOf = gh:\n",
			"[remote \"origin\"]\n\turl = https://host/r.git?private_token=&x=1\n[url \"https://host/?access_token=\"]\n\tinsteadOf = gh:\n"},
		{"every token-like query parameter, in any case",
			"[remote \"o\"]\n\turl = https://h/r?oauth_token=A&id_token=B&job_token=C&token=D&auth=E&page=2;password=F&passwd=G&secret=H\n" +
				"\turl = https://h/r?apikey=I&API_KEY=J&key=K&Sig=L&signature=M&sv=2022\n",
			"[remote \"o\"]\n\turl = https://h/r?oauth_token=&id_token=&job_token=&token=&auth=&page=2;password=&passwd=&secret=\n" +
				"\turl = https://h/r?apikey=&API_KEY=&key=&Sig=&signature=&sv=2022\n"},
		{"a token in an insteadOf section's URL",
			"[url \"https://ghp_FAKE@github.com/\"]\n\tinsteadOf = https://github.com/\n",
			"[url \"https://github.com/\"]\n\tinsteadOf = https://github.com/\n"},
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
		"[credential]\n\tusername = x\n\tuseHttpPath = true\n\thelpers = kept\n",
		"[core]\n\thelper = not a credential's\n[remote \"o\"]\n\turl = https://host/r?ref=main&tokens=1\n",
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

// bareRepo makes dir a bare git dir, as git init --bare does, with a
// config holding conf.
func bareRepo(t *testing.T, dir, conf string) string {
	t.Helper()
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(dir, "config"), "[core]\n\tbare = true\n"+conf)
	return dir
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

// A git dir's linked worktrees keep their own config.worktree in it
// (extensions.worktreeConfig): listed from the git dir itself, since the
// worktree may be nowhere the search for checkouts looks. A link among
// them is not followed.
func TestGitConfigsFindsWorktreeConfigs(t *testing.T) {
	for _, g := range []string{gitRepo(t, t.TempDir(), credConf), bareRepo(t, filepath.Join(t.TempDir(), "r.git"), credConf)} {
		writeFile(t, filepath.Join(g, "worktrees", "w1", "config.worktree"), credConf)
		writeFile(t, filepath.Join(g, "worktrees", "w1", "commondir"), "../..\n")
		writeFile(t, filepath.Join(g, "worktrees", "w2", "HEAD"), "ref: refs/heads/x\n") // none of its own
		elsewhere := t.TempDir()
		writeFile(t, filepath.Join(elsewhere, "config.worktree"), credConf)
		if err := os.Symlink(elsewhere, filepath.Join(g, "worktrees", "link")); err != nil {
			t.Fatal(err)
		}
		got, err := gitConfigs(g)
		want := []string{filepath.Join(g, "config"), filepath.Join(g, "worktrees", "w1", "config.worktree")}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("gitConfigs(%s) = %v, %v; want %v", g, got, err, want)
		}
		// Reached from the worktree too, the scan lists it once.
		var s gitScan
		a, _ := s.configs(g)
		b, _ := s.configs(filepath.Join(g, "worktrees", "w1"))
		if n := len(a) + len(b); n != 2 {
			t.Errorf("the git dir, then its worktree: %v then %v; want the two configs once", a, b)
		}
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
	got, err := outsideGitConfigs(sub, nil, view)
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
	got, err = outsideGitConfigs(subm, nil, view)
	if err != nil || !slices.ContainsFunc(got, func(c scrubbedConfig) bool { return c.path == filepath.Join(root, ".git/modules/s/config") }) {
		t.Errorf("a submodule: %v, %v", got, err)
	}
	// A tree whose own git dir's commondir leads out of it (a linked
	// worktree's git dir kept in the tree).
	common := t.TempDir()
	writeFile(t, filepath.Join(common, "config"), credConf)
	wt := t.TempDir()
	writeFile(t, filepath.Join(wt, ".git", "commondir"), common+"\n")
	if got, err := outsideGitConfigs(wt, nil, view); err != nil || len(got) != 1 || got[0].path != filepath.Join(common, "config") {
		t.Errorf("a common dir outside the tree: %v, %v", got, err)
	}
	// The tree's own .git is the init's, not the broker's.
	if got, err := outsideGitConfigs(root, nil, view); err != nil || len(got) != 0 {
		t.Errorf("the checkout itself: %v, %v; want none", got, err)
	}
	// Configs without credentials need no cover; nor do unseen ones.
	clean := t.TempDir()
	gitRepo(t, clean, "[core]\n\tbare = false\n")
	if got, err := outsideGitConfigs(filepath.Join(clean, "x"), nil, view); err != nil || len(got) != 0 {
		t.Errorf("no credentials: %v, %v; want none", got, err)
	}
	masked := hostView{lookup: lookupHostPath, masked: []string{root}}
	if got, err := outsideGitConfigs(sub, nil, masked); err != nil || len(got) != 0 {
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
	for _, n := range runnerSecretFiles {
		writeFile(t, filepath.Join(root, n), "{}")
	}
	diag := filepath.Join(root, "_diag")
	writeFile(t, filepath.Join(diag, "Worker_1.log"), "job message")
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
	dirs, files, held := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, nil)
	if want := []string{home, temp, elsewhere, diag}; !slices.Equal(dirs, want) {
		t.Errorf("dirs = %v; want %v (the file-command dir under RUNNER_TEMP is covered by it)", dirs, want)
	}
	var wantFiles []string
	for _, n := range []string{".credentials", ".credentials_rsaparams", ".credentials_migrated", ".credential_store", ".env"} {
		wantFiles = append(wantFiles, filepath.Join(root, n))
	}
	if !slices.Equal(files, wantFiles) {
		t.Errorf("files = %v; want %v", files, wantFiles)
	}
	if want := slices.Concat([]string{home, temp, cmds, elsewhere, diag}, files); !slices.Equal(held, want) {
		t.Errorf("held = %v; want %v", held, want)
	}
	// / is never masked, however HOME or TMPDIR spell it (a tmpfs over
	// it would hide the host's /etc and /usr: every run failed).
	link := filepath.Join(root, "to-root")
	if err := os.Symlink("/", link); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"/", "//", "/.", "/usr/..", link} {
		env := map[string]string{"HOME": h, "TMPDIR": h}
		if dirs, files, _ := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, nil); dirs != nil || files != nil {
			t.Errorf("outside a runner, HOME=TMPDIR=%s: %v %v; want nothing", h, dirs, files)
		}
	}
	// The caller's TMPDIR, wherever it is, as /tmp is: other tools' files
	// and sockets (an ssh-agent's) are there.
	tmpdir := filepath.Join(root, "caller-tmp")
	if err := os.Mkdir(tmpdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if dirs, _, held := callerSecrets(func(k string) string { return map[string]string{"TMPDIR": tmpdir}[k] }, hostView{lookup: lookupHostPath}, nil, nil); !slices.Equal(dirs, []string{tmpdir}) || !slices.Equal(held, []string{tmpdir}) {
		t.Errorf("TMPDIR=%s: dirs %v held %v; want it masked and held", tmpdir, dirs, held)
	}
	// A HOME under a masked directory needs no mask of its own.
	// It is still held: a work tree must not hold it.
	if dirs, _, held := callerSecrets(func(k string) string { return map[string]string{"HOME": home}[k] }, hostView{lookup: lookupHostPath, masked: []string{root}}, nil, nil); dirs != nil || !slices.Equal(held, []string{home}) {
		t.Errorf("a HOME already masked: %v, held %v; want none, held %s", dirs, held, home)
	}
}

// TestCallerSecretsTakeDotDotAfterTheLink: TMPDIR=/srv/ci/link/.. names,
// for the caller's tools ($TMPDIR/x, which the kernel resolves), the
// parent of where link leads, not /srv/ci: that one is masked, and the
// file a variable names so is hidden there. filepath.Abs cleaned "link/.."
// away as text: the wrong directory was masked and the right one shown.
func TestCallerSecretsTakeDotDotAfterTheLink(t *testing.T) {
	root := t.TempDir()
	real := filepath.Join(root, "real", "tmp")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(real, "netrc"), "machine x password S\n")
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(real, "sub"), link); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{link + "/..", "link/..", "./link/../"} {
		t.Chdir(root)
		env := map[string]string{"TMPDIR": v, "NETRC": v + "/netrc"}
		getenv := func(k string) string { return env[k] }
		if dirs, _, _ := callerSecrets(getenv, hostView{lookup: lookupHostPath}, nil, nil); !slices.Equal(dirs, []string{real}) {
			t.Errorf("TMPDIR=%s: dirs %v; want [%s]", v, dirs, real)
		}
		if got := envCredentialFiles(getenv); !slices.Equal(got, []string{filepath.Join(real, "netrc")}) {
			t.Errorf("NETRC=%s/netrc: %v; want %s/netrc", v, got, real)
		}
		if !envNamesDir(v, real) {
			t.Errorf("envNamesDir(%q, %q) = false", v, real)
		}
	}
}

// A runner whose work folder is elsewhere (config.sh --work) is known by
// its directory, which runnerRoots finds among the caller's ancestors: its
// secret files and logs are hidden as beside a _work.
func TestCallerSecretsOfTheRunnerAbove(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".credentials_rsaparams"), "{}")
	writeFile(t, filepath.Join(root, ".env"), "https_proxy=http://u:p@proxy.test\n")
	writeFile(t, filepath.Join(root, "_diag", "Worker_1.log"), "job message")
	temp := filepath.Join(t.TempDir(), "work", "_temp")
	env := map[string]string{"RUNNER_TEMP": temp}
	dirs, files, _ := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, []string{root, root})
	if want := []string{filepath.Join(root, "_diag")}; !slices.Equal(dirs, want) {
		t.Errorf("dirs = %v; want %v", dirs, want)
	}
	if want := []string{filepath.Join(root, ".credentials_rsaparams"), filepath.Join(root, ".env")}; !slices.Equal(files, want) {
		t.Errorf("files = %v; want %v", files, want)
	}
	if dirs, files, _ := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, nil); dirs != nil || files != nil {
		t.Errorf("under no runner, a work folder not named _work: %v %v; want nothing", dirs, files)
	}
}

// A runner's other workspaces are masked; this job's and the tool cache
// stay in view.
func TestCallerSecretsMasksOtherWorkspaces(t *testing.T) {
	work := filepath.Join(t.TempDir(), "_work")
	for _, d := range []string{"repo/repo", "other/other", "_tool/node", "_temp", "_actions/a"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(work, "_PipelineMapping.json"), "{}") // a file: not a workspace
	env := map[string]string{
		"RUNNER_WORKSPACE":  filepath.Join(work, "repo"),
		"RUNNER_TEMP":       filepath.Join(work, "_temp"),
		"RUNNER_TOOL_CACHE": filepath.Join(work, "_tool"),
	}
	dirs, _, _ := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, nil)
	slices.Sort(dirs)
	want := []string{filepath.Join(work, "_actions"), filepath.Join(work, "_temp"), filepath.Join(work, "other")}
	if !slices.Equal(dirs, want) {
		t.Errorf("dirs = %v; want %v", dirs, want)
	}
}

// gitTreesUnder finds every checkout below the tree, by a .git directory,
// file or link, without entering a .git directory or following a link.
func TestGitTreesUnder(t *testing.T) {
	root := t.TempDir()
	gitRepo(t, root, credConf) // the tree's own: not listed
	gitRepo(t, filepath.Join(root, "a"), credConf)
	gitRepo(t, filepath.Join(root, "a", ".git", "inside"), credConf) // in a git dir: not entered
	writeFile(t, filepath.Join(root, "b", "c", ".git"), "gitdir: ../../.git/modules/c\n")
	writeFile(t, filepath.Join(root, "d", "x"), "")
	if err := os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	gitRepo(t, filepath.Join(elsewhere, "e"), credConf)
	if err := os.Symlink(elsewhere, filepath.Join(root, "d", "out")); err != nil {
		t.Fatal(err)
	}
	got, err := gitTreesUnder(root, "")
	want := []string{filepath.Join(root, "a"), filepath.Join(root, "b", "c")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("gitTreesUnder = %v, %v; want %v", got, err, want)
	}
	if got, err := gitTreesUnder(filepath.Join(root, "d"), ""); err != nil || got != nil {
		t.Errorf("a tree without checkouts: %v, %v; want none", got, err)
	}
	if got, err := gitTreesUnder(root, filepath.Join(root, "b")); err != nil || !slices.Equal(got, want[:1]) {
		t.Errorf("skipping b: %v, %v; want %v", got, err, want[:1])
	}
}

// gitTreesUnder finds bare git dirs too (a mirror, a CI cache of a
// repository): a directory with a HEAD, an objects directory and a config,
// refs or not. It enters them, as any directory, follows no link to one,
// and lists a directory that is both a checkout and a bare git dir once.
func TestGitTreesUnderFindsBareGitDirs(t *testing.T) {
	root := t.TempDir()
	bareRepo(t, root, credConf) // the tree itself: not listed
	mirror := bareRepo(t, filepath.Join(root, "cache", "mirror.git"), credConf)
	bareRepo(t, filepath.Join(mirror, "modules", "m"), credConf) // a submodule's git dir in it
	// Refs dropped (an artifact, a cache that keeps no empty
	// directory), HEAD a link (old gits made one).
	norefs := bareRepo(t, filepath.Join(root, "norefs"), credConf)
	if err := os.RemoveAll(filepath.Join(norefs, "refs")); err != nil {
		t.Fatal(err)
	}
	symhead := bareRepo(t, filepath.Join(root, "symhead"), credConf)
	os.Remove(filepath.Join(symhead, "HEAD"))
	if err := os.Symlink("refs/heads/main", filepath.Join(symhead, "HEAD")); err != nil {
		t.Fatal(err)
	}
	// A checkout in a bare git dir's directory: entered, so found.
	gitRepo(t, filepath.Join(mirror, "x"), credConf)
	// A bare git dir that has a .git too: once.
	both := bareRepo(t, filepath.Join(root, "both"), credConf)
	gitRepo(t, both, credConf)
	// No bare git dir: objects missing, a link or a file; HEAD or
	// config a directory or missing; inside a .git.
	for name, spoil := range map[string]func(d string) error{
		"no-objects": func(d string) error { return os.RemoveAll(filepath.Join(d, "objects")) },
		"objects-file": func(d string) error {
			os.RemoveAll(filepath.Join(d, "objects"))
			return os.WriteFile(filepath.Join(d, "objects"), nil, 0o644)
		},
		"objects-link": func(d string) error {
			os.RemoveAll(filepath.Join(d, "objects"))
			return os.Symlink(t.TempDir(), filepath.Join(d, "objects"))
		},
		"head-dir": func(d string) error {
			os.Remove(filepath.Join(d, "HEAD"))
			return os.Mkdir(filepath.Join(d, "HEAD"), 0o755)
		},
		"config-dir": func(d string) error {
			os.Remove(filepath.Join(d, "config"))
			return os.Mkdir(filepath.Join(d, "config"), 0o755)
		},
		"config-link": func(d string) error {
			os.Remove(filepath.Join(d, "config"))
			return os.Symlink("/etc/hostname", filepath.Join(d, "config"))
		},
		"no-config": func(d string) error { return os.Remove(filepath.Join(d, "config")) },
		"no-head":   func(d string) error { return os.Remove(filepath.Join(d, "HEAD")) },
	} {
		if err := spoil(bareRepo(t, filepath.Join(root, "not", name), credConf)); err != nil {
			t.Fatal(err)
		}
	}
	g := gitRepo(t, filepath.Join(root, "co"), credConf)
	bareRepo(t, filepath.Join(g, "inside.git"), credConf) // in a .git: not entered
	elsewhere := bareRepo(t, filepath.Join(t.TempDir(), "e.git"), credConf)
	if err := os.Symlink(elsewhere, filepath.Join(root, "link.git")); err != nil {
		t.Fatal(err)
	}
	got, err := gitTreesUnder(root, "")
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(root, p)
		rel = append(rel, r)
	}
	want := []string{"both", "cache/mirror.git", "cache/mirror.git/modules/m", "cache/mirror.git/x", "co", "norefs", "symhead"}
	if err != nil || !slices.Equal(rel, want) {
		t.Errorf("gitTreesUnder = %v, %v; want %v", rel, err, want)
	}
	// A bare git dir in a directory of no subdirectories but objects
	// is found too.
	only := filepath.Join(t.TempDir(), "ws")
	writeFile(t, filepath.Join(only, "r.git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(only, "r.git", "config"), credConf)
	if err := os.MkdirAll(filepath.Join(only, "r.git", "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := gitTreesUnder(only, ""); err != nil || !slices.Equal(got, []string{filepath.Join(only, "r.git")}) {
		t.Errorf("a bare git dir of objects alone: %v, %v", got, err)
	}
}

// The configs of checkouts nested in the tree are scrubbed like the
// tree's own, each once, in a tree that is no checkout itself too.
func TestTreeCredentialsOfNestedCheckouts(t *testing.T) {
	root := t.TempDir()
	gitRepo(t, filepath.Join(root, "main"), credConf)
	gitRepo(t, filepath.Join(root, "main", "sub"), credConf)
	writeFile(t, filepath.Join(root, "main", ".git", "modules", "m", "config"), credConf)
	writeFile(t, filepath.Join(root, "main", "m", ".git"), "gitdir: ../.git/modules/m\n")
	gitRepo(t, filepath.Join(root, "clean"), "[core]\n\tbare = false\n")
	got := treeCredentialsUnder(t, root)
	var paths []string
	for _, c := range got {
		paths = append(paths, c.path)
		if bytes.Contains(c.clean, []byte("extraheader")) {
			t.Errorf("%s: the copy still holds the header: %q", c.path, c.clean)
		}
	}
	slices.Sort(paths)
	want := []string{filepath.Join(root, "main/.git/config"), filepath.Join(root, "main/.git/modules/m/config"), filepath.Join(root, "main/sub/.git/config")}
	if !slices.Equal(paths, want) {
		t.Errorf("scrubbed %v; want %v", paths, want)
	}
	if _, err := treeCredentials(root, "", []string{"../x"}); err == nil {
		t.Error("a nested checkout outside the tree was taken")
	}
	// One the broker listed that the init cannot find (a name that did
	// not survive the way there, as one not UTF-8 did not) is refused,
	// never passed over with its token.
	if _, err := treeCredentials(root, "", []string{"main/gone\xff"}); err == nil || !strings.Contains(err.Error(), "is not there now") {
		t.Errorf("a nested checkout that is not there: err %v, want a refusal", err)
	}
}

// The configs of bare git dirs in the tree (a mirror, a cache), and of
// their submodules, are scrubbed like a checkout's; so is the tree's own
// config where the tree is a bare git dir itself.
func TestTreeCredentialsOfBareGitDirs(t *testing.T) {
	root := t.TempDir()
	bareRepo(t, root, credConf)
	mirror := bareRepo(t, filepath.Join(root, "cache", "mirror.git"), credConf)
	writeFile(t, filepath.Join(mirror, "modules", "m", "config"), credConf)
	writeFile(t, filepath.Join(mirror, "worktrees", "w", "config.worktree"), credConf) // a worktree elsewhere
	bareRepo(t, filepath.Join(root, "clean.git"), "")
	both := bareRepo(t, filepath.Join(root, "both"), credConf)
	gitRepo(t, both, credConf)
	got := treeCredentialsUnder(t, root)
	var paths []string
	for _, c := range got {
		paths = append(paths, c.path)
		if bytes.Contains(c.clean, []byte("extraheader")) || !bytes.Contains(c.clean, []byte("[http")) {
			t.Errorf("%s: the copy is %q; want the header out, the rest kept", c.path, c.clean)
		}
	}
	slices.Sort(paths)
	want := []string{filepath.Join(root, "both/.git/config"), filepath.Join(root, "both/config"), filepath.Join(root, "cache/mirror.git/config"), filepath.Join(root, "cache/mirror.git/modules/m/config"), filepath.Join(root, "cache/mirror.git/worktrees/w/config.worktree"), filepath.Join(root, "config")}
	if !slices.Equal(paths, want) {
		t.Errorf("scrubbed %v; want %v", paths, want)
	}
}

// The checkouts found nested in the tree reach the init; one whose git
// config with credentials lies outside the tree and is not covered already
// refuses the run.
func TestNestedGitsFor(t *testing.T) {
	repo := t.TempDir()
	gitRepo(t, repo, credConf)
	tree := filepath.Join(repo, "plugins")
	gitRepo(t, filepath.Join(tree, "own"), credConf)
	// A submodule of the repository above: its config is covered.
	writeFile(t, filepath.Join(repo, ".git/modules/plugins/sub/config"), credConf)
	writeFile(t, filepath.Join(tree, "sub", ".git"), "gitdir: ../../.git/modules/plugins/sub\n")
	view := hostView{lookup: lookupHostPath}
	covered, err := outsideGitConfigs(tree, nil, view)
	if err != nil {
		t.Fatal(err)
	}
	found, err := gitTreesUnder(tree, "")
	if err != nil {
		t.Fatal(err)
	}
	var cfg initConfig
	if err := nestedGitsFor(&cfg, nestedGits{dirs: found}, tree, covered, view); err != nil || !slices.Equal(cfg.NestedGits, []string{"own", "sub"}) {
		t.Errorf("nestedGitsFor: %v, %v; want [own sub]", cfg.NestedGits, err)
	}
	// A linked worktree of a repository elsewhere.
	elsewhere := t.TempDir()
	gitRepo(t, elsewhere, credConf)
	writeFile(t, filepath.Join(elsewhere, ".git/worktrees/w/commondir"), "../..\n")
	writeFile(t, filepath.Join(tree, "w", ".git"), "gitdir: "+filepath.Join(elsewhere, ".git/worktrees/w")+"\n")
	if found, err = gitTreesUnder(tree, ""); err != nil {
		t.Fatal(err)
	}
	err = nestedGitsFor(&initConfig{}, nestedGits{dirs: found}, tree, covered, view)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), filepath.Join(elsewhere, ".git", "config")) {
		t.Errorf("a linked worktree of a repository elsewhere: %v; want a refusal naming its config", err)
	}
	if err := nestedGitsFor(&initConfig{}, nestedGits{err: errors.New("too big")}, tree, covered, view); !errors.Is(err, ErrRefused) {
		t.Errorf("a failed search: %v; want a refusal", err)
	}
}

// A bare git dir in the tree reaches the init with the checkouts; one
// beside the tree, in the workspace the command sees, and one the tree is
// a subdirectory of, are covered by the broker.
func TestBareGitDirsAroundTheTree(t *testing.T) {
	ws := t.TempDir()
	tree := filepath.Join(ws, "main")
	gitRepo(t, tree, credConf)
	bareRepo(t, filepath.Join(tree, "cache", "mirror.git"), credConf)
	beside := bareRepo(t, filepath.Join(ws, "mirrors", "r.git"), credConf)
	view := hostView{lookup: lookupHostPath}
	found, err := gitTreesUnder(tree, "")
	if err != nil {
		t.Fatal(err)
	}
	var cfg initConfig
	if err := nestedGitsFor(&cfg, nestedGits{dirs: found}, tree, nil, view); err != nil || !slices.Equal(cfg.NestedGits, []string{"cache/mirror.git"}) {
		t.Errorf("nestedGitsFor: %v, %v; want [cache/mirror.git]", cfg.NestedGits, err)
	}
	others, err := gitTreesUnder(ws, tree)
	if err != nil || !slices.Equal(others, []string{beside}) {
		t.Fatalf("the workspace beside the tree: %v, %v; want %s", others, err, beside)
	}
	got, err := outsideGitConfigs(tree, others, view)
	if err != nil || len(got) != 1 || got[0].path != filepath.Join(beside, "config") || bytes.Contains(got[0].clean, []byte("extraheader")) {
		t.Errorf("a bare git dir beside the tree: %v, %v; want its config, scrubbed", got, err)
	}
	masked := hostView{lookup: lookupHostPath, masked: []string{filepath.Join(ws, "mirrors")}}
	if got, err := outsideGitConfigs(tree, others, masked); err != nil || len(got) != 0 {
		t.Errorf("a bare git dir under a mask: %v, %v; want none", got, err)
	}
	// A tree in a bare git dir (its hooks, say).
	hooks := filepath.Join(beside, "hooks")
	if err := os.Mkdir(hooks, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := outsideGitConfigs(hooks, nil, view); err != nil || len(got) != 1 || got[0].path != filepath.Join(beside, "config") {
		t.Errorf("a tree in a bare git dir: %v, %v; want its config", got, err)
	}
}

// The CI workspace is searched for checkouts where the command sees it
// and the tree lies in it; else the tree alone.
func TestGitSearchRoot(t *testing.T) {
	ws := t.TempDir()
	tree := filepath.Join(ws, "main")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(k string) string { return map[string]string{"GITHUB_WORKSPACE": v}[k] }
	}
	view := hostView{lookup: lookupHostPath}
	for _, c := range []struct {
		name, ws string
		view     hostView
		want     string
	}{
		{"in view", ws, view, ws},
		{"no workspace", "", view, tree},
		{"relative", "main", view, tree},
		{"masked", ws, hostView{lookup: lookupHostPath, masked: []string{ws}}, tree},
		{"the tree itself", tree, view, tree},
		{"elsewhere", t.TempDir(), view, tree},
	} {
		if got := gitSearchRoot(tree, c.view, env(c.ws)); got != c.want {
			t.Errorf("%s: %s; want %s", c.name, got, c.want)
		}
	}
}

// A tree that is or holds what a run hides is refused: the tree is shown
// whole.
func TestHiddenInTree(t *testing.T) {
	home := t.TempDir()
	for _, c := range []struct {
		tree  string
		held  []string
		files []string
		want  string
	}{
		{tree: home, held: []string{home}, want: home},
		{tree: filepath.Dir(home), held: []string{home}, want: home},
		{tree: filepath.Join(home, "project"), held: []string{home}, want: ""},
		{tree: "/", want: "/run"},
		{tree: "/etc", want: "/etc/shadow"},
		{tree: "/etc/ssh", want: "/etc/ssh"},
		{tree: "/opt/r", files: []string{"/opt/r/.credentials"}, want: "/opt/r/.credentials"},
		{tree: "/opt/r/_work/repo/repo", files: []string{"/opt/r/.credentials"}, want: ""},
	} {
		view := hostView{lookup: lookupHostPath, masked: []string{"/run", "/home"}, held: c.held}
		if got := hiddenInTree(c.tree, view, c.files); got != c.want {
			t.Errorf("hiddenInTree(%s) = %q; want %q", c.tree, got, c.want)
		}
	}
}

// A mount inside the tree is compared with what a run hides by its
// source (device and root), not its path: the caller's HOME bind-mounted
// at TREE/h was shown whole, .ssh and all.
func TestHiddenMountInTree(t *testing.T) {
	home, tree := t.TempDir(), t.TempDir()
	mounts := []fsx.Mount{{Point: "/", Type: "ext4", Dev: "8:1", Root: "/"}}
	at := func(dev, root string) []fsx.Mount {
		return append(slices.Clone(mounts), fsx.Mount{Point: filepath.Join(tree, "m"), Type: "ext4", Dev: dev, Root: root})
	}
	view := hostView{lookup: lookupHostPath, held: []string{home}}
	for _, c := range []struct {
		name      string
		tree      string
		mounts    []fsx.Mount
		hidden    string
		how       string
		anyHidden bool
	}{
		{name: "HOME itself", tree: tree, mounts: at("8:1", home), hidden: home, how: "is"},
		{name: "its .ssh", tree: tree, mounts: at("8:1", home+"/.ssh"), hidden: home, how: "lies in"},
		{name: "the whole file system", tree: tree, mounts: at("8:1", "/"), how: "holds", anyHidden: true},
		{name: "another file system", tree: tree, mounts: at("0:50", home)},
		{name: "a fresh tmpfs", tree: tree, mounts: at("0:50", "/")},
		{name: "elsewhere", tree: tree, mounts: at("8:1", "/opt/cache")},
		{name: "a part of a tree in HOME", tree: home, mounts: append(slices.Clone(mounts), fsx.Mount{Point: home + "/m", Dev: "8:1", Root: home + "/lib"})},
		{name: "the rest of HOME into a tree in it", tree: home + "/proj", mounts: append(slices.Clone(mounts), fsx.Mount{Point: home + "/proj/m", Dev: "8:1", Root: home + "/other"}), hidden: home, how: "lies in"},
		{name: "a part of a tree in HOME, at another place in it", tree: home + "/proj", mounts: append(slices.Clone(mounts), fsx.Mount{Point: home + "/proj/m", Dev: "8:1", Root: home + "/proj/lib"})},
		{name: "HOME by the mount it lies in", tree: tree, mounts: append(at("8:2", "/u"), fsx.Mount{Point: filepath.Dir(home), Dev: "8:2", Root: "/u"}), hidden: home, how: "holds"},
	} {
		point, hidden, how := hiddenMountInTree(c.tree, view, nil, c.mounts)
		if c.how == "" {
			if point != "" {
				t.Errorf("%s: %s shows %s (%s); want nothing hidden", c.name, point, hidden, how)
			}
			continue
		}
		if point != filepath.Join(c.tree, "m") || how != c.how || (!c.anyHidden && hidden != c.hidden) || hidden == "" {
			t.Errorf("%s: %q, %q, %q; want the mount, which %s %s", c.name, point, hidden, how, c.how, c.hidden)
		}
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

// TestGitConfigsOfAHostileGitDir: the repository makes its .git what it
// likes. A commondir that is a FIFO or a link to /dev/zero is no common
// dir (not waited on, not read without end), and a modules directory that
// is a link (to /) is not walked: the broker reads these on the host,
// before any sandbox exists.
func TestGitConfigsOfAHostileGitDir(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(g string) error
	}{
		{"commondir a FIFO", func(g string) error { return unix.Mkfifo(filepath.Join(g, "commondir"), 0o644) }},
		{"commondir a link to /dev/zero", func(g string) error { return os.Symlink("/dev/zero", filepath.Join(g, "commondir")) }},
		{"modules a link to /", func(g string) error { return os.Symlink("/", filepath.Join(g, "modules")) }},
		{"worktrees a link to /", func(g string) error { return os.Symlink("/", filepath.Join(g, "worktrees")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := gitRepo(t, t.TempDir(), credConf)
			if err := tc.make(g); err != nil {
				t.Fatal(err)
			}
			type result struct {
				got []string
				err error
			}
			done := make(chan result, 1)
			go func() {
				got, err := gitConfigs(g)
				done <- result{got, err}
			}()
			select {
			case r := <-done:
				if r.err != nil || !slices.Equal(r.got, []string{filepath.Join(g, "config")}) {
					t.Errorf("gitConfigs = %v, %v; want its own config alone", r.got, r.err)
				}
			case <-time.After(2 * time.Minute): // a bound on a hang, not a measure
				t.Fatal("gitConfigs did not return in 2 minutes (it waits on, or reads without end, what the repository put there)")
			}
		})
	}
}

// TestGitScanReadsEachGitDirOnce: many .git files may name one shared git
// dir, and many hard links one config: a run walks each directory once,
// with one bound on its entries, and reads and keeps each config once.
func TestGitScanReadsEachGitDirOnce(t *testing.T) {
	tree := t.TempDir()
	shared := gitRepo(t, filepath.Join(tree, "shared"), credConf)
	for i := 0; i < 100; i++ {
		writeFile(t, filepath.Join(shared, "modules", fmt.Sprintf("m%03d", i), "config"), credConf)
	}
	var nested []string
	for i := 0; i < 50; i++ {
		rel := fmt.Sprintf("n%02d", i)
		writeFile(t, filepath.Join(tree, rel, ".git"), "gitdir: ../shared/.git\n")
		nested = append(nested, rel)
	}
	var one gitScan
	if _, err := one.configs(shared); err != nil {
		t.Fatal(err)
	}
	var all gitScan
	for _, rel := range nested {
		if _, err := all.configs(gitDir(filepath.Join(tree, rel))); err != nil {
			t.Fatal(err)
		}
	}
	if all.entries != one.entries {
		t.Errorf("50 .git files naming one git dir read %d entries; the git dir alone has %d", all.entries, one.entries)
	}
	got, err := treeCredentials(tree, "", nested)
	if err != nil || len(got) != 101 {
		t.Errorf("treeCredentials: %d configs, %v; want the shared git dir's 101", len(got), err)
	}
	// Hard links of one config: read once; each path's copy counts.
	g := gitRepo(t, t.TempDir(), credConf)
	for i := 0; i < 20; i++ {
		p := filepath.Join(g, "modules", fmt.Sprintf("l%02d", i), "config")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(g, "config"), p); err != nil {
			t.Fatal(err)
		}
	}
	var s gitScan
	cs, err := s.configs(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if _, changed, err := s.scrub(c); err != nil || !changed {
			t.Fatalf("scrub %s: %v %v", c, changed, err)
		}
	}
	clean, _ := scrubGitConfig([]byte(credConf))
	if len(cs) != 21 || len(s.read) != 1 || s.kept != 21*int64(len(clean)) {
		t.Errorf("%d configs, %d read, %d bytes kept; want 21 paths, 1 read, 21 copies counted", len(cs), len(s.read), s.kept)
	}
	// Past maxGitKept in all, the scan refuses.
	big := gitRepo(t, t.TempDir(), credConf+"# "+strings.Repeat("x", 1<<20)+"\n")
	n := maxGitKept/(1<<20) + 2
	for i := 0; i < n; i++ {
		p := filepath.Join(big, "modules", fmt.Sprintf("l%03d", i), "config")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(big, "config"), p); err != nil {
			t.Fatal(err)
		}
	}
	var b gitScan
	cs, err = b.configs(big)
	if err != nil {
		t.Fatal(err)
	}
	var last error
	for _, c := range cs {
		if _, _, err := b.scrub(c); err != nil {
			last = err
			break
		}
	}
	if last == nil || !strings.Contains(last.Error(), "more than vigiles keeps") {
		t.Errorf("%d hard links of a 1 MiB config with credentials: %v; want the bound said", len(cs), last)
	}
}

// TestGitScanKnowsADirectoryByItsPath: a git dir reached first by a path
// outside the tree (a commondir naming it through a link elsewhere) and
// then by its own, in the tree, has its config scrubbed all the same: the
// scan skips a path it walked, not a directory another path led to.
func TestGitScanKnowsADirectoryByItsPath(t *testing.T) {
	tree := t.TempDir()
	gitRepo(t, filepath.Join(tree, "z"), credConf)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(filepath.Join(tree, "z"), alias); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tree, "b", ".git"), "gitdir: ../gd\n")
	writeFile(t, filepath.Join(tree, "gd", "commondir"), filepath.Join(alias, ".git")+"\n")
	got, err := treeCredentials(tree, "", []string{"b", "z"})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(tree, "z", ".git", "config")
	if !slices.ContainsFunc(got, func(s scrubbedConfig) bool { return s.path == want }) {
		t.Errorf("treeCredentials = %v; want %s scrubbed", got, want)
	}
}

// TestTreeCredentialsOfGitDirsNamedByHostPaths: git worktree add and git
// clone --separate-git-dir name a git dir by its absolute path on the
// host; in the tree the init reads (the lower directory), that path is
// read at its place in the tree, and its config scrubbed, as a relative
// one would be.
func TestTreeCredentialsOfGitDirsNamedByHostPaths(t *testing.T) {
	tree := t.TempDir()
	const host = "/nonexistent-host/T"
	bare := filepath.Join(tree, "repo.git")
	writeFile(t, filepath.Join(bare, "config"), credConf)
	writeFile(t, filepath.Join(bare, "worktrees", "wt", "commondir"), "../..\n")
	writeFile(t, filepath.Join(tree, "wt", ".git"), "gitdir: "+host+"/repo.git/worktrees/wt\n")
	sep := filepath.Join(tree, "sep.git")
	writeFile(t, filepath.Join(sep, "config"), credConf)
	if err := os.MkdirAll(filepath.Join(tree, "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(host+"/sep.git", filepath.Join(tree, "linked", ".git")); err != nil {
		t.Fatal(err)
	}
	// A chain of links, absolute and relative, each naming the tree by
	// its host path; and a worktree's own config.worktree.
	store := filepath.Join(tree, "store", "co.git")
	writeFile(t, filepath.Join(store, "config"), credConf)
	for link, target := range map[string]string{"alias": host + "/store/co.git", "chain/.git": host + "/alias", "chain2/.git": "../alias"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tree, link)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(tree, link)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(bare, "worktrees", "wt", "config.worktree"), credConf)
	got, err := treeCredentials(tree, host, []string{"wt", "linked", "chain", "chain2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{filepath.Join(bare, "config"), filepath.Join(sep, "config"), filepath.Join(store, "config"), filepath.Join(bare, "worktrees", "wt", "config.worktree")} {
		if !slices.ContainsFunc(got, func(s scrubbedConfig) bool { return s.path == want }) {
			t.Errorf("treeCredentials = %v; want %s scrubbed", got, want)
		}
	}
}

// bareCanaryConf is what a script leaves in a mirror's config: a token in
// the remote's URL, and actions/checkout's header.
const bareCanaryConf = "[remote \"origin\"]\n\turl = https://x-access-token:vigiles-canary-bare-url@github.com/o/r\n\tmirror = true\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic vigiles-canary-bare-header\n"

// gitInitBare makes dir a bare repository with git itself where it is
// installed (else as git would), its config holding conf too. It says
// whether git made it.
func gitInitBare(t *testing.T, dir, conf string) bool {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and this machine lacks git, whose own bare repository this test reads")
		}
		bareRepo(t, dir, conf)
		return false
	}
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(dir, "config"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(conf); err != nil {
		t.Fatal(err)
	}
	return true
}

// TestBareRepositoryInTheTreeKeepsNoToken: a mirror kept in the work tree
// (a cache of a repository, git clone --mirror) is seen without its
// credentials, by either writes method, as a checkout's config is: `grep
// -r` over the tree finds no token, git still reads the repository, and
// reading it records no write.
func TestBareRepositoryInTheTreeKeepsNoToken(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, map[string]string{"README": "a tree that is no checkout\n"})
	withGit := gitInitBare(t, filepath.Join(dir, "cache", "mirror.git"), bareCanaryConf)
	script := `grep -r vigiles-canary . ; echo grep-done`
	if withGit {
		script += `; git -C cache/mirror.git config --get remote.origin.url; git -C cache/mirror.git rev-parse --is-bare-repository`
	}
	for _, method := range []string{"overlay", "copy"} {
		t.Run(method, func(t *testing.T) {
			res := run(t, Spec{Dir: dir, WritesMethod: method, Command: sh(script)})
			if res.Tier != TierConfined {
				t.Fatalf("tier %s refusal %q error %q stderr %q", res.Tier, res.Refusal, res.Error, res.Stderr)
			}
			if strings.Contains(res.Stdout+res.Stderr, "vigiles-canary") || !strings.Contains(res.Stdout, "grep-done") {
				t.Errorf("a token of the bare repository reached the command:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			if withGit && !strings.Contains(res.Stdout, "https://github.com/o/r\ntrue\n") {
				t.Errorf("git does not read the scrubbed mirror:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			if len(res.Writes) != 0 {
				t.Errorf("reading the mirror recorded writes: %v", res.Writes)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "cache", "mirror.git", "config")); !bytes.Contains(b, []byte("vigiles-canary-bare-url")) {
		t.Errorf("the host's config changed: %q", b)
	}
}

// TestBareRepositoryBesideTheTreeKeepsNoToken: a bare repository in the CI
// workspace beside the tree (GITHUB_WORKSPACE, outside the masked
// directories, as on a self-hosted runner) is seen with its config
// scrubbed, read-only; without the workspace named, it is the host's like
// any other file, which shows the test looks where the command does.
func TestBareRepositoryBesideTheTreeKeepsNoToken(t *testing.T) {
	requireConfinement(t)
	requireRoot(t, "the workspace is made under /var/lib, outside the masked directories")
	ws := tempDirIn(t, "/var/lib", "vigiles-test-ws-", 0o755)
	tree := filepath.Join(ws, "main")
	writeFile(t, filepath.Join(tree, "README"), "the job's checkout\n")
	mirror := filepath.Join(ws, "cache", "r.git")
	gitInitBare(t, mirror, bareCanaryConf)
	script := `cat ` + filepath.Join(mirror, "config") + `; grep -r vigiles-canary ` + ws + `; echo >> ` + filepath.Join(mirror, "config") + ` 2>/dev/null || echo read-only`
	// The control first: the config is in view, token and all.
	t.Setenv("GITHUB_WORKSPACE", "")
	ctl := run(t, Spec{Dir: tree, Command: sh(script)})
	if ctl.Tier != TierConfined || !strings.Contains(ctl.Stdout, "vigiles-canary-bare-url") {
		t.Fatalf("without GITHUB_WORKSPACE the mirror's config was not readable, so this test shows nothing: tier %s\nstdout: %s\nstderr: %s", ctl.Tier, ctl.Stdout, ctl.Stderr)
	}
	t.Setenv("GITHUB_WORKSPACE", ws)
	res := run(t, Spec{Dir: tree, Command: sh(script)})
	if res.Tier != TierConfined {
		t.Fatalf("tier %s refusal %q error %q stderr %q", res.Tier, res.Refusal, res.Error, res.Stderr)
	}
	if strings.Contains(res.Stdout+res.Stderr, "vigiles-canary") {
		t.Errorf("a token of the bare repository beside the tree reached the command:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stdout, "https://github.com/o/r\n") || !strings.Contains(res.Stdout, "read-only") {
		t.Errorf("want the mirror's config seen scrubbed and read-only:\nstdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
}

// treeCredentialsUnder is treeCredentials of root with the checkouts the
// search finds nested in it, as the broker hands them to the init.
func treeCredentialsUnder(t *testing.T, root string) []scrubbedConfig {
	t.Helper()
	nested, err := gitTreesUnder(root, "")
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, n := range nested {
		r, _ := filepath.Rel(root, n)
		rel = append(rel, r)
	}
	got, err := treeCredentials(root, "", rel)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestScrubbedFilesLeftAsShownAreNoWrite: a scrubbed git config and an
// emptied credential file that the command leaves as it was shown them
// (a chmod to the mode they had, their times put back, the same bytes
// written again) are no write, by either writes method. The copy method
// compared such a file with the host's original, credentials and all,
// once its ctime changed, and recorded a modify the command never made.
func TestScrubbedFilesLeftAsShownAreNoWrite(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{"gha-creds-0123456789abcdef.json": `{"token": "TREESECRET"}`, "keep.txt": "kept\n"})
	gitRepo(t, tree, credConf)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(tree, "gha-creds-0123456789abcdef.json"))
	script := `for f in .git/config gha-creds-*.json; do
	  m=$(stat -c %y "$f"); c=$(cat "$f"; echo .); chmod 644 "$f"; touch -r "$f" "$f"
	  printf %s "${c%.}" > "$f"; touch -d "$m" "$f"
	done; exit 0`
	for _, method := range []string{"overlay", "copy"} {
		res := run(t, Spec{Dir: tree, WritesMethod: method, Command: sh(script)})
		if res.Tier != TierConfined || res.Error != "" {
			t.Fatalf("%s: tier %s error %q refusal %q stderr %q", method, res.Tier, res.Error, res.Refusal, res.Stderr)
		}
		if len(res.Writes) != 0 {
			t.Errorf("%s: writes %+v, want none (the files left as they were shown)", method, res.Writes)
		}
	}
	// A real change is still one.
	for _, method := range []string{"overlay", "copy"} {
		res := run(t, Spec{Dir: tree, WritesMethod: method, Command: sh(`m=$(stat -c %y .git/config); sed -i 's/http/HTTP/' .git/config; touch -d "$m" .git/config`)})
		if len(res.Writes) != 1 || res.Writes[0].Path != ".git/config" || res.Writes[0].Op != evidence.OpModify {
			t.Errorf("%s: writes %+v, want the modify of .git/config", method, res.Writes)
		}
	}
}

// TestCallerSecretsOfXDGDirs: the caller's XDG base directories and
// password store are masked and held wherever they are, but never a
// system directory, nor one that holds one, nor, for these, one in a
// system directory: a tmpfs over /usr, /etc, /usr/share or /usr/bin (HOME
// or XDG_DATA_HOME=/bin, with a merged /usr) would break the run, and
// they hold none of the caller's own files.
func TestCallerSecretsOfXDGDirs(t *testing.T) {
	root := t.TempDir()
	env := map[string]string{}
	var want []string
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "PASSWORD_STORE_DIR"} {
		d := filepath.Join(root, strings.ToLower(k))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		env[k] = d
		want = append(want, d)
	}
	dirs, files, held := callerSecrets(func(k string) string { return env[k] }, hostView{lookup: lookupHostPath}, nil, nil)
	if !slices.Equal(dirs, want) || files != nil || !slices.Equal(held, want) {
		t.Errorf("dirs %v files %v held %v; want %v masked and held", dirs, files, held, want)
	}
	for _, v := range []string{"/", "/usr", "/etc", "/bin", "/usr/bin", "/usr/share", "/usr/local/share", "/etc/xdg", "/lib/..", "/usr/share/..", "/opt/.."} {
		if _, err := os.Stat(v); err != nil {
			continue
		}
		for _, k := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSWORD_STORE_DIR"} {
			if dirs, _, held := callerSecrets(func(n string) string { return map[string]string{k: v}[n] }, hostView{lookup: lookupHostPath}, nil, nil); dirs != nil || held != nil {
				t.Errorf("%s=%s: dirs %v held %v; want none (a system directory)", k, v, dirs, held)
			}
		}
	}
	// HOME and TMPDIR too are never a system directory or one that
	// holds one (a system user's HOME=/bin).
	for _, v := range []string{"/usr", "/etc", "/bin", "/usr/bin"} {
		if _, err := os.Stat(v); err != nil {
			continue
		}
		if dirs, _, held := callerSecrets(func(n string) string { return map[string]string{"HOME": v, "TMPDIR": v}[n] }, hostView{lookup: lookupHostPath}, nil, nil); dirs != nil || held != nil {
			t.Errorf("HOME=TMPDIR=%s: dirs %v held %v; want none (a system directory)", v, dirs, held)
		}
	}
}

// TestCallerSecretsOfOpt: a variable that names /opt itself (a service
// user's HOME=/opt, its ~/.ssh and ~/.config/gh there) or a directory in
// it says the caller's own files are there: it is masked, as it was
// before system directories were passed over. /opt was passed over, its
// HOME's keys readable.
func TestCallerSecretsOfOpt(t *testing.T) {
	requireOpt(t)
	opt, err := filepath.EvalSymlinks("/opt")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"HOME", "TMPDIR", "GNUPGHOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "PASSWORD_STORE_DIR"} {
		for _, v := range []string{"/opt", "/opt/", "/opt/../opt"} {
			if dirs, _, held := callerSecrets(func(n string) string { return map[string]string{k: v}[n] }, hostView{lookup: lookupHostPath}, nil, nil); !slices.Equal(dirs, []string{opt}) || !slices.Equal(held, []string{opt}) {
				t.Errorf("%s=%s: dirs %v held %v; want %s masked", k, v, dirs, held, opt)
			}
		}
	}
}

// TestCallerSecretsOnAHostedRunner: in a GitHub-hosted runner's usual
// environment (HOME=/home/runner, XDG_CONFIG_HOME=/home/runner/.config as
// the images set it, XDG_RUNTIME_DIR=/run/user/1001, the tool cache at
// /opt/hostedtoolcache, VS Code's GIT_ASKPASS in HOME, SSH_ASKPASS of
// openssh) and in a container job's (HOME=/github/home, the tool cache at
// /__t, GIT_ASKPASS=echo), the caller's directories are masked and held,
// and nothing the masks make hides the tool cache's programs or
// /usr/local/bin, which the hooks run from the caller's PATH. Each layout
// is built under a temporary root, with and without the fixed masks over
// its /home, /run, /__w and /github: callerSecrets must keep the tools in
// view by itself too.
func TestCallerSecretsOnAHostedRunner(t *testing.T) {
	for _, c := range []struct {
		name string
		// env's values are paths under the root; host's are taken as
		// they are.
		env, host map[string]string
		askpass   bool     // env's GIT_ASKPASS is a script of the caller's
		fixed     []string // the fixed masks over the layout (maskedDirs, /run)
		held      []string // held, at least
		dirs      []string // masked, without the fixed masks
	}{
		{"hosted runner",
			map[string]string{
				"HOME": "home/runner", "XDG_CONFIG_HOME": "home/runner/.config", "XDG_RUNTIME_DIR": "run/user/1001",
				"RUNNER_TOOL_CACHE": "opt/hostedtoolcache", "AGENT_TOOLSDIRECTORY": "opt/hostedtoolcache",
				"RUNNER_WORKSPACE": "home/runner/work/repo", "RUNNER_TEMP": "home/runner/work/_temp",
				"GITHUB_ENV":  "home/runner/work/_temp/_runner_file_commands/set_env_1",
				"GIT_ASKPASS": "home/runner/.vscode-server/bin/abc/extensions/git/dist/askpass.sh",
				"PIPX_HOME":   "opt/pipx",
			},
			map[string]string{"SSH_ASKPASS": "/usr/lib/openssh/ssh-askpass"},
			true,
			[]string{"home", "run"},
			[]string{"home/runner", "home/runner/.config", "run/user/1001", "home/runner/work/_temp", "home/runner/work/_actions"},
			[]string{"home/runner", "run/user/1001"}},
		{"container job",
			map[string]string{
				"HOME": "github/home", "RUNNER_TOOL_CACHE": "__t",
				"RUNNER_WORKSPACE": "__w/repo", "RUNNER_TEMP": "__w/_temp",
				"GITHUB_ENV": "__w/_temp/_runner_file_commands/set_env_1",
			},
			// echo, which CI sets so that no prompt waits, is found on
			// PATH in /usr/bin or /bin: the system's.
			map[string]string{"SSH_ASKPASS": "/usr/lib/openssh/ssh-askpass", "GIT_ASKPASS": "echo"},
			false,
			[]string{"__w", "github"},
			[]string{"github/home", "__w/_temp", "__w/_actions", "__w/_tool"},
			[]string{"github/home", "__w/_temp", "__w/_actions", "__w/_tool"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			at := func(p string) string { return filepath.Join(root, p) }
			tools := at(c.env["RUNNER_TOOL_CACHE"])
			programs := []string{
				filepath.Join(tools, "node/20.0.0/x64/bin/node"),
				filepath.Join(tools, "Python/3.12.0/x64/bin/python3"),
				at("usr/local/bin/node"),
			}
			env := map[string]string{}
			for k, v := range c.env {
				env[k] = at(v)
			}
			for k, v := range c.host {
				env[k] = v
			}
			var path []string
			for _, p := range programs {
				path = append(path, filepath.Dir(p))
			}
			env["PATH"] = strings.Join(append(path, "/usr/bin", "/bin"), ":")
			for _, d := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "RUNNER_WORKSPACE", "RUNNER_TEMP", "PIPX_HOME"} {
				if v := c.env[d]; v != "" {
					if err := os.MkdirAll(at(v), 0o755); err != nil {
						t.Fatal(err)
					}
				}
			}
			for _, d := range append(c.held, c.dirs...) {
				if err := os.MkdirAll(at(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			scripts := append(programs, env["GITHUB_ENV"])
			if c.askpass {
				scripts = append(scripts, env["GIT_ASKPASS"])
			}
			for _, f := range scripts {
				writeFile(t, f, "#!/bin/sh\n")
				if err := os.Chmod(f, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			getenv := func(k string) string { return env[k] }
			creds := envCredentialFiles(getenv)
			for _, fixed := range []bool{true, false} {
				v := hostView{lookup: lookupHostPath}
				if fixed {
					for _, d := range c.fixed {
						v.masked = append(v.masked, at(d))
					}
				}
				dirs, files, held := callerSecrets(getenv, v, nil, nil)
				for _, h := range c.held {
					if !slices.Contains(held, at(h)) {
						t.Errorf("fixed masks %v: %s is not held (held %v)", fixed, at(h), held)
					}
				}
				if !fixed {
					var want []string
					for _, d := range c.dirs {
						want = append(want, at(d))
					}
					if !slices.Equal(dirs, want) {
						t.Errorf("no fixed masks: dirs %v; want %v", dirs, want)
					}
				}
				if files != nil {
					t.Errorf("fixed masks %v: files %v; want none (no runner's own files)", fixed, files)
				}
				v.masked = append(v.masked, dirs...)
				for _, p := range append(programs, tools) {
					if !v.reads(p, 0o1) {
						t.Errorf("fixed masks %v: %s is masked (dirs %v)", fixed, p, dirs)
					}
				}
				// VS Code's askpass script is named, and hidden with
				// HOME: the broker covers no file the masks hide.
				if a := env["GIT_ASKPASS"]; c.askpass && v.reads(a, 0o4) {
					t.Errorf("fixed masks %v: %s is in view", fixed, a)
				}
			}
			var want []string
			if c.askpass {
				want = []string{env["GIT_ASKPASS"]}
			}
			if !slices.Equal(creds, want) {
				t.Errorf("credential files %v; want %v (openssh's ssh-askpass and echo are the system's)", creds, want)
			}
		})
	}
}

// requireOpt fails in CI and skips elsewhere when this host has no /opt
// directory (or link to one): Debian, which CI runs on, always has one.
func requireOpt(t testing.TB) {
	t.Helper()
	fi, err := os.Stat("/opt")
	if err == nil && fi.IsDir() {
		return
	}
	if err == nil {
		err = errors.New("not a directory")
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI runs on Debian, which has /opt, but /opt: %v", err)
	}
	t.Skipf("this host has no /opt directory (%v)", err)
}

// TestSystemDirsBut: the system directories are the given ones but the
// one left out, each also where its link leads, and the one left out is
// left out where it leads too (/opt -> /data/opt: a caller's XDG_CONFIG_HOME
// in /data/opt/ci is its own, as one in /opt/ci is).
func TestSystemDirsBut(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"usr/lib", "data/opt"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("usr/lib", filepath.Join(root, "lib")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("data/opt", filepath.Join(root, "opt")); err != nil {
		t.Fatal(err)
	}
	usr, lib, opt := filepath.Join(root, "usr"), filepath.Join(root, "lib"), filepath.Join(root, "opt")
	got := systemDirsBut([]string{usr, lib, opt}, opt)
	if want := []string{usr, lib, filepath.Join(root, "usr/lib")}; !slices.Equal(got, want) {
		t.Errorf("systemDirsBut = %v; want %v", got, want)
	}
}

// TestAskpassProgramInUsrLocal: an askpass script in /usr/local (its
// bin, sbin, lib), where people put their own scripts and the package
// manager none, is the caller's, not the system's: it is hidden. It was
// passed over as one in /usr.
func TestAskpassProgramInUsrLocal(t *testing.T) {
	requireRoot(t, "a script is put in /usr/local")
	dir := tempDirIn(t, "/usr/local", "vigiles-askpass-", 0o755)
	prog := filepath.Join(dir, "askpass.sh")
	writeFile(t, prog, "#!/bin/sh\necho TOKEN\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{prog, "askpass.sh", "/usr/local/../local/" + filepath.Base(dir) + "/askpass.sh"} {
		if got := askpassProgram(v, "/usr/bin:"+dir); got != prog {
			t.Errorf("askpassProgram(%q) = %q; want %q", v, got, prog)
		}
	}
	if got := askpassProgram("/usr/bin/true", "/usr/bin"); got != "" {
		t.Errorf("askpassProgram(/usr/bin/true) = %q; want none (the system's)", got)
	}
}

// TestAskpassProgram: an askpass program is named by its path or by its
// name on the caller's PATH, with its links resolved; one of the system's
// (GIT_ASKPASS=/bin/true, =echo, ssh-askpass) is none.
func TestAskpassProgram(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "askpass.sh")
	writeFile(t, prog, "#!/bin/sh\necho TOKEN\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "askpass-link")
	if err := os.Symlink(prog, link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "not-exec"), "x")
	path := "relative:/nonexistent:/usr/bin:/bin:" + dir
	for _, c := range []struct{ v, want string }{
		{prog, prog},
		{link, prog},
		{"askpass.sh", prog},
		{"askpass-link", prog},
		{"not-exec", ""},
		{"", ""},
		{"/nonexistent/askpass", ""},
		{"/bin/true", ""},
		{"/usr/bin/true", ""},
		{"true", ""},
		{"echo", ""},
	} {
		if got := askpassProgram(c.v, path); got != c.want {
			t.Errorf("askpassProgram(%q) = %q; want %q", c.v, got, c.want)
		}
	}
	for _, k := range []string{"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS"} {
		env := map[string]string{k: "askpass.sh", "PATH": path}
		if got := envCredentialFiles(func(n string) string { return env[n] }); !slices.Equal(got, []string{prog}) {
			t.Errorf("%s: envCredentialFiles = %v; want %v", k, got, []string{prog})
		}
	}
}

// TestDotenvFilesReadAsEmpty: the dotenv files of the work tree (a
// developer's .env, one a CI step wrote from the job's secrets) read as
// empty, by either writes method, and leaving them so is no write; a
// template committed for others to copy reads as it is. A hook that
// copied a .env into its env file put the keys in the report, and in the
// baseline a pull request commits.
func TestDotenvFilesReadAsEmpty(t *testing.T) {
	requireConfinement(t)
	tree := makeTree(t, map[string]string{
		".env": "API_KEY=ROOTSECRET\n", ".env.local": "X=LOCALSECRET\n", ".envrc": "export Y=RCSECRET\n",
		".env.example": "API_KEY=changeme\n", "src/main.go": "package main\n",
		"apps/web/.env.production": "Z=PRODSECRET\n", "apps/web/src/x.ts": "\n", // a directory with a subdirectory: listed
		// A directory without one is listed too: its .env.staging,
		// which the walk once left out there, asking such a directory
		// for five names alone.
		"apps/leaf/.env": "W=LEAFSECRET\n", "apps/leaf/.envrc": "V=LEAFRCSECRET\n", "apps/leaf/.env.local": "U=LEAFLOCALSECRET\n",
		"apps/leaf/.env.staging": "R=LEAFSTAGINGSECRET\n",
		"config/.env.production": "T=CONFIGSECRET\n", "secrets/prod.txt": "S=LINKEDSECRET\n",
	})
	// A link is the file it leads to, in the tree.
	if err := os.MkdirAll(filepath.Join(tree, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secrets/prod.txt", filepath.Join(tree, "deploy", ".env")); err != nil {
		t.Fatal(err)
	}
	script := `cat .env .env.local .envrc .env.example apps/web/.env.production apps/leaf/.env apps/leaf/.envrc apps/leaf/.env.local apps/leaf/.env.staging config/.env.production deploy/.env; ls -a . | tr '\n' ' '`
	for _, method := range []string{"overlay", "copy"} {
		res := run(t, Spec{Dir: tree, WritesMethod: method, Command: sh(script)})
		if res.Tier != TierConfined || res.Error != "" || res.ExitCode != 0 {
			t.Fatalf("%s: tier %s exit %d error %q refusal %q stderr %q", method, res.Tier, res.ExitCode, res.Error, res.Refusal, res.Stderr)
		}
		if strings.Contains(res.Stdout, "SECRET") {
			t.Errorf("%s: the command read a dotenv file's keys: %q", method, res.Stdout)
		}
		if !strings.Contains(res.Stdout, "API_KEY=changeme") || !strings.Contains(res.Stdout, ".env ") {
			t.Errorf("%s: stdout %q; want the template as it is, and the emptied files there", method, res.Stdout)
		}
		if len(res.Writes) != 0 {
			t.Errorf("%s: writes %+v, want none", method, res.Writes)
		}
	}
}

// TestScanTreeAsksWhatItCannotList: the walk lists every directory, a
// leaf's too, so every dotenv name is found there; a directory its reader
// may search but not list (mode 0711), whose files anyone who knows their
// names may open, is asked for its .git and the commonest dotenv names by
// name. As root, which lists every directory, the test runs itself as
// nobody.
func TestScanTreeAsksWhatItCannotList(t *testing.T) {
	if os.Geteuid() == 0 {
		asNobody(t, "TestScanTreeAsksWhatItCannotList")
		return
	}
	root := t.TempDir()
	for _, f := range []string{"leaf/.env.staging", "leaf/x.js", "locked/.env", "locked/.env.local", "locked/.env.staging", "locked/.git", "locked/sub/.env"} {
		writeFile(t, filepath.Join(root, f), "K=SECRET\n")
	}
	if err := os.Chmod(filepath.Join(root, "locked"), 0o311); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	gits, dotenv, err := scanTree(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{root + "/locked"}; !slices.Equal(gits, want) {
		t.Errorf("checkouts %v, want %v", gits, want)
	}
	// What the directory holds by other names is out of the walk's
	// sight as it is out of the command's, but for a guess.
	if want := []string{root + "/leaf/.env.staging", root + "/locked/.env", root + "/locked/.env.local"}; !slices.Equal(dotenv, want) {
		t.Errorf("dotenv files %v, want %v", dotenv, want)
	}
}

func TestIsDotenv(t *testing.T) {
	for name, want := range map[string]bool{
		".env": true, ".envrc": true, ".env.local": true, ".env.production.local": true, ".env.test": true,
		".env.example": false, ".env.SAMPLE": false, ".env.template": false, ".env.dist": false, ".env.defaults": false,
		".env.": false, "env": false, ".environment": false, "x.env": false,
	} {
		if got := isDotenv(name); got != want {
			t.Errorf("isDotenv(%q) = %v, want %v", name, got, want)
		}
	}
}
