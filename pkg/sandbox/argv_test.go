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
	want := []string{"HOME=/root", "LANG=de_DE.UTF-8", "LC_ALL=C", "LC_NAME=", "LC_PAPER=de_DE@euro", "LC_TIME=en_GB.UTF-8", "PATH=/usr/bin:/bin", "TMPDIR=/tmp", "FOO=bar", "USER=root"}
	if d := cmp.Diff(sorted(want), got); d != "" {
		t.Errorf("hookEnv (-want +got):\n%s", d)
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
