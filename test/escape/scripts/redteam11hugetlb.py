# The eleventh round: the host's hugetlb pool (vm.nr_hugepages), one for
# the whole host, from which nothing bounds what an unprivileged process
# maps. Each way of taking a huge page of it is tried while the pool has
# every page it had free (the anonymous mapping, which takes all it can,
# last), and prints "ok: WHAT" when the filter refused it (ENOMEM) and
# "ESCAPE: WHAT" otherwise; the pages got are held while the script reads
# the pool's free count from /proc/meminfo (the host's: it is not
# namespaced) and prints it as "free N"; the last line says how many ran.
import ctypes, errno, mmap, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
HUGE = 2 << 20
FAILED = ctypes.c_void_p(-1).value
ran, held = 0, []

def report(stopped, what):
    global ran
    ran += 1
    print(("ok: " if stopped else "ESCAPE: ") + what, flush=True)

def err():
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))

# A hugetlb memfd, sized and mapped.
try:
    fd = os.memfd_create("huge", os.MFD_HUGETLB)
    os.ftruncate(fd, HUGE)
    m = mmap.mmap(fd, HUGE)
    m[0] = 1
    held.append(m)
    report(False, "memfd_create(MFD_HUGETLB): a page mapped")
except OSError as e:
    report(e.errno == errno.ENOMEM, f"memfd_create(MFD_HUGETLB): {errno.errorcode.get(e.errno)}")

# System V shared memory of huge pages, attached and touched.
ctypes.set_errno(0)
sid = libc.shmget(0, HUGE, 0o1600 | 0o4000)  # IPC_PRIVATE, IPC_CREAT|0600, SHM_HUGETLB
if sid < 0:
    report(err() == "ENOMEM", f"shmget(SHM_HUGETLB): {err()}")
else:
    a = libc.shmat(sid, None, 0)
    if a not in (None, FAILED):
        ctypes.memset(a, 1, 4096)
    libc.shmctl(sid, 0, None)  # IPC_RMID: gone once detached
    report(False, "shmget(SHM_HUGETLB): a segment made")

# An anonymous mapping of huge pages, each touched so that it is taken.
got, why = 0, "none refused"
for _ in range(16):
    ctypes.set_errno(0)
    a = libc.mmap(None, HUGE, 3, 0x22 | 0x40000, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB
    if a is None or a == FAILED:
        why = err()
        break
    ctypes.memset(a, 1, 4096)
    held.append(a)
    got += 1
report(got == 0 and why == "ENOMEM", f"mmap(MAP_HUGETLB): {got} pages, then {why}")

with open("/proc/meminfo") as f:
    for line in f:
        if line.startswith("HugePages_Free:"):
            print("free", line.split()[1], flush=True)
print("ran", ran)
