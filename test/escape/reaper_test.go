package escape

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReaperOfAnotherBuildFailsTheRun: a vigiles-reaper from a build
// before the init–reaper protocol number (a vigiles-sandbox of then,
// renamed) reads the config, ignores the paths it does not know and
// answers with a plain status. Where the kernel has no Landlock it ran
// the command with the caller's secret masks writable and the run
// passed. The stand-in here runs the command with none of the reaper's
// layers at all and reports success as such a reaper did: the run must
// fail, never pass on its word, and the command must not run at all (it
// comes in a document of its own, which such a reaper never reads).
func TestReaperOfAnotherBuildFailsTheRun(t *testing.T) {
	requireBwrap(t)
	bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o755})
	buildStandIn(t, bin, "vigiles-reaper", preProtocolReaper)
	for _, ru := range runners(t) {
		t.Run(ru.name, func(t *testing.T) {
			dir := workTree(t)
			if ru.owner != nil {
				filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(ru.owner.Uid), int(ru.owner.Gid))
				})
			}
			r := runFrom(t, bin, dir, ru.cred, "sh", "-c", "echo ran; echo x > made")
			if r.ExitCode != 125 || !strings.Contains(r.Error, "different builds") || strings.Contains(r.Stdout, "ran") {
				t.Errorf("a reaper from before the protocol number: tier %s exit %d stdout %q error %q refusal %q; want the run to fail (exit 125, different builds) without running the command",
					r.Tier, r.ExitCode, r.Stdout, r.Error, r.Refusal)
			}
		})
	}
}

// preProtocolReaper does what a reaper from before the protocol number
// did: it reads one config document, runs its command (here with none of
// the layers, the worst such a reaper could do) and answers with a status
// that has no protocol; given no command, it says so.
const preProtocolReaper = `package main

import (
	"encoding/json"
	"os"
	"os/exec"
)

func main() {
	var cfg struct {
		Cwd     string   ` + "`json:\"cwd\"`" + `
		Command []string ` + "`json:\"command\"`" + `
		Env     []string ` + "`json:\"env\"`" + `
	}
	json.NewDecoder(os.NewFile(3, "config")).Decode(&cfg)
	if len(cfg.Command) == 0 {
		os.NewFile(4, "status").WriteString(` + "`" + `{"error":"no command","exitCode":0,"signal":"","durationNs":0}` + "`" + `)
		return
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Dir, cmd.Env = cfg.Cwd, cfg.Env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Run()
	os.NewFile(4, "status").WriteString(` + "`" + `{"exitCode":0,"signal":"","durationNs":1}` + "`" + `)
}
`

// TestReaperBinaryOthersMayRewriteIsNotUsed: a vigiles-reaper that
// another user could rewrite (anyone's write bit, another user's file)
// runs as the command's pid 1 before any layer, so it is never handed
// in: the reaper runs from vigiles-sandbox and the run is whole. A fifo
// at the path neither hangs the run nor fails it.
func TestReaperBinaryOthersMayRewriteIsNotUsed(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a file of another owner needs chown")
	nobody := runners(t)[1].cred
	for name, prepare := range map[string]func(p string) error{
		"anyone may write": func(p string) error { return os.Chmod(p, 0o777) },
		"another's file":   func(p string) error { return os.Chown(p, int(nobody.Uid), int(nobody.Gid)) },
		"a fifo": func(p string) error {
			os.Remove(p)
			return syscall.Mkfifo(p, 0o755)
		},
	} {
		t.Run(name, func(t *testing.T) {
			bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o755, "vigiles-reaper": 0o755})
			if err := prepare(filepath.Join(bin, "vigiles-reaper")); err != nil {
				t.Fatal(err)
			}
			dir := workTree(t)
			r, fromSandbox := runFromSeeingReaper(t, bin, dir, "sh", "-c", "echo x > made; sleep 1")
			if r.Tier != "confined" || r.ExitCode != 0 || len(r.Writes) != 1 || !fromSandbox {
				t.Errorf("tier %s exit %d writes %v reaper from vigiles-sandbox %v error %q refusal %q; want a whole run, its reaper from vigiles-sandbox",
					r.Tier, r.ExitCode, r.Writes, fromSandbox, r.Error, r.Refusal)
			}
		})
	}
}
