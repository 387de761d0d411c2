//go:build arm64

package seccomp

import "golang.org/x/sys/unix"

// nativeNumbers is the arm64 table as x/sys/unix has it; open_tree_attr is
// newer than x/sys/unix and checked by number.
var nativeNumbers = map[string]uint32{
	"acct":              unix.SYS_ACCT,
	"add_key":           unix.SYS_ADD_KEY,
	"bpf":               unix.SYS_BPF,
	"clone":             unix.SYS_CLONE,
	"clone3":            unix.SYS_CLONE3,
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
	"perf_event_open":   unix.SYS_PERF_EVENT_OPEN,
	"pidfd_getfd":       unix.SYS_PIDFD_GETFD,
	"pivot_root":        unix.SYS_PIVOT_ROOT,
	"process_vm_readv":  unix.SYS_PROCESS_VM_READV,
	"process_vm_writev": unix.SYS_PROCESS_VM_WRITEV,
	"ptrace":            unix.SYS_PTRACE,
	"quotactl":          unix.SYS_QUOTACTL,
	"quotactl_fd":       unix.SYS_QUOTACTL_FD,
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
