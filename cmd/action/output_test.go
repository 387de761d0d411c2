package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The tests of this file run vigiles as a process of its own where what
// is tested is the process's: its stdout (an unlinked file), its mount
// namespace (a bind mount), its user (nobody). The process is this test
// binary running TestOutputHelperCLI, which plays vigiles when
// helperEnv is set.

const (
	helperEnv = "VIGILES_OUTPUT_TEST_HELPER"
	// bindEnv, "SRC\nDST" or "ro\nDIR" lines, are the mounts the helper
	// makes (in a mount namespace of its own) before it runs vigiles.
	bindEnv = "VIGILES_OUTPUT_TEST_MOUNTS"
)

// TestOutputHelperCLI is not a test: run by helperCLI, it makes the mounts
// bindEnv asks for, then runs vigiles with the arguments after "--" and
// exits with its status.
func TestOutputHelperCLI(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	if m := os.Getenv(bindEnv); m != "" {
		lines := strings.Split(m, "\n")
		for i := 0; i+1 < len(lines); i += 2 {
			var err error
			if lines[i] == "ro" {
				d := lines[i+1]
				if err = unix.Mount(d, d, "", unix.MS_BIND, ""); err == nil {
					err = unix.Mount("", d, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY, "")
				}
			} else {
				err = unix.Mount(lines[i], lines[i+1], "", unix.MS_BIND, "")
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "helper: mount %q: %v\n", lines[i:i+2], err)
				os.Exit(3)
			}
		}
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	err := run(context.Background(), args, os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr, false))
}

// helperCLI is a command that runs exe (this test binary, or a copy of it)
// as vigiles with args, as TestOutputHelperCLI does, after prefix (a
// command that runs the rest: setpriv).
func helperCLI(exe string, prefix []string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, prefix...), exe, "-test.run=^TestOutputHelperCLI$", "--"), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	return cmd
}

// exitOf is the exit status of cmd's Run that returned err.
func exitOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("running vigiles: %v", err)
	return -1
}

// mergeInput writes a report to merge into dir and returns its path and
// what merge --format json -o FILE writes of it.
func mergeInput(t *testing.T, dir string) (string, []byte) {
	t.Helper()
	withExecutor(t, fixedHooks())
	repo := writeFiles(t, map[string]string{".vigiles.yml": manyChecks(3)})
	in := filepath.Join(dir, "in.json")
	if code, _, errs := runCLI(t, "test", "--dir", repo, "-q", "--format", "json", "-o", in); code != 0 {
		t.Fatalf("the report to merge: exit %d: %s", code, errs)
	}
	if err := os.Chmod(in, 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(t.TempDir(), "want.json")
	if code, _, errs := runCLI(t, "merge", "--format", "json", "-o", want, in); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(want)
	if err != nil || len(b) == 0 {
		t.Fatalf("merge wrote %q (%v)", b, err)
	}
	return in, b
}

// TestReportToAnOpenDescriptorIsWrittenThroughIt: -o /dev/stdout (and
// /dev/fd/N, /proc/self/fd/N, a link to /dev/stdout) is written through
// the descriptor, whatever file stdout is: a regular file that has been
// unlinked (Python's subprocess.run(..., stdout=tempfile.TemporaryFile()))
// gets the report, and one that has a name keeps it, the report in it.
// The rename route failed the first ("lstat /tmp/#9978036 (deleted)",
// exit 125) and renamed a new file over the second's name, which left the
// file stdout was empty.
func TestReportToAnOpenDescriptorIsWrittenThroughIt(t *testing.T) {
	dir := t.TempDir()
	in, want := mergeInput(t, dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	link := filepath.Join(outDir, "report.json")
	if err := os.Symlink("/dev/stdout", link); err != nil {
		t.Fatal(err)
	}
	for _, unlinked := range []bool{true, false} {
		for _, path := range []string{"/dev/stdout", "/dev/fd/1", "/proc/self/fd/1", link} {
			name := fmt.Sprintf("-o %s, stdout a file unlinked: %v", path, unlinked)
			f, err := os.CreateTemp(outDir, "stdout-")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if unlinked {
				if err := os.Remove(f.Name()); err != nil {
					t.Fatal(err)
				}
			}
			cmd := helperCLI(exe, nil, "merge", "--format", "json", "-o", path, in)
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = f, &errb
			code := exitOf(t, cmd.Run())
			got, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<30))
			if err != nil {
				t.Fatal(err)
			}
			if code != 0 || errb.Len() != 0 || !bytes.Equal(got, want) {
				t.Errorf("%s: exit %d (want 0), stderr %q; the file stdout was holds %d bytes, want the report's %d", name, code, errb.String(), len(got), len(want))
			}
			if !unlinked {
				fi, err1 := f.Stat()
				ni, err2 := os.Stat(f.Name())
				if err1 != nil || err2 != nil || !os.SameFile(fi, ni) {
					t.Errorf("%s: %s is no longer the file stdout was (%v, %v): it was replaced", name, f.Name(), err1, err2)
				}
				os.Remove(f.Name())
			}
		}
	}
	if li, err := os.Lstat(link); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to /dev/stdout was replaced (%v)", err)
	}
	if names, _ := os.ReadDir(outDir); len(names) != 1 {
		t.Errorf("files left beside the output: %v; want report.json alone", names)
	}
}

