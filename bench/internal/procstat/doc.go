// Package procstat reads what the bench tools measure of a process from
// /proc.
//
// It lies under bench/internal, so the go command lets only packages
// under bench/ import it: it is never linked into a binary of vigiles.
package procstat
