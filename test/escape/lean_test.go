package escape

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLeanSandboxBinaryIsUsed checks that, with vigiles-sandbox and
// vigiles-reaper beside the vigiles binary (as `make build` and the image
// ship them), the init runs from the one and the reaper from the other.
func TestLeanSandboxBinaryIsUsed(t *testing.T) {
	requireBwrap(t)
	dir := workTree(t)
	cmd := exec.Command(vigilesBin, "run", "--json", "--workdir", dir, "--", "sleep", "2")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	for role, name := range map[string]string{"__vigiles-init": "vigiles-sandbox", "__vigiles-reaper": "vigiles-reaper"} {
		got := roleBinary(t, cmd.Process.Pid, role)
		lean, err := os.Stat(filepath.Join(filepath.Dir(vigilesBin), name))
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(got, lean) {
			t.Errorf("%s does not run from the lean %s beside vigiles", role, name)
		}
	}
}

// roleBinary waits for the descendant of broker running the in-sandbox
// role and returns the file it runs from (bwrap and the init exec it by
// descriptor, so the file is what counts, not a path).
func roleBinary(t *testing.T, broker int, role string) os.FileInfo {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if _, args, _ := bytes.Cut(b, []byte{0}); err != nil || !bytes.HasPrefix(args, []byte(role+"\x00")) {
				continue
			}
			// Other packages' tests run sandboxes at the same time: only
			// a descendant of this vigiles counts.
			pid, _ := strconv.Atoi(e.Name())
			if !descends(pid, broker) {
				continue
			}
			if got, err := os.Stat(filepath.Join("/proc", e.Name(), "exe")); err == nil {
				return got
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s process seen", role)
	return nil
}

// TestReaperBinaryFallsBack: a vigiles-reaper the sandbox's uid may not
// execute (0700, root's, for a root caller's root-owned tree) is not used;
// the reaper runs from vigiles-sandbox and the run is whole. A stale one,
// from another build, makes the run fail with what it said (rebuild both):
// the command never runs without its reaper's layers.
func TestReaperBinaryFallsBack(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "only a root caller's sandbox runs as another uid than the binaries' owner")
	dir := workTree(t)
	run := func(bin string) result {
		t.Helper()
		return runFrom(t, bin, dir, nil, "sh", "-c", "echo x > made; cat /proc/1/cmdline")
	}
	bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o755, "vigiles-reaper": 0o700})
	r := run(bin)
	if r.Tier != "confined" || r.ExitCode != 0 || len(r.Writes) != 1 || !strings.HasPrefix(r.Stdout, "/proc/self/exe\x00__vigiles-reaper") {
		t.Errorf("a 0700 vigiles-reaper: tier %s exit %d writes %v stdout %q error %q refusal %q; want a whole run, its reaper from vigiles-sandbox",
			r.Tier, r.ExitCode, r.Writes, r.Stdout, r.Error, r.Refusal)
	}

	// A stand-in that answers as a reaper of another build does.
	buildStandIn(t, bin, "vigiles-reaper", staleReaper)
	r = run(bin)
	if r.ExitCode != 125 || !strings.Contains(r.Error, "rebuild both") {
		t.Errorf("a stale vigiles-reaper: tier %s exit %d error %q; want its own message", r.Tier, r.ExitCode, r.Error)
	}
}

// staleReaper answers the init as a vigiles-reaper of another build does.
const staleReaper = `package main

import "os"

func main() {
	os.NewFile(4, "status").WriteString(` + "`" + `{"error":"the reaper binary (protocol 0) and the init (protocol 1) come from different builds: rebuild both (make build)"}` + "`" + `)
}
`

// descends reports whether pid has ancestor among its parents.
func descends(pid, ancestor int) bool {
	for p := pid; p > 1; {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "stat"))
		if err != nil {
			return false
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 {
			return false
		}
		p, _ = strconv.Atoi(f[1])
		if p == ancestor {
			return true
		}
	}
	return false
}
