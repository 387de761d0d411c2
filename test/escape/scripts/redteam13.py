# The thirteenth round: the file systems' own ioctls on files of the host
# the hook reads through the read-only root. XFS, BTRFS and EXT4 name a
# directory of each (the ext4 one made with encryption and fs-verity),
# each holding "file", of 257 pages a host process has left dirty, which
# the command's uid owns where OWNED is 1 (and the btrfs the subvolume
# "sub"). HOOKKEY is a raw fscrypt key of the hook's, HOSTKEY the
# identifier of a key a host process of the command's uid holds.
# Each attempt prints "ok: WHAT: ERRNO" when it answered as the round
# pinned it (refused, or done where it only reads) and "ESCAPE: WHAT"
# otherwise; the last line says how many ran.
import ctypes, errno, os, stat, struct, sys
sys.dont_write_bytecode = True
from attempts import libc, name, attempt, finish
libc.ioctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p]
owned = os.environ.get("OWNED") == "1"

def ioctl(fd, req, arg=None, size=None):
    """ioctl(fd, req) with arg's bytes in a buffer of size (or an int
    argument where arg is an int); "0" or the errno's name."""
    if isinstance(arg, int):
        r = libc.ioctl(fd, req, ctypes.c_void_p(arg))
    elif arg is None and size is None:
        r = libc.ioctl(fd, req, None)
    else:
        b = ctypes.create_string_buffer(arg or b"", size or len(arg))
        r = libc.ioctl(fd, req, b)
    return "0" if r >= 0 else name(ctypes.get_errno())

# What the read-only root answers a change through a file the hook owns,
# and what the kernel answers first where it does not.
ro = ["EROFS"] if owned else ["EROFS", "EPERM", "EACCES"]
# A file of the work tree's upper layer (tmpfs), opened for writing: the
# target of a clone or a dedupe from the host's file system.
tree = os.open("clone-target", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)

def dedupe(src, dst, dst_offset):
    """FIDEDUPERANGE of src's first 4 KiB onto dst at dst_offset: the
    ioctl's errno, or the target's status."""
    b = ctypes.create_string_buffer(struct.pack("QQHHI", 0, 4096, 1, 0, 0) + struct.pack("qQQiI", dst, dst_offset, 0, 0, 0), 56)
    if libc.ioctl(src, 0xc0189436, b) < 0:
        return name(ctypes.get_errno())
    st = struct.unpack_from("i", b.raw, 48)[0]
    return name(-st) if st < 0 else f"status {st}"

def getbmap(n):
    return struct.pack("qqqii", 0, 0, -1, n, 0) + bytes(32 * n)

# FS_IOC_GETFSMAP's head: four records, from the lowest key to the highest.
high = struct.pack("IIQQQQ", 0xffffffff, 0, (1 << 64) - 1, (1 << 64) - 1, (1 << 64) - 1, 0) + bytes(24)
fsmap = struct.pack("IIII", 0, 0, 4, 0) + bytes(48) + bytes(64) + high + bytes(64 * 4)

