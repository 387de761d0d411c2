//go:build race

package sandbox

// raceBuild: this binary (a test binary, in practice) is built with the
// race detector, whose runtime sleeps a second on every exit unless told
// not to; the init and the reaper are this binary.
const raceBuild = true
