# The ninth round: the host's clock and names, the kernel's log and
# memory, file capabilities and security xattrs, fanotify past inode
# marks, io_uring past its set-up, netlink's audit, process-event and
# uevent channels, the reaper's /proc files, and the knobs a uid 0 that
# is the host's root could write (a --root-sandbox run): binfmt_misc and
# sysfs. Each attempt prints "ok: WHAT" when it was stopped and
# "ESCAPE: WHAT" when it worked; the last line says how many ran.
import ctypes, errno, os, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
ran = 0

def report(stopped, what):
    global ran
    ran += 1
    print(("ok: " if stopped else "ESCAPE: ") + what)

def refused(what, r, want=(errno.EPERM,)):
    # r is a libc call's return value; errno says why it failed.
    e = ctypes.get_errno()
    report(r == -1 and e in want, f"{what}: {r} {errno.errorcode.get(e)}")

def call(what, f, *args, want=(errno.EPERM,)):
    ctypes.set_errno(0)
    refused(what, f(*args), want)

class timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]

class timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]

# struct timex: modes, then fields the kernel reads by the modes' bits,
# 208 bytes on 64-bit Linux; freq is the third long.
class timex(ctypes.Structure):
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long), ("rest", ctypes.c_char * 200)]

def clock():
    # Each call sets the clock to what it reads now, so that a success,
    # itself the escape, would move the host's clock as little as can be.
    now = timespec()
    libc.clock_gettime(0, ctypes.byref(now))  # CLOCK_REALTIME
    call("clock_settime(CLOCK_REALTIME) of the host's clock", libc.clock_settime, 0, ctypes.byref(now))
    tv = timeval(now.sec, now.nsec // 1000)
    call("settimeofday of the host's clock", libc.settimeofday, ctypes.byref(tv), None)
    tx = timex()
    libc.adjtimex(ctypes.byref(tx))  # modes 0: a read
    tx.modes = 0x0002  # ADJ_FREQUENCY, to the frequency it reads
    call("adjtimex(ADJ_FREQUENCY) of the host's clock", libc.adjtimex, ctypes.byref(tx))
    tx.modes = 0x0002
    call("clock_adjtime(CLOCK_REALTIME, ADJ_FREQUENCY)", libc.clock_adjtime, 0, ctypes.byref(tx))

def names():
    name = b"vigiles-escape-h83"
    call("sethostname", libc.sethostname, name, len(name))
    call("setdomainname", libc.setdomainname, name, len(name))
    report(os.uname().nodename != name.decode(), f"the hostname reads {os.uname().nodename!r} after sethostname")

def kernel_log_and_memory():
    buf = ctypes.create_string_buffer(4096)
    call("syslog(SYSLOG_ACTION_READ_ALL): the host kernel's log", libc.klogctl, 3, buf, len(buf))
    call("syslog(SYSLOG_ACTION_SIZE_BUFFER)", libc.klogctl, 10, None, 0)
    for p in ("/dev/kmsg", "/proc/kmsg", "/proc/kcore", "/dev/mem", "/dev/kmem", "/dev/port"):
        try:
            fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
            try:
                got = os.read(fd, 64)
            except OSError as e:
                got = errno.errorcode.get(e.errno)
            os.close(fd)
            report(False, f"{p} opened for reading: {got!r}")
        except OSError as e:
            report(True, f"{p} refused ({errno.errorcode.get(e.errno)})")
    # The test says whether the host hides kernel addresses from an
    # unprivileged user (kptr_restrict, perf_event_paranoid): if it does,
    # the sandbox must not see them either.
    if os.environ.get("KALLSYMS") == "hidden":
        shown = [l for l in open("/proc/kallsyms") if not l.startswith("0000000000000000 ")]
        report(not shown, f"/proc/kallsyms shows {len(shown)} kernel addresses (the KASLR base)")

def prctl_mm():
    # Rewriting the memory map's fields (where /proc/PID/cmdline is read,
    # which file /proc/PID/exe names) needs CAP_SYS_RESOURCE, and naming
    # another executable through PR_SET_MM_MAP's exe_fd
    # CAP_CHECKPOINT_RESTORE in the sandbox's user namespace.
    exe = os.open("/bin/sh", os.O_RDONLY)
    call("prctl(PR_SET_MM, PR_SET_MM_EXE_FILE)", libc.prctl, 35, 13, exe, 0, 0)
    call("prctl(PR_SET_MM, PR_SET_MM_ARG_START)", libc.prctl, 35, 8, ctypes.c_ulong(0x10000), 0, 0, want=(errno.EPERM,))
    f = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
    # The fields of proc_pid_stat(5) past the name, field N at N-3: 23
    # startcode, 24 endcode, 25 startstack, 42-48 start_data … env_end.
    v = [0] + [int(x) for x in f[1:]]
    libc.sbrk.restype = ctypes.c_void_p
    brk = libc.sbrk(0)
    m = (ctypes.c_uint64 * 13)(v[23], v[24], v[42], v[43], v[44], brk, v[25], v[45], v[46], v[47], v[48], 0, 0)
    def mm_map(exe_fd):
        raw = bytearray(bytes(m))
        raw[88:104] = (0).to_bytes(8, "little") + (0).to_bytes(4, "little") + (exe_fd & 0xffffffff).to_bytes(4, "little")
        return ctypes.create_string_buffer(bytes(raw), 104)
    # The same map without an executable is the process's own to set: it
    # must pass, or the refusal below would be the map's, not exe_fd's.
    ctypes.set_errno(0)
    same = libc.prctl(35, 14, mm_map(-1), 104, 0)
    ctypes.set_errno(0)
    r = libc.prctl(35, 14, mm_map(exe), 104, 0)
    e = ctypes.get_errno()
    report(same == 0 and r == -1 and e == errno.EPERM,
           f"prctl(PR_SET_MM, PR_SET_MM_MAP) naming another executable: {r} {errno.errorcode.get(e)} (its map alone: {same})")
    os.close(exe)

def chroot():
    call("chroot", libc.chroot, b"/tmp")

def xattrs():
    # A file capability on a file the command made would be kept in the
    # record's copy-up and run with privileges by whoever runs it next;
    # security.* and trusted.* names are the kernel's and the LSMs'.
    home = os.path.expanduser("~")
    tmp = os.environ.get("TMPDIR", "/tmp")
    # VFS_CAP_REVISION_2 with CAP_SYS_ADMIN (21) permitted and effective.
    cap = (0x02000001).to_bytes(4, "little") + (1 << 21).to_bytes(4, "little") + bytes(12)
    for d in (".", home, tmp, "/dev/shm"):
        p = os.path.join(d, "xattr-target")
        with open(p, "w") as f:
            f.write("x")
        for name, value in (("security.capability", cap), ("security.vigiles", b"y"), ("trusted.vigiles", b"y")):
            try:
                os.setxattr(p, name, value)
                report(False, f"setxattr {name} on {p}")
            except OSError as e:
                report(e.errno == errno.EPERM, f"setxattr {name} on {p} ({errno.errorcode.get(e.errno)}, want EPERM: no CAP_SETFCAP or CAP_SYS_ADMIN)")

def fanotify():
    # Unprivileged fanotify is an inode mark's alone (as inotify): a
    # permission event would stop host processes' opens, a mount or file
    # system mark would watch the host's every file.
    call("fanotify_init(FAN_CLASS_CONTENT): permission events", libc.fanotify_init, 0x04, 0)
    ctypes.set_errno(0)
    fd = libc.fanotify_init(0x200, 0)  # FAN_REPORT_FID, unprivileged since Linux 5.13
    if fd < 0:
        report(True, f"fanotify_init(FAN_REPORT_FID) refused ({errno.errorcode.get(ctypes.get_errno())})")
        return
    for what, flags in (("FAN_MARK_MOUNT", 0x10), ("FAN_MARK_FILESYSTEM", 0x100)):
        ctypes.set_errno(0)
        r = libc.fanotify_mark(fd, 0x1 | flags, ctypes.c_uint64(0x20), -100, b"/")  # FAN_MARK_ADD, FAN_OPEN
        refused(f"fanotify_mark({what}) on /", r)
    os.close(fd)

def io_uring():
    # io_uring_setup is refused (seccomp.py); the other two take an
    # io_uring's descriptor, and are refused before it is looked at.
    for nr, name in ((426, "io_uring_enter"), (427, "io_uring_register")):
        ctypes.set_errno(0)
        refused(name, libc.syscall(ctypes.c_long(nr), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0)))

