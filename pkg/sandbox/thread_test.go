package sandbox

import (
	"testing"

	"golang.org/x/sys/unix"
)

// inThreadOfItsOwn runs fn on a locked thread that is not the process's
// main thread and that ends with fn (offMainThread): fn may move it into
// namespaces of its own (unshare), which no other goroutine then runs in.
func inThreadOfItsOwn(fn func()) {
	offMainThread(func() bool { fn(); return false })
}

// TestInThreadOfItsOwnLeavesTheMainThread: a network namespace fn moves
// its thread to is never the main thread's, however often the goroutine
// starts on it, and fn runs on a thread that is not the main thread.
func TestInThreadOfItsOwnLeavesTheMainThread(t *testing.T) {
	requireRoot(t, "a network namespace of its own needs root")
	own := nsOf(t, "/proc/self/ns/net")
	for range 50 {
		var tid int
		var err error
		inThreadOfItsOwn(func() {
			tid = unix.Gettid()
			err = unix.Unshare(unix.CLONE_NEWNET)
		})
		if err != nil {
			t.Fatal(err)
		}
		if tid == unix.Getpid() {
			t.Fatal("fn ran on the main thread")
		}
		if got := nsOf(t, "/proc/self/ns/net"); got != own {
			t.Fatalf("the main thread's network namespace is %s, was %s", got, own)
		}
	}
}

func nsOf(t *testing.T, link string) string {
	t.Helper()
	buf := make([]byte, 64)
	n, err := unix.Readlink(link, buf)
	if err != nil {
		t.Fatal(err)
	}
	return string(buf[:n])
}
