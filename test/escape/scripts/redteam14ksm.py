# The fourteenth round: kernel same-page merging (KSM), which merges the
# identical pages of every process that asked for it, the host's among
# them, into one page whose copy on write tells a process that another
# holds the same bytes. Each way a process asks for it for its own
# memory fails with EINVAL, as on a kernel built without KSM, and
# /proc/self/ksm_stat (Linux 6.1), where the kernel has it, says that
# none of the hook's memory may be merged. Each attempt prints "ok: WHAT:
# ANSWER" when it answered so and "ESCAPE: WHAT" otherwise; the last line
# says how many ran.
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
ran = 0

def answer(r):
    return str(r) if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))

def attempt(what, got, want):
    global ran
    ran += 1
    print(("ok" if got == want else "ESCAPE") + f": {what}: {got}" + ("" if got == want else f", want {want}"), flush=True)

attempt("prctl(PR_GET_MEMORY_MERGE)", answer(libc.prctl(68, 0, 0, 0, 0)), "EINVAL")
attempt("prctl(PR_SET_MEMORY_MERGE, 1)", answer(libc.prctl(67, 1, 0, 0, 0)), "EINVAL")
size = 4 << 20
a = libc.mmap(None, size, 3, 0x22, -1, 0)  # PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS
ctypes.memset(a, 0x5a, size)
attempt("madvise(MADV_MERGEABLE)", answer(libc.madvise(a, size, 12)), "EINVAL")
attempt("madvise(MADV_UNMERGEABLE)", answer(libc.madvise(a, size, 13)), "EINVAL")
try:
    stat = open("/proc/self/ksm_stat").read()
except FileNotFoundError:
    stat = None
if stat is not None:
    for line in ("ksm_merge_any", "ksm_mergeable"):
        got = [l.split(":", 1)[1].strip() for l in stat.splitlines() if l.startswith(line + ":")]
        if got:
            attempt(f"/proc/self/ksm_stat: {line}", got[0], "no")
        else:
            ran += 1
            print(f"ok: /proc/self/ksm_stat: no {line} line (a kernel before 6.8)", flush=True)
else:
    ran += 2
    print("ok: no /proc/self/ksm_stat (a kernel before 6.1)", flush=True)
# Where nothing told it apart before, the mapping's flags: "mg" is
# VM_MERGEABLE.
flags = [l for l in open("/proc/self/smaps").read().splitlines() if l.startswith("VmFlags:")]
attempt("smaps: a mapping that may be merged", "yes" if any(" mg" in l for l in flags) else "none", "none")
print("ran", ran)