// TestReportFileBindMountedIsWritten: an -o file that is a mount point (a
// bind-mounted file: docker run -v $PWD/report.json:/out/report.json) gets
// the report, written in place, through to the file mounted, and so does
// one bind-mounted into a read-only tree (docker run --read-only), where
// no file can be made beside it. The rename route failed both: "rename …:
// device or resource busy", and, up front, "cannot be replaced" (exit 2).
// Nothing is left beside it.
func TestReportFileBindMountedIsWritten(t *testing.T) {
	if os.Geteuid() != 0 {
		missing(t, "root, for a mount namespace with a bind mount (unshare -m)")
	}
	dir := t.TempDir()
	in, want := mergeInput(t, dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, readOnly := range []bool{false, true} {
		host := filepath.Join(t.TempDir(), "host-report.json")
		out := filepath.Join(t.TempDir(), "out")
		dst := filepath.Join(out, "report.json")
		for p, c := range map[string]string{host: "old report", dst: "mount point"} {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		mounts := host + "\n" + dst
		if readOnly {
			mounts = "ro\n" + out + "\n" + mounts
		}
		cmd := helperCLI(exe, nil, "merge", "--format", "json", "-o", dst, in)
		cmd.Env = append(cmd.Env, bindEnv+"="+mounts)
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS} // as unshare -m: the mounts are its own
		var outb, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &outb, &errb
		code := exitOf(t, cmd.Run())
		if code == 3 {
			t.Fatalf("the helper could not mount: %s", errb.String())
		}
		got, _ := os.ReadFile(host)
		if code != 0 || errb.Len() != 0 || outb.Len() != 0 || !bytes.Equal(got, want) {
			t.Errorf("read-only tree: %v: exit %d (want 0), stdout %q, stderr %q; the file mounted holds %q", readOnly, code, outb.String(), errb.String(), got)
		}
		if b, _ := os.ReadFile(dst); string(b) != "mount point" {
			t.Errorf("read-only tree: %v: the file under the mount was written: %q", readOnly, b)
		}
		if names, _ := os.ReadDir(out); len(names) != 1 {
			t.Errorf("read-only tree: %v: files left beside the output: %v; want report.json alone", readOnly, names)
		}
	}
}

// TestReportFileInADirectoryThatMayNotBeWritten: an existing file the
// caller may write, in a directory it may not, gets the report, written
// in place, as it did before the rename route, which refused it up front
// ("cannot be replaced: its directory … may not be written", exit 2).
// What was refused before still is: a new file there, and a file that
// may not be written. A directory that may be written but not listed
// takes the report. Root may write any directory: as root, vigiles runs
// as nobody (setpriv).
func TestReportFileInADirectoryThatMayNotBeWritten(t *testing.T) {
	base := nobodysDir(t, "vigiles-output-", "ro")
	ro := filepath.Join(base, "ro")
	in, want := mergeInput(t, base)
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	report, locked := filepath.Join(ro, "report.json"), filepath.Join(ro, "locked.json")
	for p, mode := range map[string]os.FileMode{report: 0o666, locked: 0o444} {
		if err := os.WriteFile(p, []byte("old report"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	code, out, errs := unprivileged(t, base, "merge", "--format", "json", "-o", report, in)
	got, _ := os.ReadFile(report)
	if code != 0 || out != "" || errs != "" || !bytes.Equal(got, want) {
		t.Errorf("a writable file in a directory that may not be written: exit %d (want 0), stdout %q, stderr %q; it holds %q", code, out, errs, got)
	}
	for _, tc := range []struct{ path, why string }{
		{filepath.Join(ro, "new.json"), fmt.Sprintf("cannot be made: %q may not be written", ro)},
		{locked, "may not be written"},
	} {
		code, _, errs := unprivileged(t, base, "merge", "--format", "json", "-o", tc.path, in)
		if want := fmt.Sprintf("merge: --output %q %s", tc.path, tc.why); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("-o %s: exit %d (want 2), stderr %q; want %q", tc.path, code, errs, want)
		}
	}
	if b, _ := os.ReadFile(locked); string(b) != "old report" {
		t.Errorf("the file that may not be written was: %q", b)
	}
	if names, _ := os.ReadDir(ro); len(names) != 2 {
		t.Errorf("files in the directory: %v; want report.json and locked.json", names)
	}
	// A directory that may be written but not listed (a drop box, 0333)
	// takes a new report, and one that replaces it, by the rename route
	// (it failed: "open DIR/: permission denied").
	drop := filepath.Join(base, "drop")
	if err := os.Mkdir(drop, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(drop, 0o333); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(drop, 0o755) })
	for _, what := range []string{"a new report", "one that replaces it"} {
		code, out, errs = unprivileged(t, base, "merge", "--format", "json", "-o", filepath.Join(drop, "report.json"), in)
		got, _ = os.ReadFile(filepath.Join(drop, "report.json"))
		if code != 0 || out != "" || errs != "" || !bytes.Equal(got, want) {
			t.Errorf("%s in a directory that may not be listed: exit %d (want 0), stdout %q, stderr %q; it holds %q", what, code, out, errs, got)
		}
	}
}

// TestReportInTheKernelsFilesIsBadUsage: -o in /proc is refused before
// anything runs, as a directory that may not be written is, though
// access(2) lets root write there (it failed with exit 125 after every
// hook had run).
func TestReportInTheKernelsFilesIsBadUsage(t *testing.T) {
	in := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(in, []byte(`{"schema":"vigiles.report/v1","tool":{"name":"vigiles","version":"x"},"verdict":"pass","runs":[],"findings":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, why string }{
		{"/proc/vigiles-nope.json", `cannot be made: "/proc" is in the kernel's proc, where no file is made`},
		{"/proc/version", "is a file of the kernel's proc, not a report's place"},
	} {
		code, _, errs := runCLI(t, "merge", "--format", "json", "-o", tc.path, in)
		if want := fmt.Sprintf("merge: --output %q %s", tc.path, tc.why); code != 2 || !strings.Contains(errs, want) {
			t.Errorf("-o %s: exit %d (want 2), stderr %q; want %q", tc.path, code, errs, want)
		}
	}
}

// TestReportWrittenInPlaceSaysItMayBeCut: a write in place that fails
// once the file is open (-o /dev/full: no space left on device) says
// that what was there may be cut, not that it was left as it was.
func TestReportWrittenInPlaceSaysItMayBeCut(t *testing.T) {
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		missing(t, "/dev/full")
	}
	in, _ := mergeInput(t, t.TempDir())
	code, _, errs := runCLI(t, "merge", "--format", "json", "-o", "/dev/full", in)
	if want := "merge: --output /dev/full was not written whole (it was written in place, so what was there may be cut): write /dev/full: no space left on device"; code != 125 || !strings.Contains(errs, want) {
		t.Errorf("exit %d (want 125), stderr %q; want %q", code, errs, want)
	}
}

// unprivileged runs vigiles with args as a user that the directories the
// test locked hold to their modes: the test's own where it is not root,
// else nobody, from dir (asNobody); root may write any directory.
func unprivileged(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return runCLI(t, args...)
	}
	return asNobody(t, dir, args...)
}

// asNobody runs vigiles with args as the user nobody (setpriv), from a
// copy of this test binary in dir (a directory nobody may enter), and
// returns its exit status and output.
func asNobody(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		missing(t, "setpriv (util-linux), to run vigiles as nobody")
	}
	exe := filepath.Join(dir, "vigiles.test")
	if _, err := os.Stat(exe); err != nil {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(self)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exe, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := helperCLI(exe, []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
	cmd.Dir = dir
	var outb, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outb, &errb
	return exitOf(t, cmd.Run()), outb.String(), errb.String()
}

// nobodysDir is a new directory that nobody, as whom asNobody runs
// vigiles, may enter and list (not under the test's TempDir, which it may
// not), removed after the test, once its directories locked (relative to
// it), which the test took write or search away from, are given them
// back.
func nobodysDir(t *testing.T, prefix string, locked ...string) string {
	t.Helper()
	base, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, l := range locked {
			os.Chmod(filepath.Join(base, l), 0o755)
		}
		os.RemoveAll(base)
	})
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	return base
}