d = os.environ.get("XFS")
if d:
    fd = os.open(os.path.join(d, "file"), os.O_RDONLY)
    # The extent maps of the data fork write back the file's delayed
    # allocations first (the filter's ENOTTY: a file system that is not
    # XFS); the attribute fork's map writes nothing back.
    attempt("xfs: ioctl(XFS_IOC_GETBMAP)", ioctl(fd, 0xc0205826, getbmap(4)), ["ENOTTY"])
    attempt("xfs: ioctl(XFS_IOC_GETBMAPX)", ioctl(fd, 0xc0205838, getbmap(4)), ["ENOTTY"])
    attempt("xfs: ioctl(XFS_IOC_GETBMAPA)", ioctl(fd, 0xc020582c, getbmap(4)), ["0"])
    attempt("xfs: ioctl(XFS_IOC_FSGETXATTR)", ioctl(fd, 0x801c581f, size=28), ["0"])
    # Gone from Linux 5.17: unknown to the kernel.
    for what, req in (("XFS_IOC_ALLOCSP64", 0x40305824), ("XFS_IOC_FREESP64", 0x40305825), ("XFS_IOC_ALLOCSP", 0x4030580a)):
        attempt(f"xfs: ioctl({what})", ioctl(fd, req, size=48), ["ENOTTY"])
    # Swapping extents needs both files open for writing.
    sx = struct.pack("qqq", 0, fd, fd) + bytes(192 - 24)
    attempt("xfs: ioctl(XFS_IOC_SWAPEXT)", ioctl(fd, 0xc0c0586d, sx), ["EROFS", "EBADF"])
    # Growing the file system is a change the read-only root refuses
    # before the kernel asks for CAP_SYS_ADMIN; scrubbing and mapping the
    # whole file system's space need CAP_SYS_ADMIN (a kernel without
    # online scrub knows no such call); freeing every inode's
    # preallocation too.
    attempt("xfs: ioctl(XFS_IOC_FSGROWFSDATA)", ioctl(fd, 0x4010586e, struct.pack("QI4x", 1 << 40, 25)), ["EROFS", "EPERM"])
    attempt("xfs: ioctl(XFS_IOC_SCRUB_METADATA)", ioctl(fd, 0xc040583c, struct.pack("II", 1, 0) + bytes(56)), ["EPERM", "ENOTTY"])
    attempt("xfs: ioctl(FS_IOC_GETFSMAP)", ioctl(fd, 0xc0c0583b, fsmap), ["0", "EPERM"])
    # XFS's own file handles: making one of a descriptor only reads (as
    # name_to_handle_at would, which the filter refuses), and opening a
    # file by it, around the mount view, needs CAP_SYS_ADMIN.
    handle = ctypes.create_string_buffer(64)
    hlen = ctypes.c_uint32(64)
    req = ctypes.create_string_buffer(struct.pack("I4xQI4xQI4xQQ", fd, 0, 0, 0, 0, ctypes.addressof(handle), ctypes.addressof(hlen)), 56)
    attempt("xfs: ioctl(XFS_IOC_FD_TO_HANDLE)", "0" if libc.ioctl(fd, 0xc038586a, req) >= 0 else name(ctypes.get_errno()), ["0"])
    req = ctypes.create_string_buffer(struct.pack("I4xQI4xQI4xQQ", 0, 0, os.O_RDONLY, ctypes.addressof(handle), hlen.value, 0, 0), 56)
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    attempt("xfs: ioctl(XFS_IOC_OPEN_BY_HANDLE)", "0" if libc.ioctl(dfd, 0xc038586b, req) >= 0 else name(ctypes.get_errno()), ["EPERM"])
    os.close(dfd)
    attempt("xfs: ioctl(FIDEDUPERANGE) onto the host's file", dedupe(fd, fd, 8192), ro + ["EINVAL"])
    attempt("xfs: ioctl(XFS_IOC_FREE_EOFBLOCKS)", ioctl(fd, 0x8080583a, struct.pack("IIIIII", 1, 0, 0, 0, 0, 0) + bytes(104)), ["EPERM"])
    os.close(fd)

d = os.environ.get("BTRFS")
if d:
    fd = os.open(os.path.join(d, "file"), os.O_RDONLY)
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    # A sync of the whole file system and the commit of its transaction
    # (the filter's ENOTTY); waiting for a commit starts none.
    attempt("btrfs: ioctl(BTRFS_IOC_SYNC)", ioctl(fd, 0x9408), ["ENOTTY"])
    attempt("btrfs: ioctl(BTRFS_IOC_START_SYNC)", ioctl(fd, 0x80089418, size=8), ["ENOTTY"])
    attempt("btrfs: ioctl(BTRFS_IOC_WAIT_SYNC)", ioctl(fd, 0x40089416, bytes(8)), ["0"])
    # Defragmenting rewrites the file: the read-only root refuses it.
    attempt("btrfs: ioctl(BTRFS_IOC_DEFRAG)", ioctl(fd, 0x50009402), ro + ["EINVAL"])
    attempt("btrfs: ioctl(BTRFS_IOC_DEFRAG_RANGE)", ioctl(fd, 0x40309410, struct.pack("QQQII", 0, 1 << 62, 0, 0, 0) + bytes(12)), ro + ["EINVAL"])
    # Clones and dedupes of the host's extents into the tree's upper
    # layer cross file systems.
    attempt("btrfs: ioctl(BTRFS_IOC_CLONE_RANGE) into the tree", ioctl(tree, 0x4020940d, struct.pack("qQQQ", fd, 0, 0, 0)), ["EXDEV"])
    attempt("btrfs: ioctl(FICLONE) into the tree", ioctl(tree, 0x40049409, fd), ["EXDEV"])
    # A dedupe answers for each target in its status. One onto the
    # host's file itself, which the kernel lets its owner ask through a
    # descriptor opened for reading (and which would write its dirty
    # pages back first), is a change the read-only root refuses.
    os.write(tree, bytes(4096))
    attempt("btrfs: ioctl(FIDEDUPERANGE) into the tree", dedupe(fd, tree, 0), ["EXDEV"])
    attempt("btrfs: ioctl(FIDEDUPERANGE) onto the host's file", dedupe(fd, fd, 8192), ro + ["EINVAL"])
    # Scrub, tree search and send need CAP_SYS_ADMIN; a snapshot a
    # writable directory.
    attempt("btrfs: ioctl(BTRFS_IOC_SCRUB)", ioctl(fd, 0xc400941b, size=1024), ["EPERM"])
    attempt("btrfs: ioctl(BTRFS_IOC_TREE_SEARCH)", ioctl(fd, 0xd0009411, size=4096), ["EPERM"])
    attempt("btrfs: ioctl(BTRFS_IOC_SEND)", ioctl(fd, 0x40489426, struct.pack("q", fd) + bytes(64)), ["EPERM"])
    attempt("btrfs: ioctl(BTRFS_IOC_SNAP_CREATE_V2)",
            ioctl(dfd, 0x50009417, struct.pack("qQQQ", dfd, 0, 0, 0) + bytes(4096 - 32 - 4040) + b"snap".ljust(4040, b"\0")),
            ["EROFS", "EPERM", "EACCES"])
    # What a subvolume is and a path within it only read.
    attempt("btrfs: ioctl(BTRFS_IOC_GET_SUBVOL_INFO)", ioctl(dfd, 0x81f8943c, size=504), ["0"])
    # "sub" is the file system's first subvolume (id 256), in its top
    # directory (inode 256).
    attempt("btrfs: ioctl(BTRFS_IOC_INO_LOOKUP_USER)", ioctl(dfd, 0xd000943e, struct.pack("QQ", 256, 256), size=4096), ["0"])
    os.close(dfd)
    os.close(fd)

