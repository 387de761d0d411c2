package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

func TestBwrapArgsGolden(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    plan
	}{
		{"default", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/home/runner/work/repo/repo", InitArgs: []string{initArg},
			MaskFiles: []string{"/etc/shadow", "/etc/ssh/ssh_host_ed25519_key"}}},
		// A tree below a checkout whose config holds credentials.
		{"data-files", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/src/repo/plugins/p", InitArgs: []string{initArg},
			DataFiles: []string{"/src/repo/.git/config", "/src/repo/.git/modules/s/config"}}},
		// A root caller's root-owned tree: the init mounts it, id-mapped.
		{"tree-by-fd", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/src/repo", TreeByFD: true, InitArgs: []string{initArg}}},
		// A runner's tool caches, one in a self-hosted runner's HOME
		// (masked, and shown through the bind from the host's view).
		{"tool-caches", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/home/runner/actions-runner/_work/repo/repo", InitArgs: []string{initArg},
			MaskDirs: []string{"/home/runner"}, ToolCaches: []string{"/opt/hostedtoolcache", "/home/runner/actions-runner/_work/_tool"}}},
		{"strict-fs", plan{Bwrap: "/usr/bin/bwrap", Workdir: "/src/repo", StrictFS: true, InitArgs: []string{initArg},
			Env: []string{"GORACE=atexit_sleep_ms=0"}, // as race builds set it
			Lookup: func(d string) (string, string) {
				switch d {
				case "/lib32", "/libx32", "/opt":
					return "", ""
				case "/bin", "/sbin", "/lib", "/lib64":
					return "link", "usr" + d
				}
				return "dir", ""
			}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			golden(t, "bwrap-"+tt.name+".golden", strings.Join(bwrapArgs(tt.p), "\n")+"\n")
		})
	}
}

func TestHookEnvAllowlist(t *testing.T) {
	host := map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "GITHUB_TOKEN": "ghs_secret", "HOME": "/root"}
	getenv := func(k string) (string, bool) { v, ok := host[k]; return v, ok }
	// Only the locale categories pass, each with a locale's name: LC_*
	// is a known way to carry other values (ssh's AcceptEnv LC_*).
	environ := []string{"LC_ALL=C", "GITHUB_TOKEN=ghs_secret", "AWS_SECRET_ACCESS_KEY=x", "LC_GH_TOKEN=s3cr3t",
		"LC_X=AKIAFOO", "LC_CTYPE=AKIAIOSFODNN7EXAMPLE", "LC_TIME=en_GB.UTF-8", "LC_PAPER=de_DE@euro", "LC_MESSAGES=$(curl x)", "LC_NAME="}
	got := hookEnv(getenv, environ, []string{"FOO=bar", "LANG=de_DE.UTF-8"})
	want := []string{"HOME=/root", "LANG=de_DE.UTF-8", "LC_ALL=C", "LC_NAME=", "LC_PAPER=de_DE@euro", "LC_TIME=en_GB.UTF-8", "PATH=/usr/bin:/bin", "TMPDIR=/tmp", "FOO=bar"}
	if d := cmp.Diff(sorted(want), got); d != "" {
		t.Errorf("hookEnv (-want +got):\n%s", d)
	}
}

// TestHookEnvFollowsTheCallersShell: USER and LOGNAME are root's where
// the caller has them and absent where it has not (a container started as
// root), SHELL passes where /etc/shells lists it and SHLVL as a number, as
// a hook under Claude Code gets them from the environment Claude Code was
// started in: a hook cannot tell vigiles by USER=root that no session of
// that caller has, nor by a SHELL or SHLVL its login has and it lacks.
func TestHookEnvFollowsTheCallersShell(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "shells"), "# /etc/shells: valid login shells\n/bin/sh\n/usr/bin/zsh\n")
	defer func(f string) { shellsFile = f }(shellsFile)
	shellsFile = filepath.Join(dir, "shells")
	for _, tt := range []struct {
		host map[string]string
		want []string
	}{
		{map[string]string{}, nil},
		{map[string]string{"USER": "alice", "LOGNAME": "alice", "SHELL": "/usr/bin/zsh", "SHLVL": "2"},
			[]string{"LOGNAME=root", "SHELL=/usr/bin/zsh", "SHLVL=2", "USER=root"}},
		{map[string]string{"USER": "", "SHELL": "/bin/sh", "SHLVL": "1"}, []string{"SHELL=/bin/sh", "SHLVL=1", "USER=root"}},
		// Not a listed shell, not a level: a value that carries anything else stays out.
		{map[string]string{"LOGNAME": "runner", "SHELL": "/tmp/x", "SHLVL": "ghp_x"}, []string{"LOGNAME=root"}},
		{map[string]string{"SHELL": "/bin/sh\n/usr/bin/zsh", "SHLVL": "12345"}, nil},
		{map[string]string{"SHELL": "sh", "SHLVL": "-1"}, nil},
	} {
		getenv := func(k string) (string, bool) { v, ok := tt.host[k]; return v, ok }
		var got []string
		for _, kv := range hookEnv(getenv, nil, nil) {
			if k, _, _ := strings.Cut(kv, "="); k == "USER" || k == "LOGNAME" || k == "SHELL" || k == "SHLVL" {
				got = append(got, kv)
			}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("hookEnv of %v (-want +got):\n%s", tt.host, d)
		}
	}
}

