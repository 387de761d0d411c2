package main

import (
	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/sandbox"
)

// wireNetwork installs the egress layer into the sandbox engine. It runs
// in the broker and in the init alike (the same binary, when the lean
// vigiles-sandbox is not beside it). Where this process is the child of
// doctor's nftables check, it serves it (with the layer just installed,
// as a run's init uses it) and exits.
func wireNetwork() {
	netwire.Install()
	sandbox.DoctorChild()
}

// networkStopped waits, before the broker exits, for the connectors its
// runs stopped without waiting (allow mode's slirp4netns finishing its
// exit), so that it leaves none behind.
func networkStopped() { netwire.Stopped() }