// missing fails the test in CI, where what it needs must be there, and
// skips it elsewhere, saying what is missing.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and this machine lacks %s", what)
	}
	t.Skipf("this machine lacks %s", what)
}

// TestUpdateBaselineWhereItCannotBeWritten: audit --update-baseline in a
// tree whose .vigiles (or, where there is none yet, whose root) may not
// be written is bad usage said before any hook runs, naming the directory
// and the fix, as an -o there is; it failed with exit 125 after every
// hook had run, on "open .vigiles/.baseline.json.….tmp: permission
// denied". Root may write any directory: as root, vigiles runs as nobody
// (setpriv).
func TestUpdateBaselineWhereItCannotBeWritten(t *testing.T) {
	base := nobodysDir(t, "vigiles-baseline-", "kept/.vigiles", "fresh")
	kept, fresh, blocked := filepath.Join(base, "kept"), filepath.Join(base, "fresh"), filepath.Join(base, "blocked")
	const baseline = `{"schema": "vigiles.baseline/v2", "runs": {}}` + "\n"
	for p, c := range map[string]string{
		filepath.Join(kept, ".claude", "settings.json"):  `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		filepath.Join(kept, defaultBaseline):             baseline,
		filepath.Join(fresh, ".claude", "settings.json"): `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`,
		// A file where .vigiles, the baseline's directory, is made.
		filepath.Join(blocked, ".vigiles"): "",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{filepath.Join(kept, ".vigiles"), fresh} {
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	const named = "the baseline .vigiles/baseline.json (the default; --baseline names another)"
	const fix = "; give this user write access there, or name another file with --baseline\n"
	for _, c := range []struct{ dir, want string }{
		{kept, fmt.Sprintf("vigiles: audit: --update-baseline: %s cannot be replaced: its directory %q may not be written (the new baseline is made there, then renamed over the old one)%s", named, filepath.Join(kept, ".vigiles"), fix)},
		{fresh, fmt.Sprintf("vigiles: audit: --update-baseline: %s cannot be made: %q may not be written%s", named, fresh, fix)},
		{blocked, fmt.Sprintf("vigiles: audit: --update-baseline: %s cannot be made: %q is not a directory; name another file with --baseline\n", named, filepath.Join(blocked, ".vigiles"))},
	} {
		code, out, errs := unprivileged(t, base, "audit", "--dir", c.dir, "--update-baseline")
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("audit --dir %s --update-baseline: exit %d, stdout %q, stderr %q; want status 2, before any run, and %q", c.dir, code, out, errs, c.want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(kept, defaultBaseline)); err != nil || string(b) != baseline {
		t.Errorf("the baseline: %q, %v; want it as it was", b, err)
	}
}

// TestWorkTreeTheCallerMayNotRead: a --dir or --workdir the user vigiles
// runs as may not read, or reach, is bad usage that says so and names
// the fix, before anything runs. It was told by what failed first in its
// place: the policy file (there was none) said to be unreadable, "work
// tree: lstat …: permission denied" (exit 125), an overlay refused. Root
// reads every directory: as root, vigiles runs as nobody (setpriv).
func TestWorkTreeTheCallerMayNotRead(t *testing.T) {
	base := nobodysDir(t, "vigiles-tree-", "priv")
	priv := filepath.Join(base, "priv")
	if err := os.MkdirAll(filepath.Join(priv, "sub", ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(priv, "sub", ".claude", "settings.json"), []byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	root, uid := os.Geteuid() == 0, os.Geteuid()
	vigiles := func(args ...string) (int, string, string) {
		t.Helper()
		if !root {
			if err := os.Chmod(priv, 0o000); err != nil {
				t.Fatal(err)
			}
			t.Chdir(base)
			return runCLI(t, args...)
		}
		return asNobody(t, base, args...)
	}
	if root {
		uid = 65534
	}
	const fix = "; run vigiles as a user who may read it (its owner), or make it readable\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "--dir", "priv"}, fmt.Sprintf(`vigiles: audit: --dir "priv" may not be read by this user (uid %d)%s`, uid, fix)},
		{[]string{"test", "--dir", "priv/sub"}, fmt.Sprintf(`vigiles: test: --dir "priv/sub" cannot be reached by this user (uid %d): it, or a directory on its path, may not be searched%s`, uid, fix)},
		{[]string{"run", "--workdir", "priv", "--", "true"}, fmt.Sprintf(`vigiles: run: --workdir "priv" may not be read by this user (uid %d)%s`, uid, fix)},
	} {
		code, out, errs := vigiles(c.args...)
		if code != 2 || out != "" || errs != c.want {
			t.Errorf("vigiles %s: exit %d, stdout %q, stderr %q; want status 2 and %q", strings.Join(c.args, " "), code, out, errs, c.want)
		}
	}
}