def netlink():
    # The host's audit log (a forged AUDIT_USER record, a read of the
    # log's multicast group), the proc connector's events of every
    # process, and a uevent sent to udev, which runs rules as root.
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 9)  # NETLINK_AUDIT
    s.settimeout(5)
    msg = b"vigiles-escape forged audit record\0"
    s.send(struct.pack("=IHHII", 16 + len(msg), 1005, 1 | 4, 1, 0) + msg)  # AUDIT_USER, NLM_F_REQUEST|NLM_F_ACK
    try:
        b = s.recv(65536)
        typ = struct.unpack_from("=H", b, 4)[0]
        err = -struct.unpack_from("=i", b, 16)[0] if typ == 2 else None  # NLMSG_ERROR
        report(err in (errno.ECONNREFUSED, errno.EPERM), f"an AUDIT_USER record for the host's audit log answered {errno.errorcode.get(err, err)}")
    except OSError as e:
        report(e.errno in (errno.ECONNREFUSED, errno.EPERM), f"an AUDIT_USER record for the host's audit log refused ({errno.errorcode.get(e.errno)})")
    s.close()
    for proto, group, what in ((9, 1, "the audit log's group (AUDIT_NLGRP_READLOG)"), (11, 1, "the proc connector's events (CN_IDX_PROC)")):
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
        try:
            s.bind((0, 1 << (group - 1)))
            report(False, f"joined {what}")
        except OSError as e:
            report(e.errno == errno.EPERM, f"joining {what} refused ({errno.errorcode.get(e.errno)})")
        s.close()
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 15)  # NETLINK_KOBJECT_UEVENT
    try:
        s.sendto(b"add@/devices/vigiles\0ACTION=add\0DEVPATH=/devices/vigiles\0SUBSYSTEM=vigiles\0SEQNUM=1\0", (0, 1))
        report(False, "sent a uevent to udev's group")
    except OSError as e:
        report(e.errno == errno.EPERM, f"a uevent to udev's group refused ({errno.errorcode.get(e.errno)})")
    s.close()

