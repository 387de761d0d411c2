package landlock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

const childEnv = "VIGILES_LANDLOCK_TEST_CHILD" // holds the test directory

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(childMain(dir))
	}
	os.Exit(m.Run())
}

func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this machine lacks %s", what)
	}
	t.Skipf("this machine lacks %s", what)
}

func requireLandlock(t *testing.T) int {
	t.Helper()
	abi, err := ABI()
	if err != nil {
		missing(t, "landlock: "+err.Error())
	}
	return abi
}

func TestABI(t *testing.T) {
	abi := requireLandlock(t)
	if abi < 1 {
		t.Fatalf("ABI() = %d without an error, want >= 1", abi)
	}
	t.Logf("landlock ABI %d", abi)
}

func TestHandledAccess(t *testing.T) {
	for _, c := range []struct {
		abi          int
		refer, trunc bool
	}{
		{1, false, false},
		{2, true, false},
		{3, true, true},
		{7, true, true},
	} {
		h := HandledAccess(c.abi)
		if h&accessFSv1 != accessFSv1 {
			t.Errorf("abi %d: v1 rights missing from %#x", c.abi, h)
		}
		if got := h&unix.LANDLOCK_ACCESS_FS_REFER != 0; got != c.refer {
			t.Errorf("abi %d: REFER handled = %v, want %v", c.abi, got, c.refer)
		}
		if got := h&unix.LANDLOCK_ACCESS_FS_TRUNCATE != 0; got != c.trunc {
			t.Errorf("abi %d: TRUNCATE handled = %v, want %v", c.abi, got, c.trunc)
		}
		if h&unix.LANDLOCK_ACCESS_FS_IOCTL_DEV != 0 {
			t.Errorf("abi %d: IOCTL_DEV must stay unhandled", c.abi)
		}
	}
}

func result(err error) string {
	if err == nil {
		return "OK"
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return unix.ErrnoName(errno)
	}
	return err.Error()
}

// childMain restricts itself to writing beneath dir/w and reports what
// each attempt gave.
func childMain(dir string) int {
	runtime.LockOSThread() // never unlocked: the restriction is per thread
	w, ro := filepath.Join(dir, "w"), filepath.Join(dir, "ro")
	if err := RestrictWrites([]string{w}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	res := map[string]string{}
	res["write w/new"] = result(os.WriteFile(filepath.Join(w, "new"), []byte("x"), 0o600))
	res["mkdir w/d"] = result(os.Mkdir(filepath.Join(w, "d"), 0o700))
	res["rename within w"] = result(os.Rename(filepath.Join(w, "new"), filepath.Join(w, "d", "moved")))
	res["read ro/existing"] = result(func() error { _, err := os.ReadFile(filepath.Join(ro, "existing")); return err }())
	res["read /etc/passwd"] = result(func() error { _, err := os.ReadFile("/etc/passwd"); return err }())
	res["write ro/new"] = result(os.WriteFile(filepath.Join(ro, "new"), []byte("x"), 0o600))
	res["open ro/existing for writing"] = result(func() error {
		f, err := os.OpenFile(filepath.Join(ro, "existing"), os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		return err
	}())
	res["truncate ro/existing"] = result(os.Truncate(filepath.Join(ro, "existing"), 0))
	res["remove ro/existing"] = result(os.Remove(filepath.Join(ro, "existing")))
	res["mkdir ro/d"] = result(os.Mkdir(filepath.Join(ro, "d"), 0o700))
	res["symlink in ro"] = result(os.Symlink("/", filepath.Join(ro, "s")))
	res["mkfifo in ro"] = result(unix.Mkfifo(filepath.Join(ro, "fifo"), 0o600))
	res["write through w/link into ro"] = result(os.WriteFile(filepath.Join(w, "link", "via-link"), []byte("x"), 0o600))
	res["rename w -> ro"] = result(os.Rename(filepath.Join(w, "d", "moved"), filepath.Join(ro, "moved")))
	res["hard link ro/existing into w"] = result(os.Link(filepath.Join(ro, "existing"), filepath.Join(w, "hard")))
	res["write /tmp"] = result(os.WriteFile(filepath.Join(os.TempDir(), "vigiles-landlock-escape"), []byte("x"), 0o600))
	// Processes started afterwards inherit the restriction.
	res["sh writes w"] = result(exec.Command("/bin/sh", "-c", "echo x > \"$1\"/fromsh", "sh", w).Run())
	res["sh writes ro"] = result(exec.Command("/bin/sh", "-c", "echo x > \"$1\"/fromsh", "sh", ro).Run())
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		return 3
	}
	return 0
}

func TestRestrictWritesForReal(t *testing.T) {
	abi := requireLandlock(t)
	dir := t.TempDir()
	w, ro := filepath.Join(dir, "w"), filepath.Join(dir, "ro")
	for _, d := range []string{w, ro} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ro, "existing"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ro, filepath.Join(w, "link")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(os.TempDir(), "vigiles-landlock-escape"))

	runtime.LockOSThread()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	runtime.UnlockOSThread()
	if err != nil {
		t.Fatalf("child: %v; stderr: %s", err, stderr.Bytes())
	}
	var got map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("decoding child report: %v; %q", err, stdout.Bytes())
	}

	allowed := []string{"write w/new", "mkdir w/d", "rename within w", "read ro/existing",
		"read /etc/passwd", "sh writes w"}
	denied := []string{"write ro/new", "open ro/existing for writing", "remove ro/existing",
		"mkdir ro/d", "symlink in ro", "mkfifo in ro", "write through w/link into ro",
		"rename w -> ro", "write /tmp", "sh writes ro"}
	if abi >= 3 {
		denied = append(denied, "truncate ro/existing")
	}
	if abi >= 2 {
		// Linking a file from a read-only tree into a writable one is a
		// reparenting that needs REFER on the source.
		denied = append(denied, "hard link ro/existing into w")
	}
	for _, n := range allowed {
		if got[n] != "OK" {
			t.Errorf("%s: got %s, want OK", n, got[n])
		}
	}
	for _, n := range denied {
		if got[n] == "OK" || got[n] == "" {
			t.Errorf("%s: got %q, want a denial", n, got[n])
		}
	}
	t.Logf("results: %v", got)

	// Nothing outside w changed.
	ents, err := os.ReadDir(ro)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "existing" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("ro holds %v, want only existing", names)
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "existing")); string(b) != "keep" {
		t.Errorf("ro/existing = %q, want keep", b)
	}
	if _, err := os.Lstat(filepath.Join(os.TempDir(), "vigiles-landlock-escape")); err == nil {
		t.Errorf("the child wrote into %s", os.TempDir())
	}
}

func TestRestrictWritesMissingPath(t *testing.T) {
	requireLandlock(t)
	// A missing writable path must fail before anything is restricted; run
	// it in the test process itself, on a thread that is then discarded.
	absent := filepath.Join(t.TempDir(), "absent")
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		done <- RestrictWrites([]string{absent})
	}()
	err := <-done
	if !errors.Is(err, unix.ENOENT) {
		t.Fatalf("RestrictWrites(absent) = %v, want ENOENT", err)
	}
}
