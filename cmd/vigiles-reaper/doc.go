// Command vigiles-reaper is the lean binary of the sandbox's reaper: pid 1
// of the command's own pid namespace, which applies the layers the command
// inherits, starts it and reaps everything. The init starts it when it
// lies beside vigiles-sandbox; it links only pkg/sandbox/reaper, so its
// start costs about what a minimal Go program's does. It is not meant to
// be run by hand.
//
// It must link nothing of the module but pkg/sandbox/reaper and what
// that may import, and nothing of github.com, x/net or gopkg.in (test/deps).
package main