def binfmt():
    # A binfmt_misc handler runs for every matching exec on the host, as
    # root with the C flag.
    for p in ("/proc/sys/fs/binfmt_misc/register", "/proc/sys/fs/binfmt_misc/status"):
        try:
            fd = os.open(p, os.O_WRONLY)
            os.close(fd)
            report(False, f"{p} opened for writing")
        except OSError as e:
            report(True, f"{p} not writable ({errno.errorcode.get(e.errno)})")

def landlock():
    # Whether the kernel has Landlock (its ABI version, asked with
    # landlock_create_ruleset's LANDLOCK_CREATE_RULESET_VERSION, is 1 or
    # more), which the reaper then applies.
    return libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1)) >= 1

def reaper_proc():
    # /proc/1 belongs to the sandbox's uid 0, as the command may (the
    # reaper is not dumpable): none of its files, nor its threads', opens
    # for writing (oom_score_adj, comm, clear_refs, sched, timerslack_ns,
    # coredump_filter, fail-nth where the kernel has it).
    dirs = ["/proc/1"] + ["/proc/1/task/" + t for t in os.listdir("/proc/1/task")]
    tried, answers = 0, {}
    for d in dirs:
        for n in sorted(os.listdir(d)):
            p = d + "/" + n
            if os.path.isdir(p) and not os.path.islink(p):
                continue
            tried += 1
            try:
                fd = os.open(p, os.O_WRONLY)
                os.close(fd)
                report(False, f"{p} opened for writing")
            except OSError as e:
                answers[errno.errorcode.get(e.errno, str(e.errno))] = p
    # Landlock refuses them all where the kernel has it (docs/security.md:
    # EACCES); the reaper's own checks are what is left without it.
    report(tried > 20 and (not landlock() or set(answers) == {"EACCES"}),
           f"no file of the reaper's /proc opened for writing ({tried} tried, answers {sorted(answers.items())})")

def sysfs():
    # sysfs files with a write bit (power state, CPUs' online, module
    # parameters, block queues, the uevent helper, FUSE connections'
    # abort, ext4's trigger_fs_error): a --root-sandbox run's uid 0 is
    # the host's root, whom only their modes would not stop.
    tried, answers = 0, {}
    roots = ["/sys/power", "/sys/kernel", "/sys/module", "/sys/block", "/sys/class/net", "/sys/firmware", "/sys/fs", "/sys/devices/system", "/sys/bus"]
    for root in roots:
        for d, subdirs, files in os.walk(root, followlinks=False):
            if d.count("/") > 6 or d.startswith(("/sys/kernel/debug", "/sys/kernel/tracing")):
                subdirs[:] = []
                continue
            for n in files:
                p = os.path.join(d, n)
                try:
                    if not os.lstat(p).st_mode & 0o222:
                        continue
                except OSError:
                    continue
                tried += 1
                try:
                    fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                    os.close(fd)
                    report(False, f"{p} opened for writing")
                except OSError as e:
                    answers[errno.errorcode.get(e.errno, str(e.errno))] = p
    # sysfs is bound read-only (EROFS): that is what stops a --root-sandbox
    # run's uid 0, the host's root, which the files' modes let in; any
    # other uid the modes stop first (EACCES).
    want = {"EROFS"} if os.environ.get("ROOT_SANDBOX") else {"EACCES", "EROFS"}
    report(tried > 0 and set(answers) <= want,
           f"no sysfs file with a write bit opened for writing ({tried} tried, answers {sorted(answers.items())}, want {sorted(want)})")

clock()
names()
kernel_log_and_memory()
prctl_mm()
chroot()
xattrs()
fanotify()
io_uring()
netlink()
binfmt()
reaper_proc()
sysfs()
print(f"ran {ran}")
