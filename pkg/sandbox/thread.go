package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// offMainThread runs fn with its goroutine locked to a thread that is not
// the process's main thread, and unlocks it afterwards only where fn says
// the thread is as it found it; otherwise the thread ends with the
// goroutine, taking along what fn changed of it (a namespace it moved to,
// a cgroup it could not leave). The main thread is never that thread: a
// locked goroutine that ends there wedges it rather than ending it (the
// runtime cannot end a process's first thread), so it would keep that
// state for the process's life, and /proc/self, which shows the thread
// group by its first thread, would show it as the process's own (its
// cgroup, which ownCgroups reads; its net/unix and ns/mnt).
func offMainThread(fn func() (reusable bool)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			if fn() {
				runtime.UnlockOSThread()
			}
			return
		}
		// The main thread, held here: a goroutine started now runs on
		// another.
		inner := make(chan struct{})
		go func() {
			defer close(inner)
			runtime.LockOSThread()
			if fn() {
				runtime.UnlockOSThread()
			}
		}()
		<-inner
		runtime.UnlockOSThread()
	}()
	<-done
}
