package sandbox

import (
	"context"
	"errors"
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
