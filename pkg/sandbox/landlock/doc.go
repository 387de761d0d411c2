// Package landlock probes the kernel's Landlock LSM and uses it to make
// the filesystem read-only for a process except beneath chosen writable
// directories.
//
// What it is for in vigiles:
//   - vigiles doctor reports the Landlock ABI version (ABI reports it; 0 and
//     an error wrapping errors.ErrUnsupported mean none).
//   - RestrictWrites is a second, independent wall on writes: the init can
//     apply it to the hook, inside bubblewrap, so that even a mount the
//     namespaces left writable (a tmpfs, /dev/shm, a bind the engine got
//     wrong) cannot be written outside the overlaid work tree, HOME and
//     TMPDIR. It is also the building block of the later tier for hosts
//     without user namespaces (Landlock plus seccomp, no bubblewrap).
//
// Landlock restricts a thread, not a process: RestrictWrites must be
// called with the goroutine locked to its OS thread (runtime.LockOSThread),
// from the goroutine that then starts or exec's the confined command, and
// that thread must never be unlocked again.
//
// What it must never do: widen access (Landlock only ever narrows it);
// pretend to have restricted anything when the kernel refused — every
// failure is returned and the caller refuses the run; or restrict the
// broker, whose own threads need to write the evidence.
package landlock
