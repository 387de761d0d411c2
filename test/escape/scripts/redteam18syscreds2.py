# More of the host's system-wide files where an image keeps a proxy's or
# a package source's credentials for every user, world-readable: each
# argument is PATH=TOKEN, a file the test added with TOKEN in it, or
# PATH=+TEXT, a file with no credential that must read as it is. The
# hook reads each, by its path and through /proc/self/root.
import sys

n = 0


def read(p):
    try:
        with open(p, errors="replace") as f:
            return f.read()
    except OSError as e:
        return f"({e})"


for arg in sys.argv[1:]:
    p, token = arg.split("=", 1)
    n += 1
    text = read(p) + read("/proc/self/root" + p)
    if token.startswith("+"):
        if token[1:] in read(p):
            print(f"ok: {p}, with no credential, reads as it is", flush=True)
        else:
            print(f"ESCAPE: {p}, with no credential, was hidden: {read(p)!r}", flush=True)
    elif token in text:
        print(f"ESCAPE: {p} shows {token}", flush=True)
    else:
        print(f"ok: {p} shows no token", flush=True)
print(f"ran {n}", flush=True)
