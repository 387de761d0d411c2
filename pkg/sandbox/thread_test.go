package sandbox

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// inThreadOfItsOwn runs fn on a locked thread that is not the process's
// main thread, and that ends with fn, never unlocked: fn may move it into
// namespaces of its own (unshare), which no other goroutine then runs in.
// The main thread is never that thread: a locked goroutine that ends
// there wedges it rather than ending it (the runtime cannot end the
// process's first thread), so it would keep the namespaces it was moved
// to, and /proc/self, which names the thread group by its first thread,
// would show them to every later test in the binary (its net/unix, its
// ns/mnt) as the process's own.
func inThreadOfItsOwn(fn func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			defer close(done)
			fn()
			return
		}
		// The main thread, held here: a goroutine started now runs on
		// another.
		inner := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			defer close(inner)
			fn()
		}()
		<-inner
		runtime.UnlockOSThread()
		close(done)
	}()
	<-done
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
