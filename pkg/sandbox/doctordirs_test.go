package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/vigiles/action/internal/procwait"
)

// sweepDoctorDirs removes a dead doctor's directories that hold only what
// its check put there, and keeps every other: a live doctor's, one named
// otherwise, one of another pid namespace, one holding anything more (all
// of it kept), a link, and one of a user the doctor gives nothing to.
func TestSweepDoctorDirsKeepsWhatIsNotADeadDoctors(t *testing.T) {
	tmp := t.TempDir()
	// A dead doctor: a process this test started and reaped.
	cat := exec.Command("cat")
	in, err := cat.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.Start(); err != nil {
		t.Fatal(err)
	}
	start, err := procwait.StartTime(cat.Process.Pid)
	in.Close()
	cat.Wait()
	if err != nil {
		t.Fatal(err)
	}
	ns := procwait.SelfPidNS()
	dead := func(kind string) string {
		return fmt.Sprintf("vigiles-doctor-%s-ns%d-%d-%d-", kind, ns, cat.Process.Pid, start)
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, files ...string) string {
		t.Helper()
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(dir, f)
			var err error
			switch {
			case f[len(f)-1] == '/':
				err = os.MkdirAll(p, 0o755)
			case filepath.Base(f) == "link":
				err = os.Symlink(outside, filepath.Join(filepath.Dir(p), "pid"))
			default:
				if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
					err = os.WriteFile(p, []byte("ok\n"), 0o644)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	overlay := []string{"lower/", "upper/written", "work/work/", "merged/"}
	gone := []string{
		mk(dead("overlay")+"a", overlay...),
		mk(dead("overlay")+"b", "lower/", "upper/"),
		mk(dead("pasta")+"a", "pid"),
		mk(dead("pasta") + "b"),
	}
	kept := []string{
		mk(doctorDirPrefix("overlay")+"live", overlay...), // this test's own: a live doctor
		mk(doctorDirPrefix("pasta")+"live", "pid"),
		mk(dead("overlay")+"more", append([]string{"upper/other"}, overlay...)...),
		mk(dead("overlay")+"deep", "lower/", "work/work/x"),
		mk(dead("pasta")+"more", "pid", "other"),
		mk(dead("pasta")+"dir", "pid/"),
		mk(dead("pasta")+"link", "link"),
		mk(fmt.Sprintf("vigiles-doctor-pasta-ns%d-%d-%d-", ns+1, cat.Process.Pid, start)+"ns", "pid"),
		mk("vigiles-doctor-overlay-x", overlay...),
		mk("vigiles-doctor-seen-x"),
		mk("vigiles-pasta-x"),
	}
	linked := filepath.Join(tmp, dead("overlay")+"symlink")
	if err := os.Symlink(mk("target", overlay...), linked); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, linked, filepath.Join(tmp, "target"))
	if os.Geteuid() == 0 {
		other := mk(dead("pasta")+"other", "pid")
		if err := os.Chown(other, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, other)
		given := mk(dead("overlay")+"sandbox", overlay...)
		filepath.Walk(given, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, SandboxUID, SandboxUID) })
		gone = append(gone, given)
	}
	// What it is before the sweep, to find anything it took.
	before := map[string]bool{}
	for _, k := range kept {
		filepath.Walk(k, func(p string, _ os.FileInfo, _ error) error { before[p] = true; return nil })
	}

	sweepDoctorDirs(tmp)

	for _, g := range gone {
		if _, err := os.Lstat(g); err == nil {
			t.Errorf("%s is left", filepath.Base(g))
		}
	}
	for p := range before {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed (%v)", p[len(tmp)+1:], err)
		}
	}
	if b, err := os.ReadFile(outside); err != nil || string(b) != "keep" {
		t.Errorf("the file a link named was touched: %q, %v", b, err)
	}
}
