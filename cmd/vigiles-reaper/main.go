// Command vigiles-reaper is the lean binary of the sandbox's reaper: pid 1
// of the command's own pid namespace, which applies the layers the command
// inherits, starts it and reaps everything. The init starts it when it
// lies beside vigiles-sandbox; it links only pkg/sandbox/reaper, so its
// start costs about what a minimal Go program's does. It is not meant to
// be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/vigiles/action/pkg/sandbox/reaper"
)

func main() {
	if reaper.Is(os.Args) {
		os.Exit(reaper.Main())
	}
	fmt.Fprintln(os.Stderr, "vigiles-reaper: the sandbox's reaper, started by vigiles inside each sandbox; run vigiles instead (vigiles --help)")
	os.Exit(2)
}
