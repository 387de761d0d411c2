package escape

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vigiles/action/internal/ptytest"
)

// The command shares its uid with the reaper, its pid 1. Lowering the
// reaper's RLIMIT_NOFILE would leave it unable to read /proc, and so to
// list what the command left behind: prlimit on another process fails,
// and a leftover process is still listed.
func TestReaperLimitsStayItsOwn(t *testing.T) {
	requireBwrap(t)
	requireTools(t, "prlimit")
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			res := vigiles(t, r, workTree(t), nil, "--linger", "1s", "--", "sh", "-c",
				`setsid sleep 30 </dev/null >/dev/null 2>&1 & prlimit --pid 1 --nofile=3:3; echo "prlimit exit $?"; prlimit --nofile=64:64 && echo own-ok`)
			if res.Error != "" || res.Tier != "confined" {
				t.Fatalf("tier %s, error %q, refusal %q", res.Tier, res.Error, res.Refusal)
			}
			// seccomp answers prlimit64 on another pid with EPERM.
			if strings.Contains(res.Stdout, "prlimit exit 0") || !strings.Contains(res.Stderr, "Operation not permitted") || !strings.Contains(res.Stdout, "own-ok") {
				t.Errorf("prlimit on pid 1 should fail with EPERM and on itself work; stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			found := false
			for _, l := range res.Lingered {
				found = found || strings.Contains(l, "sleep 30")
			}
			if !found {
				t.Errorf("a leftover process went unlisted: lingered %q", res.Lingered)
			}
		})
	}
}

// The caller's stdin reaches the command as bytes through a pipe, never as
// the caller's descriptor: a file's descriptor could be reopened for
// writing through /proc/self/fd/0, a directory's would walk the host past
// the masks, a terminal's would take escape sequences and mode changes.
func TestStdinIsNeverAHostDescriptor(t *testing.T) {
	requireBwrap(t)
	event := filepath.Join(openTempDir(t, "/var/lib", "vigiles-escape-stdin-"), "event.json")
	if err := os.WriteFile(event, []byte(`{"hook_event_name":"Stop"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			res := vigiles(t, r, workTree(t), nil, "--stdin", event, "--", "sh", "-c",
				`readlink /proc/self/fd/0; cat; echo; echo x > /proc/self/fd/0`)
			if !strings.HasPrefix(res.Stdout, "pipe:[") || !strings.Contains(res.Stdout, `{"hook_event_name":"Stop"}`) {
				t.Errorf("stdin should be a pipe holding the file's bytes: stdout %q stderr %q", res.Stdout, res.Stderr)
			}
			if b, _ := os.ReadFile(event); string(b) != `{"hook_event_name":"Stop"}` {
				t.Errorf("the host's event file changed: %q", b)
			}
		})
	}
	t.Run("a directory is bad usage", func(t *testing.T) {
		out, err := exec.Command(vigilesBin, "run", "--json", "--workdir", workTree(t), "--stdin", filepath.Dir(event), "--", "true").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "a directory") {
			t.Errorf("--stdin DIR: %v, %s; want exit 2 naming the directory", err, out)
		}
	})
	t.Run("a terminal", func(t *testing.T) {
		ptm, pts := ptytest.Open(t)
		go io.Copy(io.Discard, ptm)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, vigilesBin, "run", "--json", "--workdir", workTree(t), "--stdin", "-", "--",
			"sh", "-c", `readlink /proc/self/fd/0; stty -echo <&0 2>/dev/null; printf '\033]0;pwned\007' >&0 2>/dev/null; exit 0`)
		cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
		cmd.Stdin = pts
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("vigiles: %v\n%s", err, out)
		}
		var doc struct {
			Stdout string `json:"stdout"`
		}
		if err := json.Unmarshal(out, &doc); err != nil || !strings.HasPrefix(doc.Stdout, "pipe:[") {
			t.Errorf("the command's stdin was not a pipe: %v %s", err, out)
		}
		tio, err := unix.IoctlGetTermios(int(pts.Fd()), unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if tio.Lflag&unix.ECHO == 0 {
			t.Error("the confined command turned the caller's terminal's echo off")
		}
	})
}
