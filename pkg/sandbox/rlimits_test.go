package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLimitAboveTheHardLimitIsRefused: a run whose per-process limit lies
// above the hard limit vigiles was started with is refused before
// anything starts, naming the limit, its flag and `ulimit`; it was
// refused naming only an errno ("setting rlimit 7: operation not
// permitted"), or, for the process limit a shell sets where no pids
// cgroup does, ended before the command started with exit 125 read as the
// command's: a hook that never ran passed as one that did nothing. The
// test runs itself again with its hard limits lowered (`ulimit -n 1024
// -u 300`, soft and hard).
func TestLimitAboveTheHardLimitIsRefused(t *testing.T) {
	if os.Getenv("VIGILES_TEST_LOW_HARD_LIMITS") == "1" {
		lowHardLimits(t)
		return
	}
	requireConfinement(t)
	cmd := exec.Command("bash", "-c", `ulimit -n 1024 && ulimit -u 300 && exec "$0" "$@"`, os.Args[0], "-test.run=^TestLimitAboveTheHardLimitIsRefused$", "-test.v")
	cmd.Env = append(os.Environ(), "VIGILES_TEST_LOW_HARD_LIMITS=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Errorf("with hard limits lowered: %v\n%s", err, out)
	}
}

func lowHardLimits(t *testing.T) {
	dir := makeTree(t, nil)
	res, err := Run(context.Background(), Spec{Dir: dir, Mode: ModeStrict, Command: []string{"true"}, Limits: Limits{OpenFiles: 4096}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "4096 open files per process") ||
		!strings.Contains(err.Error(), "ulimit -Hn") || !strings.Contains(err.Error(), "--limit-open-files") {
		t.Errorf("4096 open files under a hard limit of 1024: err %v", err)
	}
	if res.Writes != nil || res.Egress != nil {
		t.Errorf("a refused run has records: writes %v egress %v", res.Writes, res.Egress)
	}
	// Under the hard limit the run goes ahead.
	if res := run(t, Spec{Dir: dir, Command: []string{"true"}, Limits: Limits{OpenFiles: 1024}}); res.ExitCode != 0 || res.Error != "" {
		t.Errorf("1024 open files under a hard limit of 1024: exit %d error %q", res.ExitCode, res.Error)
	}
	// The process limit is checked where a shell sets it (no pids
	// cgroup: a non-root caller), and not where a cgroup holds it.
	err = rlimitsFit(Limits{Pids: 512, OpenFiles: 1024}, true)
	if err == nil || !strings.Contains(err.Error(), "512 processes") || !strings.Contains(err.Error(), "ulimit -Hu") {
		t.Errorf("512 processes under a hard limit of 300, set by the shell: %v", err)
	}
	if err := rlimitsFit(Limits{Pids: 512, OpenFiles: 1024}, false); err != nil {
		t.Errorf("512 processes held by a pids cgroup: %v", err)
	}
	// A soft process limit below what the sandbox needs to start refuses
	// the run, whatever holds its own limit.
	if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: 5, Max: 300}); err != nil {
		t.Fatal(err)
	}
	err = rlimitsFit(Limits{Pids: 64, OpenFiles: 1024}, false)
	if err == nil || !strings.Contains(err.Error(), "process limit of 5") || !strings.Contains(err.Error(), "ulimit -u") {
		t.Errorf("a soft process limit of 5: %v", err)
	}
}

