// Package sandbox runs one command, confined or (by explicit choice) in the
// open, and records what it wrote.
//
// The broker (Run, in the vigiles process) decides the tier with Decide,
// prepares a bwrap argv (a pure function of the plan, golden-tested) and
// starts bubblewrap. The bwrap child is the vigiles binary itself,
// re-executed as a small init (MaybeInit) that mounts a size-bounded
// scratch tmpfs, an overlay over the work tree, the throwaway HOME and
// TMPDIR, asks the egress layer (SetNetwork) to wall the network, and then
// starts the command under a reaper in a nested pid and mount namespace
// with every capability dropped, no_new_privs, a seccomp filter and
// rlimits. The init reads the overlay's upper directory after the command
// ends and hands the broker a result over a pipe the command never sees.
//
// This package must never run untrusted code unconfined unless the caller
// asked for it with ModeOff (or trusted code in ModeAuto), never import
// pkg/egress, pkg/runner or pkg/annotate, and never report a run whose
// record is missing or malformed as a clean one.
package sandbox
