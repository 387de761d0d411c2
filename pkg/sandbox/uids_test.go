package sandbox

import "testing"

// TestUIDSlots: runs side by side get different uids, all in the
// SandboxUID range, starting at the process's window and wrapping at the
// range's end; a released uid is handed out again.
func TestUIDSlots(t *testing.T) {
	s := &uidSlots{base: SandboxUID + SandboxUIDs - 2}
	a, b, c := s.take(), s.take(), s.take()
	if a != SandboxUID+SandboxUIDs-2 || b != SandboxUID+SandboxUIDs-1 || c != SandboxUID {
		t.Errorf("took %d %d %d, want the window's two last uids, then the range's first", a, b, c)
	}
	s.release(b)
	if got := s.take(); got != b {
		t.Errorf("after releasing %d, took %d", b, got)
	}
	if w := sandboxUIDs.base; w < SandboxUID || w >= SandboxUID+SandboxUIDs || (w-SandboxUID)%256 != 0 {
		t.Errorf("this process's window starts at %d", w)
	}
}
