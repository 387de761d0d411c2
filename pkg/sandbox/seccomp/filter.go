package seccomp

import (
	"errors"
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// ErrUnsupportedArch is returned for an architecture this package has no
// system call table for. It wraps errors.ErrUnsupported.
var ErrUnsupportedArch = fmt.Errorf("seccomp: architecture not supported: %w", errors.ErrUnsupported)

// Arch describes one architecture's system call ABI as the filter needs it.
type Arch struct {
	// GOARCH is the Go name of the architecture ("amd64", "arm64").
	GOARCH string
	// AuditArch is the AUDIT_ARCH_* value the kernel puts in seccomp_data.
	AuditArch uint32
	// X32 says the kernel may accept x32 system calls (numbers with bit
	// 0x40000000 set) under this AuditArch; the filter denies them all.
	X32 bool
	// Syscalls maps a system call name to its number.
	Syscalls map[string]uint32
	// ODirect is the architecture's O_DIRECT open flag.
	ODirect uint32
}

// x32SyscallBit marks an x32 system call on x86_64 (__X32_SYSCALL_BIT).
const x32SyscallBit = 0x40000000

// Action is what the filter does with a system call.
type Action string

const (
	ActionAllow Action = "allow"
	ActionEPERM Action = "EPERM"
	// ActionENOSYS pretends the call does not exist (clone3: libc then
	// falls back to clone, whose flags the filter can read).
	ActionENOSYS Action = "ENOSYS"
	// ActionSkip answers 0 without doing the call: advice the kernel
	// may ignore anyway (fadvise64's POSIX_FADV_DONTNEED), or a write-back
	// with nothing of the command's to write (sync, fsync).
	ActionSkip Action = "skipped"
	// ActionKill kills the whole process (a foreign architecture).
	ActionKill Action = "kill"
	// ActionEAFNOSUPPORT answers that the address family does not exist,
	// as a kernel built without it would.
	ActionEAFNOSUPPORT Action = "EAFNOSUPPORT"
	// ActionEPROTONOSUPPORT answers that the protocol does not exist, as a
	// kernel without its module would.
	ActionEPROTONOSUPPORT Action = "EPROTONOSUPPORT"
	// ActionENOMEM answers that the memory asked for is not there, as a
	// kernel with no huge pages in its pool does.
	ActionENOMEM Action = "ENOMEM"
	// ActionEINVAL answers that the kernel takes no such argument: that
	// the file system takes no direct I/O, as tmpfs did before Linux 6.6,
	// or that there is no same-page merging, as on a kernel built
	// without KSM.
	ActionEINVAL Action = "EINVAL"
	// ActionEOPNOTSUPP answers that the file system maps no extents, as
	// tmpfs does, or has no encryption, as ext4 made without it does.
	ActionEOPNOTSUPP Action = "EOPNOTSUPP"
	// ActionENOTTY answers that the file knows no such ioctl, as a file
	// of another file system does.
	ActionENOTTY Action = "ENOTTY"
)

// Rule is one entry of the filter, for documentation and doctor output.
type Rule struct {
	// Syscall is the system call name.
	Syscall string `json:"syscall"`
	// Action is what happens when the rule matches.
	Action Action `json:"action"`
	// When is the argument condition; empty means every call.
	When string `json:"when,omitempty"`
}

// String renders the rule as "name" or "name(CONDITION)".
func (r Rule) String() string {
	s := r.Syscall
	if r.When != "" {
		s += "(" + r.When + ")"
	}
	if r.Action != ActionEPERM {
		s += " -> " + string(r.Action)
	}
	return s
}

// deniedAlways fail with EPERM whatever their arguments. Names missing
// from an architecture's table (iopl, ioperm, modify_ldt, uselib exist
// on x86 only) are
// skipped for that architecture.
var deniedAlways = []string{
	// Large kernel attack surface a hook never needs.
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"bpf", "perf_event_open", "userfaultfd",
	"keyctl", "add_key", "request_key",
	// Reaching outside the sandbox: file handles bypass the mount view,
	// cross-process memory and fd theft, tracing.
	"open_by_handle_at", "name_to_handle_at",
	"process_vm_readv", "process_vm_writev", "pidfd_getfd", "ptrace",
	// Every mount API, old and new, and namespace joining.
	"mount", "umount2", "pivot_root",
	"move_mount", "open_tree", "open_tree_attr", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"setns",
	// Inode flags (chattr) by path, as the ioctls below set them by fd.
	"file_setattr",
	// Advice on a process's memory: against another process it needs
	// CAP_SYS_NICE, but the kernel lets a process advise itself, and
	// MADV_PAGEOUT through it drops the host's page cache of a file the
	// command has mapped, around the madvise rule below (a hook's
	// process_madvise of its own mapping of a host file its uid owns
	// evicted all 17 of the file's cached pages). A hook has madvise.
	"process_madvise",
	// Whole-machine administration.
	"kexec_load", "kexec_file_load",
	"init_module", "finit_module", "delete_module",
	"reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog",
	"iopl", "ioperm", "lookup_dcookie",
	// x86 only, a hook never needs them: modify_ldt (16-bit segments for
	// Wine and DOS emulators; a repeated source of kernel bugs: espfix,
	// CVE-2015-5157, CVE-2017-17053) and uselib (a.out libraries).
	"modify_ldt", "uselib",
}

// skippedAlways answer 0 without being done, whatever their arguments:
// writing back to the disk what is cached there. Everything the command
// may write is in tmpfs (the scratch that holds the tree's upper layer
// or its copy, HOME, TMPDIR and /dev/shm), where they have nothing to
// do; what they would write back is the host's. sync writes back every
// file system of the host, and syncfs, fsync, fdatasync,
// sync_file_range and msync a host file's file system or the file
// itself, through a descriptor opened for reading alone (or a mapping
// of one): a hook's fsync of a host file it read wrote back all 256
// dirty pages a host process had left to the kernel's flusher, and a
// loop of them puts the host's disk to work for the host's every
// process, at the hook's pace.
var skippedAlways = []string{"sync", "syncfs", "fsync", "fdatasync", "sync_file_range", "msync"}

// The address families a hook may open sockets of are local sockets, IPv4
// and IPv6 (which the network namespace and the egress wall govern), and
// netlink (the namespace's own routing and the like): AF_UNIX, AF_INET,
// AF_INET6 and AF_NETLINK (Compile's "socket"). Any other family is a way
// around the egress wall or a rarely used corner of the kernel: AF_VSOCK
// reaches the hypervisor or the host from inside a VM, whatever the
// network namespace; AF_ALG, AF_PACKET, AF_TIPC, AF_RDS …
const socketFamiliesText = "family not AF_UNIX, AF_INET, AF_INET6 or AF_NETLINK"

// sockPacket is SOCK_PACKET, a type the kernel still takes of AF_INET
// (Linux 2.0's packet sockets): socket(AF_INET, SOCK_PACKET, proto) is
// made an AF_PACKET socket before any check (__sock_create), so the
// family the filter reads is AF_INET and the socket it lets through is
// AF_PACKET's, whose frames go to a link's driver past every netfilter
// hook of IPv4 and IPv6, the egress wall's among them (in allow mode the
// connector's tap, which slirp4netns and pasta forward). Its module is
// asked for first, as root, where the kernel has it as one (net-pf-17),
// and the call writes the command's name to the host's kernel log. Only
// CAP_NET_RAW, which the command never holds, kept it from opening:
// under the filter alone, a caller that held it got the packet socket.
// The type is the second argument's low four bits (SOCK_TYPE_MASK: the
// others are SOCK_NONBLOCK and SOCK_CLOEXEC); refused as the other
// families are, as a kernel without AF_PACKET refuses it.
const sockPacket = unix.SOCK_PACKET

const sockTypeMask = 0xf

const sockPacketText = "AF_INET, type SOCK_PACKET"

// inetProtocols are the protocols a hook may open AF_INET and AF_INET6
// sockets of: the default (0), TCP, UDP, UDP-Lite, the ICMP echo of ping
// sockets, MPTCP (Go's listeners try it first) and IPPROTO_RAW (a raw
// socket needs CAP_NET_RAW, which the command never holds). Any other
// protocol the kernel lacks it asks modprobe for, on the host, as root:
// SCTP, DCCP, L2TP, SMC, each a module that a socket() call of any user
// loads into the host's kernel, and that stays loaded after the run (and
// each a repeated source of privilege escalations: CVE-2017-6074 in DCCP,
// CVE-2021-23133 in SCTP). Refused as a kernel without them refuses.
var inetProtocols = []uint32{0, unix.IPPROTO_ICMP, unix.IPPROTO_TCP, unix.IPPROTO_UDP, unix.IPPROTO_ICMPV6,
	unix.IPPROTO_UDPLITE, unix.IPPROTO_RAW, unix.IPPROTO_MPTCP}

const inetProtocolsText = "AF_INET or AF_INET6, protocol not 0, TCP, UDP, UDP-Lite, ICMP, ICMPv6, MPTCP or IPPROTO_RAW"

// netlinkProtocols are the netlink protocols a hook may open: the
// namespace's routing (NETLINK_ROUTE, which libc's getaddrinfo and
// getifaddrs use), socket and netfilter queries, audit, uevents,
// generic netlink and the few others every kernel builds in. The rest
// (NETLINK_XFRM, NETLINK_ISCSI, NETLINK_SCSITRANSPORT, NETLINK_RDMA,
// NETLINK_CRYPTO, NETLINK_SMC, unused numbers) are modules on distribution
// kernels, which opening such a socket loads on the host, as above.
var netlinkProtocols = []uint32{unix.NETLINK_ROUTE, unix.NETLINK_USERSOCK, unix.NETLINK_SOCK_DIAG, unix.NETLINK_SELINUX,
	unix.NETLINK_AUDIT, unix.NETLINK_FIB_LOOKUP, unix.NETLINK_CONNECTOR, unix.NETLINK_NETFILTER,
	unix.NETLINK_KOBJECT_UEVENT, unix.NETLINK_GENERIC}

const netlinkProtocolsText = "AF_NETLINK, protocol not NETLINK_ROUTE, USERSOCK, SOCK_DIAG, SELINUX, AUDIT, FIB_LOOKUP, CONNECTOR, NETFILTER, KOBJECT_UEVENT or GENERIC"

// CLONE_NEWUSER, the terminal ioctls, fcntl's F_SETLEASE, prlimit64's pid
// and the advice of fadvise64 and madvise are the argument conditions.
// prlimit64 on another process is denied because the command shares its
// uid with the reaper, its pid 1: lowering the reaper's
// RLIMIT_NOFILE would keep it from reading /proc, and so from finding the
// processes a run left or counting its tasks. setrlimit and getrlimit
// (glibc, Go, a shell's ulimit) pass pid 0, the caller.
const (
	cloneNewUser = unix.CLONE_NEWUSER
	tiocsti      = 0x5412 // TIOCSTI: push a byte into a terminal's input
	tioclinux    = 0x541c // TIOCLINUX: virtual-console selection and paste
	// TIOCSETD sets a terminal's line discipline, and one the kernel
	// lacks it asks modprobe for ("tty-ldisc-N"), on the host, as root,
	// for any user, where dev.tty.ldisc_autoload is 1 (the default of
	// CONFIG_LDISC_AUTOLOAD, which distribution kernels build): n_hdlc,
	// n_gsm, slcan, each loaded into the host's kernel to stay after the
	// run, and each a source of privilege escalations (CVE-2017-2636 in
	// n_hdlc, CVE-2023-6546 in n_gsm). The command has a terminal to ask
	// on: the sandbox's /dev/ptmx opened for reading alone gives it a
	// pseudo-terminal, and a hook's TIOCSETD of N_HDLC on it reached the
	// kernel's module request (EINVAL here, on a kernel without modules).
	// The discipline is in memory the filter cannot read, so every
	// TIOCSETD fails with EPERM, the answer an unprivileged caller gets
	// for a discipline not loaded on a host with dev.tty.ldisc_autoload
	// at 0; a hook has no serial line to set one on.
	tiocsetd = 0x5423
	// FS_IOC_SETFLAGS and FS_IOC_FSSETXATTR set a file's inode flags
	// (immutable, append-only, nodump, noatime, project id…). The write
	// record does not compare inode flags, and overlayfs takes them on a
	// file once it is copied up: refused in every run alike, as is
	// file_setattr, which sets the same flags by path.
	fsIocSetflags   = 0x40086602 // _IOW('f', 2, long)
	fsIocFssetxattr = 0x401c5820 // _IOW('X', 32, struct fsxattr)
	// FS_IOC_FIEMAP with FIEMAP_FLAG_SYNC, a flag in memory the filter
	// cannot read, writes back the file's dirty pages first, through a
	// descriptor opened for reading alone: a host file's, read through
	// the read-only root or the tree's lower layer (see skippedAlways).
	// It fails as on tmpfs, which maps no extents, where all the
	// command writes is.
	fsIocFiemap = 0xc020660b // _IOWR('f', 11, struct fiemap)
	// Three file systems' own ioctls write back to the disk through a
	// descriptor opened for reading alone, around the rules above, and
	// fail with ENOTTY, as on a file of any other file system (tmpfs,
	// where all the command writes is, among them). XFS's extent maps
	// of a file's data fork, XFS_IOC_GETBMAP and XFS_IOC_GETBMAPX
	// (unless a flag in memory asks for the delayed allocations as they
	// are), write back the file's dirty pages first: a hook's
	// XFS_IOC_GETBMAP of a host file wrote back all 257 pages a host
	// process had left dirty. (XFS_IOC_GETBMAPA maps the attribute fork
	// and writes nothing back.) ext4's map of its extent status cache,
	// EXT4_IOC_GET_ES_CACHE, takes FS_IOC_FIEMAP's FIEMAP_FLAG_SYNC and
	// did the same. btrfs's BTRFS_IOC_SYNC is a syncfs of the whole file
	// system (it wrote back the same 257 pages), and
	// BTRFS_IOC_START_SYNC commits the file system's running
	// transaction to the disk, each for any user.
	xfsIocGetbmap     = 0xc0205826 // _IOWR('X', 38, struct getbmap)
	xfsIocGetbmapx    = 0xc0205838 // _IOWR('X', 56, struct getbmap): the kernel's own spelling
	ext4IocGetEsCache = 0xc020662a // _IOWR('f', 42, struct fiemap)
	btrfsIocSync      = 0x9408     // _IO(0x94, 8)
	btrfsIocStartSync = 0x80089418 // _IOR(0x94, 24, __u64)
	// fscrypt's keys of a file system are the host's, in its
	// superblock's keyring, and any user may add one (a v2 key, named by
	// its hash) through any descriptor of the file system, opened for
	// reading alone, on a read-only mount too: each is charged to the
	// user's key quota (/proc/key-users), the host's quota of the host
	// uid the command runs as, and stays until it is removed or the
	// file system unmounted. A hook added keys to a host ext4's keyring
	// that were there after the run, and FS_IOC_REMOVE_ENCRYPTION_KEY
	// took away the claim that the same uid's host process had on its
	// key (with no other claim, the key goes, and with it the plaintext
	// of the host's files it unlocks). Each key ioctl fails with
	// EOPNOTSUPP, as on a file system made without encryption; the
	// policy and status ioctls are left as they are (a policy is set on
	// an empty directory the command may write, and its directories
	// are on tmpfs, which has no encryption).
	fsIocAddEncryptionKey            = 0xc0506617 // _IOWR('f', 23, struct fscrypt_add_key_arg)
	fsIocRemoveEncryptionKey         = 0xc0406618 // _IOWR('f', 24, struct fscrypt_remove_key_arg)
	fsIocRemoveEncryptionKeyAllUsers = 0xc0406619 // _IOWR('f', 25, struct fscrypt_remove_key_arg)
	// F_SETLEASE takes a lease on a file the caller owns, and the
	// command reads files of the host its uid owns through the read-only
	// root: a non-root caller's (under /opt, a runner's tool cache), the
	// tree owner's, every file root owns in a --root-sandbox run. While
	// it holds a read lease, every process of the host that opens the
	// file for writing or truncates it, root's too, waits until the lease
	// is given up or lease-break-time ends (45 s), or fails at once with
	// O_NONBLOCK (EAGAIN); a write lease does so to every open, reads
	// too; and the command is told of each such open (SIGIO). A hook
	// never needs a lease; refused in every run alike.
	fSetlease = unix.F_SETLEASE
	// An O_DIRECT read writes back the dirty pages of the range it reads
	// first, as fsync would (see skippedAlways): a hook's read of a host
	// file through a descriptor opened O_RDONLY|O_DIRECT wrote back all
	// 257 pages a host process had left dirty. open and openat with
	// O_DIRECT, and fcntl(F_SETFL) setting it, fail with EINVAL, as on a
	// file system without direct I/O (tmpfs before Linux 6.6); openat2,
	// whose flags are in memory the filter cannot read, fails with
	// ENOSYS, as on a kernel before 5.6, and its callers fall back to
	// openat.
	fSetfl = unix.F_SETFL
	// F_SET_RW_HINT sets the write-life hint of a file's inode (how long
	// its data will live, which the block layer hands to a device that
	// places data by it), for the file's owner, through any descriptor:
	// the kernel asks neither for one opened for writing nor for a
	// writable mount. The inode is the host's, read through the
	// read-only root, and the hint stays on it after the run: a hook's
	// fcntl on a descriptor opened for reading alone set the hint of a
	// host file its uid owns (a non-root caller's, the tree owner's,
	// root's under --root-sandbox), and a host process read that hint
	// back once the run was over. It fails with EINVAL, as on a kernel
	// before 4.13, which had no such command; a hook never needs one.
	fSetRwHint = unix.F_SET_RW_HINT
	// POSIX_FADV_DONTNEED drops a file's clean pages from the page cache,
	// which is the host's, one for each file whatever mount it is read
	// through: the command may open for reading much of the host through
	// the read-only root, and dropping the cache of the host's programs,
	// libraries and data makes every host process that reads them next
	// wait on the disk. MADV_PAGEOUT does so to the pages of a file the
	// command has mapped, where its uid owns the file or may write it (a
	// non-root caller's own files, root's in a --root-sandbox run). Both
	// are advice: the call answers 0 and the pages stay, as a kernel may
	// leave them; a hook sees no error.
	//
	// MADV_COLD moves the pages of a mapping that no other process maps
	// to the inactive list, the first the kernel reclaims when memory
	// runs short; for a file's pages the kernel asks neither that the
	// caller own the file nor that it may write it, as it asks for
	// MADV_PAGEOUT. A hook of an unprivileged caller mapped a host file
	// root owns, which it may only read, and its MADV_COLD moved all 64
	// of the file's pages the host had kept active to the inactive list
	// (their flags in /proc/kpageflags), where they stayed after the run:
	// the host's data a host process reads with read(), which maps
	// nothing, is the first of the host's page cache to go. It answers
	// 0 and leaves the pages where they are, as PAGEOUT does.
	fadvDontneed = 4  // POSIX_FADV_DONTNEED on x86_64 and aarch64
	madvPageout  = 21 // MADV_PAGEOUT
	madvCold     = 20 // MADV_COLD
	// Kernel same-page merging (KSM) merges identical pages of the
	// processes that asked for it, whoever they are, into one page: the
	// host's processes that ask (virtual machines, systemd's units of
	// MemoryKSM=yes) share pages with a hook that asks too, and a write
	// to a merged page takes longer (it is copied first), which tells
	// the hook that a host process holds a page of the same bytes (what
	// it runs, what a file it read holds). madvise(MADV_MERGEABLE) and
	// prctl(PR_SET_MEMORY_MERGE) ask for it for the hook's memory,
	// without privilege: a hook's calls answered 0 and its
	// /proc/self/ksm_stat read "ksm_merge_any: yes" (on a host with
	// KSM stopped, /sys/kernel/mm/ksm/run 0, nothing is merged, but the
	// host may start it while the run goes on). They fail with EINVAL,
	// as on a kernel built without KSM, and so do MADV_UNMERGEABLE and
	// PR_GET_MEMORY_MERGE, which such a kernel refuses as well and which
	// a program asks before it asks for merging; a program that asks
	// for merging goes on without it.
	madvMergeable    = 12 // MADV_MERGEABLE
	madvUnmergeable  = 13 // MADV_UNMERGEABLE
	prSetMemoryMerge = 67 // PR_SET_MEMORY_MERGE
	prGetMemoryMerge = 68 // PR_GET_MEMORY_MERGE
	// Core scheduling (prctl(PR_SCHED_CORE), Linux 5.14 with
	// CONFIG_SCHED_CORE) gives a process's tasks a cookie without
	// privilege, and on a host with SMT the kernel then runs on a
	// core's sibling hyperthreads only tasks of one cookie at a time:
	// a sibling is kept idle, though the host's tasks wait to run
	// ("forced idle", which the kernel charges to the tagged task), so
	// that a hook that tags its spinning processes takes whole cores
	// where it would take hyperthreads, up to twice its share of the
	// host's CPUs. It fails with EINVAL, as on a kernel without core
	// scheduling (this test host's kernel is one, so its cost was not
	// measured); a program that asks goes on with its tasks untagged.
	prSchedCore = 62 // PR_SCHED_CORE
	// The huge pages of the kernel's hugetlb pool (vm.nr_hugepages, and
	// the surplus vm.nr_overcommit_hugepages allows) are one pool for
	// the whole host, set aside for the host's databases and packet
	// processors, whoever takes them and in whatever namespace, and
	// nothing bounds what an unprivileged process takes of it through
	// an anonymous mapping: a hook's mmap(MAP_HUGETLB) took all 8 pages
	// of a host's pool, and while it held them a host process's
	// mmap(MAP_HUGETLB) failed with ENOMEM. A hugetlb memfd
	// (MFD_HUGETLB) takes from the pool when it is mapped, through an
	// mmap the filter cannot tell from any other, and System V shared
	// memory with SHM_HUGETLB does too, for a process of
	// vm.hugetlb_shm_group (group 0 by default: a --root-sandbox run).
	// Each fails with ENOMEM, as on a host whose pool is empty, the
	// default, which their users fall back from; a hook's transparent
	// huge pages come from its own memory and are left as they are.
	mapHugetlb = 0x40000 // MAP_HUGETLB on x86_64 and aarch64
	mfdHugetlb = 0x4     // MFD_HUGETLB
	shmHugetlb = 0x800   // SHM_HUGETLB
)

// Rules lists the filter's rules for arch, in program order, plus the two
// architecture-wide rules (foreign architecture, x32).
func Rules(a Arch) []Rule {
	var rs []Rule
	rs = append(rs, Rule{Syscall: "*", Action: ActionKill, When: "architecture is not " + a.GOARCH})
	if a.X32 {
		rs = append(rs, Rule{Syscall: "*", Action: ActionEPERM, When: "x32 ABI"})
	}
	for _, n := range deniedAlways {
		if _, ok := a.Syscalls[n]; ok {
			rs = append(rs, Rule{Syscall: n, Action: ActionEPERM})
		}
	}
	for _, n := range skippedAlways {
		if _, ok := a.Syscalls[n]; ok {
			rs = append(rs, Rule{Syscall: n, Action: ActionSkip})
		}
	}
	rs = append(rs,
		Rule{Syscall: "clone3", Action: ActionENOSYS},
		// io_setup makes a context for the kernel's native asynchronous I/O
		// (libaio), and the kernel counts every context's events against one
		// limit for the whole host, fs.aio-max-nr (65,536 by default), whoever
		// made it, in whatever namespace, and refuses a context past it
		// (EAGAIN) to every process, root's too: a hook held all of it here
		// with sixteen calls of 4,096 events, and while it did, a process of
		// the host's got EAGAIN from io_setup (a database's native I/O would
		// have, to the end of the run). It fails with ENOSYS, as on a
		// kernel built without AIO, which libaio's users meet there too; the
		// other AIO calls need a context and are left as they are.
		Rule{Syscall: "io_setup", Action: ActionENOSYS},
		// memfd_secret's memory is taken out of the kernel's direct map of
		// all memory, page by page, and each page splits the huge page of
		// the map it lay in into 4 KiB ones, which the kernel does not join
		// again once the memory is freed: the whole host's kernel then runs
		// on a map of small pages there (more TLB misses for every process
		// of the host), until it reboots. A hook's 7 MiB of secret memory,
		// within the 8 MiB RLIMIT_MEMLOCK every process may have, moved
		// 660 MiB of the host's direct map from 2 MiB pages to 4 KiB ones
		// (DirectMap4k in /proc/meminfo), and it stayed so after the run.
		// It fails with ENOSYS, as on a kernel built without secretmem or
		// booted with secretmem.enable=0; a hook never needs it.
		Rule{Syscall: "memfd_secret", Action: ActionENOSYS},
		Rule{Syscall: "unshare", Action: ActionEPERM, When: "CLONE_NEWUSER"},
		Rule{Syscall: "clone", Action: ActionEPERM, When: "CLONE_NEWUSER"},
		Rule{Syscall: "ioctl", Action: ActionEPERM, When: "TIOCSTI"},
		Rule{Syscall: "ioctl", Action: ActionEPERM, When: "TIOCLINUX"},
		Rule{Syscall: "ioctl", Action: ActionEPERM, When: "TIOCSETD"},
		Rule{Syscall: "ioctl", Action: ActionEPERM, When: "FS_IOC_SETFLAGS"},
		Rule{Syscall: "ioctl", Action: ActionEPERM, When: "FS_IOC_FSSETXATTR"},
		Rule{Syscall: "ioctl", Action: ActionEOPNOTSUPP, When: "FS_IOC_FIEMAP"},
		Rule{Syscall: "ioctl", Action: ActionENOTTY, When: "XFS_IOC_GETBMAP"},
		Rule{Syscall: "ioctl", Action: ActionENOTTY, When: "XFS_IOC_GETBMAPX"},
		Rule{Syscall: "ioctl", Action: ActionENOTTY, When: "EXT4_IOC_GET_ES_CACHE"},
		Rule{Syscall: "ioctl", Action: ActionENOTTY, When: "BTRFS_IOC_SYNC"},
		Rule{Syscall: "ioctl", Action: ActionENOTTY, When: "BTRFS_IOC_START_SYNC"},
		Rule{Syscall: "ioctl", Action: ActionEOPNOTSUPP, When: "FS_IOC_ADD_ENCRYPTION_KEY"},
		Rule{Syscall: "ioctl", Action: ActionEOPNOTSUPP, When: "FS_IOC_REMOVE_ENCRYPTION_KEY"},
		Rule{Syscall: "ioctl", Action: ActionEOPNOTSUPP, When: "FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS"},
		Rule{Syscall: "fcntl", Action: ActionEPERM, When: "F_SETLEASE"},
		Rule{Syscall: "fcntl", Action: ActionEINVAL, When: "F_SETFL with O_DIRECT"},
		Rule{Syscall: "fcntl", Action: ActionEINVAL, When: "F_SET_RW_HINT"},
		Rule{Syscall: "prlimit64", Action: ActionEPERM, When: "pid not 0"},
		Rule{Syscall: "fadvise64", Action: ActionSkip, When: "POSIX_FADV_DONTNEED"},
		Rule{Syscall: "madvise", Action: ActionSkip, When: "MADV_PAGEOUT"},
		Rule{Syscall: "madvise", Action: ActionSkip, When: "MADV_COLD"},
		Rule{Syscall: "madvise", Action: ActionEINVAL, When: "MADV_MERGEABLE"},
		Rule{Syscall: "madvise", Action: ActionEINVAL, When: "MADV_UNMERGEABLE"},
		Rule{Syscall: "prctl", Action: ActionEINVAL, When: "PR_SET_MEMORY_MERGE"},
		Rule{Syscall: "prctl", Action: ActionEINVAL, When: "PR_GET_MEMORY_MERGE"},
		Rule{Syscall: "prctl", Action: ActionEINVAL, When: "PR_SCHED_CORE"},
		Rule{Syscall: "mmap", Action: ActionENOMEM, When: "MAP_HUGETLB"},
		Rule{Syscall: "memfd_create", Action: ActionENOMEM, When: "MFD_HUGETLB"},
		Rule{Syscall: "shmget", Action: ActionENOMEM, When: "SHM_HUGETLB"},
	)
	if _, ok := a.Syscalls["open"]; ok {
		rs = append(rs, Rule{Syscall: "open", Action: ActionEINVAL, When: "O_DIRECT"})
	}
	rs = append(rs,
		Rule{Syscall: "openat", Action: ActionEINVAL, When: "O_DIRECT"},
		Rule{Syscall: "openat2", Action: ActionENOSYS},
		Rule{Syscall: "socket", Action: ActionEAFNOSUPPORT, When: socketFamiliesText},
		Rule{Syscall: "socket", Action: ActionEAFNOSUPPORT, When: sockPacketText},
		Rule{Syscall: "socket", Action: ActionEPROTONOSUPPORT, When: inetProtocolsText},
		Rule{Syscall: "socket", Action: ActionEPROTONOSUPPORT, When: netlinkProtocolsText},
		Rule{Syscall: "socketpair", Action: ActionEAFNOSUPPORT, When: socketFamiliesText},
		Rule{Syscall: "socketpair", Action: ActionEAFNOSUPPORT, When: sockPacketText},
		Rule{Syscall: "socketpair", Action: ActionEPROTONOSUPPORT, When: inetProtocolsText},
		Rule{Syscall: "socketpair", Action: ActionEPROTONOSUPPORT, When: netlinkProtocolsText},
	)
	return rs
}

// Denied names the system calls the filter makes fail on the running
// architecture, with argument conditions in parentheses and a non-EPERM
// action after an arrow: "bpf", "unshare(CLONE_NEWUSER)", "clone3 -> ENOSYS".
// On an unsupported architecture it returns nil.
func Denied() []string {
	a, err := Native()
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range Rules(a) {
		if r.Syscall == "*" {
			continue
		}
		out = append(out, r.String())
	}
	return out
}

// Native returns the running architecture's description.
func Native() (Arch, error) { return ArchFor(runtime.GOARCH) }

// ArchFor returns the description of a Go architecture name.
func ArchFor(goarch string) (Arch, error) {
	switch goarch {
	case "amd64":
		return amd64, nil
	case "arm64":
		return arm64, nil
	}
	return Arch{}, fmt.Errorf("building a filter for %s: %w", goarch, ErrUnsupportedArch)
}

// Filter compiles the filter for the running architecture.
func Filter() ([]unix.SockFilter, error) {
	a, err := Native()
	if err != nil {
		return nil, err
	}
	return Compile(a)
}

// seccomp_data offsets (include/uapi/linux/seccomp.h). The supported
// architectures are little-endian, so an argument's low 32 bits come first.
const (
	offNr   = 0
	offArch = 4
)

func offArgLow(i int) uint32 { return uint32(16 + 8*i) }

// Return values.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retEPERM  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	// An errno of 0 makes the call return 0 without running it.
	retSkip   = unix.SECCOMP_RET_ERRNO
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
	retNoAF   = unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)
	retNoProt = unix.SECCOMP_RET_ERRNO | uint32(unix.EPROTONOSUPPORT)
	retENOMEM = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOMEM)
	retEINVAL = unix.SECCOMP_RET_ERRNO | uint32(unix.EINVAL)
	retNoOp   = unix.SECCOMP_RET_ERRNO | uint32(unix.EOPNOTSUPP)
	retENOTTY = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOTTY)
)

