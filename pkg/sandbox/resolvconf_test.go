package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolvConfFile: the command's resolv.conf is made where the command
// will read it: a file of the init's, for the reaper to bind over a plain
// /etc/resolv.conf, or the target of a link into the sandbox's /run
// (relative or absolute), made with its directories; a link anywhere else,
// or into the init's own directory (which the reaper hides), is refused.
func TestResolvConfFile(t *testing.T) {
	root := t.TempDir()
	etc, run := filepath.Join(root, "etc"), filepath.Join(root, "run")
	own := filepath.Join(run, "vigiles")
	for _, d := range []string{etc, own} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(etc, "resolv.conf")
	setLink := func(target string) {
		os.Remove(path)
		if target == "" {
			if err := os.WriteFile(path, []byte("nameserver 192.0.2.53\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, link string
		want       string // the file made, "" for a refusal
		bind       bool
	}{
		{"plain file", "", filepath.Join(own, "resolv.conf"), true},
		{"absolute link into run", filepath.Join(run, "systemd/resolve/stub-resolv.conf"), filepath.Join(run, "systemd/resolve/stub-resolv.conf"), false},
		{"relative link into run", "../run/resolvconf/resolv.conf", filepath.Join(run, "resolvconf/resolv.conf"), false},
		{"link outside run", filepath.Join(root, "elsewhere/resolv.conf"), "", false},
		{"link into the init's directory", filepath.Join(own, "x"), "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			setLink(c.link)
			os.Remove(filepath.Join(own, "resolv.conf"))
			f, bind, err := resolvConfFile(path, run, own)
			if c.want == "" {
				if err == nil || !strings.Contains(err.Error(), "not into the sandbox's own") {
					t.Fatalf("resolvConfFile = %v, %v; want a refusal", f, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Name() != c.want || bind != c.bind {
				t.Errorf("resolvConfFile = %s bind %v, want %s bind %v", f.Name(), bind, c.want, c.bind)
			}
			if _, err := f.WriteString("nameserver 127.0.0.1\n"); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(c.want); string(b) != "nameserver 127.0.0.1\n" {
				t.Errorf("%s holds %q", c.want, b)
			}
		})
	}
}
