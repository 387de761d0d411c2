// Command vigiles-sandbox is the lean binary of vigiles' in-sandbox roles:
// the init, and the reaper where vigiles-reaper is not beside it. vigiles
// runs it inside every sandbox when it lies beside the vigiles binary; it
// links only the sandbox engine and the egress layer, so its start costs a
// fraction of the full CLI's. It is not meant to be run by hand.
package main

import (
	"fmt"
	"os"

	"github.com/vigiles/action/internal/netwire"
	"github.com/vigiles/action/pkg/sandbox"
)

func main() {
	netwire.Install()
	sandbox.MaybeInit()
	fmt.Fprintln(os.Stderr, "vigiles-sandbox: the in-sandbox half of vigiles; run vigiles instead (vigiles --help)")
	os.Exit(2)
}
