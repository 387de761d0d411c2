package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestUIDSlots: runs side by side get different uids, all in the
// SandboxUID range, starting at the process's window and wrapping at the
// range's end; a released uid is handed out again.
func TestUIDSlots(t *testing.T) {
	s := &uidSlots{base: SandboxUID + SandboxUIDs - 2}
	take := func() uint32 {
		t.Helper()
		uid, err := s.take()
		if err != nil {
			t.Fatal(err)
		}
		return uid
	}
	a, b, c := take(), take(), take()
	if a != SandboxUID+SandboxUIDs-2 || b != SandboxUID+SandboxUIDs-1 || c != SandboxUID {
		t.Errorf("took %d %d %d, want the window's two last uids, then the range's first", a, b, c)
	}
	s.release(b)
	if got := take(); got != b {
		t.Errorf("after releasing %d, took %d", b, got)
	}
	full := &uidSlots{base: SandboxUID, used: map[uint32]*os.File{}}
	for i := uint32(0); i < SandboxUIDs; i++ {
		full.used[SandboxUID+i] = nil
	}
	if uid, err := full.take(); !errors.Is(err, errNoUID) {
		t.Errorf("took %d (%v) with every uid held", uid, err)
	}
	if w := sandboxUIDs.base; w < SandboxUID || w >= SandboxUID+SandboxUIDs || (w-SandboxUID)%256 != 0 {
		t.Errorf("this process's window starts at %d", w)
	}
}

// TestUIDSlotsOfTwoBrokers: two brokers whose windows start at the same
// uid (their pids agree modulo 256) never hand out the same uid while
// both hold theirs; a uid one releases is the other's to take, and a
// lock directory that others may write to is not trusted.
func TestUIDSlotsOfTwoBrokers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uids")
	one := &uidSlots{base: SandboxUID + 512, dir: dir}
	two := &uidSlots{base: SandboxUID + 512, dir: dir}
	a, _ := one.take()
	b, _ := two.take()
	c, _ := one.take()
	if a != SandboxUID+512 || b != a+1 || c != a+2 {
		t.Fatalf("took %d, %d, %d; want %d and the next two", a, b, c, SandboxUID+512)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 3 {
		t.Errorf("lock files %q, want three", names)
	}
	one.release(a)
	if got, _ := two.take(); got != a {
		t.Errorf("after the first broker released %d, the second took %d", a, got)
	}
	two.release(a)
	two.release(b)
	one.release(c)
	if names, _ := filepath.Glob(filepath.Join(dir, "*")); len(names) != 0 {
		t.Errorf("lock files %q left after every uid was released", names)
	}

	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := lockDir(open); err == nil {
		t.Errorf("a lock directory anyone may write to was accepted")
	}
}

// TestUIDSlotsNameWhatKeepsThemFromTheirFiles: a uid's lock file that
// cannot be opened for another reason than another broker's lock (here a
// directory in its place; a caller's own Landlock domain that keeps
// vigiles from writing gives EACCES alike) fails the run with that
// reason, where every uid was tried in turn and the run was refused as
// if 65,536 sandboxes ran at once.
func TestUIDSlotsNameWhatKeepsThemFromTheirFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "uids")
	base := uint32(SandboxUID + 768)
	if err := os.MkdirAll(filepath.Join(dir, strconv.FormatUint(uint64(base), 10)), 0o700); err != nil {
		t.Fatal(err)
	}
	s := &uidSlots{base: base, dir: dir}
	uid, err := s.take()
	if err == nil || errors.Is(err, errNoUID) || !strings.Contains(err.Error(), fmt.Sprintf("claiming uid %d", base)) || !errors.Is(err, syscall.EISDIR) {
		t.Errorf("took %d, %v; want the error of uid %d's lock file", uid, err, base)
	}
}
