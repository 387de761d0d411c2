//go:build amd64 || arm64

package seccomp

import (
	"maps"

	"golang.org/x/sys/unix"
)

// nativeNumbers is the running architecture's table as x/sys/unix has it:
// the calls both architectures have (sharedNumbers) and those only this one
// has (archOnlyNumbers, in table_$GOARCH_test.go).
var nativeNumbers = func() map[string]uint32 {
	m := maps.Clone(sharedNumbers)
	maps.Copy(m, archOnlyNumbers)
	return m
}()

// sharedNumbers are the calls both amd64 and arm64 have, by x/sys/unix's
// number for the architecture being built; open_tree_attr and file_setattr
// are newer than x/sys/unix and checked by number (the same on both).
var sharedNumbers = map[string]uint32{
	"acct":              unix.SYS_ACCT,
	"add_key":           unix.SYS_ADD_KEY,
	"bpf":               unix.SYS_BPF,
	"clone":             unix.SYS_CLONE,
	"clone3":            unix.SYS_CLONE3,
	"io_setup":          unix.SYS_IO_SETUP,
	"fadvise64":         unix.SYS_FADVISE64,
	"madvise":           unix.SYS_MADVISE,
	"openat":            unix.SYS_OPENAT,
	"openat2":           unix.SYS_OPENAT2,
	"mmap":              unix.SYS_MMAP,
	"prctl":             unix.SYS_PRCTL,
	"memfd_create":      unix.SYS_MEMFD_CREATE,
	"memfd_secret":      unix.SYS_MEMFD_SECRET,
	"shmget":            unix.SYS_SHMGET,
	"sync":              unix.SYS_SYNC,
	"syncfs":            unix.SYS_SYNCFS,
	"fsync":             unix.SYS_FSYNC,
	"fdatasync":         unix.SYS_FDATASYNC,
	"sync_file_range":   unix.SYS_SYNC_FILE_RANGE,
	"msync":             unix.SYS_MSYNC,
	"delete_module":     unix.SYS_DELETE_MODULE,
	"finit_module":      unix.SYS_FINIT_MODULE,
	"fsconfig":          unix.SYS_FSCONFIG,
	"fsmount":           unix.SYS_FSMOUNT,
	"fsopen":            unix.SYS_FSOPEN,
	"fspick":            unix.SYS_FSPICK,
	"init_module":       unix.SYS_INIT_MODULE,
	"io_uring_enter":    unix.SYS_IO_URING_ENTER,
	"io_uring_register": unix.SYS_IO_URING_REGISTER,
	"io_uring_setup":    unix.SYS_IO_URING_SETUP,
	"ioctl":             unix.SYS_IOCTL,
	"fcntl":             unix.SYS_FCNTL,
	"prlimit64":         unix.SYS_PRLIMIT64,
	"socket":            unix.SYS_SOCKET,
	"socketpair":        unix.SYS_SOCKETPAIR,
	"kexec_file_load":   unix.SYS_KEXEC_FILE_LOAD,
	"kexec_load":        unix.SYS_KEXEC_LOAD,
	"keyctl":            unix.SYS_KEYCTL,
	"lookup_dcookie":    unix.SYS_LOOKUP_DCOOKIE,
	"mount":             unix.SYS_MOUNT,
	"mount_setattr":     unix.SYS_MOUNT_SETATTR,
	"move_mount":        unix.SYS_MOVE_MOUNT,
	"name_to_handle_at": unix.SYS_NAME_TO_HANDLE_AT,
	"open_by_handle_at": unix.SYS_OPEN_BY_HANDLE_AT,
	"open_tree":         unix.SYS_OPEN_TREE,
	"open_tree_attr":    467,
	"file_setattr":      469,
	"perf_event_open":   unix.SYS_PERF_EVENT_OPEN,
	"pidfd_getfd":       unix.SYS_PIDFD_GETFD,
	"pivot_root":        unix.SYS_PIVOT_ROOT,
	"process_vm_readv":  unix.SYS_PROCESS_VM_READV,
	"process_vm_writev": unix.SYS_PROCESS_VM_WRITEV,
	"ptrace":            unix.SYS_PTRACE,
	"quotactl":          unix.SYS_QUOTACTL,
	"quotactl_fd":       unix.SYS_QUOTACTL_FD,
	"process_madvise":   unix.SYS_PROCESS_MADVISE,
	"reboot":            unix.SYS_REBOOT,
	"request_key":       unix.SYS_REQUEST_KEY,
	"setns":             unix.SYS_SETNS,
	"swapoff":           unix.SYS_SWAPOFF,
	"swapon":            unix.SYS_SWAPON,
	"syslog":            unix.SYS_SYSLOG,
	"umount2":           unix.SYS_UMOUNT2,
	"unshare":           unix.SYS_UNSHARE,
	"userfaultfd":       unix.SYS_USERFAULTFD,
}