d = os.environ.get("EXT4")
if d:
    fd = os.open(os.path.join(d, "file"), os.O_RDONLY)
    dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    # The extent status cache's map with FIEMAP_FLAG_SYNC writes the
    # file back first, as FS_IOC_FIEMAP's would (the filter's ENOTTY).
    attempt("ext4: ioctl(EXT4_IOC_GET_ES_CACHE)", ioctl(fd, 0xc020662a, struct.pack("QQIIII", 0, 1 << 62, 1, 0, 4, 0) + bytes(56 * 4)), ["ENOTTY"])
    attempt("ext4: ioctl(EXT4_IOC_GETSTATE)", ioctl(fd, 0x40046629, size=4), ["0"])
    attempt("ext4: ioctl(EXT4_IOC_PRECACHE_EXTENTS)", ioctl(fd, 0x6612), ["0"])
    attempt("ext4: ioctl(EXT4_IOC_CLEAR_ES_CACHE)", ioctl(fd, 0x6628), ["0"] if owned else ["0", "EACCES"])
    # Allocating the delayed blocks and moving extents change the file:
    # the read-only root (and a donor open for writing) first.
    attempt("ext4: ioctl(EXT4_IOC_ALLOC_DA_BLKS)", ioctl(fd, 0x660c), ro)
    attempt("ext4: ioctl(EXT4_IOC_MOVE_EXT)", ioctl(fd, 0xc028660f, struct.pack("II", 0, tree) + bytes(32)), ["EBADF", "EXDEV", "EINVAL"])
    # A journal checkpoint, a shut-down file system, trimming, freezing
    # and a new label need CAP_SYS_ADMIN; FIBMAP CAP_SYS_RAWIO.
    attempt("ext4: ioctl(FS_IOC_GETFSMAP)", ioctl(fd, 0xc0c0583b, fsmap), ["0", "EPERM"])
    attempt("ext4: ioctl(EXT4_IOC_CHECKPOINT)", ioctl(fd, 0x4004662b, bytes(4)), ["EPERM"])
    attempt("ext4: ioctl(EXT4_IOC_SHUTDOWN)", ioctl(fd, 0x8004587d, 2), ["EPERM"])
    attempt("ext4: ioctl(FITRIM)", ioctl(dfd, 0xc0185879, struct.pack("QQQ", 0, 1 << 62, 0)), ["EPERM"])
    attempt("ext4: ioctl(FIFREEZE)", ioctl(dfd, 0xc0045877, 0), ["EPERM"])
    attempt("ext4: ioctl(FITHAW)", ioctl(dfd, 0xc0045878, 0), ["EPERM"])
    attempt("ext4: ioctl(FS_IOC_SETFSLABEL)", ioctl(dfd, 0x41009432, b"vigiles".ljust(256, b"\0")), ["EPERM"])
    attempt("ext4: ioctl(FIBMAP)", ioctl(fd, 1, struct.pack("i", 0)), ["EPERM"])
    # fs-verity: enabling it on the host's file is a change the
    # read-only root refuses (the kernel's EACCES first where the hook
    # may not write the file); measuring and reading a file without it
    # find no verity data.
    # On a kernel built without fs-verity (VERITY not 1) each of them
    # answers EOPNOTSUPP.
    verity = os.environ.get("VERITY") == "1"
    en = struct.pack("IIIIQIIQ", 1, 1, 4096, 0, 0, 0, 0, 0) + bytes(88)
    attempt("ext4: ioctl(FS_IOC_ENABLE_VERITY)", ioctl(fd, 0x40806685, en),
            (["EROFS"] if owned else ["EROFS", "EACCES"]) if verity else ["EOPNOTSUPP"])
    attempt("ext4: ioctl(FS_IOC_MEASURE_VERITY)", ioctl(fd, 0xc0046686, struct.pack("HH", 0, 64), size=68),
            ["ENODATA"] if verity else ["EOPNOTSUPP"])
    attempt("ext4: ioctl(FS_IOC_READ_VERITY_METADATA)", ioctl(fd, 0xc0286687, struct.pack("QQQQQ", 1, 0, 0, 0, 0)),
            ["ENODATA"] if verity else ["EOPNOTSUPP"])
    # fscrypt's keys are the host's, in the file system's keyring, and
    # charged to the host uid's key quota: adding one (HOOKKEY, a raw key
    # of 64 bytes), removing the claim of the host's process of the same
    # uid on its key (HOSTKEY, the key's identifier) or every user's are
    # the filter's EOPNOTSUPP; a key's status only reads.
    raw = bytes.fromhex(os.environ["HOOKKEY"])
    add = struct.pack("II32sII32x", 2, 0, bytes(32), len(raw), 0) + raw
    attempt("ext4: ioctl(FS_IOC_ADD_ENCRYPTION_KEY)", ioctl(dfd, 0xc0506617, add), ["EOPNOTSUPP"])
    spec = struct.pack("II32s", 2, 0, bytes.fromhex(os.environ.get("HOSTKEY", "00" * 16)))
    attempt("ext4: ioctl(FS_IOC_REMOVE_ENCRYPTION_KEY)", ioctl(dfd, 0xc0406618, spec + bytes(24)), ["EOPNOTSUPP"])
    attempt("ext4: ioctl(FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS)", ioctl(dfd, 0xc0406619, spec + bytes(24)), ["EOPNOTSUPP"])
    attempt("ext4: ioctl(FS_IOC_GET_ENCRYPTION_KEY_STATUS)", ioctl(dfd, 0xc080661a, spec + bytes(88)), ["0"])
    # fscrypt: a policy on a directory of the host is a change the
    # read-only root refuses; the tree's upper layer (tmpfs) has no
    # encryption.
    pol = struct.pack("BBBB4x", 2, 1, 4, 0) + bytes(16)
    attempt("ext4: ioctl(FS_IOC_SET_ENCRYPTION_POLICY)", ioctl(dfd, 0x800c6613, pol), ["EROFS", "EACCES", "EPERM"])
    os.mkdir("encrypted")
    t = os.open("encrypted", os.O_RDONLY | os.O_DIRECTORY)
    attempt("tree: ioctl(FS_IOC_SET_ENCRYPTION_POLICY)", ioctl(t, 0x800c6613, pol), ["ENOTTY", "EOPNOTSUPP"])
    os.close(t)
    # What only reads the file or its file system (FS_IOC_GETFSUUID and
    # FS_IOC_GETFSSYSFSPATH are ENOTTY on a kernel before 6.5 and 6.10).
    for what, f, req, size, want in (("FS_IOC_GETFLAGS", fd, 0x80086601, 8, ["0"]), ("FS_IOC_GETVERSION", fd, 0x80087601, 8, ["0"]),
                                     ("FIGETBSZ", fd, 2, 4, ["0"]), ("FS_IOC_GETFSLABEL", dfd, 0x81009431, 256, ["0"]),
                                     ("FS_IOC_GETFSUUID", dfd, 0x80111500, 17, ["0", "ENOTTY"]),
                                     ("FS_IOC_GETFSSYSFSPATH", dfd, 0x80811501, 129, ["0", "ENOTTY"]),
                                     ("FS_IOC_FSGETXATTR", fd, 0x801c581f, 28, ["0"])):
        attempt(f"ext4: ioctl({what})", ioctl(f, req, size=size), want)
    os.close(dfd)
    os.close(fd)

# The sandbox's /dev holds no block device to flush or discard.
blk = [os.path.join(r, n) for r, _, ns in os.walk("/dev") for n in ns
       if stat.S_ISBLK(os.lstat(os.path.join(r, n)).st_mode)]
attempt("block devices in /dev", "none" if not blk else " ".join(blk), ["none"])
os.close(tree)
finish()
