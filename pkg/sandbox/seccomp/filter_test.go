package seccomp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// seccompData mirrors struct seccomp_data.
type seccompData struct {
	nr   uint32
	arch uint32
	args [6]uint64
}

// bytes lays the data out as the kernel does on a little-endian machine.
func (d seccompData) bytes() []byte {
	b := make([]byte, 64)
	binary.LittleEndian.PutUint32(b[0:], d.nr)
	binary.LittleEndian.PutUint32(b[4:], d.arch)
	for i, a := range d.args {
		binary.LittleEndian.PutUint64(b[16+8*i:], a)
	}
	return b
}

// run interprets the subset of classic BPF that seccomp filters use and
// Compile emits; anything else is an error, so a builder change that emits
// a new instruction has to come with interpreter support and a test.
func run(prog []unix.SockFilter, d seccompData) (uint32, error) {
	data := d.bytes()
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			if in.K%4 != 0 || int(in.K)+4 > len(data) {
				return 0, fmt.Errorf("pc %d: load at %d out of seccomp_data", pc, in.K)
			}
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_ALU | unix.BPF_AND | unix.BPF_K:
			acc &= in.K
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K,
			unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K,
			unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var ok bool
			switch in.Code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				ok = acc == in.K
			case unix.BPF_JGE:
				ok = acc >= in.K
			case unix.BPF_JSET:
				ok = acc&in.K != 0
			}
			if ok {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
			if pc+1 >= len(prog) {
				return 0, fmt.Errorf("pc %d: jump past the end", pc)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K, nil
		default:
			return 0, fmt.Errorf("pc %d: unsupported instruction %#x", pc, in.Code)
		}
	}
	return 0, fmt.Errorf("fell off the end of the program")
}

func actionOf(ret uint32) Action {
	switch ret {
	case retAllow:
		return ActionAllow
	case retEPERM:
		return ActionEPERM
	case retENOSYS:
		return ActionENOSYS
	case retKill:
		return ActionKill
	case retNoAF:
		return ActionEAFNOSUPPORT
	case retNoProt:
		return ActionEPROTONOSUPPORT
	case retSkip:
		return ActionSkip
	case retENOMEM:
		return ActionENOMEM
	case retEINVAL:
		return ActionEINVAL
	case retNoOp:
		return ActionEOPNOTSUPP
	case retENOTTY:
		return ActionENOTTY
	}
	return Action(fmt.Sprintf("unknown %#x", ret))
}