// Compile builds the filter program for a. It is pure.
//
// Layout: check the architecture (kill on mismatch), load the number, deny
// the x32 range, compare against each always-denied number, answer 0 to
// each always-skipped one, send clone3, io_setup and memfd_secret to
// ENOSYS, send unshare/clone to a CLONE_NEWUSER test on the first
// argument, ioctl to a request-number test on the second, fcntl to a test
// of its command (the second: EPERM for F_SETLEASE, EINVAL for
// F_SET_RW_HINT, and for F_SETFL a test of O_DIRECT in the third),
// prlimit64 to a test of its pid (the first: 0, the caller, or EPERM),
// fadvise64 and madvise to a test of their advice (0 without the call for
// POSIX_FADV_DONTNEED, MADV_PAGEOUT and MADV_COLD, EINVAL for
// MADV_MERGEABLE and MADV_UNMERGEABLE), prctl to a test of its option
// (EINVAL for PR_SET_MEMORY_MERGE, PR_GET_MEMORY_MERGE and
// PR_SCHED_CORE), mmap,
// memfd_create and shmget to a test of their flags (ENOMEM for a huge
// page of the hugetlb pool), open and openat to a test of O_DIRECT
// (EINVAL), openat2 to ENOSYS, socket/socketpair to a test of the
// address family (the first) and, for AF_INET, AF_INET6 and AF_NETLINK,
// of the protocol (the third), and allow the rest. Argument tests read
// only the low 32 bits: CLONE_NEWUSER lives there, and the kernel
// truncates an ioctl request and an fcntl command to 32 bits, so high
// bits set by the caller neither hide nor change the match.
func Compile(a Arch) ([]unix.SockFilter, error) {
	var b builder
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, a.AuditArch, "", "kill")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	if a.X32 {
		b.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32SyscallBit, "eperm", "")
	}
	for _, n := range deniedAlways {
		nr, ok := a.Syscalls[n]
		if !ok {
			continue
		}
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, nr, "eperm", "")
	}
	for _, n := range skippedAlways {
		nr, ok := a.Syscalls[n]
		if !ok {
			continue
		}
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, nr, "skip", "")
	}
	for _, c := range []struct{ name, to string }{
		{"clone3", "enosys"},
		{"io_setup", "enosys"},
		{"memfd_secret", "enosys"},
		{"unshare", "newuser"},
		{"clone", "newuser"},
		{"ioctl", "ioctl"},
		{"fcntl", "fcntl"},
		{"socket", "socket"},
		{"socketpair", "socket"},
		{"prlimit64", "prlimit"},
		{"fadvise64", "fadvise"},
		{"madvise", "madvise"},
		{"prctl", "prctl"},
		{"mmap", "mmap"},
		{"memfd_create", "memfd"},
		{"shmget", "shmget"},
		{"open", "open"},
		{"openat", "openat"},
		{"openat2", "enosys"},
	} {
		nr, ok := a.Syscalls[c.name]
		if !ok && c.name == "open" {
			continue // aarch64 has openat alone
		}
		if !ok {
			return nil, fmt.Errorf("building a filter for %s: no number for %s", a.GOARCH, c.name)
		}
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, nr, c.to, "")
	}
	b.ret(retAllow)

	b.label("newuser")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(0))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, cloneNewUser, "eperm", "allow")

	b.label("ioctl")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(1))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, tiocsti, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, tioclinux, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, tiocsetd, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocSetflags, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocFssetxattr, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocFiemap, "eopnotsupp", "")
	for _, req := range []uint32{xfsIocGetbmap, xfsIocGetbmapx, ext4IocGetEsCache, btrfsIocSync, btrfsIocStartSync} {
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, req, "enotty", "")
	}
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocAddEncryptionKey, "eopnotsupp", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocRemoveEncryptionKey, "eopnotsupp", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fsIocRemoveEncryptionKeyAllUsers, "eopnotsupp", "allow")

	// fcntl's command is an unsigned int.
	b.label("fcntl")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(1))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fSetlease, "eperm", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fSetRwHint, "einval", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fSetfl, "setfl", "allow")

	// The flags of fcntl(F_SETFL) (the third argument, a long of which
	// the kernel keeps an unsigned int), open's (the second) and
	// openat's (the third), ints: a set O_DIRECT bit of their low 32
	// bits is all the kernel reads.
	b.label("setfl")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, a.ODirect, "einval", "allow")

	b.label("open")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(1))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, a.ODirect, "einval", "allow")

	b.label("openat")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, a.ODirect, "einval", "allow")

	// The pid is a pid_t: its low 32 bits are all the kernel reads.
	b.label("prlimit")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(0))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, 0, "allow", "eperm")

	// fadvise64's advice (the fourth argument) and madvise's (the
	// third) are ints.
	b.label("fadvise")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(3))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, fadvDontneed, "skip", "allow")

	b.label("madvise")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, madvPageout, "skip", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, madvCold, "skip", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, madvMergeable, "einval", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, madvUnmergeable, "einval", "allow")

	// prctl's option (the first argument) is an int.
	b.label("prctl")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(0))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, prSetMemoryMerge, "einval", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, prGetMemoryMerge, "einval", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, prSchedCore, "einval", "allow")

	// mmap's flags (the fourth argument) and shmget's (the third) are
	// ints, memfd_create's (the second) an unsigned int: a set bit of
	// their low 32 bits is all the kernel reads.
	b.label("mmap")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(3))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, mapHugetlb, "enomem", "allow")

	b.label("memfd")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(1))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, mfdHugetlb, "enomem", "allow")

	b.label("shmget")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	b.jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, shmHugetlb, "enomem", "allow")

	// The domain and the protocol are ints: their low 32 bits are all the
	// kernel reads. socketpair makes the socket before it finds that the
	// family has no pairs (EOPNOTSUPP): its protocol would load a module
	// as well, and it is tested as socket's.
	b.label("socket")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(0))
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_UNIX, "allow", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_INET, "inettype", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_INET6, "inetproto", "")
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AF_NETLINK, "nlproto", "")
	b.ret(retNoAF)

	// The type is an int too (see sockPacket).
	b.label("inettype")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(1))
	b.stmt(unix.BPF_ALU|unix.BPF_AND|unix.BPF_K, sockTypeMask)
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, sockPacket, "", "inetproto")
	b.ret(retNoAF)

	b.label("inetproto")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	for _, p := range inetProtocols {
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, p, "allow", "")
	}
	b.ret(retNoProt)

	b.label("nlproto")
	b.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArgLow(2))
	for _, p := range netlinkProtocols {
		b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, p, "allow", "")
	}
	b.ret(retNoProt)

	b.label("allow")
	b.ret(retAllow)
	b.label("eperm")
	b.ret(retEPERM)
	b.label("enosys")
	b.ret(retENOSYS)
	b.label("enomem")
	b.ret(retENOMEM)
	b.label("einval")
	b.ret(retEINVAL)
	b.label("eopnotsupp")
	b.ret(retNoOp)
	b.label("enotty")
	b.ret(retENOTTY)
	b.label("skip")
	b.ret(retSkip)
	b.label("kill")
	b.ret(retKill)
	prog, err := b.assemble()
	if err != nil {
		return nil, fmt.Errorf("building a filter for %s: %w", a.GOARCH, err)
	}
	return prog, nil
}

