// Command vigiles runs the untrusted code of AI-agent plugins under real
// Linux confinement and reports, with evidence, what it did.
//
// It never runs untrusted code in the open unless asked to (--sandbox
// off, or --trusted in auto mode, which marks code authored here): where
// a layer of confinement cannot be set up, the run is refused (exit 125).
// Its flag parsing (pflag) lives here alone: test/deps keeps it out of
// pkg/sandbox, pkg/egress, pkg/runner, pkg/annotate and pkg/report.
package main
