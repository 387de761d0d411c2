package escape

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledBrokerLeavesNoConnector: vigiles killed (SIGKILL) while an
// allow-mode run's command runs leaves no connector behind, with either
// connector. pasta, daemonized with --no-netns-quit (the sandbox's
// namespaces bound onto files, as root's sandbox is another uid's), lived
// on for good after such a kill, keeping the dead sandbox's namespaces;
// now a guard whose pipe only the broker holds ends it. slirp4netns ends
// on its --exit-fd.
func TestKilledBrokerLeavesNoConnector(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "allow mode is tested as root here (slirp4netns needs /dev/net/tun, which is 0600 on these machines)")
	for _, c := range []string{"slirp4netns", "pasta"} {
		if _, err := exec.LookPath(c); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI", c)
			}
			t.Logf("%s is not installed: left out", c)
			continue
		}
		t.Run(c, func(t *testing.T) {
			dir := workTree(t)
			marker := "vigiles-killed-broker-" + strconv.Itoa(os.Getpid())
			cmd := exec.Command(vigilesBin, "run", "--workdir", dir, "--egress", "allow", "--allow-ip", "192.0.2.1/32", "--connector", c,
				"--", "sh", "-c", "echo started; exec sleep 60 # "+marker)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
			cmd.Dir = dir
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// The command runs once the connector is up: "started" is its
			// first line, passed through by vigiles run.
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || !strings.Contains(line, "started") {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the command never started (%v): %q", err, line)
			}
			// The run's connector is below its broker (pasta runs in the
			// foreground under its guard shell): not any new one on the
			// machine, since other test packages start connectors of
			// their own meanwhile, and this test kills what outlives.
			var connector []int
			for pid := range processesNamed(c) {
				if descends(pid, cmd.Process.Pid) {
					connector = append(connector, pid)
				}
			}
			if len(connector) == 0 {
				t.Errorf("no %s of the run's found", c)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			deadline := time.Now().Add(time.Minute) // a bound on a hang, not a measure
			for _, pid := range connector {
				for alive(pid) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if alive(pid) {
					t.Errorf("%s (pid %d) still runs after the broker was killed", c, pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// processesNamed is the set of processes whose argv[0] is name (pasta
// shows as passt.avx2 and the like in its stat, so its argv is read).
func processesNamed(name string) map[int]bool {
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		argv, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if a0, _, _ := strings.Cut(string(argv), "\x00"); filepath.Base(a0) == name {
			out[p] = true
		}
	}
	return out
}

func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}