// TERM passes only with the name of a terminfo entry the host has: a
// value someone put a token or a command in stays out.
func TestHookEnvTerm(t *testing.T) {
	dir := t.TempDir()
	token := "ghp_" + strings.Repeat("a", 36)
	for _, name := range []string{"xterm-256color", "screen.xterm-256color", "dumb", "rxvt-unicode+italics", "vt100"} {
		writeFile(t, filepath.Join(dir, name[:1], name), "entry")
	}
	if err := os.MkdirAll(filepath.Join(dir, "g", token), 0o755); err != nil { // a directory is no entry
		t.Fatal(err)
	}
	defer func(d []string) { terminfoDirs = d }(terminfoDirs)
	terminfoDirs = []string{filepath.Join(dir, "none"), dir}
	for v, pass := range map[string]bool{
		"xterm-256color": true, "screen.xterm-256color": true, "dumb": true, "rxvt-unicode+italics": true, "vt100": true,
		"": false, token: false, "xterm-unknown": false, "$(curl x)": false, "xterm token": false, "../x/xterm": false, "-x": false,
	} {
		getenv := func(k string) (string, bool) { return v, k == "TERM" }
		has := slices.Contains(hookEnv(getenv, nil, nil), "TERM="+v)
		if has != pass {
			t.Errorf("TERM=%q passed %v, want %v", v, has, pass)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// docs/security.md names every directory a --strict-fs run shows (the
// /lib variants as /lib*), where it says what the flag narrows a run to:
// it once left /opt out, and a key under /opt, which the run shows, read
// as out of reach.
func TestSecurityDocNamesStrictFSDirs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatalf("reading docs/security.md: %v", err)
	}
	const lead = "`--strict-fs` narrows this to "
	i := strings.Index(string(doc), lead)
	if i < 0 {
		t.Fatalf("docs/security.md has no %q", lead)
	}
	sentence, _, _ := strings.Cut(string(doc[i+len(lead):]), ".")
	for _, d := range strictFSDirs {
		if strings.HasPrefix(d, "/lib") {
			d = "/lib*"
		}
		if !strings.Contains(sentence, "`"+d+"`") {
			t.Errorf("docs/security.md's %q… does not name `%s`, which a --strict-fs run shows: %q", lead, d, sentence)
		}
	}
}

// TestMaskedDirsAtLinks: where maskedDirs entries are links (ostree's
// /home -> var/home, /root -> var/roothome, /mnt -> var/mnt, /srv ->
// var/srv, /var/run -> ../run, /media -> run/media, /var/spool/mail ->
// ../mail), each is masked at the directory it leads to, once; never at
// /, a system directory, /var, or in /tmp or /run; a link to what is not
// a directory, or that cannot be resolved, is not masked. bwrapArgs
// makes those masks, after the root's bind.
func TestMaskedDirsAtLinks(t *testing.T) {
	links := map[string]string{
		"/home": "/var/home", "/root": "/var/roothome", "/mnt": "/var/mnt", "/srv": "/var/srv",
		"/var/run": "/run", "/media": "/run/media", "/var/spool/mail": "/var/mail",
		"/__w": "/", "/github": "/usr", "/var/tmp": "/var", "/var/crash": "/var/lib/crashfile",
	}
	lookup := func(d string) (string, string) {
		if _, ok := links[d]; ok {
			return "link", "unused"
		}
		if d == "/var/lib/crashfile" || d == "/var/log" {
			return "", ""
		}
		return "dir", ""
	}
	resolve := func(d string) (string, error) {
		if r, ok := links[d]; ok {
			return r, nil
		}
		return d, nil
	}
	got := maskedDirsAt(lookup, resolve)
	want := []string{"/var/home", "/var/roothome", "/var/mnt", "/var/srv", "/var/mail"}
	for _, d := range maskedDirs {
		if _, ok := links[d]; !ok && d != "/var/log" && d != "/var/mail" {
			want = append(want, d)
		}
	}
	slices.Sort(want)
	if d := cmp.Diff(want, slices.Sorted(slices.Values(got))); d != "" {
		t.Errorf("maskedDirsAt (-want +got):\n%s", d)
	}
	args := bwrapArgs(plan{Bwrap: "/usr/bin/bwrap", Workdir: "/var/home/user/proj", InitArgs: []string{initArg}, Lookup: lookup, Resolve: resolve,
		MaskDirs: []string{"/var/home/user"}})
	joined := strings.Join(args, " ")
	for _, d := range got {
		if !strings.Contains(joined, " --tmpfs "+d+" ") {
			t.Errorf("bwrapArgs makes no mask at %s: %s", d, joined)
		}
	}
	for _, d := range []string{"/home", "/root", "/mnt", "/srv", "/var", "/usr", "/run/media", "/var/run"} {
		if strings.Contains(joined, " --tmpfs "+d+" ") {
			t.Errorf("bwrapArgs masks %s: %s", d, joined)
		}
	}
	if i, j := slices.Index(args, "/var/home"), slices.Index(args, "/var/home/user"); i < 0 || j < i {
		t.Errorf("the caller's HOME is not masked after /var/home, where it lies: %s", joined)
	}
	if i := slices.Index(args, "--dir"); !slices.Contains(args[i:], "/var/home/user/proj") {
		t.Errorf("the tree's mount point is not made in the masks: %s", joined)
	}
}

// TestMaskedDirsAtHostLinks: on real links (maskedDirs moved into a temp
// dir: in /var/tmp, as one in /tmp is never masked), lookupHostPath and
// the host's resolution find where each leads: a relative link, an
// absolute one, a chain of two (once); a dangling one and one to / are
// not masked; Hidden names both the links and where they lead. A
// directory whose parent is a link is masked at its own
// path, unresolved, as before (its lstat alone): bubblewrap resolves a
// relative parent link in its root; an absolute one fails the run.
func TestMaskedDirsAtHostLinks(t *testing.T) {
	d, err := os.MkdirTemp("/var/tmp", "vigiles-maskedlinks-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	for _, p := range []string{"var/home", "var/srv", "data/mnt", "plain"} {
		if err := os.MkdirAll(filepath.Join(d, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{
		"home": "var/home", "mnt": filepath.Join(d, "data/mnt"), "srv2": "srv", "srv": "var/srv",
		"dangling": "var/nothing", "root": "/", "viadata": "data",
	} {
		if err := os.Symlink(to, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	old := maskedDirs
	t.Cleanup(func() { maskedDirs = old })
	maskedDirs = nil
	for _, p := range []string{"home", "mnt", "srv2", "srv", "dangling", "root", "plain", "viadata/mnt", "missing"} {
		maskedDirs = append(maskedDirs, filepath.Join(d, p))
	}
	got := maskedDirsAt(lookupHostPath, filepath.EvalSymlinks)
	want := []string{filepath.Join(d, "var/home"), filepath.Join(d, "data/mnt"), filepath.Join(d, "var/srv"), filepath.Join(d, "plain"), filepath.Join(d, "viadata/mnt")}
	if !slices.Equal(got, want) {
		t.Errorf("maskedDirsAt = %q, want %q", got, want)
	}
	// Hidden, which the runner's causes of a hook's error look no path
	// up in (pkg/runner's hiddenFromHook), has the links and where they
	// lead.
	hidden := Hidden()
	for _, p := range slices.Concat(maskedDirs, want) {
		if !slices.Contains(hidden, p) {
			t.Errorf("Hidden() = %q lacks %s", hidden, p)
		}
	}
}

// TestMountPointOf: the command's HOME is mounted at /root, or where its
// links lead (ostree's /root -> var/roothome), but never on / or a system
// directory a link of /root leads to: there the mount at the link's own
// path refuses the run.
func TestMountPointOf(t *testing.T) {
	d, err := os.MkdirTemp("/var/tmp", "vigiles-homelink-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.MkdirAll(filepath.Join(d, "var/roothome"), 0o700); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"root": "var/roothome", "slash": "/", "usr": "/usr"} {
		if err := os.Symlink(to, filepath.Join(d, link)); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]string{
		filepath.Join(d, "root"): filepath.Join(d, "var/roothome"), filepath.Join(d, "var/roothome"): filepath.Join(d, "var/roothome"),
		filepath.Join(d, "slash"): filepath.Join(d, "slash"), filepath.Join(d, "usr"): filepath.Join(d, "usr"),
		filepath.Join(d, "missing"): filepath.Join(d, "missing"),
	} {
		if got := mountPointOf(p); got != want {
			t.Errorf("mountPointOf(%s) = %s, want %s", p, got, want)
		}
	}
}

// BenchmarkHookEnvShell is what hookEnv costs a run whose caller has
// SHELL and SHLVL (SHELL's check reads the host's /etc/shells), beside one
// whose caller has neither.
func BenchmarkHookEnvShell(b *testing.B) {
	for _, bb := range []struct {
		name string
		host map[string]string
	}{
		{"without", map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}},
		{"with", map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "USER": "u", "LOGNAME": "u", "SHELL": "/bin/sh", "SHLVL": "1"}},
	} {
		getenv := func(k string) (string, bool) { v, ok := bb.host[k]; return v, ok }
		b.Run(bb.name, func(b *testing.B) {
			for range b.N {
				hookEnv(getenv, nil, nil)
			}
		})
	}
}
