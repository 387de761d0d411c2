package escape

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBrokenPipeDoesNotKillVigiles: an audit whose progress goes to a
// pipe the reader closes (vigiles audit 2>&1 | head -1) carries on, writes
// its report and leaves no cgroup of its runs. Go's runtime let the first
// write to the closed pipe kill vigiles with SIGPIPE (status 141): no
// report, the runs under way unreaped, their cgroups left on the host.
func TestBrokenPipeDoesNotKillVigiles(t *testing.T) {
	requireBwrap(t)
	dir := workTree(t)
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "sleep 0.5; echo a"}]}],` +
		` "SessionStart": [{"hooks": [{"type": "command", "command": "sleep 0.5; echo b"}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(vigilesBin, "audit", "--dir", dir, "--sandbox", "strict", "--format", "json", "-o", out)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The plan's line comes first; then the reader goes away, as head's
	// does, before the runs' lines are written.
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || !strings.Contains(line, "planned") {
		t.Errorf("first line %q (%v), want the plan", line, err)
	}
	r.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) && !ee.Exited() {
		t.Fatalf("vigiles was killed (%v) by a write to the closed pipe", err)
	}
	b, rerr := os.ReadFile(out)
	if rerr != nil || !strings.Contains(string(b), `"verdict"`) {
		t.Errorf("the report was not written (%v; exit %v): %.200q", rerr, err, b)
	}
	pid := strconv.Itoa(cmd.Process.Pid)
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory"} {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if f := strings.Split(e.Name(), "-"); len(f) == 5 && f[0] == "vigiles" && f[2] == pid {
				t.Errorf("a cgroup of the audit's runs is left: %s", filepath.Join(root, e.Name()))
			}
		}
	}
}
