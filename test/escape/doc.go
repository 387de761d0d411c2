// Package escape is the escape suite: one small script per attempt a
// hostile hook might make, run through the real engine (the vigiles binary,
// real bubblewrap) as root and as an unprivileged user, with the host
// checked from outside afterwards. It holds tests only.
package escape
