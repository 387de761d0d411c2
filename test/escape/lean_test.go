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

// TestLeanSandboxBinaryIsUsed checks that, with vigiles-sandbox beside the
// vigiles binary (as `make build` and the image ship them), the init runs
// from the lean binary.
func TestLeanSandboxBinaryIsUsed(t *testing.T) {
	requireBwrap(t)
	dir := workTree(t)
	cmd := exec.Command(vigilesBin, "run", "--json", "--workdir", dir, "--", "sleep", "2")
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if _, args, _ := bytes.Cut(b, []byte{0}); err != nil || !bytes.HasPrefix(args, []byte("__vigiles-init\x00")) {
				continue
			}
			// Other packages' tests run sandboxes at the same time: only
			// a descendant of this vigiles counts.
			pid, _ := strconv.Atoi(e.Name())
			if !descends(pid, cmd.Process.Pid) {
				continue
			}
			// The file is what counts (bwrap execs it by descriptor).
			got, err := os.Stat(filepath.Join("/proc", e.Name(), "exe"))
			if err != nil {
				continue
			}
			lean, err := os.Stat(filepath.Join(filepath.Dir(vigilesBin), "vigiles-sandbox"))
			if err != nil {
				t.Fatal(err)
			}
			if !os.SameFile(got, lean) {
				t.Errorf("the init does not run the lean vigiles-sandbox beside vigiles")
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no init process seen")
}

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
