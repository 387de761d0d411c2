// Package fsx holds the descriptor and mount helpers that the sandbox's
// init and its reaper (a binary of its own) share.
//
// It must bring the reaper, whose binary links it, nothing test/deps
// forbids there: no package of the module but the reaper's own few
// (landlock, seccomp, internal/exact), nothing of github.com, x/net or
// gopkg.in.
package fsx
