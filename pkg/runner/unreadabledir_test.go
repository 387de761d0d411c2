package runner

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/vigiles/action/internal/testbin"
	"github.com/vigiles/action/pkg/report"
)

// unreadableEnv names, to the test binary re-run as another user, the
// tree TestUnreadableDirIsAnError discovers there.
const unreadableEnv = "VIGILES_TEST_UNREADABLE_TREE"

// TestUnreadableDirIsAnError: a directory of the tree that the user
// vigiles runs as may not list or search (a package's directory, a
// .claude, a plugin's hooks or commands directory) is an error that
// names it, once, not a directory passed over as empty: Claude Code, run
// by a user who may read it, loads what it declares. Root reads every
// directory, so a root caller runs the discovery as nobody, re-running
// the test binary.
func TestUnreadableDirIsAnError(t *testing.T) {
	if dir := os.Getenv(unreadableEnv); dir != "" {
		d, err := ClaudeAdapter{}.Discover(dir, dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range d.Findings {
			fmt.Printf("%s %s %s\n", f.Severity, f.Rule, f.Location.File)
		}
		for _, h := range d.Hooks {
			fmt.Printf("hook %s\n", h.ID)
		}
		return
	}
	hook := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`
	agent := "---\nname: a\nhooks:\n  SessionStart:\n    - hooks:\n        - type: command\n          command: echo hi\n---\n"
	// Made in a directory others may search, so that nobody reaches it.
	base, err := os.MkdirTemp("", "unreadable")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	tree := filepath.Join(base, "tree")
	for p, c := range map[string]string{
		".claude/settings.json":                 hook,
		"plugins/p/.claude-plugin/plugin.json":  `{"name":"p"}`,
		"plugins/p/hooks/hooks.json":            hook,
		"plugins/p/commands/c.md":               agent,
		"plugins/q/.claude-plugin/plugin.json":  `{"name":"q"}`,
		"plugins/q/hooks/hooks.json":            hook,
		"pkg/.claude/settings.json":             hook,
		"pkg/plugin/.claude-plugin/plugin.json": `{"name":"r"}`,
	} {
		full := filepath.Join(tree, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for dir, mode := range map[string]os.FileMode{
		base:                 0o755,
		".claude":            0o000,
		"plugins/p/hooks":    0o000,
		"plugins/p/commands": 0o311, // searched, not listed
		"pkg":                0o000,
	} {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(tree, dir)
		}
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testbin.Copy(t, base, "runner.test"), "-test.run=^TestUnreadableDirIsAnError$")
	cmd.Env = append(os.Environ(), unreadableEnv+"="+tree)
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true and no user nobody to discover as: %v", err)
			}
			t.Skipf("no user nobody to discover as, and root reads every directory: %v", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("discovery as another user: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, string(report.SeverityError)+" ") || strings.HasPrefix(l, "hook ") {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	want := []string{
		"error " + RuleMissingFile + " .claude",
		"error " + RuleMissingFile + " pkg",
		"error " + RuleMissingFile + " plugins/p/commands",
		"error " + RuleMissingFile + " plugins/p/hooks",
		"hook plugins/q/hooks/hooks.json#hooks.SessionStart[0].hooks[0]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("discovery of a tree with unreadable directories:\n got %q\nwant %q\n(all of its output:\n%s)", got, want, out)
	}
}

// TestTooLongDirIsAnError: a directory whose path is longer than the
// system opens (PATH_MAX, 4096 bytes) is not passed over as empty either:
// a .claude below it is declared, and not read.
func TestTooLongDirIsAnError(t *testing.T) {
	dir := makeTree(t, nil)
	long := dir
	for range 25 {
		long = filepath.Join(long, strings.Repeat("z", 200))
	}
	// Made a component at a time, from inside: the whole path is too long
	// to make at once.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	for range 25 {
		if err := os.Mkdir(strings.Repeat("z", 200), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chdir(strings.Repeat("z", 200)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(".claude", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".claude/settings.json", []byte(`{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(wd); err != nil {
		t.Fatal(err)
	}
	d, err := ClaudeAdapter{}.Discover(dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range d.Findings {
		if f.Rule == RuleMissingFile && f.Severity == report.SeverityError && strings.HasPrefix(f.Message, "cannot read the directory ") &&
			strings.HasSuffix(f.Message, ": file name too long, so nothing Claude Code may load from it (settings, plugins, marketplaces, hooks files, skills, agents, commands) is read; Claude Code may load them") {
			got = append(got, f.Location.File)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(long, filepath.Join(dir, got[0])) {
		t.Errorf("findings %v: want one error that a directory of %s cannot be read, its path too long", d.Findings, long)
	}
}
