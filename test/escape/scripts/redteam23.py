# Round twenty-three's hook, on a host whose /home, /root, /mnt and /srv
# are links (ostree's: home -> var/home, root -> var/roothome, ...): it
# reads each file named before "--list" for the token, lists each
# directory named after it (each must list nothing: gone, or empty), and
# writes a file into each named after "--write", where a mask lies, and
# asks whether the file system there is read-only: a mask's tmpfs is,
# for the command, as every mask is (a write there would land where no
# run records it; Landlock, where the kernel has it, refuses it first).
import os, sys
sys.dont_write_bytecode = True
from attempts import attempt, read_each, finish

args = sys.argv[1:]
k = args.index("--list")
w = args.index("--write")
read_each(args[:k], "h122-tenant-token")
for d in args[k + 1:w]:
    try:
        got = "listed " + str(len(os.listdir(d)))
    except OSError as e:
        got = e.strerror
    attempt(f"{d} lists nothing", got, ["listed 0", "No such file or directory", "Permission denied"])
for d in args[w + 1:]:
    p = os.path.join(d, "h125-written")
    try:
        with open(p, "w") as f:
            f.write("x")
        got = "written"
    except OSError as e:
        got = e.strerror
    attempt(f"{p} is not written", got, ["Read-only file system", "Permission denied"])
    try:
        got = "read-only" if os.statvfs(d).f_flag & os.ST_RDONLY else "writable"
    except OSError as e:
        got = e.strerror
    attempt(f"{d} is read-only", got, ["read-only"])
finish()
