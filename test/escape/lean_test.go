package escape

import (
	"bytes"
	"context"
	"encoding/json"
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
	for role, name := range map[string]string{initRole: "vigiles-sandbox", reaperRole: "vigiles-reaper"} {
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

// The in-sandbox roles as the host's /proc shows them: the init by its
// first argument, the reaper by its whole command line (an init's, so
// that a hook reading /proc/1/cmdline finds no name of vigiles).
const (
	initRole   = "__vigiles-init"
	reaperRole = "/sbin/init"
)

// roleBinary waits for the descendant of broker running the in-sandbox
// role and returns the file it runs from (bwrap and the init exec it by
// descriptor, so the file is what counts, not a path).
func roleBinary(t *testing.T, broker int, role string) os.FileInfo {
	t.Helper()
	fi, ok := findRoleBinary(broker, role, 10*time.Second)
	if !ok {
		t.Fatalf("no %s process seen", role)
	}
	return fi
}

// findRoleBinary is roleBinary, false when no such process is seen
// within wait.
func findRoleBinary(broker int, role string, wait time.Duration) (os.FileInfo, bool) {
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil {
				continue
			}
			if _, args, _ := bytes.Cut(b, []byte{0}); role == reaperRole && string(b) != reaperRole+"\x00" ||
				role != reaperRole && !bytes.HasPrefix(args, []byte(role+"\x00")) {
				continue
			}
			// Other packages' tests run sandboxes at the same time: only
			// a descendant of this vigiles counts.
			pid, _ := strconv.Atoi(e.Name())
			if !descends(pid, broker) {
				continue
			}
			if got, err := os.Stat(filepath.Join("/proc", e.Name(), "exe")); err == nil {
				return got, true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil, false
}

// runFromSeeingReaper is runFrom, and says whether the run's reaper ran
// from bin's vigiles-sandbox (seen from the host: inside, its command line
// is an init's whichever binary it is).
func runFromSeeingReaper(t *testing.T, bin, dir string, command ...string) (result, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // as runFrom
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "vigiles"), append([]string{"run", "--json", "--workdir", dir, "--"}, command...)...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.WaitDelay = 10 * time.Second // a leftover holding the output does not hold the test
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	got, seen := findRoleBinary(cmd.Process.Pid, reaperRole, 10*time.Second)
	cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("vigiles run -- %q had not ended in 2 minutes; killed: %s", command, out.Bytes())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("no JSON result: %v: %s", err, out.Bytes())
	}
	lean, err := os.Stat(filepath.Join(bin, "vigiles-sandbox"))
	return r, err == nil && seen && os.SameFile(got, lean)
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
		return runFrom(t, bin, dir, nil, "sh", "-c", "echo x > made")
	}
	bin := binsDir(t, map[string]os.FileMode{"vigiles": 0o755, "vigiles-sandbox": 0o755, "vigiles-reaper": 0o700})
	r, fromSandbox := runFromSeeingReaper(t, bin, dir, "sh", "-c", "echo x > made; sleep 1")
	if r.Tier != "confined" || r.ExitCode != 0 || len(r.Writes) != 1 || !fromSandbox {
		t.Errorf("a 0700 vigiles-reaper: tier %s exit %d writes %v reaper from vigiles-sandbox %v error %q refusal %q; want a whole run, its reaper from vigiles-sandbox",
			r.Tier, r.ExitCode, r.Writes, fromSandbox, r.Error, r.Refusal)
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
