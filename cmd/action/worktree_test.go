package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWorkTreeThatCannotBeOne: a work tree that cannot be one is said
// as README.md's rules say. What the path itself tells, before anything
// runs, is bad usage (exit 2, its reason on stderr, no document on stdout
// under --json, as docs/result-format.md says): a path that is not
// there, a file, a FIFO, and a directory of the kernel's own file systems
// (/proc, /sys), which holds no project (the sandbox refused those with
// exit 125, naming id-mapped mounts or bubblewrap's mkdir, not the path).
// A directory the sandbox will not show the command whole, as the root
// holds the TMPDIR and HOME it hides, is the sandbox's refusal (exit 125,
// and under --json a document whose refusal says why).
func TestWorkTreeThatCannotBeOne(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/proc/self", "/sys/kernel"} {
		if _, err := os.Stat(p); err != nil {
			missing(t, p+" (the kernel's proc and sysfs mounted)")
		}
	}
	const kernels = `is a directory of the kernel's %s, which holds the host's state, not a project: name the project's directory with `
	proc, sysfs := strings.Replace(kernels, "%s", "proc", 1), strings.Replace(kernels, "%s", "sysfs", 1)
	for _, tc := range []struct {
		args []string
		want string // all of stderr
	}{
		{[]string{"run", "--json", "--workdir", file, "--", "true"}, `vigiles: run: --workdir "` + file + `" is not a directory`},
		{[]string{"run", "--json", "--workdir", fifo, "--", "true"}, `vigiles: run: --workdir "` + fifo + `" is not a directory`},
		{[]string{"run", "--json", "--workdir", filepath.Join(dir, "none"), "--", "true"}, `vigiles: run: --workdir "` + filepath.Join(dir, "none") + `" does not exist`},
		{[]string{"run", "--json", "--workdir", "/proc", "--", "true"}, `vigiles: run: --workdir "/proc" ` + proc + "--workdir"},
		{[]string{"run", "--json", "--workdir", "/proc/self", "--", "true"}, `vigiles: run: --workdir "/proc/self" ` + proc + "--workdir"},
		{[]string{"run", "--json", "--workdir", "/proc/sys", "--", "true"}, `vigiles: run: --workdir "/proc/sys" ` + proc + "--workdir"},
		{[]string{"run", "--json", "--workdir", "/sys", "--", "true"}, `vigiles: run: --workdir "/sys" ` + sysfs + "--workdir"},
		{[]string{"run", "--json", "--workdir", "/sys/kernel", "--", "true"}, `vigiles: run: --workdir "/sys/kernel" ` + sysfs + "--workdir"},
		// In the open too: no project is there to run in.
		{[]string{"run", "--json", "--trusted", "--workdir", "/proc", "--", "true"}, `vigiles: run: --workdir "/proc" ` + proc + "--workdir"},
		{[]string{"audit", "--dir", "/proc"}, `vigiles: audit: --dir "/proc" ` + proc + "--dir"},
		{[]string{"test", "--dir", "/sys/kernel"}, `vigiles: test: --dir "/sys/kernel" ` + sysfs + "--dir"},
	} {
		code, out, errs := runCLI(t, tc.args...)
		if code != 2 || out != "" || errs != tc.want+"\n" {
			t.Errorf("vigiles %q: exit %d, stdout %q, stderr\n%q\nwant exit 2, no stdout, stderr\n%q", tc.args, code, out, errs, tc.want+"\n")
		}
	}
	// The current directory, the work tree without --workdir, likewise.
	t.Run("cwd", func(t *testing.T) {
		t.Chdir("/proc")
		code, out, errs := runCLI(t, "run", "--json", "--", "true")
		if want := "vigiles: run: the current directory, the work tree without --workdir, " + proc + "--workdir\n"; code != 2 || out != "" || errs != want {
			t.Errorf("in /proc: exit %d, stdout %q, stderr\n%q\nwant exit 2, no stdout, stderr\n%q", code, out, errs, want)
		}
	})
	// The root is a directory, and a run in the open may have it; a
	// confined run is refused by the sandbox, which would hide part of
	// the tree and show the rest.
	if _, err := exec.LookPath("bwrap"); err != nil {
		missing(t, "bubblewrap")
	}
	code, out, errs := runCLI(t, "run", "--json", "--workdir", "/", "--", "true")
	var doc struct {
		Tier, Refusal string
		ExitCode      int
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 125 || doc.Tier != "refused" || doc.ExitCode != 125 ||
		!strings.Contains(doc.Refusal, "the work tree / holds ") || !strings.Contains(doc.Refusal, "which a confined run hides from the command") {
		t.Errorf("run --json --workdir /: exit %d, %+v (%v); want 125 and a refusal that says what the tree holds\n%s%s", code, doc, err, out, errs)
	}
	code, out, errs = runCLI(t, "run", "--workdir", "/", "--", "true")
	if code != 125 || out != "" || !strings.Contains(errs, "the work tree / holds ") {
		t.Errorf("run --workdir /: exit %d, stdout %q, stderr\n%s\nwant 125 and the refusal on stderr", code, out, errs)
	}
}
