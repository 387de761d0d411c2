package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDirectRunsLeaveNoZombiesWithTheBroker: once a confined run has made
// this process a child subreaper, what a direct run's command leaves
// comes to this process: what stays in its process group is reaped when
// the group is killed, and what left it (setsid) when the next run ends,
// once it has exited; not kept a zombie for as long as an audit runs (ten
// in five runs before). So is what a doctor check leaves (bubblewrap's
// child), and what other tests of this process left.
func TestDirectRunsLeaveNoZombiesWithTheBroker(t *testing.T) {
	requireConfinement(t)
	dir := makeTree(t, nil)
	run(t, Spec{Dir: dir, Command: []string{"true"}}) // the broker is a subreaper from here on
	for range 5 {
		res := run(t, Spec{Dir: dir, Mode: ModeOff, Command: sh("(sleep 30 &); (setsid sleep 0.1 &); true")})
		if res.ExitCode != 0 {
			t.Fatalf("exit %d stderr %q", res.ExitCode, res.Stderr)
		}
	}
	ProbeConfinement(context.Background())
	// The setsid sleeps exit within 0.1 s, on a loaded machine later; and
	// anything another test left may die between a run's end and the
	// look. A zombie that a run's end leaves, run after run, is one:
	// looked for over 30 s, which a loaded machine's slow sleeps cannot
	// fill, and which a passing run does not wait out.
	var z []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		time.Sleep(300 * time.Millisecond)
		run(t, Spec{Dir: dir, Mode: ModeOff, Command: []string{"true"}})
		if z = zombieChildren(); len(z) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(z) > 0 {
		t.Errorf("zombies of this process, run after run: %v", z)
	}
}

// zombieChildren lists this process's children that are zombies.
func zombieChildren() []string {
	var out []string
	me := strconv.Itoa(os.Getpid())
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[0] == "Z" && f[1] == me {
			out = append(out, string(b[:i+1]))
		}
	}
	return out
}

// TestDirectReapGroupLeavesTheCommand: what a direct run's command left in
// its group and this process (a subreaper) got is reaped before the
// command, which stays os/exec's, with its exit status: while it is not
// reaped its pid, the group's id, is not taken, so that the group reaped
// is the run's. (The wait for the group reaped the command too, so it ran
// after os/exec's Wait, when a group of that id could be another's.) A
// child of this process in another group is left alone.
func TestDirectReapGroupLeavesTheCommand(t *testing.T) {
	becomeSubreaper()
	if !subreaper.Load() {
		t.Fatal("this process is no child subreaper")
	}
	other := exec.Command("sh", "-c", "exit 4")
	other.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	exitedNoReap(other.Process.Pid)
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("sh", "-c", "sleep 29.78 >/dev/null & echo $!; exit 3")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	exitedNoReap(pid)
	b, _ := os.ReadFile(out.Name())
	left, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	e, ok := readProcEntry(left)
	if !ok || e.PPid != os.Getpid() || e.Pgrp != pid {
		t.Fatalf("the sleep (%q: %+v, %v) is not this process's child in the command's group", b, e, ok)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	reapGroup(pid)
	if now, ok := readProcEntry(left); ok && now.Start == e.Start {
		t.Errorf("the sleep the command left (pid %d) is not reaped", left)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("the command's wait: %v, want exit status 3", err)
	}
	if err := other.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Errorf("the other child's wait: %v, want exit status 4", err)
	}
}
