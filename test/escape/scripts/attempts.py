# What the rounds' python scripts share (redteam13.py, redteam14.py,
# redteam16.py, redteam16proc.py, and the readers of round eighteen's and
# nineteen's planted secrets): libc, an errno's name, a raw system call,
# and attempt, which prints "ok: WHAT: ANSWER" when an attempt answered as
# the round pinned it and "ESCAPE: WHAT" otherwise and counts it;
# read_each, which reads files for a token and counts each; finish prints
# the count as the script's last line, "ran N". A
# script imports it from beside itself (workTree copies every script into
# the work tree), after it set sys.dont_write_bytecode, so that the
# import writes no __pycache__ into the tree the run records.
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
ran = 0

def name(e):
    if e == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"  # Python names it ENOTSUP: one number on Linux
    return errno.errorcode.get(e, str(e))

def sc(nr, *args):
    """The system call nr's answer: "0" (or what it returned) or the
    errno's name."""
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    return str(r) if r >= 0 else name(ctypes.get_errno())

def attempt(what, got, want):
    global ran
    ran += 1
    if got in want:
        print(f"ok: {what}: {got}", flush=True)
    else:
        print(f"ESCAPE: {what}: {got}, want {' or '.join(want)}", flush=True)

def finish():
    print(f"ran {ran}", flush=True)

def read_each(paths, token):
    """Reads each of paths and prints "ESCAPE: read P" where it holds
    token, "ok: P read nothing (WHY)" otherwise (the error, "empty", or
    "no token"); counts each."""
    global ran
    for p in paths:
        ran += 1
        why = "empty"
        try:
            with open(p, errors="replace") as f:
                text = f.read()
        except OSError as e:
            text = ""
            why = e.strerror
        if token in text:
            print(f"ESCAPE: read {p}", flush=True)
        else:
            print(f"ok: {p} read nothing ({why if not text else 'no token'})", flush=True)
