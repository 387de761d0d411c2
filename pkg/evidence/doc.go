// Package evidence holds the neutral record types that a confined run
// produces and that every later stage reads: the writes a run made, the
// destinations it tried to reach, and the egress policy it ran under.
//
// It exists so that pkg/sandbox (which records writes) and pkg/egress
// (which records network attempts) can share types without importing each
// other. It must never import another package of this module and never do
// I/O: it is data only.
package evidence
