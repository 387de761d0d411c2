//go:build arm64

package seccomp

// archOnlyNumbers are the calls of the arm64 table that amd64 does not have:
// none; every arm64 call is in sharedNumbers.
var archOnlyNumbers = map[string]uint32{}
