package seccomp

import "golang.org/x/sys/unix"

// System call numbers of both supported architectures, written out so that
// either table can be compiled and tested on any build machine. The test
// for the running architecture checks its table against x/sys/unix.
//
// vm86 and vm86old exist only on 32-bit x86: on x86_64 they are reached
// only through the i386 entry point, which the architecture check kills.

// openTreeAttr is open_tree_attr (Linux 6.15), the same number on every
// architecture and not yet in x/sys/unix.
const openTreeAttr = 467

// fileSetattr is file_setattr (Linux 6.17), which sets the inode flags
// FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR set (chattr), by path; the same
// number on every architecture and not yet in x/sys/unix.
const fileSetattr = 469

var amd64 = Arch{
	GOARCH:    "amd64",
	AuditArch: unix.AUDIT_ARCH_X86_64,
	X32:       true,
	ODirect:   0x4000,
	Syscalls: map[string]uint32{
		"open": 2, "openat": 257, "openat2": 437,
		"ioctl": 16, "fcntl": 72, "io_setup": 206, "fadvise64": 221, "madvise": 28,
		"mmap": 9, "prctl": 157, "memfd_create": 319, "memfd_secret": 447, "shmget": 29,
		"sync": 162, "syncfs": 306, "fsync": 74, "fdatasync": 75, "sync_file_range": 277, "msync": 26, "socket": 41, "socketpair": 53, "clone": 56, "ptrace": 101, "syslog": 103, "pivot_root": 155,
		"acct": 163, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168,
		"reboot": 169, "iopl": 172, "ioperm": 173, "init_module": 175,
		"delete_module": 176, "quotactl": 179, "lookup_dcookie": 212,
		"kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
		"unshare": 272, "perf_event_open": 298, "name_to_handle_at": 303,
		"open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310,
		"process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320,
		"bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
		"io_uring_register": 427, "open_tree": 428, "move_mount": 429, "fsopen": 430,
		"fsconfig": 431, "fsmount": 432, "fspick": 433, "clone3": 435,
		"pidfd_getfd": 438, "process_madvise": 440, "mount_setattr": 442, "quotactl_fd": 443,
		"open_tree_attr": openTreeAttr, "file_setattr": fileSetattr, "prlimit64": 302,
		"modify_ldt": 154, "uselib": 134,
	},
}

var arm64 = Arch{
	GOARCH:    "arm64",
	AuditArch: unix.AUDIT_ARCH_AARCH64,
	ODirect:   0x10000,
	Syscalls: map[string]uint32{
		"openat": 56, "openat2": 437,
		"io_setup": 0, "fadvise64": 223, "madvise": 233,
		"mmap": 222, "prctl": 167, "memfd_create": 279, "memfd_secret": 447, "shmget": 194,
		"sync": 81, "syncfs": 267, "fsync": 82, "fdatasync": 83, "sync_file_range": 84, "msync": 227, "lookup_dcookie": 18, "fcntl": 25, "ioctl": 29, "socket": 198, "socketpair": 199, "umount2": 39, "mount": 40, "pivot_root": 41,
		"quotactl": 60, "acct": 89, "unshare": 97, "kexec_load": 104,
		"init_module": 105, "delete_module": 106, "syslog": 116, "ptrace": 117,
		"reboot": 142, "add_key": 217, "request_key": 218, "keyctl": 219,
		"clone": 220, "swapon": 224, "swapoff": 225, "perf_event_open": 241,
		"name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268,
		"process_vm_readv": 270, "process_vm_writev": 271, "finit_module": 273,
		"bpf": 280, "userfaultfd": 282, "kexec_file_load": 294,
		"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
		"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431,
		"fsmount": 432, "fspick": 433, "clone3": 435, "pidfd_getfd": 438,
		"process_madvise": 440, "mount_setattr": 442, "quotactl_fd": 443, "open_tree_attr": openTreeAttr,
		"file_setattr": fileSetattr, "prlimit64": 261,
	},
}