func TestCompile(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64"} {
		t.Run(goarch, func(t *testing.T) {
			a, err := ArchFor(goarch)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := Compile(a)
			if err != nil {
				t.Fatal(err)
			}
			nr := func(name string) uint32 {
				n, ok := a.Syscalls[name]
				if !ok {
					t.Fatalf("no number for %s", name)
				}
				return n
			}
			call := func(name string, args ...uint64) seccompData {
				d := seccompData{nr: nr(name), arch: a.AuditArch}
				copy(d.args[:], args)
				return d
			}
			type tc struct {
				name string
				d    seccompData
				want Action
			}
			var tcs []tc
			for _, n := range deniedAlways {
				if _, ok := a.Syscalls[n]; !ok {
					continue
				}
				tcs = append(tcs, tc{n, call(n), ActionEPERM})
				// Arguments do not matter for an always-denied call.
				tcs = append(tcs, tc{n + " with args", call(n, ^uint64(0), 1, 2, 3, 4, 5), ActionEPERM})
			}
			tcs = append(tcs, []tc{
				{"unshare(0)", call("unshare"), ActionAllow},
				{"unshare(CLONE_NEWNS|CLONE_NEWNET)", call("unshare", unix.CLONE_NEWNS|unix.CLONE_NEWNET), ActionAllow},
				{"unshare(CLONE_NEWUSER)", call("unshare", unix.CLONE_NEWUSER), ActionEPERM},
				{"unshare(CLONE_NEWUSER|CLONE_NEWNS)", call("unshare", unix.CLONE_NEWUSER|unix.CLONE_NEWNS), ActionEPERM},
				{"unshare(high bits|CLONE_NEWUSER)", call("unshare", 0xffffffff00000000|unix.CLONE_NEWUSER), ActionEPERM},
				{"unshare(high bits only)", call("unshare", 0xffffffff00000000), ActionAllow},
				{"clone(SIGCHLD)", call("clone", uint64(unix.SIGCHLD)), ActionAllow},
				{"clone(CLONE_VM|CLONE_VFORK|SIGCHLD)", call("clone", unix.CLONE_VM|unix.CLONE_VFORK|uint64(unix.SIGCHLD)), ActionAllow},
				{"clone(thread)", call("clone", unix.CLONE_VM|unix.CLONE_FS|unix.CLONE_FILES|unix.CLONE_SIGHAND|unix.CLONE_THREAD|unix.CLONE_SYSVSEM), ActionAllow},
				{"clone(CLONE_NEWUSER)", call("clone", unix.CLONE_NEWUSER|uint64(unix.SIGCHLD)), ActionEPERM},
				{"clone3", call("clone3"), ActionENOSYS},
				{"clone3(any args)", call("clone3", 1, 88), ActionENOSYS},
				{"io_setup", call("io_setup", 4096), ActionENOSYS},
				{"memfd_secret", call("memfd_secret", 0), ActionENOSYS},
				{"fadvise64(POSIX_FADV_DONTNEED)", call("fadvise64", 3, 0, 0, unix.FADV_DONTNEED), ActionSkip},
				{"fadvise64(high bits|POSIX_FADV_DONTNEED)", call("fadvise64", 3, 0, 0, 0xffffffff00000000|unix.FADV_DONTNEED), ActionSkip},
				{"fadvise64(POSIX_FADV_WILLNEED)", call("fadvise64", 3, 0, 0, unix.FADV_WILLNEED), ActionAllow},
				{"fadvise64(POSIX_FADV_SEQUENTIAL)", call("fadvise64", 3, 0, 0, unix.FADV_SEQUENTIAL), ActionAllow},
				{"madvise(MADV_PAGEOUT)", call("madvise", 0x10000, 4096, unix.MADV_PAGEOUT), ActionSkip},
				{"sync", call("sync"), ActionSkip},
				{"syncfs", call("syncfs", 3), ActionSkip},
				{"fsync", call("fsync", 3), ActionSkip},
				{"fdatasync", call("fdatasync", 3), ActionSkip},
				{"sync_file_range", call("sync_file_range", 3, 0, 0, 7), ActionSkip},
				{"msync", call("msync", 0x10000, 4096, unix.MS_SYNC), ActionSkip},
				{"madvise(MADV_DONTNEED)", call("madvise", 0x10000, 4096, unix.MADV_DONTNEED), ActionAllow},
				{"madvise(MADV_COLD)", call("madvise", 0x10000, 4096, unix.MADV_COLD), ActionSkip},
				{"madvise(high bits|MADV_COLD)", call("madvise", 0x10000, 4096, 0xffffffff00000000|unix.MADV_COLD), ActionSkip},
				{"madvise(MADV_WILLNEED)", call("madvise", 0x10000, 4096, unix.MADV_WILLNEED), ActionAllow},
				{"madvise(MADV_HUGEPAGE)", call("madvise", 0x10000, 4096, unix.MADV_HUGEPAGE), ActionAllow},
				{"madvise(MADV_MERGEABLE)", call("madvise", 0x10000, 4096, unix.MADV_MERGEABLE), ActionEINVAL},
				{"madvise(high bits|MADV_MERGEABLE)", call("madvise", 0x10000, 4096, 0xffffffff00000000|unix.MADV_MERGEABLE), ActionEINVAL},
				{"madvise(MADV_UNMERGEABLE)", call("madvise", 0x10000, 4096, unix.MADV_UNMERGEABLE), ActionEINVAL},
				{"prctl(PR_SET_MEMORY_MERGE)", call("prctl", unix.PR_SET_MEMORY_MERGE, 1), ActionEINVAL},
				{"prctl(high bits|PR_SET_MEMORY_MERGE)", call("prctl", 0xffffffff00000000|unix.PR_SET_MEMORY_MERGE, 1), ActionEINVAL},
				{"prctl(PR_GET_MEMORY_MERGE)", call("prctl", prGetMemoryMerge), ActionEINVAL},
				{"prctl(PR_SCHED_CORE)", call("prctl", prSchedCore, 1, 0, 0), ActionEINVAL},
				{"prctl(high bits|PR_SCHED_CORE)", call("prctl", 0xffffffff00000000|prSchedCore, 0, 0, 0), ActionEINVAL},
				{"prctl(PR_SET_NAME)", call("prctl", unix.PR_SET_NAME, 0x10000), ActionAllow},
				{"prctl(PR_SET_NO_NEW_PRIVS)", call("prctl", unix.PR_SET_NO_NEW_PRIVS, 1), ActionAllow},
				{"prctl(PR_SET_PDEATHSIG)", call("prctl", unix.PR_SET_PDEATHSIG, uint64(unix.SIGKILL)), ActionAllow},
				{"mmap(MAP_HUGETLB)", call("mmap", 0, 2<<20, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|mapHugetlb), ActionENOMEM},
				{"mmap(high bits|MAP_HUGETLB)", call("mmap", 0, 2<<20, unix.PROT_READ, 0xffffffff00000000|unix.MAP_SHARED|mapHugetlb, 3), ActionENOMEM},
				{"mmap(MAP_PRIVATE|MAP_ANONYMOUS)", call("mmap", 0, 4096, unix.PROT_READ, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS), ActionAllow},
				{"mmap(MAP_SHARED, a file)", call("mmap", 0, 4096, unix.PROT_READ, unix.MAP_SHARED, 3), ActionAllow},
				{"memfd_create(MFD_HUGETLB)", call("memfd_create", 0x10000, unix.MFD_CLOEXEC|mfdHugetlb), ActionENOMEM},
				{"memfd_create(MFD_CLOEXEC)", call("memfd_create", 0x10000, unix.MFD_CLOEXEC), ActionAllow},
				{"shmget(SHM_HUGETLB)", call("shmget", 0, 2<<20, 0o1600|shmHugetlb), ActionENOMEM},
				{"shmget", call("shmget", 0, 4096, 0o1600), ActionAllow},
				{"openat(O_RDONLY|O_DIRECT)", call("openat", uint64(0xffffff9c), 0x10000, uint64(unix.O_CLOEXEC)|uint64(a.ODirect)), ActionEINVAL},
				{"openat(high bits|O_DIRECT)", call("openat", uint64(0xffffff9c), 0x10000, 0xffffffff00000000|uint64(a.ODirect)), ActionEINVAL},
				{"openat(O_RDONLY|O_CLOEXEC)", call("openat", uint64(0xffffff9c), 0x10000, unix.O_CLOEXEC), ActionAllow},
				{"openat(O_WRONLY|O_CREAT|O_TRUNC)", call("openat", uint64(0xffffff9c), 0x10000, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, 0o644), ActionAllow},
				{"openat2", call("openat2", uint64(0xffffff9c), 0x10000, 0x20000, 24), ActionENOSYS},
				{"fcntl(F_SETFL, O_DIRECT)", call("fcntl", 3, unix.F_SETFL, uint64(a.ODirect)|unix.O_NONBLOCK), ActionEINVAL},
				{"fcntl(F_SETFL, O_NONBLOCK)", call("fcntl", 3, unix.F_SETFL, unix.O_NONBLOCK), ActionAllow},
				{"fcntl(F_SETFD, the O_DIRECT bit)", call("fcntl", 3, unix.F_SETFD, uint64(a.ODirect)), ActionAllow},
				{"ioctl(FS_IOC_FIEMAP)", call("ioctl", 3, fsIocFiemap, 0x10000), ActionEOPNOTSUPP},
				{"ioctl(XFS_IOC_GETBMAP)", call("ioctl", 3, xfsIocGetbmap, 0x10000), ActionENOTTY},
				{"ioctl(XFS_IOC_GETBMAPX)", call("ioctl", 3, xfsIocGetbmapx, 0x10000), ActionENOTTY},
				{"ioctl(high bits|XFS_IOC_GETBMAPX)", call("ioctl", 3, 0xdeadbeef00000000|xfsIocGetbmapx, 0x10000), ActionENOTTY},
				{"ioctl(XFS_IOC_GETBMAPA)", call("ioctl", 3, 0xc020582c, 0x10000), ActionAllow},
				{"ioctl(EXT4_IOC_GET_ES_CACHE)", call("ioctl", 3, ext4IocGetEsCache, 0x10000), ActionENOTTY},
				{"ioctl(BTRFS_IOC_SYNC)", call("ioctl", 3, btrfsIocSync), ActionENOTTY},
				{"ioctl(BTRFS_IOC_START_SYNC)", call("ioctl", 3, btrfsIocStartSync, 0x10000), ActionENOTTY},
				{"ioctl(BTRFS_IOC_WAIT_SYNC)", call("ioctl", 3, 0x40089416, 0x10000), ActionAllow},
				{"ioctl(FS_IOC_ADD_ENCRYPTION_KEY)", call("ioctl", 3, unix.FS_IOC_ADD_ENCRYPTION_KEY, 0x10000), ActionEOPNOTSUPP},
				{"ioctl(FS_IOC_REMOVE_ENCRYPTION_KEY)", call("ioctl", 3, unix.FS_IOC_REMOVE_ENCRYPTION_KEY, 0x10000), ActionEOPNOTSUPP},
				{"ioctl(FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS)", call("ioctl", 3, unix.FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, 0x10000), ActionEOPNOTSUPP},
				{"ioctl(FS_IOC_GET_ENCRYPTION_KEY_STATUS)", call("ioctl", 3, unix.FS_IOC_GET_ENCRYPTION_KEY_STATUS, 0x10000), ActionAllow},
				{"ioctl(FS_IOC_SET_ENCRYPTION_POLICY)", call("ioctl", 3, unix.FS_IOC_SET_ENCRYPTION_POLICY, 0x10000), ActionAllow},
				{"ioctl(FS_IOC_ENABLE_VERITY)", call("ioctl", 3, unix.FS_IOC_ENABLE_VERITY, 0x10000), ActionAllow},
				{"ioctl(TIOCSTI)", call("ioctl", 0, tiocsti), ActionEPERM},
				{"ioctl(TIOCLINUX)", call("ioctl", 0, tioclinux), ActionEPERM},
				{"ioctl(TIOCSETD)", call("ioctl", 0, tiocsetd, 0x10000), ActionEPERM},
				{"ioctl(high bits|TIOCSETD)", call("ioctl", 0, 0xdeadbeef00000000|tiocsetd, 0x10000), ActionEPERM},
				{"ioctl(TIOCGETD)", call("ioctl", 0, unix.TIOCGETD, 0x10000), ActionAllow},
				{"ioctl(FS_IOC_SETFLAGS)", call("ioctl", 3, fsIocSetflags), ActionEPERM},
				{"ioctl(FS_IOC_FSSETXATTR)", call("ioctl", 3, fsIocFssetxattr), ActionEPERM},
				{"ioctl(FS_IOC_GETFLAGS)", call("ioctl", 3, 0x80086601), ActionAllow},
				{"fcntl(F_SETLEASE)", call("fcntl", 3, unix.F_SETLEASE, unix.F_RDLCK), ActionEPERM},
				{"fcntl(high bits|F_SETLEASE)", call("fcntl", 3, 0xdeadbeef00000000|unix.F_SETLEASE, unix.F_RDLCK), ActionEPERM},
				{"fcntl(F_GETLEASE)", call("fcntl", 3, unix.F_GETLEASE), ActionAllow},
				{"fcntl(F_SET_RW_HINT)", call("fcntl", 3, unix.F_SET_RW_HINT, 0x10000), ActionEINVAL},
				{"fcntl(high bits|F_SET_RW_HINT)", call("fcntl", 3, 0xdeadbeef00000000|unix.F_SET_RW_HINT, 0x10000), ActionEINVAL},
				{"fcntl(F_GET_RW_HINT)", call("fcntl", 3, unix.F_GET_RW_HINT, 0x10000), ActionAllow},
				{"fcntl(F_SETLK)", call("fcntl", 3, unix.F_SETLK), ActionAllow},
				{"fcntl(F_SETFD)", call("fcntl", 3, unix.F_SETFD, unix.FD_CLOEXEC), ActionAllow},
				{"fcntl(fd F_SETLEASE, F_GETFL)", call("fcntl", unix.F_SETLEASE, unix.F_GETFL), ActionAllow},
				{"ioctl(high bits|TIOCSTI)", call("ioctl", 3, 0xdeadbeef00000000|tiocsti), ActionEPERM},
				{"ioctl(TCGETS)", call("ioctl", 0, unix.TCGETS), ActionAllow},
				{"ioctl(TIOCSWINSZ)", call("ioctl", 0, unix.TIOCSWINSZ), ActionAllow},
				{"ioctl(fd TIOCSTI, request 0)", call("ioctl", tiocsti, 0), ActionAllow},
				{"prlimit64(0, RLIMIT_NOFILE)", call("prlimit64", 0, unix.RLIMIT_NOFILE, 0, 8), ActionAllow},
				{"prlimit64(high bits|0)", call("prlimit64", 0xffffffff00000000, unix.RLIMIT_NOFILE), ActionAllow},
				{"prlimit64(1, RLIMIT_NOFILE)", call("prlimit64", 1, unix.RLIMIT_NOFILE, 8, 0), ActionEPERM},
				{"prlimit64(1, get only)", call("prlimit64", 1, unix.RLIMIT_AS, 0, 8), ActionEPERM},
				{"prlimit64(-1)", call("prlimit64", 0xffffffff), ActionEPERM},
				{"socket(AF_UNIX)", call("socket", unix.AF_UNIX, unix.SOCK_STREAM), ActionAllow},
				{"socket(AF_INET)", call("socket", unix.AF_INET, unix.SOCK_DGRAM), ActionAllow},
				{"socket(AF_INET6)", call("socket", unix.AF_INET6, unix.SOCK_STREAM), ActionAllow},
				{"socket(AF_NETLINK)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW), ActionAllow},
				{"socket(high bits|AF_INET)", call("socket", 0xdeadbeef00000000|unix.AF_INET), ActionAllow},
				{"socket(AF_VSOCK)", call("socket", unix.AF_VSOCK, unix.SOCK_STREAM), ActionEAFNOSUPPORT},
				{"socket(AF_ALG)", call("socket", unix.AF_ALG, unix.SOCK_SEQPACKET), ActionEAFNOSUPPORT},
				{"socket(AF_PACKET)", call("socket", unix.AF_PACKET, unix.SOCK_RAW), ActionEAFNOSUPPORT},
				// AF_INET's SOCK_PACKET is an AF_PACKET socket (sockPacket).
				{"socket(AF_INET, SOCK_PACKET)", call("socket", unix.AF_INET, sockPacket, 0), ActionEAFNOSUPPORT},
				{"socket(AF_INET, SOCK_PACKET|SOCK_CLOEXEC|SOCK_NONBLOCK)", call("socket", unix.AF_INET, sockPacket|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0), ActionEAFNOSUPPORT},
				{"socket(AF_INET, high bits|SOCK_PACKET)", call("socket", unix.AF_INET, 0xdeadbeef00000000|sockPacket, 0), ActionEAFNOSUPPORT},
				{"socket(AF_INET, SOCK_PACKET, TCP)", call("socket", unix.AF_INET, sockPacket, unix.IPPROTO_TCP), ActionEAFNOSUPPORT},
				{"socketpair(AF_INET, SOCK_PACKET)", call("socketpair", unix.AF_INET, sockPacket, 0), ActionEAFNOSUPPORT},
				{"socket(AF_INET, SOCK_DGRAM|SOCK_CLOEXEC)", call("socket", unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0), ActionAllow},
				{"socket(AF_INET6, SOCK_PACKET)", call("socket", unix.AF_INET6, sockPacket, 0), ActionAllow},
				{"socketpair(AF_UNIX)", call("socketpair", unix.AF_UNIX, unix.SOCK_STREAM), ActionAllow},
				{"socketpair(AF_VSOCK)", call("socketpair", unix.AF_VSOCK, unix.SOCK_STREAM), ActionEAFNOSUPPORT},
				{"socket(AF_INET, TCP)", call("socket", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP), ActionAllow},
				{"socket(AF_INET6, UDP)", call("socket", unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_UDP), ActionAllow},
				{"socket(AF_INET, ping)", call("socket", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP), ActionAllow},
				{"socket(AF_INET6, ping)", call("socket", unix.AF_INET6, unix.SOCK_DGRAM, unix.IPPROTO_ICMPV6), ActionAllow},
				{"socket(AF_INET, MPTCP)", call("socket", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), ActionAllow},
				{"socket(AF_INET, UDP-Lite)", call("socket", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDPLITE), ActionAllow},
				{"socket(AF_INET, raw)", call("socket", unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_RAW), ActionAllow},
				{"socket(AF_INET, SCTP)", call("socket", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP), ActionEPROTONOSUPPORT},
				{"socket(AF_INET6, SCTP)", call("socket", unix.AF_INET6, unix.SOCK_SEQPACKET, unix.IPPROTO_SCTP), ActionEPROTONOSUPPORT},
				{"socket(AF_INET, DCCP)", call("socket", unix.AF_INET, unix.SOCK_DCCP, unix.IPPROTO_DCCP), ActionEPROTONOSUPPORT},
				{"socket(AF_INET, L2TP)", call("socket", unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_L2TP), ActionEPROTONOSUPPORT},
				{"socket(AF_INET, SMC)", call("socket", unix.AF_INET, unix.SOCK_STREAM, 256), ActionEPROTONOSUPPORT},
				{"socket(AF_INET, high bits|TCP)", call("socket", unix.AF_INET, unix.SOCK_STREAM, 0xdeadbeef00000000|unix.IPPROTO_TCP), ActionAllow},
				{"socket(AF_INET, high bits|SCTP)", call("socket", unix.AF_INET, unix.SOCK_STREAM, 0xdeadbeef00000000|unix.IPPROTO_SCTP), ActionEPROTONOSUPPORT},
				{"socket(AF_NETLINK, ROUTE)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE), ActionAllow},
				{"socket(AF_NETLINK, SOCK_DIAG)", call("socket", unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_SOCK_DIAG), ActionAllow},
				{"socket(AF_NETLINK, NETFILTER)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_NETFILTER), ActionAllow},
				{"socket(AF_NETLINK, GENERIC)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_GENERIC), ActionAllow},
				{"socket(AF_NETLINK, KOBJECT_UEVENT)", call("socket", unix.AF_NETLINK, unix.SOCK_DGRAM, unix.NETLINK_KOBJECT_UEVENT), ActionAllow},
				{"socket(AF_NETLINK, CRYPTO)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_CRYPTO), ActionEPROTONOSUPPORT},
				{"socket(AF_NETLINK, XFRM)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_XFRM), ActionEPROTONOSUPPORT},
				{"socket(AF_NETLINK, RDMA)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_RDMA), ActionEPROTONOSUPPORT},
				{"socket(AF_NETLINK, ISCSI)", call("socket", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ISCSI), ActionEPROTONOSUPPORT},
				{"socket(AF_UNIX, any protocol)", call("socket", unix.AF_UNIX, unix.SOCK_STREAM, 132), ActionAllow},
				{"socketpair(AF_INET, SCTP)", call("socketpair", unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP), ActionEPROTONOSUPPORT},
				{"socketpair(AF_NETLINK, CRYPTO)", call("socketpair", unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_CRYPTO), ActionEPROTONOSUPPORT},
				{"socketpair(AF_UNIX, 0)", call("socketpair", unix.AF_UNIX, unix.SOCK_STREAM, 0), ActionAllow},
				{"foreign arch", seccompData{nr: nr("bpf"), arch: unix.AUDIT_ARCH_I386}, ActionKill},
				{"foreign arch, harmless nr", seccompData{nr: 20, arch: unix.AUDIT_ARCH_ARM}, ActionKill},
				{"nr 1", seccompData{nr: 1, arch: a.AuditArch}, ActionAllow},
			}...)
			// Number 0 is read on x86_64, io_setup on aarch64.
			if a.Syscalls["io_setup"] == 0 {
				tcs = append(tcs, tc{"nr 0", seccompData{nr: 0, arch: a.AuditArch}, ActionENOSYS})
			} else {
				tcs = append(tcs, tc{"nr 0", seccompData{nr: 0, arch: a.AuditArch}, ActionAllow})
			}
			if a.X32 {
				tcs = append(tcs,
					tc{"x32 getpid", seccompData{nr: x32SyscallBit | 39, arch: a.AuditArch}, ActionEPERM},
					tc{"x32 bit alone", seccompData{nr: x32SyscallBit, arch: a.AuditArch}, ActionEPERM},
					tc{"nr -1", seccompData{nr: 0xffffffff, arch: a.AuditArch}, ActionEPERM},
				)
			}
			for _, c := range tcs {
				got, err := run(prog, c.d)
				if err != nil {
					t.Errorf("%s: %v", c.name, err)
					continue
				}
				if actionOf(got) != c.want {
					t.Errorf("%s: got %s, want %s", c.name, actionOf(got), c.want)
				}
			}
		})
	}
}

// Every number not named by a rule is allowed: the filter is a deny list,
// and a mistake that denies write(2) or exit_group(2) is as bad as one that
// allows bpf(2).
func TestCompileAllowsEverythingElse(t *testing.T) {
	for _, goarch := range []string{"amd64", "arm64"} {
		a, _ := ArchFor(goarch)
		prog, err := Compile(a)
		if err != nil {
			t.Fatal(err)
		}
		named := map[uint32]string{}
		for n, nr := range a.Syscalls {
			named[nr] = n
		}
		for nr := uint32(0); nr < 600; nr++ {
			if _, ok := named[nr]; ok {
				continue
			}
			got, err := run(prog, seccompData{nr: nr, arch: a.AuditArch, args: [6]uint64{^uint64(0), ^uint64(0)}})
			if err != nil {
				t.Fatalf("%s nr %d: %v", goarch, nr, err)
			}
			if actionOf(got) != ActionAllow {
				t.Errorf("%s nr %d: got %s, want allow", goarch, nr, actionOf(got))
			}
		}
	}
}

func TestDenyListCoversBothArchitectures(t *testing.T) {
	x86Only := []string{"iopl", "ioperm", "modify_ldt", "uselib"}
	for _, n := range deniedAlways {
		if _, ok := amd64.Syscalls[n]; !ok {
			t.Errorf("amd64 table has no %s", n)
		}
		if _, ok := arm64.Syscalls[n]; !ok && !slices.Contains(x86Only, n) {
			t.Errorf("arm64 table has no %s", n)
		}
	}
}

func TestDenied(t *testing.T) {
	d := Denied()
	for _, want := range []string{"bpf", "io_uring_setup", "ptrace", "mount", "unshare(CLONE_NEWUSER)",
		"clone(CLONE_NEWUSER)", "ioctl(TIOCSTI)", "ioctl(TIOCLINUX)", "ioctl(FS_IOC_SETFLAGS)", "ioctl(FS_IOC_FSSETXATTR)", "fcntl(F_SETLEASE)", "clone3 -> ENOSYS", "io_setup -> ENOSYS",
		"madvise(MADV_COLD) -> skipped", "madvise(MADV_MERGEABLE) -> EINVAL", "prctl(PR_SET_MEMORY_MERGE) -> EINVAL", "prctl(PR_SCHED_CORE) -> EINVAL"} {
		if !slices.Contains(d, want) {
			t.Errorf("Denied() lacks %q; got %s", want, strings.Join(d, ", "))
		}
	}
}

func TestUnsupportedArch(t *testing.T) {
	_, err := ArchFor("riscv64")
	if err == nil {
		t.Fatal("want an error for riscv64")
	}
	if !errors.Is(err, errors.ErrUnsupported) || !errors.Is(err, ErrUnsupportedArch) {
		t.Errorf("error %v does not wrap errors.ErrUnsupported", err)
	}
}

func TestAssembleRejectsFarJumps(t *testing.T) {
	var b builder
	b.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, 1, "far", "")
	for range 300 {
		b.ret(retAllow)
	}
	b.label("far")
	b.ret(retEPERM)
	if _, err := b.assemble(); err == nil {
		t.Fatal("want an error for a jump of 300")
	}
	var c builder
	c.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, 1, "nowhere", "")
	if _, err := c.assemble(); err == nil {
		t.Fatal("want an error for an undefined label")
	}
}

// The running architecture's table must agree with x/sys/unix, entry for
// entry (nativeNumbers lives in table_test.go and table_$GOARCH_test.go).
func TestNativeTableMatchesUnix(t *testing.T) {
	a, err := Native()
	if err != nil {
		missing(t, fmt.Sprintf("a system call table for this architecture (%v)", err))
	}
	if len(a.Syscalls) != len(nativeNumbers) {
		t.Errorf("table has %d entries, x/sys/unix list has %d", len(a.Syscalls), len(nativeNumbers))
	}
	for n, want := range nativeNumbers {
		if got, ok := a.Syscalls[n]; !ok || got != want {
			t.Errorf("%s: table has %d (present %v), x/sys/unix has %d", n, got, ok, want)
		}
	}
	if a.ODirect != unix.O_DIRECT {
		t.Errorf("O_DIRECT: table has %#x, x/sys/unix has %#x", a.ODirect, unix.O_DIRECT)
	}
}

// docs/security.md lists every rule of both architectures; this keeps the
// page true to the filter.
func TestSecurityDocListsEveryRule(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatalf("reading docs/security.md: %v", err)
	}
	for _, a := range []Arch{amd64, arm64} {
		for _, r := range Rules(a) {
			if r.Syscall == "*" {
				continue
			}
			tok := "`" + r.Syscall + "`"
			if r.When != "" {
				tok = "`" + r.Syscall + "(" + r.When + ")`"
			}
			if !bytes.Contains(doc, []byte(tok)) {
				t.Errorf("docs/security.md does not list %s", tok)
			}
		}
	}
}