// builder assembles a classic-BPF program with forward jumps to labels.
type builder struct {
	insns  []insn
	labels map[string]int
}

type insn struct {
	code   uint16
	k      uint32
	jt, jf string // label, or "" for the next instruction
}

func (b *builder) stmt(code uint16, k uint32) { b.insns = append(b.insns, insn{code: code, k: k}) }
func (b *builder) ret(k uint32)               { b.stmt(unix.BPF_RET|unix.BPF_K, k) }
func (b *builder) jump(code uint16, k uint32, jt, jf string) {
	b.insns = append(b.insns, insn{code: code, k: k, jt: jt, jf: jf})
}

func (b *builder) label(name string) {
	if b.labels == nil {
		b.labels = map[string]int{}
	}
	b.labels[name] = len(b.insns)
}

// maxInsns is BPF_MAXINSNS, the kernel's limit on a filter's length.
const maxInsns = 4096

func (b *builder) assemble() ([]unix.SockFilter, error) {
	if len(b.insns) > maxInsns {
		return nil, fmt.Errorf("program has %d instructions, more than %d", len(b.insns), maxInsns)
	}
	out := make([]unix.SockFilter, len(b.insns))
	for i, in := range b.insns {
		jt, err := b.offset(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := b.offset(i, in.jf)
		if err != nil {
			return nil, err
		}
		out[i] = unix.SockFilter{Code: in.code, Jt: jt, Jf: jf, K: in.k}
	}
	return out, nil
}

func (b *builder) offset(from int, label string) (uint8, error) {
	if label == "" {
		return 0, nil
	}
	to, ok := b.labels[label]
	if !ok {
		return 0, fmt.Errorf("instruction %d jumps to undefined label %q", from, label)
	}
	d := to - from - 1
	if d < 0 || d > 255 {
		return 0, fmt.Errorf("instruction %d jumps %d to label %q: out of range", from, d, label)
	}
	return uint8(d), nil
}
