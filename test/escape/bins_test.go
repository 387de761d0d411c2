package escape

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// binsDir copies the binaries the suite built into a directory every uid
// may enter, each with its mode (past the umask), and returns it.
func binsDir(t *testing.T, modes map[string]os.FileMode) string {
	t.Helper()
	bin := openTempDir(t, "", "vigiles-escape-bins-")
	for name, mode := range modes {
		copyFile(t, filepath.Join(filepath.Dir(vigilesBin), name), filepath.Join(bin, name), mode)
		if err := os.Chmod(filepath.Join(bin, name), mode); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// buildStandIn builds the Go program src (standard library only) as
// bin/name, mode 0755: a stand-in for an in-sandbox binary of another
// build. A binary, not a script: the init execs the reaper through a
// close-on-exec descriptor, which an interpreter could not reopen.
func buildStandIn(t *testing.T, bin, name, src string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "standin.go")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(bin, name))
	build := exec.Command("go", "build", "-o", filepath.Join(bin, name), file)
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the stand-in: %v\n%s", err, out)
	}
	if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
		t.Fatal(err)
	}
}

// runFrom runs `vigiles run --json --workdir dir -- command...` with the
// vigiles in bin, as cred where it is not nil, and returns its result.
// A vigiles that has not ended in 2 minutes (as vigiles() bounds it) is
// killed and the test fails, rather than the package's timeout ending it
// and every other test's result with it.
func runFrom(t *testing.T, bin, dir string, cred *syscall.Credential, command ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "vigiles"), append([]string{"run", "--json", "--workdir", dir, "--"}, command...)...)
	cmd.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.WaitDelay = 10 * time.Second // a leftover holding the output does not hold the test
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	out, _ := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("vigiles run -- %q had not ended in 2 minutes; killed: %s", command, out)
	}
	var r result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("no JSON result: %v: %s", err, out)
	}
	return r
}
