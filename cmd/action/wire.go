package main

import (
	"github.com/vigiles/action/internal/netwire"
)

// wireNetwork installs the egress layer into the sandbox engine. It runs
// in the broker and in the init alike (the same binary, when the lean
// vigiles-sandbox is not beside it).
func wireNetwork() { netwire.Install() }

// networkStopped waits, before the broker exits, for the connectors its
// runs stopped without waiting (allow mode's slirp4netns finishing its
// exit), so that it leaves none behind.
func networkStopped() { netwire.Stopped() }