// TestFewDescriptorsFailTheRun: a broker that runs out of descriptors
// while it sets the sandbox up (its pipes, its control socket, bubblewrap's
// start, the namespaces the sandbox sends) refuses the run, saying that
// the command did not run and naming ulimit -n, wherever it ran out; it
// panicked ("pipe2: too many open files", exit 2, no result written),
// then named the fix at the pipes alone, and some steps were a failure,
// others a refusal. Where enough are left the run goes ahead.
// The test runs itself again under `ulimit -n N` for a few N around where
// the sandbox is set up.
func TestFewDescriptorsFailTheRun(t *testing.T) {
	if os.Getenv("VIGILES_TEST_FEW_FDS") == "1" {
		res, err := Run(context.Background(), Spec{Dir: os.Getenv("VIGILES_TEST_DIR"), Mode: ModeStrict, Command: []string{"true"}, Limits: Limits{OpenFiles: MinOpenFiles}})
		// With enough descriptors the run goes ahead; without, it fails
		// with no records.
		if err != nil && (res.Writes != nil || res.Egress != nil) {
			t.Errorf("err %v writes %v egress %v", err, res.Writes, res.Egress)
		}
		if err != nil && (!errors.Is(err, ErrRefused) || res.Tier != TierRefused || !strings.Contains(res.Refusal, "ulimit -n") || !strings.Contains(res.Refusal, "did not run")) {
			t.Errorf("not a refusal naming the fix: tier %s refusal %q error %q", res.Tier, res.Refusal, res.Error)
		}
		t.Logf("err %v", err)
		return
	}
	requireConfinement(t)
	dir := makeTree(t, nil)
	for n := MinOpenFiles; n <= MinOpenFiles+16; n++ {
		cmd := exec.Command("bash", "-c", fmt.Sprintf(`ulimit -n %d && exec "$0" "$@"`, n), os.Args[0], "-test.run=^TestFewDescriptorsFailTheRun$", "-test.v")
		cmd.Env = append(os.Environ(), "VIGILES_TEST_FEW_FDS=1", "VIGILES_TEST_DIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil || strings.Contains(string(out), "panic") || !strings.Contains(string(out), "--- PASS") {
			t.Errorf("under ulimit -n %d: %v\n%s", n, err, out)
		}
		if m := regexp.MustCompile(`err .*`).Find(out); m != nil {
			t.Logf("under ulimit -n %d: %s", n, m)
		}
	}
}

// TestPidsUnderKeepsAReserve: under a finite soft process limit the
// command's own limit leaves pidsReserve of it for vigiles' processes
// and threads, which the kernel counts with the command's; where lanes
// commands run at once, each gets an equal share, of which pidsReserve
// stays for vigiles; a limit that would leave the command less than
// MinPids refuses the run, naming `ulimit -u` and the least it needs
// (and --jobs, where lanes share it); no limit leaves the command's as
// it was asked.
func TestPidsUnderKeepsAReserve(t *testing.T) {
	for _, c := range []struct {
		pids  int
		soft  uint64
		lanes int
		want  int
	}{
		{512, unix.RLIM_INFINITY, 1, 512},
		{512, unix.RLIM_INFINITY, 8, 512},
		{512, 1 << 40, 1, 512},
		{512, 512 + pidsReserve, 1, 512},
		{512, 512 + pidsReserve - 1, 1, 511},
		{512, 128, 1, 128 - pidsReserve},
		{512, 128, 0, 128 - pidsReserve},
		{128, 128, 1, 128 - pidsReserve},
		{40, 128, 1, 40},
		{512, MinPids + pidsReserve, 1, MinPids},
		{512, 256, 2, 128 - pidsReserve},
		{512, 257, 2, 128 - pidsReserve},
		{40, 256, 2, 40},
		{512, 4 * (512 + pidsReserve), 4, 512},
		{512, 4*(512+pidsReserve) - 4, 4, 511},
		{512, 2 * (MinPids + pidsReserve), 2, MinPids},
	} {
		got, err := pidsUnder(c.pids, c.soft, c.lanes)
		if err != nil || got != c.want {
			t.Errorf("pidsUnder(%d, %d, %d) = %d, %v; want %d", c.pids, c.soft, c.lanes, got, err, c.want)
		}
	}
	_, err := pidsUnder(512, MinPids+pidsReserve-1, 1)
	if err == nil || !strings.Contains(err.Error(), "ulimit -u") || !strings.Contains(err.Error(), fmt.Sprintf("at least %d", MinPids+pidsReserve)) || strings.Contains(err.Error(), "--jobs") {
		t.Errorf("a soft limit of %d: %v", MinPids+pidsReserve-1, err)
	}
	_, err = pidsUnder(512, 2*(MinPids+pidsReserve)-1, 2)
	if err == nil || !strings.Contains(err.Error(), "ulimit -u") || !strings.Contains(err.Error(), fmt.Sprintf("at least %d", 2*(MinPids+pidsReserve))) || !strings.Contains(err.Error(), "--jobs") {
		t.Errorf("a soft limit of %d shared by 2 lanes: %v", 2*(MinPids+pidsReserve)-1, err)
	}
}
