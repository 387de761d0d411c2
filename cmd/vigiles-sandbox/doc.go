// Command vigiles-sandbox is the lean binary of vigiles' in-sandbox roles:
// the init, and the reaper where vigiles-reaper is not beside it. vigiles
// runs it inside every sandbox when it lies beside the vigiles binary; it
// links only the sandbox engine and the egress layer, so its start costs a
// fraction of the full CLI's. It is not meant to be run by hand.
//
// It must never link the CLI's own parts, pkg/runner and pkg/annotate,
// nor pflag or go-github (test/deps).
package main
