package sandbox

import "testing"

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
	full := &uidSlots{base: SandboxUID, used: map[uint32]bool{}}
	for i := uint32(0); i < SandboxUIDs; i++ {
		full.used[SandboxUID+i] = true
	}
	if uid, ok := full.take(); ok {
		t.Errorf("took %d with every uid held", uid)
	}
	if w := sandboxUIDs.base; w < SandboxUID || w >= SandboxUID+SandboxUIDs || (w-SandboxUID)%256 != 0 {
		t.Errorf("this process's window starts at %d", w)
	}
}
