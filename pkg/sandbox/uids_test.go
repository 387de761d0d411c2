package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUIDSlots: runs side by side get different uids, all in the
// SandboxUID range, starting at the process's window and wrapping at the
// range's end; a released uid is handed out again.
func TestUIDSlots(t *testing.T) {
	s := &uidSlots{base: SandboxUID + SandboxUIDs - 2}
	take := func() uint32 {
		t.Helper()
		uid, ok := s.take()
		if !ok {
			t.Fatal("no uid left")
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
	if uid, ok := full.take(); ok {
		t.Errorf("took %d with every uid held", uid)
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
