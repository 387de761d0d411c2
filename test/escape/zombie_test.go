package escape

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRunsLeaveNoZombies: vigiles run three times under a pid 1 that
// never reaps (as a CI job's container runs `tail -f /dev/null`), for
// every caller, leaves no zombie with it. bubblewrap exits on the exit
// status its child, the sandbox's pid 1, sends it, and may not reap that
// child first: the child went to pid 1, one zombie a run. The broker is
// now a child subreaper and reaps it.
func TestRunsLeaveNoZombies(t *testing.T) {
	requireBwrap(t)
	requireRoot(t, "a pid namespace of the test's own needs root")
	// pid 1 of the namespace: runs vigiles, never reaps what is left to
	// it, and lists the zombies among its children.
	const pid1 = `
import os, subprocess, sys, time
for _ in range(3):
    r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
    if r.returncode != 0:
        print("RUN FAILED", r.returncode, r.stdout, r.stderr)
time.sleep(0.5)
for p in os.listdir("/proc"):
    if p.isdigit() and p != "1":
        try:
            st = open("/proc/%s/stat" % p).read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        if rest[0] == "Z" and rest[1] == "1":
            print("ZOMBIE", st[:st.rindex(")") + 1])
`
	for _, r := range runners(t) {
		t.Run(r.name, func(t *testing.T) {
			dir := workTree(t)
			if r.owner != nil {
				filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
					return os.Lchown(p, int(r.owner.Uid), int(r.owner.Gid))
				})
			}
			// pid 1 is root's (unshare needs root); the runner's vigiles
			// runs as the runner.
			args := []string{"--pid", "--fork", "--mount-proc", "python3", "-c", pid1}
			if r.cred != nil {
				args = append(args, "setpriv", "--reuid", strconv.FormatUint(uint64(r.cred.Uid), 10),
					"--regid", strconv.FormatUint(uint64(r.cred.Gid), 10), "--clear-groups")
			}
			cmd := exec.Command("unshare", append(args, vigilesBin, "run", "--workdir", dir, "--", "true")...)
			cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "RUN FAILED") || strings.Contains(string(out), "ZOMBIE") {
				t.Errorf("%v:\n%s", err, out)
			}
		})
	}
}
