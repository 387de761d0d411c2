// Package seccomp builds and installs the seccomp filter that vigiles puts
// on a confined hook: a classic-BPF program, written in pure Go (no cgo, no
// libseccomp), that makes the kernel interfaces a hook has no business with
// fail with EPERM — io_uring, bpf, perf_event_open, userfaultfd, the key
// ring, kexec, module loading, file handles, cross-process memory access,
// process_madvise (a process may advise itself, and its MADV_PAGEOUT would
// drop the host's page cache around the madvise rule below),
// ptrace, every mount API, setns, new user namespaces (unshare and clone
// with CLONE_NEWUSER), terminal injection (ioctl TIOCSTI / TIOCLINUX) and
// line disciplines (ioctl TIOCSETD: one the kernel lacks it asks modprobe
// for, on the host).
// A socket of an address family other than local, IPv4, IPv6 and netlink
// fails with EAFNOSUPPORT, as does AF_INET's SOCK_PACKET (an AF_PACKET
// socket the kernel makes of it), and one of those of a protocol the kernel would
// ask modprobe for (SCTP, DCCP, L2TP, NETLINK_XFRM, NETLINK_CRYPTO …:
// loaded into the host's kernel, to stay) with EPROTONOSUPPORT, as a kernel
// without them answers. clone3 fails with ENOSYS so that libc falls back to clone, whose flags the
// filter can inspect, and io_setup with ENOSYS, as on a kernel without AIO, since the events of
// every AIO context count against one limit for the whole host, and
// memfd_secret with ENOSYS, as on a kernel without secret memory, since
// each page of it splits the host kernel's direct map for good. fadvise64's POSIX_FADV_DONTNEED
// and madvise's MADV_PAGEOUT answer 0 without being done: they would drop the host's page cache
// of files the command reads; so does madvise's MADV_COLD, which would move the host's cached
// pages of a file the command maps to the inactive list, the first the kernel reclaims,
// whoever owns the file; so do sync, syncfs, fsync, fdatasync, sync_file_range and msync,
// which would write back the host's dirty pages (what the command writes is all in tmpfs);
// for the same reason open and openat with O_DIRECT and fcntl(F_SETFL) setting it fail with
// EINVAL, openat2 with ENOSYS, ioctl(FS_IOC_FIEMAP) with EOPNOTSUPP, and
// the file systems' own ways to the disk (XFS's XFS_IOC_GETBMAP and
// XFS_IOC_GETBMAPX, ext4's EXT4_IOC_GET_ES_CACHE, btrfs's BTRFS_IOC_SYNC
// and BTRFS_IOC_START_SYNC) with ENOTTY, as on a file of another file
// system. fscrypt's key ioctls (FS_IOC_ADD_ENCRYPTION_KEY and the two
// removals) fail with EOPNOTSUPP, as on a file system without encryption:
// any user may add a key to a host file system's keyring through a
// descriptor opened for reading alone, charged to the host uid's key
// quota, to stay after the run.
// madvise's MADV_MERGEABLE and MADV_UNMERGEABLE and prctl's PR_SET_MEMORY_MERGE
// and PR_GET_MEMORY_MERGE fail with EINVAL, as on a kernel without same-page
// merging (KSM), which would share the command's pages with those of the
// host's processes that asked for it and tell the command, by a write's
// time, what they hold.
// prctl's PR_SCHED_CORE fails with EINVAL, as on a kernel without core
// scheduling, which on a host with SMT keeps a sibling hyperthread idle
// beside a tagged task while the host's tasks wait.
// fcntl(F_SET_RW_HINT) fails with EINVAL, as on a kernel before 4.13: the
// kernel lets a file's owner set its inode's write-life hint through a
// descriptor opened for reading, on a read-only mount too, and the
// inode may be the host's.
// mmap(MAP_HUGETLB), memfd_create(MFD_HUGETLB) and shmget(SHM_HUGETLB) fail
// with ENOMEM, as on a host with an empty hugetlb pool: the pool is one for
// the whole host, and nothing bounds what an unprivileged process maps of
// it. A system call made under a foreign architecture (the
// i386 entry point on x86_64, arm32 on aarch64) kills the process, and the
// x32 ABI is denied.
//
// Filter compiles the program for the running architecture (x86_64 and
// aarch64); it is a pure function. Install is the one side effect: it sets
// no_new_privs and loads the program for every thread of the process.
//
// What this package must never do: allow-list system calls (it is a deny
// list of dangerous interfaces layered on namespaces, dropped capabilities
// and a read-only root, not a complete sandbox by itself); install a filter on
// the broker or the vigiles init before they have finished their own mount
// and namespace work; or fall back silently — a filter that cannot be built
// or installed is an error the caller must turn into a refused run.
package seccomp
