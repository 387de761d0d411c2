//go:build amd64

package seccomp

import "golang.org/x/sys/unix"

// archOnlyNumbers are the calls of the amd64 table that arm64 does not have,
// as x/sys/unix has them.
var archOnlyNumbers = map[string]uint32{
	"open":       unix.SYS_OPEN,
	"ioperm":     unix.SYS_IOPERM,
	"iopl":       unix.SYS_IOPL,
	"modify_ldt": unix.SYS_MODIFY_LDT,
	"uselib":     unix.SYS_USELIB,
}
