package escape

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResourceLimits runs each resource attack for real with small limits
// and checks that the run ends, says which limit it hit where the kernel
// tells, and leaves the host healthy (nothing left running).
func TestResourceLimits(t *testing.T) {
	requireBwrap(t)
	tests := []struct {
		name      string
		args      []string
		script    string
		wantLimit string // "" when the kernel gives no sign to read
		// wantRootLimit, when set, is the limit wanted when the caller is
		// root (a cgroup enforces it); other callers get wantLimit.
		wantRootLimit string
		check         func(t *testing.T, res result)
	}{
		// 60 s: bash retries a fork the limit refuses, sleeping 1, 2, 4
		// and 8 s, so on a busy machine the bomb's shell reaches its
		// sleep 2 past 20 s, and the run ended at its timeout first.
		{"fork bomb", []string{"--limit-pids", "64", "--timeout", "60s"},
			`bomb() { bomb | bomb & }; bomb; sleep 2; exit 0`, "pids", "", nil},
		// 90 s, as the plain bomb's 60 s: the timeout only bounds a hung
		// run, and a starved machine's python3 is slow to fork and flood.
		{"fork bomb while the DNS stub is flooded", []string{"--limit-pids", "64", "--timeout", "90s"},
			// Once the command fills its process limit, a flood of DNS
			// questions made the init's stub (a goroutine a question) need
			// an OS thread the limit denied, and the init died with the
			// record. The limit holds the command alone now: the record
			// stays, egress and all or refused as incomplete, never lost.
			`python3 -c '
import os, socket, struct, time
open("before-the-flood", "w").write("x")
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(4)
        os._exit(0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
q = struct.pack(">HHHHHH", 1, 0x100, 1, 0, 0, 0) + b"\x05flood\x04test\x00\x00\x01\x00\x01"
end = time.time() + 2
while time.time() < end:
    s.sendto(q, ("127.0.0.1", 53))
'`, "pids", "", func(t *testing.T, res result) {
				if strings.Contains(res.Stderr, "failed to create new OS thread") || strings.Contains(res.Error, "without a result") {
					t.Fatalf("vigiles' own process died in the filled limit: error %q, stderr %.300q", res.Error, res.Stderr)
				}
				if len(res.Writes) != 1 || res.Writes[0].Path != "before-the-flood" {
					t.Errorf("writes %+v, want the one file written before the flood (error %q)", res.Writes, res.Error)
				}
			}},
		{"memory hog", []string{"--limit-memory", "268435456"},
			`python3 -c 'b = bytearray(1 << 30); print("allocated")'`, "", "", func(t *testing.T, res result) {
				if res.ExitCode == 0 || strings.Contains(res.Stdout, "allocated") {
					t.Errorf("1 GiB was allocated under a 256 MiB limit: exit %d", res.ExitCode)
				}
			}},
		{"many processes under a low address-space limit", []string{"--limit-memory", "1GiB", "--timeout", "120s"},
			// The limit is the command's: the reaper, whose Go runtime
			// reserves more than 1 GiB, still samples 300 processes.
			// 120 s, not 30: the timeout only bounds a hung run, and a
			// starved machine (0.1 core) had not started the 300 and
			// python3 in 30 s, beside the reaper's sampling of them.
			`for i in $(seq 1 300); do sleep 2 & done; wait; python3 -c 'b = bytearray(1 << 30)' 2>/dev/null || echo bounded`, "", "", func(t *testing.T, res result) {
				if res.Error != "" || res.ExitCode != 0 || !strings.Contains(res.Stdout, "bounded") {
					t.Errorf("exit %d, error %q, stdout %q, want exit 0 and the command bounded; stderr %.300q", res.ExitCode, res.Error, res.Stdout, res.Stderr)
				}
			}},
		{"memory of many processes", []string{"--limit-run-memory", "201326592", "--timeout", "60s"},
			`for i in 1 2 3; do dd if=/dev/zero of=/dev/null bs=128M count=40 2>/dev/null & done; wait; echo done`,
			"", "memory", nil},
		{"disk filler in the work tree", []string{"--limit-scratch", "33554432"},
			`dd if=/dev/zero of=big bs=1M count=200 2>/dev/null; exit 0`, "scratch", "", nil},
		{"disk filler in HOME", []string{"--limit-scratch", "33554432"},
			`dd if=/dev/zero of=$HOME/big bs=1M count=200 2>/dev/null; exit 0`, "scratch", "", nil},
		{"disk filler in TMPDIR", []string{"--limit-scratch", "33554432"},
			`dd if=/dev/zero of=/tmp/big bs=1M count=200 2>/dev/null; exit 0`, "scratch", "", nil},
		{"one huge file", []string{"--limit-file-size", "1048576"},
			`dd if=/dev/zero of=big bs=1M count=20`, "file-size", "", nil},
		// 90 s: a second of CPU time is 30 s of wall time where the
		// spinner gets 3% of a core, and the timeout, which only bounds a
		// hung run, came first (timedOut, not limitHit cpu).
		{"cpu spinner", []string{"--limit-cpu", "1", "--timeout", "90s"},
			`while :; do :; done`, "cpu", "", nil},
		{"wall clock", []string{"--timeout", "1s"},
			`sleep 60`, "wall-time", "", func(t *testing.T, res result) {
				if !res.TimedOut {
					t.Error("timedOut = false")
				}
			}},
		{"daemon that outlives the run", []string{"--timeout", "10s"},
			`setsid nohup sleep 987654 >/dev/null 2>&1 & disown; exit 0`, "", "", func(t *testing.T, res result) {
				time.Sleep(200 * time.Millisecond)
				if out, _ := exec.Command("pgrep", "-f", "sleep 987654").Output(); len(out) > 0 {
					t.Errorf("a daemon outlived the run: pids %s", out)
					exec.Command("pkill", "-f", "sleep 987654").Run()
				}
			}},
	}
	for _, r := range runners(t) {
		for _, tt := range tests {
			t.Run(r.name+"/"+tt.name, func(t *testing.T) {
				dir := workTree(t)
				if slices.Contains(tt.args, "--limit-run-memory") && (r.cred != nil || os.Geteuid() != 0) {
					// Only a root caller's run gets a memory cgroup: any
					// other caller's --limit-run-memory is refused, not
					// taken and left to do nothing.
					cmd := exec.Command(vigilesBin, append(append([]string{"run", "--json", "--workdir", dir}, tt.args...), "--", "true")...)
					cmd.Dir = dir
					if r.cred != nil {
						cmd.SysProcAttr = &syscall.SysProcAttr{Credential: r.cred}
					}
					out, err := cmd.CombinedOutput()
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--limit-run-memory is held by a memory cgroup") {
						t.Errorf("--limit-run-memory as %s: %v, want exit 2 naming the flag: %s", r.name, err, out)
					}
					return
				}
				res := vigiles(t, r, dir, nil, append(tt.args, "--", "bash", "-c", tt.script)...)
				want := tt.wantLimit
				if tt.wantRootLimit != "" && r.cred == nil && os.Geteuid() == 0 {
					want = tt.wantRootLimit
				}
				// A limit ends the run, not its timeout, which only
				// bounds a hung one: a run that reached it was held by
				// what the limit was to stop (the record says so, not a
				// clock of the test's own).
				if res.TimedOut && want != "wall-time" {
					t.Errorf("the run reached its timeout (limitHit %q, exit %d, stderr %.300q)", res.LimitHit, res.ExitCode, res.Stderr)
				}
				if want != "" && res.LimitHit != want {
					t.Errorf("limitHit = %q, want %q (exit %d, signal %s, stderr %q)", res.LimitHit, want, res.ExitCode, res.Signal, res.Stderr)
				}
				if tt.check != nil {
					tt.check(t, res)
				}
				// The host is still healthy: it can start a process.
				if err := exec.Command("true").Run(); err != nil {
					t.Fatalf("the host cannot start a process after the run: %v", err)
				}
			})
		}
	}
}
