# Writes the number of small files its argument names, then a child
# fills System V shared memory, 8 MiB a segment, each touched and
# detached, until the kernel ends it: the segments outlive their maker,
# and their pages stay charged to the run's memory cgroup.
import ctypes, os, sys
for i in range(int(sys.argv[1])):
    with open("f%05d.txt" % i, "w") as f:
        f.write("x" * 100)
pid = os.fork()
if pid == 0:
    l = ctypes.CDLL(None, use_errno=True)
    l.shmat.restype = ctypes.c_void_p
    l.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    l.shmdt.argtypes = [ctypes.c_void_p]
    n = 0
    while n < 4096:
        seg = l.shmget(0, 8 << 20, 0o1600)
        if seg < 0:
            break
        addr = l.shmat(seg, None, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            break
        ctypes.memset(addr, 1, 8 << 20)
        l.shmdt(addr)
        n += 1
    print("segments", n, flush=True)
    os._exit(0)
_, status = os.waitpid(pid, 0)
print("filler", status, flush=True)
