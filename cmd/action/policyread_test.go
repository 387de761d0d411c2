package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyFileTheCallerMayNotRead: a policy file there but not readable
// by the user vigiles runs as is bad usage that says so and the fix (its
// owner, or its mode), where it was told to name another file with
// --config or write one. Root reads every file: as root, vigiles runs as
// nobody (setpriv).
func TestPolicyFileTheCallerMayNotRead(t *testing.T) {
	base := nobodysDir(t, "vigiles-policy-")
	repo := filepath.Join(base, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	policy := filepath.Join(repo, ".vigiles.yml")
	if err := os.WriteFile(policy, []byte("version: 1\nchecks:\n  - name: a\n    command: \"true\"\n    expect:\n      exit-code: 0\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	uid := os.Geteuid()
	if uid == 0 {
		uid = 65534
	}
	for _, cmd := range []string{"test", "audit"} {
		code, out, errs := unprivileged(t, base, cmd, "--dir", repo)
		want := fmt.Sprintf("vigiles: %s: the policy file %q may not be read by this user (uid %d); run vigiles as a user who may read it (its owner), or make it readable\n", cmd, policy, uid)
		if code != 2 || out != "" || errs != want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join([]string{cmd, "--dir", repo}, " "), code, out, errs, want)
		}
	}
}

// TestConfigThatIsADirectory: a --config naming a directory is bad usage
// that says so and names the file to give, or, for a directory that holds
// a policy file, the --dir of the repository it is the policy of, where
// it said "reading sub: …/sub is not a regular file; name another with
// --config, or write one".
func TestConfigThatIsADirectory(t *testing.T) {
	top := t.TempDir()
	for _, d := range []string{"empty", "repo"} {
		if err := os.MkdirAll(filepath.Join(top, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{".vigiles.yml", "repo/.vigiles.yml"} {
		if err := os.WriteFile(filepath.Join(top, p), []byte("version: 1\nchecks:\n  - name: a\n    command: \"true\"\n    expect:\n      exit-code: 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(top)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"test", "--config", "empty"}, `vigiles: test: --config "empty" is a directory, not a policy file: name the policy file itself (a .vigiles.yml), relative to --dir` + "\n"},
		{[]string{"test", "--config", "repo"}, `vigiles: test: --config "repo" is a directory, not a policy file: to run the checks of the repository there, give --dir "repo"; to read its policy file against this work tree, --config "repo/.vigiles.yml"` + "\n"},
		{[]string{"audit", "--config", "."}, `vigiles: audit: --config "." is a directory, not a policy file: name the file, --config ".vigiles.yml"` + "\n"},
		{[]string{"test", "--dir", "repo", "--config", "."}, `vigiles: test: --config "." is a directory, not a policy file: name the file, --config ".vigiles.yml"` + "\n"},
	} {
		code, out, errs := runCLI(t, c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}
