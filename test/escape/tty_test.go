package escape

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/ptytest"
)

// TestCallersTerminalIsOutOfReach: vigiles started on the caller's
// terminal, its controlling terminal, stdin and stderr, as from an
// interactive shell, for every caller. The hook holds no descriptor of
// it, cannot open it as /dev/tty (bubblewrap's new session has none), and
// TIOCSTI on its stdio pushes nothing into the terminal's input, which the
// caller's shell would read as typed once vigiles exits; the terminal's
// modes stay as they were.
func TestCallersTerminalIsOutOfReach(t *testing.T) {
	requireBwrap(t)
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			ptm, pts := ptytest.Open(t)
			go io.Copy(io.Discard, ptm)
			// Not canonical, so that TIOCINQ counts every byte pushed
			// into the input, not only whole lines.
			before, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			before.Lflag &^= unix.ICANON
			if err := unix.IoctlSetTermios(int(pts.Fd()), unix.TCSETS, before); err != nil {
				t.Fatal(err)
			}
			dir := workTree(t)
			if r.owner != nil {
				filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, vigilesBin, "run", "--json", "--workdir", dir, "--",
				"sh", "-c", `stty raw -echo 2>/dev/null; stty raw -echo <&2 2>/dev/null; exec python3 tty.py`)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
			cmd.Dir = dir
			var out bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = pts, &out, pts
			// A session of its own with the terminal as its controlling
			// one (fd 0 of the child).
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Credential: r.cred}
			if err := cmd.Run(); err != nil {
				t.Fatalf("vigiles: %v\n%s", err, out.String())
			}
			var res result
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatalf("no JSON result: %v\n%s", err, out.String())
			}
			if res.Tier != "confined" {
				t.Fatalf("tier %s (refusal %q, error %q)", res.Tier, res.Refusal, res.Error)
			}
			checkAttempts(t, res, 6)
			if n, err := unix.IoctlGetInt(int(pts.Fd()), unix.TIOCINQ); err != nil || n != 0 {
				t.Errorf("the caller's terminal has %d bytes of input waiting (%v): the hook typed into it", n, err)
			}
			after, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
			if err != nil {
				t.Fatal(err)
			}
			if after.Lflag != before.Lflag || after.Iflag != before.Iflag {
				t.Errorf("the caller's terminal's modes changed: lflag %#x → %#x, iflag %#x → %#x", before.Lflag, after.Lflag, before.Iflag, after.Iflag)
			}
		})
	}
}
