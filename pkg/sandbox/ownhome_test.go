package sandbox

import (
	"context"
	"errors"
	"maps"
	"os"
	"os/user"
	"strings"
	"testing"
	"time"
)

// TestRunInTheCallersOwnHomeNamesTheProject: vigiles started in ~ itself
// (vigiles run -- ls in a new terminal) has the caller's own home
// directory for its work tree. The refusal tells it to run in the
// project's directory, by each command's flag, not to set HOME outside
// the tree, which HOME already is for such a caller ("HOME=/home/$USER
// vigiles …" from /home/$USER changes nothing). The command never starts,
// so nothing of that directory is read or written.
func TestRunInTheCallersOwnHomeNamesTheProject(t *testing.T) {
	requireConfinement(t)
	u, err := user.Current()
	if err == nil {
		if st, serr := os.Stat(u.HomeDir); serr != nil || !st.IsDir() {
			err = errors.New("its home directory " + u.HomeDir + " is no directory here")
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the caller's home directory is needed in CI: %v", err)
		}
		t.Skipf("the caller's home directory, as the user database names it, is needed: %v", err)
	}
	home := u.HomeDir
	t.Setenv("HOME", home)
	res, err := Run(context.Background(), Spec{Dir: home, Mode: ModeStrict, Timeout: 30 * time.Second, Command: sh(`echo RAN`)})
	if !errors.Is(err, ErrRefused) || res.Stdout != "" {
		t.Fatalf("err %v stdout %q, want a refusal", err, res.Stdout)
	}
	for _, want := range []string{"is the caller's home directory (HOME=" + home + ")", "run vigiles in the project's own directory", "--workdir DIR", "--dir DIR"} {
		if !strings.Contains(res.Refusal, want) {
			t.Errorf("refusal %q does not say %q", res.Refusal, want)
		}
	}
	if strings.Contains(res.Refusal, "set HOME outside") {
		t.Errorf("refusal %q tells a caller whose HOME is its own to set HOME elsewhere", res.Refusal)
	}
}

// TestCallerHomeMountPoint: the command's HOME is bound a second time at
// the caller's own HOME's path, but never where that would cover a place
// of the run's own (/tmp, /var/tmp, /dev/shm, /root, the run's directory)
// or lie in one it cannot make a directory in; a HOME in the fresh /tmp or
// /var/tmp is made there.
func TestCallerHomeMountPoint(t *testing.T) {
	for _, c := range []struct{ home, varTmpAt, want string }{
		{"/home/runner", "/var/tmp", "/home/runner"},
		{"/github/home", "/var/tmp", "/github/home"},
		{"/tmp/h", "/var/tmp", "/tmp/h"},
		{"/var/tmp/h", "/var/tmp", "/var/tmp/h"},
		{"/var/lib/svc", "/var/tmp", "/var/lib/svc"},
		{"", "/var/tmp", ""},
		{"home/runner", "/var/tmp", ""},
		{"/home/runner/", "/var/tmp", ""},
		{"/", "/var/tmp", ""},
		{"/var", "/var/tmp", ""},
		{"/var", "", "/var"},
		{"/tmp", "/var/tmp", ""},
		{"/root", "/var/tmp", ""},
		{"/root/x", "/var/tmp", ""},
		{"/dev/shm/h", "/var/tmp", ""},
		{"/run", "/var/tmp", ""},
		{"/run/overlay/scratch/home", "/var/tmp", ""},
	} {
		if got := callerHomeMountPoint(c.home, c.varTmpAt); got != c.want {
			t.Errorf("callerHomeMountPoint(%q, %q) = %q, want %q", c.home, c.varTmpAt, got, c.want)
		}
	}
	// Nor over the run's /run/lock and /run/user/UID where they are bound
	// (mountRunAreas); one inside them is made there, as in /var/tmp.
	for _, c := range []struct{ home, want string }{
		{"/run/user", ""},
		{"/run/user/1000", ""},
		{"/run/user/1000/home", "/run/user/1000/home"},
		{"/run/lock/h", "/run/lock/h"},
	} {
		if got := callerHomeMountPoint(c.home, "/var/tmp", "/run/lock", "/run/user/1000"); got != c.want {
			t.Errorf("callerHomeMountPoint(%q) with /run/lock and /run/user/1000 bound = %q, want %q", c.home, got, c.want)
		}
	}
}

// TestMadeDirsAlias: a directory made at the caller's HOME path is the
// same directory at /root, where HOME's record names it from; the HOME
// path itself, a mount point, and one outside it are not aliased.
func TestMadeDirsAlias(t *testing.T) {
	m := madeDirs{"/home/r": {}, "/home/r/work": {}, "/home/r/work/t": {ino: 7}, "/tmp/x": {}}
	m.alias("/home/r", "/root")
	want := madeDirs{"/home/r": {}, "/home/r/work": {}, "/home/r/work/t": {ino: 7}, "/tmp/x": {}, "/root/work": {}, "/root/work/t": {ino: 7}}
	if !maps.Equal(m, want) {
		t.Errorf("aliased %v, want %v", m, want)
	}
	m.alias("", "/root")
	if !maps.Equal(m, want) {
		t.Errorf("alias of no path changed %v", m)
	}
}
